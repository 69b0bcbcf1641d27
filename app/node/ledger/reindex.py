"""A block's Cirrus rows, one contract's failure never costing the others theirs.

Every block's rows are computed at once inside the block's commit (the fast path), and written
there or, with STRATO 16's names, taken as the block's jobs behind the chain (the seed's contract,
collection and event rows too: cirrus/deferred.py; a drain retries them the same way). Should that
raise, the block's Cirrus writes are rolled back and written again contract by contract, each
in its own savepoint: a contract whose rows still fail is recorded (the ``cirrus_missed`` meta
entry: chain, address, block) and logged once, the others keep theirs. At start the recorded
contracts are indexed again from their state and the node's own event table
(:meth:`Reindexer.rebuild_missed`), and the entries that succeed are dropped.

The second pass and the rebuild write text holding a lone surrogate (state stored by older
versions) with U+FFFD in its place (:class:`app.node.text.TextSafeConnection`): such state
costs a retry, not its rows.

The pending inputs of the block (contracts touched, collection changes, history rows, events,
contracts created) are taken once per block (:class:`BlockWork`), so that a failure can never
carry them into the next block (which made the raw events table repeat them).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..cirrus.behind16 import THROUGH_KEY, Behind16, catch_up, events_after
from ..cirrus.encoding import encode_int
from ..cirrus.indexer import cirrus_timestamp
from ..cirrus.strato16 import physical
from ..solidvm import AccountState, ContractDef
from ..store import Store, event_args
from ..text import scrubbing
from .common import ContractMeta, log
from .journal import BlockJournal, CirrusWriters, Event, Key
from .state import ChainState

MISSED_KEY = "cirrus_missed"


@dataclass
class BlockWork:
    """What one block left for the Cirrus indexers (copies: the ledger's lists are cleared)."""

    touched: dict[Key, tuple[str, str]] = field(default_factory=dict)
    collections: dict[Key, Any] = field(default_factory=dict)
    history: list[tuple[str, ContractDef, dict[str, Any]]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    event_numbers: list[int] = field(default_factory=list)  # each event's place in the block
    senders: dict[str, str] = field(default_factory=dict)
    created16: list[Any] = field(default_factory=list)

    def contracts(self) -> list[Key]:
        """Every contract this work writes rows for, in a stable order."""
        out: dict[Key, None] = dict.fromkeys(self.touched)
        out.update(dict.fromkeys(self.collections))
        out.update(dict.fromkeys(_row_key(r) for _, _, r in self.history))
        out.update(dict.fromkeys(_event_key(e) for e in self.events))
        out.update(dict.fromkeys(k for k, _, _ in self.created16))
        return list(out)

    def only(self, key: Key) -> BlockWork:
        """The part of this work that writes ``key``'s rows."""
        events = [(e, n) for e, n in zip(self.events, self.event_numbers, strict=True)]
        mine = [(e, n) for e, n in events if _event_key(e) == key]
        return BlockWork(
            touched={k: v for k, v in self.touched.items() if k == key},
            collections={k: v for k, v in self.collections.items() if k == key},
            history=[h for h in self.history if _row_key(h[2]) == key],
            events=[e for e, _ in mine],
            event_numbers=[n for _, n in mine],
            senders=self.senders,
            created16=[c for c in self.created16 if c[0] == key],
        )


def _row_key(row: dict[str, Any]) -> Key:
    return (str(row["chainId"]), int(str(row["address"]), 16))


def _event_key(e: Event) -> Key:
    return (e[1], int(e[2], 16))


class LastChange(NamedTuple):
    """What a rebuild of an indexed contract starts from."""

    account: AccountState
    meta: ContractMeta
    block: tuple[int, str, int]  # the stamp of the block that last changed it
    tx: tuple[str, str]  # that transaction's hash and its sender
    collections: Any  # every entry of its collections (pending rows), or None without any


class Reindexer:
    """Cirrus rows of a block, contract by contract when need be; rebuilding missed ones."""

    def __init__(
        self, store: Store, state: ChainState, cirrus: CirrusWriters, journal: BlockJournal
    ) -> None:
        self.store = store
        self.world = state.world
        self.meta = state.meta
        self.indexer = cirrus.indexer
        self.collections = cirrus.collections
        self.indexer16 = cirrus.indexer16
        self.journal = journal
        self.behind16: Behind16 | None = None  # set by the Ledger (cirrus/behind16.py)

    def _take_work(self) -> BlockWork:
        """The block's pending Cirrus inputs, the ledger's own cleared for the next block."""
        j = self.journal
        work = BlockWork(
            touched=dict(j.touched),
            collections=self.collections.pending,
            history=list(j.history),
            events=list(j.events),
            event_numbers=list(range(1, len(j.events) + 1)),
            senders=dict(j.senders),
        )
        ix16 = self.indexer16
        if ix16 is not None:
            work.created16, ix16.created = ix16.created, []
        self.collections.pending = {}
        j.touched.clear()
        j.history.clear()
        j.events.clear()
        j.senders.clear()
        return work

    def forget_pending(self) -> None:
        """Replayed blocks' events and Cirrus rows were committed with them the first time:
        what replaying them noted is dropped."""
        j = self.journal
        j.events.clear()
        j.senders.clear()
        j.touched.clear()
        if self.indexer16 is not None:
            self.indexer16.clear()
        j.history.clear()
        self.collections.pending.clear()

    def index_block(self, number: int, block_hash: str, ts: int) -> None:
        """Cirrus rows for everything this block changed (inside the block's commit, which
        goes on whatever happens here: Cirrus is derived data)."""
        behind = self.behind16  # STRATO 16's rows: taken now, written behind the chain
        if behind is None:
            self._index_block_now(number, block_hash, ts)
            return
        behind.begin(number)
        try:
            self._index_block_now(number, block_hash, ts)
        finally:
            behind.end()

    def _index_block_now(self, number: int, block_hash: str, ts: int) -> None:
        work = self._take_work()
        block = (number, block_hash, ts)
        db = self.store.db
        db.execute("SAVEPOINT cirrus")
        try:
            self._write_work(block, work)
            return
        except Exception as exc:
            db.execute("ROLLBACK TO cirrus")
            self._forget_cirrus_writes()
            if self.behind16 is not None:
                self.behind16.restart()
            log.warning(
                "indexing block %d at once failed (%s: %s); indexing it contract by contract",
                number,
                type(exc).__name__,
                exc,
            )
        finally:
            db.execute("RELEASE cirrus")
        try:
            with scrubbing(db):
                missed = self._write_by_contract(block, work)
            if missed:
                self._record_missed(number, missed)
        except Exception:  # the block commits all the same: Cirrus is derived data
            log.exception("indexing block %d contract by contract failed", number)

    def _forget_cirrus_writes(self) -> None:
        """After a rollback: the indexers' memory of tables and stamps the database lost."""
        if self.indexer16 is not None:
            self.indexer16.layouts.clear()
        self.indexer.backend.reload()

    def _write_by_contract(self, block: tuple[int, str, int], work: BlockWork) -> list[Key]:
        """``work`` written one contract at a time; returns the contracts that failed."""
        db = self.store.db
        missed: list[Key] = []
        behind = self.behind16
        for key in work.contracts():
            db.execute("SAVEPOINT cirrus_one")
            mark = behind.taken() if behind is not None else 0
            try:
                self._write_work(block, work.only(key))
            except Exception:
                db.execute("ROLLBACK TO cirrus_one")
                self._forget_cirrus_writes()
                if behind is not None:  # its rows taken for behind the chain: dropped too
                    behind.drop_from(mark)
                log.exception(
                    "indexing contract %040x (chain %r) in block %d failed; its rows are "
                    "rebuilt at the next start",
                    key[1],
                    key[0],
                    block[0],
                )
                missed.append(key)
            finally:
                db.execute("RELEASE cirrus_one")
        return missed

    def _record_missed(self, number: int, keys: Iterable[Key]) -> None:
        """Noted in the block's own commit: the rows are rebuilt at start if nothing else."""
        have = self._missed()
        have += [[chain, format(addr, "040x"), number] for chain, addr in keys]
        self.store.db.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
            (MISSED_KEY, json.dumps(have)),
        )

    def note_missed(self, number: int, owner: tuple[str, str]) -> None:
        """A contract (chain, address hex) whose seed rows of block ``number`` a drain could
        not write (cirrus/behind16.py): rebuilt at the next start, as a sealed block's."""
        try:
            address = int(owner[1], 16)
        except ValueError:  # (no address column: nothing a rebuild could look up)
            log.warning("Cirrus rows of block %d without a contract address missed", number)
            return
        self._record_missed(number, [(owner[0], address)])

    def _missed(self) -> list[list[Any]]:
        row = self.store.db.execute("SELECT value FROM meta WHERE key=?", (MISSED_KEY,)).fetchone()
        return list(json.loads(row[0])) if row else []

    # ------------------------------------------------------------ one block's rows

    def _write_work(self, block: tuple[int, str, int], work: BlockWork) -> None:
        number, block_hash, ts = block
        ix = self.indexer
        by_table: dict[str, tuple[ContractDef, list[dict[str, Any]]]] = {}
        for k, (tx_hash, sender) in work.touched.items():
            acct = self.world.accounts.get(k)
            meta = self.meta.get(k)
            if acct is None or acct.cdef is None or meta is None or not ix.indexed(acct.cdef):
                continue
            row = ix.row(acct, number, block_hash, ts, tx_hash, sender)
            by_table.setdefault(meta.table, (acct.cdef, []))[1].append(row)
        for table, (cdef, rows) in by_table.items():
            ix.write_rows(table, cdef, rows)
        self.collections.pending = work.collections
        try:
            self.collections.flush(block, self._collection_table)
        finally:
            self.collections.pending = {}
        hist: dict[str, tuple[ContractDef, list[dict[str, Any]]]] = {}
        for table, cdef, row in work.history:
            row["block_hash"] = block_hash
            row["block_timestamp"] = cirrus_timestamp(ts)
            hist.setdefault(table, (cdef, []))[1].append(row)
        for table, (cdef, rows) in hist.items():
            ix.write_history(table, cdef, rows)
        self._write_seed_events(block, work.events, work.senders)
        ix16 = self.indexer16
        if ix16 is None:  # --cirrus-names seed: no STRATO 16 rows
            return
        ix16.created = list(work.created16)
        try:
            ix16.flush(block, list(work.touched), work.events, work.senders, work.event_numbers)
        finally:
            ix16.created = []

    def _write_seed_events(
        self, block: tuple[int, str, int], events: list[Event], senders: dict[str, str]
    ) -> None:
        ix = self.indexer
        evs: dict[tuple[str, str], list[tuple[str, str, list[tuple[str, str]], str, str]]] = {}
        params: dict[tuple[str, str], list[str]] = {}
        defs: dict[tuple[str, str], ContractDef] = {}
        for tx_hash, chain, address, _contract, name, args_json in events:
            k2 = (chain, int(address, 16))
            meta = self.meta.get(k2)
            acct = self.world.accounts.get(k2)
            if meta is None or acct is None or acct.cdef is None or not ix.indexed(acct.cdef):
                continue
            args = event_args(args_json)  # (the pairs ArgsText kept: no parse)
            key = (meta.table, name)
            evs.setdefault(key, []).append(
                (chain, address, args, tx_hash, senders.get(tx_hash, ""))
            )
            params[key] = [a[0] for a in args]
            defs[key] = acct.cdef
        for key, event_rows in evs.items():
            ix.write_events(*key, params[key], event_rows, block, defs[key])

    # ------------------------------------------------------------ at start

    def index_collections_once(self) -> None:
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

    def catch_up_seed(self, head: int) -> None:
        """The seed's rows of the blocks a crash left unwritten (written behind the chain with
        STRATO 16's: cirrus/deferred.py): the rows of every indexed contract changed or
        created since ``cirrus16_through``, from its state (as of its last change), and
        those blocks' events again from the node's own table, after deleting the ones a
        drain may have written. History rows were committed with their blocks."""
        raw = self.store.get_meta(THROUGH_KEY)
        through = int(raw) if raw is not None and raw.isdigit() else head
        if through >= head:
            return
        cx = self.collections
        sinks, cx.sinks = cx.sinks, []  # (STRATO 16's rows: catch_up16)
        try:
            with self.store.transaction() as db, scrubbing(db):
                after = encode_int(through)
                for t in list(self.indexer.backend.tables.values()):
                    if t.kind == "event":
                        db.execute(f'DELETE FROM {t.sql_name} WHERE "block_number" > ?', (after,))
                changed = [
                    (m.last_block, k) for k, m in self.meta.items() if m.last_block > through
                ]
                for _, key in sorted(changed):
                    self._seed_rows_of(key)
                self._seed_events_after(through)
        finally:
            cx.sinks = sinks
        log.info("Cirrus: rebuilt the seed's rows of blocks %d-%d", through + 1, head)

    def _seed_rows_of(self, key: Key) -> None:
        """``key``'s contract and collection rows (the seed's) from its state now."""
        last = self._last_change(key)
        if last is None:
            return
        acct, meta, block, (tx, sender), collections = last
        assert acct.cdef is not None
        ix = self.indexer
        ix.write_rows(meta.table, acct.cdef, [ix.row(acct, *block, tx, sender)])
        if collections is not None:
            self.collections.pending = {key: collections}
            self.collections.flush(block, self._collection_table)

    def _last_change(self, key: Key) -> LastChange | None:
        """What a rebuild of indexed contract ``key`` starts from (:class:`LastChange`); None
        when gone or not indexed."""
        acct = self.world.accounts.get(key)
        meta = self.meta.get(key)
        if acct is None or meta is None or self._collection_table(key) is None:
            return None
        assert acct.cdef is not None
        row = self.store.one("SELECT sender FROM txs WHERE hash=?", meta.updated_tx)
        tx = (meta.updated_tx, str(row["sender"]) if row else "")
        cx = self.collections
        for cv in cx.vars_of(acct.cdef):
            cx.mark_all(acct, cv, tx)
        return LastChange(
            acct, meta, self._block_stamp(meta.updated_block), tx, cx.pending.pop(key, None)
        )

    def _seed_events_after(self, through: int) -> None:
        """The seed's event rows of the blocks after ``through``, from ``events``."""
        for number, rows, senders in events_after(self.store, through):
            self._write_seed_events(self._block_stamp(number), rows, senders)

    def catch_up16(self, head: int) -> None:
        """STRATO 16's rows of the blocks a crash left unwritten (cirrus/behind16.py)."""
        ix = self.indexer16
        if ix is None:
            return
        contracts = []
        for k, meta in self.meta.items():
            acct = self.world.accounts.get(k)
            if acct is not None and self._collection_table(k) is not None:
                contracts.append((k, acct, meta.last_block))
        tracked = self.collections.tracked_vars
        catch_up(ix, self.store, head, contracts, lambda a: list(tracked(a).values()))

    def index_strato16_once(self) -> None:
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

    def rebuild_missed(self) -> None:
        """Index again, from their state and the recorded events, the contracts a failed
        block missed; those that fail again stay recorded for the next start."""
        missed = self._missed()
        if not missed:
            return
        blocks_of: dict[Key, list[int]] = {}
        for chain, address, number in missed:
            blocks_of.setdefault((str(chain), int(str(address), 16)), []).append(int(number))
        still: list[list[Any]] = []
        with self.store.transaction() as db, scrubbing(db):
            for key, numbers in blocks_of.items():
                db.execute("SAVEPOINT cirrus_rebuild")
                try:
                    self._rebuild_one(key, sorted(set(numbers)))
                except Exception:
                    db.execute("ROLLBACK TO cirrus_rebuild")
                    self._forget_cirrus_writes()
                    log.exception(
                        "rebuilding the Cirrus rows of contract %040x (chain %r) failed again",
                        key[1],
                        key[0],
                    )
                    still += [[key[0], format(key[1], "040x"), n] for n in numbers]
                finally:
                    db.execute("RELEASE cirrus_rebuild")
            if still:
                db.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                    (MISSED_KEY, json.dumps(still)),
                )
            else:
                db.execute("DELETE FROM meta WHERE key=?", (MISSED_KEY,))
        log.info(
            "Cirrus: rebuilt the rows of %d of %d contracts a failed block had missed",
            len(blocks_of) - len({(c, a) for c, a, _ in still}),
            len(blocks_of),
        )

    def _block_stamp(self, number: int) -> tuple[int, str, int]:
        b = self.store.one("SELECT hash, timestamp FROM blocks WHERE number=?", number)
        return (number, str(b["hash"]) if b else "", int(b["timestamp"]) if b else 0)

    def _drop_event_rows(self, key: Key, table: str, number: int) -> None:
        """Contract ``key``'s event rows of block ``number``, the seed's (its ``table``'s
        event tables) and STRATO 16's: a rebuild writes them again, each once."""
        db = self.store.db
        chain, address = key[0], format(key[1], "040x")
        for t in list(self.indexer.backend.tables.values()):
            if t.kind == "event" and t.name.startswith(f"{table}."):
                db.execute(
                    f'DELETE FROM {t.sql_name} WHERE "address" = ? AND "_chain" = ? '
                    'AND "block_number" = ?',
                    (address, chain, encode_int(number)),
                )
        if self.indexer16 is not None:
            for name in ("event", "event_array"):
                db.execute(
                    f"DELETE FROM {physical(name)} WHERE address = ? AND _chain = ? "
                    "AND CAST(block_number AS INTEGER) = ?",
                    (address, chain, number),
                )

    def _rebuild_one(self, key: Key, numbers: list[int]) -> None:
        """``key``'s rows as of its state now (contract, history, collection and STRATO 16
        storage and mapping rows) and its events of the blocks ``numbers``."""
        last = self._last_change(key)
        if last is None:
            return  # gone, or not indexed: nothing to rebuild
        acct, meta, block, (tx, sender), collections = last
        assert acct.cdef is not None
        work = BlockWork(
            touched={key: (tx, sender)},
            collections={key: collections} if collections is not None else {},
        )
        if meta.history:
            hrow = self.indexer.row(acct, block[0], block[1], block[2], tx, sender)
            work.history.append((meta.table, acct.cdef, hrow))
        ix16 = self.indexer16
        if ix16 is not None:
            ix16.adopt(key, acct)
            work.created16, ix16.created = ix16.created, []
        self._write_work(block, work)
        for number in numbers:
            events = self.store.all(
                "SELECT e.tx_hash, e.chain, e.address, e.contract, e.name, e.args, t.sender "
                "FROM events e LEFT JOIN txs t ON t.hash = e.tx_hash WHERE e.block_number=? "
                "ORDER BY e.id",
                number,
            )
            self._drop_event_rows(key, meta.table, number)  # (a drain may have written some)
            work = BlockWork(senders={str(e[0]): str(e[6] or "") for e in events})
            for i, e in enumerate(events, 1):
                ev: Event = (str(e[0]), str(e[1]), str(e[2]), str(e[3]), str(e[4]), str(e[5]))
                if _event_key(ev) == key:
                    work.events.append(ev)
                    work.event_numbers.append(i)
            if work.events:
                self._write_work(self._block_stamp(number), work)
