//! Switching a session's modes between rounds: plan mode ([`crate::plan`]) and which actions
//! run without asking ([`crate::approval`]).

use crate::approval::ApprovalMode;

use super::Session;

impl Session {
    /// Turns plan mode on or off for the next rounds (see
    /// [`Agent::set_plan_mode`](crate::Agent::set_plan_mode)).
    pub fn set_plan_mode(&mut self, on: bool) {
        self.agent.set_plan_mode(on);
    }

    /// Lets `mode` decide which actions of the next rounds run without asking.
    pub fn set_approval_mode(&mut self, mode: ApprovalMode) {
        self.agent.set_approval_mode(mode);
    }
}
