//! The Definitions tool: the functions, methods, classes, structs, enums, traits, interfaces and
//! type aliases defined in a file or a directory tree, from tree-sitter tag queries
//! ([`wright_code`]).
//!
//! A directory is walked `.gitignore`-aware (the project's walker, hidden files skipped), in
//! path order, and bounded: at most [`MAX_FILES`] source files are parsed and
//! [`MAX_DEFINITIONS`] definitions reported, with `truncated` set when cut. Binary files, files
//! over [`wright_code::MAX_FILE_BYTES`] and files of a language not known are skipped and counted. A file
//! that does not parse cleanly is still reported, listed in `partial`.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use wright_code::{Enough, Indexed, Lang, index_files_until};
use wright_protocol::{ToolError, ToolResult};

use crate::args::{Typed, schema_of};
use crate::data::{read_object, to_value};
use crate::walk::{StopFlag, project_walker, resolve_existing, run_blocking};
use crate::{Prepared, Tool, ToolContext, ToolKind};

/// Source files parsed at most in one call.
pub(crate) const MAX_FILES: usize = 2_000;
/// Definitions reported at most in one call.
pub(crate) const MAX_DEFINITIONS: usize = 5_000;
/// Characters of a signature in the text form.
const TEXT_SIGNATURE_CHARS: usize = 160;

const SHAPE: &str = r#"{"path": string, "kinds"?: [string]}"#;

/// Lists the definitions in a file or a directory tree.
#[derive(Debug, Clone, Copy, Default)]
pub struct DefinitionsTool;

#[derive(Debug, Deserialize, JsonSchema)]
struct DefinitionsArgs {
    /// A file or a directory, relative to the project.
    path: String,
    /// Only these kinds: function, method, class, struct, enum, trait, interface, type, ...
    kinds: Option<Vec<String>>,
}

/// One definition found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DefinitionEntry {
    /// The file, as shown (relative to the project).
    pub file: String,
    pub name: String,
    pub kind: String,
    /// 1-based.
    pub line: usize,
    /// The definition's first line, cut before its body.
    pub signature: String,
}

/// Files not parsed, by reason.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    pub binary: usize,
    pub too_large: usize,
    pub unknown_language: usize,
    /// Unreadable (permissions, removed meanwhile).
    pub unreadable: usize,
    /// The files of unknown language by extension (`.md`, or the name when it has none), the
    /// most frequent first, at most [`SHOWN_EXTENSIONS`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unknown_extensions: Vec<(String, usize)>,
}

/// Extensions of unknown language named at most.
const SHOWN_EXTENSIONS: usize = 8;

impl Skipped {
    /// Counts `path` as a file of unknown language.
    pub(crate) fn unknown(&mut self, path: &Path) {
        self.unknown_language += 1;
        let kind = match path.extension().and_then(|e| e.to_str()) {
            Some(ext) => format!(".{}", ext.chars().take(16).collect::<String>()),
            None => "(no extension)".to_owned(),
        };
        let known = self.unknown_extensions.len();
        match self.unknown_extensions.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            // Bounded: a tree of a million extensions keeps a few hundred.
            None if known < 256 => self.unknown_extensions.push((kind, 1)),
            None => {}
        }
    }

    /// Sorts the extensions most frequent first and keeps [`SHOWN_EXTENSIONS`].
    pub(crate) fn finish(&mut self) {
        self.unknown_extensions
            .sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        self.unknown_extensions.truncate(SHOWN_EXTENSIONS);
    }

    /// `skipped 3 binary; skipped 12 of unknown language (.md 5, .toml 4, …)` parts.
    pub(crate) fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        for (count, what) in [
            (self.binary, "binary"),
            (self.too_large, "over 1 MiB"),
            (self.unknown_language, "of unknown language"),
            (self.unreadable, "unreadable"),
        ] {
            if count == 0 {
                continue;
            }
            let mut note = format!("skipped {count} {what}");
            if what == "of unknown language" && !self.unknown_extensions.is_empty() {
                let listed: Vec<String> = self
                    .unknown_extensions
                    .iter()
                    .map(|(ext, n)| format!("{ext} {n}"))
                    .collect();
                let shown: usize = self.unknown_extensions.iter().map(|e| e.1).sum();
                let more = if shown < count { ", …" } else { "" };
                note.push_str(&format!(" ({}{more})", listed.join(", ")));
            }
            notes.push(note);
        }
        notes
    }
}

/// The data of a Definitions result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DefinitionsData {
    /// The file or directory, as shown.
    pub path: String,
    pub definitions: Vec<DefinitionEntry>,
    /// Source files parsed.
    pub files: usize,
    /// Files that did not parse cleanly (their definitions are what tree-sitter recovered).
    pub partial: Vec<String>,
    pub skipped: Skipped,
    /// Whether files or definitions past the caps were left out.
    pub truncated: bool,
}

impl Tool for DefinitionsTool {
    fn name(&self) -> &'static str {
        "Definitions"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn description(&self) -> &'static str {
        include_str!("../../../prompts/tools/definitions.md")
    }

    fn schema(&self) -> Value {
        schema_of::<DefinitionsArgs>()
    }

    fn prepare(&self, args: Value, _: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        Typed::prepare("Definitions", args, SHAPE, |args, ctx| {
            Box::pin(definitions(args, ctx))
        })
    }
}

async fn definitions(args: DefinitionsArgs, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let (abs, meta) = resolve_existing(ctx, Some(&args.path))?;
    let shown = ctx.display_path(&abs);
    let kinds: Option<Vec<String>> = args.kinds.map(|kinds| {
        kinds
            .into_iter()
            .map(|k| k.trim().to_ascii_lowercase())
            .filter(|k| !k.is_empty())
            .collect()
    });
    let is_dir = meta.is_dir();
    let root = ctx.root().to_path_buf();
    let cache = ctx.code_cache().map(Path::to_path_buf);
    let found = run_blocking("Definitions", ctx.cancellation(), move |stop| {
        let files = if is_dir { walk(&abs, stop) } else { vec![abs] };
        Ok(collect(
            &root,
            cache.as_deref(),
            files,
            kinds.as_deref(),
            stop,
        ))
    })
    .await?;
    let display = |p: &Path| ctx.display_path(p);
    let data = DefinitionsData {
        path: shown,
        definitions: found
            .definitions
            .into_iter()
            .flat_map(|(path, definitions)| {
                let file = display(&path);
                definitions.into_iter().map(move |d| DefinitionEntry {
                    file: file.clone(),
                    name: d.name,
                    kind: d.kind,
                    line: d.line,
                    signature: d.signature,
                })
            })
            .collect(),
        files: found.files,
        partial: found.partial.iter().map(|p| display(p)).collect(),
        skipped: found.skipped,
        truncated: found.truncated,
    };
    Ok(ToolResult::success(render(&data), to_value(&data)))
}

/// The files under `dir`, in path order; the walk stops a little past what [`collect`] can
/// parse (files of unknown languages are counted there, so a few more are listed).
fn walk(dir: &Path, stop: &StopFlag) -> Vec<PathBuf> {
    let mut builder = project_walker(dir, false);
    builder.sort_by_file_name(|a, b| a.cmp(b));
    let mut files = Vec::new();
    let mut known = 0usize;
    for entry in builder.build() {
        if stop.is_raised() {
            break;
        }
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            continue;
        }
        if Lang::of_path(entry.path()).is_some() {
            known += 1;
        }
        files.push(entry.into_path());
        // One past the cap, so that `collect` sees there was more.
        if known > MAX_FILES || files.len() > MAX_FILES.saturating_mul(20) {
            break;
        }
    }
    files
}

#[derive(Debug, Default)]
struct Found {
    /// Per file, in path order.
    definitions: Vec<(PathBuf, Vec<wright_code::Definition>)>,
    files: usize,
    partial: Vec<PathBuf>,
    skipped: Skipped,
    truncated: bool,
}

/// Parses (or takes from the cache) the first [`MAX_FILES`] source files of `files` and
/// gathers their definitions of `kinds`, up to [`MAX_DEFINITIONS`].
fn collect(
    root: &Path,
    cache: Option<&Path>,
    files: Vec<PathBuf>,
    kinds: Option<&[String]>,
    stop: &StopFlag,
) -> Found {
    let mut found = Found::default();
    let mut sources = Vec::new();
    for path in files {
        if Lang::of_path(&path).is_none() {
            found.skipped.unknown(&path);
        } else if sources.len() >= MAX_FILES {
            found.truncated = true;
            break;
        } else {
            sources.push(path);
        }
    }
    // What is past the cap is not shown: the files after those that hold the first
    // MAX_DEFINITIONS are not parsed (protobuf's headers: 41 % of their bytes are read).
    let counts = |d: &wright_code::Definition| kinds.is_none_or(|kinds| kinds.contains(&d.kind));
    let (indexed, _) = index_files_until(
        root,
        &sources,
        cache,
        stop.as_atomic(),
        &Enough {
            definitions: MAX_DEFINITIONS,
            counts: &counts,
        },
    );
    // Definitions listed so far, of all files.
    let mut shown = 0;
    for (path, indexed) in sources.into_iter().zip(indexed) {
        if shown >= MAX_DEFINITIONS {
            // The files past the cap are neither counted nor listed as partial: none of their
            // definitions is shown.
            found.truncated = true;
            break;
        }
        let tags = match indexed {
            Indexed::Tags(tags) => tags,
            Indexed::Binary => {
                found.skipped.binary += 1;
                continue;
            }
            Indexed::TooLarge => {
                found.skipped.too_large += 1;
                continue;
            }
            Indexed::Unreadable => {
                found.skipped.unreadable += 1;
                continue;
            }
            Indexed::UnknownLanguage => {
                found.skipped.unknown(&path);
                continue;
            }
        };
        found.files += 1;
        if tags.partial {
            found.partial.push(path.clone());
        }
        if tags.truncated {
            found.truncated = true;
        }
        let mut mine = Vec::new();
        for def in &tags.definitions {
            if kinds.is_some_and(|kinds| !kinds.contains(&def.kind)) {
                continue;
            }
            if shown >= MAX_DEFINITIONS {
                found.truncated = true;
                break;
            }
            shown += 1;
            mine.push(def.clone());
        }
        if !mine.is_empty() {
            found.definitions.push((path, mine));
        }
    }
    found.skipped.finish();
    found
}

/// The text form: a summary line, then per file its path and one line per definition
/// (`  12 fn parse(input: &str) -> Result<Ast>`).
fn render(data: &DefinitionsData) -> String {
    let mut out = format!(
        "{} definition{} in {} file{} under {}",
        data.definitions.len(),
        plural(data.definitions.len()),
        data.files,
        plural(data.files),
        data.path
    );
    let notes = notes(data);
    if !notes.is_empty() {
        out.push_str(&format!(" ({})", notes.join("; ")));
    }
    out.push('\n');
    let mut current: Option<&str> = None;
    for def in &data.definitions {
        if current != Some(def.file.as_str()) {
            out.push_str(&def.file);
            if data.partial.contains(&def.file) {
                out.push_str(" (partial: parse errors)");
            }
            out.push('\n');
            current = Some(&def.file);
        }
        let signature = if def.signature.is_empty() {
            format!("{} {}", def.kind, def.name)
        } else {
            cut(&def.signature, TEXT_SIGNATURE_CHARS)
        };
        out.push_str(&format!("{:>5} {signature}\n", def.line));
    }
    out
}

fn notes(data: &DefinitionsData) -> Vec<String> {
    let mut notes = data.skipped.notes();
    if !data.partial.is_empty() {
        notes.push(format!("{} partial", data.partial.len()));
    }
    if data.truncated {
        notes.push(format!(
            "cut at {MAX_FILES} files or {MAX_DEFINITIONS} definitions: give a narrower path or kinds"
        ));
    }
    notes
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `s` cut to `max` characters, with `…` when cut.
pub(crate) fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The history form (spec A3): the counts and the first `max` definitions as
/// `file:line kind name`, with `more` counting the rest. Reads what the tool returned and what
/// an earlier compression kept, so compressing again changes nothing.
pub(crate) fn compressed(data: &Value, max: usize) -> Option<Value> {
    #[derive(Deserialize, Serialize)]
    struct Form {
        path: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        files: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        total: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        partial: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<Skipped>,
        #[serde(skip_serializing_if = "Option::is_none")]
        truncated: Option<bool>,
        definitions: Vec<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        more: Option<usize>,
    }
    let object = data.as_object()?;
    let mut form: Form = read_object(&Value::Object({
        let mut o = object.clone();
        // The tool's `partial` is a list of files; history keeps its length.
        if let Some(Value::Array(list)) = o.get("partial") {
            let n = list.len();
            o.insert("partial".into(), Value::from(n));
        }
        o
    }))?;
    let total = form
        .total
        .unwrap_or_else(|| form.definitions.len() + form.more.unwrap_or(0));
    let kept: Vec<Value> = std::mem::take(&mut form.definitions)
        .into_iter()
        .take(max)
        .map(|item| match read_object::<DefinitionEntry>(&item) {
            Some(d) => Value::String(format!("{}:{} {} {}", d.file, d.line, d.kind, d.name)),
            None => item,
        })
        .collect();
    let more = total.saturating_sub(kept.len());
    form.definitions = kept;
    form.total = Some(total);
    form.more = (more > 0).then_some(more);
    form.partial = form.partial.filter(|n| *n > 0);
    Some(to_value(&form))
}
