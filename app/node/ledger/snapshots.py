"""Durability: contract storage snapshots, loading them and replaying the blocks after them."""

from __future__ import annotations

import json
import time
from typing import Any

from ..chains import Chain
from ..cirrus.indexer import cirrus_timestamp
from ..solidvm.errors import SolidVMError
from ..solidvm.persist import dump_value, load_value
from ..solidvm.proxies import delegated_vars
from ..solidvm.types import MappingType
from ..solidvm.values import MappingValue, default_value
from ..solidvm.world import AccountState
from ..store import dumps
from .common import (
    TIME_LIMIT_PREFIX,
    ContractMeta,
    Head,
    log,
)
from .entries import split_vars
from .executor import LedgerExecutor
from .packing import unpack_result

LAYOUTS_KEY = "@layouts"
"""Key of a contract's saved storage listing the code (code hash, contract name) of the contracts
that keep variables there through delegatecall; no variable name can clash with it."""


class LedgerSnapshots(LedgerExecutor):
    """Durability."""

    def _load_snapshot(self) -> None:
        for row in self.store.all("SELECT * FROM chains ORDER BY creation_block, rowid"):
            chain = Chain.from_row(row)
            self.chains[chain.id] = chain
            self.world.add_chain(chain.id, chain.parent)
        for row in self.store.all("SELECT code_hash, vm, source FROM codes"):
            self.codes[row["code_hash"]] = (row["vm"], row["source"])
        self.var_ids = {
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
            cdef = self._cdef(row["code_hash"], row["name"])
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
                        self.entry_tracker.mark_whole((row["chain"], addr), sv.name)
                        self.dirty_contracts[(row["chain"], addr)] = acct
                elif sv.name in split:
                    vid = self.var_ids.get((row["chain"], row["address"], sv.name))
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
        self._sync_identities()
        self.world.test_clocks = {
            (chain, int(addr, 16)): int(t)
            for chain, addr, t in json.loads(self.store.get_meta("test_clocks") or "[]")
        }
        snap = int(self.store.get_meta("snapshot_block") or -1)
        head = self.store.one("SELECT * FROM blocks WHERE number=?", snap)
        if head is not None:
            self.head = Head(head["number"], head["hash"], head["timestamp"])

    def _load_layouts(self, acct: AccountState, data: dict[str, Any]) -> None:
        """The variables code of other contracts keeps in this account (a proxy's logic
        contract, through delegatecall): saved as the contracts' code under ``LAYOUTS_KEY``."""
        for code_hash, name in data.get(LAYOUTS_KEY, ()):
            try:
                cdef = self._cdef(code_hash, name)
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

    def _replay(self) -> None:
        """Re-run the blocks committed after the last snapshot."""
        snap = int(self.store.get_meta("snapshot_block") or -1)
        blocks = self.store.all("SELECT * FROM blocks WHERE number > ? ORDER BY number", snap)
        for b in blocks:
            rows = self.store.all(
                "SELECT * FROM txs WHERE block_number=? ORDER BY tx_index", b["number"]
            )
            subs = [self._sub_from_row(r) for r in rows]
            for i, (sub, row) in enumerate(zip(subs, rows, strict=True)):
                res = self._execute(sub, b["number"], b["timestamp"], i, _overtime(row))
                if res["status"] != row["status"]:
                    log.warning(
                        "replay of %s gave %s, recorded %s", sub.hash, res["status"], row["status"]
                    )
            self.head = Head(b["number"], b["hash"], b["timestamp"])
            self.blocks_since_snapshot += 1
        # events and Cirrus rows of these blocks were committed with them the first time
        self._pending_events.clear()
        self._event_senders.clear()
        self._block_touched.clear()
        if self.indexer16 is not None:
            self.indexer16.clear()
        self._pending_history.clear()
        self.collections.pending.clear()

    def _index_collections_once(self) -> None:
        """Collection tables for the contracts of a data dir made before they existed: every
        entry of every indexed contract, once (later blocks keep them up to date)."""
        if self.store.get_meta("cirrus_collections"):
            return
        cx = self.collections
        by_block: dict[int, dict[tuple[str, int], Any]] = {}
        for k, meta in self.meta.items():
            acct = self.world.accounts.get(k)
            if acct is None or self._collection_table(k) is None:
                continue
            row = self.store.one("SELECT sender FROM txs WHERE hash=?", meta.updated_tx)
            tx = (meta.updated_tx, str(row["sender"]) if row else "")
            for cv in cx.vars_of(acct.cdef):
                cx.mark_all(acct, cv, tx)
            if k in cx.pending:
                by_block.setdefault(meta.updated_block, {})[k] = cx.pending.pop(k)
        with self.store.transaction() as db:
            for number, pending in sorted(by_block.items()):
                b = self.store.one("SELECT hash, timestamp FROM blocks WHERE number=?", number)
                block = (number, str(b["hash"]) if b else "", int(b["timestamp"]) if b else 0)
                cx.pending = pending
                cx.flush(block, self._collection_table)
            db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('cirrus_collections', '1')"
            )

    def _index_strato16_once(self) -> None:
        """STRATO 16's Cirrus rows for a data dir made before they existed: every indexed
        contract's views, stamps, storage and mapping rows (as of its last change) and every
        recorded event, once (creators are BlockApps or the creating contract's)."""
        ix = self.indexer16
        if ix is None:  # not written meanwhile ("seed"): a later start rebuilds them
            with self.store.transaction() as db:
                db.execute("DELETE FROM meta WHERE key IN ('cirrus16', 'cirrus16_through')")
            return
        if self.store.get_meta("cirrus16"):
            return
        cx = self.collections
        with self.store.transaction() as db:
            ix.schema.clear_rows()  # rows written before a run that kept none
            order = sorted(self.meta.items(), key=lambda kv: (kv[1].created_block, kv[0]))
            for k, meta in order:
                acct = self.world.accounts.get(k)
                if acct is None or self._collection_table(k) is None:
                    continue
                b = self.store.one(
                    "SELECT hash, timestamp FROM blocks WHERE number=?", meta.updated_block
                )
                block = (
                    meta.updated_block,
                    str(b["hash"]) if b else "",
                    int(b["timestamp"]) if b else 0,
                )
                ix.adopt(k, acct)
                ix.flush(block, [], [], {})
                stamped = (block[1], cirrus_timestamp(block[2]), block[0])
                for cv in cx.tracked_vars(acct).values():
                    ix.write_entries(acct, cv, None, stamped)
            by_block: dict[int, list[Any]] = {}
            for e in self.store.all(
                "SELECT e.block_number, e.tx_hash, e.chain, e.address, e.contract, e.name, "
                "e.args, t.sender FROM events e LEFT JOIN txs t ON t.hash = e.tx_hash "
                "ORDER BY e.rowid"
            ):
                by_block.setdefault(int(e[0]), []).append(tuple(e))
            for number, evs in sorted(by_block.items()):
                b = self.store.one("SELECT hash, timestamp FROM blocks WHERE number=?", number)
                block = (number, str(b["hash"]) if b else "", int(b["timestamp"]) if b else 0)
                senders = {str(e[1]): str(e[7] or "") for e in evs}
                rows = [
                    (str(e[1]), str(e[2]), str(e[3]), str(e[4]), str(e[5]), str(e[6])) for e in evs
                ]
                ix.flush(block, [], rows, senders)
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('cirrus16', '1')")

    def _collection_table(self, k: tuple[str, int]) -> str | None:
        """The Cirrus table of an indexed contract (its collections are ``<table>-<name>``)."""
        meta = self.meta.get(k)
        acct = self.world.accounts.get(k)
        if meta is None or acct is None or acct.cdef is None or not self.indexer.indexed(acct.cdef):
            return None
        return meta.table

    def snapshot(self) -> None:
        """Write the storage of every contract changed since the last snapshot: its
        variables but the mappings whole, and of the mappings the entries that changed."""
        new_ids: dict[tuple[str, str, str], int] = {}  # known once committed
        with self.store.transaction() as db:
            for (chain, addr), acct in self.dirty_contracts.items():
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
                    storage[LAYOUTS_KEY] = [[self._code_of(c), c.name] for c in acct.layouts]
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
            for chain, addr in self.dirty_balances | set(self.dirty_contracts):
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
                (str(self.head.number),),
            )
            if self.world.test_clocks:
                clocks = [[c, format(a, "040x"), t] for (c, a), t in self.world.test_clocks.items()]
                db.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('test_clocks', ?)",
                    (json.dumps(clocks),),
                )
        self.var_ids.update(new_ids)
        self.dirty_contracts.clear()
        self.entry_tracker.forget()
        self.dirty_balances.clear()
        self.blocks_since_snapshot = 0
        self.last_snapshot = time.monotonic()

    def _write_entries(
        self,
        db: Any,
        k: tuple[str, int],
        acct: AccountState,
        split: dict[str, MappingType],
        new_ids: dict[tuple[str, str, str], int],
    ) -> None:
        """The changed entries of ``acct``'s mappings (all of a mapping marked whole)."""
        tracker = self.entry_tracker
        whole = tracker.whole.get(k, set())
        if k not in tracker.indexed:  # never seen by a transaction: nothing is known
            whole = set(split)
        changed = tracker.changed.get(k, {})
        address = format(k[1], "040x")
        for var, mt in split.items():
            if var not in whole and var not in changed:
                continue
            vid = self.var_ids.get((k[0], address, var)) or new_ids.get((k[0], address, var))
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


def _overtime(row: Any) -> str:
    """The time-limit message a recorded transaction failed with, or ""."""
    if row["status"] != "Failure" or not row["result"]:
        return ""
    res = unpack_result(row["result"], row["hash"], row["status"], "")
    message = str((res.get("txResult") or {}).get("message", ""))
    return message if message.startswith(TIME_LIMIT_PREFIX) else ""
