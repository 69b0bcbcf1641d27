"""The block producer: submission, the queue, sealing and committing blocks."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
import time
from typing import Any

from ..cirrus.behind16 import catch_up
from ..errors import ApiError, bad_request
from ..genesis import (
    DEMO_BALANCE,
    DEMO_USERS,
    FAUCET_AMOUNT,
    REGISTRY_ADDRESS,
    REGISTRY_SOURCE,
    ROOT_USER,
)
from ..store import dumps
from .blocks import LedgerBlocks
from .common import (
    PREPARE_ON_LOOP_MAX,
    SLICE_SECONDS,
    SWITCH_INTERVAL,
    ZERO_HASH,
    Sub,
    discarded_result,
    log,
    pending_result,
    source_size,
)
from .watchdog import Watchdog


class Ledger(LedgerBlocks):
    """All chain state of the node and the block producer that advances it."""

    def open(self) -> None:
        """Load state from the database (creating the genesis on a fresh data dir)."""
        fresh = self.store.one("SELECT 1 FROM blocks LIMIT 1") is None and (
            self.store.one("SELECT 1 FROM txs LIMIT 1") is None
        )
        if fresh:
            self._create_users()
        self._load_snapshot()
        self._seq = int((self.store.one("SELECT MAX(seq) FROM txs") or [0])[0] or 0)
        root = self.key_of(ROOT_USER)
        self.root_address = root["address"] if root else ""
        self._replay()
        self._index_collections_once()
        self._index_strato16_once()
        self._catch_up16()
        self._rebuild_missed()
        if fresh:
            self._genesis()
        for row in self.store.all(
            "SELECT * FROM txs WHERE status='Pending' AND block_number IS NULL ORDER BY seq"
        ):
            self.queue.append(self._sub_from_row(row))

    def _catch_up16(self) -> None:
        """STRATO 16's rows of the blocks a crash left unwritten (cirrus/behind16.py)."""
        ix = self.indexer16
        if ix is None:
            return
        contracts = []
        for k, meta in self.meta.items():
            acct = self.world.accounts.get(k)
            if acct is not None and self._collection_table(k) is not None:
                contracts.append((k, acct, max(meta.updated_block, meta.created_block)))
        catch_up(ix, self.store, self.head.number, contracts, self._tracked16)

    def _tracked16(self, acct: Any) -> list[Any]:
        return list(self.collections.tracked_vars(acct).values())

    def _create_users(self) -> None:
        from ..users import UserStore

        users = UserStore(self.store, self.vault)
        with self.store.transaction():
            for u in DEMO_USERS:
                if users.get(u.name) is None:
                    users.add(u.name, u.org, u.unit, None, identity=u.identity, demo=True)
                if self.key_of(u.name) is None:
                    self._insert_key(u.name)
            users.ensure_clients()

    def _genesis(self) -> None:
        """Block 0: the identity registry and the demo users' identities and balances."""
        root = self.key_of(ROOT_USER)
        assert root is not None
        subs = [
            self._internal_sub(
                "CONTRACT",
                {
                    "contract": "CertificateRegistry",
                    "src": REGISTRY_SOURCE,
                    "args": {},
                    "metadata": {"VM": "SolidVM"},
                    "address": REGISTRY_ADDRESS,
                },
            )
        ]
        for u in DEMO_USERS:
            key = self.key_of(u.name)
            if u.identity and key is not None:
                subs.append(self._identity_sub(u.name, key["address"], u.org, u.unit))
        if not self.config.gas:
            for u in DEMO_USERS:
                key = self.key_of(u.name)
                if key is not None:
                    subs.append(
                        self._internal_sub(
                            "TRANSFER",
                            {"faucet": True, "toAddress": key["address"], "value": DEMO_BALANCE},
                        )
                    )
        self._record(subs)
        self._run_block(subs)
        self.snapshot()

    async def submit(
        self,
        username: str,
        sender: str,
        txs: Any,
        tx_params: Any,
        query_chain: str,
        resolve: bool,
        keep_pending: bool = False,
    ) -> list[dict[str, Any]]:
        """Validate, record and queue a request's transactions; wait for them if ``resolve``.

        ``keep_pending``: the sender's unfinished ``resolve=false`` transactions stay queued (the
        platform's ``/transaction/parallel`` hands out consecutive nonces, so nothing collides);
        otherwise a ``resolve=true`` request discards them (seed rule 3).
        """
        if self.halted:
            raise ApiError(503, self.halted)
        if tx_params is not None and not isinstance(tx_params, dict):
            raise bad_request("txParams must be an object with gasLimit and gasPrice")
        args = (username, sender, txs, tx_params, query_chain, resolve)
        if isinstance(txs, list) and (len(txs) > PREPARE_ON_LOOP_MAX or source_size(txs) > 0):
            # checking, signing and recording thousands of transactions, or compiling any
            # source (bounded by --compile-time-limit), takes a while
            subs = await asyncio.to_thread(self._prepare, *args)
        else:
            subs = self._prepare(*args)
        if resolve and not keep_pending:
            self._discard_pending_of(username)
        loop = asyncio.get_running_loop()
        if resolve:
            for s in subs:
                s.future = loop.create_future()
        self._enqueue(subs)
        if not resolve:
            return [pending_result(s.hash) for s in subs]
        futures = [s.future for s in subs if s.future is not None]
        try:
            done = await asyncio.wait_for(
                asyncio.shield(asyncio.gather(*futures)), timeout=self.config.resolve_timeout
            )
        except TimeoutError:
            unrecorded = [s for s in subs if not s.recorded and not (s.future and s.future.done())]
            if unrecorded:
                self._record(unrecorded)  # the 504 names their hashes: they must survive a crash
            raise ApiError(
                504,
                {
                    "error": f"the transactions did not complete within "
                    f"{self.config.resolve_timeout:g} s; they are still queued and their results "
                    "stay readable by hash",
                    "hashes": [s.hash for s in subs],
                },
            ) from None
        return list(done)

    def _prepare(
        self, username: str, sender: str, txs: Any, tx_params: Any, query_chain: str, resolve: bool
    ) -> list[Sub]:
        """Validate and sign a request's transactions, recording them unless ``resolve``."""
        checked = self.validate(username, txs, query_chain)
        subs = []
        for (t, payload, chain), raw in zip(checked, txs, strict=True):
            params = raw.get("payload", {}).get("txParams") or tx_params
            if params is not None and not isinstance(params, dict):
                raise bad_request("txParams must be an object with gasLimit and gasPrice")
            subs.append(self._new_sub(username, sender, t, payload, chain, params, resolve=resolve))
        if not resolve:
            self._record(subs)
        # else their hashes are only handed out with their results, so their rows can be
        # written in the block's own commit: one commit per transaction instead of two
        return subs

    def _discard_pending_of(self, username: str) -> None:
        """Seed rule 3: a resolve=true request discards the sender's unfinished async ones."""
        with self.queue_cv:
            victims = [s for s in self.queue if s.username == username and not s.resolve]
            if not victims:
                return
            self.queue = [s for s in self.queue if not (s.username == username and not s.resolve)]
        with self.store.transaction() as db:
            for s in victims:
                res = discarded_result(s.hash)
                self._cache(s.hash, res)
                for fut in self.watchers.pop(s.hash, ()):
                    if not fut.done():
                        fut.set_result(res)
                db.execute(
                    "UPDATE txs SET status='Discarded', result=? WHERE hash=?", (dumps(res), s.hash)
                )

    async def faucet(self, username: str, address: str, resolve: bool) -> dict[str, Any]:
        if not self.config.gas:
            return {"status": "Success", "hash": ZERO_HASH, "txResult": None, "data": None}
        sub = self._internal_sub(
            "TRANSFER", {"faucet": True, "toAddress": address, "value": FAUCET_AMOUNT}
        )
        sub.resolve = resolve
        if resolve:
            sub.future = asyncio.get_running_loop().create_future()
        self._record([sub])
        self._enqueue([sub])
        if not resolve or sub.future is None:
            return pending_result(sub.hash)
        try:
            return await asyncio.wait_for(
                asyncio.shield(sub.future), timeout=self.config.resolve_timeout
            )
        except TimeoutError:
            raise ApiError(
                504,
                {"error": "the faucet transaction did not complete in time", "hashes": [sub.hash]},
            ) from None

    async def run_now(self, sub: Sub) -> dict[str, Any]:
        """Record one transaction of the node's own and wait for its result (it runs on the
        producer's thread like any other)."""
        if self.halted:
            raise ApiError(503, self.halted)
        sub.resolve = True  # not discarded by its user's next resolve=true request
        sub.future = asyncio.get_running_loop().create_future()
        self._record([sub])
        self._enqueue([sub])
        try:
            return await asyncio.wait_for(
                asyncio.shield(sub.future), timeout=self.config.resolve_timeout
            )
        except TimeoutError:
            raise ApiError(
                504, {"error": "the transaction did not complete in time", "hashes": [sub.hash]}
            ) from None

    async def create_chain(self, username: str, sender: str, body: Any) -> str:
        if self.halted:
            raise ApiError(503, self.halted)
        # compiling the governance contract's source takes a while: off the loop
        payload = await asyncio.to_thread(self.validate_chain, username, body)
        sub = self._new_sub(username, sender, "GENESIS", payload, "", None, resolve=True)
        sub.future = asyncio.get_running_loop().create_future()
        self._record([sub])
        self._enqueue([sub])
        if body.get("async") is True:
            return str(payload["chainId"])
        try:
            res = await asyncio.wait_for(
                asyncio.shield(sub.future), timeout=self.config.resolve_timeout
            )
        except TimeoutError:
            raise ApiError(
                504, {"error": "the chain was not created in time", "hashes": [sub.hash]}
            ) from None
        if res["status"] != "Success":
            raise ApiError(400, f"Could not create the chain: {res['txResult']['message']}")
        return str(payload["chainId"])

    def start(self) -> None:
        """Start the block producer: one thread that alone executes and commits blocks, fed
        by the loop through the queue, while the loop keeps serving. Its results come back to
        the loop with ``call_soon_threadsafe`` (futures are not thread-safe)."""
        self._loop = asyncio.get_running_loop()
        self._keep_history()
        self._watchdog = Watchdog(self.world, self.config.tx_time_limit)
        self._watchdog.start()
        # The worker holds the GIL while it executes; the loop gets it back at each switch
        # interval (5 ms by default), several times per request: a shorter one keeps the
        # loop's requests fast while contracts run.
        sys.setswitchinterval(SWITCH_INTERVAL)
        self._stopping = False
        # transactions recorded before a crash or shutdown are in the queue already: they
        # run first
        self._thread = threading.Thread(target=self._produce, name="block-producer", daemon=True)
        self._thread.start()
        if self.behind16 is not None:  # STRATO 16's rows, on their own thread
            self.behind16.start()

    async def stop(self) -> None:
        with self.queue_cv:
            self._stopping = True
            self.queue_cv.notify_all()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join)  # it ends after its slice, if any
            self._thread = None
        if self.queue and not self.halted:
            with contextlib.suppress(Exception):
                done = await asyncio.to_thread(self._run_slice)
                if done is not None:
                    self._publish(*done)
        if self._watchdog is not None:
            self._watchdog.stop()
        if self.behind16 is not None:
            await asyncio.to_thread(self.behind16.stop)  # (writes what is queued)
        self.snapshot()

    def _produce(self) -> None:
        """The producer thread: a slice as soon as the queue holds anything. Transactions
        that arrive while a slice runs wait and go together into the next one."""
        loop = self._loop
        assert loop is not None
        while True:
            with self.queue_cv:
                idle = not self.queue
                while not self.queue and not self._stopping:
                    self.queue_cv.wait()
                if self._stopping:
                    return
            if idle and self.config.block_time > 0:
                time.sleep(self.config.block_time)
            try:
                done = self._run_slice()
            except Exception as exc:
                loop.call_soon_threadsafe(self._halt, exc)
                return
            if done is not None:
                loop.call_soon_threadsafe(self._publish, *done)

    def _run_slice(self, limit: int = 2_000) -> tuple[list[Sub], list[dict[str, Any]]] | None:
        """One block, on the producer's thread: at most ``limit`` transactions and about
        ``SLICE_SECONDS`` of execution; the rest goes back to the queue, behind the other
        users' transactions (each user's own stay in order). Returns the sealed transactions
        and their results, for ``_publish`` on the loop."""
        with self.queue_cv:
            batch, self.queue = self.queue[:limit], self.queue[limit:]
            self.running = batch
        if not batch:
            return None
        try:
            done = self._seal_slice(batch)
        except BaseException:
            with self.queue_cv:
                # still Pending on disk; re-run after a restart
                self.queue = batch + self.queue
                self.running = []
            raise
        rest = batch[len(done) :]
        with self.queue_cv:
            if rest:
                users = {s.username for s in rest}
                others = [s for s in self.queue if s.username not in users]
                self.queue = others + rest + [s for s in self.queue if s.username in users]
            # the results are committed: a reader that misses them here finds them on disk
            self.running = []
        return batch[: len(done)], done

    def _seal_slice(self, batch: list[Sub]) -> list[dict[str, Any]]:
        with self.sealing:
            return self._seal_block(batch, SLICE_SECONDS)

    def _halt(self, exc: BaseException) -> None:
        """A block could not be committed: stop producing rather than diverge from the disk."""
        log.critical("block production stopped: %s", exc, exc_info=exc)
        self.halted = f"block production stopped after an internal error ({exc}); restart the node"
        for sub in self.queue:
            if sub.future is not None and not sub.future.done():
                sub.future.set_exception(ApiError(503, self.halted))
        for futs in self.watchers.values():
            for fut in futs:
                if not fut.done():
                    fut.set_exception(ApiError(503, self.halted))
        self.watchers.clear()

    def run_pending(self, limit: int = 2_000) -> None:
        """Seal the head of the queue in one block now, on this thread (no producer running)."""
        batch, self.queue = self.queue[:limit], self.queue[limit:]
        if batch:
            try:
                self._run_block(batch)
            except Exception:
                self.queue = batch + self.queue  # still Pending on disk; re-run after a restart
                raise
