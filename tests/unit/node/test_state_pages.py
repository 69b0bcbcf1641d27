"""app.node.state_pages against the encoding of the whole mapping it replaces: a page, or the
length, of a mapping equals the slice of ``encode_value`` of the committed copy, whatever the
values (defaults anywhere, scalars, nested containers), the offset and the writes of a block
that is not committed yet."""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.node.jsonenc import compact_json, compact_json_nested_in_pieces
from app.node.ledger.readview import CommittedView
from app.node.solidvm.abi import encode_value
from app.node.solidvm.history import History
from app.node.solidvm.runtime import MISSING
from app.node.solidvm.types import AddressType, IntType, MappingType, StringType
from app.node.solidvm.values import Address, MappingValue
from app.node.solidvm.world import World
from app.node.state_pages import (
    STRIDE,
    Budget,
    OverBudget,
    mapping_entries,
    mapping_length,
    positions,
)

UINT = IntType(False)


def view(history: History | None = None, pinned: int = 1) -> CommittedView:
    """A view of a world without accounts: the functions under test read only ``m``."""
    return CommittedView(World(), {}, history, pinned)


def expected(v: CommittedView, m: MappingValue, offset: int, count: int | None) -> list[Any]:
    whole = encode_value(v.copy(m), m.mtype)
    items = list(whole.items())
    return items[offset : None if count is None else offset + count]


def scalars(n: int, seed: int) -> MappingValue:
    rnd = random.Random(seed)
    m = MappingValue(MappingType(AddressType(), UINT))
    for i in range(n):  # runs of defaults, lone defaults and values
        m[Address(i + 1)] = 0 if rnd.random() < (0.9 if (i // 3000) % 2 else 0.1) else i
    return m


@pytest.mark.parametrize("offset", [0, 1, 37, 1023, 1024, 2500, 9000, 11_990, 20_000])
@pytest.mark.parametrize("count", [None, 0, 1, 50, 3000])
def test_pages_of_scalars_equal_the_whole_encoding_sliced(offset: int, count: int | None) -> None:
    m = scalars(12_000, 1)
    v = view()
    got = mapping_entries(v, m, m.mtype, offset, count, Budget(None))
    assert list(got.items()) == expected(v, m, offset, count)


def test_length_counts_what_the_encoding_shows() -> None:
    m = scalars(12_000, 2)
    v = view()
    assert mapping_length(v, m, Budget(None)) == len(encode_value(v.copy(m), m.mtype))


def test_strings_and_nested_mappings() -> None:
    inner_t = MappingType(UINT, StringType())
    m = MappingValue(MappingType(UINT, inner_t))
    for i in range(3000):
        inner = MappingValue(inner_t)
        for j in range(i % 4):
            inner[j] = "" if (i + j) % 3 == 0 else f"s{i}.{j}"
        m[i] = inner
    v = view()
    for offset in (0, 5, 1500, 2999):
        got = mapping_entries(v, m, m.mtype, offset, 40, Budget(None))
        assert list(got.items()) == expected(v, m, offset, 40)
    assert mapping_length(v, m, Budget(None)) == len(encode_value(v.copy(m), m.mtype))


def test_a_block_not_yet_committed_is_not_seen() -> None:
    m = scalars(5000, 3)
    h = History()
    v = view(h, pinned=1)
    before = expected(v, m, 0, None)
    h.block = 2  # block 2 runs: it changes, removes and adds entries (records first)
    for k in list(m)[:10]:
        h.note(m, k, m[k])
        m[k] = 777
    k = next(iter(m))
    h.note(m, Address(10**9), MISSING)
    m[Address(10**9)] = 5
    assert v.items(m)[k] != 777
    for offset, count in ((0, 50), (3, 20), (1000, 50), (0, None)):
        got = mapping_entries(v, m, m.mtype, offset, count, Budget(None))
        assert list(got.items()) == before[offset : None if count is None else offset + count]
    assert mapping_length(v, m, Budget(None)) == len(before)


def test_a_small_budget_stops_a_large_read() -> None:
    m = scalars(12_000, 4)
    v = view()
    assert len(mapping_entries(v, m, m.mtype, 0, 50, Budget(2000))) == 50
    with pytest.raises(OverBudget):
        mapping_entries(v, m, m.mtype, 9000, 50, Budget(2000))
    with pytest.raises(OverBudget):
        mapping_length(v, m, Budget(2000))


def test_a_state_encoded_in_pieces_is_the_same_bytes() -> None:
    rnd = random.Random(5)
    state: dict[str, Any] = {
        "balances": {format(i, "040x"): str(rnd.randrange(10**20)) for i in range(3000)},
        "names": [f'n\u00e9{i}"\\' for i in range(700)],
        "owner": "x" * 40,
        "nested": {"a": {str(i): {"b": list(range(i % 5))} for i in range(600)}, "z": []},
        "empty": {},
    }
    for piece in (1, 7, 256, 10_000):
        assert compact_json_nested_in_pieces(state, piece) == compact_json(state)
    assert compact_json_nested_in_pieces([state, 1], 16) == compact_json([state, 1])


# ---------------------------------------------------------------- positions (a deep page)


@pytest.mark.parametrize("seed", [5, 6])
def test_deep_pages_through_positions_equal_the_encoding(seed: int) -> None:
    """With a history (the node serving), pages at offsets past ``STRIDE`` start from kept
    positions: the same entries, defaults anywhere (runs of them, none in a chunk)."""
    m = scalars(30_000, seed)
    for i in range(20_000, 24_000):  # a run without defaults: marks found by arithmetic
        m[Address(i + 1)] = i + 1
    v = view(History(), pinned=1)
    for offset in (STRIDE - 1, STRIDE, STRIDE + 1, 5_000, 9_999, 14_321, 17_000, 18_500):
        for count in (1, 50, 3000, None):
            got = mapping_entries(v, m, m.mtype, offset, count, Budget(None))
            assert list(got.items()) == expected(v, m, offset, count), (offset, count)
    shown = len(expected(v, m, 0, None))
    assert mapping_length(v, m, Budget(None)) == shown
    assert mapping_entries(v, m, m.mtype, shown, 50, Budget(None)) == {}
    assert mapping_entries(v, m, m.mtype, shown + 10**6, 50, Budget(None)) == {}


def test_deep_pages_of_nested_mappings() -> None:
    inner_t = MappingType(UINT, StringType())
    m = MappingValue(MappingType(UINT, inner_t))
    for i in range(6000):
        inner = MappingValue(inner_t)
        for j in range(i % 3):
            inner[j] = "" if (i + j) % 4 == 0 else f"s{i}.{j}"
        m[i] = inner
    v = view(History(), pinned=1)
    for offset in (1024, 2047, 3000, 3900):
        got = mapping_entries(v, m, m.mtype, offset, 40, Budget(None))
        assert list(got.items()) == expected(v, m, offset, 40)
    assert mapping_length(v, m, Budget(None)) == len(encode_value(v.copy(m), m.mtype))


def test_positions_are_kept_per_block_and_a_later_block_is_not_seen() -> None:
    """Readers pinned at one block share its positions (a deep page is then a walk of at most
    ``STRIDE`` entries, which fits the event loop's budget); a block running meanwhile changes
    nothing they see; readers pinned at the next block get positions of their own."""
    m = scalars(20_000, 7)
    h = History()
    v1 = view(h, pinned=1)
    before = expected(v1, m, 0, None)
    with pytest.raises(OverBudget):  # the first deep read makes them: not on the loop
        mapping_entries(v1, m, m.mtype, 15_000, 50, Budget(2000))
    first = positions(v1, m, Budget(None))
    assert positions(view(h, pinned=1), m, Budget(2000)) is first  # kept: no budget spent
    got = mapping_entries(view(h, pinned=1), m, m.mtype, 15_000, 50, Budget(2000))
    assert list(got.items()) == before[15_000:15_050]
    h.block = 2  # block 2 runs: it zeroes entries before the page and adds one
    keys = [k for k, x in m.items() if x][:700]
    for k in keys:
        h.note(m, k, m[k])
        m[k] = 0
    h.note(m, Address(10**9), MISSING)
    m[Address(10**9)] = 5
    got = mapping_entries(v1, m, m.mtype, 15_000, 50, Budget(2000))
    assert list(got.items()) == before[15_000:15_050]
    for offset in (0, 3, 1000):  # first pages read the kept copy too
        got = mapping_entries(v1, m, m.mtype, offset, 50, Budget(None))
        assert list(got.items()) == before[offset : offset + 50]
    assert mapping_length(v1, m, Budget(None)) == len(before)
    v2 = view(h, pinned=2)  # block 2 committed
    assert positions(v2, m, Budget(None)) is not first
    after = expected(v2, m, 0, None)
    assert len(after) == len(before) - 700 + 1
    got = mapping_entries(v2, m, m.mtype, 15_000, 50, Budget(None))
    assert list(got.items()) == after[15_000:15_050]
    assert mapping_length(v2, m, Budget(None)) == len(after)
