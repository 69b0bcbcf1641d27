"""Where the seed tables' row writes go: to the database now, or behind the chain.

With STRATO 16's rows written behind the chain (``behind16.py``), the seed's contract,
collection and event rows go there too: sealing a block computes them (values encoded, nothing
a later block changes) and takes the statements that write them as the block's jobs
(:attr:`SeedWrites.capture`), so that the block commits without them. A drain runs many
blocks' jobs in one transaction, and within it the rows of consecutive statements of one
table run as one ``executemany`` (:meth:`SeedWrites.begin_batch`): a sequential client's 250
blocks upsert the token's row and insert its ``Transfer`` rows in two statements instead of
500. Statements of one table keep their order (an entry deleted, then set again in a later
block, stays set); tables do not depend on each other's rows, so their order may change.

Table definitions (``ensure_table``) and the history rows (values of each transaction, which
a rebuild could not make again) are not deferred: they are committed with the block.
"""

from __future__ import annotations

import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

Job = Callable[[], None]
Rows = Sequence[Sequence[Any]]
Owner = tuple[str, str]  # (chain, address hex) of the contract whose rows a job writes


class OwnedJob(ABC):
    """A job of a sealed block that writes the seed's rows of known contracts: a drain that
    fails writes its block again contract by contract (:meth:`run_for`). Abstract: its two
    kinds are :class:`SeedJob` and :class:`SeedLater`."""

    __slots__ = ("writes",)

    def __init__(self, writes: SeedWrites) -> None:
        self.writes = writes

    @abstractmethod
    def __call__(self) -> None:
        """Write the job's rows (in a drain: merged with the batch's)."""

    @abstractmethod
    def owners(self) -> list[Owner]:
        """The owner of each row the job writes."""

    @abstractmethod
    def run_for(self, owner: Owner) -> None:
        """Write the rows of ``owner`` only, now."""


class SeedJob(OwnedJob):
    """Rows of one contract or more, written by one statement."""

    __slots__ = ("_owners", "rows", "sql", "table")

    def __init__(
        self,
        writes: SeedWrites,
        table: str,
        sql: str,
        rows: Rows,
        owners: Owner | Callable[[], list[Owner]],
    ) -> None:
        super().__init__(writes)
        self.table = table
        self.sql = sql
        self.rows = rows
        self._owners = owners  # one for every row, or each row's (worked out on a failure)

    def __call__(self) -> None:
        self.writes.run(self.table, self.sql, self.rows)

    def owners(self) -> list[Owner]:
        """Each row's owner (in the order of the rows)."""
        o = self._owners
        return [o] * len(self.rows) if isinstance(o, tuple) else o()

    def run_for(self, owner: Owner) -> None:
        rows = [r for r, o in zip(self.rows, self.owners(), strict=True) if o == owner]
        if rows:
            self.writes.db.executemany(self.sql, rows)


class SeedLater(OwnedJob):
    """A write of one contract's rows that reads the table first (a collection's entries
    under keys of more than one level): after every statement taken before it."""

    __slots__ = ("owner", "write")

    def __init__(self, writes: SeedWrites, write: Job, owner: Owner) -> None:
        super().__init__(writes)
        self.write = write
        self.owner = owner

    def __call__(self) -> None:
        self.writes.flush()
        self.write()

    def owners(self) -> list[Owner]:
        return [self.owner]

    def run_for(self, owner: Owner) -> None:
        if owner == self.owner:
            self.write()


class SeedWrites:
    """The seed tables' row statements: run now, taken as a block's jobs, or batched."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        # while a block is sealed with rows behind the chain: that block's jobs (Behind16)
        self.capture: list[Job] | None = None
        # a drain's statements not run yet: table -> [(sql, rows)], runs of one statement
        # merged (see begin_batch); None: statements run at once
        self._runs: dict[str, list[tuple[str, list[Any]]]] | None = None

    # ------------------------------------------------------------ while sealing

    def executemany(
        self, table: str, sql: str, rows: Rows, owners: Owner | Callable[[], list[Owner]]
    ) -> None:
        """``sql`` over ``rows`` (of ``table``; ``owners``: see :class:`SeedJob`): now, or as
        a job of the block being sealed."""
        cap = self.capture
        if cap is None:
            self.db.executemany(sql, rows)
        else:
            cap.append(SeedJob(self, table, sql, rows, owners))

    def later(self, write: Job, owner: Owner) -> None:
        """``write`` (which reads the rows written before it): now, or as a job."""
        cap = self.capture
        if cap is None:
            write()
        else:
            cap.append(SeedLater(self, write, owner))

    # ------------------------------------------------------------ in a drain

    def begin_batch(self) -> None:
        """From here, statements wait to be merged (until :meth:`write_batch`)."""
        self._runs = {}

    def write_batch(self) -> None:
        """Run the merged statements (inside the drain's transaction)."""
        self.flush()

    def end_batch(self) -> None:
        """Statements run at once again; any not written are dropped (a failed batch,
        which the caller rolls back and writes again block by block)."""
        self._runs = None

    def run(self, table: str, sql: str, rows: Rows) -> None:
        """A job's statement: now, or merged into the batch's run of it."""
        runs = self._runs
        if runs is None:
            self.db.executemany(sql, rows)
            return
        mine = runs.setdefault(table, [])
        if mine and mine[-1][0] == sql:
            mine[-1][1].extend(rows)
        else:
            mine.append((sql, list(rows)))  # (a copy: a failed batch runs the job again)

    def flush(self) -> None:
        """Run the batch's statements so far (a read comes next)."""
        runs = self._runs
        if not runs:
            return
        self._runs = {}
        for mine in runs.values():
            for sql, rows in mine:
                self.db.executemany(sql, rows)
