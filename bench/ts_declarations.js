#!/usr/bin/env node
// The TypeScript compiler's own parser as an oracle for bench/definitions.sh: every named
// declaration in a tree's TypeScript files, one a line, `file\tline\tkind\tname` (the line,
// 1-based, is the name's; the file is DIR joined with its path below DIR, as Definitions and
// ctags write it).
//
// Usage: node bench/ts_declarations.js [--typescript PATH] DIR...
//   PATH (or env TS_MODULE) is the `typescript` package's directory (5.x: 7.x is the Go port
//   and has no JavaScript API); without either, plain require("typescript").
//
// It parses each file alone (ts.createSourceFile: syntax only, no type checking, no imports
// followed) and walks the whole tree, nested declarations included. What it counts, by kind:
//   function     function declarations, overload signatures and `declare function` included;
//                a variable initialised with a function or arrow (`const f = () => {}`);
//                a named function expression's own name (`const g = function f() {}`: f)
//   method       class and object-literal methods, overloads and abstract ones included;
//                method signatures of interfaces and type literals (`m(): void;`);
//                constructors (name `constructor`), their overload signatures included
//   property     a class property whose initialiser is a function or arrow (`m = () => {}`);
//                an object-literal property whose value is one (`next: (v) => {...}`)
//   getter/setter  `get x()` / `set x(v)`, in classes, object literals, interfaces and type
//                literals
//   class        class declarations; named class expressions; a variable initialised with a
//                class expression (`const C = class {}`)
//   interface, type (type alias), enum, namespace (`namespace N`, `module M`,
//                `declare module "m"` (name without quotes), `declare global`)
// An initialiser counts through parentheses, `as`, `satisfies`, `<T>x` and `x!`, nothing else:
// `const f = memoize(() => {})` is a call, not a function. Not counted: variables, parameters,
// plain properties and property signatures (`onClick: () => void` in an interface is a
// property with a function type), enum members, type parameters, imports and exports,
// anonymous functions and classes, index/call/construct signatures.
// Names are as the source spells them: `#m` for a private name, `[Symbol.iterator]` (brackets
// included) for a computed one, a string or number key without quotes.
"use strict";
const fs = require("fs");
const path = require("path");

const args = process.argv.slice(2);
let tsPath = process.env.TS_MODULE || "typescript";
const dirs = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--typescript") tsPath = args[++i];
  else if (args[i].startsWith("--typescript=")) tsPath = args[i].slice("--typescript=".length);
  else dirs.push(args[i]);
}
if (dirs.length === 0) {
  process.stderr.write("usage: ts_declarations.js [--typescript PATH] DIR...\n");
  process.exit(2);
}
let ts;
try {
  ts = require(tsPath);
} catch (e) {
  process.stderr.write(`ts_declarations.js: cannot load ${tsPath}: ${e.message.split("\n")[0]}\n`);
  process.exit(2);
}
if (typeof ts.createSourceFile !== "function") {
  process.stderr.write(`${tsPath}: no createSourceFile (TypeScript ${ts.version || "?"}; 5.x has it)\n`);
  process.exit(2);
}
const K = ts.SyntaxKind;

const TS_FILE = /\.(ts|tsx|mts|cts)$/;

function* walk(dir) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== ".git") yield* walk(p);
    } else if (e.isFile() && TS_FILE.test(e.name)) {
      yield p;
    }
  }
}

// The expression under parentheses, type assertions and non-null assertions.
function unwrap(e) {
  while (e) {
    switch (e.kind) {
      case K.ParenthesizedExpression:
      case K.AsExpression:
      case K.SatisfiesExpression:
      case K.TypeAssertionExpression:
      case K.NonNullExpression:
        e = e.expression;
        continue;
      default:
        return e;
    }
  }
  return e;
}

function isFunctionValue(e) {
  e = unwrap(e);
  return !!e && (e.kind === K.ArrowFunction || e.kind === K.FunctionExpression);
}

function isClassValue(e) {
  e = unwrap(e);
  return !!e && e.kind === K.ClassExpression;
}

function emitFile(file) {
  let text;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    return;
  }
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const out = [];

  function nameText(name) {
    switch (name.kind) {
      case K.Identifier:
      case K.PrivateIdentifier:
      case K.StringLiteral:
      case K.NoSubstitutionTemplateLiteral:
      case K.NumericLiteral:
        return name.text;
      case K.ComputedPropertyName:
        return name.getText(sf);
      default:
        return null; // a destructuring pattern
    }
  }

  function emit(node, kind, name) {
    if (!name) return;
    const n = nameText(name);
    if (n === null || n === "") return;
    const line = sf.getLineAndCharacterOfPosition(name.getStart(sf)).line + 1;
    out.push(`${file}\t${line}\t${kind}\t${n}`);
  }

  function visit(node) {
    switch (node.kind) {
      case K.FunctionDeclaration:
      case K.FunctionExpression:
        emit(node, "function", node.name);
        break;
      case K.MethodDeclaration:
      case K.MethodSignature:
        emit(node, "method", node.name);
        break;
      case K.Constructor: {
        const kw = node.getChildren(sf).find((c) => c.kind === K.ConstructorKeyword);
        const at = kw ? kw.getStart(sf) : node.getStart(sf);
        out.push(`${file}\t${sf.getLineAndCharacterOfPosition(at).line + 1}\tmethod\tconstructor`);
        break;
      }
      case K.GetAccessor:
        emit(node, "getter", node.name);
        break;
      case K.SetAccessor:
        emit(node, "setter", node.name);
        break;
      case K.ClassDeclaration:
      case K.ClassExpression:
        emit(node, "class", node.name);
        break;
      case K.InterfaceDeclaration:
        emit(node, "interface", node.name);
        break;
      case K.TypeAliasDeclaration:
        emit(node, "type", node.name);
        break;
      case K.EnumDeclaration:
        emit(node, "enum", node.name);
        break;
      case K.ModuleDeclaration:
        emit(node, "namespace", node.name);
        break;
      case K.PropertyDeclaration:
      case K.PropertyAssignment:
        if (isFunctionValue(node.initializer)) emit(node, "property", node.name);
        break;
      case K.VariableDeclaration:
        if (node.name.kind === K.Identifier) {
          if (isFunctionValue(node.initializer)) emit(node, "function", node.name);
          else if (isClassValue(node.initializer)) emit(node, "class", node.name);
        }
        break;
    }
    ts.forEachChild(node, visit);
  }

  visit(sf);
  if (out.length) process.stdout.write(out.join("\n") + "\n");
}

for (const d of dirs) {
  for (const file of walk(d)) emitFile(file);
}
