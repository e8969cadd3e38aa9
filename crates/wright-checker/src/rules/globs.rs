//! Globs in delete targets: how broad a glob is (`dist/*` is all of `dist`, `*.o` only some
//! of `.`), and whether one of its components could reach the home directory or the project.

use std::path::Path;

/// The part of a glob before its first wildcard component, and whether that component matches
/// everything (`*`, `.*`), which makes the glob as broad as its base.
pub(super) fn glob_base(value: &str) -> (String, bool) {
    let components: Vec<&str> = value.split('/').collect();
    let Some(at) = components.iter().position(|c| c.contains(['*', '?', '['])) else {
        return (value.to_string(), false);
    };
    let base = components[..at].join("/");
    let base = match (base.as_str(), value.starts_with('/')) {
        ("", true) => "/".to_string(),
        ("", false) => ".".to_string(),
        _ => base,
    };
    let wildcard = components[at].trim_start_matches('.');
    let everything = !wildcard.is_empty()
        && wildcard.chars().all(|c| c == '*' || c == '?')
        && components[at + 1..].iter().all(|c| c.is_empty());
    (base, everything)
}

/// The first path component of a glob that holds a wildcard (`lib*` of `/usr/lib*/x`).
pub(super) fn first_wildcard(value: &str) -> Option<&str> {
    value.split('/').find(|c| c.contains(['*', '?', '[']))
}

/// Whether `dir` (the home directory or the project) lies strictly under `base` on a path whose
/// next component the glob component `pattern` could match, or is `base` itself.
pub(super) fn holds_matching(base: &Path, pattern: &str, dir: Option<&Path>) -> bool {
    let Some(dir) = dir else {
        return false;
    };
    let Ok(rest) = dir.strip_prefix(base) else {
        return false;
    };
    match rest.components().next() {
        None => true,
        Some(next) => glob_could_match(pattern, &next.as_os_str().to_string_lossy()),
    }
}

/// Whether the glob component `pattern` could match `name`: `*` and `?` as the shell reads
/// them, and anything from a `[` on matches (a bracket expression is not worked out).
pub(super) fn glob_could_match(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    loop {
        match pattern.get(p) {
            Some('[') => return true,
            Some('*') => {
                star = Some((p, n));
                p += 1;
                continue;
            }
            Some(c) if n < name.len() && (*c == '?' || *c == name[n]) => {
                p += 1;
                n += 1;
                continue;
            }
            None if n == name.len() => return true,
            _ => {}
        }
        match star {
            Some((star_p, star_n)) if star_n < name.len() => {
                p = star_p + 1;
                n = star_n + 1;
                star = Some((star_p, star_n + 1));
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_glob_is_as_broad_as_its_base_only_when_it_matches_everything() {
        assert_eq!(glob_base("*"), (".".into(), true));
        assert_eq!(glob_base("/*"), ("/".into(), true));
        assert_eq!(glob_base("dist/*"), ("dist".into(), true));
        assert_eq!(glob_base(".*"), (".".into(), true));
        assert_eq!(glob_base("*.tmp"), (".".into(), false));
        assert_eq!(glob_base("/usr/lib*"), ("/usr".into(), false));
        assert_eq!(glob_base("*/target"), (".".into(), false));
    }

    #[test]
    fn a_glob_component_could_match_names_as_the_shell_matches_them() {
        assert!(glob_could_match("a*", "ann"));
        assert!(glob_could_match("*", ".tmp"));
        assert!(glob_could_match("?nn", "ann"));
        assert!(
            glob_could_match("[ab]*", "zed"),
            "brackets are not worked out"
        );
        assert!(!glob_could_match("cargo-install*", ".tmpAbc"));
        assert!(!glob_could_match("b*", "ann"));
        assert!(!glob_could_match("a?", "ann"));
    }
}
