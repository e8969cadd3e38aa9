//! The model's question (AskUser) while the user answers it in a picker.

use tokio::sync::oneshot;
use wright_core::ask_user::{UserAnswer, UserQuestion};

use super::picker::{Picked, Picker};

/// The model's question (AskUser), waiting for the user's answer.
pub(super) struct Answering {
    pub(super) picker: Picker,
    question: UserQuestion,
    answer: oneshot::Sender<UserAnswer>,
}

impl Answering {
    /// `question` in a picker of its choices and a row to type an answer; the answer goes to
    /// `answer`.
    pub(super) fn new(question: UserQuestion, answer: oneshot::Sender<UserAnswer>) -> Self {
        let title = question
            .question
            .lines()
            .enumerate()
            .map(|(i, line)| format!("{} {line}", if i == 0 { "?" } else { " " }))
            .collect();
        let picker = Picker::new(
            title,
            question.choices.clone(),
            Some("type an answer"),
            question.multi,
            0,
        );
        Self {
            picker,
            question,
            answer,
        }
    }

    /// What the picker's answer means to the model.
    pub(super) fn answer(&self, picked: Picked) -> UserAnswer {
        match picked {
            Picked::Options(indices) => UserAnswer::Chose(
                indices
                    .into_iter()
                    .filter_map(|i| self.question.choices.get(i).cloned())
                    .collect(),
            ),
            Picked::Text(text) => UserAnswer::Typed(text),
            Picked::Dismissed => UserAnswer::Declined,
        }
    }

    /// Sends `answer` to the agent.
    pub(super) fn send(self, answer: UserAnswer) {
        let _ = self.answer.send(answer);
    }
}
