"""Many rows in one SQLite statement: an ``INSERT`` of many rows as multi-row ``VALUES``.

``executemany`` runs one SQLite step per row, and CPython lets go of the interpreter around
each step. While another thread runs Python (the block producer, an event loop, a writer),
taking it back waits for that thread's switch interval: 1,000 index rows took 250 ms of wall
time and 6 ms of CPU that way, against 5 ms and 1.5 ms as one statement, and the node's
connection lock was held all along (a batch's ``Pending`` rows: ~12 ms per 100 where the CPU
was ~1 ms, the producer waiting to commit meanwhile). One statement of many rows steps once
per chunk, with the same per-row semantics: its rows are inserted in order, each with the
statement's conflict clause. A chunk holds as many rows as the parameter bound allows, or a
power of 4: a few statement texts per table whatever the count, which the connection's
statement cache keeps compiled (a 25-row INSERT took ~48 us to compile and ~21 us to run,
and one text per count compiled the statements of every block or drain of a new size again:
blocks of 50-150 transfers, callgrind, 3.6 % fewer instructions per transfer).

:func:`insert_many` (and :func:`insert_rows`, for a list) takes the statement
``executemany`` would: ``INSERT ... VALUES (?, ...)`` with any literals in the group, and a
tail without parameters such as ``ON CONFLICT ... DO UPDATE SET x = excluded.x``. Any other
statement, or rows that are not sequences of the group's length, go to ``executemany``.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import islice
from typing import Any

# parameters per statement: SQLite's lowest default bound (999 before 3.32; 32,766 since)
MAX_PARAMS = 999
_INSERT = re.compile(r"^(\s*INSERT\b.*?\bVALUES\s*)(\([^()]*\))([^?]*)$", re.I | re.S)
_QUOTED = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"")


@lru_cache(maxsize=256)
def _plan(sql: str) -> tuple[str, str, str, int] | None:
    """(head, the row's group, tail, parameters per row), or None when ``sql`` is not an
    ``INSERT ... VALUES (...)`` of positional parameters."""
    m = _INSERT.match(sql)
    if m is None:
        return None
    head, group, tail = m.groups()
    n = _QUOTED.sub("", group).count("?")
    if n == 0 or ":" in group or "$" in group or "@" in group:  # (named parameters)
        return None
    return head, group, tail, n


@lru_cache(maxsize=512)
def _statement(sql: str, rows: int) -> str:
    plan = _plan(sql)
    assert plan is not None
    head, group, tail, _ = plan
    return f"{head}{','.join([group] * rows)}{tail}"


def insert_rows(db: sqlite3.Connection, sql: str, rows: Sequence[Any]) -> bool:
    """Run ``executemany(sql, rows)`` as statements of many rows each; False (nothing done)
    when ``sql`` or ``rows`` is not of the shape that allows it."""
    plan = _plan(sql)
    if plan is None:
        return False
    n = plan[3]
    for r in rows:
        if not isinstance(r, tuple | list) or len(r) != n:
            return False  # (executemany says what is wrong with it)
    for part in _chunks(rows, max(1, MAX_PARAMS // n)):
        db.execute(_statement(sql, len(part)), [v for r in part for v in r])
    return True


def _chunks(rows: Sequence[Any], per: int) -> Iterator[Sequence[Any]]:
    """``rows`` a statement's worth at a time, in order: ``per`` rows, or the largest power
    of 4 not above the rows left (a few sizes, so a few statement texts)."""
    i, left = 0, len(rows)
    while left:
        size = per if left >= per else 4 ** ((left.bit_length() - 1) // 2)
        yield rows[i : i + size]
        i += size
        left -= size


def insert_many(db: sqlite3.Connection, sql: str, rows: Iterable[Any]) -> sqlite3.Cursor:
    """``executemany(sql, rows)``, many rows per statement where :func:`insert_rows` can:
    ``rows`` read a statement's worth at a time (a long iterator is never held whole), a
    piece of another shape given to ``sqlite3.Connection.executemany`` as it is. Any other
    statement goes to ``executemany`` whole, and its cursor is returned (else a new one)."""
    plan = _plan(sql)
    if plan is None:
        return sqlite3.Connection.executemany(db, sql, rows)
    per = max(1, MAX_PARAMS // plan[3])
    it = iter(rows)
    while part := list(islice(it, per)):
        if not insert_rows(db, sql, part):
            sqlite3.Connection.executemany(db, sql, part)
    return db.cursor()


UPDATE_FROM = sqlite3.sqlite_version_info >= (3, 33)  # UPDATE ... FROM: SQLite 3.33 (2020)


@lru_cache(maxsize=256)
def _update_statement(table: str, columns: tuple[str, ...], key: str, rows: int) -> str:
    n = len(columns) + 1
    group = "(" + ", ".join("?" * n) + ")"
    sets = ", ".join(f"{c} = v.column{i}" for i, c in enumerate(columns, 1))
    return (
        f"UPDATE {table} SET {sets} FROM (VALUES {','.join([group] * rows)}) AS v "
        f"WHERE {table}.{key} = v.column{n}"
    )


def update_rows(
    db: sqlite3.Connection,
    table: str,
    columns: tuple[str, ...],
    key: str,
    rows: Sequence[Sequence[Any]],
) -> None:
    """``UPDATE table SET columns... WHERE key = ?`` for each of ``rows`` (the new values,
    then the key), as statements of many rows (``UPDATE ... FROM (VALUES ...)``, SQLite's
    join looks each row up by ``key``'s index). The keys must differ from each other (one
    row's values per key). Older SQLite: one step per row, as ``executemany``."""
    n = len(columns) + 1
    if not UPDATE_FROM:
        sets = ", ".join(f"{c} = ?" for c in columns)
        db.executemany(f"UPDATE {table} SET {sets} WHERE {key} = ?", rows)
        return
    if any(len(r) != n for r in rows):
        raise sqlite3.ProgrammingError(f"each row of {table}'s update needs {n} values")
    for part in _chunks(rows, max(1, MAX_PARAMS // n)):
        statement = _update_statement(table, columns, key, len(part))
        db.execute(statement, [v for r in part for v in r])
