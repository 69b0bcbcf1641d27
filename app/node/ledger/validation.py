"""Checks a request before anything is queued: a bad transaction is a 400, never a
failed block."""

from __future__ import annotations

import json
import time
from typing import Any

from ..chains import parse_member
from ..errors import bad_request
from ..solidvm import (
    ArgumentError,
    ExecutionError,
    ParseError,
    SolidVMError,
)
from ..solidvm.abi import decode_args
from ..solidvm.ops import keccak256
from ..store import dumps
from ..timebox import call_bounded
from .codebook import CodeBook
from .codecache import collector_paused
from .common import (
    MAX_TXS_PER_REQUEST,
    TX_TYPES,
    norm_address,
    norm_chain,
    parse_amount,
)
from .identities import Identities
from .state import ChainState


class Validator:
    """Checks a request before anything is queued (against the live state: a later block
    may still fail a transaction that passed, as on the platform)."""

    def __init__(self, state: ChainState, codes: CodeBook, identities: Identities) -> None:
        self.world = state.world
        self.codes = codes
        self.identities = identities
        self._chain_seq = 0  # makes chain ids unique within a nanosecond

    def validate(
        self, username: str, txs: Any, query_chain: str
    ) -> list[tuple[str, dict[str, Any], str]]:
        """Check every transaction of a request; returns (type, payload, chain) triples."""
        if not isinstance(txs, list) or not txs:
            raise bad_request("txs must be a non-empty array of transactions")
        if len(txs) > MAX_TXS_PER_REQUEST:
            raise bad_request(f"at most {MAX_TXS_PER_REQUEST} transactions per request")
        out: list[tuple[str, dict[str, Any], str]] = []
        for i, tx in enumerate(txs):
            where = f"txs[{i}]"
            if not isinstance(tx, dict):
                raise bad_request(f"{where} must be an object with 'type' and 'payload'")
            t = tx.get("type")
            if t not in TX_TYPES:
                raise bad_request(
                    f"{where}.type must be one of CONTRACT, FUNCTION, TRANSFER, got {json.dumps(t)}"
                )
            payload = tx.get("payload")
            if not isinstance(payload, dict):
                raise bad_request(f"{where}.payload must be an object")
            chain = norm_chain(payload.get("chainid") or query_chain, f"{where}.payload.chainid")
            if chain:
                field = f"{where}.payload.chainid" if payload.get("chainid") else "chainid"
                self.identities.require_member(username, chain, field)
            if t == "CONTRACT":
                out.append((t, self.check_upload(payload, where), chain))
            elif t == "FUNCTION":
                out.append((t, self._check_call(payload, where, chain), chain))
            else:
                out.append((t, self._check_transfer(payload, where), chain))
        return out

    def check_upload(self, p: dict[str, Any], where: str) -> dict[str, Any]:
        src = p.get("src")
        if isinstance(src, dict | list) and src:
            from ..solidvm import join_sources

            try:
                src = join_sources(src)
            except (TypeError, ValueError):
                raise bad_request(f"{where}.payload.src is not a valid source collection") from None
        if not isinstance(src, str) or not src.strip():
            raise bad_request(f"{where}.payload.src must be the contract source code")
        metadata = p.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise bad_request(f"{where}.payload.metadata must be an object")
        vm = metadata.get("VM", "SolidVM")
        if vm not in ("EVM", "SolidVM"):
            raise bad_request(f"Invalid value for VM choice: {json.dumps(vm)}")
        history = metadata.get("history", "")
        if not isinstance(history, str):
            raise bad_request(f"{where}.payload.metadata.history must be a string of names")
        if vm == "SolidVM":
            from ..solidvm.imports import check_imports

            try:  # on the upload as sent (joining drops the file names); a whole parse, so
                # bounded and with the collector paused like the compile below
                with collector_paused():
                    limit = self.codes.config.compile_time_limit
                    call_bounded(limit, "the source", lambda: check_imports(p["src"]))
            except ParseError as exc:
                raise bad_request(str(exc)) from None
            except SolidVMError as exc:
                raise bad_request(exc.message) from None
        try:  # on a worker thread (see ``submit``): bounded by --compile-time-limit
            _, unit = self.codes.unit(vm, src, bounded=True)
        except ParseError as exc:
            raise bad_request(str(exc)) from None
        except SolidVMError as exc:
            raise bad_request(exc.message) from None
        name = p.get("contract") or p.get("name")
        if name is None:
            names = unit.names
            if len(names) != 1:
                raise bad_request(
                    "When you upload multiple contracts, you need to specify which contract "
                    "should be uploaded with the 'contract' field"
                )
            name = names[0]
        if not isinstance(name, str) or name not in unit.contracts:
            raise bad_request(f"Could not find global contract metadataId for {name} in source")
        cdef = unit.contracts[name]
        if cdef.kind != "contract":
            raise bad_request(f"{name} is an {cdef.kind}, not a contract, and cannot be uploaded")
        args = p.get("args", {})
        if args is None:
            args = {}
        ctor = cdef.constructor
        try:
            decode_args(ctor.params if ctor else [], args, vm, f"constructor of {name}")
        except ArgumentError as exc:
            raise bad_request(exc.message) from None
        value = parse_amount(p.get("value", 0), f"{where}.payload.value")
        out = {
            "contract": name,
            "src": src,
            "args": args,
            "metadata": {"VM": vm, "history": history} if history else {"VM": vm},
            "value": value,
        }
        return out

    def _check_call(self, p: dict[str, Any], where: str, chain: str) -> dict[str, Any]:
        address = norm_address(p.get("contractAddress"), f"{where}.payload.contractAddress")
        method = p.get("method")
        if not isinstance(method, str) or not method:
            raise bad_request(f"{where}.payload.method must be the name of a function")
        acct = self.world.accounts.get((chain, int(address, 16)))
        if acct is None or acct.cdef is None:
            raise bad_request(
                "postUsersContractMethod': Couldn't find contract details for contract at "
                f"address {address}" + (f" on chain {chain}" if chain else "")
            )
        try:  # a proxy takes its logic contract's functions (see solidvm/proxies.py)
            typing = self.world.api_contract(acct, method)
        except ExecutionError:
            typing = None
        fns = [f for f in typing.functions.get(method, []) if f.external] if typing else []
        if typing is None or not fns:
            raise bad_request(f"Contract doesn't have a method named '{method}'")
        args = p.get("args")
        if args is None:
            if any(f.params for f in fns) and not any(not f.params for f in fns):
                raise bad_request("no arguments provided to function.")
            args = {}
        fn = self.world.pick_function(typing, method, args)
        try:
            decode_args(fn.params, args, acct.cdef.vm, f"function {method}")
        except ArgumentError as exc:
            raise bad_request(exc.message) from None
        value = parse_amount(p.get("value", 0), f"{where}.payload.value")
        return {
            "contractAddress": address,
            "method": method,
            "args": args,
            "value": value,
            "contractName": acct.cdef.name,
        }

    def _check_transfer(self, p: dict[str, Any], where: str) -> dict[str, Any]:
        to = norm_address(p.get("toAddress"), f"{where}.payload.toAddress")
        if "value" not in p:
            raise bad_request(f"{where}.payload.value is required")
        value = parse_amount(p.get("value"), f"{where}.payload.value")
        return {"toAddress": to, "value": value}

    def validate_chain(self, username: str, body: Any) -> dict[str, Any]:
        """Check a chain creation request (POST /bloc/v2.2/chain); returns the GENESIS payload."""
        if not isinstance(body, dict):
            raise bad_request("body must be a chain creation object")
        label = body.get("label", "")
        if not isinstance(label, str) or len(label) > 256:
            raise bad_request("label must be a string (at most 256 characters)")
        members_in = body.get("members")
        if not isinstance(members_in, list) or not members_in:
            raise bad_request("Private chains must include at least one member")
        if len(members_in) > 1000:
            raise bad_request("at most 1000 members")
        members = [parse_member(m, i) for i, m in enumerate(members_in)]
        balances_in = body.get("balances")
        if not isinstance(balances_in, list):
            raise bad_request("balances must be an array of {address, balance}")
        balances: list[tuple[str, int]] = []
        for i, b in enumerate(balances_in):
            if not isinstance(b, dict):
                raise bad_request(f"balances[{i}] must be an object with address and balance")
            balances.append(
                (
                    norm_address(b.get("address"), f"balances[{i}].address"),
                    parse_amount(b.get("balance", 0), f"balances[{i}].balance"),
                )
            )
        if not any(v > 0 for _, v in balances):
            raise bad_request("At least one account must have a non-zero balance")
        parent = norm_chain(body.get("parentChain"), "parentChain")
        if parent:
            self.identities.require_member(username, parent, "parentChain")
        metadata = body.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise bad_request("metadata must be an object")
        vm = metadata.get("VM", "SolidVM")
        if vm not in ("SolidVM", "EVM"):
            raise bad_request(f"Unknown VM: {json.dumps(vm)[:40]}")
        history = metadata.get("history", "")
        if not isinstance(history, str):
            raise bad_request("metadata.history must be a string")
        name = body.get("contract") or body.get("name")
        code_ptr = body.get("codePtr")
        pointer: list[str] | None = None
        if code_ptr is not None:
            if not isinstance(code_ptr, dict):
                raise bad_request("codePtr must be {account, name}")
            acct_text = code_ptr.get("account")
            if not isinstance(acct_text, str):
                raise bad_request("codePtr.account must be '<address>' or '<address>:<chainId>'")
            a, _, c = acct_text.partition(":")
            ptr_chain = "" if c in ("", "main") else norm_chain(c, "codePtr.account chain")
            if ptr_chain:
                self.identities.require_member(username, ptr_chain, "codePtr.account")
            ptr = self.world.accounts.get((ptr_chain, int(norm_address(a, "codePtr.account"), 16)))
            if ptr is None or ptr.cdef is None:
                raise bad_request(f"codePtr: no contract at {acct_text}")
            src: Any = ptr.cdef.source
            vm = ptr.cdef.vm
            name = code_ptr.get("name") or name
            pointer = [ptr_chain, ptr.hex]
        else:
            src = body.get("src")
        payload = self.check_upload(
            {
                "src": src,
                "contract": name,
                "args": body.get("args") or {},
                "metadata": {"VM": vm, "history": history} if history else {"VM": vm},
            },
            "chain",
        )
        self._chain_seq += 1
        chain_id = keccak256(
            dumps([username, label, parent, time.time_ns(), self._chain_seq]).encode()
        ).hex()
        payload.update(
            {
                "chainId": chain_id,
                "label": label,
                "parentChain": parent,
                "members": [m.to_json() for m in members],
                "balances": [[a, str(v)] for a, v in balances],
            }
        )
        if pointer is not None:
            payload["codePtr"] = pointer
        return payload
