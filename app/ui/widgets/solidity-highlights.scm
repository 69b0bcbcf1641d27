; Stratoscope's highlight captures for tree-sitter-solidity (our own, small set).
(comment) @comment
[(string) (hex_string_literal) (unicode_string_literal)] @string
(number_literal) @number
[(true) (false)] @constant
(primitive_type) @type
(user_defined_type (identifier) @type)
(contract_declaration name: (identifier) @type)
(struct_declaration name: (identifier) @type)
(enum_declaration name: (identifier) @type)
(event_definition name: (identifier) @type)
(function_definition name: (identifier) @function)
(modifier_definition name: (identifier) @function)
(visibility) @keyword
(state_mutability) @keyword
[
  "contract" "function" "returns" "return" "if" "else" "for" "while" "do" "break"
  "continue" "emit" "event" "struct" "enum" "mapping" "modifier" "constructor"
  "import" "pragma" "is" "new" "delete" "using" "memory" "storage" "calldata"
] @keyword
