;; JavaScript definitions the grammar's tags query leaves out; shared with TypeScript and TSX,
;; whose grammars have the same nodes.

;; Constructors (the grammar's query skips them) and methods named by a private name
;; (`#m() {}`), a number, a computed key (`[Symbol.iterator]() {}`) or a string (`'m'() {}`).
(method_definition
  name: (property_identifier) @name
  (#eq? @name "constructor")) @definition.method
(method_definition
  name: [(private_property_identifier) (computed_property_name) (number)] @name) @definition.method
(method_definition
  name: (string (string_fragment) @name)) @definition.method

;; A function held by an object literal's quoted key: `{ 'm': function () {} }`.
(pair
  key: (string (string_fragment) @name)
  value: [(arrow_function) (function_expression)]) @definition.function

;; A class expression bound to a name: `var Walker = class { ... }`.
(variable_declarator
  name: (identifier) @name
  value: (class)) @definition.class

;; A generator bound to a name, `const gen = function* () {}`, as a function is.
(variable_declarator
  name: (identifier) @name
  value: (generator_function)) @definition.function
