"""The contract page's reads: a deployed contract's source and interface, and its view
functions called from the page's Read tab.

STRATO has no read-only call: a function runs in a transaction (the composer's Call), so a view
function read here is a FUNCTION transaction of the signed-in user, resolved, whose result holds
the returned values. A view function changes nothing; on a node that charges gas it costs gas.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject

from app.client.abi_types import ContractSpec, FunctionSpec
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


class ContractReads(QObject):
    def __init__(self, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session

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

    async def call(self, inst: Instance, fn: FunctionSpec, args: dict[str, Any]) -> TxResult:
        """Run ``fn`` with ``args`` (wire form) as a transaction; its result, failed or not."""
        tx = TxRequest.call(
            inst.address,
            fn.name,
            args,
            contract_name=inst.name,
            chain_id=inst.chain_id or None,
        )
        try:
            results: list[TxResult] = await self._client().submit(
                [tx], resolve=True, chain_id=inst.chain_id or None
            )
        except TransactionFailed as exc:
            return TxResult("Failure", "", message=exc.message)
        return results[0]
