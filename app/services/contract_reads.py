"""The contract page's reads: a deployed contract's source and interface, and its view
functions called from the page's Read tab.

STRATO has no read-only call: a function runs in a transaction (the composer's Call). The
sandbox node has one (``POST /stratoscope/call``: the function runs on a throwaway copy of the
committed state, no transaction, no gas), used when the node answers it. On a node without it
(a 404) a view function read here is a FUNCTION transaction of the signed-in user, resolved,
whose result holds the returned values: it changes nothing, but lands in a block and, on a node
that charges gas, costs gas.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject

from app.client.abi_types import AbiType, ContractSpec, FunctionSpec, Param
from app.client.errors import AuthError, RequestError, TransactionFailed
from app.client.models import TxRequest, TxResult

from .explorer_contracts import Instance
from .session import Session


@dataclass(frozen=True)
class ContractSource:
    """A deployed contract's interface, raw xabi and source text (as the node gives them)."""

    spec: ContractSpec
    xabi: dict[str, Any]
    source: str


def public_getters(src: ContractSource) -> list[FunctionSpec]:
    """Each public scalar state variable as the no-argument view function its getter is (as
    Etherscan lists them on Read), unless the contract declares a function of that name.
    Mappings and arrays are left out: their getters take keys (the State tab pages them)."""
    types = src.xabi.get("types") if isinstance(src.xabi.get("types"), dict) else {}
    vs = src.xabi.get("vars") if isinstance(src.xabi.get("vars"), dict) else {}
    assert isinstance(types, dict) and isinstance(vs, dict)
    declared = {f.name for f in src.spec.functions}
    out = []
    for name, d in sorted(vs.items()):
        if not isinstance(d, dict) or not d.get("public") or name in declared:
            continue
        try:
            t = AbiType.from_xabi(d, types)
        except Exception:  # a type this client does not model: the State tab still shows it
            continue
        if t.unwrapped.kind in ("mapping", "array"):
            continue
        out.append(FunctionSpec(str(name), (), (Param(str(name), t),), "view"))
    return out


class ContractReads(QObject):
    def __init__(self, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        # whether the node answers read-only calls: None until a call tells, so the embedded
        # sandbox's is assumed (its profile) and any other node's learned at the first query
        self.read_only: bool | None = None

    def reads_without_transaction(self) -> bool:
        """Whether a query is (expected to be) read-only, no transaction."""
        if self.read_only is not None:
            return self.read_only
        profile = self.session.profile
        return bool(profile is not None and profile.sandbox)

    def _client(self) -> Any:
        if self.session.client is None:
            raise AuthError("not connected to a node")
        return self.session.client

    async def source(self, inst: Instance) -> ContractSource:
        details = await self._client().details(inst.name, inst.address, inst.chain_id or None)
        x = details.get("xabi")
        if not isinstance(x, dict):
            raise RequestError(f"the node has no interface for {inst.name} at {inst.address}")
        src = details.get("src") or details.get("bin") or ""
        return ContractSource(ContractSpec.from_xabi(inst.name, x), x, str(src))

    async def variable(self, inst: Instance, name: str) -> Any:
        """A public state variable's value from the node's state route: what its getter
        returns, read on any node without a transaction."""
        return await self._client().state_variable(
            inst.name, inst.address, name, inst.chain_id or None
        )

    async def call(self, inst: Instance, fn: FunctionSpec, args: dict[str, Any]) -> TxResult:
        """Run ``fn`` with ``args`` (wire form) read-only where the node can (a result without a
        hash), else as a transaction; its result, failed or not."""
        client = self._client()
        if self.read_only is not False:
            res: TxResult | None = await client.read_call(
                inst.address, fn.name, args, chain_id=inst.chain_id or None
            )
            self.read_only = res is not None
            if res is not None:
                return res
        tx = TxRequest.call(
            inst.address,
            fn.name,
            args,
            contract_name=inst.name,
            chain_id=inst.chain_id or None,
        )
        try:
            results: list[TxResult] = await client.submit(
                [tx], resolve=True, chain_id=inst.chain_id or None
            )
        except TransactionFailed as exc:
            return TxResult("Failure", "", message=exc.message)
        return results[0]
