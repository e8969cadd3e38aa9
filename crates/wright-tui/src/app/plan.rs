//! After a plan-mode round that ended with a plan: the question put to the user — carry it
//! out with file edits unasked, carry it out asking before each change (the default), keep
//! planning, or type a refinement — and what each answer does.

use wright_core::approval::ApprovalMode;
use wright_core::plan::CARRY_OUT_THE_PLAN;

use super::modes::SessionMode;
use super::picker::{Picked, Picker};
use super::state::App;

/// Where the last plan-mode round sent is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PlanRound {
    /// It runs.
    Running,
    /// It ended with a plan.
    Planned,
}

impl App {
    /// Acts on the answer to the question after a plan: carry it out in the mode picked,
    /// refine it, or keep planning.
    pub(super) fn plan_decided(&mut self, picked: Picked) {
        let accepted = match picked {
            Picked::Options(picked) => match picked.first() {
                Some(&ACCEPT_AUTO_EDIT) => Some(ApprovalMode::AutoEdit),
                Some(&ACCEPT_ASK) => Some(ApprovalMode::Ask),
                _ => None,
            },
            // A bare "yes" typed where a refinement goes means the default: carry it out,
            // asking; "no" keeps planning. Anything else refines the plan.
            Picked::Text(text) => match text.trim().to_ascii_lowercase().as_str() {
                "y" | "yes" => Some(ApprovalMode::Ask),
                "n" | "no" => None,
                _ => return self.submit(text),
            },
            Picked::Dismissed => None,
        };
        match accepted {
            Some(approval) => {
                self.session_mode = SessionMode::new(approval);
                self.info(&format!(
                    "Plan accepted. {}",
                    self.session_mode.announcement()
                ));
                self.submit(CARRY_OUT_THE_PLAN.to_string());
            }
            None => self.info("Still planning: say what to look into or change next."),
        }
    }
}

/// The options after a plan, in order.
const ACCEPT_AUTO_EDIT: usize = 0;
const ACCEPT_ASK: usize = 1;

/// What the user is asked after a plan-mode round ends with a plan. Accepting with `ask` is
/// the default: the user sees each change of a plan they have only read.
pub(super) fn plan_question() -> Picker {
    Picker::new(
        vec!["The plan is ready. Carry it out?".to_string()],
        vec![
            "Yes, and let file edits run without asking (auto-edit mode)".to_string(),
            "Yes, and ask before each change (ask mode)".to_string(),
            "No, keep planning".to_string(),
        ],
        Some("Refine the plan: type what to change"),
        false,
        ACCEPT_ASK,
    )
}
