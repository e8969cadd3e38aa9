//! The session's mode: which actions run without asking, and whether the agent only plans.
//! The terminal holds it (Shift-Tab cycles it, `/plan` toggles plan mode, accepting a plan
//! leaves plan mode) and sends it with every round, so the agent runs each round in the mode
//! the user saw when they sent it.

use ratatui::style::{Color, Style};
use ratatui::text::Span;
use wright_core::approval::ApprovalMode;

use crate::render::palette::{DIM, WARNING};

/// How the next round runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionMode {
    /// Which actions run without asking (after plan mode too).
    pub approval: ApprovalMode,
    /// Plan mode: read-only tools only, and the round ends with a plan.
    pub plan: bool,
}

/// Plan mode's colour in the footer.
const PLAN: Style = Style::new().fg(Color::Cyan);

impl SessionMode {
    /// Not planning, with `approval`.
    pub fn new(approval: ApprovalMode) -> Self {
        Self {
            approval,
            plan: false,
        }
    }

    /// Shift-Tab: ask → auto-edit → auto → plan → ask.
    pub fn next(self) -> Self {
        match (self.plan, self.approval) {
            (true, _) => Self::new(ApprovalMode::Ask),
            (false, ApprovalMode::Ask) => Self::new(ApprovalMode::AutoEdit),
            (false, ApprovalMode::AutoEdit) => Self::new(ApprovalMode::Auto),
            (false, ApprovalMode::Auto) => Self {
                approval: ApprovalMode::Auto,
                plan: true,
            },
        }
    }

    /// `/plan`: plan mode on or off, the approval mode kept for after.
    pub fn toggled_plan(self) -> Self {
        Self {
            plan: !self.plan,
            ..self
        }
    }

    /// The mode as the footer shows it: `plan`, or the approval mode as its flag names it.
    pub fn label(self) -> &'static str {
        if self.plan {
            "plan"
        } else {
            self.approval.as_str()
        }
    }

    /// The footer's first span, for any mode but the default `ask`: plan mode stands out,
    /// `auto` warns.
    pub(super) fn span(self) -> Option<Span<'static>> {
        let style = match (self.plan, self.approval) {
            (true, _) => PLAN,
            (false, ApprovalMode::Ask) => return None,
            (false, ApprovalMode::Auto) => WARNING,
            (false, ApprovalMode::AutoEdit) => DIM,
        };
        Some(Span::styled(format!("{} mode", self.label()), style))
    }

    /// What `/plan` and Shift-Tab say about the mode they switched to.
    pub(super) fn announcement(self) -> String {
        if self.plan {
            "Plan mode: the agent only reads and ends with a plan for you to accept \
             (Shift-Tab or /plan to leave)."
                .to_string()
        } else {
            let what = match self.approval {
                ApprovalMode::Ask => "every command and file change is asked about",
                ApprovalMode::AutoEdit => {
                    "file changes run without asking; commands are asked about"
                }
                ApprovalMode::Auto => "everything runs without asking",
            };
            format!("{} mode: {what}.", self.approval)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn shift_tab_cycles_through_the_approval_modes_then_plan() {
        let mut mode = SessionMode::new(ApprovalMode::Ask);
        let mut labels = Vec::new();
        for _ in 0..5 {
            mode = mode.next();
            labels.push(mode.label());
        }
        assert_eq!(labels, ["auto-edit", "auto", "plan", "ask", "auto-edit"]);
    }

    #[test]
    fn plan_toggles_and_keeps_the_approval_mode() {
        let mode = SessionMode::new(ApprovalMode::AutoEdit).toggled_plan();
        assert_eq!(mode.label(), "plan");
        assert_eq!(
            mode.toggled_plan(),
            SessionMode::new(ApprovalMode::AutoEdit)
        );
    }
}
