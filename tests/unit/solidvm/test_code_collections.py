"""A source given as a JSON code collection (``{file: text}`` or ``[[file, text], ...]``), as
the platform's ``codeCollectionFromSource`` reads every source: to ``create``/``create2`` at
run time (its governance contracts create contracts from such collections) and to uploads."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.node.solidvm import compile_source
from app.node.solidvm.compile import code_collection

from .conftest import CallFn, DeployFn

FILES = {
    "Part.sol": "contract Part { uint public n = 3; }",
    "Whole.sol": 'import "Part.sol";\ncontract Whole { Part public p; string public tag;\n'
    "  constructor(string t) { tag = t; p = new Part(); } }",
}

FACTORY = """
contract Factory {
    address public made;
    function make(string src, string t) public returns (address) {
        made = create("Whole", src, t);
        return made;
    }
    function partOf() public returns (uint) {
        Whole w = Whole(made);
        return w.p().n();
    }
}
contract Whole { Part public p; string public tag; constructor(string t) {} }
contract Part { uint public n; }
"""


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(FILES),
        json.dumps([[k, v] for k, v in reversed(FILES.items())]),
    ],
    ids=["object", "pairs"],
)
def test_create_compiles_a_json_code_collection(
    text: str, deploy: DeployFn, call: CallFn, world: Any
) -> None:
    addr = deploy(FACTORY, "Factory").address
    call(addr, "make", {"src": text, "t": "hello"})
    made = world.state(addr)["made"]
    assert world.state(made)["tag"] == "hello"
    assert call(addr, "partOf").values == ["3"]


def test_an_upload_given_as_json_text_is_a_collection_in_file_name_order() -> None:
    unit = compile_source(json.dumps({"b.sol": "contract B {}", "a.sol": "contract A {}"}))
    assert unit.names == ["A", "B"]


@pytest.mark.parametrize(
    "text",
    [
        "contract C {}",
        "  [not json",
        '{"a.sol": 1}',  # not a map of texts: read as source (and rejected by the parser)
        "[]",
    ],
)
def test_other_texts_stay_one_source(text: str) -> None:
    assert code_collection(text) == text
