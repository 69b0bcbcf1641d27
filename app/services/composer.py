"""The composer's service: compile sources to typed specs, build, preview and send transactions.

``preview`` gives the exact HTTP request a send will make (method, URL, JSON body, as curl), so
the confirmation sheet shows what goes on the wire. Pending results go to the pending tracker;
every completed result is announced with ``result``.
"""

from __future__ import annotations

import json
import logging
import shlex
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from PySide6.QtCore import QObject, Signal

from app.client.abi_types import ContractSpec, FunctionSpec
from app.client.cirrus_names import names_of, table_of
from app.client.errors import AuthError, RequestError, StratoError, TransactionFailed
from app.client.models import Transaction, TxRequest, TxResult
from app.client.scenario import Player, Recorder, ReplayStep, Scenario, ScenarioError
from app.client.traces import TraceUnavailable

from .session import Session
from .tx_state import transaction_state

log = logging.getLogger(__name__)


@dataclass
class Draft:
    """Transactions about to be sent, with everything the confirmation sheet shows."""

    txs: list[TxRequest]
    descriptions: list[str]
    resolve: bool = True
    chain_id: str | None = None
    tx_params: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Preview:
    method: str
    url: str
    body: dict[str, Any]
    signer: str
    chain: str

    def curl(self) -> str:
        body = json.dumps(self.body, separators=(",", ":"))
        return (
            f"curl -s -X {self.method} {shlex.quote(self.url)} "
            "-H 'Authorization: Bearer ***' -H 'Content-Type: application/json' "
            f"--data-raw {shlex.quote(body)}"
        )


class ComposerService(QObject):
    """Signals:
    result(object): a ``TxResult`` the composer sent, once it is final or pending.
    recording_changed(bool): the recorder started or stopped.
    replay_progress(int, int): steps replayed so far, of how many.
    """

    result = Signal(object)
    recording_changed = Signal(bool)
    replay_progress = Signal(int, int)

    def __init__(self, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.recorder: Recorder | None = None

    def _client(self) -> Any:
        if self.session.client is None:
            raise AuthError("not connected")
        return self.session.client

    async def compile(self, src: str, vm: str = "SolidVM") -> dict[str, ContractSpec]:
        """The contracts of ``src`` with their typed functions (the node's xabi)."""
        xabi = await self._client().xabi(src, vm)
        return {
            name: ContractSpec.from_xabi(name, x) for name, x in xabi.items() if isinstance(x, dict)
        }

    async def deployed(self, name: str, address: str, chain_id: str | None = None) -> ContractSpec:
        """The typed functions of a deployed contract."""
        details = await self._client().details(name, address, chain_id)
        x = details.get("xabi")
        if not isinstance(x, dict):
            raise RequestError(f"the node has no interface for {name} at {address}")
        return ContractSpec.from_xabi(str(details.get("name") or name), x)

    async def contracts(self, chain_id: str | None = None) -> list[tuple[str, str, str]]:
        """(name, address, chain id) of the contracts the node lists, newest first."""
        data = await self._client().contracts(chain_id)
        rows: list[tuple[float, str, str, str]] = []
        for name, entries in data.items():
            for e in entries if isinstance(entries, list) else []:
                if isinstance(e, dict) and e.get("address"):
                    rows.append(
                        (
                            float(e.get("createdAt") or 0),
                            str(name),
                            str(e["address"]),
                            str(e.get("chainId") or ""),
                        )
                    )
        rows.sort(reverse=True)
        return [(n, a, c) for _, n, a, c in rows]

    async def users(self) -> list[tuple[str, str]]:
        """(common name, address) of the users with a certificate, by name."""
        client = self._client()
        rows, _ = await client.cirrus(
            await table_of(client, "Certificate"),
            [("select", "commonName,userAddress"), ("limit", "500")],
        )
        out = {
            str(r["commonName"]): str(r["userAddress"])
            for r in rows
            if r.get("commonName") and r.get("userAddress")
        }
        return sorted(out.items())

    def preview(self, draft: Draft) -> Preview:
        params: dict[str, str] = {"resolve": "true" if draft.resolve else "false"}
        if draft.chain_id:
            params["chainid"] = draft.chain_id
        body: dict[str, Any] = {"txs": [t.to_json() for t in draft.txs]}
        if draft.tx_params:
            body["txParams"] = dict(draft.tx_params)
        client = self._client()
        prefix = client.svc_prefix()
        url = f"{client.base_url}{prefix}/transaction?{urlencode(params)}"
        return Preview("POST", url, body, self.session.username, draft.chain_id or "main chain")

    async def send(self, draft: Draft) -> list[TxResult]:
        results: list[TxResult] = await self._client().submit(
            draft.txs,
            resolve=draft.resolve,
            chain_id=draft.chain_id,
            tx_params=draft.tx_params or None,
        )
        if self.recorder is not None:
            self.recorder.record(
                draft.txs,
                results,
                resolve=draft.resolve,
                chain_id=draft.chain_id,
                tx_params=draft.tx_params,
                note="; ".join(draft.descriptions),
            )
        for r in results:
            self.result.emit(r)
        return results

    async def called_functions(
        self,
        txs: list[TxRequest],
        cache: dict[tuple[str, str, str], ContractSpec | None] | None = None,
    ) -> list[FunctionSpec | None]:
        """The declaration of the function each transaction calls (None for an upload, a
        transfer or an interface the node does not give), read from the deployed contract: a
        result's return values are typed by what was called, not by what a form shows."""
        cache = {} if cache is None else cache
        out: list[FunctionSpec | None] = []
        for t in txs:
            p = t.payload
            name, address = str(p.get("contractName") or ""), str(p.get("contractAddress") or "")
            if t.type != "FUNCTION" or not name or not address:
                out.append(None)
                continue
            key = (name, address.lower(), str(p.get("chainid") or ""))
            if key not in cache:
                try:
                    cache[key] = await self.deployed(name, address, key[2] or None)
                except StratoError:
                    cache[key] = None
            spec = cache[key]
            out.append(spec.function(str(p.get("method") or "")) if spec else None)
        return out

    async def failed_result(self, tx: TxRequest, message: str) -> tuple[TxResult, int]:
        """The full result and block number of a lone transaction the node refused with 422.

        Such an answer carries the VM's message only, though the transaction ran in a block;
        the newest transactions of the signed-in user say which one it was (the same target
        and function, a Failure with that message). Anything not found: the message alone
        and block -1."""
        alone = TxResult("Failure", "", message=message)
        p = tx.payload
        client = self._client()
        try:
            key = await client.get_key()
            if key is None or not key.address:
                return alone, -1
            filters: dict[str, Any] = {"from": key.address, "sortby": "desc", "limit": 10}
            if p.get("chainid"):
                filters["chainid"] = p["chainid"]
            for t in await client.transactions(**filters):
                if tx.type == "FUNCTION":
                    same = (t.to or "").lower() == str(p.get("contractAddress", "")).lower()
                    same = same and t.metadata.get("funcName") == p.get("method")
                else:
                    same = tx.type == "CONTRACT" and t.kind == "Contract"
                    same = same and t.metadata.get("name") == p.get("contract")
                if not same:
                    continue
                result = await client.result(t.hash)
                if result.status == "Failure" and result.message in message:
                    return result, t.block_number
                return alone, -1  # the newest such transaction is not this failure
        except StratoError as exc:  # the failure is shown as the node gave it: say why alone
            log.info("no block found for a refused transaction (%s): %s", message, exc)
        return alone, -1

    # ------------------------------------------------------------ scenarios

    async def start_recording(self) -> None:
        users = dict(await self.users())
        self.recorder = Recorder(users)
        self.recorder.scenario.recorded_by = self.session.username
        self.recorder.scenario.node = self.session.node_url
        self.recording_changed.emit(True)

    def stop_recording(self) -> Scenario:
        if self.recorder is None:
            raise ScenarioError("nothing is being recorded")
        scenario = self.recorder.scenario
        self.recorder = None
        self.recording_changed.emit(False)
        return scenario

    async def replay(self, scenario: Scenario) -> list[ReplayStep]:
        """Run every step in order, waiting for each; stops at the first failed transaction."""
        player = Player(self._client(), dict(await self.users()))
        specs: dict[tuple[str, str, str], ContractSpec | None] = {}
        done: list[ReplayStep] = []
        total = len(scenario.steps)
        self.replay_progress.emit(0, total)
        for i, step in enumerate(scenario.steps):
            try:
                played = await player.play_step(step)
            except TransactionFailed as exc:
                played = ReplayStep(step, [TxResult("Failure", "", message=exc.message)])
            if len(played.sent) == len(played.results):
                played.functions = await self.called_functions(played.sent, specs)
            done.append(played)
            self.replay_progress.emit(i + 1, total)
            if any(r.status == "Failure" for r in played.results):
                break
        return done


@dataclass
class TxDetails:
    """Everything the transaction inspector shows about one hash."""

    hash: str
    result: TxResult
    tx: Transaction | None = None
    contract_name: str = ""
    function: FunctionSpec | None = None  # the called function, for typed return values
    created: ContractSpec | None = None  # the interface of an uploaded contract
    # (variable or entry, before, after); before is None for a new contract, NOT_KEPT unknown
    state_diff: list[tuple[str, Any, Any]] | None = None
    state_note: str = ""  # why there is no state diff, or that nothing compared changed
    state_scope: str = ""  # what kinds of state were compared and which were not
    called: ContractSpec | None = None  # the interface of the called contract
    events: list[tuple[str, dict[str, Any]]] | None = None  # (event name, logged values)
    events_note: str = ""  # why events could not be listed

    @property
    def time_ms(self) -> float | None:
        t = (self.result.raw.get("txResult") or {}).get("time")
        return float(t) * 1000 if isinstance(t, (int, float)) else None

    @property
    def call_args(self) -> Any:
        args = (self.tx.metadata if self.tx else {}).get("args")
        if isinstance(args, str):
            try:
                return json.loads(args)
            except ValueError:
                return args
        return args


async def transaction_trace(composer: ComposerService, tx_hash: str) -> dict[str, Any] | str:
    """The call trace of ``tx_hash`` (a sandbox extension), or why there is none, in words
    (a STRATO node: "the node keeps no traces")."""
    try:
        tree: dict[str, Any] = await composer._client().trace(tx_hash)
    except TraceUnavailable as exc:
        return exc.message
    return tree


async def inspect_transaction(composer: ComposerService, tx_hash: str) -> TxDetails:
    """Result, transaction and decoding context of ``tx_hash`` (64 hex digits)."""
    h = tx_hash.strip().lower().removeprefix("0x")
    if len(h) != 64 or any(c not in "0123456789abcdef" for c in h):
        raise RequestError("a transaction hash is 64 hex digits")
    client = composer._client()
    result: TxResult = await client.result(h)
    txs = await client.transactions(hash=h)
    tx = txs[0] if txs else None
    details = TxDetails(h, result, tx)
    if result.tag == "Upload" and isinstance(result.contents, dict):
        x = result.contents.get("xabi")
        name = str(result.contents.get("name") or "")
        details.contract_name = name
        if isinstance(x, dict):
            details.created = ContractSpec.from_xabi(name, x)
    elif tx is not None and tx.to and tx.kind == "FunctionCall":
        names = {a: n for n, a, _c in await composer.contracts(tx.chain_id)}
        name = names.get(tx.to, "")
        details.contract_name = name
        func = str(tx.metadata.get("funcName") or "")
        if name and func:
            try:
                spec = await composer.deployed(name, tx.to, tx.chain_id)
            except StratoError:
                spec = None
            details.function = spec.function(func) if spec else None
            details.called = spec
    target = result.address if result.tag == "Upload" else (tx.to if tx is not None else None)
    if details.contract_name and target and result.ok:
        chain = tx.chain_id if tx is not None else None
        xabi = result.contents.get("xabi") if isinstance(result.contents, dict) else None
        report = await transaction_state(
            client, details.contract_name, target, chain, h, result.raw.get("txResult"), xabi
        )
        details.state_diff, details.state_note = report.changes, report.note
        details.state_scope = report.scope
    spec = details.created or details.called
    if spec is not None and result.ok:
        where = _hex(target) if target else ""
        details.events, details.events_note = await emitted_events(
            composer, spec, h, where, result.block_hash
        )
    return details


async def emitted_events(
    composer: ComposerService,
    spec: ContractSpec,
    tx_hash: str,
    address: str = "",
    block_hash: str = "",
) -> tuple[list[tuple[str, dict[str, Any]]] | None, str]:
    """The events the contract logged in this transaction, from the event tables the node
    lists for it (:mod:`app.client.cirrus_names`): the seed's ``<table>.<Event>`` found by
    ``transaction_hash``; STRATO 16's ``<creator>-<C>-<Event>`` views, which record no
    transaction, by the contract's address in the transaction's block; and STRATO 16's global
    ``event`` table when no view names the event."""
    client = composer._client()
    names = await names_of(client).names(client, want=spec.name, after=block_hash)
    found: list[tuple[int, str, dict[str, Any]]] = []
    for ev in spec.events:
        declared = [f for f, _ in ev.type.fields]
        tables = names.event_tables(spec.name, ev.name)
        if not tables and not names.listed:  # the node lists nothing: the seed's spelling
            tables = [f"{spec.name}.{ev.name}"]
        if not tables and names.global_events and address and block_hash:
            rows = await _global_event_rows(client, ev.name, address, block_hash)
            for r in rows:
                attrs = r.get("attributes") if isinstance(r.get("attributes"), dict) else {}
                assert isinstance(attrs, dict)
                found.append(
                    (int(r.get("event_index") or 0), ev.name, {n: attrs.get(n) for n in declared})
                )
            continue
        for table in tables:  # the likeliest first; one family's rows are enough
            if names.family(table) == "seed":
                params = [("transaction_hash", f"eq.{tx_hash}"), ("order", "id")]
            elif address and block_hash:
                params = [
                    ("address", f"eq.{address}"),
                    ("block_hash", f"eq.{block_hash}"),
                    ("order", "event_index"),
                ]
            else:
                continue
            try:
                rows, _ = await client.cirrus(table, params)
            except RequestError as exc:
                if exc.status == 404:
                    continue  # never emitted anywhere: no table
                if exc.status == 400 and "transaction_hash" in exc.message:
                    return None, (
                        "this node's event tables do not record transactions (STRATO before "
                        "10): the events cannot be matched to it"
                    )
                raise
            for r in rows:
                logged = {n: r.get(n, r.get(f"{n}_", r.get(f"arg_{n}"))) for n in declared}
                key = r.get("id") if names.family(table) == "seed" else r.get("event_index")
                found.append((int(key or 0), ev.name, logged))
            if rows:
                break
    found.sort(key=lambda e: (e[1], e[0]))
    return [(name, logged) for _, name, logged in found], ""


async def _global_event_rows(
    client: Any, event: str, address: str, block_hash: str
) -> list[dict[str, Any]]:
    """STRATO 16's global ``event`` rows of one event of one contract in one block."""
    try:
        rows, _ = await client.cirrus(
            "event",
            [
                ("address", f"eq.{address}"),
                ("event_name", f"eq.{event}"),
                ("block_hash", f"eq.{block_hash}"),
                ("order", "event_index"),
            ],
        )
    except RequestError as exc:
        if exc.status in (400, 404):
            return []
        raise
    return [r for r in rows if isinstance(r, dict)]


def _hex(a: str) -> str:
    return str(a or "").lower().removeprefix("0x")
