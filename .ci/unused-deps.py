#!/usr/bin/env python3
"""Fails when a crate of the workspace declares a dependency its code never names.

The rule is cargo-machete's: a dependency `foo-bar` is used when `foo_bar` appears as a word in
some `.rs` file of the crate (src, tests, benches, examples, build.rs). cargo-machete itself
takes over two minutes to build on CI's two cores, a third of the CI budget, so CI applies the
same rule here; `cargo machete` run by hand gives the same answer on this tree.

A dependency used only in a way this cannot see goes in the crate's
`[package.metadata.unused-deps] ignored = ["name"]`.
"""
import pathlib
import re
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEPENDENCY_TABLES = ("dependencies", "dev-dependencies", "build-dependencies")


def declared(manifest: dict) -> set[str]:
    """Every dependency name the manifest declares, target-specific tables included."""
    tables = [manifest]
    tables += list(manifest.get("target", {}).values())
    names = set()
    for table in tables:
        for kind in DEPENDENCY_TABLES:
            for name, spec in table.get(kind, {}).items():
                # A renamed dependency is named in code by its key, not its package.
                names.add(name)
    return names


def sources(crate: pathlib.Path) -> str:
    return "\n".join(
        path.read_text(encoding="utf-8", errors="replace")
        for path in crate.rglob("*.rs")
        if "target" not in path.relative_to(crate).parts
    )


def main() -> int:
    unused = []
    for manifest_path in sorted(ROOT.glob("crates/*/Cargo.toml")):
        manifest = tomllib.loads(manifest_path.read_text(encoding="utf-8"))
        ignored = set(
            manifest.get("package", {})
            .get("metadata", {})
            .get("unused-deps", {})
            .get("ignored", [])
        )
        code = sources(manifest_path.parent)
        for name in sorted(declared(manifest) - ignored):
            ident = name.replace("-", "_")
            if not re.search(rf"\b{re.escape(ident)}\b", code):
                unused.append(f"{manifest_path.relative_to(ROOT)}: {name}")
    for line in unused:
        print(f"unused dependency: {line}", file=sys.stderr)
    return 1 if unused else 0


if __name__ == "__main__":
    sys.exit(main())
