"""``POST /stratoscope/call``: a read-only function call (a sandbox extension).

STRATO has no read-only call: a view function runs in a transaction, lands in a block and costs
gas on a gas-charging node. This route runs the function on a throwaway overlay of the committed
state (the debugger's :mod:`app.node.debug.overlay`) on a worker thread, under the node's step
budget and transaction time limit, and writes nothing: no block, no nonce, no gas.

The body is the payload of a bloc FUNCTION transaction (``contractAddress``, ``method``,
``args``, ``chainid``; ``contractName`` is accepted and ignored); the answer has the shape of a
resolved function call's result (``status``, ``txResult.message``, ``data.contents``) without a
hash. A function that fails (require, revert, out of steps, time limit) answers 200 with status
``Failure`` and the failure message, as a resolved transaction would; an unknown contract,
method or bad arguments are a 400 naming the field; a private chain the caller is not a member
of is a 403 (the rule for reading the chain).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ..debug.overlay import ViewSource, overlay_world
from ..errors import bad_request
from ..ledger import norm_address, norm_chain
from ..ledger.common import BASE_GAS, NODE_MAX_STEPS, hex64, parse_amount
from ..solidvm import ArgumentError, ExecutionError, SolidVMError, TxEnv
from ..solidvm.abi import decode_args
from ..solidvm.world import World
from .base import ApiBase, json_answer

PATH = "/stratoscope/call"


def _check(world: World, body: Any) -> tuple[str, str, str, dict[str, Any]]:
    """(chain, address, method, args) of a call body, checked against the overlay: a 400
    naming the field otherwise."""
    if not isinstance(body, dict):
        raise bad_request("the body must be an object {contractAddress, method, args, chainid}")
    chain = norm_chain(body.get("chainid"), "chainid")
    address = norm_address(body.get("contractAddress"), "contractAddress")
    method = body.get("method")
    if not isinstance(method, str) or not method:
        raise bad_request("method must be the name of a function")
    if parse_amount(body.get("value", 0), "value"):
        raise bad_request("value: a read-only call carries no value (send a transaction)")
    acct = world.accounts.get((chain, int(address, 16)))
    if acct is None or acct.cdef is None:
        raise bad_request(
            f"contractAddress: no contract at {address}" + (f" on chain {chain}" if chain else "")
        )
    try:  # a proxy takes its logic contract's functions
        typing = world.api_contract(acct, method)
    except ExecutionError:
        typing = None
    fns = [f for f in typing.functions.get(method, []) if f.external] if typing else []
    if typing is None or not fns:
        raise bad_request(f"method: contract {acct.cdef.name} has no function named '{method}'")
    args = body.get("args")
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise bad_request("args must be an object of argument name -> value")
    fn = world.pick_function(typing, method, args)
    try:
        decode_args(fn.params, args, acct.cdef.vm, f"args of {method}")
    except ArgumentError as exc:
        raise bad_request(exc.message) from None
    return chain, address, method, args


class ReadCallRoutes(ApiBase):
    """The read-only call (see the module's docstring)."""

    async def read_call(self, request: Request) -> Response:
        body = await self.json_body(request)
        if isinstance(body, dict):  # membership first: a non-member learns nothing else
            chain = norm_chain(body.get("chainid"), "chainid")
            if chain:
                self.ledger.require_member(request.state.user, chain)
        sender = self.sender_of(request.state.user)
        return await json_answer(await asyncio.to_thread(self._run_read, sender, body))

    def _run_read(self, sender: str, body: Any) -> dict[str, Any]:
        """On a worker thread: the call on an overlay of the committed state."""
        ledger = self.ledger
        source = ViewSource(ledger)
        source.pin()
        try:
            world = overlay_world(ledger.world, source)
            chain, address, method, args = _check(world, body)
            env = TxEnv(
                sender=sender,
                block_number=ledger.head.number + 1,
                timestamp=int(time.time()),
                max_steps=NODE_MAX_STEPS,
            )
            t0 = time.perf_counter()
            try:  # the node's watchdog thread stops it past --tx-time-limit
                with ledger.producer.watchdog.watching(world):
                    res = world.call(address, method, args, env, chain_id=chain)
            except SolidVMError as exc:
                return _answer("Failure", exc.message, None, 0, chain, t0)
            return _answer("Success", "Success!", res.values, res.steps, chain, t0, res.logs)
        finally:
            source.unpin()


def _answer(
    status: str,
    message: str,
    values: list[Any] | None,
    steps: int,
    chain: str,
    t0: float,
    logs: list[str] | None = None,
) -> dict[str, Any]:
    return {
        "status": status,
        "readOnly": True,
        "txResult": {
            "status": "success" if status == "Success" else "failure",
            "message": message,
            # what it would have used as a transaction (nothing is charged)
            "gasUsed": hex64(BASE_GAS + steps),
            "chainId": chain or None,
            "time": round(time.perf_counter() - t0, 6),
            "trace": "\n".join(logs or []),
        },
        "data": {"tag": "Call", "contents": values} if values is not None else None,
    }
