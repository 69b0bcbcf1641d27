"""Reading a transaction's state changes from what nodes give: the sandbox's ``stateDiff`` text
and Cirrus collection-table rows."""

from __future__ import annotations

import json

from app.client.state_diff import (
    NOT_KEPT,
    collection_changes,
    collection_vars,
    entry_label,
    key_text,
    node_state_diff,
)

COIN = "00000000000000000000000000000000000000c0"
ALICE = "7ddde3f5ab66332c9eb72d5f7c34ca8781d36ddc"


def result(changes: list[dict[str, object]]) -> dict[str, str]:
    body = {"covers": "scalars and mapping entries", "skips": "arrays", "changes": changes}
    return {"stateDiff": json.dumps(body)}


def test_keys_are_written_as_in_source() -> None:
    assert key_text(ALICE) == ALICE
    assert key_text(7) == "7"
    assert key_text(True) == "true"
    assert key_text("bob") == '"bob"'
    assert entry_label("allowance", [ALICE, "x"]) == f'allowance[{ALICE}]["x"]'
    assert entry_label("count", []) == "count"


def test_the_sandbox_diff_gives_old_and_new_and_its_scope() -> None:
    got = node_state_diff(
        result(
            [
                {"address": COIN, "variable": "total", "before": 1, "after": 2},
                {"address": COIN, "variable": "balances", "key": ALICE, "before": 0, "after": 5},
                {"address": "ab" * 20, "variable": "n", "before": None, "after": 1},
            ]
        ),
        "0x" + COIN.upper(),
    )
    assert got is not None
    changes, scope = got
    assert changes == [
        ("total", 1, 2),
        (f"balances[{ALICE}]", 0, 5),
        (f"{'ab' * 20}.n", None, 1),  # another contract's change names it
    ]
    assert scope == (
        "Compared, from the node's transaction result: scalars and mapping entries. "
        "Not compared: arrays."
    )
    assert node_state_diff(result([]), COIN) == ([], scope)


def test_no_diff_where_a_node_gives_none() -> None:
    for tx_result in (None, {}, {"stateDiff": ""}, {"stateDiff": "0xabc"}, {"stateDiff": "[1]"}):
        assert node_state_diff(tx_result, COIN) is None


def test_collection_rows_give_new_values_only() -> None:
    rows = [
        {"address": COIN, "transaction_hash": "h", "key": "b", "key2": 2, "value": 3},
        {"address": COIN, "transaction_hash": "h", "key2": 1, "key": "a", "value": {"x": "1"}},
    ]
    assert collection_changes("grid", rows) == [
        ('grid["a"][1]', NOT_KEPT, {"x": "1"}),
        ('grid["b"][2]', NOT_KEPT, 3),
    ]


def test_collection_variables_from_the_xabi() -> None:
    xabi = {
        "vars": {
            "n": {"tag": "Int"},
            "m": {"tag": "Mapping"},
            "a": {"tag": "Array"},
            "k": {"tag": "Mapping", "constant": True},
        }
    }
    assert collection_vars(xabi) == ["m", "a"]
    assert collection_vars(None) == [] and collection_vars({"vars": []}) == []


def test_omitted_changes_are_counted_in_the_scope() -> None:
    body = {"covers": "c", "skips": "s", "changes": [], "omitted": 1200}
    got = node_state_diff({"stateDiff": json.dumps(body)}, COIN)
    assert got is not None and got[1].endswith(
        "1,200 further changes are not listed (the node lists 0)."
    )
