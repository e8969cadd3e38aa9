;; C++ definitions, written for Definitions in place of tree-sitter-cpp's tags query: that one
;; tags every function declarator, so `json j(x);` in a function body (a variable built by a
;; constructor) counts as a function, and it misses `using` aliases, destructors, operators,
;; template specialisations and enums' kinds.
;;
;; A function named plainly is a `function`; one named in a class body or with its class
;; (`void A::f() {}`, `A::~A()`) is a `method`.

;; In a function body `T x(a);` builds a variable, whatever it looks like: `@ignore` comes first
;; so that the function patterns below lose to it (tree_sitter_tags keeps one tag per name, from
;; the earliest pattern).
(compound_statement
  (declaration
    declarator: (function_declarator declarator: (identifier) @ignore)))

;; Types with a body (a bare `struct S;` declares nothing), templates' specialisations included.
(class_specifier
  name: [(type_identifier) @name (template_type name: (type_identifier) @name)]
  body: (_)) @definition.class
(struct_specifier
  name: [(type_identifier) @name (template_type name: (type_identifier) @name)]
  body: (_)) @definition.class
(union_specifier
  name: [(type_identifier) @name (template_type name: (type_identifier) @name)]
  body: (_)) @definition.class
(enum_specifier
  name: (type_identifier) @name
  body: (_)) @definition.class

;; `typedef ... T;`, `typedef ... *T;`, `typedef ... T[4];`, `typedef int (*F)(int);` and
;; `using T = ...;`.
(type_definition
  declarator: [(type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))]) @definition.type
(alias_declaration
  name: (type_identifier) @name) @definition.type

;; Functions and methods, defined or declared (a prototype, a method declared in its class).
(function_declarator
  declarator: [(identifier) (operator_name)] @name) @definition.function
(function_declarator
  declarator: (template_function name: (identifier) @name)) @definition.function
(function_declarator
  declarator: [(field_identifier) (destructor_name)] @name) @definition.method
(function_declarator
  declarator: (qualified_identifier
    name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)) @definition.method
(function_declarator
  declarator: (qualified_identifier
    name: (template_function name: (identifier) @name))) @definition.method
(function_declarator
  declarator: (qualified_identifier
    name: (qualified_identifier
      name: [(identifier) (destructor_name) (operator_name)] @name))) @definition.method
