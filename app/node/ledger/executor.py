"""Runs one transaction against the world state and builds its result object."""

from __future__ import annotations

import json
import time
from typing import Any

from ..chains import Chain, parse_member
from ..config import NodeConfig
from ..genesis import (
    REGISTRY_ADDRESS,
    ROOT_USER,
)
from ..solidvm import (
    CompiledUnit,
    SolidVMError,
    TxEnv,
    contract_address,
)
from ..solidvm.errors import Where, where_of
from ..solidvm.runtime import MISSING
from ..solidvm.world import AccountState, ExecResult
from ..state_diff import tx_state_diff_object
from ..store import ArgsText
from ..traces import TraceKeeper
from .codebook import CodeBook
from .common import (
    BASE_GAS,
    GOVERNANCE,
    GOVERNANCE_HEX,
    NODE_MAX_STEPS,
    ContractMeta,
    Sub,
    _failure_status,
    _response_hex,
    hex64,
)
from .identities import Identities
from .journal import BlockJournal, Changes, CirrusWriters
from .preimages import PreImages
from .state import ChainState


class Executor:
    """Runs one transaction against the world state and builds its result object; notes what
    it changed in the block's journal, the changes for the next snapshot and the Cirrus
    indexers' pending work. Runs on the producer's worker (or at start, replaying)."""

    def __init__(
        self,
        config: NodeConfig,
        state: ChainState,
        codes: CodeBook,
        identities: Identities,
        journal: BlockJournal,
        changes: Changes,
        cirrus: CirrusWriters,
    ) -> None:
        self.config = config
        self.state = state
        self.world = state.world
        self.meta = state.meta
        self.chains = state.chains
        self.codes = codes
        self.identities = identities
        self.journal = journal
        self.changes = changes
        self.cirrus = cirrus
        # call traces of recent transactions (traces.py): the executor hands each over, and
        # the block's all at once at its end (block_done)
        self.traces: TraceKeeper | None = None
        # what recent transactions overwrote (preimages.py): the debugger's re-runs read it
        self.preimages: PreImages | None = None
        # the last result's ``stateDiff`` as the object its text was made from, and that text:
        # the sealer hands both to ``pack_result``, which then neither parses the text again
        # nor checks its packed form against it
        self.last_diff: dict[str, Any] | None = None
        self.last_diff_text: str | None = None
        self._uploaded: CompiledUnit | None = None  # the unit the running upload deployed

    def block_done(self) -> None:
        """The block's transactions have run: their call traces go to the trace writer
        together (one blob, made on this thread)."""
        if self.traces is not None:
            self.traces.end_block()

    def execute(
        self,
        sub: Sub,
        number: int,
        ts: int,
        index: int,
        overtime: str = "",
    ) -> dict[str, Any]:
        """Run one transaction; returns its result object. Never raises for contract errors.

        ``overtime``: the time-limit message the transaction failed with when it first ran
        (a replay repeats the failure instead of racing the clock again).
        """
        t0 = time.perf_counter()
        chain = sub.chain
        sender_int = int(sub.sender, 16)
        key = (chain, sender_int)
        nonce = self.world.nonces.get(key, 0)
        sub.nonce = nonce
        is_root = sub.username == ROOT_USER or sub.internal
        gas_on = self.config.gas and not sub.internal
        max_steps = NODE_MAX_STEPS
        price = sub.gas_price
        if gas_on:
            # gas buys steps: no more than the gas limit allows, nor than the balance can pay
            affordable = self.world.balances.get(key, 0) // price if price else sub.gas_limit
            max_steps = max(0, min(NODE_MAX_STEPS, sub.gas_limit, affordable) - BASE_GAS)
        env = TxEnv(
            sender=sub.sender,
            block_number=number,
            timestamp=ts,
            max_steps=max_steps,
        )
        res: ExecResult | None = None
        data: dict[str, Any] | None = None
        self.world.last_trace = None
        pre = self._before(sub, key) if self.preimages is not None else []
        self.last_diff = None
        self.last_diff_text = None
        self._uploaded = None
        kind = "SolidVM"
        where: Where | None = None
        try:
            if not is_root and sender_int not in self.world.identities:
                raise SolidVMError(
                    "Sender does not have a registered certificate: Sender doesn't have a "
                    f"registered cert {sub.sender}",
                    "identity",
                )
            if gas_on:
                have = self.world.balances.get(key, 0)
                if sub.gas_limit < BASE_GAS:
                    raise SolidVMError(
                        f"gas limit {sub.gas_limit} is below the base cost of {BASE_GAS}",
                        "intrinsic gas",
                    )
                if have < BASE_GAS * price:
                    raise SolidVMError(
                        f"insufficient balance: account {sub.sender} holds {have}, but a "
                        f"transaction costs at least {BASE_GAS * price} ({BASE_GAS} gas at "
                        f"gasPrice {price}); fund the account with the faucet first",
                        "insufficient balance",
                    )
            if chain and not is_root and not self.identities.member_addr(sub.sender, chain):
                raise SolidVMError(
                    f"inaccessible chain: {sub.sender} is not a member of chain {chain}",
                    "inaccessible chain",
                )
            if overtime:
                raise SolidVMError(overtime, "time limit")
            if sub.type == "GENESIS":
                res, data = self._exec_genesis(sub, env)
            elif sub.type == "CONTRACT":
                res, data, kind = self._exec_upload(sub, env, nonce)
            elif sub.type == "FUNCTION":
                res, data, kind = self._exec_call(sub, env)
            else:
                data = self._exec_transfer(sub, nonce, BASE_GAS * price if gas_on else 0)
            status = "Success"
            message = "Success!"
        except SolidVMError as exc:
            status = "Failure"
            message = exc.message
            where = where_of(exc)
            data = None
            res = None
        steps = res.steps if res is not None else 0
        gas_used = BASE_GAS + steps
        self.state.will_write(self.world.nonces, key)
        self.world.nonces[key] = nonce + 1
        self.changes.balances.add(key)
        if gas_on:
            fee = min(gas_used * price, self.world.balances.get(key, 0))
            self.state.will_write(self.world.balances, key)
            self.world.balances[key] = self.world.balances.get(key, 0) - fee
        if res is not None:
            self._note_changes(sub, res, number)
        tx_result: dict[str, Any] = {
            "deletedStorage": "",
            "status": "success" if status == "Success" else _failure_status(message),
            "contractsDeleted": "",
            "gasUsed": hex64(gas_used),
            "stateDiff": self._state_diff(res),
            "time": round(time.perf_counter() - t0, 6),
            "kind": kind,
            "chainId": chain or None,
            "response": _response_hex(res),
            "blockHash": "",
            "transactionHash": sub.hash,
            "etherUsed": hex64(gas_used * sub.gas_price if gas_on else 0),
            "newStorage": "",
            "message": message,
            "trace": "\n".join(res.logs) if res is not None else "",  # log(...) lines
            "contractsCreated": ",".join(a for _, a in res.created) if res else "",
        }
        trace = self.world.last_trace
        if trace is not None:
            trace.detach()  # (no cycle left for the collector)
            if self.traces is not None:
                self.traces.note(sub.hash, trace)
        if self.preimages is not None:
            self.preimages.note(sub.hash, number, res.journal if res is not None else [], pre)
        self.world.last_trace = None  # (it holds the transaction's journal)
        if where is not None:
            # Not a key of the platform's txResult (its runtime failures carry no position):
            # the statement that failed, in the platform's SourcePosition shape; `name` is the
            # contract whose code it was, lines and columns those of its (joined) source.
            tx_result["sourcePosition"] = {"name": where[0], "line": where[1], "column": where[2]}
        return {"status": status, "hash": sub.hash, "txResult": tx_result, "data": data}

    def _before(self, sub: Sub, key: tuple[str, int]) -> list[tuple[dict[Any, Any], Any, Any]]:
        """What the transaction may write outside the VM (nonce, fee, a transfer), as it is."""
        n, b = self.world.nonces, self.world.balances
        out = [(n, key, n.get(key, MISSING)), (b, key, b.get(key, MISSING))]
        to = sub.payload.get("toAddress") if sub.type == "TRANSFER" else None
        if isinstance(to, str):
            k2 = (sub.chain, int(to, 16))
            out.append((b, k2, b.get(k2, MISSING)))
        return out

    def _exec_upload(
        self, sub: Sub, env: TxEnv, nonce: int
    ) -> tuple[ExecResult, dict[str, Any], str]:
        p = sub.payload
        vm = p["metadata"].get("VM", "SolidVM")
        # bounded: the compile cache may have dropped the unit since the upload was checked
        code_hash, unit = self.codes.unit(vm, p["src"], bounded=True)
        self._uploaded = unit
        cdef = unit.contracts[p["contract"]]
        explicit = p.get("address") if sub.internal else None
        address = explicit or format(contract_address(int(sub.sender, 16), nonce), "040x")
        res = self.world.deploy(
            cdef,
            p.get("args") or {},
            env,
            chain_id=sub.chain,
            address=address,
            value=int(p.get("value") or 0),
        )
        contents = {
            "bin": p["src"],
            "chainId": sub.chain,
            "address": address,
            "bin-runtime": p["src"],
            "codeHash": {"kind": vm, "name": cdef.name, "digest": code_hash}
            if vm == "SolidVM"
            else {"kind": vm, "digest": code_hash},
            "name": cdef.name,
            "src": p["src"],
            "xabi": cdef.xabi,
        }
        return res, {"tag": "Upload", "contents": contents}, vm

    def _exec_call(self, sub: Sub, env: TxEnv) -> tuple[ExecResult, dict[str, Any], str]:
        p = sub.payload
        res = self.world.call(
            p["contractAddress"],
            p["method"],
            p.get("args") or {},
            env,
            chain_id=sub.chain,
            value=int(p.get("value") or 0),
        )
        acct = self.world.accounts[(sub.chain, int(p["contractAddress"], 16))]
        kind = acct.cdef.vm if acct.cdef else "SolidVM"
        return res, {"tag": "Call", "contents": res.values}, kind

    def _exec_genesis(self, sub: Sub, env: TxEnv) -> tuple[ExecResult, dict[str, Any]]:
        p = sub.payload
        cid = p["chainId"]
        chain = Chain(
            id=cid,
            label=p["label"],
            parent=p["parentChain"],
            members=[parse_member(m, 0) for m in p["members"]],
            balances=[(a, int(v)) for a, v in p["balances"]],
            metadata=dict(p["metadata"]),
            creator=sub.sender,
            creation_block=env.block_number,
            creation_tx=sub.hash,
            governance=p["contract"],
        )
        vm = p["metadata"].get("VM", "SolidVM")
        code_hash, unit = self.codes.unit(vm, p["src"], bounded=True)
        chain.code_hash = code_hash
        cdef = unit.contracts[p["contract"]]
        self.state.will_write(self.chains, cid)
        self.world.add_chain(cid, chain.parent)
        self.chains[cid] = chain
        saved = {k: v for k, v in self.world.balances.items() if k[0] == cid}
        for a, v in chain.balances:
            self.state.will_write(self.world.balances, (cid, int(a, 16)))
            self.world.balances[(cid, int(a, 16))] = v
            self.changes.balances.add((cid, int(a, 16)))
        try:
            res = self.world.deploy(
                cdef, p.get("args") or {}, env, chain_id=cid, address=GOVERNANCE
            )
        except SolidVMError:
            del self.chains[cid]
            self.world.chain_parents.pop(cid, None)
            for a, _ in chain.balances:
                self.world.balances.pop((cid, int(a, 16)), None)
            self.world.balances.update(saved)
            raise
        self.journal.dirty_chains.add(cid)
        return res, {
            "tag": "Upload",
            "contents": {"chainId": cid, "address": GOVERNANCE_HEX, "name": cdef.name},
        }

    def _exec_transfer(self, sub: Sub, nonce: int, fee: int = 0) -> dict[str, Any]:
        p = sub.payload
        to = int(p["toAddress"], 16)
        value = int(p["value"])
        chain = sub.chain
        b = self.world.balances
        if p.get("faucet") and sub.internal:
            self.state.will_write(b, (chain, to))
            b[(chain, to)] = b.get((chain, to), 0) + value
        else:
            src = (chain, int(sub.sender, 16))
            have = b.get(src, 0)
            if have < value + fee:
                raise SolidVMError(
                    f"insufficient balance: account {sub.sender} holds {have}, the transfer "
                    f"needs {value}" + (f" plus {fee} for gas" if fee else ""),
                    "insufficient balance",
                )
            self.state.will_write(b, src)
            self.state.will_write(b, (chain, to))
            b[src] = have - value
            b[(chain, to)] = b.get((chain, to), 0) + value
        self.changes.balances.add((chain, to))
        return {
            "tag": "Send",
            "contents": {
                "hash": sub.hash,
                "gasLimit": sub.gas_limit,
                "codeOrData": "",
                "gasPrice": sub.gas_price,
                "to": p["toAddress"],
                "from": sub.sender,
                "value": str(value),
                "r": sub.signature.get("r", ""),
                "s": sub.signature.get("s", ""),
                "v": sub.signature.get("v", ""),
                "nonce": nonce,
                "chainId": chain or None,
                "metadata": None,
            },
        }

    def _note_changes(self, sub: Sub, res: ExecResult, number: int) -> None:
        history = ""
        if sub.type in ("CONTRACT", "GENESIS"):
            history = str(sub.payload.get("metadata", {}).get("history", ""))
        tracked = {h.strip() for h in history.split(",") if h.strip()}
        for chain, addr in res.created:
            k = (chain, int(addr, 16))
            acct = self.world.accounts[k]
            assert acct.cdef is not None
            org, app, table = self._table_for(acct, sub)
            self.state.will_write(self.meta, k)
            self.meta[k] = ContractMeta(
                acct.cdef.name,
                self.codes.keep(acct.cdef),
                sub.sender if acct.creator is None else format(acct.creator, "040x"),
                number,
                sub.hash,
                number,
                sub.hash,
                acct.cdef.name if acct.cdef.name in tracked else "",
                org,
                app,
                table,
            )
        registry_touched = False
        written: list[AccountState] = []
        for chain, addr in res.touched:
            k = (chain, int(addr, 16))
            touched = self.world.accounts.get(k)
            if touched is None:
                continue
            self.changes.contracts[k] = touched
            written.append(touched)
            m = self.meta.get(k)
            if m is not None:
                m.updated_block = number
                m.updated_tx = sub.hash
                self.journal.touched[k] = (sub.hash, sub.sender)
                cdef = touched.cdef
                if m.history and cdef is not None and self.cirrus.indexer.indexed(cdef):
                    row = self.cirrus.indexer.row(touched, number, "", 0, sub.hash, sub.sender)
                    self.journal.history.append((m.table, cdef, row))
            if addr == REGISTRY_ADDRESS and chain == "":
                registry_touched = True
        self.changes.entries.note_tx(
            res.journal, written, {(chain, int(addr, 16)) for chain, addr in res.created}
        )
        for ev in res.events:
            chain_rec = self.chains.get(ev.chain_id) if ev.chain_id else None
            if chain_rec is not None and chain_rec.apply_event(ev.name, [v for _, v in ev.args]):
                self.journal.dirty_chains.add(chain_rec.id)
            self.journal.events.append(
                (sub.hash, ev.chain_id, ev.address, ev.contract, ev.name, ArgsText.of(ev.args))
            )
            self.journal.senders[sub.hash] = sub.sender
        if res.journal:
            created = {(chain, int(addr, 16)) for chain, addr in res.created}
            self.cirrus.collections.note_tx(res.journal, written, created, (sub.hash, sub.sender))
        if res.created and self.cirrus.indexer16 is not None:
            unit = self._uploaded if sub.type == "CONTRACT" else None  # (no second compile)
            self.cirrus.indexer16.note(res, unit)
        if registry_touched:
            self.identities.sync()

    def _state_diff(self, res: ExecResult | None) -> str:
        """The transaction result's ``stateDiff`` (see :mod:`app.node.state_diff`); its object
        is kept in ``last_diff``, its text in ``last_diff_text``."""
        self.last_diff = None
        self.last_diff_text = None
        if res is None:
            return ""
        accts = [self.world.accounts.get((c, int(a, 16))) for c, a in res.touched]
        created = {(c, int(a, 16)) for c, a in res.created}
        diff = tx_state_diff_object(res.journal, [a for a in accts if a is not None], created)
        self.last_diff = diff
        text = self.last_diff_text = json.dumps(diff)
        return text

    def _table_for(self, acct: AccountState, sub: Sub) -> tuple[str, str, str]:
        """(org, app, Cirrus table name) of a new contract, per the platform's naming rule."""
        cdef = acct.cdef
        assert cdef is not None
        name = cdef.name
        if not cdef.pragma_solidvm:
            return "", name, name
        pointer = sub.payload.get("codePtr") if sub.type == "GENESIS" else None
        if acct.creator is None and pointer:
            # a chain's governance contract made from an application's code collection
            parent = self.meta.get((pointer[0], int(pointer[1], 16)))
            if parent is not None and parent.org:
                if parent.app == name:
                    return parent.org, name, f"{parent.org}-{name}"
                return parent.org, parent.app, f"{parent.org}-{parent.app}-{name}"
        if acct.creator is None:
            cert = self.world.identities.get(int(sub.sender, 16)) or {}
            org = cert.get("organization", "")
            return org, name, f"{org}-{name}" if org else name
        parent = self.meta.get((acct.chain, acct.creator))
        if parent is None or not parent.org:
            return "", name, name
        return parent.org, parent.app, f"{parent.org}-{parent.app}-{name}"
