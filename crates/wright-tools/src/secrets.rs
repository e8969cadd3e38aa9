//! Masking of credentials in what the tools show the model (issue 6, "Secrets").
//!
//! A command's output, a file the model reads, a grep hit in `.env`: any of them can carry a
//! credential, and whatever reaches the model also reaches the session file and the provider.
//! Every tool result passes through a [`SecretMasker`] before anyone sees it, which replaces:
//! - the strings that look like common credentials (see [`BUILTIN_PATTERNS`]): provider API
//!   keys, cloud and forge tokens, JWTs, private key blocks, and the values of
//!   `UPPER_CASE_NAME=value` assignments whose name says key, secret, token or password;
//! - the exact values it was told about: the configured provider key and the values of
//!   environment variables whose name says they are secret (see [`SecretMasker::from_env`]);
//! - matches of patterns the user configured (`[secrets] patterns`).
//!
//! A masked value becomes `[REDACTED <kind>]`, so the model knows something was there and
//! does not mistake the marker for the value. What is not recognised is not masked: this
//! lowers the odds of a leak, it does not make one impossible.

use std::borrow::Cow;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use regex::{Captures, Regex, RegexSet};
use serde_json::Value;
use wright_protocol::ToolResult;

/// The shortest value masked because of its name or because it was given literally; shorter
/// ones (`TOKEN=1`, an empty password) are not worth the false positives.
const MIN_SECRET_LEN: usize = 8;

/// Parts of environment variable names (compared case-insensitively) whose values are masked
/// wherever they appear.
const SECRET_NAME_PARTS: &[&str] = &[
    "api_key",
    "apikey",
    "secret",
    "token",
    "password",
    "passwd",
    "credential",
    "private_key",
    "privatekey",
    "access_key",
    "accesskey",
    "auth",
];

/// The credential shapes masked by default: (kind, pattern). A pattern with a capture group
/// named `keep` keeps that part (the `NAME=` of an assignment) and masks the rest of the match.
/// Word boundaries are ASCII (`(?-u:\b)`): a Unicode one makes the regex engine fall back
/// from its DFA to a far slower one on any text with a non-ASCII character (a Definitions
/// result over Go's sources spent 60 % of its time there), and every credential is ASCII.
pub const BUILTIN_PATTERNS: &[(&str, &str)] = &[
    // A whole block, or one cut off (a Read page, `head`): the key lines after the header,
    // which may carry Read's line numbers; a Read footer after them stays.
    (
        "private key",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?:\r?\n[ \t]*(?:\d+\t)?(?:[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9+/]*={1,2}|(?:Proc-Type|DEK-Info|Comment):[^\n]*))*)",
    ),
    // The end of a block without its header (`tail`, a Read page from an offset).
    (
        "private key",
        r"(?m)(?:^[ \t]*(?:\d+\t)?[A-Za-z0-9+/=]{16,}\r?\n)+[ \t]*(?:\d+\t)?[A-Za-z0-9+/=]*\r?\n?[ \t]*(?:\d+\t)?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----",
    ),
    // Key lines after a header cut at its start (`ATE KEY-----` from `tail -c`).
    (
        "private key",
        r"(?m)^[ \t]*(?:\d+\t)?[A-Z0-9 ]*KEY(?: BLOCK)?-----(?:\r?\n[ \t]*(?:\d+\t)?[A-Za-z0-9+/]{16,}={0,2})+",
    ),
    ("anthropic key", r"(?-u:\b)sk-ant-[A-Za-z0-9_\-]{20,}"),
    (
        "openai key",
        r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
    ),
    (
        "aws access key id",
        r"(?-u:\b)(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?-u:\b)",
    ),
    (
        "aws secret key",
        r#"(?i-u)(?P<keep>aws_?secret_?access_?key["']?\s*[=:]\s*["']?)[A-Za-z0-9/+=]{40}"#,
    ),
    (
        "github token",
        r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
    ),
    ("gitlab token", r"(?-u:\b)glpat-[A-Za-z0-9_\-]{20,}"),
    ("slack token", r"(?-u:\b)xox[abposr]-[A-Za-z0-9\-]{10,}"),
    ("google api key", r"(?-u:\b)AIza[0-9A-Za-z_\-]{35}"),
    ("stripe key", r"(?-u:\b)[rs]k_live_[0-9A-Za-z]{24,}"),
    ("huggingface token", r"(?-u:\b)hf_[A-Za-z0-9]{34,}"),
    (
        "jwt",
        r"(?-u:\b)eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",
    ),
    (
        "secret",
        r#"(?-u:\b)(?P<keep>[A-Z][A-Z0-9_]*(?:API_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|PRIVATE_KEY|ACCESS_KEY)[A-Z0-9_]*["']?\s*[=:]\s*["']?)[^\s"'$\[][^\s"']{7,}"#,
    ),
];

/// Words one of which every match of a builtin pattern holds, as written: `-----` (the three
/// private key patterns: `-----BEGIN`, `-----END`, `KEY-----`), the providers' prefixes, and
/// the name parts of the `NAME=value` pattern (`KEY` of `API_KEY`, `PRIVATE_KEY` and
/// `ACCESS_KEY`; `PASSW` of `PASSWORD` and `PASSWD`). A text without any of them (nor
/// [`BUILTIN_WORDS_ANY_CASE`]) matches no builtin pattern: the patterns, whose set takes
/// 1-2 ms to compile and more to warm up, are not needed for it (most results: a
/// Definitions of thousands of signatures holds none of the words). A new pattern needs its
/// word here; `every_builtin_pattern_holds_a_word_the_prefilter_looks_for` checks a sample of
/// each.
const BUILTIN_WORDS: &[&str] = &[
    "-----",
    "sk-",
    "AKIA",
    "ASIA",
    "ABIA",
    "ACCA",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xox",
    "AIza",
    "_live_",
    "hf_",
    "eyJ",
    "KEY",
    "SECRET",
    "TOKEN",
    "PASSW",
];

/// [`BUILTIN_WORDS`] of the case-insensitive pattern (`aws_secret_access_key`), in any ASCII
/// case (the pattern folds ASCII case alone, `(?i-u)`: with Unicode folding `ſ` would be an
/// `s` to it and not to this search).
const BUILTIN_WORDS_ANY_CASE: &[&str] = &["secret"];

/// The searches for [`BUILTIN_WORDS`] and [`BUILTIN_WORDS_ANY_CASE`] (DFAs: built in
/// microseconds, a few instructions a byte).
static BUILTIN_WORD_SEARCH: LazyLock<Option<(AhoCorasick, AhoCorasick)>> = LazyLock::new(|| {
    let build = |words: &[&str], any_case: bool| {
        AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .ascii_case_insensitive(any_case)
            .build(words)
            .ok()
    };
    Some((
        build(BUILTIN_WORDS, false)?,
        build(BUILTIN_WORDS_ANY_CASE, true)?,
    ))
});

/// Whether `text` might match a builtin pattern: it holds one of their words (see
/// [`BUILTIN_WORDS`]); true when the search could not be built.
fn may_hold_builtin(text: &str) -> bool {
    BUILTIN_WORD_SEARCH
        .as_ref()
        .is_none_or(|(exact, any_case)| exact.is_match(text) || any_case.is_match(text))
}

/// Whether `text` might match a builtin pattern: it holds one of their words and the set of
/// all of them matches (true when either could not be built).
fn may_match_builtin(text: &str) -> bool {
    may_hold_builtin(text) && BUILTIN_SET.as_ref().is_none_or(|set| set.is_match(text))
}

/// How masking is set up (`[secrets]` in the settings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretPolicy {
    /// Whether anything is masked at all (`mask = false` turns it off).
    pub enabled: bool,
    /// Extra regular expressions whose matches are masked (`patterns = ["..."]`).
    pub patterns: Vec<String>,
    /// Exact values masked wherever they appear (the configured API key, ...).
    pub literals: Vec<String>,
}

impl Default for SecretPolicy {
    fn default() -> Self {
        Self {
            enabled: true,
            patterns: Vec::new(),
            literals: Vec::new(),
        }
    }
}

/// A configured pattern that is not a valid regular expression.
#[derive(Debug, thiserror::Error)]
#[error("invalid secret pattern {pattern:?}: {message}")]
pub struct PatternError {
    /// The pattern as configured.
    pub pattern: String,
    /// What the regex compiler said.
    pub message: String,
}

/// Replaces credentials in text with `[REDACTED <kind>]` (see the [module](self) docs).
#[derive(Debug, Clone)]
pub struct SecretMasker {
    enabled: bool,
    /// The configured patterns; the builtin ones are compiled once, at first use
    /// ([`BUILTIN`]), so that starting wright does not pay for them.
    configured: Vec<(String, Regex)>,
    /// Longest first, so a value that contains another is masked whole.
    literals: Vec<String>,
}

impl Default for SecretMasker {
    /// The builtin patterns, no literal values.
    fn default() -> Self {
        Self {
            enabled: true,
            configured: Vec::new(),
            literals: Vec::new(),
        }
    }
}

impl SecretMasker {
    /// A masker for `policy`; fails on a pattern that does not compile.
    pub fn new(policy: &SecretPolicy) -> Result<Self, PatternError> {
        let mut configured = Vec::new();
        for pattern in &policy.patterns {
            let regex = Regex::new(pattern).map_err(|e| PatternError {
                pattern: pattern.clone(),
                message: e.to_string(),
            })?;
            configured.push(("configured pattern".to_string(), regex));
        }
        let mut masker = Self {
            enabled: policy.enabled,
            configured,
            literals: Vec::new(),
        };
        masker.add_literals(policy.literals.iter().cloned());
        Ok(masker)
    }

    /// A masker that changes nothing.
    pub fn disabled() -> Self {
        Self {
            enabled: false,
            configured: Vec::new(),
            literals: Vec::new(),
        }
    }

    /// Adds the values of the variables in `vars` whose name says they are secret
    /// (`*_API_KEY`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, …) as literals.
    pub fn from_env(mut self, vars: impl IntoIterator<Item = (String, String)>) -> Self {
        let secret_name = |name: &str| {
            // `AUTH` names a credential, `AUTHOR` (GIT_AUTHOR_NAME) does not.
            let name = name.to_ascii_lowercase().replace("author", "");
            SECRET_NAME_PARTS.iter().any(|part| name.contains(part))
        };
        let values = vars
            .into_iter()
            .filter(|(name, _)| secret_name(name))
            .map(|(_, value)| value);
        self.add_literals(values);
        self
    }

    fn add_literals(&mut self, values: impl IntoIterator<Item = String>) {
        for value in values {
            let value = value.trim().to_string();
            if value.chars().count() >= MIN_SECRET_LEN && !self.literals.contains(&value) {
                self.literals.push(value);
            }
        }
        self.literals
            .sort_by_key(|value| std::cmp::Reverse(value.len()));
    }

    /// Whether this masker changes anything.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// `text` with every credential replaced; borrowed when there was none.
    pub fn mask<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if !self.enabled {
            return Cow::Borrowed(text);
        }
        let mut text = Cow::Borrowed(text);
        for literal in &self.literals {
            if text.contains(literal.as_str()) {
                text = Cow::Owned(text.replace(literal.as_str(), "[REDACTED secret]"));
            }
        }
        // Most texts hold no secret: they lack the words the patterns need, or else one pass
        // of every builtin pattern at once says so (a tool's data is masked string by
        // string, thousands of them for a Definitions).
        if self.configured.is_empty() && !may_match_builtin(&text) {
            return text;
        }
        for (kind, regex) in BUILTIN.iter().chain(&self.configured) {
            let replaced = regex.replace_all(&text, |caps: &Captures<'_>| {
                let keep = caps.name("keep").map_or("", |m| m.as_str());
                format!("{keep}[REDACTED {kind}]")
            });
            if let Cow::Owned(replaced) = replaced {
                text = Cow::Owned(replaced);
            }
        }
        text
    }

    /// Masks every string inside `value`, keys left alone.
    ///
    /// Strings are visited in document order, and a private key block that one string opens
    /// and does not close (a Grep hit, one line of a listing) masks the key material of the
    /// strings after it until one holds the `-----END` line.
    pub fn mask_json(&self, value: &mut Value) {
        if self.enabled && self.may_mask_json(value) {
            self.mask_json_in(value, &mut false);
        }
    }

    /// Whether masking `value` string by string might change it, from one look at all its
    /// strings joined by line breaks (a Definitions result holds tens of thousands of short
    /// strings, and two regex searches each cost more than one over them all).
    ///
    /// A builtin pattern or a literal that matches one string matches the joined text too: the
    /// patterns' only assertions are ASCII word boundaries and `(?m)^`, which a line break on
    /// either side of each string keeps as they were. A private key block begins with
    /// `-----BEGIN`. Configured patterns may anchor (`\A`, `$`), so with any of them every
    /// string is looked at.
    fn may_mask_json(&self, value: &Value) -> bool {
        fn join(value: &Value, out: &mut String) {
            match value {
                Value::String(s) => {
                    out.push_str(s);
                    out.push('\n');
                }
                Value::Array(items) => items.iter().for_each(|item| join(item, out)),
                Value::Object(fields) => fields.values().for_each(|item| join(item, out)),
                _ => {}
            }
        }
        if !self.configured.is_empty() {
            return true;
        }
        let mut joined = String::from("\n");
        join(value, &mut joined);
        joined.contains("-----BEGIN")
            || self
                .literals
                .iter()
                .any(|literal| joined.contains(literal.as_str()))
            || may_match_builtin(&joined)
    }

    fn mask_json_in(&self, value: &mut Value, in_key_block: &mut bool) {
        match value {
            Value::String(s) => {
                if *in_key_block {
                    if let Some(end) = END_OF_KEY_BLOCK.as_ref()
                        && end.is_match(s)
                    {
                        *in_key_block = false;
                        *s = end.replace(s, "[REDACTED private key]").into_owned();
                        return;
                    }
                    if matches(&KEY_MATERIAL, s) {
                        *s = "[REDACTED private key]".to_string();
                        return;
                    }
                }
                let opens_block = matches(&OPEN_KEY_BLOCK, s);
                if let Cow::Owned(masked) = self.mask(s) {
                    *s = masked;
                }
                if opens_block {
                    *in_key_block = true;
                }
            }
            Value::Array(items) => items
                .iter_mut()
                .for_each(|item| self.mask_json_in(item, in_key_block)),
            Value::Object(fields) => fields
                .values_mut()
                .for_each(|item| self.mask_json_in(item, in_key_block)),
            _ => {}
        }
    }

    /// Masks what a result shows: its text, its data and its error message.
    pub fn mask_result(&self, result: &mut ToolResult) {
        if !self.enabled {
            return;
        }
        if let Cow::Owned(masked) = self.mask(&result.text) {
            result.text = masked;
        }
        self.mask_json(&mut result.data);
        if let Some(error) = &mut result.error
            && let Cow::Owned(masked) = self.mask(&error.message)
        {
            error.message = masked;
        }
    }
}

/// A string that begins a private key block and does not end it.
static OPEN_KEY_BLOCK: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[^-]|-[^-]|--[^-]|---[^-]|----[^-]|-----[^E])*\z").ok()
});

/// The part of a string up to and including a block's `-----END … PRIVATE KEY-----` line.
static END_OF_KEY_BLOCK: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----").ok());

/// What the lines inside a key block look like: base64, or a PEM header such as `DEK-Info:`.
static KEY_MATERIAL: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:[A-Za-z0-9+/=]{16,}|(?:Proc-Type|DEK-Info|Comment):.*)\s*$").ok()
});

/// Whether `regex` (one of the constant patterns above, tested to compile) matches `text`.
fn matches(regex: &LazyLock<Option<Regex>>, text: &str) -> bool {
    regex.as_ref().is_some_and(|regex| regex.is_match(text))
}

/// The builtin patterns, compiled at first use.
static BUILTIN: LazyLock<Vec<(String, Regex)>> = LazyLock::new(builtin_patterns);

/// The builtin patterns as one set, to tell at once that a text matches none of them;
/// compiled the first time a text holds one of [`BUILTIN_WORDS`].
static BUILTIN_SET: LazyLock<Option<RegexSet>> =
    LazyLock::new(|| RegexSet::new(BUILTIN_PATTERNS.iter().map(|(_, pattern)| pattern)).ok());

fn builtin_patterns() -> Vec<(String, Regex)> {
    BUILTIN_PATTERNS
        .iter()
        // The builtin patterns are tested to compile; one that did not would be skipped.
        .filter_map(|(kind, pattern)| Some((kind.to_string(), Regex::new(pattern).ok()?)))
        .collect()
}

#[cfg(test)]
mod tests;
