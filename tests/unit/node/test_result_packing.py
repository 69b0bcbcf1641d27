"""The stored form of transaction results gives back exactly what the node answered."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.node.ledger.packing import pack_result, unpack_result
from app.node.state_diff import COVERS, SKIPS

HASH = "ab" * 32
BLOCK = "cd" * 32


def _result(**tx: Any) -> dict[str, Any]:
    tr: dict[str, Any] = {
        "deletedStorage": "",
        "status": "success",
        "contractsDeleted": "",
        "gasUsed": format(21006, "064x"),
        "stateDiff": "",
        "time": 9.7e-05,
        "kind": "SolidVM",
        "chainId": None,
        "response": "",
        "blockHash": BLOCK,
        "transactionHash": HASH,
        "etherUsed": "0" * 64,
        "newStorage": "",
        "message": "Success!",
        "trace": "",
        "contractsCreated": "",
    }
    extra = tx.pop("extra", {})
    data = tx.pop("data", None)
    tr.update(tx)
    tr.update(extra)
    return {"status": "Success", "hash": HASH, "txResult": tr, "data": data}


def _diff(*changes: dict[str, Any], omitted: int = 0) -> str:
    out: dict[str, Any] = {"covers": COVERS, "skips": SKIPS, "changes": list(changes)}
    if omitted:
        out["omitted"] = omitted
    return json.dumps(out)


def _change(var: str, key: str | None, before: Any, after: Any, chain: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"address": "12" * 20, "chainId": chain, "variable": var}
    if key is not None:
        out["key"] = key
    out["before"] = before
    out["after"] = after
    return out


CASES = {
    "plain": _result(),
    "call": _result(
        response=json.dumps(["true", "7"], separators=(",", ":")).encode().hex(),
        data={"tag": "Call", "contents": ["true", "7"]},
        stateDiff=_diff(
            _change("balances", "aa" * 20, 5, 4),
            _change("total", None, "1.5", "2"),
            _change("m", "k", [1], {"x": "é"}, chain="ef" * 32),
            omitted=3,
        ),
    ),
    "failure": {
        **_result(
            status="failure: require",
            message="insufficient balance",
            chainId="ef" * 32,
            etherUsed="0" * 63 + "5",
            trace="a\nb",
            extra={"sourcePosition": {"name": "Token", "line": 3, "column": 5}},
        ),
        "status": "Failure",
    },
    "response differs from data": _result(response="00", data={"tag": "Call", "contents": []}),
    "odd gas text": _result(gasUsed="0x5208"),
    "foreign diff": _result(stateDiff='{"covers": "other", "changes": []}'),
    "diff not json": _result(stateDiff="not json"),
    "upload": _result(
        contractsCreated="34" * 20,
        data={"tag": "Upload", "contents": {"address": "34" * 20}},
        response="",
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_round_trip(name: str) -> None:
    res = CASES[name]
    text = pack_result(res, BLOCK)
    back = unpack_result(text, HASH, res["status"], BLOCK)
    assert json.dumps(back) == json.dumps(res)  # same keys, same order, same texts


def test_packed_is_much_smaller() -> None:
    res = CASES["call"]
    assert len(pack_result(res, BLOCK)) < len(json.dumps(res)) / 2


@pytest.mark.parametrize(
    "res",
    [
        {"status": "Discarded", "hash": HASH, "txResult": {"status": {"stage": "Queue"}}},
        {"status": "Success", "hash": HASH, "txResult": None, "data": None},
        _result(blockHash="ee" * 32),  # not this block's: kept whole
        _result(transactionHash="ff" * 32),
    ],
)
def test_other_shapes_are_kept_whole(res: dict[str, Any]) -> None:
    text = pack_result(res, BLOCK)
    assert json.loads(text) == res
    assert unpack_result(text, HASH, res["status"], BLOCK) == res


def test_rows_of_older_versions_read_as_they_are() -> None:
    res = CASES["call"]
    assert unpack_result(json.dumps(res), HASH, "Success", "") == res


@pytest.mark.parametrize("name", CASES)
def test_the_diff_object_packs_as_its_text_does(name: str) -> None:
    """The sealer hands over the object a stateDiff was dumped from: the same stored text."""
    res = CASES[name]
    text = res["txResult"]["stateDiff"]
    try:
        obj = json.loads(text) if text else None
    except ValueError:  # not JSON: no object made it
        obj = None
    assert pack_result(res, BLOCK, obj) == pack_result(res, BLOCK)


def test_a_diff_object_that_is_not_the_texts_cannot_change_what_is_stored() -> None:
    res = _result(stateDiff=_diff(_change("balances", "aa" * 20, "5", "4")))
    other = json.loads(_diff(_change("balances", "bb" * 20, "9", "8")))
    text = pack_result(res, BLOCK, other)
    back = unpack_result(text, HASH, res["status"], BLOCK)
    assert json.dumps(back) == json.dumps(res)


@pytest.mark.parametrize("name", CASES)
def test_the_text_dumped_from_the_diff_packs_as_a_checked_one(name: str) -> None:
    """Handed the very string json.dumps made of the diff (as the executor keeps it), packing
    leaves out its check of the round trip: what it stores is still what a checked packing
    stores, and reads back as the result."""
    res = CASES[name]
    text = res["txResult"]["stateDiff"]
    try:
        obj = json.loads(text) if text else None
    except ValueError:
        obj = None
    dumped = json.dumps(obj) if obj is not None else None
    if dumped is not None:
        assert dumped == text
        res = {**res, "txResult": {**res["txResult"], "stateDiff": dumped}}
    stored = pack_result(res, BLOCK, obj, dumped)
    assert stored == pack_result(res, BLOCK)
    back = unpack_result(stored, HASH, res["status"], BLOCK)
    assert json.dumps(back) == json.dumps(res)


@pytest.mark.parametrize(
    "diff",
    [
        {"skips": SKIPS, "covers": COVERS, "changes": []},  # not in the order unpacking writes
        {"covers": COVERS, "skips": SKIPS, "@": 1, "changes": []},  # the packed form's own key
        {"covers": COVERS, "skips": SKIPS, "changes": [{"address": "12" * 20, "x": 1}]},
        {"covers": COVERS, "skips": SKIPS, "changes": [_change("b", "aa" * 20, 1, 2)], "n": 2},
    ],
)
def test_a_dumped_diff_of_another_shape_reads_back_exactly(diff: dict[str, Any]) -> None:
    text = json.dumps(diff)
    res = _result(stateDiff=text)
    back = unpack_result(pack_result(res, BLOCK, diff, text), HASH, "Success", BLOCK)
    assert back["txResult"]["stateDiff"] == text


def test_a_text_that_is_not_the_dumped_one_is_checked() -> None:
    """Only the string object json.dumps returned skips the check: an equal text made
    elsewhere, handed with a diff object that is not its own, stores the text's own diff."""
    res = _result(stateDiff=_diff(_change("balances", "aa" * 20, "5", "4")))
    other = json.loads(_diff(_change("balances", "bb" * 20, "9", "8")))
    text = pack_result(res, BLOCK, other, json.dumps(other))
    back = unpack_result(text, HASH, res["status"], BLOCK)
    assert json.dumps(back) == json.dumps(res)
