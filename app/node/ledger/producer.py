"""The block producer: submission, the queue, sealing and committing blocks."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

from ..cirrus.indexer import cirrus_timestamp
from ..errors import ApiError, bad_request
from ..genesis import (
    DEMO_BALANCE,
    DEMO_USERS,
    FAUCET_AMOUNT,
    REGISTRY_ADDRESS,
    REGISTRY_SOURCE,
    ROOT_USER,
)
from ..solidvm import (
    ContractDef,
)
from ..solidvm.ops import keccak256
from ..store import dumps
from .common import (
    SNAPSHOT_EVERY_BLOCKS,
    SNAPSHOT_EVERY_SECONDS,
    ZERO_HASH,
    Head,
    Sub,
    discarded_result,
    log,
    pending_result,
)
from .snapshots import LedgerSnapshots


class Ledger(LedgerSnapshots):
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
        checked = self.validate(username, txs, query_chain)
        subs = []
        for (t, payload, chain), raw in zip(checked, txs, strict=True):
            params = raw.get("payload", {}).get("txParams") or tx_params
            if params is not None and not isinstance(params, dict):
                raise bad_request("txParams must be an object with gasLimit and gasPrice")
            subs.append(self._new_sub(username, sender, t, payload, chain, params, resolve=resolve))
        if resolve:
            self._discard_pending_of(username)
        loop = asyncio.get_running_loop()
        if resolve:
            # Their hashes are only handed out with their results, so their rows can be written
            # in the block's own commit: one commit per transaction instead of two.
            for s in subs:
                s.future = loop.create_future()
        else:
            self._record(subs)
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
        self._producer = asyncio.get_running_loop().create_task(self._produce())
        if self.queue:  # transactions recorded before a crash or shutdown run first
            self.wakeup.set()

    async def stop(self) -> None:
        if self._producer is not None:
            self._producer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._producer
        if self.queue:
            self.run_pending()
        self.snapshot()

    async def _produce(self) -> None:
        while True:
            await self.wakeup.wait()
            self.wakeup.clear()
            if self.config.block_time > 0:
                await asyncio.sleep(self.config.block_time)
            while self.queue:
                try:
                    self.run_pending()
                except Exception as exc:
                    self._halt(exc)
                    return
                await asyncio.sleep(0)

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
        batch, self.queue = self.queue[:limit], self.queue[limit:]
        if batch:
            try:
                self._run_block(batch)
            except Exception:
                self.queue = batch + self.queue  # still Pending on disk; re-run after a restart
                raise

    def _run_block(self, batch: list[Sub]) -> None:
        number = self.head.number + 1
        ts = max(int(time.time()), self.head.timestamp)
        results = []
        gas = 0
        for i, sub in enumerate(batch):
            res = self._execute(sub, number, ts, i)
            results.append(res)
            tr = res.get("txResult")
            if isinstance(tr, dict):
                gas += int(tr.get("gasUsed", "0"), 16)
        block_hash = keccak256(
            dumps([self.head.hash, number, ts, [s.hash for s in batch]]).encode()
        ).hex()
        for res in results:
            tr = res.get("txResult")
            if isinstance(tr, dict):
                tr["blockHash"] = block_hash
        events = list(self._pending_events)
        with self.store.transaction() as db:
            fresh = [s for s in batch if not s.recorded]
            if fresh:
                self._insert_rows(db, fresh)
            db.execute(
                "INSERT INTO blocks (number, hash, parent_hash, timestamp, tx_count, gas_used) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (number, block_hash, self.head.hash, ts, len(batch), gas),
            )
            db.executemany(
                "UPDATE txs SET status=?, result=?, block_number=?, tx_index=?, nonce=? "
                "WHERE hash=?",
                [
                    (res["status"], dumps(res), number, i, sub.nonce, sub.hash)
                    for i, (sub, res) in enumerate(zip(batch, results, strict=True))
                ],
            )
            if events:
                db.executemany(
                    "INSERT INTO events (block_number, tx_hash, chain, address, contract, name, "
                    "args) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(number, *e) for e in events],
                )
            for cid in self.dirty_chains:
                chain = self.chains.get(cid)
                if chain is not None:
                    db.execute(
                        "INSERT OR REPLACE INTO chains VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        chain.to_row(),
                    )
            self.dirty_chains.clear()
            db.execute("SAVEPOINT cirrus")
            try:
                self._index_block(number, block_hash, ts)
            except Exception:
                # Cirrus is derived data: a failure there must not stop the chain.
                log.exception("indexing block %d failed; its Cirrus rows are missing", number)
                db.execute("ROLLBACK TO cirrus")
                self.indexer.backend.reload()
            db.execute("RELEASE cirrus")
            for h in self.new_codes:
                vm, source = self.codes[h]
                db.execute(
                    "INSERT OR IGNORE INTO codes (code_hash, vm, source) VALUES (?, ?, ?)",
                    (h, vm, source),
                )
            self.new_codes.clear()
        self.head = Head(number, block_hash, ts)
        for sub, res in zip(batch, results, strict=True):
            self._cache(sub.hash, res)
            if sub.future is not None and not sub.future.done():
                sub.future.set_result(res)
            for fut in self.watchers.pop(sub.hash, ()):
                if not fut.done():
                    fut.set_result(res)
        for listener in self.block_listeners:
            listener(number, batch, results)
        self.blocks_since_snapshot += 1
        if (
            self.blocks_since_snapshot >= SNAPSHOT_EVERY_BLOCKS
            or time.monotonic() - self.last_snapshot > SNAPSHOT_EVERY_SECONDS
        ):
            self.snapshot()

    def _index_block(self, number: int, block_hash: str, ts: int) -> None:
        """Cirrus rows for everything this block changed (called inside the block's commit)."""
        ix = self.indexer
        by_table: dict[str, tuple[ContractDef, list[dict[str, Any]]]] = {}
        for k, (tx_hash, sender) in self._block_touched.items():
            acct = self.world.accounts.get(k)
            meta = self.meta.get(k)
            if acct is None or acct.cdef is None or meta is None or not ix.indexed(acct.cdef):
                continue
            row = ix.row(acct, number, block_hash, ts, tx_hash, sender)
            by_table.setdefault(meta.table, (acct.cdef, []))[1].append(row)
        for table, (cdef, rows) in by_table.items():
            ix.write_rows(table, cdef, rows)
        db = self.store.db
        db.execute("SAVEPOINT collections")
        try:
            self.collections.flush((number, block_hash, ts), self._collection_table)
        except Exception:
            # the contract rows stay; only this block's collection rows are missing
            log.exception("indexing the collections of block %d failed", number)
            db.execute("ROLLBACK TO collections")
            ix.backend.reload()
        db.execute("RELEASE collections")
        hist: dict[str, tuple[ContractDef, list[dict[str, Any]]]] = {}
        for table, cdef, row in self._pending_history:
            row["block_hash"] = block_hash
            row["block_timestamp"] = cirrus_timestamp(ts)
            hist.setdefault(table, (cdef, []))[1].append(row)
        for table, (cdef, rows) in hist.items():
            ix.write_history(table, cdef, rows)
        evs: dict[tuple[str, str], list[tuple[str, str, list[tuple[str, str]], str, str]]] = {}
        event_rows: list[tuple[str, str, list[tuple[str, str]], str, str]]
        params: dict[tuple[str, str], list[str]] = {}
        for tx_hash, chain, address, _contract, name, args_json in self._pending_events:
            k2 = (chain, int(address, 16))
            meta = self.meta.get(k2)
            acct = self.world.accounts.get(k2)
            if meta is None or acct is None or acct.cdef is None or not ix.indexed(acct.cdef):
                continue
            args = [(str(a[0]), str(a[1])) for a in json.loads(args_json)]
            key = (meta.table, name)
            sender = self._event_senders.get(tx_hash, "")
            evs.setdefault(key, []).append((chain, address, args, tx_hash, sender))
            params[key] = [a[0] for a in args]
        for (table, name), event_rows in evs.items():
            ix.write_events(
                table, name, params[(table, name)], event_rows, (number, block_hash, ts)
            )
        self._event_senders.clear()
        self._block_touched.clear()
        self._pending_history.clear()
        self._pending_events.clear()
