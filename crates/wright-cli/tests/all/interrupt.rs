//! Ctrl-C during a round stops the running tool at once and exits with 130.

use crate::common::{Project, interrupt_at_first_tool_call, reply, serve};

#[test]
fn ctrl_c_during_a_tool_exits_130_with_an_interrupted_event() {
    let project = Project::new();
    let server = serve(vec![
        reply("Action: Bash[{\"command\": \"sleep 30\"}]"),
        reply("Action: Finish[should not be reached]"),
    ]);
    let mut command = project.command(&server, "openai");
    command.args(["exec", "--json", "wait"]);
    let (status, rest) = interrupt_at_first_tool_call(command);
    assert_eq!(status.code(), Some(130));
    let last: serde_json::Value = serde_json::from_str(rest.last().unwrap()).unwrap();
    assert_eq!(last["type"], "error");
    assert_eq!(last["code"], "interrupted");
    assert_eq!(server.requests().len(), 1);
}
