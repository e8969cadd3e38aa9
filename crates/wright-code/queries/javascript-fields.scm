;; JavaScript only (TypeScript's class fields are `public_field_definition`): a class field
;; holding a function, `handler = () => {}`, which is a method in all but syntax.
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method
