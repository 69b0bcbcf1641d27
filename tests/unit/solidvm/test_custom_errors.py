"""Custom errors: declarations (file and contract level), revert E(...), throw E(...), named
arguments, the message text the platform prints, and their place in the xabi."""

from __future__ import annotations

import pytest

from app.node.solidvm.catching import hs_bytes, hs_string
from app.node.solidvm.errors import CompileError, CustomError, ExecutionError, ParseError

from .conftest import CallFn, DeployFn
from .helpers import ALICE, compile_src, values

REVERT = "custom user error: Reverting based on  Error Method:"
THROWN = "custom user error: Custom user error thrown"

SHOP = """
error OutOfStock(string item, uint wanted);

contract Base {
    error NotOwner(address caller);
}

contract Shop is Base {
    enum Size { Small, Large }
    error Weird(int delta, bool flag, Size size, bytes32 tag, bytes2 raw, Shop shop, uint[] list);
    error Empty();

    uint public sold;
    address owner;

    constructor() public { owner = msg.sender; }

    function buy(uint n) public {
        sold += n;
        if (n > 3) {
            revert OutOfStock("apple", n);
        }
    }
    function named(uint n) public {
        revert OutOfStock({wanted: n, item: "pear"});
    }
    function thrown(uint n) public {
        sold = 100;
        throw OutOfStock("plum", n);
    }
    function guarded() public {
        if (msg.sender != owner) {
            revert NotOwner(msg.sender);
        }
    }
    function weird() public {
        uint[] memory l = new uint[](2);
        bytes2 raw = bytes2(0x0102);
        revert Weird(-5, true, Size.Large, "hi", raw, this, l);
    }
    function empty() public { revert Empty(); }
    function text(string s) public { revert OutOfStock(s, 1); }
}
"""


def _fail(call: CallFn, addr: str, method: str, args: dict[str, object] | None = None) -> str:
    with pytest.raises(ExecutionError) as info:
        call(addr, method, args or {})
    assert info.value.kind == "custom error"
    assert isinstance(info.value, CustomError)
    return info.value.message


@pytest.fixture
def shop(deploy: DeployFn) -> str:
    return str(deploy(SHOP, "Shop").address)


def test_revert_with_a_file_level_error(call: CallFn, shop: str) -> None:
    assert _fail(call, shop, "buy", {"n": 5}) == f'{REVERT} OutOfStock [BString "apple",BInteger 5]'
    # the failed transaction left no trace
    assert values(call(shop, "sold")) == ["0"]
    call(shop, "buy", {"n": 2})
    assert values(call(shop, "sold")) == ["2"]


def test_named_arguments_follow_the_declaration(call: CallFn, shop: str) -> None:
    assert (
        _fail(call, shop, "named", {"n": 9}) == f'{REVERT} OutOfStock [BString "pear",BInteger 9]'
    )


def test_throw_has_its_own_words(call: CallFn, shop: str) -> None:
    assert (
        _fail(call, shop, "thrown", {"n": 1}) == f'{THROWN} OutOfStock [BString "plum",BInteger 1]'
    )
    assert values(call(shop, "sold")) == ["0"]


def test_inherited_error_with_an_address(call: CallFn, shop: str) -> None:
    from .helpers import BOB

    with pytest.raises(CustomError) as info:
        call(shop, "guarded", {}, sender=BOB)
    assert info.value.message == f"{REVERT} NotOwner [BAddress {BOB}]"
    assert info.value.name == "NotOwner"
    call(shop, "guarded", {}, sender=ALICE)


def test_every_kind_of_value_prints_as_the_platform_does(call: CallFn, shop: str) -> None:
    msg = _fail(call, shop, "weird")
    assert msg == (
        f'{REVERT} Weird [BInteger (-5),BBool True,BEnumVal "Size" "Large" 1,'
        f'BString "hi",BBytes "\\SOH\\STX",BContract "Shop" {shop}]'
    )  # the literal prints as given (no conversion, as there); the array is left out


def test_decimals_and_text_bytes(deploy: DeployFn, call: CallFn) -> None:
    src = """
    contract C {
        error Odd(decimal d, bytes32 t, bytes32 raw);
        function f() public {
            bytes32 t = "abc";
            revert Odd(1.50, t, keccak256(abi.encodePacked(uint(1))));
        }
    }
    """
    addr = deploy(src, "C").address
    msg = _fail(call, addr, "f")
    assert msg.startswith(f'{REVERT} Odd [BDecimal "1.50",BString "abc",BBytes "')


def test_error_without_parameters(call: CallFn, shop: str) -> None:
    assert _fail(call, shop, "empty") == f"{REVERT} Empty []"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ('say "hi"', '"say \\"hi\\""'),
        ("a\\b", '"a\\\\b"'),
        ("line\nnext\ttab", '"line\\nnext\\ttab"'),
        ("é1", '"\\195\\169\\&1"'),
    ],
)
def test_strings_are_escaped_like_haskell(call: CallFn, shop: str, text: str, shown: str) -> None:
    assert (
        _fail(call, shop, "text", {"s": text})
        == f"{REVERT} OutOfStock [BString {shown},BInteger 1]"
    )


def test_haskell_show_escapes() -> None:
    assert hs_bytes("é1".encode()) == '"\\195\\169\\&1"'
    assert hs_bytes(b"\x0eH") == '"\\SO\\&H"'
    assert hs_bytes(b"\x00\x7f\x1b") == '"\\NUL\\DEL\\ESC"'
    assert hs_string("Größe") == '"Gr\\246\\223e"'


def test_errors_are_listed_among_the_xabi_types() -> None:
    xabi = compile_src(SHOP).contracts["Shop"].xabi
    types = xabi["types"]
    assert types["OutOfStock"] == {
        "tag": "Struct",
        "fields": [
            ["item", {"tag": "String", "dynamic": True, "atBytes": 0}],
            ["wanted", {"tag": "Int", "signed": False, "bytes": 32, "atBytes": 1}],
        ],
        "bytes": 0,
    }
    assert types["NotOwner"]["fields"][0][0] == "caller"
    assert types["Empty"] == {"tag": "Struct", "fields": [], "bytes": 0}
    assert types["Size"]["tag"] == "Enum"  # the contract's own types are still there
    assert "NotOwner" in compile_src(SHOP).contracts["Base"].xabi["types"]


@pytest.mark.parametrize(
    ("body", "column", "text"),
    [
        ("revert Nope(1);", 9, "error 'Nope' is not declared"),
        ("revert Two(1);", 9, "error 'Two' takes 2 arguments but 1 were given"),
        ('revert Two(1, "x", 3);', 9, "takes 2 arguments but 3 were given"),
        ('revert Two("x", "y");', 20, "type string is not implicitly convertible to uint256"),
        ("revert Two({a: 1, c: 2});", 9, "named arguments do not match"),
        ("throw Nope(1);", 9, "error 'Nope' is not declared"),
        ('throw Two({a: 1, b: "x", b: "y"});', 9, "named arguments do not match"),
    ],
)
def test_compile_errors(body: str, column: int, text: str) -> None:
    src = (
        "contract C {\n"
        "    error Two(uint a, string b);\n"
        "    function f() public {\n"
        f"        {body}\n"
        "    }\n"
        "}\n"
    )
    with pytest.raises(CompileError) as info:
        compile_src(src)
    assert text in info.value.message
    assert (info.value.line, info.value.column) == (4, column)


def test_throw_needs_an_error_call(deploy: DeployFn, call: CallFn) -> None:
    src = 'contract C { function f() public { throw "boom"; } }'
    addr = deploy(src, "C").address
    with pytest.raises(ExecutionError) as info:
        call(addr, "f")
    assert info.value.kind == "invalid arguments"
    assert info.value.message.startswith("invalid arguments: Invalid argument for throw.")


def test_bare_throw_is_a_parse_error() -> None:
    with pytest.raises(ParseError) as info:
        compile_src("contract C {\n  function f() public {\n    throw;\n  }\n}\n")
    assert (info.value.line, info.value.column) == (3, 10)
    assert "throw E(args)" in info.value.message


def test_revert_of_a_qualified_error(deploy: DeployFn, call: CallFn) -> None:
    src = """
    contract Errors { error Denied(uint code); }
    contract C { function f() public { revert Errors.Denied(7); } }
    """
    addr = deploy(src, "C").address
    with pytest.raises(CustomError) as info:
        call(addr, "f")
    assert info.value.message == f"{REVERT} Denied [BInteger 7]"
