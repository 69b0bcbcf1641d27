"""The sandbox's step debugger, ``/vm-debug/sessions``: start a session, follow its events
(long poll), step, read its frames, scopes and variables, evaluate, set breakpoints.

Pure async over :class:`StratoClient`. A node without the routes (a real STRATO node answers
404 at ``POST /vm-debug/sessions``) raises :class:`NoDebugger`, whose message says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import RequestError, StratoError
from .http import StratoClient

__all__ = ["ACTIONS", "DebugClient", "DebugEvent", "NoDebugger"]

BASE = "/vm-debug/sessions"
TX_PATH = "/vm-debug/transaction"  # what a re-run of a transaction runs
ACTIONS = ("continue", "next", "stepIn", "stepOut", "pause", "stop")


class NoDebugger(StratoError):
    """The node serves no debugger (not the sandbox, or an older one)."""


@dataclass(frozen=True)
class DebugEvent:
    """One event of a session: ``stopped``, ``continued``, ``output`` or ``terminated``."""

    seq: int
    kind: str
    body: dict[str, Any]


class DebugClient:
    """One debug session on a node (``sid`` once :meth:`start` answered)."""

    def __init__(self, client: StratoClient) -> None:
        self.client = client
        self.sid = ""

    async def _json(self, method: str, path: str, body: Any = None) -> Any:
        return await self.client.json(method, BASE + path, json_body=body, idempotent=False)

    async def start(self, launch: dict[str, Any]) -> dict[str, Any]:
        """Start a session (``source``, ``files``, ``contract``/``function``/``args`` or
        ``address``, ``breakpoints``, ``stopOnEntry``, ``pauseOnFailure``); its summary once it
        first stopped (or finished)."""
        try:
            out = await self._json("POST", "", launch)
        except RequestError as exc:
            if exc.status == 404:
                raise NoDebugger(
                    "this node has no debugger (the sandbox's /vm-debug routes)",
                    status=404,
                    method="POST",
                    url=BASE,
                ) from None
            raise
        self.sid = str(out["id"])
        return dict(out)

    async def describe_transaction(self, tx_hash: str) -> dict[str, Any]:
        """What a re-run of ``tx_hash`` runs and its source (``GET /vm-debug/transaction``):
        the node's refusal (unknown, not re-runnable and why) as a RequestError; a node
        without the route as :class:`NoDebugger`."""
        path = f"{TX_PATH}?hash={tx_hash.strip()}"
        try:
            out = await self.client.json("GET", path, idempotent=True)
        except RequestError as exc:
            if exc.status == 404 and "unknown transaction" not in str(exc):
                raise NoDebugger(
                    "this node cannot re-run transactions in a debugger (the sandbox's "
                    "/vm-debug routes)",
                    status=404,
                    method="GET",
                    url=path,
                ) from None
            raise
        return dict(out)

    async def events(self, after: int, wait: float = 20.0) -> list[DebugEvent]:
        """Events newer than ``after``, waiting up to ``wait`` seconds for the first one."""
        raw = await self._json("GET", f"/{self.sid}/events?after={after}&wait={int(wait)}")
        return [DebugEvent(int(e["seq"]), str(e["event"]), dict(e.get("body") or {})) for e in raw]

    async def control(self, action: str) -> dict[str, Any]:
        if action not in ACTIONS:
            raise ValueError(f"action: one of {', '.join(ACTIONS)}")
        return dict(await self._json("POST", f"/{self.sid}/control", {"action": action}))

    async def set_pause_on_failure(self, on: bool) -> dict[str, Any]:
        """Switch pause on failure for the rest of the run."""
        body = {"action": "pauseOnFailure", "value": on}
        return dict(await self._json("POST", f"/{self.sid}/control", body))

    async def frames(self) -> list[dict[str, Any]]:
        return list(await self._json("GET", f"/{self.sid}/frames"))

    async def scopes(self, frame: int) -> list[dict[str, Any]]:
        return list(await self._json("GET", f"/{self.sid}/scopes?frame={frame}"))

    async def variables(self, ref: int) -> list[dict[str, Any]]:
        return list(await self._json("GET", f"/{self.sid}/variables/{ref}"))

    async def evaluate(self, expression: str, frame: int = 1) -> dict[str, Any]:
        body = {"expression": expression, "frame": frame}
        return dict(await self._json("POST", f"/{self.sid}/evaluate", body))

    async def set_breakpoints(
        self, file: str, lines: list[tuple[int, str | None]]
    ) -> list[dict[str, Any]]:
        """Replace ``file``'s breakpoints; each answered ``{line, verified, condition}``."""
        bps = [{"line": n, "condition": c} if c else {"line": n} for n, c in lines]
        body = {"file": file, "breakpoints": bps}
        return list(await self._json("POST", f"/{self.sid}/source-breakpoints", body))

    async def stop(self) -> None:
        """End the session (a finished one is gone already: no error)."""
        if not self.sid:
            return
        try:
            await self._json("DELETE", f"/{self.sid}")
        except RequestError as exc:
            if exc.status != 404:
                raise
