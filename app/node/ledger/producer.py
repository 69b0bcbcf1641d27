"""The block producer: submission, the queue, sealing and committing blocks."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

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
        if fresh:
            self._genesis()
        for row in self.store.all(
            "SELECT * FROM txs WHERE status='Pending' AND block_number IS NULL ORDER BY seq"
        ):
            self.queue.append(self._sub_from_row(row))

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
    ) -> list[dict[str, Any]]:
        """Validate, record and queue a request's transactions; wait for them if ``resolve``."""
        if self.halted:
            raise ApiError(503, self.halted)
        if tx_params is not None and not isinstance(tx_params, dict):
            raise bad_request("txParams must be an object with gasLimit and gasPrice")
        args = (username, sender, txs, tx_params, query_chain, resolve)
        if isinstance(txs, list) and len(txs) > PREPARE_ON_LOOP_MAX:
            # checking, signing and recording thousands of transactions takes a while
            subs = await asyncio.to_thread(self._prepare, *args)
        else:
            subs = self._prepare(*args)
        if resolve:
            self._discard_pending_of(username)
        loop = asyncio.get_running_loop()
        if resolve:
            for s in subs:
                s.future = loop.create_future()
        self.queue.extend(subs)
        self.wakeup.set()
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
        self.queue.append(sub)
        self.wakeup.set()
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

    async def create_chain(self, username: str, sender: str, body: Any) -> str:
        if self.halted:
            raise ApiError(503, self.halted)
        payload = self.validate_chain(username, body)
        sub = self._new_sub(username, sender, "GENESIS", payload, "", None, resolve=True)
        sub.future = asyncio.get_running_loop().create_future()
        self._record([sub])
        self.queue.append(sub)
        self.wakeup.set()
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
        """Start the block producer: a task on the loop that hands batches to one worker
        thread, which alone executes and commits blocks while the loop keeps serving."""
        loop = asyncio.get_running_loop()
        self._worker = ThreadPoolExecutor(1, thread_name_prefix="block-producer")
        self._keep_history()
        self._watchdog = Watchdog(self.world, self.config.tx_time_limit)
        self._watchdog.start()
        # The worker holds the GIL while it executes; the loop gets it back at each switch
        # interval (5 ms by default), several times per request: a shorter one keeps the
        # loop's requests fast while contracts run.
        sys.setswitchinterval(SWITCH_INTERVAL)
        self._stopping = False
        self._producer = loop.create_task(self._produce())
        if self.queue:  # transactions recorded before a crash or shutdown run first
            self.wakeup.set()

    async def stop(self) -> None:
        self._stopping = True
        if self._producer is not None:
            self.wakeup.set()
            await self._producer  # it ends after the slice it is executing, if any
            self._producer = None
        if self.queue and not self.halted:
            with contextlib.suppress(Exception):
                await self._run_slice()
        if self._watchdog is not None:
            self._watchdog.stop()
        if self._worker is not None:
            self._worker.shutdown()
        self.snapshot()

    async def _produce(self) -> None:
        while not self._stopping:
            await self.wakeup.wait()
            self.wakeup.clear()
            if self.config.block_time > 0:
                await asyncio.sleep(self.config.block_time)
            while self.queue and not self._stopping:
                try:
                    await self._run_slice()
                except Exception as exc:
                    self._halt(exc)
                    return

    async def _run_slice(self, limit: int = 2_000) -> None:
        """One block: at most ``limit`` transactions and about ``SLICE_SECONDS`` of execution;
        the rest goes back to the queue, behind the other users' transactions (each user's own
        stay in order). Executed on the worker thread, however small: never on the loop."""
        batch, self.queue = self.queue[:limit], self.queue[limit:]
        if not batch:
            return
        rest = batch
        self.running = batch
        try:
            if self._worker is None:
                done = self._seal_slice(rest)
            else:
                loop = asyncio.get_running_loop()
                done = await loop.run_in_executor(self._worker, self._seal_slice, rest)
            self._publish(rest, done)
            rest = rest[len(done) :]
        except BaseException:
            self.queue = rest + self.queue  # still Pending on disk; re-run after a restart
            raise
        finally:
            self.running = []
        if rest:
            users = {s.username for s in rest}
            others = [s for s in self.queue if s.username not in users]
            self.queue = others + rest + [s for s in self.queue if s.username in users]

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
