//! The corpus files under `tests/data`, shared by the corpus tests.

use std::path::Path;

/// The commands of a corpus file: one per line, `#` lines and blank lines skipped, a line
/// ending in ` \` continued on the next with the newline kept.
pub fn corpus(name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut commands = Vec::new();
    let mut pending: Option<String> = None;
    for line in text.lines() {
        if pending.is_none() && (line.trim().is_empty() || line.trim_start().starts_with('#')) {
            continue;
        }
        let (line, continues) = match line.strip_suffix(" \\") {
            Some(line) => (line, true),
            None => (line, false),
        };
        let command = match pending.take() {
            Some(before) => format!("{before}\n{line}"),
            None => line.to_string(),
        };
        if continues {
            pending = Some(command);
        } else {
            commands.push(command);
        }
    }
    commands.extend(pending);
    commands
}
