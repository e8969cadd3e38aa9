//! The session loader and history replay: any file loads or fails with an error, and what
//! loads can be replayed into history, repaired, estimated and asked for its todo list.
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use wright_core::history::HistoryManager;
use wright_core::tiers::HistoryView;

fuzz_target!(|data: &[u8]| {
    let Ok(mut file) = tempfile::NamedTempFile::new() else {
        return;
    };
    if file.write_all(data).is_err() {
        return;
    }
    let Ok(session) = wright_store::load(file.path()) else {
        return;
    };
    let mut history = HistoryManager::replay(&session.records, None);
    let _ = history.repair_interrupted_step();
    let _ = history.last_todo_list();
    let _ = HistoryView::new(&history).estimate("system prompt");
});
