"""Contracts (bloc): listing, details, state, mapping entries, xabi and compile."""

from __future__ import annotations

import asyncio
import contextlib
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ..errors import ApiError, bad_request
from ..jsonenc import compact_json_nested_in_pieces
from ..ledger import norm_address, norm_chain
from ..ledger.readview import CommittedView
from ..solidvm import ParseError, SolidVMError, compile_source
from ..solidvm.abi import encode_value
from ..solidvm.proxies import PROXY_NAMES, delegated_vars
from ..solidvm.values import Address
from ..state_pages import Budget, OverBudget, variable_answer, whole_state
from ..timebox import call_bounded
from .base import ApiBase, JsonBody, flag, int_param

# the state route reads at most this many entries on the event loop; larger reads run one at a
# time on a worker thread of its own (not the default pool, which the block producer's worker
# uses; a second thread would add no CPU under the GIL, only contend with the loop for it)
STATE_ON_LOOP_ENTRIES = 2_000
_STATE_READS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="state-read")


def merged_xabi(own: dict[str, Any], logic: dict[str, Any]) -> dict[str, Any]:
    """A proxy's xabi with its logic contract's functions, variables and types added (the
    proxy's own win a clash), as the platform's API merges the two contracts."""
    out = dict(own)
    for k in ("funcs", "vars", "types", "events", "modifiers"):
        if isinstance(own.get(k), dict) or isinstance(logic.get(k), dict):
            out[k] = {**(logic.get(k) or {}), **(own.get(k) or {})}
    return out


class ContractRoutes(ApiBase):
    """Contracts in bloc's shapes, and compiling source."""

    async def contracts(self, request: Request) -> Response:
        chain = norm_chain(request.query_params.get("chainid"))
        if chain:
            self.ledger.require_member(request.state.user, chain)
        out: dict[str, list[dict[str, Any]]] = {}
        metas = [(a, m) for (c, a), m in self.ledger.committed().meta.items() if c == chain]
        blocks = self.ledger.block_times({m.created_block for _, m in metas})
        for a, m in metas:
            out.setdefault(m.name, []).append(
                {
                    "createdAt": blocks.get(m.created_block, 0) * 1000,
                    "createdBlock": m.created_block,  # sandbox extra: the explorer shows it
                    "address": format(a, "040x"),
                    "chainId": chain,
                }
            )
        return JsonBody(out)

    def _contract(self, request: Request) -> tuple[Any, str, str]:
        name = request.path_params["name"]
        address = request.path_params["address"]
        chain = norm_chain(request.query_params.get("chainid"))
        if chain:
            self.ledger.require_member(request.state.user, chain)
        try:
            addr = norm_address(address, "contract address")
        except ApiError:
            raise bad_request(f"Couldn't find contract {name} at address {address}") from None
        view = self.ledger.committed()
        acct = view.account(int(addr, 16), chain)
        if acct is None or acct.cdef is None:
            raise bad_request(f"Couldn't find contract {name} at address {addr}")
        # a proxy's address also answers to the names of the contracts whose code keeps its
        # variables there (its logic contract, through delegatecall)
        layouts = view.elements(acct.layouts) if acct.layouts else []
        if acct.cdef.name != name and all(c.name != name for c in layouts):
            raise bad_request(f"Couldn't find contract {name} at address {addr}")
        return acct, addr, chain

    async def contract_details(self, request: Request) -> Response:
        acct, addr, chain = self._contract(request)
        meta = self.ledger.committed().meta.get((chain, int(addr, 16)))
        cdef = acct.cdef
        xabi = cdef.xabi
        if cdef.name in PROXY_NAMES:  # as the platform shows a proxy: with its logic's xabi
            view = self.ledger.committed()
            v = view.get(acct.storage, "logicContract")
            logic = view.account(v.value, chain) if isinstance(v, Address) and v.value else None
            if logic is not None and logic.cdef is not None:
                xabi = merged_xabi(xabi, logic.cdef.xabi)
        return JsonBody(
            {
                "bin": cdef.source,
                "chainId": chain,
                "address": addr,
                "bin-runtime": cdef.source,
                "codeHash": {
                    "kind": cdef.vm,
                    "name": cdef.name,
                    "digest": meta.code_hash if meta else "",
                },
                "name": cdef.name,
                "src": cdef.source,
                "xabi": xabi,
            }
        )

    async def contract_state(self, request: Request) -> Response:
        acct, addr, chain = self._contract(request)
        var = request.query_params.get("name")
        length = flag(request, "length")
        offset = int_param(request, "offset", 0) or 0
        count = int_param(request, "count")

        def answer(view: CommittedView, budget: Budget) -> dict[str, Any]:
            found = view.account(int(addr, 16), chain)
            if found is None or found.cdef is None:  # (contracts are never removed)
                raise bad_request(f"Couldn't find contract {acct.cdef.name} at address {addr}")
            if var is None:
                return whole_state(view, found, budget)
            out = variable_answer(view, found, var, length, offset, count, budget)
            if out is None:
                raise bad_request(f"contract {acct.cdef.name} has no state variable {var!r}")
            return out

        # a small answer is read on the loop; a large one (more entries than the budget
        # allows) is read, and encoded in pieces, on a worker thread, pinned at a committed
        # block, while the loop serves other requests
        with contextlib.suppress(OverBudget):
            return JsonBody(answer(self.ledger.committed(), Budget(STATE_ON_LOOP_ENTRIES)))

        def read() -> bytes:
            with self.ledger.pinned_view() as view:
                out = answer(view, Budget(None))
            return compact_json_nested_in_pieces(out)

        body = await asyncio.get_running_loop().run_in_executor(_STATE_READS, read)
        return Response(body, media_type=JsonBody.media_type)

    async def contract_state_key(self, request: Request) -> Response:
        acct, _, _ = self._contract(request)
        var = request.path_params["mapping"]
        key = request.path_params["key"]
        sv = acct.cdef.svars.get(var)
        if sv is None and acct.layouts:
            layouts = self.ledger.committed().elements(acct.layouts)
            sv = next((d for d in delegated_vars(acct, layouts) if d.name == var), None)
        if sv is None or sv.constant:
            raise bad_request(f"contract {acct.cdef.name} has no state variable {var!r}")
        from ..solidvm.abi import decode_value
        from ..solidvm.types import MappingType

        if not isinstance(sv.type, MappingType):
            raise bad_request(f"{var} is not a mapping")
        try:
            k = decode_value(key, sv.type.key, "key", acct.cdef.vm)
        except SolidVMError as exc:
            raise bad_request(exc.message) from None
        from ..solidvm.values import default_value

        v = self.ledger.committed().entry(acct, var, k, default_value(sv.type.value))
        return JsonBody({var: {key: encode_value(v, sv.type.value)}})

    async def xabi(self, request: Request) -> Response:
        body = await self.json_body(request)
        if not isinstance(body, dict) or not isinstance(body.get("src"), str | dict | list):
            raise bad_request("body must be an object with the source in 'src'")
        vm = body.get("vm") or body.get("VM") or "SolidVM"
        if vm not in ("SolidVM", "EVM"):
            raise bad_request(f"Invalid value for VM choice: {json.dumps(vm)}")
        src, test_clock = body["src"], self.ledger.config.test_clock
        limit = self.ledger.config.compile_time_limit
        try:  # on a thread: a large source takes long to compile (the loop keeps serving)
            unit = await asyncio.to_thread(
                call_bounded,
                limit,
                "the source",
                lambda: compile_source(src, vm=vm, test_clock=test_clock),
            )
        except ParseError as exc:
            raise bad_request(str(exc)) from None
        except SolidVMError as exc:
            raise bad_request(exc.message) from None
        return JsonBody({"src": unit.xabis()})

    async def compile(self, request: Request) -> Response:
        body = await self.json_body(request)
        if isinstance(body, dict):
            body = [body]
        if not isinstance(body, list) or not body:
            raise bad_request("body must be an array of {contractName, source, vm}")
        for i, item in enumerate(body):
            if not isinstance(item, dict) or not isinstance(item.get("source"), str):
                raise bad_request(f"element {i} must have a 'source' string")
            vm = item.get("vm") or "SolidVM"
            if vm not in ("SolidVM", "EVM"):
                raise bad_request(f"Invalid value for VM choice: {json.dumps(vm)}")
        # on a thread, each source within --compile-time-limit; nothing is stored (the code
        # joins the codes table when a transaction deploys it)
        return JsonBody(await asyncio.to_thread(self._compile_all, body))

    def _compile_all(self, body: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for item in body:
            vm = item.get("vm") or "SolidVM"
            try:
                h, unit = self.ledger.unit(vm, item["source"], bounded=True)
            except ParseError as exc:
                raise bad_request(str(exc)) from None
            except SolidVMError as exc:
                raise bad_request(exc.message) from None
            name = item.get("contractName")
            names = [name] if isinstance(name, str) else unit.names
            for n in names:
                if n not in unit.contracts:
                    raise bad_request(
                        f"Could not find global contract metadataId for {n} in source"
                    )
                out.append({"contractName": n, "codeHash": {"kind": vm, "name": n, "digest": h}})
        return out
