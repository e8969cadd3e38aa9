//! `wright memory list|search|rm` (issue 17): the project's and the user's memory, as the
//! Memory tool keeps it, listed, searched and cleared by hand.

use std::path::Path;

use clap::{Args, Subcommand};
use wright_core::memory::commands::{self, MemoryCommand};
use wright_store::memory::MemoryScope;

#[derive(Debug, Args)]
pub struct MemoryArgs {
    #[command(subcommand)]
    command: MemoryCmd,
}

#[derive(Debug, Subcommand)]
enum MemoryCmd {
    /// List the entries of project and global memory: id, date, tags, the start of each.
    List {
        /// Only this scope: `project` or `global`.
        #[arg(long, value_name = "SCOPE")]
        scope: Option<MemoryScope>,
    },
    /// The entries that best match WORDS (BM25 over their content and tags), in full.
    Search {
        /// The words to look for.
        #[arg(value_name = "WORDS")]
        words: Vec<String>,
        /// Only entries with any of these tags (comma-separated).
        #[arg(long, value_name = "TAGS", value_delimiter = ',')]
        tags: Vec<String>,
    },
    /// Remove the entry ID, or every entry with any of --tags.
    Rm {
        /// The entry's id, as `list` shows it.
        #[arg(
            value_name = "ID",
            required_unless_present = "tags",
            conflicts_with = "tags"
        )]
        id: Option<String>,
        /// Remove every entry with any of these tags (comma-separated).
        #[arg(long, value_name = "TAGS", value_delimiter = ',')]
        tags: Vec<String>,
    },
}

/// Runs `wright memory …`; the exit code: 0, 1 when a memory file could not be read or
/// changed or there was nothing to remove, 2 for bad settings.
pub fn run(root: &Path, args: &MemoryArgs) -> u8 {
    let paths = match crate::config::memory_paths(root) {
        Ok(paths) => paths,
        Err(e) => {
            eprintln!("wright: {e}");
            return crate::EXIT_USAGE;
        }
    };
    let command = match &args.command {
        MemoryCmd::List { scope } => MemoryCommand::List { scope: *scope },
        MemoryCmd::Search { words, tags } => MemoryCommand::Search {
            words: words.join(" "),
            tags: tags.clone(),
        },
        MemoryCmd::Rm { id, tags } => MemoryCommand::Remove {
            id: id.clone(),
            tags: tags.clone(),
        },
    };
    let output = commands::run(&paths, None, &command);
    use std::io::Write as _;
    let text = crate::terminal::for_stdout(&output.text);
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    for problem in &output.problems {
        eprintln!("wright: {problem}");
    }
    if output.ok { 0 } else { crate::EXIT_FAILED }
}
