"""Scenarios: the transactions of a session, recorded to a file and replayed elsewhere (no Qt).

Addresses differ from node to node, so a recording stores placeholders instead of them:
``${created:N}`` for the N-th contract created during the recording (1-based) and
``${user:NAME}`` for the address of a user of the node. Replaying substitutes the contracts the
replay itself creates and the users' addresses on the target node, so a demo recorded on the
sandbox runs unchanged on another node, or as another user.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .abi_types import FunctionSpec
from .http import StratoClient
from .models import TxRequest, TxResult

VERSION = 1
TX_TYPES = ("CONTRACT", "FUNCTION", "TRANSFER")
PLACEHOLDER_RE = re.compile(r"\$\{(created:\d+|user:[^}]+)\}")
HEX40_RE = re.compile(r"(?<![0-9a-fA-F])(?:0x)?([0-9a-fA-F]{40})(?![0-9a-fA-F])")


class ScenarioError(ValueError):
    """A scenario file that cannot be read or replayed; the message says why."""


@dataclass
class Step:
    txs: list[dict[str, Any]]
    resolve: bool = True
    chain_id: str | None = None
    tx_params: dict[str, int] = field(default_factory=dict)
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"txs": self.txs, "resolve": self.resolve}
        if self.chain_id:
            d["chainid"] = self.chain_id
        if self.tx_params:
            d["txParams"] = self.tx_params
        if self.note:
            d["note"] = self.note
        return d

    @classmethod
    def from_json(cls, d: Any) -> Step:
        if not isinstance(d, dict) or not isinstance(d.get("txs"), list) or not d["txs"]:
            raise ScenarioError("every step needs a non-empty list of txs")
        for tx in d["txs"]:
            if not isinstance(tx, dict) or tx.get("type") not in (
                "CONTRACT",
                "FUNCTION",
                "TRANSFER",
            ):
                raise ScenarioError("a tx needs a type of CONTRACT, FUNCTION or TRANSFER")
            if not isinstance(tx.get("payload"), dict):
                raise ScenarioError("a tx needs a payload object")
        params = d.get("txParams") or {}
        if not isinstance(params, dict) or not all(isinstance(v, int) for v in params.values()):
            raise ScenarioError("txParams holds whole numbers")
        return cls(
            list(d["txs"]),
            bool(d.get("resolve", True)),
            str(d["chainid"]) if d.get("chainid") else None,
            dict(params),
            str(d.get("note") or ""),
        )


@dataclass
class Scenario:
    steps: list[Step] = field(default_factory=list)
    recorded_by: str = ""
    node: str = ""

    def dumps(self) -> str:
        return json.dumps(
            {
                "version": VERSION,
                "recordedBy": self.recorded_by,
                "node": self.node,
                "steps": [s.to_json() for s in self.steps],
            },
            indent=2,
        )

    @classmethod
    def loads(cls, text: str) -> Scenario:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ScenarioError(f"not a scenario file (invalid JSON: {exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
            raise ScenarioError("not a scenario file (no steps)")
        if data.get("version") != VERSION:
            raise ScenarioError(f"unsupported scenario version {data.get('version')!r}")
        return cls(
            [Step.from_json(s) for s in data["steps"]],
            str(data.get("recordedBy") or ""),
            str(data.get("node") or ""),
        )


def _walk(value: Any, fn: Any) -> Any:
    """``value`` with ``fn`` applied to every string inside it (dict keys included)."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [_walk(v, fn) for v in value]
    if isinstance(value, dict):
        return {_walk(k, fn): _walk(v, fn) for k, v in value.items()}
    return value


class Recorder:
    """Turns sent transactions into scenario steps, replacing known addresses by placeholders."""

    def __init__(self, users: dict[str, str] | None = None) -> None:
        self.scenario = Scenario()
        self.created: list[str] = []  # addresses created while recording, in order
        self.users = {a.lower(): n for n, a in (users or {}).items()}

    def _placeholder(self, address: str) -> str | None:
        a = address.lower()
        if a in self.created:
            return f"${{created:{self.created.index(a) + 1}}}"
        if a in self.users:
            return f"${{user:{self.users[a]}}}"
        return None

    def _abstract(self, text: str) -> str:
        def swap(m: re.Match[str]) -> str:
            return self._placeholder(m.group(1)) or m.group(0)

        return HEX40_RE.sub(swap, text)

    def record(
        self,
        txs: list[TxRequest],
        results: list[TxResult],
        *,
        resolve: bool = True,
        chain_id: str | None = None,
        tx_params: dict[str, int] | None = None,
        note: str = "",
    ) -> Step:
        body = [_walk(t.to_json(), self._abstract) for t in txs]
        step = Step(body, resolve, chain_id, dict(tx_params or {}), self._abstract(note))
        self.scenario.steps.append(step)
        for r in results:
            for a in r.contracts_created or ([r.address] if r.address else []):
                if a and a.lower() not in self.created:
                    self.created.append(a.lower())
        return step


@dataclass
class ReplayStep:
    """A played step: its results and the transactions as sent (placeholders filled in), which
    say what each result answers (the called contract and method)."""

    step: Step
    results: list[TxResult]
    sent: list[TxRequest] = field(default_factory=list)
    functions: list[FunctionSpec | None] = field(default_factory=list)  # per result, if known


class Player:
    """Replays a scenario through a client; ``users`` maps user names to their addresses there."""

    def __init__(self, client: StratoClient, users: dict[str, str]) -> None:
        self.client = client
        self.users = users
        self.created: list[str] = []

    def _concrete(self, text: str) -> str:
        def swap(m: re.Match[str]) -> str:
            kind, _, key = m.group(1).partition(":")
            if kind == "created":
                n = int(key)
                if not 1 <= n <= len(self.created):
                    raise ScenarioError(
                        f"${{created:{n}}} is used before {n} contract(s) were created"
                    )
                return self.created[n - 1]
            if key not in self.users:
                raise ScenarioError(f"the node has no user named {key!r} (${{user:{key}}})")
            return self.users[key]

        return PLACEHOLDER_RE.sub(swap, text)

    async def play_step(self, step: Step) -> ReplayStep:
        txs = [_walk(t, self._concrete) for t in step.txs]
        requests = [TxRequest(str(t["type"]), dict(t["payload"])) for t in txs]
        results = await self.client.submit(
            requests,
            resolve=True,  # a replay waits: later steps may need what earlier ones created
            chain_id=step.chain_id,
            tx_params=step.tx_params or None,
        )
        for r in results:
            self.created += [
                a.lower() for a in r.contracts_created if a.lower() not in self.created
            ]
            if r.address and r.address.lower() not in self.created:
                self.created.append(r.address.lower())
        return ReplayStep(step, results, requests)
