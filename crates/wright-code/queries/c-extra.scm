;; C definitions the grammar's tags query leaves out: typedefs whose name sits in a
;; declarator (`typedef T *P;`, `typedef T A[4];`, `typedef int (*F)(int);`).
(type_definition
  declarator: [(pointer_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))]) @definition.type
