//! A picker with a way out of its options: a question, its options (one to pick, or several to
//! tick), and a last row that opens a field to type an answer of one's own. The model's
//! questions (AskUser) and the question after a plan are put with it.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::history::InputHistory;
use super::input::Composer;
use super::transcript::{clean, styled};
use crate::render::Theme;
use crate::render::palette::{BOLD, DIM, WARNING};

/// What came of a picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Picked {
    /// These options (by index; one unless the picker takes several).
    Options(Vec<usize>),
    /// An answer typed in the last row's field.
    Text(String),
    /// Esc: no answer.
    Dismissed,
}

/// A question with options and, if it takes one, a typed answer.
pub(super) struct Picker {
    title: Vec<String>,
    options: Vec<String>,
    /// What the last row says, when the picker takes a typed answer.
    free_text: Option<String>,
    /// Whether several options may be ticked.
    multi: bool,
    ticked: Vec<bool>,
    /// The row the cursor is on; `options.len()` is the typing row.
    selected: usize,
    /// The answer being typed, once the typing row is entered.
    typing: Option<Composer>,
}

impl Picker {
    /// A picker of `options` under `title`, the cursor on `selected`; `free_text` labels the
    /// row that opens a field for a typed answer (`None`: options only). Without options the
    /// field is open at once.
    pub(super) fn new(
        title: Vec<String>,
        options: Vec<String>,
        free_text: Option<&str>,
        multi: bool,
        selected: usize,
    ) -> Self {
        let rows = options.len() + usize::from(free_text.is_some());
        let mut picker = Self {
            title,
            ticked: vec![false; options.len()],
            selected: selected.min(rows.saturating_sub(1)),
            options,
            free_text: free_text.map(str::to_string),
            multi,
            typing: None,
        };
        if picker.options.is_empty() && picker.free_text.is_some() {
            picker.open_field();
        }
        picker
    }

    /// The field an answer is typed in, when it is open.
    pub(super) fn field(&self) -> Option<&Composer> {
        self.typing.as_ref()
    }

    /// Pasted text goes into the field, which opens for it if the picker takes typed answers.
    pub(super) fn paste(&mut self, text: &str) {
        if self.typing.is_none() && self.free_text.is_some() {
            self.open_field();
        }
        if let Some(field) = &mut self.typing {
            field.paste(text);
        }
    }

    /// Handles a key; `Some` once the picker is answered.
    pub(super) fn key(&mut self, key: KeyEvent) -> Option<Picked> {
        if let Some(field) = &mut self.typing {
            return match key.code {
                KeyCode::Esc if self.options.is_empty() => Some(Picked::Dismissed),
                KeyCode::Esc => {
                    self.typing = None;
                    None
                }
                KeyCode::Enter if key.modifiers.is_empty() => {
                    let text = field.text().trim().to_string();
                    (!text.is_empty()).then_some(Picked::Text(text))
                }
                _ => {
                    field.key(key);
                    None
                }
            };
        }
        let last = self.options.len() + usize::from(self.free_text.is_some());
        let last = last.saturating_sub(1);
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        match key.code {
            KeyCode::Esc => return Some(Picked::Dismissed),
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.selected = (self.selected + 1).min(last),
            KeyCode::Enter if self.selected == self.options.len() => self.open_field(),
            KeyCode::Enter => return Some(self.pick(self.selected)),
            KeyCode::Char(' ') if self.multi && self.selected < self.options.len() => {
                self.ticked[self.selected] ^= true;
            }
            // A digit picks its option; one with no option starts a typed answer ("3 retries").
            KeyCode::Char(c @ '1'..='9')
                if plain && (c as usize) - ('1' as usize) < self.options.len() =>
            {
                let index = (c as usize) - ('1' as usize);
                if !self.multi {
                    return Some(Picked::Options(vec![index]));
                }
                self.selected = index;
                self.ticked[index] ^= true;
            }
            // Typing starts the answer of one's own.
            KeyCode::Char(c) if plain && c != ' ' && self.free_text.is_some() => {
                self.open_field();
                if let Some(field) = &mut self.typing {
                    field.key(key);
                }
            }
            _ => {}
        }
        None
    }

    /// Enter on option `index`: it, or the options ticked when several may be.
    fn pick(&self, index: usize) -> Picked {
        if self.multi {
            let ticked: Vec<usize> = (0..self.options.len())
                .filter(|&i| self.ticked[i])
                .collect();
            if !ticked.is_empty() {
                return Picked::Options(ticked);
            }
        }
        Picked::Options(vec![index])
    }

    fn open_field(&mut self) {
        let mut field = Composer::new(InputHistory::in_memory(Vec::new()));
        field.set_placeholder("your answer (Enter to send)");
        self.selected = self.options.len();
        self.typing = Some(field);
    }

    /// The picker as rows: the title, the options (the cursor's reversed), the typing row,
    /// and what the keys do.
    pub(super) fn lines(&self, theme: &Theme) -> Vec<Line<'static>> {
        let mut lines: Vec<Line<'static>> = self
            .title
            .iter()
            .map(|line| styled(clean(line), WARNING, theme))
            .collect();
        if self.typing.is_some() {
            let back = if self.options.is_empty() {
                "Esc to decline"
            } else {
                "Esc to go back to the choices"
            };
            lines.push(styled(
                format!("Type your answer below, then Enter; {back}"),
                DIM,
                theme,
            ));
            return lines;
        }
        let row = |i: usize, label: Vec<Span<'static>>| {
            let mut spans = vec![Span::raw(if i == self.selected { "› " } else { "  " })];
            let style = if i == self.selected {
                Style::new().add_modifier(Modifier::REVERSED)
            } else {
                Style::new()
            };
            spans.extend(label.into_iter().map(|span| span.patch_style(style)));
            theme.finish_line(Line::from(spans))
        };
        for (i, option) in self.options.iter().enumerate() {
            let mut label = Vec::new();
            if self.multi {
                label.push(Span::raw(if self.ticked[i] { "[x] " } else { "[ ] " }));
            }
            label.push(Span::styled(format!("{}.", i + 1), BOLD));
            label.push(Span::raw(format!(" {}", clean(option))));
            lines.push(row(i, label));
        }
        if let Some(free_text) = &self.free_text {
            lines.push(row(
                self.options.len(),
                vec![Span::raw(format!("✎ {}", clean(free_text)))],
            ));
        }
        let keys = if self.multi {
            "↑↓ move · Space tick · Enter send · Esc decline"
        } else {
            "↑↓ move · Enter pick · Esc decline"
        };
        lines.push(styled(keys.to_string(), DIM, theme));
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::to_plain;
    use pretty_assertions::assert_eq;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn picker(multi: bool) -> Picker {
        Picker::new(
            vec!["Which?".into()],
            vec!["on".into(), "off".into()],
            Some("type an answer"),
            multi,
            0,
        )
    }

    #[test]
    fn the_rows_show_the_cursor_the_numbers_and_the_typing_row() {
        let mut picker = picker(false);
        picker.key(key(KeyCode::Down));
        assert_eq!(
            to_plain(&picker.lines(&Theme::PLAIN)),
            "Which?\n  1. on\n› 2. off\n  ✎ type an answer\n↑↓ move · Enter pick · Esc decline\n"
        );
    }

    #[test]
    fn several_may_be_ticked_and_are_sent_together() {
        let mut picker = picker(true);
        picker.key(key(KeyCode::Char(' ')));
        picker.key(key(KeyCode::Char('2')));
        assert!(to_plain(&picker.lines(&Theme::PLAIN)).contains("[x] 1. on\n› [x] 2. off"));
        assert_eq!(
            picker.key(key(KeyCode::Enter)),
            Some(Picked::Options(vec![0, 1]))
        );
    }

    #[test]
    fn without_options_the_field_is_open_and_esc_declines() {
        let mut picker = Picker::new(vec!["Why?".into()], Vec::new(), Some("type"), false, 0);
        assert!(picker.field().is_some());
        assert_eq!(picker.key(key(KeyCode::Esc)), Some(Picked::Dismissed));
    }

    #[test]
    fn a_digit_with_no_option_starts_a_typed_answer() {
        let mut picker = picker(false);
        assert_eq!(picker.key(key(KeyCode::Char('7'))), None);
        assert_eq!(picker.field().map(Composer::text), Some("7".to_string()));
    }

    #[test]
    fn esc_in_the_field_goes_back_to_the_options() {
        let mut picker = picker(false);
        picker.key(key(KeyCode::Char('x')));
        assert_eq!(picker.field().map(Composer::text), Some("x".to_string()));
        picker.key(key(KeyCode::Esc));
        assert!(picker.field().is_none());
        assert_eq!(picker.key(key(KeyCode::Esc)), Some(Picked::Dismissed));
    }
}
