use std::path::Path;

use pretty_assertions::assert_eq;

#[path = "../examples/common/mod.rs"]
mod common;

/// Every Rust file of this workspace (some 600).
fn workspace_rust_files() -> Vec<std::path::PathBuf> {
    let mut paths = Vec::new();
    common::files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
        &mut paths,
    );
    paths.retain(|path| path.extension().is_some_and(|e| e == "rs"));
    paths
}

use super::*;

fn found(path: &str, source: &str) -> Vec<(String, String, usize)> {
    let lang = Lang::of_path(Path::new(path)).expect("known language");
    let defs = Extractor::new().definitions(lang, source.as_bytes());
    assert!(!defs.partial, "{path} parsed with errors");
    defs.definitions
        .into_iter()
        .map(|d| (d.name, d.kind, d.line))
        .collect()
}

fn d(name: &str, kind: &str, line: usize) -> (String, String, usize) {
    (name.to_owned(), kind.to_owned(), line)
}

#[test]
fn every_query_compiles() {
    for lang in ALL {
        assert!(lang.config().is_some(), "{}", lang.name());
    }
}

/// Every language has a walker: its rules name only kinds and fields its grammar has.
#[test]
fn every_walker_builds() {
    for lang in ALL {
        assert!(crate::walk::walker(lang).is_some(), "{}", lang.name());
    }
}

#[test]
fn rust() {
    let src = "pub struct Ast;\nenum E { A }\ntype T = u8;\ntrait Tr {}\nimpl Ast {\n    fn m(&self) {}\n}\npub fn parse(input: &str) -> Result<Ast> {\n    Ok(Ast)\n}\n";
    let got = found("a.rs", src);
    assert!(got.contains(&d("Ast", "struct", 1)), "{got:?}");
    assert!(got.contains(&d("E", "enum", 2)), "{got:?}");
    assert!(got.contains(&d("T", "type", 3)), "{got:?}");
    assert!(got.contains(&d("Tr", "trait", 4)), "{got:?}");
    assert!(got.contains(&d("m", "method", 6)), "{got:?}");
    assert!(got.contains(&d("parse", "function", 8)), "{got:?}");
    let defs = Extractor::new().definitions(Lang::Rust, src.as_bytes());
    let parse = defs
        .definitions
        .iter()
        .find(|d| d.name == "parse")
        .expect("parse");
    assert_eq!(parse.signature, "pub fn parse(input: &str) -> Result<Ast>");
}

#[test]
fn python() {
    let src = "class A:\n    def m(self, x):\n        pass\n\ndef f(a, b=1):\n    return a\n";
    let got = found("a.py", src);
    assert_eq!(
        got,
        vec![
            d("A", "class", 1),
            d("m", "function", 2),
            d("f", "function", 5)
        ]
    );
    let defs = Extractor::new().definitions(Lang::Python, src.as_bytes());
    assert_eq!(defs.definitions[2].signature, "def f(a, b=1)");
}

#[test]
fn javascript() {
    let src =
        "class A {\n  m() {}\n}\nfunction f(x) {\n  return x;\n}\nconst gen = function* () {};\n";
    let got = found("a.js", src);
    assert_eq!(
        got,
        vec![
            d("A", "class", 1),
            d("m", "method", 2),
            d("f", "function", 4),
            d("gen", "function", 7)
        ]
    );
}

#[test]
fn javascript_functions_held_by_objects_and_prototypes() {
    let src = "var obj = { f() {}, g: function () {}, 'q': () => 1 };\nA.prototype.m = function () {};\nexports.e = function (prototype) {};\n";
    let got = found("a.js", src);
    assert_eq!(
        got,
        vec![
            d("f", "method", 1),
            d("g", "function", 1),
            d("q", "function", 1),
            d("m", "method", 2),
            d("e", "function", 3)
        ]
    );
}

#[test]
fn javascript_class_members_beyond_plain_methods() {
    let src = "class C {\n  constructor(a) {}\n  #priv() {}\n  [Symbol.iterator]() {}\n  handler = () => {};\n  #hidden = function () {};\n  count = 0;\n}\nvar W = class {};\n";
    let got = found("a.js", src);
    assert_eq!(
        got,
        vec![
            d("C", "class", 1),
            d("constructor", "method", 2),
            d("#priv", "method", 3),
            d("[Symbol.iterator]", "method", 4),
            d("handler", "method", 5),
            d("#hidden", "method", 6),
            d("W", "class", 9)
        ]
    );
}

#[test]
fn typescript_and_tsx() {
    let src = "interface I { x: number }\nclass A {\n  m(): void {}\n}\nfunction f(): void {}\n";
    let got = found("a.ts", src);
    assert!(got.contains(&d("I", "interface", 1)), "{got:?}");
    assert!(got.contains(&d("A", "class", 2)), "{got:?}");
    assert!(got.contains(&d("m", "method", 3)), "{got:?}");
    assert!(got.contains(&d("f", "function", 5)), "{got:?}");
    let got = found("a.tsx", "function C() {\n  return <div/>;\n}\n");
    assert_eq!(got, vec![d("C", "function", 1)]);
}

#[test]
fn go() {
    let src =
        "package p\n\ntype S struct{}\n\nfunc (s S) M() {}\n\nfunc F() int {\n\treturn 1\n}\n";
    let got = found("a.go", src);
    assert!(got.contains(&d("S", "struct", 3)), "{got:?}");
    assert!(got.contains(&d("M", "method", 5)), "{got:?}");
    assert!(got.contains(&d("F", "function", 7)), "{got:?}");
}

#[test]
fn c_and_cpp() {
    let src = "struct point { int x; };\nint add(int a, int b) {\n  return a + b;\n}\n";
    let got = found("a.c", src);
    assert!(got.contains(&d("point", "struct", 1)), "{got:?}");
    assert!(got.contains(&d("add", "function", 2)), "{got:?}");
    let src = "class K {\n public:\n  void m();\n};\nvoid K::m() {}\nint g() { return 0; }\n";
    let got = found("a.cpp", src);
    assert!(got.contains(&d("K", "class", 1)), "{got:?}");
    assert!(got.iter().any(|(n, _, l)| n == "g" && *l == 6), "{got:?}");
}

#[test]
fn java() {
    let src = "class A {\n  void m() {}\n}\ninterface I {}\n";
    let got = found("A.java", src);
    assert!(got.contains(&d("A", "class", 1)), "{got:?}");
    assert!(got.contains(&d("m", "method", 2)), "{got:?}");
    assert!(got.contains(&d("I", "interface", 4)), "{got:?}");
}

#[test]
fn typescript_aliases_enums_abstract_members_and_signatures() {
    let src = "type Id = string;\nenum Kind { A, B }\nabstract class Shape {\n  abstract area(): number;\n  private onTick = () => {};\n}\ninterface Ctor {\n  new (msg: string): Error;\n  size(): number;\n}\nnamespace Shapes {\n  export function unit(): void {}\n}\n";
    let got = found("a.ts", src);
    assert_eq!(
        got,
        vec![
            d("Id", "type", 1),
            d("Kind", "enum", 2),
            d("Shape", "class", 3),
            d("area", "method", 4),
            d("onTick", "method", 5),
            d("Ctor", "interface", 7),
            d("new", "method", 8),
            d("size", "method", 9),
            d("Shapes", "module", 11),
            d("unit", "function", 12)
        ]
    );
}

#[test]
fn go_type_aliases_and_interface_methods() {
    let src = "package p\n\ntype Handler = func(int)\n\ntype Reader interface {\n\tRead(p []byte) (int, error)\n}\n\nfunc (h *T) Serve() {}\n";
    let got = found("a.go", src);
    assert_eq!(
        got,
        vec![
            d("Handler", "type", 3),
            d("Reader", "interface", 5),
            d("Read", "method", 6),
            d("Serve", "method", 9)
        ]
    );
}

#[test]
fn java_enums_records_annotations_and_constructors() {
    let src = "enum Color { RED; Color() {} }\nrecord Point(int x, int y) {\n  Point {\n  }\n  int sum() { return x + y; }\n}\n@interface Ann {\n  String value();\n}\nclass K {\n  K(int a) {}\n}\n";
    let got = found("A.java", src);
    assert_eq!(
        got,
        vec![
            d("Color", "enum", 1),
            d("Color", "method", 1),
            d("Point", "class", 2),
            d("Point", "method", 3),
            d("sum", "method", 5),
            d("Ann", "interface", 7),
            d("value", "method", 8),
            d("K", "class", 10),
            d("K", "method", 11)
        ]
    );
}

#[test]
fn cpp_methods_operators_aliases_and_specialisations() {
    let src = "namespace n {\nclass A {\n public:\n  void m();\n  ~A();\n  bool operator==(const A&) const;\n};\nvoid A::m() {}\nA::~A() {}\nusing Id = int;\ntemplate <> struct S<int> {};\nenum class Color { Red };\n}\n";
    let got = found("a.cpp", src);
    assert_eq!(
        got,
        vec![
            d("A", "class", 2),
            d("m", "method", 4),
            d("~A", "method", 5),
            d("operator==", "function", 6),
            d("m", "method", 8),
            d("~A", "method", 9),
            d("Id", "type", 10),
            d("S", "struct", 11),
            d("Color", "enum", 12)
        ]
    );
}

#[test]
fn cpp_variable_built_in_a_function_body_is_not_a_function() {
    let src = "int f(int a);\nint g() {\n  json j(a);\n  return 0;\n}\n";
    let got = found("a.cpp", src);
    assert_eq!(got, vec![d("f", "function", 1), d("g", "function", 2)]);
}

#[test]
fn a_header_is_read_as_cpp() {
    assert_eq!(Lang::of_path(Path::new("gtest.h")), Some(Lang::Cpp));
    let got = found(
        "a.h",
        "template <typename T> class Box {\n  T get() const;\n};\n",
    );
    assert_eq!(got, vec![d("Box", "class", 1), d("get", "method", 2)]);
}

#[test]
fn c_typedefs_of_pointers_arrays_and_function_pointers() {
    let src = "typedef struct node *Link;\ntypedef unsigned Limbs[4];\ntypedef int (*Callback)(void *);\n";
    let got = found("a.c", src);
    assert_eq!(
        got,
        vec![
            d("Link", "type", 1),
            d("Limbs", "type", 2),
            d("Callback", "type", 3)
        ]
    );
}

#[test]
fn a_broken_file_is_partial_but_reported() {
    let src = "fn good() {}\nfn broken( {\n";
    let defs = Extractor::new().definitions(Lang::Rust, src.as_bytes());
    assert!(defs.partial);
    assert!(defs.definitions.iter().any(|d| d.name == "good"));
}

#[test]
fn unknown_extension_has_no_language() {
    assert_eq!(Lang::of_path(Path::new("a.txt")), None);
    assert_eq!(Lang::of_path(Path::new("Makefile")), None);
}

#[test]
fn signatures_are_one_bounded_line() {
    let long = format!("fn f({}) {{}}\n", "a: u8, ".repeat(100));
    let defs = Extractor::new().definitions(Lang::Rust, long.as_bytes());
    let sig = &defs.definitions[0].signature;
    assert!(sig.chars().count() <= MAX_SIGNATURE_CHARS);
    assert!(!sig.contains('\n'));
}

#[test]
fn rust_functions_without_a_body_are_found() {
    let src = "extern \"C\" {\n    fn ext(x: i32) -> i32;\n}\ntrait T {\n    fn req(&self);\n}\n";
    let got = found("a.rs", src);
    assert!(got.contains(&d("ext", "function", 2)), "{got:?}");
    assert!(got.contains(&d("req", "method", 5)), "{got:?}");
}

/// The tree walk (`walk.rs`): the same definitions, signatures, kinds and flags as the tag
/// query, on sources that exercise every rule, nested definitions and broken code.
#[test]
fn the_tree_walk_finds_what_the_query_finds() {
    let sources: &[(Lang, &str)] = &[
        (
            Lang::Rust,
            "pub struct Ast;\nenum E { A }\nunion U { a: u8 }\ntype T = u8;\ntrait Tr {\n    fn req(&self);\n    fn prov(&self) {}\n}\nimpl Ast {\n    fn m(&self) {\n        fn inner() {}\n        let _ = || { struct Local; };\n    }\n}\nmod m { pub fn f() {} }\nmacro_rules! mac { () => {} }\nextern \"C\" {\n    fn ext(x: i32) -> i32;\n}\npub fn parse(input: &str) -> Result<Ast> {\n    Ok(Ast)\n}\n",
        ),
        (
            Lang::Rust,
            "fn good() {}\nfn broken( {\nimpl X { fn m() {} \n",
        ),
        (Lang::Rust, "struct { }\nfn (x) {}\ntrait {}\n"),
        (
            Lang::Go,
            "package p\n\n// F does.\nfunc F() int {\n\treturn 1\n}\n\ntype S struct{}\ntype I interface {\n\tRead(p []byte) (int, error)\n}\ntype H = func(int)\ntype (\n\tA int\n\tB = A\n)\n\nfunc (s S) M() {\n\tf := func() {}\n\t_ = f\n\ttype local struct{}\n}\n",
        ),
        (Lang::Go, "package p\nfunc broken( {\nfunc ok() {}\n"),
        (
            Lang::Python,
            "X = 1\nA, B = 2, 3\nif True:\n    Y = 4\n\n@decorator\nclass C(Base):\n    Z = 5\n    def m(self):\n        W = 6\n        def inner():\n            pass\n\nasync def main():\n    class Local:\n        pass\n",
        ),
        (
            Lang::Python,
            "def good():\n    pass\ndef broken(:\n    pass\nclass K:\n    def m(self): pass\n",
        ),
        (
            Lang::Java,
            "package p;\n@interface Note { String value(); }\npublic class A<T> extends B implements I {\n    A() {}\n    <U> U m(U u) { Runnable r = new Runnable() { public void run() {} }; return u; }\n    interface Inner { void f(); }\n    enum E { X, Y; void g() {} }\n    record R(int x) { R { } }\n}\n",
        ),
        (
            Lang::Java,
            "class Ok { void f() {} }\nclass Broken { void g( { }\n",
        ),
    ];
    let more: &[(Lang, &str)] = &[
        (Lang::C, C_RULES),
        (
            Lang::C,
            "int ok(void);\nint broken( {\nstruct S { int a; };\ntypedef int T\n",
        ),
        (Lang::Cpp, CPP_RULES),
        (
            Lang::Cpp,
            "class Ok { void f(); };\nvoid broken( {\nint g(int) { return h(1) }\nstruct S { void m() }\n",
        ),
        (Lang::JavaScript, JAVASCRIPT_RULES),
        (
            Lang::JavaScript,
            "function ok() {}\nfunction broken( {\nclass A { m() {} n( }\nconst f = () => {};\n",
        ),
        (Lang::TypeScript, TYPESCRIPT_RULES),
        (Lang::TypeScript, JAVASCRIPT_RULES),
        (
            Lang::TypeScript,
            "interface I { m(): void; n( }\nclass A { private f = () => {}; g( }\ntype T = ;\n",
        ),
        // A match the query finishes after a later name (at the value): its tag comes after
        // that name's, on the same line.
        (
            Lang::TypeScript,
            "const f: { m(): void; n(): void } = () => {};\nclass A { private g: { m(): void } = () => {}; }\n",
        ),
        // A name over two lines: the next tag on its last line takes its first line.
        (Lang::JavaScript, "class A {\n  [a\n  .b]() {} x() {}\n}\n"),
        (Lang::Tsx, TYPESCRIPT_RULES),
        (Lang::Tsx, TSX_RULES),
        (
            Lang::Tsx,
            "function ok() {}\nconst App = () => <div>{x</div>;\nclass K { m() {} }\n",
        ),
    ];
    for (lang, src) in sources.iter().chain(more) {
        let by_query = Extractor::new().definitions(*lang, src.as_bytes());
        let walked = Extractor::new()
            .definitions_walked(*lang, src.as_bytes(), Parse::Whole)
            .expect("a walker");
        assert_eq!(walked, by_query, "{}: {src}", lang.name());
    }
    // The new languages' sources, broken ones included, all define something.
    for (lang, src) in more {
        assert!(
            !Extractor::new()
                .definitions(*lang, src.as_bytes())
                .definitions
                .is_empty(),
            "{src}"
        );
    }
}

/// C for `the_tree_walk_finds_what_the_query_finds`: every pattern of the C query and of
/// `queries/c-extra.scm`, several declarators in one typedef, definitions in a body.
const C_RULES: &str = "struct S { int a; };\nstruct Fwd;\nunion U { int a; } u;\nunion U2 x;\nint f(int a) { return a; }\nint proto(void), *proto2(int);\nstatic int (*fp)(int);\ntypedef int T, *PT, AT[4];\ntypedef int (*F)(int), (*G)(void);\ntypedef struct { int x; } A, *PA;\ntypedef struct Named { int y; } Named_t;\nenum E { X, Y };\nenum E2 e;\nvoid g(void) {\n  struct Local { int b; };\n  int h(int);\n  typedef int Inner;\n}\n";

/// C++ for `the_tree_walk_finds_what_the_query_finds`: every pattern of `queries/cpp.scm`
/// (the `@ignore` of `T x(a);` in a body against the function patterns), nested scopes.
const CPP_RULES: &str = "namespace n {\nclass C : public B {\n public:\n  C();\n  ~C();\n  void m() const;\n  int operator()(int) const;\n  template <typename T> void t(T);\n  struct In { void f(); };\n};\ntemplate <typename T> struct S<T*> { };\ntemplate <> class K<int> { };\ntemplate <typename T> union UT<T, int> { T a; };\nunion U { int a; };\nenum class E { A, B };\nenum Fwd : int;\nstruct Decl;\ntypedef int T, *PT, AT[4];\ntypedef int (*F)(int);\ntypedef struct { int x; } A, *PA;\nusing Alias = int;\nC::C() {}\nC::~C() {}\nvoid C::m() const {\n  json j(x);\n  int local(int);\n  C c(1, 2), d(3);\n  if (x) { T y(z); }\n  struct Local { void lm() {} };\n}\nint C::operator()(int) const { return 0; }\ntemplate <> void f<int>(int) {}\ntemplate <> void C::t<int>(int) {}\nvoid a::b::c() {}\na::b::~b() {}\na::b::operator bool() {}\nbool operator==(const C&, const C&);\nint free_function(int x) { auto l = [](int y) { return y; }; return x; }\nint (*returns_fp(int))(int);\n}\n";

/// JavaScript for `the_tree_walk_finds_what_the_query_finds` (TypeScript reads it too): every
/// pattern of the JavaScript query, `queries/javascript-extra.scm` and
/// `queries/javascript-fields.scm`, the constructor test, nested definitions.
const JAVASCRIPT_RULES: &str = "const gen = function* () { yield 1; };\nclass A extends B {\n  constructor() { super(); }\n  m() {}\n  #p() {}\n  [Symbol.iterator]() {}\n  'quoted'() {}\n  1() {}\n  static s() {}\n  handler = () => {};\n  #priv = function () {};\n  plain = 1;\n  'constructor'() {}\n}\nconst C = class Named {};\nvar D = class {};\nfunction f() {\n  function inner() {}\n  const local = () => {};\n}\nfunction* g() {}\nconst h = function* () {};\nconst gen = function* named() {};\nconst arrow = () => {}, other = function () {}, num = 1;\nlet fe = function named2() {};\nvar v = () => {};\nobj.prop = function () {};\nA.prototype.m2 = () => {};\nx = () => {};\nconst o = {\n  key: () => {},\n  'q': function () {},\n  m() {},\n  get g() { return 1; },\n  [c]: () => {},\n  constructor() {},\n};\nexport default y = 1;\nexport default w = new W();\nmodule.exports = function () {};\nfor (const z = () => {}; ; ) {}\n";

/// TypeScript for `the_tree_walk_finds_what_the_query_finds` (TSX reads it too): every
/// pattern of the TypeScript query and `queries/typescript-extra.scm`, with JavaScript's.
const TYPESCRIPT_RULES: &str = "interface I {\n  m(): void;\n  p: string;\n  new (msg: string): Err;\n}\nabstract class AC {\n  abstract am(): void;\n  private onTick = () => {};\n  field = 1;\n  #h = function () {};\n  constructor() {}\n  m(): void {}\n}\ntype Id = string;\nenum Kind { A, B }\ndeclare function sig(x: number): void;\nfunction over(x: number): void;\nfunction over(x: any) {}\ndeclare module Mod {\n  export function inner(): void;\n}\nnamespace NS { export const f = () => {}; }\nmodule M2 { class Inside {} }\ndeclare module \"str\" {}\nclass G<T> implements I { m() {} }\nconst gen = <T,>(x: T) => x;\nexport default z = 1;\nlet v = class {};\ntype Ctor = { new (): X };\n";

/// TSX for `the_tree_walk_finds_what_the_query_finds`: JSX around definitions.
const TSX_RULES: &str = "const App = () => <div onClick={() => {}}>hi</div>;\nfunction Comp(props: P) {\n  const inner = () => <span />;\n  return <span>{inner()}</span>;\n}\nclass K extends React.Component<P> {\n  render() { return null; }\n  private click = () => {};\n}\ninterface P { x: number }\n";

/// The tree walk against the tag query on real code: every Rust file of this workspace (some
/// 600 files). A rule that drifts from `queries/rust.scm` fails here.
#[test]
fn the_tree_walk_matches_the_query_on_this_workspace() {
    let paths = workspace_rust_files();
    let mut files = 0;
    for path in &paths {
        let Ok(src) = std::fs::read(path) else {
            continue;
        };
        let by_query = Extractor::new().definitions(Lang::Rust, &src);
        let walked = Extractor::new().definitions_walked(Lang::Rust, &src, Parse::Whole);
        assert_eq!(walked, Some(by_query), "{}", path.display());
        files += 1;
    }
    assert!(files > 300, "{files} files");
}

/// The rows inside the bodies of the functions (and the values of the constants) of `source`,
/// from a whole parse: where a skeleton parse may not look.
fn rows_inside_bodies(lang: Lang, source: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&lang.grammar().0).expect("grammar");
    let tree = parser.parse(source, None).expect("a tree");
    let mut rows = Vec::new();
    let mut cursor = tree.walk();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let inside = match (lang, node.kind()) {
            (Lang::Rust, "function_item")
            | (Lang::Go, "function_declaration" | "method_declaration") => {
                node.child_by_field_name("body")
            }
            (Lang::Rust, "const_item" | "static_item") => node.child_by_field_name("value"),
            _ => None,
        };
        if let Some(body) = inside {
            rows.push(body.start_position().row..body.end_position().row + 1);
        }
        stack.extend(node.children(&mut cursor));
    }
    rows
}

/// The skeleton against the whole file on real code, every Rust file of this workspace: the
/// same definitions but for some inside function bodies (or constants' values) — the items
/// first in a body's statements are read — none that the whole parse does not find, and no
/// parse error the whole file does not have.
#[test]
fn the_skeleton_finds_all_but_what_bodies_hold_on_this_workspace() {
    let paths = workspace_rust_files();
    let (mut files, mut skeletons, mut found_inside) = (0, 0, 0);
    let mut extractor = Extractor::new();
    for path in &paths {
        let Ok(src) = std::fs::read(path) else {
            continue;
        };
        files += 1;
        if skeleton::included_ranges(Lang::Rust, &src).is_some() {
            skeletons += 1;
        }
        let whole = extractor
            .definitions_walked(Lang::Rust, &src, Parse::Whole)
            .expect("a walker");
        let skeleton = extractor
            .definitions_walked(Lang::Rust, &src, Parse::Skeleton)
            .expect("a walker");
        let shown = path.display();
        for def in &skeleton.definitions {
            assert!(whole.definitions.contains(def), "{shown}: {def:?}");
        }
        let bodies = rows_inside_bodies(Lang::Rust, &src);
        let inside = |def: &Definition| {
            bodies
                .iter()
                .any(|rows| rows.start < def.line - 1 && def.line - 1 < rows.end)
        };
        for def in &whole.definitions {
            if !skeleton.definitions.contains(def) {
                assert!(
                    inside(def),
                    "{shown}: the skeleton misses {def:?}, which is not inside a body"
                );
            } else if inside(def) {
                found_inside += 1;
            }
        }
        assert!(
            whole.partial || !skeleton.partial,
            "{shown}: the skeleton does not parse"
        );
    }
    assert!(files > 300, "{files} files");
    assert!(
        skeletons * 10 > files * 9,
        "{skeletons} skeletons of {files} files"
    );
    // Items defined inside bodies (tests' helpers, local types) are read too.
    assert!(found_inside > 5, "{found_inside} found inside bodies");
}

/// Python's skeleton keeps every definition (nested ones too: what leads to them is kept), on
/// this repository's Python scripts, and parses without an error the whole file does not have;
/// the tree walk over it finds what the query finds over the whole file.
#[test]
fn the_python_skeleton_finds_what_the_whole_file_does_in_this_repository() {
    let mut paths = Vec::new();
    common::files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
        &mut paths,
    );
    paths.retain(|path| path.extension().is_some_and(|e| e == "py"));
    let mut extractor = Extractor::new();
    let (mut files, mut definitions, mut skeletons) = (0, 0, 0);
    for path in &paths {
        let Ok(src) = std::fs::read(path) else {
            continue;
        };
        let whole = extractor.definitions_parsed(Lang::Python, &src, Parse::Whole);
        let skeleton = extractor.definitions_parsed(Lang::Python, &src, Parse::Skeleton);
        assert_eq!(
            skeleton.definitions,
            whole.definitions,
            "{}",
            path.display()
        );
        assert!(whole.partial || !skeleton.partial, "{}", path.display());
        // The tree walk, as the index runs it, finds what the query does.
        let walked = extractor.definitions_walked(Lang::Python, &src, Parse::Skeleton);
        assert_eq!(
            walked.map(|w| w.definitions),
            Some(whole.definitions.clone()),
            "{}",
            path.display()
        );
        files += 1;
        definitions += whole.definitions.len();
        skeletons += usize::from(skeleton::included_ranges(Lang::Python, &src).is_some());
    }
    assert!(
        files >= 4 && definitions > 50,
        "{files} files, {definitions} definitions"
    );
    assert!(
        skeletons * 2 > files,
        "{skeletons} skeletons of {files} files"
    );
}
