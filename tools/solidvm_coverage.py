"""How much of today's SolidVM our sandbox interpreter handles: a worklist for issue #15.

    python tools/solidvm_coverage.py [--mirror DIR] [--filter REGEX] [--json FILE] [--no-mercata]

Reads the platform's spec suites (SolidVMSpec, TypecheckerSpec, StaticAnalysisSpec) and its
production contract library from the local git mirror at run time (nothing of them is copied into
this repository), runs every spec case through ``app.node.solidvm`` in-process, compiles every
library file bundled with its imports, then prints counts per outcome and the failures grouped by
their normalised first error, most common first. A report, not a test: it always exits 0.

The spec files are Haskell (hspec); cases are recognised by the harness helpers they call
(``runBS``, ``runArgs``, ``runCall``, ``call2``, ``getFields``, ``getAll``, ``shouldThrow`` ...).
Whatever cannot be mapped onto our public API is reported as NOT-EXPRESSIBLE, not as a failure;
a case whose expectation the platform's own code has since dropped (``STALE``, each with the
commit that dropped it) is reported apart too.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import traceback
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solidvm_spec_cases import SUITES, Case, Step, hs_bytes, load_suites  # noqa: E402

DEFAULT_MIRROR = "/work/.mirror/strato-net+strato-platform/repo"
MERCATA = "mercata/contracts"
MERCATA_DIRS = ("abstract", "concrete", "libraries", "tests")

# The harness's transaction context: sender 0xdeadbeef, block 8033 at time 0x4000, whose header
# has gas limit 1000000 and difficulty 900.
SENDER = f"{0xDEADBEEF:040x}"
SENDER_CERT = {
    "commonName": "Benjamin Prevor",
    "organization": "BlockApps",
    "organizationalUnit": "Engineering",
    "country": "Bosnia",
}
BLOCK_NUMBER = 8033
TIMESTAMP = 0x4000
GAS_LIMIT = 1_000_000
DIFFICULTY = 900

# Outcome classes, in report order; FAILING ones are listed in the failure groups.
CLASSES: tuple[str, ...] = ("PASS", "PASS-ran", "PASS-error", "FAIL-parse", "FAIL-compile")
CLASSES += ("FAIL-run", "FAIL-wrong-value", "WRONG-ERROR", "UNEXPECTED-SUCCESS", "CRASH")
CLASSES += ("STALE", "NOT-EXPRESSIBLE", "PENDING", "SKIPPED")
FAILING = CLASSES[3:10]

# Spec cases whose expectation predates a change of the platform's own code (the commit is named;
# the spec file was not updated with it), so that today's platform fails them too. Each comes
# with what today's platform does instead, as a pattern over our ``stage: message``: a case is
# STALE only when we fail it that way, otherwise it stays a failure. Not counted as expressible.
STALE: dict[str, tuple[str, str]] = {}
_APOSTROPHE = (
    r"^parse: .*unterminated string literal",
    "names a variable with an apostrophe (contract', salt'); since 4aa8db0810 (Oct 2025) an "
    "identifier is letters, digits, $ and _ (Parsec's javaStyle had allowed '), so the "
    "platform's parser fails on it as ours does",
)
STALE["can use the selfdestruct function"] = _APOSTROPHE
STALE["can deterministically create multiple salted contracts with no args"] = _APOSTROPHE
STALE["can deterministically create multiple salted contract with args"] = _APOSTROPHE
STALE["can deterministically derive salted contract addresses with no args"] = (
    r"derive",
    "calls derive(salt) alone; since 912d7940c9 (Oct 2025) derive takes the salt and the "
    "contract name first, and the platform fails with 'derive: first two arguments must be "
    "contract name and salt'",
)
STALE["can deterministically derive salted contract addresses with multiple args"] = (
    r"^run: solidity require failed: These salted addresses are not the same$",
    "calls derive(salt, constructor args...); since 912d7940c9 (Oct 2025) the second argument "
    "is the contract name, so the derived address differs and the case's own require fails",
)
_OVERLOADS_TODAY = (
    "function addToNum (uint x, uint y) public {\n    myNum = myNum + x + y;\n    }\n"
    "function addToNum (uint x, bool y) public {\n    myNum += x;\n    myStatus = y;\n    }\n"
    "function addToNum (uint x, string z) public {\n    myNum += x;\n    myString = z;\n    }\n\n"
)
STALE["can get overloaded function using the .code parameter"] = (
    "^value: codeTest is " + re.escape(repr(_OVERLOADS_TODAY)) + ", want",
    "expects 'myNum += x + y;' in the first addToNum; since dfd95c29bc (Oct 2025) the optimiser "
    "rewrites `x += y` as `x = x + y` in every function it keeps (the first of an overloaded "
    "name; the others are left as written), and .code prints the optimised contract",
)
STALE["can use msg.data"] = (
    r"^run: type error: .*variadic",
    "expects msg.data to be the text '(10, hey, False)'; since fc57c37c45 (Sep 2025) it is a "
    "variadic of the arguments, which the platform cannot store in a string (a TypeError)",
)

# Errors the source must be rejected with before it runs (our parse or compile stage); those our
# parser may raise (the platform's parser accepts the syntax of every other expected error).
STATIC_ERRORS = {"ParseError", "ReservedWordError", "Typechecker"}
PARSE_STAGE_OK = {"ParseError", "ReservedWordError", "MissingType", "any"}
# Errors raised while running, with a pattern our ``kind: message`` must match.
RUN_ERRORS = {
    "Require": r"require",
    "Assert": r"assert",
    "RevertError": r"revert",
    "CustomError": r"custom|revert",
    "DivideByZero": r"divide by zero",
    "IndexOutOfBounds": r"index out of bounds",
    "TooMuchGas": r"out of gas|gas",
    "PaymentError": r"balance|payment|send|transfer",
    "InvalidCertificate": r"cert",
    "MalformedData": r"malformed|invalid|type error",
    "TooManyCooks": r"argument",
    "DuplicateContract": r"already exists|duplicate",
}
# Errors allowed at either stage; when raised while running, the pattern must match.
EITHER_KINDS = {
    "MissingType": r"missing type",  # the platform's create of an unknown contract name, too
    "TypeError": r"type",
    "InvalidWrite": r"invalid write|constant|immutable|read-only|view|pure",
    "UnknownFunction": r"unknown function|no method",
    "MissingField": r"missing field|no member|has no",
    "InvalidArguments": r"argument",
    # a reserved word used as a name (parse), or a contract missing when `create` runs
    "MissingType": r"missing type",
}
# Cases the platform's own code (STRATO 16.10) no longer passes: what the spec expects is a check
# the platform has since removed, so the sandbox (which follows the code) cannot pass them either.
# (suite, case name, expected error) -> why, with the platform commit that removed the check.
# Like STALE, applied only when the sandbox fails the case (it behaves as today's platform).
STALE_CHECKS: dict[tuple[str, str, str], str] = {
    (
        "TypecheckerSpec",
        "cannot incrument an immutable already assigned within the constructor",
        "Typechecker",
    ): (
        "immutables are not checked when compiling: d0cf69b1f7 types every state variable "
        "read in a body as mutable (its runtime refuses the second write)"
    ),
    (
        "TypecheckerSpec",
        "cannot assign an immutable a value after already assinged on contract level",
        "Typechecker",
    ): (
        "immutables are not checked when compiling: d0cf69b1f7 types every state variable "
        "read in a body as mutable (its runtime refuses the second write)"
    ),
    (
        "TypecheckerSpec",
        "cannot assign an immutable after already assinged within a function",
        "Typechecker",
    ): (
        "immutables are not checked when compiling: d0cf69b1f7 types every state variable "
        "read in a body as mutable (its runtime refuses the second write)"
    ),
    (
        "TypecheckerSpec",
        "can throw exception when fallback() function has arguments",
        "Typechecker",
    ): ("fallback() may take arguments: 952f226902 (proxies) removed the typechecker's check"),
    (
        "TypecheckerSpec",
        "can throw exception when fallback() function has return values",
        "Typechecker",
    ): ("fallback() may return values: 952f226902 (proxies) removed the typechecker's check"),
    ("SolidVMSpec", "can declare a custom modifier and use it in a contract", "TypeError"): (
        "`return` in a modifier is allowed: fc57c37c45 removed the runtime's ModifierError and "
        "the typechecker has no such check"
    ),
}
# Our messages for features the engine lacks (an expected error raised for this reason is no pass).
UNSUPPORTED = re.compile(r"not supported|unsupported", re.I)


# ============================================================================ literal arguments


class LiteralError(ValueError):
    pass


def parse_literal(text: str) -> Any:
    """A Solidity literal as the harness passes it (``42``, ``"s"``, ``[1, 2]``, ``true``)."""
    val, rest = _literal(text.strip())
    if rest.strip():
        raise LiteralError(f"cannot read argument {text!r}")
    return val


def _literal(s: str) -> tuple[Any, str]:
    s = s.lstrip()
    if s.startswith("["):
        items: list[Any] = []
        s = s[1:].lstrip()
        while not s.startswith("]"):
            v, s = _literal(s)
            items.append(v)
            s = s.lstrip()
            if s.startswith(","):
                s = s[1:]
            elif not s.startswith("]"):
                raise LiteralError("bad array literal")
        return items, s[1:]
    if s[:1] in "\"'":
        q, i, out = s[0], 1, []
        while i < len(s) and s[i] != q:
            if s[i] == "\\" and i + 1 < len(s):
                i += 1
            out.append(s[i])
            i += 1
        return "".join(out), s[i + 1 :]
    m = re.match(r"(true|false)\b|-?0x[0-9a-fA-F]*|-?\d+(\.\d+)?(e\d+)?", s)
    if not m or (m.end() < len(s) and (s[m.end()].isalnum() or s[m.end()] == "_")):
        raise LiteralError(f"cannot read argument {s[:30]!r}")
    t = m.group()
    if t in ("true", "false"):
        return t == "true", s[m.end() :]
    if "0x" in t:
        return ("hex", t), s[m.end() :]
    if "." in t or "e" in t:
        return ("dec", t), s[m.end() :]
    return int(t), s[m.end() :]


def json_arg(v: Any, t: Any) -> Any:
    """A parsed literal in the JSON form our engine takes for a parameter of type ``t``."""
    tname = type(t).__name__
    if isinstance(v, list):
        return [json_arg(x, getattr(t, "elem", None)) for x in v]
    if isinstance(v, tuple) and v[0] == "hex":
        n = int(v[1].replace("0x", "") or "0", 16) * (-1 if v[1].startswith("-") else 1)
        if tname in ("AddressType", "ContractType", "AccountType"):
            return f"{n:040x}"
        if tname == "BytesType":
            return v[1][2:]
        return n
    if isinstance(v, tuple):
        return v[1]
    if isinstance(v, int) and tname in ("AddressType", "ContractType", "AccountType"):
        return f"{v:040x}"
    if isinstance(v, str) and tname == "BytesType":
        return hs_bytes(v).hex()
    return v


# ============================================================================ running a case


@dataclass
class Failure(Exception):
    stage: str  # parse | compile | run | args | value | crash
    kind: str
    message: str


class CaseRunner:
    """Runs the steps of one case against a fresh World."""

    def __init__(self, sv: Any) -> None:
        self.sv = sv
        self.world = sv.World()
        self.world.register_identity(SENDER, SENDER_CERT)
        self.env = sv.TxEnv(
            sender=SENDER,
            block_number=BLOCK_NUMBER,
            timestamp=TIMESTAMP,
            gas_limit=GAS_LIMIT,
            difficulty=DIFFICULTY,
        )
        self.deployed: list[str] = []
        self.vars: dict[str, str] = {}
        self.checked = 0
        self.notes: list[str] = []

    def compile(self, src: str) -> Any:
        sv = self.sv
        try:
            return sv.compile_source(src)
        except sv.CompileError as e:
            raise Failure("compile", "compile error", e.message) from None
        except sv.ParseError as e:
            raise Failure("parse", "parse error", e.message) from None
        except sv.SolidVMError as e:
            raise Failure("compile", e.kind, e.message) from None

    def execute(self, what: Any, *args: Any) -> Any:
        sv = self.sv
        try:
            return what(*args, self.env)
        except sv.ArgumentError as e:
            raise Failure("args", e.kind, e.message) from None
        except sv.SolidVMError as e:
            raise Failure("run", e.kind, e.message) from None

    def run(self, case: Case) -> None:
        for step in case.steps:
            getattr(self, "step_" + step.op)(step)

    def step_compile(self, step: Step) -> None:
        self.compile(step.src)

    def step_lint(self, step: Step) -> None:
        self.compile(step.src)

    def step_deploy(self, step: Step) -> None:
        unit = self.compile(step.src)
        if "qq" not in unit.contracts:
            # every runBS/runArgs... of the harness creates the contract named qq; the
            # platform's create then fails this way
            raise Failure("run", "missing type", "missing type: create'/contract: qq")
        cdef = unit.contracts["qq"]
        params = cdef.constructor.params if cdef.constructor else []
        args = self.args(step.args, params)
        res = self.execute(self.world.deploy, cdef, args)
        self.deployed.append(res.address)

    def args(self, texts: list[str], params: list[tuple[str, Any]]) -> list[Any]:
        try:
            vals = [parse_literal(t) for t in texts]
        except LiteralError as e:
            raise Failure("args", "argument", str(e)) from None
        if len(vals) != len(params):
            return vals  # let the engine say what it thinks of the count
        out = [json_arg(v, t) for v, (_, t) in zip(vals, params, strict=True)]
        for i, (_, t) in enumerate(params):
            size = getattr(t, "size", None) if type(t).__name__ == "BytesType" else None
            if size and isinstance(out[i], str) and len(out[i]) < 2 * size:
                # The harness passes Solidity literal text, which may be shorter than a bytesN;
                # the JSON API (ours, and the platform's) takes exactly N bytes of hex, so the
                # value goes right-padded with zeros, as Solidity pads a short bytesN literal.
                out[i] = out[i].ljust(2 * size, "0")
                self.notes.append(f"argument {i + 1} right-padded to {size} bytes")
        return out

    def address(self, target: Any) -> str:
        if isinstance(target, int):
            if target >= len(self.deployed):
                raise Failure("run", "harness", f"no contract #{target + 1} was deployed")
            return self.deployed[target]
        return self.vars[target]

    def step_call(self, step: Step) -> None:
        addr = self.address(step.target)
        acct = self.world.get_account(addr)
        fn = acct.cdef.find_function(step.fn, len(step.args)) if acct and acct.cdef else None
        args = self.args(step.args, fn.params if fn else [])
        res = self.execute(self.world.call, addr, step.fn, args)
        if step.expect_return is not None:
            self.compare_return(step.expect_return, res.values)

    def compare_return(self, text: str, got: list[Any]) -> None:
        try:
            want = parse_literal("[" + text.strip()[1:-1] + "]") if text.startswith("(") else None
        except LiteralError:
            want = None
        if want is None:
            self.notes.append(f"return value {text!r} not understood")
            return
        self.checked += 1
        if len(want) != len(got) or not all(
            same_value(w, decode_json(g)) for w, g in zip(want, got, strict=False)
        ):
            raise Failure("value", "return", f"returned ({', '.join(map(str, got))}), want {text}")

    def state_at(self, target: Any) -> dict[str, Any]:
        addr = self.address(target)
        try:
            return dict(self.world.state(addr))
        except self.sv.SolidVMError as e:
            raise Failure("run", e.kind, e.message) from None

    def step_fields(self, step: Step) -> None:
        state = self.state_at(step.target)
        for path, want in step.checks:
            if None in path or want is None:
                continue
            got = navigate(state, path)
            self.checked += 1
            if not matches(want, got, self.deployed):
                shown = "/".join(str(p[1]) for p in path)
                raise Failure("value", "storage", f"{shown} is {got!r}, want {show_expected(want)}")

    def step_balance(self, step: Step) -> None:
        self.world.balances[("", int(self.address(step.target), 16))] = step.anns or 0

    def step_bind(self, step: Step) -> None:
        state = self.state_at(step.target)
        for (path, _), name in zip(step.checks, step.names, strict=False):
            got = navigate(state, path) if None not in path else None
            if not isinstance(got, str) or not re.match(r"[0-9a-f]{40}", got):
                raise Failure("value", "storage", f"{name}: no address stored ({got!r})")
            self.vars[name] = got[:40]


def decode_json(v: Any) -> Any:
    if isinstance(v, str) and v[:1] in ("[", "{"):
        try:
            return json.loads(v)
        except ValueError:
            return v
    return v


def same_value(want: Any, got: Any) -> bool:
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(same_value, want, got))
    if isinstance(want, bool):
        return str(got).lower() == str(want).lower()
    if isinstance(want, int):  # an address may be given as a number
        addr = isinstance(got, str) and len(got) == 40 and got.lstrip("0") == f"{want:x}"
        return str(got) == str(want) or addr
    if isinstance(want, tuple):
        if want[0] == "hex":
            n = int(want[1][2:] or "0", 16)
            return (
                isinstance(got, str)
                and bool(re.fullmatch(r"[0-9a-fA-F]+", got))
                and (int(got, 16) == n)
            )
        return numeric_equal(want[1], got)
    return str(got) == str(want)


def numeric_equal(a: Any, b: Any) -> bool:
    try:
        return Decimal(str(a)) == Decimal(str(b))
    except InvalidOperation:
        return False


def navigate(state: Any, path: list[Any]) -> Any:
    cur = state
    for kind, key in path:
        if cur is None:
            return None
        if kind == "field" and key == "length" and isinstance(cur, list):
            cur = len(cur)
        elif kind == "index":
            cur = cur[key] if isinstance(cur, list) and key < len(cur) else None
        elif isinstance(cur, dict):
            options = [key, f"'{key}'"]
            if kind == "key" and not re.fullmatch(r"[0-9a-f]+", key):
                raw = key.encode("latin-1", "replace")
                options += [raw.hex(), raw.ljust(32, b"\0").hex()]
            cur = next((cur[o] for o in options if o in cur), None)
        else:
            return None
    return decode_json(cur)


def is_default(v: Any) -> bool:
    if v is None or v in ("", "0", "false", "0.0") or v == 0:
        return True
    if isinstance(v, str) and re.fullmatch(r"0+(:.*)?|0\.0*", v):
        return True
    if isinstance(v, list | dict):
        return all(is_default(x) for x in (v.values() if isinstance(v, dict) else v))
    return False


def matches(want: Any, got: Any, deployed: list[str]) -> bool:
    kind = want[0]
    if kind == "default":
        return is_default(got)
    if got is None:
        return False
    if kind == "int":
        return str(got) == str(want[1])
    if kind == "bool":
        return str(got) == ("true" if want[1] else "false")
    if kind == "decimal":
        return numeric_equal(want[1], got)
    if kind == "addr":
        addr = want[1]
        if isinstance(addr, str):
            idx = 0 if addr == "uploadAddress" else 1
            addr = int(deployed[idx], 16) if idx < len(deployed) else -1
        return isinstance(got, str) and got[:40] == f"{addr:040x}"
    if kind == "bytes":
        return isinstance(got, str) and got.lower().rstrip("0") == want[1].rstrip("0")
    if kind == "str-qq":
        # The platform stripped trailing blanks from every line of its spec files (commit
        # 0985d31d18, Nov 2025), inside the quasi-quotes that hold expected texts too: compare
        # such texts line by line without trailing blanks.
        return isinstance(got, str) and _unpadded(got) == _unpadded(want[1])
    if kind == "str":
        raw = hs_bytes(want[1])
        if not isinstance(got, str):
            return False
        return got.encode() == raw or got.lower().rstrip("0") == raw.hex().rstrip("0")
    return False


def _unpadded(text: str) -> list[str]:
    return [line.rstrip(" \t") for line in text.split("\n")]


def show_expected(want: Any) -> str:
    return want[0] if len(want) == 1 else f"{want[0]} {want[1]!r}"


def run_case(sv: Any, case: Case) -> None:
    """Fill ``case.outcome``, ``stage`` and ``message``."""
    if case.skipped:
        case.outcome = "SKIPPED"
        return
    if case.pending is not None:
        case.outcome, case.message = "PENDING", case.pending
        return
    if case.inexpressible:
        case.outcome, case.message = "NOT-EXPRESSIBLE", case.inexpressible
        return
    stale_check = STALE_CHECKS.get((case.suite, case.name, case.error or ""))
    if case.error == "StaticAnalysis":
        case.outcome = "NOT-EXPRESSIBLE"
        case.message = f"static-analysis warning expected ({case.steps[0].fn})"
        return
    runner = CaseRunner(sv)
    fail: Failure | None = None
    try:
        runner.run(case)
    except Failure as f:
        fail = f
    except Exception as e:  # an engine bug: it must never raise anything else
        tb = traceback.extract_tb(e.__traceback__)[-1]
        where = f"{Path(tb.filename).name}:{tb.lineno}"
        fail = Failure("crash", type(e).__name__, f"{type(e).__name__}: {e} (at {where})")
    if fail is not None:
        case.stage, case.message = fail.stage, fail.message
    case.checked = runner.checked
    case.unchecked += runner.notes
    case.outcome = classify(case, fail)
    if case.outcome in FAILING and stale_check is not None:
        case.message = f"{stale_check} (the sandbox: {case.outcome})"
        case.outcome = "STALE"
        return
    stale = STALE.get(case.name)
    if case.outcome in FAILING and stale and re.search(stale[0], f"{case.stage}: {case.message}"):
        case.outcome = "STALE"
        case.message = f"{stale[1]} (ours: {case.message})"


def classify(case: Case, fail: Failure | None) -> str:
    if fail is not None and fail.stage == "crash":
        return "CRASH"
    if case.error is None:
        if fail is None:
            return "PASS-ran" if case.unchecked else "PASS"
        if fail.stage == "value":
            return "FAIL-wrong-value"
        return {"parse": "FAIL-parse", "compile": "FAIL-compile"}.get(fail.stage, "FAIL-run")
    if fail is None:
        case.message = f"expected {case.error}" + (f" ({case.error_msg})" if case.error_msg else "")
        return "UNEXPECTED-SUCCESS"
    err, stage = case.error, fail.stage
    static = stage in ("parse", "compile")
    if stage == "value":
        return "FAIL-wrong-value"
    parse_ok = err in PARSE_STAGE_OK or (err == "Typechecker" and one_annotation(case))
    if (stage == "parse" and not parse_ok) or (static and err in RUN_ERRORS):
        return "FAIL-parse" if stage == "parse" else "FAIL-compile"
    text = f"{fail.kind}: {fail.message}"
    if err in RUN_ERRORS:
        ok = bool(re.search(RUN_ERRORS[err], text, re.I))
        if ok and case.error_msg and err == "Require":
            ok = fail.message.endswith(case.error_msg)
    elif err in STATIC_ERRORS:
        ok = static or (stage == "args" and err == "ParseError")
    elif err in EITHER_KINDS and not static:
        ok = bool(re.search(EITHER_KINDS[err], text, re.I))
    else:
        ok = True
    if not ok:
        case.message = f"expected {err}, got: {fail.message}"
        return "WRONG-ERROR"
    return "PASS-error"


def one_annotation(case: Case) -> bool:
    """True when the platform's single annotation for a parse error is what the case expects
    (runTypechecker and forContract report a source that does not parse as one annotation)."""
    first = case.steps[0] if case.steps else None
    return first is not None and first.anns == 1 and first.op == "compile"


def strip_position(msg: str) -> str:
    return re.sub(r"line \d+, column \d+:?\s*", "", msg)


def demote_accidental_passes(cases: list[Case]) -> None:
    """An expected error raised only because we lack a feature is a failure of that feature.

    Recognised by our "not supported" messages, or by the very message that stops a case which
    the platform runs successfully.
    """
    blocking = {
        strip_position(c.message)
        for c in cases
        if c.error is None and c.outcome in ("FAIL-parse", "FAIL-compile")
    }
    for c in cases:
        accidental = UNSUPPORTED.search(c.message) or strip_position(c.message) in blocking
        if c.outcome == "PASS-error" and c.stage in ("parse", "compile") and accidental:
            c.outcome = "FAIL-parse" if c.stage == "parse" else "FAIL-compile"


# ============================================================================ mercata library

IMPORT = re.compile(r"""^[ \t]*import\s+(?:[^"';]*?\bfrom\s+)?["']([^"']+)["'][^;]*;""", re.M)


def bundle(root: Path, path: Path) -> tuple[list[tuple[str, str]], list[str]]:
    """``path`` and everything it imports, dependencies first, each file once."""
    done: set[Path] = set()
    parts: list[tuple[str, str]] = []
    missing: list[str] = []

    def visit(p: Path) -> None:
        p = p.resolve()
        if p in done:
            return
        done.add(p)
        text = p.read_text(encoding="utf-8", errors="replace")
        for imp in IMPORT.findall(text):
            dep = find_import(root, p.parent, imp)
            if dep is None:
                missing.append(f"{p.relative_to(root)}: {imp}")
            else:
                visit(dep)
        body = IMPORT.sub(lambda m: "\n" * m.group().count("\n"), text)
        parts.append((str(p.relative_to(root)), body))

    visit(path)
    return parts, missing


def find_import(root: Path, here: Path, imp: str) -> Path | None:
    candidates = [here / imp]
    if not imp.startswith("."):
        candidates += [root / imp] + [root / d / imp for d in MERCATA_DIRS]
    for c in candidates:
        if c.is_file():
            return c
    return None


def locate(parts: list[tuple[str, str]], line: int) -> str:
    """``file:line`` of a line of the joined bundle."""
    start = 1
    for name, text in parts:
        n = text.count("\n") + 1
        if line < start + n:
            return f"{name}:{line - start + 1}"
        start += n
    return f"?:{line}"


def mercata(sv: Any, mirror: str, pattern: re.Pattern[str] | None) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="mercata-") as tmp:
        archive = subprocess.run(
            ["git", "-C", mirror, "archive", "HEAD", MERCATA], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        root = Path(tmp) / MERCATA
        files = sorted(p for d in MERCATA_DIRS for p in (root / d).rglob("*.sol"))
        for path in files:
            rel = str(path.relative_to(root))
            if pattern and not pattern.search(rel):
                continue
            parts, missing = bundle(root, path)
            entry: dict[str, Any] = {"file": rel, "files": len(parts), "missing_imports": missing}
            try:
                # the test contracts run under the platform's test runner, with its test clock
                unit = sv.compile_source(
                    "\n".join(text for _, text in parts), test_clock=rel.startswith("tests/")
                )
                entry.update(ok=True, contracts=len(unit.contracts))
            except sv.ParseError as e:
                stage = "compile" if isinstance(e, sv.CompileError) else "parse"
                entry.update(ok=False, stage=stage, error=e.detail, at=locate(parts, e.line))
            except sv.SolidVMError as e:
                entry.update(ok=False, stage="compile", error=e.message, at="")
            except Exception as e:  # an engine bug
                entry.update(ok=False, stage="crash", error=f"{type(e).__name__}: {e}", at="")
            results.append(entry)
    return results


# ============================================================================ report


def normalise(msg: str) -> str:
    s = strip_position(msg)
    s = re.sub(r"\(at [\w.]+:\d+\)", "", s)
    s = re.sub(r"'[^']*'", "'_'", s)
    s = re.sub(r'"[^"]*"', '"_"', s)
    s = re.sub(r"`[^`]*`", "`_`", s)
    s = re.sub(r"\b(0x)?[0-9a-fA-F]{8,}\b", "H", s)
    s = re.sub(r"\b\d+\b", "N", s)
    return s.strip()[:160]


def names_in(messages: Any) -> str:
    """The names a group's normalisation hid, most common first: `` [verifyCert x5, ...]``."""
    found = Counter(q[-1][:24] for msg in messages if (q := re.findall(r"'([^']*)'", msg)))
    if not found:
        return ""
    shown = ", ".join(f"{n} x{k}" if k > 1 else n for n, k in found.most_common(6))
    return f"  [{shown}{', ...' if len(found) > 6 else ''}]"


def report(cases: list[Case], lib: list[dict[str, Any]] | None, top: int) -> None:
    print("== SolidVM spec cases (" + ", ".join(SUITES) + ")")
    by_suite: dict[str, Counter[str]] = defaultdict(Counter)
    for c in cases:
        by_suite[c.suite][c.outcome] += 1
    total: Counter[str] = sum(by_suite.values(), Counter())
    cols = [k for k in CLASSES if total[k]]
    print(f"{'class':<20}" + "".join(f"{s[:-4]:>16}" for s in SUITES) + f"{'total':>8}")
    for k in cols:
        row = "".join(f"{by_suite[s][k]:>16}" for s in SUITES)
        print(f"{k:<20}{row}{total[k]:>8}")
    print(f"{'all':<20}" + "".join(f"{sum(by_suite[s].values()):>16}" for s in SUITES), end="")
    print(f"{len(cases):>8}")
    print("PASS = ran and every extracted value matched; PASS-ran = ran without error, but some")
    print("expected values could not be extracted; PASS-error = the expected error, right stage.")
    print("STALE = the platform's own code no longer does what the case expects (not counted).")

    groups: dict[str, list[Case]] = defaultdict(list)
    for c in cases:
        if c.outcome in FAILING:
            groups[f"{c.outcome}: {normalise(c.message)}"].append(c)
    print(f"\n== Failures grouped by first error ({len(groups)} groups)")
    ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    for key, members in ranked[:top] if top else ranked:
        examples = "; ".join(f"{m.name!r} ({m.suite}:{m.line})" for m in members[:2])
        print(f"{len(members):>4}  {key}{names_in(m.message for m in members)}")
        print(f"        e.g. {examples}")
    stale = [c for c in cases if c.outcome == "STALE"]
    if stale:
        print("\n== STALE: the platform's own code no longer passes these (not counted)")
        for c in stale:
            print(f"   {c.name!r} ({c.suite}:{c.line})\n        {c.message[:300]}")
    inexpr = Counter(c.message for c in cases if c.outcome == "NOT-EXPRESSIBLE")
    print("\n== NOT-EXPRESSIBLE reasons")
    for why, n in inexpr.most_common():
        print(f"{n:>4}  {why}")

    if lib is None:
        return
    ok = sum(1 for e in lib if e["ok"])
    print(f"\n== Mercata library: {ok}/{len(lib)} files compile (each bundled with its imports)")
    for d in MERCATA_DIRS:
        mine = [e for e in lib if e["file"].startswith(d + "/")]
        print(f"   {d:<10} {sum(1 for e in mine if e['ok'])}/{len(mine)}")
    errs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in lib:
        if not e["ok"]:
            errs[f"{e['stage']}: {normalise(e['error'])}"].append(e)
    for key, files in sorted(errs.items(), key=lambda kv: (-len(kv[1]), kv[0]))[: top or None]:
        print(f"{len(files):>4}  {key}{names_in(e['error'] for e in files)}")
        print(f"        e.g. {files[0]['file']} ({files[0]['at']})")
    missing = sorted({m for e in lib for m in e["missing_imports"]})
    if missing:
        print(f"   unresolved imports: {len(missing)} (e.g. {missing[0]})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirror", default=DEFAULT_MIRROR, help="bare git mirror of the platform")
    ap.add_argument("--filter", help="only spec cases (and library files) matching this regex")
    ap.add_argument("--json", help="write every case and library result to this file")
    ap.add_argument("--no-mercata", action="store_true", help="skip the contract library")
    ap.add_argument("--top", type=int, default=40, help="failure groups shown (0 = all)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case's outcome")
    opts = ap.parse_args(argv)

    import app.node.solidvm as sv

    pattern = re.compile(opts.filter) if opts.filter else None
    try:
        cases = load_suites(opts.mirror)
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        print(f"cannot read the spec files from {opts.mirror}: {e}", file=sys.stderr)
        return 0
    if pattern:
        cases = [c for c in cases if pattern.search(c.name)]
    for c in cases:
        run_case(sv, c)
        if opts.verbose:
            print(f"{c.outcome:<18} {c.suite}:{c.line} {c.name} :: {c.message[:150]}")
    demote_accidental_passes(cases)
    lib = None if opts.no_mercata else mercata(sv, opts.mirror, pattern)
    report(cases, lib, opts.top)
    if opts.json:
        data = {
            "summary": dict(Counter(c.outcome for c in cases)),
            "cases": [asdict(c) for c in cases],
            "mercata": lib,
        }
        Path(opts.json).write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
        print(f"\nwrote {opts.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
