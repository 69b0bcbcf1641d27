"""``python -m app debug-adapter``: the Debug Adapter Protocol over stdio, for VS Code and others.

Messages are JSON with a ``Content-Length`` header, both ways. The session: ``initialize``
(capabilities), ``launch`` (compiles; answers, then sends ``initialized``), ``setBreakpoints``
(with conditions), ``configurationDone`` (the run starts), then ``continue``, ``next``,
``stepIn``, ``stepOut``, ``pause``, ``threads``, ``stackTrace``, ``scopes``, ``variables``,
``evaluate``, ``disconnect``; events ``stopped``, ``output``, ``terminated``, ``exited``.

Launch attributes: ``program`` (a ``.sol`` file; imports resolved as ``python -m app test``
resolves them), then ``test`` (``Describe_X.it_y``) or ``contract`` + ``function`` + ``args``
(+ ``constructorArgs``), or with ``node`` ``address`` + ``function`` + ``args`` (a contract on the
node); ``stopOnEntry``; ``pauseOnFailure`` (default true); ``node`` (a URL:
debug there; without it the engine runs in this process, see :mod:`.debug_backends`); ``user``.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import Any, BinaryIO

from app.client.bundler import BundleError, bundle
from app.node.debug.engine import NotPaused
from app.node.debug.launch import LaunchError
from app.node.debug.sources import SourceMap

from .debug_backends import Backend, LocalBackend, RemoteBackend, RemoteError

THREAD_ID = 1
CAPABILITIES = {
    "supportsConfigurationDoneRequest": True,
    "supportsConditionalBreakpoints": True,
    "supportsEvaluateForHovers": True,
    "supportTerminateDebuggee": True,
    "supportsTerminateRequest": True,
    "exceptionBreakpointFilters": [
        {
            "filter": "failures",
            "label": "Uncaught SolidVM failures (require, revert, runtime errors)",
            "description": "Pause where a failure no try/catch catches fires, before its frame "
            "unwinds",
            "default": True,
        }
    ],
}


class RequestFailed(Exception):
    """Answered as ``success: false`` with this message."""


def read_message(stream: BinaryIO) -> dict[str, Any] | None:
    """One framed message, or None at the end of the stream."""
    length = -1
    while True:
        line = stream.readline()
        if not line:
            return None
        text = line.decode("ascii", "replace").strip()
        if not text:
            if length >= 0:
                break
            continue
        name, _, value = text.partition(":")
        if name.strip().lower() == "content-length" and value.strip().isdigit():
            length = int(value.strip())
    body = stream.read(length)
    if len(body) < length:
        return None
    msg = json.loads(body)
    return msg if isinstance(msg, dict) else None


class Adapter:
    """One debug session of one client over a pair of byte streams."""

    def __init__(self, inp: BinaryIO, out: BinaryIO) -> None:
        self.inp = inp
        self.out = out
        self.seq = 0
        self.lock = threading.Lock()
        self.held: list[dict[str, Any]] | None = None  # events waiting for a response
        self.backend: Backend | None = None
        self.pending_bps: dict[str, list[tuple[int, str | None]]] = {}
        self.started = False
        self.done = False
        self.sources: SourceMap | None = None
        self.pause_on_failure: bool | None = None  # from setExceptionBreakpoints before launch

    # ------------------------------------------------------------ wire

    def send(self, msg: dict[str, Any]) -> None:
        with self.lock:
            if self.held is not None and msg.get("type") == "event":
                self.held.append(msg)  # after the response of the request being handled
                return
            self._write(msg)

    def _write(self, msg: dict[str, Any]) -> None:
        self.seq += 1
        msg["seq"] = self.seq
        data = json.dumps(msg).encode()
        self.out.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.out.flush()

    @contextlib.contextmanager
    def events_after_response(self) -> Iterator[None]:
        """Events sent meanwhile (from the run's thread) go out after the request's response.

        A ``continue`` or a step is answered once the run has taken it, and the run may stop or
        end before that answer is written: its ``stopped`` or ``exited`` then came first, and a
        client that reads the response before looking for the event (as the tests' client did,
        under load) missed it."""
        with self.lock:
            self.held = []
        try:
            yield
        finally:
            with self.lock:
                held, self.held = self.held or [], None
                for msg in held:
                    self._write(msg)

    def event(self, name: str, body: dict[str, Any] | None = None) -> None:
        self.send({"type": "event", "event": name, "body": body or {}})

    def respond(self, req: dict[str, Any], body: Any = None, error: str = "") -> None:
        msg: dict[str, Any] = {
            "type": "response",
            "request_seq": req.get("seq", 0),
            "command": req.get("command", ""),
            "success": not error,
        }
        if error:
            msg["message"] = error
            msg["body"] = {"error": {"id": 1, "format": error}}
        elif body is not None:
            msg["body"] = body
        self.send(msg)

    def serve(self) -> int:
        while not self.done:
            msg = read_message(self.inp)
            if msg is None:
                break
            if msg.get("type") != "request":
                continue
            cmd = str(msg.get("command", ""))
            handler = getattr(self, "on_" + cmd, None)
            if handler is None:
                self.respond(msg, error=f"unsupported request: {cmd}")
                continue
            with self.events_after_response():
                try:
                    body = handler(msg.get("arguments") or {})
                except (RequestFailed, LaunchError, RemoteError, NotPaused, LookupError) as exc:
                    self.respond(msg, error=str(exc).strip("'\""))
                    continue
                except TimeoutError:
                    self.respond(msg, error="the paused run did not answer in time")
                    continue
                self.respond(msg, body)
            after = getattr(self, "after_" + cmd, None)
            if after is not None:
                after()
        if self.backend is not None and not self.done:
            self.backend.close()
        return 0

    # ------------------------------------------------------------ engine events

    def on_engine(self, kind: str, body: dict[str, Any]) -> None:
        if kind == "stopped":
            self.event(
                "stopped",
                {
                    "reason": body.get("reason", "pause"),
                    "description": body.get("description") or body.get("reason", ""),
                    "text": body.get("description", ""),
                    "threadId": THREAD_ID,
                    "allThreadsStopped": True,
                },
            )
        elif kind == "output":
            self.event(
                "output",
                {"category": body.get("category", "console"), "output": body.get("output", "")},
            )
        elif kind == "terminated":
            result = body.get("result") or {}
            code = 0 if result.get("status") in ("success", "passed") else 1
            self.event("exited", {"exitCode": code})
            self.event("terminated", {})

    # ------------------------------------------------------------ requests

    def on_initialize(self, args: dict[str, Any]) -> dict[str, Any]:
        return CAPABILITIES

    def on_launch(self, args: dict[str, Any]) -> None:
        program = args.get("program")
        if not isinstance(program, str) or not program:
            raise RequestFailed("launch: 'program' must name a .sol file")
        program = os.path.abspath(program)  # editors map stack frames by absolute path
        try:
            b = bundle(program)
        except BundleError as exc:
            raise RequestFailed("; ".join(str(p) for p in exc.problems)) from None
        self.sources = SourceMap.bundled(b.source, b.files)
        body: dict[str, Any] = {
            k: args[k]
            for k in (
                "test",
                "contract",
                "function",
                "args",
                "constructorArgs",
                "stopOnEntry",
                "pauseOnFailure",
            )
            if k in args
        }
        node = args.get("node")
        if node is not None and not isinstance(node, str):
            raise RequestFailed("launch: 'node' must be a URL")
        user = args.get("user")
        if "address" in body and not node:
            raise RequestFailed("launch: 'address' (a deployed contract) needs 'node'")
        if node:
            body["source"] = b.source
            body["files"] = [
                {"name": f.name, "firstLine": f.first_line, "lines": f.lines} for f in b.files
            ]
            from app.node.debug.launch import parse_launch

            parse_launch(body)  # the same checks as the node's, before signing in
            try:
                self.backend = RemoteBackend(
                    node, user if isinstance(user, str) else None, body, self.on_engine
                )
            except Exception as exc:
                raise RequestFailed(f"launch: {exc}") from None
        else:
            self.backend = LocalBackend(body, self.sources, self.on_engine)
        for f, lines in self.pending_bps.items():
            self.backend.set_breakpoints(f, lines)
        if self.pause_on_failure is not None:
            self.backend.set_pause_on_failure(self.pause_on_failure)

    def after_launch(self) -> None:
        self.event("initialized")

    def on_setBreakpoints(self, args: dict[str, Any]) -> dict[str, Any]:
        src = args.get("source") or {}
        path = src.get("path") or src.get("name") or ""
        bps = args.get("breakpoints")
        if bps is None:
            bps = [{"line": n} for n in args.get("lines", [])]
        lines = [(int(b["line"]), b.get("condition") or None) for b in bps if isinstance(b, dict)]
        if self.backend is None:
            self.pending_bps[path] = lines
            out = [{"line": line, "verified": False} for line, _ in lines]
        else:
            out = self.backend.set_breakpoints(path, lines)
        return {"breakpoints": [{"verified": b["verified"], "line": b["line"]} for b in out]}

    def on_setExceptionBreakpoints(self, args: dict[str, Any]) -> dict[str, Any]:
        on = "failures" in (args.get("filters") or [])
        if self.backend is None:
            self.pause_on_failure = on
        else:
            self.backend.set_pause_on_failure(on)
        return {}

    def on_configurationDone(self, args: dict[str, Any]) -> None:
        if self.backend is None:
            raise RequestFailed("configurationDone before launch")

    def after_configurationDone(self) -> None:
        if self.backend is not None and not self.started:
            self.started = True
            self.backend.run()

    def on_threads(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"threads": [{"id": THREAD_ID, "name": "SolidVM"}]}

    def _backend(self) -> Backend:
        if self.backend is None:
            raise RequestFailed("no program launched")
        return self.backend

    def on_continue(self, args: dict[str, Any]) -> dict[str, Any]:
        self._backend().control("continue")
        return {"allThreadsContinued": True}

    def on_next(self, args: dict[str, Any]) -> None:
        self._backend().control("next")

    def on_stepIn(self, args: dict[str, Any]) -> None:
        self._backend().control("stepIn")

    def on_stepOut(self, args: dict[str, Any]) -> None:
        self._backend().control("stepOut")

    def on_pause(self, args: dict[str, Any]) -> None:
        self._backend().control("pause")

    def on_stackTrace(self, args: dict[str, Any]) -> dict[str, Any]:
        frames = self._backend().stack()
        start = int(args.get("startFrame") or 0)
        levels = int(args.get("levels") or 0)
        shown = frames[start : start + levels] if levels else frames[start:]
        return {
            "stackFrames": [
                {
                    "id": f["id"],
                    "name": f["name"],
                    "source": {"name": f["file"].rsplit("/", 1)[-1], "path": f["file"]},
                    "line": f["line"],
                    "column": f["column"],
                }
                for f in shown
            ],
            "totalFrames": len(frames),
        }

    def on_scopes(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"scopes": self._backend().scopes(int(args.get("frameId") or 1))}

    def on_variables(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"variables": self._backend().variables(int(args.get("variablesReference") or 0))}

    def on_evaluate(self, args: dict[str, Any]) -> dict[str, Any]:
        expr = args.get("expression")
        if not isinstance(expr, str):
            raise RequestFailed("evaluate: 'expression' must be a SolidVM expression")
        r = self._backend().evaluate(expr, int(args.get("frameId") or 1))
        if "error" in r:
            raise RequestFailed(r["error"])
        return {
            "result": r["result"],
            "type": r["type"],
            "variablesReference": r["variablesReference"],
        }

    def on_terminate(self, args: dict[str, Any]) -> None:
        if self.backend is not None:
            self.backend.control("stop")

    def on_disconnect(self, args: dict[str, Any]) -> None:
        if self.backend is not None:
            self.backend.close()
        self.done = True


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    return Adapter(sys.stdin.buffer, sys.stdout.buffer).serve()
