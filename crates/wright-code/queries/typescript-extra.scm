;; TypeScript definitions neither the JavaScript nor the TypeScript tags query has (both go in
;; front of this one).

;; Type aliases and enums: `type Id = string`, `enum Kind { A, B }`.
(type_alias_declaration
  name: (type_identifier) @name) @definition.type
(enum_declaration
  name: (identifier) @name) @definition.enum

;; An interface's construct signature, `new (msg: string): Err`, which ctags lists as `new`.
(construct_signature
  "new" @name) @definition.method

;; A class field holding a function, `private onTick = () => {}`: a method in all but syntax.
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method

;; A namespace, `namespace Shapes { … }` (the grammar's query has only `module Shapes { … }`).
(internal_module
  name: (identifier) @name) @definition.module
