"""The ledger's state, its signing keys, the compile cache and the recording of new
transactions: what every other part of the ledger builds on."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from ..chains import Chain
from ..cirrus.backend import CirrusBackend
from ..cirrus.behind16 import Behind16
from ..cirrus.collections import CollectionIndexer
from ..cirrus.indexer import Indexer
from ..cirrus.indexer16 import Indexer16
from ..cirrus.strato16 import Strato16
from ..config import NodeConfig
from ..genesis import (
    ROOT_USER,
)
from ..solidvm import (
    CompiledUnit,
    ContractDef,
    World,
    compile_source,
)
from ..solidvm.history import History
from ..solidvm.ops import keccak256
from ..solidvm.runtime import MISSING
from ..solidvm.world import AccountState
from ..store import Store, dumps
from ..timebox import call_bounded
from ..vault import Vault
from .codecache import UnitCache, collector_paused
from .common import (
    DEFAULT_GAS_LIMIT,
    DEFAULT_GAS_PRICE,
    ContractMeta,
    Head,
    Sub,
    _to_address,
    parse_amount,
)
from .entries import EntryTracker
from .readview import CommittedView
from .watchdog import Watchdog


class LedgerBase:
    """The ledger's state, its signing keys, the compile cache and the recording of new."""

    def __init__(self, config: NodeConfig, store: Store, vault: Vault) -> None:
        self.config = config
        self.store = store
        self.vault = vault
        self.world = World()
        # sources compiled at run time by create()/create2() join the code table
        self.world.compile_hook = lambda src, vm: self.unit(vm, src)[1]
        self.world.test_clock = config.test_clock
        self.units = UnitCache()
        # code hash -> (vm, source) of the code deployed contracts run (the ``codes`` table)
        self.codes: dict[str, tuple[str, str]] = {}
        self.new_codes: set[str] = set()  # added since the last block: written with the next
        self.meta: dict[tuple[str, int], ContractMeta] = {}
        self.head = Head()
        self.queue: list[Sub] = []
        self.running: list[Sub] = []  # the batch the producer's worker is executing
        # held while a block is executed and committed (one block at a time, whatever thread)
        self.sealing = threading.Lock()
        self.code_lock = threading.Lock()  # ``codes`` and ``new_codes``
        self.seq_lock = threading.Lock()  # transaction numbers, given out by the loop and workers
        # readers pin the committed block under it; the worker moves the head under it
        self.view_lock = threading.Lock()
        self._readers = 0  # views pinned now: the history is only pruned when none is
        self._loop_view: CommittedView | None = None
        # guards the queue and ``running``: the loop adds, the producer's thread takes
        self.queue_cv = threading.Condition()
        self.results: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.dirty_contracts: dict[tuple[str, int], AccountState] = {}
        self.dirty_balances: set[tuple[str, int]] = set()
        self.entry_tracker = EntryTracker()  # which mapping entries the next snapshot writes
        self.var_ids: dict[tuple[str, str, str], int] = {}  # (chain, address, var) -> row id
        self.blocks_since_snapshot = 0
        self.last_snapshot = time.monotonic()
        self.started = time.time()
        self._thread: threading.Thread | None = None  # the block producer
        self._loop: asyncio.AbstractEventLoop | None = None
        self._watchdog: Watchdog | None = None
        self._stopping = False
        self._seq = 0
        self.root_address = ""
        self._pending_events: list[tuple[str, str, str, str, str, str]] = []
        self._event_senders: dict[str, str] = {}  # tx hash -> sender, for the event rows
        self.watchers: dict[str, list[asyncio.Future[dict[str, Any]]]] = {}
        self._block_touched: dict[tuple[str, int], tuple[str, str]] = {}
        self.halted: str | None = None
        self.chains: dict[str, Chain] = {}
        self._chain_seq = 0  # makes chain ids unique within a nanosecond
        self._sealed: dict[str, bytes] = {}  # address -> sealed key (b"" when none)
        self.dirty_chains: set[str] = set()
        self._pending_history: list[tuple[str, ContractDef, dict[str, Any]]] = []
        self._root_cert = ""  # the operator's certificate, issuer of the users' ones
        backend = CirrusBackend(store.db, store.path)
        self.indexer = Indexer(backend, self.world, config.index_evm)
        self.collections = CollectionIndexer(backend, self.world)
        # STRATO 16's names beside the seed's (cirrus/strato16.py)
        # ("seed": none of them: no STRATO 16 rows are written, a later start rebuilds them)
        self.indexer16: Indexer16 | None = None
        if config.cirrus_names != "seed":
            schema16 = Strato16(backend, only=config.cirrus_names == "strato16")
            self.indexer16 = Indexer16(schema16, self.world)
            self.collections.sinks.append(self.indexer16.write_entries)
        # their rows are written behind the chain, many blocks at once (cirrus/behind16.py)
        self.behind16: Behind16 | None = None
        if self.indexer16 is not None:
            ix16 = self.indexer16

            def forget() -> None:  # after a rolled-back write, as _forget_cirrus_writes
                ix16.layouts.clear()
                backend.reload()

            def publish() -> None:  # the views it registered, to readers (not the seed's
                with self.view_lock:  # tables: the producer may be creating some)
                    ix16.schema.publish(force=True)

            self.behind16 = Behind16(ix16, store, self.sealing, forget, publish)

    def _sub_from_row(self, row: Any) -> Sub:
        req = json.loads(row["request"])
        return Sub(
            seq=row["seq"],
            hash=row["hash"],
            sender=row["sender"],
            username=row["username"],
            type=row["type"],
            payload=req["payload"],
            chain=row["chain"],
            gas_limit=req["gasLimit"],
            gas_price=req["gasPrice"],
            submitted_at=row["submitted_at"],
            internal=bool(req.get("internal")),
            signature=req.get("signature") or {},
            recorded=True,
        )

    def key_of(self, name: str) -> dict[str, str] | None:
        row = self.store.one("SELECT address, pubkey FROM keys WHERE name=?", name)
        return {"address": row["address"], "pubkey": row["pubkey"]} if row else None

    def _insert_key(self, name: str) -> dict[str, str]:
        address, pubkey, sealed = self.vault.new_key()
        self._sealed.pop(address, None)
        self.store.execute(
            "INSERT INTO keys (name, address, pubkey, sealed, created_at) VALUES (?, ?, ?, ?, ?)",
            name,
            address,
            pubkey,
            sealed,
            time.time(),
        )
        return {"address": address, "pubkey": pubkey}

    def read_state(self, address: str, chain: str, only: str | None = None) -> dict[str, Any]:
        """A contract's state (or its variable ``only``) as of the last committed block."""
        return self.committed().state(address, chain, only)

    def committed(self) -> CommittedView:
        """The state as of the last committed block, for code on the event loop (the
        producer's worker may be half-way through the next block). Pinned until the loop's
        next turn: use it before the caller's next ``await``, not after."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            if self.world.history is not None:
                raise RuntimeError("committed() pins a view until the loop's next turn") from None
            # no loop and no producer (start-up, the offline CLI): the live state is committed
            return CommittedView(self.world, self.meta, None, self.head.number)
        v = self._loop_view
        if v is not None:
            return v
        with self.view_lock:
            self._readers += 1
            v = self._loop_view = CommittedView(
                self.world, self.meta, self.world.history, self.head.number
            )
        loop.call_soon(self._release_loop_view)
        return v

    @contextlib.contextmanager
    def pinned_view(self) -> Iterator[CommittedView]:
        """The state as of the last committed block, for a worker thread: pinned (the
        history it reads is kept) until the ``with`` block ends."""
        with self.view_lock:
            self._readers += 1
            v = CommittedView(self.world, self.meta, self.world.history, self.head.number)
        try:
            yield v
        finally:
            with self.view_lock:
                self._readers -= 1

    def _release_loop_view(self) -> None:
        with self.view_lock:
            self._loop_view = None
            self._readers -= 1

    def _advance(self, head: Head) -> None:
        """The block ``head`` is committed: readers see it from now on."""
        with self.view_lock:
            self.head = head
            self.indexer.backend.publish()  # the Cirrus tables and columns it created
            h = self.world.history
            if h is not None and not self._readers:
                h.records = {}  # no reader is pinned before ``head``: the records are done

    def _begin(self, number: int) -> None:
        """Block ``number`` starts executing: what it writes, readers must not see yet."""
        h = self.world.history
        assert h is not None
        with self.view_lock:
            if not self._readers:  # (a reader was pinned when the last block committed)
                h.records = {}
            h.block = number

    def _will_write(self, c: dict[Any, Any], k: Any) -> None:
        """The worker is about to write ``c[k]`` outside the VM (nonces, fees, metadata)."""
        h = self.world.history
        if h is not None:
            h.note(c, k, c.get(k, MISSING))

    def _keep_history(self) -> None:
        """Readers now run beside the block producer's worker: record what blocks overwrite."""
        if self.world.history is None:
            self.world.history = History()
        self.indexer.backend.publish()  # from now on Cirrus readers see committed tables only

    def block_times(self, numbers: set[int]) -> dict[int, int]:
        """The timestamps of blocks ``numbers`` (a route's page of them, not every block's)."""
        wanted = sorted(numbers)
        out: dict[int, int] = {}
        for i in range(0, len(wanted), 900):  # below SQLite's old limit of 999 parameters
            part = wanted[i : i + 900]
            marks = ",".join("?" * len(part))
            sql = f"SELECT number, timestamp FROM blocks WHERE number IN ({marks})"
            for r in self.store.all(sql, *part):
                out[r["number"]] = r["timestamp"]
        return out

    def name_of_address(self, address: str) -> str | None:
        row = self.store.one("SELECT name FROM keys WHERE address=?", address)
        return str(row["name"]) if row else None

    def code_hash(self, vm: str, source: str) -> str:
        """A SolidVM code collection's hash is the keccak256 of its source, as on the platform
        (salted addresses are derived from it); EVM code is keyed apart from SolidVM's."""
        if vm == "SolidVM":
            return keccak256(source.encode()).hex()
        return keccak256(f"{vm}\0{source}".encode()).hex()

    def unit(
        self, vm: str, source: str, stored: bool = False, bounded: bool = False
    ) -> tuple[str, CompiledUnit]:
        """The compiled unit of a source (cached by code hash, see ``codecache``).

        ``stored`` code was accepted once already, maybe by this node started with
        ``--test-clock``: it compiles with ``fastForward`` declared, which then refuses to run
        unless the node allows it. A ``bounded`` compile (a request's, on a worker thread) stops
        with a 400 after ``--compile-time-limit`` seconds. Compiling stores nothing: code joins
        the ``codes`` table when a contract is deployed with it (``_keep_code``).
        """
        h = self.code_hash(vm, source)
        unit = self.units.get(h)
        if unit is None:
            limit = self.config.compile_time_limit if bounded else 0.0
            with collector_paused():
                unit = call_bounded(
                    limit,
                    "the source",
                    lambda: compile_source(
                        source,
                        vm=vm,
                        test_clock=stored or self.config.test_clock,
                        checks=not stored,  # stored code loads as accepted, whatever came since
                    ),
                )
            unit = self.units.put(h, unit)
        return h, unit

    def _keep_code(self, cdef: ContractDef) -> str:
        """A contract was deployed with ``cdef``'s code: the code joins the ``codes`` table
        (with the block being sealed) so that the contract loads again after a restart."""
        h = self._code_of(cdef)
        with self.code_lock:
            if h not in self.codes:
                self.codes[h] = (cdef.vm, cdef.source)
                self.new_codes.add(h)
        return h

    def _cdef(self, code_hash: str, name: str) -> ContractDef:
        vm, source = self.codes[code_hash]
        _, unit = self.unit(vm, source, stored=True)
        return unit.contracts[name]

    def _code_of(self, cdef: ContractDef) -> str:
        return self.code_hash(cdef.vm, cdef.source)

    def _new_sub(
        self,
        username: str,
        sender: str,
        type_: str,
        payload: dict[str, Any],
        chain: str,
        tx_params: dict[str, Any] | None,
        *,
        resolve: bool = False,
        internal: bool = False,
    ) -> Sub:
        params = tx_params or {}
        gas_limit = parse_amount(params.get("gasLimit", DEFAULT_GAS_LIMIT), "txParams.gasLimit")
        gas_price = parse_amount(params.get("gasPrice", DEFAULT_GAS_PRICE), "txParams.gasPrice")
        with self.seq_lock:  # large requests are prepared on a worker thread
            self._seq += 1
            seq = self._seq
        now = time.time()
        body = dumps([sender, seq, now, type_, payload, chain, gas_limit, gas_price])
        digest = keccak256(body.encode())
        signature: dict[str, str] = {}
        sealed = self._sealed.get(sender)
        if sealed is None:
            row = self.store.one("SELECT sealed FROM keys WHERE address=?", sender)
            sealed = self._sealed[sender] = row["sealed"] if row is not None else b""
        if sealed:
            sig = self.vault.sign(sealed, digest)
            signature = {"r": sig[:32].hex(), "s": sig[32:64].hex(), "v": format(27 + sig[64], "x")}
        tx_hash = keccak256(digest + bytes.fromhex("".join(signature.values()) or "00")).hex()
        return Sub(
            seq=seq,
            hash=tx_hash,
            sender=sender,
            username=username,
            type=type_,
            payload=payload,
            chain=chain,
            gas_limit=gas_limit,
            gas_price=gas_price,
            submitted_at=now,
            resolve=resolve,
            internal=internal,
            signature=signature,
        )

    def _enqueue(self, subs: list[Sub]) -> None:
        """Queue transactions (recorded, or waited for) for the producer's thread."""
        with self.queue_cv:
            self.queue.extend(subs)
            self.queue_cv.notify()

    def _record(self, subs: list[Sub]) -> None:
        with self.store.transaction() as db:
            # under the store's lock: the worker may have written some in a block meanwhile
            fresh = [s for s in subs if not s.recorded]
            if fresh:
                self._insert_rows(db, fresh)

    def _insert_rows(self, db: Any, subs: list[Sub]) -> None:
        for s in subs:
            s.recorded = True
        db.executemany(
            "INSERT INTO txs (seq, hash, sender, username, type, request, status, chain, "
            "to_address, submitted_at) VALUES (?, ?, ?, ?, ?, ?, 'Pending', ?, ?, ?)",
            [
                (
                    s.seq,
                    s.hash,
                    s.sender,
                    s.username,
                    s.type,
                    s.request_json(),
                    s.chain,
                    _to_address(s),
                    s.submitted_at,
                )
                for s in subs
            ],
        )

    def _internal_sub(self, type_: str, payload: dict[str, Any], chain: str = "") -> Sub:
        root = self.key_of(ROOT_USER)
        assert root is not None
        sub = self._new_sub(ROOT_USER, root["address"], type_, payload, chain, None, internal=True)
        return sub
