//! Code intelligence for wright: the definitions in a source file, found by each grammar's
//! tree-sitter tag query (`TAGS_QUERY`) through `tree_sitter_tags::TagsContext`, or by a tree
//! walk doing the same (`walk.rs`, every language); files indexed in parallel, each parsed as
//! its skeleton (`skeleton.rs`: bodies left out), and cached ([`index_files`]); definitions
//! ranked by use ([`rank`]).
//!
//! Languages: Rust, Python, JavaScript, TypeScript, TSX, Go, C, C++ and Java, chosen by the file
//! name's extension (a `.h` header is read as C++). Where a grammar's query misses definitions,
//! the queries under `queries/` add to it (C++'s replaces it); its patterns that only tag
//! references are turned off. A file that does not parse cleanly still yields what tree-sitter
//! recovered, marked `partial`. Sources are untrusted: the output is bounded (names and
//! signatures are cut, at most [`MAX_DEFINITIONS_PER_FILE`] definitions a file).

use std::path::Path;
use std::sync::OnceLock;

use tree_sitter::Language;
use tree_sitter_tags::{TagsConfiguration, TagsContext};

mod index;
mod rank;
mod skeleton;
mod walk;

use skeleton::Joined;

pub use index::{
    Enough, FileTags, IndexStats, Indexed, MAX_FILE_BYTES, Need, Scope, index_files,
    index_files_until, index_in_chunks, relative_path,
};
pub use rank::{Focus, Ranked, rank};

/// Hooks for `examples/stages.rs` (measuring where indexing spends its time); not an API.
#[doc(hidden)]
pub mod profile {
    use super::Lang;

    /// The grammar a language is parsed with.
    #[must_use]
    pub fn language(lang: Lang) -> tree_sitter::Language {
        lang.grammar().0
    }

    /// The included ranges of a skeleton parse, or none (parse it whole).
    #[must_use]
    pub fn skeleton_ranges(lang: Lang, source: &[u8]) -> Vec<tree_sitter::Range> {
        crate::Parse::Skeleton.ranges(lang, source)
    }

    /// The names a file mentions, as [`crate::FileTags`] records them.
    #[must_use]
    pub fn references(lang: Lang, source: &[u8]) -> String {
        crate::index::references(lang, source)
    }
}

/// Definitions reported from one file at most.
pub const MAX_DEFINITIONS_PER_FILE: usize = 5_000;
/// A signature is cut to this many characters.
pub const MAX_SIGNATURE_CHARS: usize = 200;
/// A name is cut to this many characters.
const MAX_NAME_CHARS: usize = 200;

/// Rust definitions the grammar's tags query misses: functions declared without a body.
const RUST_SIGNATURES: &str = "(foreign_mod_item body: (declaration_list (function_signature_item name: (identifier) @name) @definition.function))\n(declaration_list (function_signature_item name: (identifier) @name) @definition.method)\n";

/// JavaScript definitions the grammar's tags query misses (constructors, private and computed
/// method names, class expressions bound to a name); TypeScript and TSX take them too.
const JAVASCRIPT_EXTRA: &str = include_str!("../queries/javascript-extra.scm");
/// JavaScript class fields holding a function (a node TypeScript's grammar names otherwise).
const JAVASCRIPT_FIELDS: &str = include_str!("../queries/javascript-fields.scm");

/// TypeScript definitions the JavaScript and TypeScript queries both miss (type aliases, enums,
/// construct signatures, class fields holding a function); TSX takes them too.
const TYPESCRIPT_EXTRA: &str = include_str!("../queries/typescript-extra.scm");

/// Go definitions the grammar's query misses: type aliases and an interface's methods.
const GO_EXTRA: &str = include_str!("../queries/go-extra.scm");

/// Java definitions the grammar's query misses: enums, records, annotation types and
/// constructors.
const JAVA_EXTRA: &str = include_str!("../queries/java-extra.scm");

/// C++ definitions, in place of the grammar's query (which takes a variable built by a
/// constructor in a function body, `T x(a);`, for a function, and misses aliases, destructors
/// and operators).
const CPP_DEFINITIONS: &str = include_str!("../queries/cpp.scm");

/// C typedefs the grammar's query misses: those naming a pointer, array or function pointer.
const C_EXTRA: &str = include_str!("../queries/c-extra.scm");

/// A language Definitions knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    Rust,
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Go,
    C,
    Cpp,
    Java,
}

pub(crate) const ALL: [Lang; 9] = [
    Lang::Rust,
    Lang::Python,
    Lang::JavaScript,
    Lang::TypeScript,
    Lang::Tsx,
    Lang::Go,
    Lang::C,
    Lang::Cpp,
    Lang::Java,
];

impl Lang {
    /// The language of a file, from its extension; `None` for a language not known.
    #[must_use]
    pub fn of_path(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "rs" => Self::Rust,
            "py" | "pyi" => Self::Python,
            "js" | "mjs" | "cjs" | "jsx" => Self::JavaScript,
            "ts" | "mts" | "cts" => Self::TypeScript,
            "tsx" => Self::Tsx,
            "go" => Self::Go,
            "c" => Self::C,
            // A header may be C or C++; C++'s grammar reads both, C's not C++ (ctags does the
            // same).
            "h" | "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" | "ipp" => Self::Cpp,
            "java" => Self::Java,
            _ => return None,
        })
    }

    /// The language's name as shown to the user.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Rust => "rust",
            Self::Python => "python",
            Self::JavaScript => "javascript",
            Self::TypeScript => "typescript",
            Self::Tsx => "tsx",
            Self::Go => "go",
            Self::C => "c",
            Self::Cpp => "cpp",
            Self::Java => "java",
        }
    }

    fn index(self) -> usize {
        ALL.iter().position(|l| *l == self).unwrap_or(0)
    }

    fn grammar(self) -> (Language, String) {
        match self {
            // The grammar's query leaves out functions without a body: those of `extern`
            // blocks and a trait's required methods.
            Self::Rust => (
                tree_sitter_rust::LANGUAGE.into(),
                format!("{}\n{RUST_SIGNATURES}", tree_sitter_rust::TAGS_QUERY),
            ),
            Self::Python => (
                tree_sitter_python::LANGUAGE.into(),
                tree_sitter_python::TAGS_QUERY.to_owned(),
            ),
            Self::JavaScript => (
                tree_sitter_javascript::LANGUAGE.into(),
                format!(
                    "{}\n{JAVASCRIPT_EXTRA}\n{JAVASCRIPT_FIELDS}",
                    tree_sitter_javascript::TAGS_QUERY
                ),
            ),
            // TypeScript's own query covers only the TypeScript-only constructs: JavaScript's
            // goes in front of it (CRATES.md note 4).
            Self::TypeScript => (
                tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
                format!(
                    "{}\n{}\n{JAVASCRIPT_EXTRA}\n{TYPESCRIPT_EXTRA}",
                    tree_sitter_javascript::TAGS_QUERY,
                    tree_sitter_typescript::TAGS_QUERY
                ),
            ),
            Self::Tsx => (
                tree_sitter_typescript::LANGUAGE_TSX.into(),
                format!(
                    "{}\n{}\n{JAVASCRIPT_EXTRA}\n{TYPESCRIPT_EXTRA}",
                    tree_sitter_javascript::TAGS_QUERY,
                    tree_sitter_typescript::TAGS_QUERY
                ),
            ),
            Self::Go => (
                tree_sitter_go::LANGUAGE.into(),
                format!("{}\n{GO_EXTRA}", tree_sitter_go::TAGS_QUERY),
            ),
            Self::C => (
                tree_sitter_c::LANGUAGE.into(),
                format!("{}\n{C_EXTRA}", tree_sitter_c::TAGS_QUERY),
            ),
            Self::Cpp => (tree_sitter_cpp::LANGUAGE.into(), CPP_DEFINITIONS.to_owned()),
            Self::Java => (
                tree_sitter_java::LANGUAGE.into(),
                format!("{}\n{JAVA_EXTRA}", tree_sitter_java::TAGS_QUERY),
            ),
        }
    }

    /// The tags configuration, built once per process; `None` if the query does not compile
    /// (which the tests rule out for every language).
    fn config(self) -> Option<&'static TagsConfiguration> {
        static CONFIGS: [OnceLock<Option<TagsConfiguration>>; 9] = [const { OnceLock::new() }; 9];
        CONFIGS[self.index()]
            .get_or_init(|| {
                let (language, query) = self.grammar();
                let mut config = TagsConfiguration::new(language, &query, "").ok()?;
                drop_references(&mut config, &query);
                // Doc comments are not reported: capturing them (and joining and stripping
                // each definition's) is work for nothing.
                config.query.disable_capture("doc");
                Some(config)
            })
            .as_ref()
    }
}

/// Turns off the query's patterns that only tag references (calls, uses of a type): Definitions
/// drops those tags, and matching them costs time.
fn drop_references(config: &mut TagsConfiguration, query: &str) {
    for i in 0..config.query.pattern_count() {
        let start = config.query.start_byte_for_pattern(i);
        let end = config.query.end_byte_for_pattern(i);
        let text = query.get(start..end).unwrap_or_default();
        if text.contains("@reference.") && !text.contains("@definition.") {
            config.query.disable_pattern(i);
        }
    }
}

/// One definition found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    pub name: String,
    /// `function`, `method`, `class`, `struct`, `enum`, `trait`, `interface`, `type`,
    /// `module`, `macro`, `constant`, ...
    pub kind: String,
    /// 1-based.
    pub line: usize,
    /// The definition's first line, trimmed and cut before its body.
    pub signature: String,
}

/// What a file holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileDefinitions {
    pub definitions: Vec<Definition>,
    /// The file did not parse cleanly; the definitions are what tree-sitter recovered.
    pub partial: bool,
    /// More definitions than [`MAX_DEFINITIONS_PER_FILE`] were found; the rest are left out.
    pub truncated: bool,
}

/// How much of a file tree-sitter reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parse {
    /// All of it.
    Whole,
    /// Its skeleton: function bodies, constants' values, fields and the like left out where
    /// the language has a skeleton (`skeleton.rs`), else all of it; a skeleton that does not
    /// parse cleanly is parsed whole instead (tree-sitter's recovery from an error differs),
    /// but for C and C++ (see `parses_whole_after_an_error`).
    Skeleton,
}

impl Parse {
    /// The ranges of `source` to parse: its skeleton's, or none for the whole file.
    fn ranges(self, lang: Lang, source: &[u8]) -> Vec<tree_sitter::Range> {
        match self {
            Self::Skeleton => skeleton::included_ranges(lang, source).unwrap_or_default(),
            Self::Whole => Vec::new(),
        }
    }
}

/// Reusable parsing state (one per thread).
pub struct Extractor {
    context: TagsContext,
}

impl Default for Extractor {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Extractor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Extractor").finish_non_exhaustive()
    }
}

impl Extractor {
    #[must_use]
    pub fn new() -> Self {
        Self {
            context: TagsContext::new(),
        }
    }

    /// The definitions in `source`, written in `lang`, in source order.
    pub fn definitions(&mut self, lang: Lang, source: &[u8]) -> FileDefinitions {
        self.definitions_parsed(lang, source, Parse::Whole)
    }

    /// The definitions the tag query finds in `source`, parsed whole or as its skeleton (the
    /// same but for what is defined inside function bodies; `partial` then speaks of the
    /// skeleton).
    pub fn definitions_parsed(
        &mut self,
        lang: Lang,
        source: &[u8],
        parse: Parse,
    ) -> FileDefinitions {
        let mut out = FileDefinitions::default();
        let Some(config) = lang.config() else {
            out.partial = true;
            return out;
        };
        let ranges = parse.ranges(lang, source);
        // `generate_tags` parses with the context's parser, which keeps the included ranges
        // given last (every call gives its own, none for a whole file).
        let _ = self.context.parser().set_included_ranges(&ranges);
        let skeleton = !ranges.is_empty() && parses_whole_after_an_error(lang);
        let redo = match self.context.generate_tags(config, source, None) {
            Err(_) => {
                out.partial = true;
                false
            }
            // tree-sitter recovers from errors in a skeleton otherwise than in the whole file
            // (macro-heavy C++ headers): such a file is parsed whole.
            Ok((_, true)) if skeleton => true,
            Ok((tags, has_error)) => {
                out.partial = has_error;
                for tag in tags {
                    let Ok(tag) = tag else {
                        out.partial = true;
                        break;
                    };
                    if !tag.is_definition {
                        continue;
                    }
                    if out.definitions.len() >= MAX_DEFINITIONS_PER_FILE {
                        out.truncated = true;
                        break;
                    }
                    let coarse = config.syntax_type_name(tag.syntax_type_id);
                    push_definition(
                        &mut out,
                        lang,
                        source,
                        (tag.name_range, tag.line_range, tag.span.start.row),
                        coarse,
                    );
                }
                false
            }
        };
        if redo {
            return self.definitions_parsed(lang, source, Parse::Whole);
        }
        out.definitions.sort_by_key(|d| d.line);
        out
    }

    /// The definitions in `source` found by walking its syntax tree with a `TreeCursor` and
    /// matching node kinds (`walk.rs`), in place of the tag query; every language has a walker
    /// (`None`: its rules name a kind or field the grammar lacks, which the tests rule out).
    /// Parsing the whole file gives the same output as [`Extractor::definitions`]; parsing its
    /// skeleton (`skeleton.rs`) gives the same but for what is defined inside function bodies,
    /// and `partial` then speaks of the skeleton.
    pub fn definitions_walked(
        &mut self,
        lang: Lang,
        source: &[u8],
        parse: Parse,
    ) -> Option<FileDefinitions> {
        let walker = walk::walker(lang)?;
        let mut out = FileDefinitions::default();
        let parser = self.context.parser();
        if parser.set_language(&walker.language).is_err() {
            out.partial = true;
            return Some(out);
        }
        let mut ranges = parse.ranges(lang, source);
        let skeleton = !ranges.is_empty();
        // The skeleton's ranges joined into one text (then none are left to set), or read in
        // place.
        let joined = (skeleton && skeleton::joins(lang))
            .then(|| Joined::new(source, std::mem::take(&mut ranges)));
        // The parser keeps the ranges given last: every parse gives its own. Ranges it refuses
        // (none should be) leave the whole text to read.
        if parser.set_included_ranges(&ranges).is_err() {
            let _ = parser.set_included_ranges(&[]);
        }
        let tree = parser.parse(joined.as_ref().map_or(source, |j| &j.text[..]), None);
        let Some(tree) = tree else {
            out.partial = true;
            return Some(out);
        };
        if tree.root_node().has_error() && skeleton && parses_whole_after_an_error(lang) {
            // As in `definitions_parsed`: a skeleton with an error, the whole file instead.
            return self.definitions_walked(lang, source, Parse::Whole);
        }
        out.partial = tree.root_node().has_error();
        for tag in walker.tags(&tree, source, joined.as_ref()) {
            if out.definitions.len() >= MAX_DEFINITIONS_PER_FILE {
                out.truncated = true;
                break;
            }
            push_definition(
                &mut out,
                lang,
                source,
                (tag.name_range, tag.line_range, tag.row),
                tag.syntax,
            );
        }
        out.definitions.sort_by_key(|d| d.line);
        Some(out)
    }
}

/// Whether a skeleton of `lang` that does not parse cleanly is parsed whole again: tree-sitter
/// may recover from the error otherwise than in the whole file. Not for C and C++, where most
/// headers have errors (macros the grammar cannot read): parsing them twice doubled the cost
/// (googletest 275 -> 498 ms), and against ctags the skeleton's recovery does as well as the
/// whole file's (found googletest 97.2 % either way, nlohmann-json 98.3 % against 97.9 %, fmt
/// 96.4 % against 97.4 %).
fn parses_whole_after_an_error(lang: Lang) -> bool {
    !matches!(lang, Lang::C | Lang::Cpp)
}

/// Adds the definition a tag names: its name (cut), its line's signature and its kind made
/// precise. `at` is the name's bytes, its line's (trimmed) and its row.
fn push_definition(
    out: &mut FileDefinitions,
    lang: Lang,
    source: &[u8],
    at: (std::ops::Range<usize>, std::ops::Range<usize>, usize),
    coarse: &str,
) {
    let (name_range, line_range, row) = at;
    let name = source
        .get(name_range)
        .map(|b| cut(&String::from_utf8_lossy(b), MAX_NAME_CHARS))
        .unwrap_or_default();
    let line_text = source
        .get(line_range)
        .map(String::from_utf8_lossy)
        .unwrap_or_default();
    let signature = signature(lang, &line_text);
    let kind = refine_kind(lang, coarse, &signature).to_owned();
    out.definitions.push(Definition {
        name,
        kind,
        line: row + 1,
        signature,
    });
}

/// The tag query's kind made precise where the query lumps kinds together (Rust's structs,
/// enums and type aliases are all `class`), from the keywords of the signature.
fn refine_kind<'a>(lang: Lang, coarse: &'a str, signature: &str) -> &'a str {
    // The first 8 words, without a vector per definition (tens of thousands in a tree).
    let mut words = [""; 8];
    for (slot, word) in words.iter_mut().zip(
        signature
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .filter(|w| !w.is_empty()),
    ) {
        *slot = word;
    }
    let has = |w: &str| words.contains(&w);
    match (lang, coarse) {
        (Lang::Rust, "class") => {
            if has("struct") {
                "struct"
            } else if has("enum") {
                "enum"
            } else if has("union") {
                "union"
            } else if has("type") {
                "type"
            } else {
                "class"
            }
        }
        (Lang::Rust, "interface") => "trait",
        // `A.prototype.m = function () {}`: a method of A's instances.
        (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "function")
            if signature.contains(".prototype.") =>
        {
            "method"
        }
        (Lang::C | Lang::Cpp, "class") => {
            if has("struct") {
                "struct"
            } else if has("enum") {
                "enum"
            } else if has("union") {
                "union"
            } else if has("typedef") || has("using") {
                "type"
            } else {
                "class"
            }
        }
        (Lang::Go, "type") => {
            if has("struct") {
                "struct"
            } else if has("interface") {
                "interface"
            } else {
                "type"
            }
        }
        (Lang::Java | Lang::TypeScript | Lang::Tsx, "class") => {
            if has("enum") {
                "enum"
            } else if has("interface") {
                "interface"
            } else if has("type") && !has("class") {
                "type"
            } else {
                "class"
            }
        }
        (Lang::TypeScript | Lang::Tsx, "type") => {
            if has("interface") {
                "interface"
            } else if has("enum") {
                "enum"
            } else {
                "type"
            }
        }
        _ => coarse,
    }
}

/// The definition's first line, trimmed, cut before its body (`{`, or the `:` ending a Python
/// header) and to [`MAX_SIGNATURE_CHARS`].
fn signature(lang: Lang, line: &str) -> String {
    let mut s = line.trim();
    if lang == Lang::Python {
        if let Some(stripped) = s.strip_suffix(':') {
            s = stripped.trim_end();
        }
    } else if let Some(at) = body_brace(s) {
        s = s[..at].trim_end();
    }
    cut(s, MAX_SIGNATURE_CHARS)
}

/// Where a trailing body's `{` opens: the last `{` after which the brackets stay unbalanced
/// or the line ends.
fn body_brace(s: &str) -> Option<usize> {
    let at = s.rfind('{')?;
    // A `{` inside a generic bound or a type literal is followed by its `}` on the same line;
    // a body's is not (or closes at the very end: `fn f() {}`).
    let rest = &s[at + 1..];
    if !rest.contains('}') || (rest.trim_end().ends_with('}') && at > 0) {
        Some(at)
    } else {
        None
    }
}

/// `s` cut to `max` characters, with `…` when cut.
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests;
