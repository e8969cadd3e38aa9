;; Go definitions the grammar's tags query leaves out.

;; Type aliases: `type Handler = func(Event)`.
(type_alias
  name: (type_identifier) @name) @definition.type

;; An interface's methods: `type Reader interface { Read(p []byte) (int, error) }`.
(method_elem
  name: (field_identifier) @name) @definition.method
