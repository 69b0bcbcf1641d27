"""Taking transactions in: validating, signing, recording and queueing a request's
transactions, and waiting for their results."""

from __future__ import annotations

import asyncio
from typing import Any

from ..config import NodeConfig
from ..errors import ApiError, bad_request
from ..genesis import FAUCET_AMOUNT
from ..store import dumps
from .common import (
    PREPARE_ON_LOOP_MAX,
    ZERO_HASH,
    Sub,
    discarded_result,
    pending_result,
    source_size,
)
from .intakelog import IntakeLog
from .keys import KeyRing
from .producer import Producer
from .results import Results
from .txqueue import TxQueue
from .validation import Validator


async def _within(fut: asyncio.Future[dict[str, Any]], timeout: float) -> dict[str, Any]:
    """``fut``'s result, or TimeoutError after ``timeout`` seconds: awaited directly, so that
    the producer's result reaches the request in one step of the loop (``wait_for`` and
    ``shield`` each add one). A request cancelled meanwhile cancels ``fut`` only: the
    transaction runs all the same and its result stays readable by hash."""
    expiry = asyncio.get_running_loop().call_later(timeout, _expire, fut)
    try:
        return await fut
    finally:
        expiry.cancel()


def _expire(fut: asyncio.Future[dict[str, Any]]) -> None:
    if not fut.done():
        fut.set_exception(TimeoutError())


def _answered(fut: asyncio.Future[dict[str, Any]] | None) -> bool:
    """``fut`` holds a result (not a timeout, nor a cancellation)."""
    return fut is not None and fut.done() and not fut.cancelled() and fut.exception() is None


class Intake:
    """The write path's front: what ``POST /transaction``, the faucet, chain creation and the
    node's own transactions go through (on the event loop; large requests are prepared on a
    worker thread)."""

    def __init__(
        self,
        config: NodeConfig,
        keys: KeyRing,
        validator: Validator,
        queue: TxQueue,
        results: Results,
        producer: Producer,
        intake_log: IntakeLog | None = None,
    ) -> None:
        self.config = config
        # resolve=false transactions are made durable here, not with a row of their own
        self.log = intake_log
        self.keys = keys
        self.validator = validator
        self.queue = queue
        self.results = results
        self.producer = producer

    def _check_running(self) -> None:
        if self.producer.halted:
            raise ApiError(503, self.producer.halted)

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
        self._check_running()
        if tx_params is not None and not isinstance(tx_params, dict):
            raise bad_request("txParams must be an object with gasLimit and gasPrice")
        args = (username, sender, txs, tx_params, query_chain, resolve)
        if isinstance(txs, list) and (len(txs) > PREPARE_ON_LOOP_MAX or source_size(txs) > 0):
            # checking, signing and recording more than a few transactions (the recording waits
            # for the store's lock while the producer commits), or compiling any source
            # (bounded by --compile-time-limit), takes a while: the loop serves meanwhile
            subs = await asyncio.to_thread(self.prepare, *args, False)
        else:
            subs = self.prepare(*args, True)
        if resolve and not keep_pending:
            self.discard_pending_of(username)
        loop = asyncio.get_running_loop()
        if resolve:
            for s in subs:
                s.future = loop.create_future()
        self.queue.put(subs)
        if not resolve:
            return [pending_result(s.hash) for s in subs]
        futures = [s.future for s in subs if s.future is not None]
        # one transaction (the usual request) waits on its own future: no gather in between
        try:
            if len(futures) == 1:
                return [await _within(futures[0], self.config.resolve_timeout)]
            done = await asyncio.wait_for(
                asyncio.shield(asyncio.gather(*futures)), timeout=self.config.resolve_timeout
            )
        except TimeoutError:
            unrecorded = [s for s in subs if not s.recorded and not _answered(s.future)]
            if unrecorded:  # the 504 names their hashes: they must survive a crash
                self.queue.record(unrecorded)
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

    def prepare(
        self,
        username: str,
        sender: str,
        txs: Any,
        tx_params: Any,
        query_chain: str,
        resolve: bool,
        on_loop: bool = True,
    ) -> list[Sub]:
        """Validate and sign a request's transactions. Unless ``resolve`` they are made
        durable before their hashes are handed out: on the loop by the intake log (a store
        transaction there would wait for the producer's commit), on a worker thread by their
        ``Pending`` rows (that insert runs beside the producer's execution, SQLite letting go
        of the interpreter's lock, and their block then only updates them: batches of 100
        ran ~8 % slower with the rows inserted by the block)."""
        checked = self.validator.validate(username, txs, query_chain)
        subs = []
        for (t, payload, chain), raw in zip(checked, txs, strict=True):
            params = raw.get("payload", {}).get("txParams") or tx_params
            if params is not None and not isinstance(params, dict):
                raise bad_request("txParams must be an object with gasLimit and gasPrice")
            subs.append(
                self.keys.new_sub(username, sender, t, payload, chain, params, resolve=resolve)
            )
        if not resolve:
            if on_loop and self.log is not None:  # one append, without the store's lock
                self.log.append(subs)
            else:
                self.queue.record(subs)
        # their rows are written sealed, in their block's own commit (resolve=true: their
        # hashes are only handed out with their results)
        return subs

    def discard_pending_of(self, username: str) -> None:
        """Seed rule 3: a resolve=true request discards the sender's unfinished async ones."""
        victims = self.queue.discard_async_of(username)
        if not victims:
            return
        discarded = [(s, discarded_result(s.hash)) for s in victims]
        with self.queue.store.transaction() as db:
            for s, res in discarded:
                if s.recorded:
                    db.execute(
                        "UPDATE txs SET status='Discarded', result=? WHERE hash=?",
                        (dumps(res), s.hash),
                    )
            logged = [
                (s, ("Discarded", dumps(res), None, None, None, s.hash))
                for s, res in discarded
                if not s.recorded
            ]
            if logged:  # (in the intake log only)
                TxQueue.insert_sealed(db, logged)
        if self.log is not None:
            self.log.settled(victims)
        for s, res in discarded:
            self.results.settle(s.hash, res)

    async def faucet(self, username: str, address: str, resolve: bool) -> dict[str, Any]:
        if not self.config.gas:
            return {"status": "Success", "hash": ZERO_HASH, "txResult": None, "data": None}
        sub = self.keys.internal_sub(
            "TRANSFER", {"faucet": True, "toAddress": address, "value": FAUCET_AMOUNT}
        )
        sub.resolve = resolve
        if resolve:
            sub.future = asyncio.get_running_loop().create_future()
        self.queue.record([sub])
        self.queue.put([sub])
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
        self._check_running()
        sub.resolve = True  # not discarded by its user's next resolve=true request
        sub.future = asyncio.get_running_loop().create_future()
        self.queue.record([sub])
        self.queue.put([sub])
        try:
            return await asyncio.wait_for(
                asyncio.shield(sub.future), timeout=self.config.resolve_timeout
            )
        except TimeoutError:
            raise ApiError(
                504, {"error": "the transaction did not complete in time", "hashes": [sub.hash]}
            ) from None

    async def create_chain(self, username: str, sender: str, body: Any) -> str:
        self._check_running()
        # compiling the governance contract's source takes a while: off the loop
        payload = await asyncio.to_thread(self.validator.validate_chain, username, body)
        sub = self.keys.new_sub(username, sender, "GENESIS", payload, "", None, resolve=True)
        sub.future = asyncio.get_running_loop().create_future()
        self.queue.record([sub])
        self.queue.put([sub])
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
