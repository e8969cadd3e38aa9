;; Java definitions the grammar's tags query leaves out (it has classes, interfaces and methods).

;; Enums, records and annotation types, with an annotation type's elements (`String value();`).
(enum_declaration
  name: (identifier) @name) @definition.enum
(record_declaration
  name: (identifier) @name) @definition.class
(annotation_type_declaration
  name: (identifier) @name) @definition.interface
(annotation_type_element_declaration
  name: (identifier) @name) @definition.method

;; Constructors, a record's compact one included: where a class says how it is built.
(constructor_declaration
  name: (identifier) @name) @definition.method
(compact_constructor_declaration
  name: (identifier) @name) @definition.method
