"""Transaction submission, results (members only for private chains) and the faucet."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ..errors import ApiError, bad_request
from ..jsonenc import compact_json, compact_json_nested_in_pieces, heavy
from ..ledger import norm_address, norm_chain
from ..txvisibility import hidden_hashes, unknown_result, visible_results
from .base import ANSWER_ON_LOOP_MAX, ApiBase, JsonBody, flag, json_answer


class TxRoutes(ApiBase):
    """Submitting transactions and reading their results."""

    async def transaction(self, request: Request) -> Response:
        name = request.state.user
        sender = self.sender_of(name)
        body = await self.json_body(request)
        if not isinstance(body, dict):
            raise bad_request("request body must be an object with txs and txParams")
        chain = norm_chain(request.query_params.get("chainid"))
        resolve = flag(request, "resolve")
        results = await self.ledger.submit(
            name, sender, body.get("txs"), body.get("txParams"), chain, resolve
        )
        _raise_if_lone_failure(results, resolve)
        return await json_answer(results)

    async def transaction_parallel(self, request: Request) -> Response:
        """``/transaction/parallel`` as STRATO 16's bloc runs it: the request's transactions go
        out grouped by type (TRANSFER, then CONTRACT, then FUNCTION, request order within a
        group), one group after the other, so the results come back grouped too. A group of one
        transaction that fails with ``resolve`` answers 422 and the later groups are not sent;
        in a larger group a failure is a ``Failure`` entry. Nonces are consecutive whatever the
        concurrency (the sandbox assigns them as it executes), so the sender's pending
        ``resolve=false`` transactions are never discarded here."""
        name = request.state.user
        sender = self.sender_of(name)
        body = await self.json_body(request)
        if not isinstance(body, dict):
            raise bad_request("request body must be an object with txs and txParams")
        chain = norm_chain(request.query_params.get("chainid"))
        resolve = flag(request, "resolve")
        txs = body.get("txs")
        groups = _by_type(txs)
        results: list[dict[str, Any]] = []
        for group in groups:
            got = await self.ledger.submit(
                name, sender, group, body.get("txParams"), chain, resolve, keep_pending=True
            )
            _raise_if_lone_failure(got, resolve)
            results += got
        return await json_answer(results)

    async def tx_result(self, request: Request) -> Response:
        h = request.path_params["hash"].lower().removeprefix("0x")
        if _HASH.fullmatch(h) is None:
            raise bad_request("transaction hash must be 64 hex digits")
        if flag(request, "resolve"):
            timeout = self.ledger.config.resolve_timeout
            if h in hidden_hashes(self.ledger, request.state.user, [h]):
                return JsonBody(unknown_result(h))
            res = (await self.ledger.wait_results([h], timeout))[0]
        else:
            res = self.ledger.result(h)
        return JsonBody(visible_results(self.ledger, request.state.user, [res])[0])

    async def tx_results(self, request: Request) -> Response:
        body = await self.json_body(request)
        if not isinstance(body, list) or not all(isinstance(h, str) for h in body):
            raise bad_request("body must be a JSON array of transaction hashes")
        if len(body) > 10_000:
            raise bad_request("at most 10000 hashes per request")
        hashes = _checked_hashes(body)
        if flag(request, "resolve"):
            timeout = self.ledger.config.resolve_timeout
            hidden = hidden_hashes(self.ledger, request.state.user, hashes)
            shown = [h for h in hashes if h not in hidden]
            waited = iter(await self.ledger.wait_results(shown, timeout))
            results = [unknown_result(h) if h in hidden else next(waited) for h in hashes]
            return await json_answer(visible_results(self.ledger, request.state.user, results))
        user = request.state.user

        def read() -> tuple[set[str], dict[str, dict[str, Any]]]:
            queued = self.ledger.queued_of(hashes)
            rest = list(dict.fromkeys(h for h in hashes if h not in queued))
            found = visible_results(self.ledger, user, self.ledger.results_of(rest))
            return queued, dict(zip(rest, found, strict=True))

        def answer() -> bytes:
            return results_body(hashes, *read())

        if len(hashes) > ANSWER_ON_LOOP_MAX:
            # thousands of hashes are thousands of reads: on a worker thread (the store locks
            # them), and so is their encoding
            body_bytes = await asyncio.to_thread(answer)
        else:
            queued, found = read()
            if heavy(list(found.values())):  # an upload's answer, or many: off the loop
                body_bytes = await asyncio.to_thread(results_body, hashes, queued, found)
            else:
                body_bytes = results_body(hashes, queued, found)
        return Response(body_bytes, media_type=JsonBody.media_type)

    async def fill(self, request: Request) -> Response:
        address = norm_address(request.path_params["address"], "address")
        return JsonBody(
            await self.ledger.faucet(request.state.user, address, flag(request, "resolve"))
        )


_HASH = re.compile("[0-9a-f]{64}")
# compact_json(pending_result(h)), byte for byte, for a hash of 64 hex digits
_PENDING = '{"status":"Pending","hash":"%s","txResult":null,"data":null}'


def _checked_hashes(body: list[str]) -> list[str]:
    """``body``'s hashes, lower case without ``0x``; a 400 naming the first that is not 64
    hex digits. All of them checked in one C call first (``bytes.fromhex``, which skips
    whitespace: so the byte count too): 10,000 regex matches held the loop ~6 ms."""
    hashes = [h.lower().removeprefix("0x") for h in body]
    if all(len(h) == 64 for h in hashes) and _hex_bytes("".join(hashes)) == 32 * len(hashes):
        return hashes
    for h in hashes:
        if _HASH.fullmatch(h) is None:
            raise bad_request(f"invalid transaction hash {h[:80]!r}: expected 64 hex digits")
    return hashes  # (not reached: fromhex refuses only what the pattern refuses)


def _hex_bytes(text: str) -> int:
    """How many bytes ``text``'s hex digits make (whitespace between them skipped); -1 when
    it holds anything else."""
    try:
        return len(bytes.fromhex(text))
    except ValueError:
        return -1


def results_body(hashes: list[str], queued: set[str], found: dict[str, dict[str, Any]]) -> bytes:
    """The JSON array of the results of ``hashes``: ``Pending`` for the ``queued`` ones (a
    poll of a long backlog is mostly those: written from a template, no object made or
    encoded), ``found[h]`` for the others; the same bytes as ``compact_json`` of the list.
    The caller runs it off the event loop when a result is heavy (see json_answer)."""
    parts: list[bytes] = []
    pending: list[str] = []  # consecutive queued hashes, written in one go
    for h in hashes:
        if h in queued:
            pending.append(_PENDING % h)
            continue
        if pending:
            parts.append(",".join(pending).encode())
            pending = []
        res = found[h]
        # a large one (an upload's holds its source and xabi) in pieces, the lock let go
        # between them, as json_answer encodes it
        parts.append(compact_json_nested_in_pieces(res) if heavy(res) else compact_json(res))
    if pending:
        parts.append(",".join(pending).encode())
    return b"[" + b",".join(parts) + b"]"


def _raise_if_lone_failure(results: list[dict[str, Any]], resolve: bool) -> None:
    """A resolved request of one transaction that failed answers 422 with its message."""
    if resolve and len(results) == 1 and results[0]["status"] == "Failure":
        message = results[0]["txResult"]["message"]
        raise ApiError(422, f"Error running the transaction: {message}")


PARALLEL_ORDER = ("TRANSFER", "CONTRACT", "FUNCTION")


def _by_type(txs: Any) -> list[Any]:
    """The request's transactions as the groups ``/transaction/parallel`` sends, in order.

    A malformed request (not a list, an element without a known type) is one group, so that
    validation names the element by its index in the request."""
    if not isinstance(txs, list) or not all(
        isinstance(t, dict) and t.get("type") in PARALLEL_ORDER for t in txs
    ):
        return [txs]
    groups = [[t for t in txs if t["type"] == kind] for kind in PARALLEL_ORDER]
    return [g for g in groups if g] or [txs]
