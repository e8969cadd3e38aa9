//! The RepoMap tool: the project's most important definitions, ranked by a PageRank over which
//! files use the names which files define ([`wright_code::rank`]), personalised towards the
//! paths and names the model asks about and the files of this round, and rendered as file
//! headers with the key signatures within a token budget.
//!
//! The whole project is walked `.gitignore`-aware (hidden files skipped), at most
//! [`MAX_FILES`] source files, parsed on every core and cached under `$WRIGHT_HOME` by path,
//! mtime and size ([`wright_code::index_files`]), so a second map of an unchanged tree parses
//! nothing. The map is a tool result, never part of the system prompt: the stable prefix (L1)
//! stays byte-identical.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use wright_code::{
    FileTags, Focus, Indexed, Lang, Need, Scope, index_files, index_in_chunks, rank, relative_path,
};
use wright_protocol::{ToolError, ToolResult};

use crate::args::{Typed, schema_of};
use crate::data::{read_object, to_value};
use crate::definitions::{Skipped, cut};
use crate::walk::{StopFlag, project_walker, run_blocking};
use crate::{Prepared, Tool, ToolContext, ToolKind};

/// Source files mapped at most.
pub(crate) const MAX_FILES: usize = 5_000;
/// Files of any kind walked at most (a map started in a home directory stops).
const MAX_WALKED: usize = 100_000;
/// A focus entry longer than this is no path or name.
const MAX_FOCUS_CHARS: usize = 200;
/// Focus entries named in the text at most.
const SHOWN_FOCUS: usize = 8;
/// The budget when none is given, and its bounds.
const DEFAULT_TOKENS: usize = 2_000;
const MIN_TOKENS: usize = 1_000;
const MAX_TOKENS: usize = 8_000;
/// Spec A6: a token is three characters.
const CHARS_PER_TOKEN: usize = 3;
/// Characters of a signature in the map.
const SIGNATURE_CHARS: usize = 120;
/// Files the start-up indexing parses between two saves of the cache.
const WARM_UP_CHUNK: usize = 250;
/// Names kept per file in the history form.
const HISTORY_NAMES: usize = 10;
/// Focus entries taken at most.
const MAX_FOCUS: usize = 50;

const SHAPE: &str = r#"{"max_tokens"?: integer, "focus"?: [string]}"#;

/// Maps the repository's most important definitions.
#[derive(Debug, Clone, Copy, Default)]
pub struct RepoMapTool;

#[derive(Debug, Deserialize, JsonSchema)]
struct RepoMapArgs {
    /// The map's size in tokens, 1000 to 8000 (default 2000).
    max_tokens: Option<usize>,
    /// Paths (files or directories) or names of functions/types to lean the ranking towards.
    focus: Option<Vec<String>>,
}

/// One file of the map with its definitions shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapFile {
    pub file: String,
    pub definitions: Vec<MapDefinition>,
}

/// One definition shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapDefinition {
    pub name: String,
    pub kind: String,
    /// 1-based.
    pub line: usize,
    pub signature: String,
}

/// The data of a RepoMap result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoMapData {
    /// The files shown, most important first, each with its definitions in line order.
    pub map: Vec<MapFile>,
    /// Definitions shown.
    pub shown: usize,
    /// Definitions found in the project.
    pub total: usize,
    /// Source files read.
    pub files: usize,
    /// Of those, taken from the cache rather than parsed.
    pub cached: usize,
    /// The budget the map was fitted to.
    pub max_tokens: usize,
    /// The focus given that the ranking leaned towards: paths (relative) and names.
    pub focus: Vec<String>,
    /// How many files of this round it leaned towards too (less than the focus).
    #[serde(default)]
    pub recent: usize,
    /// Focus entries that are neither a path in the project nor a defined name (or too long).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unknown_focus: Vec<String>,
    /// Files that did not parse cleanly.
    pub partial: usize,
    pub skipped: Skipped,
    /// Whether source files past [`MAX_FILES`] were left out.
    pub truncated: bool,
}

impl Tool for RepoMapTool {
    fn name(&self) -> &'static str {
        "RepoMap"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn description(&self) -> &'static str {
        include_str!("../../../prompts/tools/repo_map.md")
    }

    fn schema(&self) -> Value {
        schema_of::<RepoMapArgs>()
    }

    fn prepare(&self, args: Value, _: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        Typed::prepare("RepoMap", args, SHAPE, |args, ctx| {
            Box::pin(repo_map(args, ctx))
        })
    }
}

async fn repo_map(args: RepoMapArgs, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let max_tokens = args
        .max_tokens
        .unwrap_or(DEFAULT_TOKENS)
        .clamp(MIN_TOKENS, MAX_TOKENS);
    let root = ctx.root().to_path_buf();
    // A focus entry naming a path in the project leans towards that file or directory; any
    // other is taken for a name. Paths outside the project are not followed.
    let mut focus = Focus::default();
    let mut shown_focus = Vec::new();
    let mut unusable = Vec::new();
    for entry in args.focus.unwrap_or_default().into_iter().take(MAX_FOCUS) {
        let entry = entry.trim().to_owned();
        if entry.is_empty() {
            continue;
        }
        if entry.chars().count() > MAX_FOCUS_CHARS {
            unusable.push(cut(&entry, 40));
            continue;
        }
        match ctx.resolve(&entry).ok().filter(|abs| abs.exists()) {
            Some(abs) => match relative_path(&root, &abs) {
                Some(rel) => {
                    shown_focus.push(if rel.is_empty() {
                        ".".into()
                    } else {
                        rel.clone()
                    });
                    focus.paths.push(rel);
                }
                None => unusable.push(entry),
            },
            None => {
                focus.names.push(entry.clone());
                shown_focus.push(entry);
            }
        }
    }
    for abs in ctx.round_files() {
        if let Some(rel) = relative_path(&root, &abs)
            && !focus.paths.contains(&rel)
            && !focus.recent.contains(&rel)
        {
            focus.recent.push(rel);
        }
    }
    let cache = ctx.code_cache().map(Path::to_path_buf);
    let data = run_blocking("RepoMap", ctx.cancellation(), move |stop| {
        Ok(build(
            &root,
            cache.as_deref(),
            &focus,
            (shown_focus, unusable),
            max_tokens,
            stop,
        ))
    })
    .await?;
    Ok(ToolResult::success(render(&data), to_value(&data)))
}

/// Indexes the project's source files on a background thread, once per process and project,
/// so that the model's first RepoMap or Definitions call finds the tag cache warm (aider
/// builds its map at start-up for the same reason). Nothing happens when the context has no
/// cache or the settings turned it off (`index_code_on_start = false`); an unchanged tree
/// costs a walk and a stat per file. What it finds is only written to the cache.
pub fn warm_code_index(ctx: &ToolContext) {
    static WARMED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    if !ctx.code_warm_up() {
        return;
    }
    let Some(cache) = ctx.code_cache() else {
        return;
    };
    let root = ctx.root().to_path_buf();
    {
        let mut warmed = WARMED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if warmed.contains(&root) {
            return;
        }
        warmed.push(root.clone());
    }
    let cache = cache.to_path_buf();
    // Best effort: a thread that cannot be started leaves the first call to parse.
    let _ = std::thread::Builder::new()
        .name("wright-code-index".into())
        .spawn(move || {
            let stop = StopFlag::default();
            let (mut files, _, _) = walk(&root, &stop);
            files.truncate(MAX_FILES);
            // In chunks, each saved: a short session keeps what it parsed, and a map asked
            // for meanwhile waits for one chunk, not the whole warm-up.
            index_in_chunks(
                &root,
                &files,
                &cache,
                WARM_UP_CHUNK,
                Need::References,
                stop.as_atomic(),
            );
        });
}

/// The project's source files in path order (at most one past [`MAX_FILES`]), how many other
/// files there were, and whether the walk saw the whole tree (it stops past [`MAX_FILES`]
/// source files or [`MAX_WALKED`] files in all).
fn walk(root: &Path, stop: &StopFlag) -> (Vec<PathBuf>, Skipped, bool) {
    let mut builder = project_walker(root, false);
    builder.sort_by_file_name(|a, b| a.cmp(b));
    let mut files = Vec::new();
    let mut other = Skipped::default();
    for entry in builder.build() {
        if stop.is_raised() {
            return (files, other, false);
        }
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            continue;
        }
        if Lang::of_path(entry.path()).is_none() {
            other.unknown(entry.path());
        } else {
            files.push(entry.into_path());
        }
        if files.len() > MAX_FILES || files.len() + other.unknown_language > MAX_WALKED {
            return (files, other, false);
        }
    }
    (files, other, true)
}

fn build(
    root: &Path,
    cache: Option<&Path>,
    focus: &Focus,
    (shown_focus, unusable): (Vec<String>, Vec<String>),
    max_tokens: usize,
    stop: &StopFlag,
) -> RepoMapData {
    let (mut sources, other, complete) = walk(root, stop);
    let truncated = !complete;
    sources.truncate(MAX_FILES);
    // A complete walk saw every source file: the cache may forget those no longer there.
    let scope = if complete { Scope::Whole } else { Scope::Part };
    let (indexed, stats) = index_files(
        root,
        &sources,
        cache,
        scope,
        Need::References,
        stop.as_atomic(),
    );
    let mut skipped = other;
    let mut files: Vec<(String, std::sync::Arc<FileTags>)> = Vec::new();
    for (path, indexed) in sources.iter().zip(indexed) {
        match indexed {
            Indexed::Tags(tags) => {
                if let Some(rel) = relative_path(root, path) {
                    files.push((rel, tags));
                }
            }
            Indexed::Binary => skipped.binary += 1,
            Indexed::TooLarge => skipped.too_large += 1,
            Indexed::Unreadable => skipped.unreadable += 1,
            Indexed::UnknownLanguage => skipped.unknown_language += 1,
        }
    }
    skipped.finish();
    let view: Vec<(&str, &FileTags)> = files
        .iter()
        .map(|(rel, tags)| (rel.as_str(), tags.as_ref()))
        .collect();
    let ranked = rank(&view, focus);
    let defined = |name: &str| {
        view.iter()
            .any(|(_, tags)| tags.definitions.iter().any(|d| d.name == name))
    };
    let unknown_focus = focus
        .names
        .iter()
        .filter(|name| !defined(name))
        .cloned()
        .chain(unusable)
        .collect();
    let mut data = RepoMapData {
        map: Vec::new(),
        shown: 0,
        total: ranked.len(),
        files: files.len(),
        cached: stats.cached,
        max_tokens,
        focus: shown_focus,
        recent: focus.recent.len(),
        unknown_focus,
        partial: files.iter().filter(|(_, tags)| tags.partial).count(),
        skipped,
        truncated,
    };
    // The most definitions whose rendering fits the budget (a binary search over how many of
    // the best are shown).
    let budget = max_tokens.saturating_mul(CHARS_PER_TOKEN);
    // A definition's line is at least `{line:>5} {signature}\n` of one character, 8 in all:
    // more than budget / 8 cannot fit, and the search starts there rather than at all the
    // definitions (the 1,000-file tree has 16,000: a warm map's time went to rendering
    // thousands of them to learn that a few hundred fit).
    let (mut low, mut high) = (0usize, ranked.len().min(budget / MIN_LINE_CHARS));
    while low < high {
        let mid = (low + high).div_ceil(2);
        data.map = select(&view, &ranked[..mid]);
        data.shown = mid;
        if render(&data).chars().count() <= budget {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    data.map = select(&view, &ranked[..low]);
    data.shown = low;
    data
}

/// The fewest characters a definition's line takes (see [`render`]).
const MIN_LINE_CHARS: usize = 8;

/// The definitions `best` names, grouped by file: files in the order of their best definition,
/// definitions in line order.
fn select(files: &[(&str, &FileTags)], best: &[wright_code::Ranked]) -> Vec<MapFile> {
    let mut order: Vec<usize> = Vec::new();
    let mut chosen: std::collections::HashMap<usize, Vec<usize>> = std::collections::HashMap::new();
    for r in best {
        let list = chosen.entry(r.file).or_default();
        if list.is_empty() {
            order.push(r.file);
        }
        list.push(r.definition);
    }
    order
        .into_iter()
        .map(|file| {
            let (rel, tags) = files[file];
            let mut defs = chosen.remove(&file).unwrap_or_default();
            defs.sort_unstable();
            MapFile {
                file: rel.to_owned(),
                definitions: defs
                    .into_iter()
                    .filter_map(|k| tags.definitions.get(k))
                    .map(|d| MapDefinition {
                        name: d.name.clone(),
                        kind: d.kind.clone(),
                        line: d.line,
                        signature: cut(&d.signature, SIGNATURE_CHARS),
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The text form: a summary line, then per file its path and one line per definition.
fn render(data: &RepoMapData) -> String {
    let mut out = format!(
        "Repository map: {} of {} definitions in {} files, ranked by how much the project uses them",
        data.shown, data.total, data.files
    );
    if !data.focus.is_empty() {
        out.push_str(", leaning towards ");
        out.push_str(
            &data
                .focus
                .iter()
                .take(SHOWN_FOCUS)
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
        );
        if data.focus.len() > SHOWN_FOCUS {
            out.push_str(&format!(" and {} more", data.focus.len() - SHOWN_FOCUS));
        }
    }
    if data.recent > 0 {
        out.push_str(&format!(
            "{} the {} file{} of this round",
            if data.focus.is_empty() {
                ", leaning towards"
            } else {
                " and"
            },
            data.recent,
            if data.recent == 1 { "" } else { "s" }
        ));
    }
    let mut notes = Vec::new();
    if !data.unknown_focus.is_empty() {
        notes.push(format!("not found: {}", data.unknown_focus.join(", ")));
    }
    notes.extend(data.skipped.notes());
    if data.partial > 0 {
        notes.push(format!("{} partial", data.partial));
    }
    if data.truncated {
        notes.push(format!("only the first {MAX_FILES} source files"));
    }
    if !notes.is_empty() {
        out.push_str(&format!(" ({})", notes.join("; ")));
    }
    out.push('\n');
    for file in &data.map {
        out.push_str(&file.file);
        out.push('\n');
        for d in &file.definitions {
            if d.signature.is_empty() {
                out.push_str(&format!("{:>5} {} {}\n", d.line, d.kind, d.name));
            } else {
                out.push_str(&format!("{:>5} {}\n", d.line, d.signature));
            }
        }
    }
    if data.total > data.shown {
        out.push_str(&format!(
            "({} more not shown: raise max_tokens, give a focus, or use Definitions on a path)\n",
            data.total - data.shown
        ));
    }
    out
}

/// The history form (spec A3): the counts and the first `max` files as `file: name, name, …`,
/// with `more` counting the files left out. Reads what the tool returned and what an earlier
/// compression kept, so compressing again changes nothing.
pub(crate) fn compressed(data: &Value, max: usize) -> Option<Value> {
    #[derive(Deserialize, Serialize)]
    struct Form {
        shown: Option<usize>,
        total: Option<usize>,
        files: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        focus: Option<Vec<String>>,
        map: Vec<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        more: Option<usize>,
    }
    let mut form: Form = read_object(data)?;
    let files_shown = form.map.len() + form.more.unwrap_or(0);
    let kept: Vec<Value> = std::mem::take(&mut form.map)
        .into_iter()
        .take(max)
        .map(|item| match read_object::<MapFile>(&item) {
            Some(file) => {
                let mut names: Vec<&str> = file
                    .definitions
                    .iter()
                    .take(HISTORY_NAMES)
                    .map(|d| d.name.as_str())
                    .collect();
                if file.definitions.len() > HISTORY_NAMES {
                    names.push("…");
                }
                Value::String(format!("{}: {}", file.file, names.join(", ")))
            }
            None => item,
        })
        .collect();
    let more = files_shown.saturating_sub(kept.len());
    form.map = kept;
    form.more = (more > 0).then_some(more);
    Some(to_value(&form))
}
