"""Durability: contract storage snapshots, loading them and replaying the blocks after them."""

from __future__ import annotations

import json
import time
from typing import Any

from ..chains import Chain
from ..solidvm.errors import SolidVMError
from ..solidvm.persist import dump_value, load_value
from ..solidvm.proxies import delegated_vars
from ..solidvm.types import MappingType
from ..solidvm.values import MappingValue, default_value
from ..solidvm.world import AccountState
from ..store import Store, dumps
from .codebook import CodeBook
from .common import (
    SNAPSHOT_EVERY_BLOCKS,
    SNAPSHOT_EVERY_SECONDS,
    ContractMeta,
    Head,
    log,
)
from .entries import split_vars
from .journal import Changes
from .state import ChainState

LAYOUTS_KEY = "@layouts"
"""Key of a contract's saved storage listing the code (code hash, contract name) of the contracts
that keep variables there through delegatecall; no variable name can clash with it."""


class Snapshots:
    """Contract storage, balances and nonces on disk: loaded at start, written every
    ``SNAPSHOT_EVERY_BLOCKS`` blocks or ``SNAPSHOT_EVERY_SECONDS`` seconds and at shutdown
    (what changed since the last, see :class:`Changes`). The blocks after the last snapshot
    are replayed at start (``blocks.BlockSealer.replay``)."""

    def __init__(self, store: Store, state: ChainState, codes: CodeBook, changes: Changes) -> None:
        self.store = store
        self.state = state
        self.world = state.world
        self.meta = state.meta
        self.codes = codes
        self.changes = changes
        self._var_ids: dict[tuple[str, str, str], int] = {}  # (chain, address, var) -> row id
        self._blocks_since = 0  # blocks committed (or replayed) since the last snapshot
        self._last = time.monotonic()

    def block_committed(self) -> None:
        """A block was committed: a snapshot when enough blocks or seconds passed since the
        last."""
        self._blocks_since += 1
        if (
            self._blocks_since >= SNAPSHOT_EVERY_BLOCKS
            or time.monotonic() - self._last > SNAPSHOT_EVERY_SECONDS
        ):
            self.snapshot()

    def block_replayed(self) -> None:
        """A block after the last snapshot was replayed at start."""
        self._blocks_since += 1

    def load(self) -> None:
        """The last snapshot into the state (the chains, the code, contracts, accounts and
        the head as of the snapshot's block)."""
        for row in self.store.all("SELECT * FROM chains ORDER BY creation_block, rowid"):
            chain = Chain.from_row(row)
            self.state.chains[chain.id] = chain
            self.world.add_chain(chain.id, chain.parent)
        self.codes.load(self.store)
        self._var_ids = {
            (r["chain"], r["address"], r["name"]): int(r["id"])
            for r in self.store.all("SELECT id, chain, address, name FROM storage_vars")
        }
        entries: dict[int, list[str]] = {}
        with self.store.lock:
            cur = self.store.db.cursor()
            cur.row_factory = None  # plain tuples: 200,000 rows load in a fraction of the time
            for var, pair in cur.execute(
                "SELECT var, '[' || key || ',' || value || ']' FROM storage_entries ORDER BY rowid"
            ):
                entries.setdefault(var, []).append(pair)
        for row in self.store.all("SELECT * FROM contracts"):
            cdef = self.codes.cdef(row["code_hash"], row["name"])
            addr = int(row["address"], 16)
            acct = AccountState(addr, row["chain"], cdef)
            data = json.loads(row["storage"])
            split = split_vars(acct)
            storage = {}
            for sv in cdef.state_vars:
                if sv.constant:
                    continue
                if sv.name in data:
                    storage[sv.name] = load_value(data[sv.name], sv.type)
                    if sv.name in split:
                        # saved inline by an older version: the next snapshot moves it
                        self.changes.entries.mark_whole((row["chain"], addr), sv.name)
                        self.changes.contracts[(row["chain"], addr)] = acct
                elif sv.name in split:
                    vid = self._var_ids.get((row["chain"], row["address"], sv.name))
                    storage[sv.name] = _load_entries(
                        split[sv.name], entries.pop(vid, []) if vid is not None else []
                    )
                else:
                    storage[sv.name] = default_value(sv.type)
            acct.storage = storage
            self._load_layouts(acct, data)
            self.world.accounts[(row["chain"], addr)] = acct
            self.meta[(row["chain"], addr)] = ContractMeta(
                row["name"],
                row["code_hash"],
                row["creator"],
                row["created_block"],
                row["created_tx"],
                row["updated_block"],
                row["updated_tx"],
                row["history"],
                row["org"],
                row["app"],
                row["tbl"],
            )
        self._link_creators()
        for row in self.store.all("SELECT * FROM accounts"):
            key = (row["chain"], int(row["address"], 16))
            self.world.balances[key] = int(row["balance"])
            self.world.nonces[key] = int(row["nonce"])
        self.world.test_clocks = {
            (chain, int(addr, 16)): int(t)
            for chain, addr, t in json.loads(self.store.get_meta("test_clocks") or "[]")
        }
        snap = int(self.store.get_meta("snapshot_block") or -1)
        head = self.store.one("SELECT * FROM blocks WHERE number=?", snap)
        if head is not None:
            self.state.head = Head(head["number"], head["hash"], head["timestamp"])

    def _load_layouts(self, acct: AccountState, data: dict[str, Any]) -> None:
        """The variables code of other contracts keeps in this account (a proxy's logic
        contract, through delegatecall): saved as the contracts' code under ``LAYOUTS_KEY``."""
        for code_hash, name in data.get(LAYOUTS_KEY, ()):
            try:
                cdef = self.codes.cdef(code_hash, name)
            except (KeyError, SolidVMError):
                log.warning("contract %s: delegate code %s/%s is gone", acct.hex, code_hash, name)
                continue
            if acct.layouts is None:
                acct.layouts = []
            acct.layouts.append(cdef)
        for sv in delegated_vars(acct):
            acct.storage[sv.name] = (
                load_value(data[sv.name], sv.type) if sv.name in data else default_value(sv.type)
            )

    def _link_creators(self) -> None:
        """Restore who created each loaded contract (``this.creator``, ``this.root`` need it)."""
        accounts = self.world.accounts
        for (chain, addr), meta in self.meta.items():
            acct = accounts.get((chain, addr))
            parent = int(meta.creator, 16) if meta.creator else None
            if acct is not None and parent is not None:
                if (chain, parent) in accounts:
                    acct.creator = parent
                else:
                    acct.origin = parent

    def snapshot(self) -> None:
        """Write the storage of every contract changed since the last snapshot: its
        variables but the mappings whole, and of the mappings the entries that changed."""
        new_ids: dict[tuple[str, str, str], int] = {}  # known once committed
        with self.store.transaction() as db:
            for (chain, addr), acct in self.changes.contracts.items():
                meta = self.meta[(chain, addr)]
                assert acct.cdef is not None
                split = split_vars(acct)
                storage = {
                    sv.name: dump_value(acct.storage[sv.name], sv.type)
                    for sv in acct.cdef.state_vars
                    if not sv.constant and sv.name not in split
                }
                if split:
                    self._write_entries(db, (chain, addr), acct, split, new_ids)
                if acct.layouts:
                    for sv in delegated_vars(acct):
                        storage[sv.name] = dump_value(acct.storage[sv.name], sv.type)
                    storage[LAYOUTS_KEY] = [[self.codes.code_of(c), c.name] for c in acct.layouts]
                db.execute(
                    "INSERT OR REPLACE INTO contracts (chain, address, name, code_hash, storage, "
                    "creator, created_block, created_tx, updated_block, updated_tx, history, "
                    "org, app, tbl) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        chain,
                        format(addr, "040x"),
                        meta.name,
                        meta.code_hash,
                        dumps(storage),
                        meta.creator,
                        meta.created_block,
                        meta.created_tx,
                        meta.updated_block,
                        meta.updated_tx,
                        meta.history,
                        meta.org,
                        meta.app,
                        meta.table,
                    ),
                )
            for chain, addr in self.changes.balances | set(self.changes.contracts):
                key = (chain, addr)
                db.execute(
                    "INSERT OR REPLACE INTO accounts (chain, address, balance, nonce) "
                    "VALUES (?, ?, ?, ?)",
                    (
                        chain,
                        format(addr, "040x"),
                        str(self.world.balances.get(key, 0)),
                        self.world.nonces.get(key, 0),
                    ),
                )
            db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('snapshot_block', ?)",
                (str(self.state.head.number),),
            )
            if self.world.test_clocks:
                clocks = [[c, format(a, "040x"), t] for (c, a), t in self.world.test_clocks.items()]
                db.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('test_clocks', ?)",
                    (json.dumps(clocks),),
                )
        self._var_ids.update(new_ids)
        self.changes.forget()
        self._blocks_since = 0
        self._last = time.monotonic()

    def _write_entries(
        self,
        db: Any,
        k: tuple[str, int],
        acct: AccountState,
        split: dict[str, MappingType],
        new_ids: dict[tuple[str, str, str], int],
    ) -> None:
        """The changed entries of ``acct``'s mappings (all of a mapping marked whole)."""
        tracker = self.changes.entries
        whole = tracker.whole.get(k, set())
        if k not in tracker.indexed:  # never seen by a transaction: nothing is known
            whole = set(split)
        changed = tracker.changed.get(k, {})
        address = format(k[1], "040x")
        for var, mt in split.items():
            if var not in whole and var not in changed:
                continue
            vid = self._var_ids.get((k[0], address, var)) or new_ids.get((k[0], address, var))
            if vid is None:
                cur = db.execute(
                    "INSERT INTO storage_vars (chain, address, name) VALUES (?, ?, ?)",
                    (k[0], address, var),
                )
                vid = new_ids[(k[0], address, var)] = int(cur.lastrowid or 0)
            m = acct.storage[var]
            kt, vt = mt.key, mt.value
            if var in whole:
                db.execute("DELETE FROM storage_entries WHERE var=?", (vid,))
                db.executemany(
                    "INSERT INTO storage_entries (var, key, value) VALUES (?, ?, ?)",
                    [
                        (vid, dumps(dump_value(key, kt)), dumps(dump_value(v, vt)))
                        for key, v in m.items()
                    ],
                )
                continue
            gone, moved, kept = [], [], []
            for key, fresh in changed[var].items():
                text = dumps(dump_value(key, kt))
                if key not in m:
                    gone.append((vid, text))
                elif fresh:  # inserted anew: deleted and inserted at the end, as in the dict
                    gone.append((vid, text))
                    moved.append((vid, text, dumps(dump_value(m[key], vt))))
                else:
                    kept.append((vid, text, dumps(dump_value(m[key], vt))))
            db.executemany("DELETE FROM storage_entries WHERE var=? AND key=?", gone)
            db.executemany(
                "INSERT INTO storage_entries (var, key, value) VALUES (?, ?, ?) "
                "ON CONFLICT (var, key) DO UPDATE SET value=excluded.value",
                kept + moved,
            )


def _load_entries(mt: MappingType, pairs: list[str]) -> MappingValue:
    """A mapping from its rows (each ``[key,value]`` as JSON text): parsed as one text, the
    form a mapping had inline (one C-level parse instead of two per entry)."""
    value: MappingValue = load_value(json.loads("[" + ",".join(pairs) + "]"), mt)
    return value
