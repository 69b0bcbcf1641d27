"""``a.code(name)`` prints declarations back as the platform does: from the syntax tree its
optimiser left (literals folded, ``x += y`` as ``x = x + y``, ``if (true)`` opened, what follows
``revert`` dropped), in its printer's fixed layout, with what bases and `using` libraries lend."""

from __future__ import annotations

from typing import Protocol

import pytest

from .conftest import CallFn, DeployFn


class LookFn(Protocol):
    def __call__(self, src: str, contract: str, name: str) -> str: ...


LOOK = "  function look(string n) public view returns (string) { return account(this).code(n); }\n"

SHOP = (
    """contract Base {
  uint internal baseCount = 2 * 3;
  uint private hidden;
  event Moved(address indexed who, uint amount);
  function helper(uint a) public pure returns (uint) { return a + 1; }
  function secret() private {}
}
contract Shop is Base {
  uint constant FEE = 0x10;
  string public title = "a" + "b";
  enum Size { S, M }
  struct Item { uint price; string name; }
  modifier only(uint n) { require(n > 0, "n"); _; }
  constructor() { baseCount += 1; }
  function price(uint q) public view only(q) returns (uint total) {
    total = (q + 1) * FEE;
    if (true) { total++; }
    return total;
    total = 0;
  }
  function pick(bool b) external pure returns (uint) { return b ? 1 : 2; }
  function pick(uint n) external pure returns (uint) { return n; }
"""
    + LOOK
    + "}\n"
)

PRICE = (
    "function price (uint q) view public modifiers only(q) returns (uint total) {\n"
    "    total = q + 1 * FEE;\n"  # the printer drops parentheses
    "    total++;\n"  # if (true) { ... } is its body
    "    return total;\n"
    "    total = 0;\n"  # `return x;` keeps what follows (only `return;` drops it)
    "    }"
)
# an overload pair: the second is printed without `function pick`
PICK = (
    "function pick (bool b) pure external returns (uint ) {\n    return b?1:2;\n    }\n"
    "(uint n) pure external returns (uint ) {\n    return n;\n    }\n"
)
HELPER = "function helper (uint a) pure public returns (uint ) {\n    return a + 1;\n    }"
LOOK_TEXT = (
    "function look (string n) view public returns (string ) {\n"
    "    return account(this).code(n);\n    }"
)


@pytest.fixture
def look(deploy: DeployFn, call: CallFn) -> LookFn:
    def _look(src: str, contract: str, name: str) -> str:
        addr = deploy(src, contract).address
        (text,) = call(addr, "look", {"n": name}).values
        return str(text)

    return _look


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("price", PRICE + "\n"),
        ("pick", PICK + "\n"),
        ("baseCount", "uint internal baseCount = 6;\n"),  # a base's variable, folded
        ("hidden", "uint private hidden;\n"),  # a base's private variable is merged too
        ("helper", HELPER + "\n"),  # a base's function
        ("secret", ""),  # ... but not a private one
        ("Moved", "event Moved(\n    address who,\n    uint amount);\n"),
        ("FEE", "uint constant FEE = 16;\n"),
        ("title", 'string public title = "ab";\n'),
        ("Item", "struct Item {\n  uint price;\n  string name;\n}\n"),
        ("Size", "enum Size {\n  S,\n  M\n}\n"),
        ("only", 'modifier only(uint n) {\n        require(n > 0,"n");\n    _;\n    }\n'),
    ],
)
def test_a_declaration_is_printed_in_the_platform_layout(
    look: LookFn, name: str, text: str
) -> None:
    assert look(SHOP, "Shop", name) == text


def test_the_contract_lists_its_kinds_sorted_by_name(look: LookFn) -> None:
    # constants, variables, enums, structs, events, constructor, functions, modifiers: each
    # kind's entries joined by a newline and two spaces, the kinds themselves not separated
    expected = (
        "contract Shop is Base {\n"
        "  uint constant FEE = 16;uint internal baseCount = 6;\n  uint private hidden;\n"
        '  string public title = "ab";enum Size {\n  S,\n  M\n}'
        "struct Item {\n  uint price;\n  string name;\n}"
        "event Moved(\n    address who,\n    uint amount);\n"
        "  constructor () public {\n    baseCount = baseCount + 1;\n    }"
        f"{HELPER}\n  {LOOK_TEXT}\n  {PICK}\n  {PRICE}"
        'modifier only(uint n) {\n        require(n > 0,"n");\n    _;\n    }\n'
        "}\n"
    )
    assert look(SHOP, "Shop", "") == expected
    assert look(SHOP, "Shop", "Shop") == expected


FLOW = (
    """library Tally {
  struct Entry { uint n; }
  function bump(uint x) internal pure returns (uint) { return x + 1; }
}
contract Flow {
  using Tally for uint;
  uint[3] slots;
  bytes32 tag = hex"0A0b";
  decimal ratio = 7 / 2;
  event Note(string s) anonymous;
  function walk(uint n) public returns (uint s) {
    for (uint i = 0; i < n; i++) {
      if (i % 2 == 0) { s += i; } else { s -= 1; }
    }
    while (false) { s = 99; }
    do { s = s * 2; } while (false);
    (uint a, , uint b) = (1, 2, 3);
    delete slots[1];
    s = -a + b - 0x1 + (2 + 3) * 4;
    emit Note("done");
    revert("never");
    s = 0;
  }
  function one(uint a) public virtual returns (uint) { return a; }
  function two(uint a) public {}
  function two(bool b) public {}
  function two(string c) public {}
"""
    + LOOK
    + "}\n"
)

WALK = (
    "function walk (uint n) public returns (uint s) {\n"
    "    for (uint i = 0; i < n; i++) {\n"
    "        if (i % 2 == 0) {\n      s = s + i;\n        \n      } else {\n"
    "      s = s - 1;\n        \n      }\n      }\n"
    "    s = s * 2;\n"  # while (false) is gone, do {...} while (false) is its body
    "    (uint a, , uint b) = (1, 2, 3);\n"
    "    deleteslots[1];\n"
    "    s = -a + b - 1 + 20;\n"
    '    emit Note("done");\n'
    '    revert ("never");\n    \n'  # and nothing after it
    "    }\n"
)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("walk", WALK),
        ("one", "function one (uint a) public virtual \n"),  # the printer stops at `virtual`
        (
            "two",  # three or more of one name: each printed with its name
            "function two (uint a) public {\n    }\nfunction two (bool b) public {\n    }\n"
            "function two (string c) public {\n    }\n\n",
        ),
        ("slots", "uint[3] slots;\n"),
        ("tag", 'bytes32 tag = hex"0A0b";\n'),
        ("ratio", "decimal ratio = 4;\n"),  # a decimal's 7 / 2, rounded half to even
        ("Note", "event Note(\n    string s)anonymous;\n"),
        ("Entry", "struct Entry {\n  uint n;\n}\n"),  # lent by the library it is using
        (
            "bump",
            "function bump (uint x) pure internal returns (uint ) {\n    return x + 1;\n    }\n",
        ),
    ],
)
def test_statements_and_quirks(look: LookFn, name: str, text: str) -> None:
    assert look(FLOW, "Flow", name) == text
