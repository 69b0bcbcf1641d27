"""Malformed sources: ParseError with the exact line and column of the offending token."""

from __future__ import annotations

import pytest

from app.node.solidvm.errors import CompileError, ParseError

from .helpers import compile_src

MISSING_SEMICOLON_STATE = "contract C {\n    uint x = 1\n    uint y;\n}\n"
MISSING_SEMICOLON_BODY = (
    "contract C {\n"
    "    function f() public returns (uint) {\n"
    "        uint a = 1\n"
    "        return a;\n"
    "    }\n"
    "}\n"
)
UNTERMINATED_STRING = (
    'contract C {\n    function f() public returns (string) {\n        return "abc;\n    }\n}\n'
)
BAD_TOKEN = "contract C {\n  uint x = 1 # 2;\n}\n"
BAD_TOKEN_AT = "contract C {\n    function f() public {\n      @x;\n    }\n}\n"
MISSING_CLOSING_BRACE = "contract C {\n  function f() public {\n    uint a = 1;\n  }"
EXTRA_CLOSING_BRACE = "contract C {\n  uint x;\n}\n}\n"
MISSING_PAREN = "contract C {\n  function f(uint a public {}\n}\n"
BAD_EXPRESSION = "contract C {\n  function f() public returns (uint) {\n    return 1 + ;\n  }\n}\n"

CASES = [
    # (source, line, column) of the first offending token (1-based)
    pytest.param(MISSING_SEMICOLON_STATE, 3, 5, id="missing-semicolon-state-var"),
    pytest.param(MISSING_SEMICOLON_BODY, 4, 9, id="missing-semicolon-statement"),
    pytest.param(UNTERMINATED_STRING, 3, 16, id="unterminated-string"),
    pytest.param(BAD_TOKEN, 2, 14, id="bad-token-hash"),
    pytest.param(BAD_TOKEN_AT, 3, 7, id="bad-token-at"),
    pytest.param(MISSING_CLOSING_BRACE, 4, 4, id="missing-closing-brace"),
    pytest.param(EXTRA_CLOSING_BRACE, 4, 1, id="extra-closing-brace"),
    pytest.param(MISSING_PAREN, 2, 21, id="missing-paren"),
    pytest.param(BAD_EXPRESSION, 3, 16, id="missing-operand"),
]


@pytest.mark.parametrize(("src", "line", "column"), CASES)
def test_parse_error_position(src: str, line: int, column: int) -> None:
    with pytest.raises(ParseError) as info:
        compile_src(src)
    err = info.value
    assert err.line == line
    assert err.column == column
    assert f"line {line}, column {column}" in str(err)
    assert f"line {line}, column {column}" in err.message


def test_parse_error_in_second_file_of_a_multi_file_source() -> None:
    with pytest.raises(ParseError) as info:
        compile_src({"A.sol": "contract A { uint a; }\n", "B.sol": "contract B {\n  uint b\n}\n"})
    assert f"line {info.value.line}, column {info.value.column}" in str(info.value)


def test_valid_source_after_comment_lines_reports_shifted_line() -> None:
    src = "// header\n/* block\n   comment */\ncontract C {\n  uint x = ;\n}\n"
    with pytest.raises(ParseError) as info:
        compile_src(src)
    assert (info.value.line, info.value.column) == (5, 12)


def test_compile_error_is_a_parse_error_with_position() -> None:
    src = "contract C {\n  function f() public {\n    emit Missing(1);\n  }\n}\n"
    with pytest.raises(CompileError) as info:
        compile_src(src)
    assert isinstance(info.value, ParseError)
    assert info.value.line == 3
    assert "line 3, column" in str(info.value)


def test_multi_file_source_compiles_every_contract() -> None:
    unit = compile_src(
        {
            "A.sol": "contract A { uint public a = 1; }\n",
            "B.sol": "contract B is A { uint public b = 2; }\n",
        }
    )
    assert {"A", "B"} <= set(unit.contracts)
    assert {"A", "B"} <= set(unit.xabis())
