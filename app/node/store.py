"""The node's durable storage: one SQLite database (WAL) under the data dir.

Everything the node knows lives here: users and sealed keys, compiled-code sources, contract
storage, balances, blocks, transactions with their results, and events. A block and all of its
effects are committed in one SQLite transaction, so after a crash the database always holds a
consistent prefix of the chain plus the transactions still waiting to run.

The schema is versioned; ``MIGRATIONS[i]`` brings version ``i`` to ``i + 1``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import orjson

from .jsonenc import ORJSON_OPTIONS, encode_in_pieces, heavy
from .perms import create_private_file, secure_data_dir
from .text import TextSafeConnection

DB_FILE = "node.sqlite3"

MIGRATIONS: list[str] = [
    # v1: the initial schema
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE users (
        name TEXT PRIMARY KEY,
        password_hash TEXT NOT NULL,
        org TEXT NOT NULL,
        unit TEXT NOT NULL DEFAULT '',
        email TEXT NOT NULL,
        wants_identity INTEGER NOT NULL DEFAULT 1,
        default_password INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL
    );
    CREATE TABLE keys (
        name TEXT PRIMARY KEY,
        address TEXT NOT NULL UNIQUE,
        pubkey TEXT NOT NULL,
        sealed BLOB NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE TABLE oauth_clients (
        client_id TEXT PRIMARY KEY,
        sealed_secret BLOB,
        subject TEXT
    );
    CREATE TABLE codes (
        code_hash TEXT PRIMARY KEY,
        vm TEXT NOT NULL,
        source TEXT NOT NULL
    );
    CREATE TABLE contracts (
        chain TEXT NOT NULL,
        address TEXT NOT NULL,
        name TEXT NOT NULL,
        code_hash TEXT NOT NULL,
        storage TEXT NOT NULL,
        creator TEXT NOT NULL,
        created_block INTEGER NOT NULL,
        created_tx TEXT NOT NULL,
        updated_block INTEGER NOT NULL,
        updated_tx TEXT NOT NULL,
        history TEXT NOT NULL DEFAULT '',
        org TEXT NOT NULL DEFAULT '',
        app TEXT NOT NULL DEFAULT '',
        tbl TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (chain, address)
    );
    CREATE INDEX contracts_by_name ON contracts (name);
    CREATE TABLE accounts (
        chain TEXT NOT NULL,
        address TEXT NOT NULL,
        balance TEXT NOT NULL,
        nonce INTEGER NOT NULL,
        PRIMARY KEY (chain, address)
    );
    CREATE TABLE blocks (
        number INTEGER PRIMARY KEY,
        hash TEXT NOT NULL UNIQUE,
        parent_hash TEXT NOT NULL,
        timestamp INTEGER NOT NULL,
        tx_count INTEGER NOT NULL,
        gas_used INTEGER NOT NULL
    );
    CREATE TABLE txs (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        hash TEXT NOT NULL UNIQUE,
        sender TEXT NOT NULL,
        username TEXT NOT NULL,
        type TEXT NOT NULL,
        request TEXT NOT NULL,
        status TEXT NOT NULL,
        result TEXT,
        block_number INTEGER,
        tx_index INTEGER,
        chain TEXT NOT NULL DEFAULT '',
        to_address TEXT,
        nonce INTEGER,
        submitted_at REAL NOT NULL
    );
    CREATE INDEX txs_pending ON txs (status) WHERE status = 'Pending';
    CREATE INDEX txs_by_block ON txs (block_number);
    CREATE INDEX txs_by_sender ON txs (sender);
    CREATE INDEX txs_by_to ON txs (to_address);
    CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        block_number INTEGER NOT NULL,
        tx_hash TEXT NOT NULL,
        chain TEXT NOT NULL,
        address TEXT NOT NULL,
        contract TEXT NOT NULL,
        name TEXT NOT NULL,
        args TEXT NOT NULL
    );
    CREATE INDEX events_by_name ON events (contract, name);
    CREATE TABLE chains (
        id TEXT PRIMARY KEY,
        label TEXT NOT NULL,
        parent TEXT NOT NULL,
        members TEXT NOT NULL,
        balances TEXT NOT NULL,
        metadata TEXT NOT NULL,
        creator TEXT NOT NULL,
        creation_block INTEGER NOT NULL,
        creation_tx TEXT NOT NULL,
        governance TEXT NOT NULL,
        code_hash TEXT NOT NULL
    );
    CREATE TABLE cirrus_tables (name TEXT PRIMARY KEY, kind TEXT NOT NULL, columns TEXT NOT NULL);
    CREATE TABLE apps (
        name TEXT PRIMARY KEY,
        definition TEXT NOT NULL,
        creator TEXT NOT NULL,
        address TEXT NOT NULL,
        realm TEXT NOT NULL,
        org TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    """,
    # v2: the entries of contracts' top-level mappings, one row each (ledger/entries.py): a
    # snapshot writes only the entries that changed. Rows are read back in rowid order (the
    # mapping's order). Contracts saved before keep their mappings inline in
    # ``contracts.storage`` until their next snapshot moves them here.
    """
    CREATE TABLE storage_vars (
        id INTEGER PRIMARY KEY,
        chain TEXT NOT NULL,
        address TEXT NOT NULL,
        name TEXT NOT NULL,
        UNIQUE (chain, address, name)
    );
    CREATE TABLE storage_entries (
        var INTEGER NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL
    );
    CREATE UNIQUE INDEX storage_entries_key ON storage_entries (var, key);
    """,
]


class Store:
    """A thin, typed wrapper over the node's SQLite database."""

    def __init__(self, data_dir: Path) -> None:
        secure_data_dir(data_dir)
        self.path = data_dir / DB_FILE
        create_private_file(self.path)
        self.db = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False, factory=TextSafeConnection
        )
        self.db.row_factory = sqlite3.Row
        # One connection, used by the event loop and by the OIDC endpoints' worker threads:
        # every use holds this lock so that no statement lands inside another's transaction.
        self.lock = threading.RLock()
        # what must stop writing before the connection closes (the trace writer's thread)
        self._before_close: list[Callable[[], None]] = []
        self.db.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: a commit survives the process being killed (it is in the WAL file);
        # only an OS crash can lose the last commits.
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.execute("PRAGMA busy_timeout=5000")
        # A block's Cirrus rows are written inside savepoints (a failure there rolls back only
        # them): every page first written under one is copied to the statement journal, which
        # past 64 KiB went to a temporary file, a write per page (~30 us per table a block
        # touched). In memory it is a copy. Cirrus queries run on their own connections.
        self.db.execute("PRAGMA temp_store=MEMORY")
        self._checkpointer: Checkpointer | None = None
        self.migrate()

    def checkpoint_in_background(self, on: bool = True) -> None:
        """Move the WAL checkpoints off the committing thread (``on``) or back onto it.

        SQLite checkpoints the WAL into the database inside the commit that crosses 1000
        pages, with an fsync: while blocks are produced that was one commit in about a dozen
        taking milliseconds instead of ~0.1 ms (most of the commit time). A thread of its own
        checkpoints instead. A commit is as durable as before (it is in the WAL when it
        returns); only where its pages are copied later changes.
        """
        if on and self._checkpointer is None:
            with self.lock:
                self.db.execute("PRAGMA wal_autocheckpoint=0")
                self.db.execute(f"PRAGMA journal_size_limit={Checkpointer.LIMIT}")
            self._checkpointer = Checkpointer(self.path, self.lock)
        elif not on and self._checkpointer is not None:
            self._checkpointer.stop()
            self._checkpointer = None
            with self.lock:
                self.db.execute("PRAGMA wal_autocheckpoint=1000")  # SQLite's default

    def before_close(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` first when the store closes: a writer thread of its own stops (and
        stores what it holds) before the connection it writes with is gone."""
        self._before_close.append(fn)

    def close(self) -> None:
        for fn in self._before_close:
            fn()
        self.checkpoint_in_background(False)
        self.db.close()

    @property
    def schema_version(self) -> int:
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except sqlite3.OperationalError:
            return 0
        return int(row[0]) if row else 0

    def migrate(self) -> None:
        version = self.schema_version
        if version > len(MIGRATIONS):
            raise RuntimeError(
                f"{self.path} has schema version {version}, newer than this program "
                f"({len(MIGRATIONS)}); upgrade Stratoscope"
            )
        for i in range(version, len(MIGRATIONS)):
            with self.transaction():
                for stmt in _split_sql(MIGRATIONS[i]):
                    self.db.execute(stmt)
                self.db.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                    (str(i + 1),),
                )

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")
            if self._checkpointer is not None:
                self._checkpointer.after_commit(self.db)

    # ------------------------------------------------------------ meta

    def get_meta(self, key: str) -> str | None:
        row = self.one("SELECT value FROM meta WHERE key=?", key)
        return str(row[0]) if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", key, value)

    # ------------------------------------------------------------ queries

    def one(self, sql: str, *args: Any) -> sqlite3.Row | None:
        with self.lock:
            row: sqlite3.Row | None = self.db.execute(sql, args).fetchone()
        return row

    def all(self, sql: str, *args: Any) -> list[sqlite3.Row]:
        with self.lock:
            return list(self.db.execute(sql, args).fetchall())

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        with self.lock:
            return self.db.execute(sql, args)


class Checkpointer:
    """Checkpoints a WAL database from a thread and a connection of its own.

    Every ``PERIOD`` seconds a PASSIVE checkpoint: it never waits for, nor blocks, the
    writer. But under a steady stream of commits it never finds the WAL idle, and the WAL
    only starts over once a checkpoint has copied all of it: past ``LIMIT`` bytes, once
    passes without it have copied all but the last frames (:meth:`step`), the checkpoint
    runs once more holding the store's ``lock`` (no commit of the node's connection in
    between), so that the next commit starts the WAL again
    (``journal_size_limit`` then cuts the file back to ``LIMIT``). That pause, a few
    milliseconds once per ``LIMIT`` bytes, replaces one inside every 1000-page commit.
    """

    PERIOD = 0.2
    LIMIT = 16 * 1024 * 1024
    BACKSTOP = 4  # x LIMIT: the committing thread checkpoints (see after_commit)
    BACKSTOP_EVERY = 64  # commits between two looks at the WAL's size
    UNLOCKED_PASSES = 4  # passes without the lock at most before the one holding it (step)

    def __init__(self, path: Path, lock: threading.RLock) -> None:
        self.path = path
        self.lock = lock
        self.wal = path.with_name(path.name + "-wal")
        self._commits = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="wal-checkpoint", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        background_priority()
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            while not self._stop.wait(self.PERIOD):
                try:
                    self.step(db)
                except (sqlite3.Error, OSError):  # busy, or closing: the next period tries again
                    continue
        finally:
            db.close()

    def step(self, db: sqlite3.Connection) -> None:
        """One period's checkpoint (``db``: the thread's connection).

        Every request that reads through the store's connection waits for the lock, so the
        pass holding it must find nothing new to copy. A passive pass copies the frames
        committed when it starts, and the lock is free only between transactions: a Cirrus
        read that drained 150 queued blocks committed ~20 MB while this thread waited for
        the lock, the locked pass then copied them all, 94 ms during which the loop waited
        in a key look-up (``/health`` max 86-117 ms). So once it holds the lock, a pass
        runs only if nothing was committed since the pass before it began
        (``PRAGMA data_version``); else the lock goes back and another pass without it
        copies what came (``UNLOCKED_PASSES`` tries, then the locked pass anyway)."""
        seen = self._version(db)
        self._passive(db)
        if self.wal.stat().st_size <= self.LIMIT:
            return
        for attempt in range(self.UNLOCKED_PASSES, 0, -1):
            with self.lock:
                if attempt == 1 or self._version(db) == seen:
                    self._passive(db)  # between two commits: this one copies the rest
                    return
            seen = self._version(db)
            self._passive(db)

    @staticmethod
    def _version(db: sqlite3.Connection) -> int:
        """Changes whenever another connection commits."""
        return int(db.execute("PRAGMA data_version").fetchone()[0])

    @staticmethod
    def _passive(db: sqlite3.Connection) -> tuple[int, int]:
        """A PASSIVE checkpoint: (frames in the WAL, frames of it copied)."""
        row = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(row[1]), int(row[2])

    def after_commit(self, db: sqlite3.Connection) -> None:
        """The backstop of a thread that gets no CPU: it runs at the lowest priority, and a
        machine that other processes keep busy leaves it next to none (beside two CPU burners
        the WAL grew past what was written). Every ``BACKSTOP_EVERY`` commits the committing
        thread, holding the store's lock, looks at the WAL, and past ``BACKSTOP`` x ``LIMIT``
        bytes checkpoints it itself (PASSIVE: it waits for no reader)."""
        self._commits += 1
        if self._commits % self.BACKSTOP_EVERY:
            return
        try:
            if self.wal.stat().st_size > self.BACKSTOP * self.LIMIT:
                db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except (sqlite3.Error, OSError):  # busy, or gone: the thread's next period tries
            return

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


BACKGROUND_NICE = 10


def background_priority() -> None:
    """The calling thread yields the CPU to the node's others (Linux, where a thread has a
    nice value of its own; elsewhere nothing). The checkpoints copy the WAL's pages in C, out
    of the interpreter's lock, as fast as a core allows: on a 2-core machine they took the
    core a sequential request's loop or producer was about to run on (its p99: 3.55 -> 3.19
    ms, benchmarks/node_bench.py's Python client, 6 interleaved rounds). Nice 10 (a tenth of
    a normal thread's share), not 19 (1.5 %): beside CPU-bound processes a thread at 19 that
    was preempted in a checkpoint held SQLite's checkpoint lock for most of a second, and the
    committing thread's backstop (Checkpointer.after_commit) found it busy while the WAL grew
    to 19 MB of 23.6 MB written."""
    if sys.platform.startswith("linux"):
        with suppress(OSError):  # (a sandbox that forbids it: the default priority)
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICE)


def _split_sql(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


_COMPACT = json.JSONEncoder(separators=(",", ":"))  # made once: json.dumps makes one per call


def dumps(obj: Any) -> str:
    """Compact JSON (ASCII); a large value (a contract upload's result holds its xabi) in
    pieces, so that the thread encoding it lets the event loop run meanwhile.

    orjson writes it, five times faster than the standard library's encoder (which took ~9 %
    of a batched transfer's instructions: its results, requests and event arguments), with
    the same bytes: what orjson writes differently (text outside ASCII, which json escapes;
    DEL; an integer past 64 bits or a key that is not a string, which orjson refuses) goes to
    json. A float keeps its value, not always json's digits (a result's ``time``: ``0.000041``
    where json wrote ``4.1e-05``; both are JSON numbers of the same value)."""
    if heavy(obj):
        return encode_in_pieces(obj, _encode_ascii).decode("ascii")
    try:
        out = orjson.dumps(obj, option=ORJSON_OPTIONS)
    except TypeError:
        return _COMPACT.encode(obj)
    if out.isascii() and b"\x7f" not in out:
        return out.decode("ascii")
    return _COMPACT.encode(obj)


def _encode_ascii(obj: Any) -> bytes:
    return _COMPACT.encode(obj).encode("ascii")


class ArgsText(str):
    """An event's arguments as the JSON text the ``events`` table stores (:func:`dumps` of
    its ``(name, value)`` pairs) that keeps the pairs it encodes: the Cirrus indexers read
    :attr:`pairs` instead of parsing the text again (a rebuild, from the table, gets plain
    text and parses it)."""

    pairs: list[tuple[str, str]]

    @classmethod
    def of(cls, pairs: list[tuple[str, str]]) -> ArgsText:
        text = cls(dumps(pairs))
        text.pairs = pairs
        return text


def event_args(text: str) -> list[tuple[str, str]]:
    """The ``(name, value)`` pairs of an event's arguments, kept or parsed."""
    if isinstance(text, ArgsText):
        return text.pairs
    return [(str(a[0]), str(a[1])) for a in json.loads(text)]
