"""CodeBook: compiled units by code hash, and the code deployed contracts run."""

from __future__ import annotations

from pathlib import Path

from app.node.config import NodeConfig
from app.node.ledger.codebook import CodeBook
from app.node.store import Store
from tests.unit.ledger_parts import COUNTER


def test_units_are_compiled_once_and_keyed_by_vm(tmp_path: Path) -> None:
    book = CodeBook(NodeConfig(data_dir=tmp_path))
    h, unit = book.unit("SolidVM", COUNTER)
    assert book.unit("SolidVM", COUNTER) == (h, unit)
    assert book.code_hash("EVM", COUNTER) != h
    assert "Counter" in unit.contracts


def test_kept_code_is_written_once_and_loads_again(tmp_path: Path) -> None:
    book = CodeBook(NodeConfig(data_dir=tmp_path))
    cdef = book.unit("SolidVM", COUNTER)[1].contracts["Counter"]
    h = book.keep(cdef)
    assert book.keep(cdef) == h
    new = book.take_new()
    assert new == [(h, "SolidVM", cdef.source)]
    assert book.take_new() == []  # written with one block only
    store = Store(tmp_path)
    with store.transaction() as db:
        db.executemany("INSERT INTO codes (code_hash, vm, source) VALUES (?, ?, ?)", new)
    again = CodeBook(NodeConfig(data_dir=tmp_path))
    assert again.source(h) == ""
    again.load(store)
    assert again.source(h) == cdef.source
    assert again.cdef(h, "Counter").name == "Counter"
    store.close()
