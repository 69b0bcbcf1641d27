"""What a debug session runs: a call on a fresh deployment, a deploy, or one ``Describe_`` test.

:func:`parse_launch` checks a launch request (the REST route's body, the DAP ``launch``
arguments) and names the field that is wrong; :func:`make_session` compiles the source in debug
mode and builds the plan the session's thread runs. The plan runs on a world given by the caller:
a fresh :class:`World` (the debug adapter's temporary sandbox) or an overlay of a node's
committed state (:mod:`.overlay`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..solidvm.errors import SolidVMError
from ..solidvm.world import TxEnv, World
from .compiler import DebugUnit, compile_debug
from .engine import DebugSession
from .sources import FileSpan, SourceMap

HOOKS_BEFORE = ("beforeAll", "beforeEach")
HOOKS_AFTER = ("afterEach", "afterAll")
_TEST_RE = re.compile(r"^(Describe_\w+)\.(\w+)$")
_ADDRESS_RE = re.compile(r"^(0[xX])?[0-9a-fA-F]{40}$")
SourceOf = Callable[[str], tuple[str, str, str]]
"""address -> (file name, source text, contract name) of a deployed contract's code."""


class LaunchError(ValueError):
    """A launch request that cannot run; ``field`` names what is wrong."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name


@dataclass
class LaunchSpec:
    sources: SourceMap
    contract: str = ""
    function: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    constructor_args: dict[str, Any] = field(default_factory=dict)
    test: str = ""
    address: str = ""  # a call on this deployed contract instead of a fresh deployment
    stop_on_entry: bool = False
    pause_on_failure: bool = True
    breakpoints: list[tuple[str, int, str | None]] = field(default_factory=list)


def _obj(body: dict[str, Any], name: str) -> dict[str, Any]:
    v = body.get(name, {})
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise LaunchError(name, "must be a JSON object of argument name -> value")
    return v


def _bool(body: dict[str, Any], name: str, default: bool) -> bool:
    v = body.get(name, default)
    if not isinstance(v, bool):
        raise LaunchError(name, "must be true or false")
    return v


def parse_breakpoints(raw: Any) -> list[tuple[str, int, str | None]]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise LaunchError("breakpoints", "must be a list of {file, line, condition?}")
    out: list[tuple[str, int, str | None]] = []
    for i, b in enumerate(raw):
        if not isinstance(b, dict):
            raise LaunchError(f"breakpoints[{i}]", "must be an object {file, line, condition?}")
        f, line, cond = b.get("file"), b.get("line"), b.get("condition")
        if not isinstance(f, str):
            raise LaunchError(f"breakpoints[{i}].file", "must be a file name")
        if not isinstance(line, int) or isinstance(line, bool) or line < 1:
            raise LaunchError(f"breakpoints[{i}].line", "must be a line number from 1")
        if cond is not None and not isinstance(cond, str):
            raise LaunchError(f"breakpoints[{i}].condition", "must be a SolidVM expression")
        out.append((f, line, cond or None))
    return out


def _bundled(text: str, files: Any) -> SourceMap:
    """A bundled text and where its files start: ``[{name, firstLine, lines}]``."""
    if not isinstance(files, list) or not files:
        raise LaunchError("files", "must be a list of {name, firstLine, lines}")
    spans: list[FileSpan] = []
    for i, f in enumerate(files):
        ok = isinstance(f, dict) and isinstance(f.get("name"), str)
        nums = [f.get(k) for k in ("firstLine", "lines")] if ok else []
        if not ok or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in nums
        ):
            raise LaunchError(f"files[{i}]", "must be {name, firstLine, lines} (lines from 1)")
        spans.append(FileSpan(f["name"], nums[0], nums[1]))
    return SourceMap(text, spans)


def parse_launch(
    body: Any, sources: SourceMap | None = None, source_of: SourceOf | None = None
) -> LaunchSpec:
    """A launch request: ``source`` (text, or ``{file: text}``; not needed when ``sources``
    is given), then ``test`` or ``contract`` (+ ``function``, ``args``, ``constructorArgs``),
    or ``address`` + ``function`` + ``args`` (a call on a deployed contract; without
    ``source``, ``source_of`` finds the contract's own)."""
    if not isinstance(body, dict):
        raise LaunchError("body", "must be a JSON object")
    address = body.get("address")
    if address is not None and (not isinstance(address, str) or not _ADDRESS_RE.match(address)):
        raise LaunchError("address", "must be 40 hex digits (0x allowed)")
    address = address[-40:].lower() if address else ""
    if address and "test" in body:
        raise LaunchError("test", "give a test or an address, not both")
    deployed: tuple[str, str, str] | None = None
    if sources is None and address and body.get("source") is None and source_of is not None:
        deployed = source_of(address)
        sources = SourceMap.single(deployed[0], deployed[1])
    if sources is None:
        src = body.get("source")
        files = body.get("files")
        if isinstance(src, str) and src.strip() and files is not None:
            sources = _bundled(src, files)
        elif isinstance(src, str) and src.strip():
            name = body.get("name", "main.sol")
            if not isinstance(name, str) or not name:
                raise LaunchError("name", "must be a file name")
            sources = SourceMap.single(name, src)
        elif isinstance(src, dict) and src and all(isinstance(v, str) for v in src.values()):
            sources = SourceMap.collection({str(k): v for k, v in src.items()})
        else:
            raise LaunchError("source", "must be SolidVM source text or {file: text}")
    spec = LaunchSpec(sources)
    test = body.get("test")
    if test is not None:
        if not isinstance(test, str) or not _TEST_RE.match(test):
            raise LaunchError("test", "must be Describe_X.it_y")
        spec.test = test
    else:
        contract = body.get("contract", deployed[2] if deployed else None)
        if not isinstance(contract, str) or not contract:
            raise LaunchError("contract", "give the contract to deploy (or a test)")
        spec.contract = contract
        spec.address = address
        if address and not body.get("function"):
            raise LaunchError("function", "give the function to call on the contract at address")
        fn = body.get("function", "")
        if not isinstance(fn, str):
            raise LaunchError("function", "must be a function name")
        spec.function = fn
        spec.args = _obj(body, "args")
        spec.constructor_args = _obj(body, "constructorArgs")
    spec.stop_on_entry = _bool(body, "stopOnEntry", False)
    spec.pause_on_failure = _bool(body, "pauseOnFailure", True)
    spec.breakpoints = parse_breakpoints(body.get("breakpoints"))
    return spec


def compile_spec(spec: LaunchSpec, test_clock: bool = True) -> DebugUnit:
    """The debug compile of the spec's source; LaunchError on compile errors (mapped to files)."""
    try:
        unit = compile_debug(spec.sources.text, test_clock=test_clock)
    except SolidVMError as exc:
        line = getattr(exc, "line", None)
        if isinstance(line, int):
            f, fl = spec.sources.locate(line)
            detail = getattr(exc, "detail", str(exc))
            raise LaunchError("source", f"{f}:{fl}:{getattr(exc, 'column', 0)}: {detail}") from None
        raise LaunchError("source", str(exc)) from None
    name = spec.test.split(".")[0] if spec.test else spec.contract
    c = unit.contracts.get(name)
    if c is None or c.kind != "contract":
        raise LaunchError("test" if spec.test else "contract", f"no contract {name} in the source")
    if spec.test:
        fn = spec.test.split(".")[1]
        if fn not in c.functions:
            raise LaunchError("test", f"{name} has no function {fn}")
    elif spec.function and spec.function not in c.functions:
        raise LaunchError("function", f"{name} has no function {spec.function}")
    return unit


def _failure(what: str, exc: SolidVMError, spec: LaunchSpec) -> dict[str, Any]:
    out: dict[str, Any] = {"status": "failed", "message": f"{what} failed: {exc}"}
    where = getattr(exc, "where", None)
    if where:
        f, line = spec.sources.locate(where[1])
        out["sourcePosition"] = {"name": f, "line": line, "column": where[2]}
    return out


def make_plan(
    spec: LaunchSpec, unit: DebugUnit, world: World, env: TxEnv
) -> Callable[[DebugSession], dict[str, Any]]:
    """The run: deploy, then the call or the test (with its hooks), each its own transaction."""

    def logs(s: DebugSession, lines: list[str]) -> None:
        for line in lines:
            s.output(line)

    def call(s: DebugSession, addr: str) -> dict[str, Any]:
        name = spec.contract
        s.begin_target()
        try:
            res = world.call(addr, spec.function, spec.args, env)
        except SolidVMError as exc:
            return _failure(f"{name}.{spec.function}", exc, spec)
        logs(s, res.logs)
        return {
            "status": "success",
            "message": f"{name}.{spec.function} returned {res.values}",
            "values": res.values,
            "address": addr,
        }

    def plan(s: DebugSession) -> dict[str, Any]:
        name = spec.test.split(".")[0] if spec.test else spec.contract
        cdef = unit.contracts[name]
        if spec.address:
            return call(s, spec.address)
        if not spec.test and not spec.function:
            s.begin_target()
        try:
            dep = world.deploy(cdef, spec.constructor_args, env)
        except SolidVMError as exc:
            return _failure(f"deploying {name}", exc, spec)
        logs(s, dep.logs)
        addr = dep.address
        assert addr is not None
        if not spec.test and not spec.function:
            return {"status": "success", "message": f"deployed {name} at {addr}", "address": addr}
        if not spec.test:
            return call(s, addr)
        test = spec.test.split(".")[1]
        for hook in HOOKS_BEFORE:
            if hook in cdef.functions:
                try:
                    logs(s, world.call(addr, hook, {}, env).logs)
                except SolidVMError as exc:
                    return _failure(f"{name}.{hook}", exc, spec)
        s.begin_target()
        try:
            res = world.call(addr, test, {}, env)
        except SolidVMError as exc:
            return _failure(spec.test, exc, spec)
        logs(s, res.logs)
        if res.values and str(res.values[0]).lower() == "false":
            return {"status": "failed", "message": f"{spec.test} returned false"}
        for hook in HOOKS_AFTER:
            if hook in cdef.functions:
                try:
                    logs(s, world.call(addr, hook, {}, env).logs)
                except SolidVMError as exc:
                    return _failure(f"{name}.{hook}", exc, spec)
        return {"status": "passed", "message": f"{spec.test} passed"}

    return plan


def fresh_world(user: str = "alice") -> tuple[World, TxEnv]:
    """A world of its own with one signed-in user, clocked as the test runner's sandbox."""
    world = World()
    world.test_clock = True
    sender = "a11ce" + "0" * 35
    world.register_identity(
        sender, {"commonName": user, "organization": "Stratoscope", "organizationalUnit": "Dev"}
    )
    return world, TxEnv(sender=sender, block_number=1, timestamp=0)


def apply_breakpoints(s: DebugSession, bps: list[tuple[str, int, str | None]]) -> None:
    """Set ``bps`` (file, line, condition) as the session's breakpoints, file by file."""
    by_file: dict[str, list[tuple[int, str | None]]] = {f: [] for f in s.breakpoints}
    for f, line, cond in bps:
        by_file.setdefault(f, []).append((line, cond))
    for f, lines in by_file.items():
        s.set_breakpoints(f, lines)


def session_for(
    spec: LaunchSpec,
    unit: DebugUnit,
    plan: Callable[[DebugSession], dict[str, Any]],
    name: str = "debug",
) -> DebugSession:
    """A session ready to start: breakpoints of the spec already set (so none arrives late)."""
    s = DebugSession(
        unit,
        spec.sources,
        plan,
        stop_on_entry=spec.stop_on_entry,
        pause_on_failure=spec.pause_on_failure,
        name=name,
    )
    apply_breakpoints(s, spec.breakpoints)
    return s


def make_session(
    spec: LaunchSpec, world: World, env: TxEnv, unit: DebugUnit | None = None, name: str = "debug"
) -> DebugSession:
    """A session on ``world`` (compiling the spec's source unless ``unit`` is given)."""
    unit = unit or compile_spec(spec, world.test_clock)
    return session_for(spec, unit, make_plan(spec, unit, world, env), name)
