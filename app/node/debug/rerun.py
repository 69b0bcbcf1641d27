"""A debug session "as transaction H": the same call (contract, function, arguments, sender,
value, block number and time) on the state just before H, in a throwaway overlay.

The state before H is the committed state read through :class:`BeforeTx`: a key a
transaction from H on (in a committed block) wrote reads as that first transaction found it
(``ledger/preimages.py``), any other key as committed. Nothing is written to the chain; the
producer keeps sealing blocks while the session is paused. ``POST /vm-debug/sessions`` with
``{"transaction": hash}`` comes here (:func:`prepare_rerun`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import ApiError
from ..solidvm.errors import SolidVMError
from ..solidvm.history import LENGTH, NO_RECORD, History
from ..solidvm.world import TxEnv, contract_address
from .engine import DebugSession
from .launch import LaunchError, LaunchSpec, _failure, compile_spec, parse_breakpoints
from .overlay import ViewSource, overlay_world, same_code_swap
from .sources import SourceMap

if TYPE_CHECKING:
    from ..ledger import Ledger
    from ..ledger.preimages import PreImages
    from ..ledger.readview import CommittedView
    from .compiler import DebugUnit

_HASH_RE = re.compile(r"^(0x)?[0-9a-fA-F]{64}$")
Plan = Callable[[DebugSession], dict[str, Any]]


class BeforeTx(History):
    """The records a :class:`CommittedView` reads through to see the state before transaction
    ``seq``: the transactions' notes first, then the block history of the pinned ``head``."""

    def __init__(self, images: PreImages, seq: int, head_view: CommittedView) -> None:
        super().__init__()
        self.images = images
        self.seq = seq
        self.head = head_view.pinned
        self.hist = head_view.history
        self.head_view = head_view

    def before(self, c: Any, k: Any, pinned: int) -> Any:
        from ..ledger.preimages import NO_NOTE

        old = self.images.first(c, k, self.seq, self.head)
        if old is not NO_NOTE:
            return old
        return self.hist.before(c, k, self.head) if self.hist is not None else NO_RECORD

    def keys_of(self, c: Any, pinned: int) -> list[tuple[Any, Any]]:
        block = self.hist.keys_of(c, self.head) if self.hist is not None else []
        if isinstance(c, list):
            images = self.images.list_images(c, self.seq, self.head)
            if not images:
                return block
            cur: list[Any] = self.head_view.elements(c)
            for img in reversed(images):
                cur = img.undo(cur)
            return [(LENGTH, tuple(cur))]
        out = dict(block)
        out.update(self.images.keys_of(c, self.seq, self.head))
        return list(out.items())


class PreTxSource(ViewSource):
    """:class:`ViewSource` of the state before transaction ``seq`` (pinned the same way)."""

    def __init__(self, ledger: Ledger, seq: int) -> None:
        super().__init__(ledger)
        self.seq = seq

    def _wrap(self, v: CommittedView) -> CommittedView:
        from ..ledger.readview import CommittedView

        led = self.ledger
        return CommittedView(led.world, led.state.meta, BeforeTx(led.preimages, self.seq, v), 0)

    def pin(self) -> None:
        if self._pin is None:
            self._pin = self.ledger.pinned_view()
            self.view = self._wrap(self._pin.__enter__())

    def read(self, fn: Callable[[CommittedView], Any]) -> Any:
        if self.view is not None:
            return fn(self.view)
        with self.ledger.pinned_view() as v:
            return fn(self._wrap(v))


def _bad(status: int, message: str) -> ApiError:
    return ApiError(status, {"error": message, "field": "transaction"})


def _lookup(ledger: Ledger, user: str, raw: Any) -> tuple[Any, Any]:
    """The transaction's row and its submission, if ``user`` may re-run it; ApiError else."""
    if not isinstance(raw, str) or not _HASH_RE.match(raw):
        raise _bad(400, "transaction: must be a transaction hash, 64 hex digits")
    h = raw.lower().removeprefix("0x")
    row = ledger.store.one(
        "SELECT t.*, b.timestamp AS block_ts FROM txs t "
        "LEFT JOIN blocks b ON b.number = t.block_number WHERE t.hash=?",
        h,
    )
    chain = str(row["chain"] or "") if row is not None else ""
    if row is None or (chain and chain not in ledger.visible_chains(user)):
        raise _bad(404, f"unknown transaction {h}")
    if row["status"] == "Pending" or row["block_number"] is None:
        raise _bad(409, f"transaction {h} is not in a block yet: re-run it once it is")
    kind = row["type"]
    if kind not in ("FUNCTION", "CONTRACT"):
        what = "a transfer" if kind == "TRANSFER" else "a private chain's creation"
        raise _bad(409, f"transaction {h} is {what}: it runs no contract code to debug")
    from ..ledger.keys import sub_from_row

    sub = sub_from_row(row)
    sub.nonce = int(row["nonce"] or 0)
    vm = (sub.payload.get("metadata") or {}).get("VM", "SolidVM")
    if vm != "SolidVM":
        raise _bad(409, f"transaction {h} runs {vm} code: the debugger runs SolidVM only")
    return row, sub


def _gone(ledger: Ledger, h: str) -> ApiError:
    return _bad(
        410,
        f"the state before transaction {h} is no longer reconstructible: the node keeps, in "
        f"memory, what the last {ledger.preimages.keep_txs} transactions since its last start "
        "overwrote, and this one is older or ran before that start",
    )


def describe(ledger: Ledger, user: str, raw: Any) -> dict[str, Any]:
    """What a re-run of the transaction would run (``GET /vm-debug/transaction?hash=``): its
    contract, function, address, chain and the source (file name and text) the session
    shows; the same refusals as a re-run."""
    row, sub = _lookup(ledger, user, raw)
    got = ledger.preimages.by_hash.get(sub.hash)
    if got is None:
        raise _gone(ledger, sub.hash)
    spec, address = _spec_of(ledger, sub, got[0], {})
    (name,) = spec.sources.names
    return {
        "transaction": sub.hash,
        "kind": sub.type,
        "contract": spec.contract,
        "function": spec.function,
        "address": address,
        "chainId": sub.chain or None,
        "sender": sub.sender,
        "blockNumber": row["block_number"],
        "file": name,
        "source": spec.sources.text,
    }


def prepare_rerun(
    ledger: Ledger, user: str, body: dict[str, Any]
) -> tuple[LaunchSpec, DebugUnit, Plan]:
    """The spec (source, breakpoints) and the run of a re-run of ``body["transaction"]``;
    ApiError 404 (unknown to ``user``), 409/410 (it cannot be re-run), 400 (a bad field)."""
    row, sub = _lookup(ledger, user, body.get("transaction"))
    p = sub.payload
    images = ledger.preimages
    pinned = images.pin(sub.hash)
    if pinned is None:
        raise _gone(ledger, sub.hash)
    seq = pinned[0]
    try:
        spec, address = _spec_of(ledger, sub, seq, body)
        unit = compile_spec(spec, ledger.world.test_clock)
    except LaunchError as exc:
        images.unpin(seq)
        raise ApiError(400, {"error": str(exc), "field": exc.field}) from None
    except BaseException:
        images.unpin(seq)
        raise
    env = TxEnv(
        sender=sub.sender,
        block_number=int(row["block_number"]),
        timestamp=int(row["block_ts"] or time.time()),
    )
    value = int(p.get("value") or 0)
    args = p.get("args") or {}
    return spec, unit, _plan(ledger, spec, unit, seq, env, sub.chain, address, args, value)


def _spec_of(ledger: Ledger, sub: Any, seq: int, body: dict[str, Any]) -> tuple[LaunchSpec, str]:
    """The launch spec of the re-run: the source of the code H ran, its breakpoints."""
    p = sub.payload
    if sub.type == "CONTRACT":
        src, name = str(p["src"]), str(p["contract"])
        explicit = p.get("address") if sub.internal else None
        address = explicit or format(contract_address(int(sub.sender, 16), sub.nonce), "040x")
        fn = ""
    else:
        address = str(p["contractAddress"]).lower().removeprefix("0x")
        acct = PreTxSource(ledger, seq).read(lambda v: v.account(int(address, 16), sub.chain))
        cdef = acct.cdef if acct is not None else None
        if cdef is None or cdef.unit is None or cdef.vm != "SolidVM":
            raise ApiError(
                409,
                {
                    "error": f"no SolidVM contract at {address} before transaction {sub.hash}",
                    "field": "transaction",
                },
            )
        src, name, fn = cdef.unit.source, cdef.name, str(p["method"])
    file = body.get("name", f"{name}.sol")
    if not isinstance(file, str) or not file:
        raise LaunchError("name", "must be a file name")
    spec = LaunchSpec(SourceMap.single(file, src), contract=name, function=fn)
    spec.address = address
    so = body.get("stopOnEntry", False)
    pf = body.get("pauseOnFailure", True)
    if not isinstance(so, bool):
        raise LaunchError("stopOnEntry", "must be true or false")
    if not isinstance(pf, bool):
        raise LaunchError("pauseOnFailure", "must be true or false")
    spec.stop_on_entry, spec.pause_on_failure = so, pf
    spec.breakpoints = parse_breakpoints(body.get("breakpoints"))
    return spec, address


def _plan(
    ledger: Ledger,
    spec: LaunchSpec,
    unit: DebugUnit,
    seq: int,
    env: TxEnv,
    chain: str,
    address: str,
    args: Any,
    value: int,
) -> Plan:
    def plan(s: DebugSession) -> dict[str, Any]:
        source = PreTxSource(ledger, seq)
        name = spec.contract
        what = f"{name}.{spec.function}" if spec.function else f"deploying {name}"
        try:  # (whatever happens, the notes it reads are given back: see PreImages.pin)
            s.on_pause.append(source.unpin)
            s.on_resume.append(source.pin)
            source.pin()
            world = overlay_world(ledger.world, source, same_code_swap(unit.contracts))
            s.begin_target()
            try:
                if spec.function:
                    res = world.call(address, spec.function, args, env, chain_id=chain, value=value)
                else:
                    cdef = unit.contracts[name]
                    res = world.deploy(
                        cdef, args, env, chain_id=chain, address=address, value=value
                    )
            except SolidVMError as exc:
                return _failure(what, exc, spec)
            for line in res.logs:
                s.output(line)
            done = f"{what} returned {res.values}" if spec.function else f"{name} deployed"
            return {
                "status": "success",
                "message": f"{done} at {address}" if not spec.function else done,
                "values": res.values,
                "address": address,
            }
        finally:
            source.unpin()
            ledger.preimages.unpin(seq)

    return plan
