//! Unit tests of the facts: what never matches (comments, strings, `#if 0`), macros
//! followed, sizes that clear a copy, NULL checks, frees then reassignments, and inputs
//! that must neither panic nor hang.

use pretty_assertions::assert_eq;

use super::check;
use crate::finding::Language;
use crate::scan::SourceFile;

fn patterns(language: Language, code: &str) -> Vec<(u32, String)> {
    let file = SourceFile {
        language,
        path: "t.c".into(),
        text: code.into(),
    };
    let mut found: Vec<(u32, String)> = check(&file)
        .into_iter()
        .map(|f| (f.line, f.pattern))
        .collect();
    found.sort();
    found
}

fn c(code: &str) -> Vec<(u32, String)> {
    patterns(Language::C, code)
}

fn has(found: &[(u32, String)], pattern: &str) -> bool {
    found.iter().any(|(_, p)| p == pattern)
}

#[test]
fn comments_strings_and_if_0_never_match() {
    let code = r#"
void f(char *d, const char *s) {
    /* strcpy(d, s); gets(d); */
    // system(s);
    log_line("strcpy(d, s) and mktemp(x)");
#if 0
    strcpy(d, s);
#endif
}
"#;
    assert_eq!(c(code), vec![]);
}

#[test]
fn the_else_of_if_0_still_runs() {
    let code =
        "void f(char *d, const char *s) {\n#if 0\n  d[0] = 0;\n#else\n  strcpy(d, s);\n#endif\n}\n";
    assert_eq!(c(code), vec![(5, "strcpy".to_string())]);
}

#[test]
fn calls_through_macros_are_reported_as_the_api() {
    let code = r#"
#define MKTEMP mktemp
#define COPY(d, s) strcpy(d, s)
void f(char *d, const char *s, char *t) {
    MKTEMP(t);
    COPY(d, s);
}
"#;
    assert_eq!(
        c(code),
        vec![
            (5, "insecure_tmpfile".to_string()),
            (6, "strcpy".to_string())
        ]
    );
}

#[test]
fn a_copy_that_provably_fits_is_cleared() {
    let code = r#"
#define N 64
void f(const char *s) {
    char a[N];
    char b[16];
    strcpy(a, "fits easily");
    char *p = malloc(strlen(s) + 1);
    if (!p) return;
    strcpy(p, s);
    memcpy(b, a, sizeof(b));
    strcpy(b, "this literal is too long for b");
    free(p);
}
"#;
    assert_eq!(c(code), vec![(11, "strcpy".to_string())]);
}

#[test]
fn a_null_check_before_use_clears_the_pointer() {
    let checked = "void f(void) {\n char *p = malloc(8);\n if (p == NULL) return;\n p[0] = 0;\n free(p);\n}\n";
    let guarded =
        "void f(void) {\n char *p = malloc(8);\n if (p) {\n  p[0] = 0;\n  free(p);\n }\n}\n";
    let asserted =
        "void f(void) {\n char *e = getenv(\"X\");\n assert(e);\n use_it(e + strlen(e));\n}\n";
    let unchecked = "void f(void) {\n char *p = malloc(8);\n p[0] = 0;\n free(p);\n}\n";
    assert_eq!(c(checked), vec![]);
    assert_eq!(c(guarded), vec![]);
    assert_eq!(c(asserted), vec![]);
    assert_eq!(c(unchecked), vec![(3, "alloc_no_null_check".to_string())]);
}

#[test]
fn a_pointer_freed_then_reassigned_is_not_used_after_free() {
    let reassigned = "void f(void) {\n char *p = malloc(8);\n if (!p) return;\n free(p);\n p = malloc(16);\n if (!p) return;\n p[0] = 1;\n free(p);\n p = NULL;\n free(p);\n}\n";
    let used =
        "void f(void) {\n char *p = malloc(8);\n if (!p) return;\n free(p);\n p[0] = 1;\n}\n";
    let twice = "void f(void) {\n char *p = malloc(8);\n free(p);\n free(p);\n}\n";
    assert_eq!(c(reassigned), vec![]);
    assert_eq!(c(used), vec![(5, "use_after_free_suspect".to_string())]);
    assert!(has(&c(twice), "double_free"));
}

#[test]
fn frees_in_different_branches_are_not_double() {
    let code = "void f(int x) {\n char *p = malloc(8);\n if (!p) return;\n if (x) {\n  free(p);\n } else {\n  free(p);\n }\n}\n";
    assert_eq!(c(code), vec![]);
}

#[test]
fn strncpy_then_explicit_termination_is_fine() {
    let terminated = "void f(const char *s) {\n char b[16];\n strncpy(b, s, sizeof(b) - 1);\n b[sizeof(b) - 1] = '\\0';\n use(b);\n}\n";
    let unterminated =
        "void f(const char *s) {\n char b[16];\n strncpy(b, s, sizeof(b));\n use(b);\n}\n";
    assert_eq!(c(terminated), vec![]);
    assert_eq!(
        c(unterminated),
        vec![(3, "strncpy_no_terminator".to_string())]
    );
}

#[test]
fn literal_formats_are_fine_and_variable_ones_are_not() {
    let code = "void f(const char *msg) {\n printf(\"%s\\n\", msg);\n fprintf(stderr, \"x\" \"y\");\n printf(msg);\n}\n";
    assert_eq!(c(code), vec![(4, "format_string".to_string())]);
}

#[test]
fn a_literal_command_is_low_and_an_outside_one_high() {
    let file = |code: &str| {
        check(&SourceFile {
            language: Language::C,
            path: "t.c".into(),
            text: code.into(),
        })
    };
    let literal = file("void f(void) { system(\"ls -l\"); }\n");
    let outside = file("void f(void) { system(getenv(\"CMD\")); }\n");
    assert!(literal.iter().all(|f| f.confidence < 0.6));
    assert!(
        outside
            .iter()
            .any(|f| f.pattern == "command_exec" && f.confidence >= 0.8)
    );
}

#[test]
fn cpp_files_parse_as_cpp() {
    let code = "namespace n { class A { void f(const char *s) { char b[4]; std::strcpy(b, s); delete this; } }; }\n";
    assert!(has(&patterns(Language::Cpp, code), "strcpy"));
}

#[test]
fn a_header_that_reads_as_cpp_is_parsed_as_cpp() {
    let file = SourceFile {
        language: Language::C,
        path: "x.h".into(),
        text: "namespace n {\ntemplate <typename T> void f(T *d, const char *s) { strcpy(d, s); }\n}\n"
            .into(),
    };
    assert!(check(&file).iter().any(|f| f.pattern == "strcpy"));
}

#[test]
fn garbage_truncated_and_non_ascii_input_never_panics() {
    let inputs = [
        "",
        "}}}}{{{{",
        "void f( { strcpy(",
        "int main() { char *p = malloc(; free(p); free(p",
        "#if 0\n#else\n#elif\n#endif\n#endif",
        "void f() { x = \"unterminated; }",
        "void é() { char ü[3]; strcpy(ü, \"ääääää\"); }",
        "\u{feff}\u{0}\u{1}void f(){}",
    ];
    for input in inputs {
        let _ = c(input);
        let _ = patterns(Language::Cpp, input);
    }
}

#[test]
fn deep_nesting_neither_overflows_the_stack_nor_hangs() {
    let depth = 100_000;
    let expression = format!("{}x{}", "(".repeat(depth), ")".repeat(depth));
    let code = format!("void f(char *d, char *x) {{ strcpy(d, {expression}); }}\n");
    let started = std::time::Instant::now();
    let _ = c(&code);
    let blocks = format!(
        "void f(void) {{ {} free(p); {} }}\n",
        "{ if (x) ".repeat(20_000),
        "}".repeat(20_000)
    );
    let _ = c(&blocks);
    let unary = format!("int f(void) {{ return {}1; }}\n", "-".repeat(depth));
    let _ = c(&unary);
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

#[test]
fn extreme_constants_do_not_overflow() {
    let code = "void f(char *s) {\n char a[-9223372036854775807 - 1];\n char b[(-9223372036854775807 - 1) / -1];\n for (int i = 0; i < -9223372036854775807 - 1; i++) a[i] = 0;\n strcpy(a, s);\n memcpy(b, s, 9223372036854775807 * 2);\n}\n";
    let _ = c(code);
}

#[test]
fn random_token_soup_never_panics() {
    const TOKENS: &[&str] = &[
        "void",
        "f",
        "(",
        ")",
        "{",
        "}",
        ";",
        "char",
        "*",
        "p",
        "q",
        "[",
        "]",
        "10",
        "0",
        "=",
        "malloc",
        "free",
        "strcpy",
        "memcpy",
        "printf",
        "if",
        "else",
        "while",
        "for",
        "return",
        "NULL",
        "&",
        "->",
        ".",
        ",",
        "\"%s\"",
        "sizeof",
        "-",
        "+",
        "<",
        "#if 0\n",
        "#endif\n",
        "#define M strcpy\n",
        "switch",
        "case",
        "1",
        ":",
        "break",
        "goto",
        "x",
        "delete",
        "new",
        "pthread_mutex_lock",
        "&m",
        "realloc",
        "fgets",
        "system",
        "int",
        "size_t",
        "++",
        "/",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..300 {
        let mut code = String::new();
        for _ in 0..200 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let token = TOKENS[(state >> 33) as usize % TOKENS.len()];
            code.push_str(token);
            code.push(' ');
        }
        let _ = c(&code);
        let _ = patterns(Language::Cpp, &code);
    }
}

#[test]
fn stack_allocations_are_not_leaks_and_are_not_freed() {
    let code = "void f(void) {\n char *a = (char *)ALLOCA(50);\n char *b = alloca(8);\n a[0] = b[0] = 0;\n use_it(a, b);\n}\nvoid g(void) {\n char *c = (char *)ALLOCA(50);\n free(c);\n}\n";
    assert_eq!(c(code), vec![(9, "free_non_heap".to_string())]);
}

#[test]
fn an_argument_vector_is_judged_by_its_parts() {
    let file = |code: &str| {
        check(&SourceFile {
            language: Language::C,
            path: "t.c".into(),
            text: code.into(),
        })
    };
    let outside = file(
        "void f(void) {\n char *cmd = getenv(\"CMD\");\n char *args[] = {\"sh\", \"-c\", cmd, NULL};\n execv(BIN_SH, args);\n}\n",
    );
    let fixed = file(
        "#define BIN_SH \"/bin/sh\"\nvoid f(void) {\n char *args[] = {\"sh\", \"-c\", \"ls\", NULL};\n execv(BIN_SH, args);\n}\n",
    );
    assert!(
        outside
            .iter()
            .any(|f| f.pattern == "command_exec" && f.confidence >= 0.8)
    );
    assert!(fixed.iter().all(|f| f.confidence < 0.6));
}
