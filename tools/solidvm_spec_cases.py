"""Reading the platform's hspec suites: each ``it "..."`` case as steps and an expectation.

The spec files are Haskell. Comments are dropped, each ``[r|...|]`` quasi-quote (Solidity source)
is set aside, and the rest is tokenised; a case is recognised by the harness helpers it calls
(``runBS``, ``runArgs``, ``runCall``, ``call2``, ``getFields``, ``getAll``, ``shouldThrow`` ...).
Whatever cannot be mapped onto our public API marks the case ``inexpressible``. Used by
``tools/solidvm_coverage.py``; the files are read from the local git mirror at run time.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

TESTS = "strato/VM/SolidVM/solid-vm/tests"
SUITES = ("SolidVMSpec", "TypecheckerSpec", "StaticAnalysisSpec")

# The exception constructor a hspec selector expects: ``anyFooError`` -> ``Foo``, except for the
# constructors whose own name ends in "Error".
ERROR_NAMED = {"TypeError", "ParseError", "RevertError", "CustomError", "PaymentError"}
ERROR_NAMED |= {"ReservedWordError", "ModifierError", "ImmutableError", "InternalError"}
SELECTORS = {
    "anyException": "any",
    "specificTypeError": "TypeError",
    "failedRequirementMsg": "Require",
    "failedRequirementNoMsg": "Require",
    "failedAssertion": "Assert",
    "anyUnknownFunc": "UnknownFunction",
    "anyIndexOOBError": "IndexOutOfBounds",
    "anyInvalidCertError": "InvalidCertificate",
    "failedToAttainRunTimCodeError": "FailedToAttainRunTimCode",
}


def selector_error(name: str) -> str:
    if name in SELECTORS:
        return SELECTORS[name]
    base = re.sub(r"^any", "", name)
    return base if base in ERROR_NAMED else re.sub(r"Error$", "", base)


# ============================================================================ Haskell reading


@dataclass
class Skeleton:
    """A Haskell file with comments dropped and each quasi-quote replaced by ``QQ<n>``."""

    text: str
    lines: list[int]  # original line number of each skeleton line
    quotes: list[str]


QQ_OPEN = re.compile(r"\[[A-Za-z_][\w']*\|")
LINE_COMMENT = re.compile(r"(?>--+)(?![!#$%&*+./<=>?@\\^|~:])")  # `-->` is an operator
CHAR_LITERAL = re.compile(r"'(\\[^']+|[^\\'])'")


def skeletonize(src: str) -> Skeleton:
    """Comments out, quasi-quotes set aside; strings and character literals kept whole."""
    out: list[str] = []
    lines = [1]
    quotes: list[str] = []
    i, n, line = 0, len(src), 1

    def newlines(text: str) -> None:
        nonlocal line
        for _ in range(text.count("\n")):
            line += 1
            out.append("\n")
            lines.append(line)

    while i < n:
        ch = src[i]
        if ch == "\n":
            newlines("\n")
            i += 1
        elif ch == "-" and LINE_COMMENT.match(src, i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("{-", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("{-", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("-}", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            newlines(src[i:j])
            i = j
        elif ch == "[" and (m := QQ_OPEN.match(src, i)):
            end = src.find("|]", m.end())
            end = n if end < 0 else end
            quotes.append(src[m.end() : end])
            out.append(f" QQ{len(quotes) - 1} ")
            line += src.count("\n", m.end(), end)
            i = end + 2
        elif ch == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append(src[i : j + 1].replace("\n", " "))
            line += src.count("\n", i, j)
            i = j + 1
        elif (
            ch == "'"
            and (m := CHAR_LITERAL.match(src, i))
            and not (i and (src[i - 1].isalnum() or src[i - 1] in "_'"))
        ):
            out.append(m.group())
            i = m.end()
        else:
            out.append(ch)
            i += 1
    return Skeleton("".join(out), lines, quotes)


TOKEN = re.compile(
    r"""(?P<ws>\s+)|(?P<qq>QQ\d+\b)|(?P<str>"(?:[^"\\]|\\.)*")|(?P<chr>'(?:[^'\\]|\\.)+')
    |(?P<bt>`[\w'.]+`)|(?P<num>0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:e-?\d+)?)
    |(?P<id>[A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)*)|(?P<sym>[-!#$%&*+./<=>?@\\^|~:]+|[()\[\],;{}])
    |(?P<other>.)""",
    re.X | re.S,
)
Tok = tuple[str, str]


def tokenize(text: str) -> list[Tok]:
    return [(m.lastgroup or "", m.group()) for m in TOKEN.finditer(text) if m.lastgroup != "ws"]


def hs_int(text: str) -> int:
    if text[:2] in ("0x", "0X"):
        return int(text, 16)
    return int(text) if text.isdigit() else int(float(text))


HS_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
ASCII_NAMES = "NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI DLE DC1 DC2 DC3 DC4 NAK SYN"
ASCII_NAMES += " ETB CAN EM SUB ESC FS GS RS US"
ASCII = {name: chr(i) for i, name in enumerate(ASCII_NAMES.split())} | {"SP": " ", "DEL": "\x7f"}
ASCII_RE = re.compile("|".join(sorted(ASCII, key=len, reverse=True)))


def hs_string(lit: str) -> str:
    """The value of a Haskell string literal (quotes included in ``lit``)."""
    s, out, i = lit[1:-1], [], 0
    while i < len(s):
        c = s[i]
        if c != "\\" or i + 1 >= len(s):
            out.append(c)
            i += 1
            continue
        nx = s[i + 1]
        if nx == "x" and (m := re.match(r"[0-9a-fA-F]+", s[i + 2 :])):
            out.append(chr(int(m.group(), 16)))
            i += 2 + len(m.group())
        elif nx.isdigit() and (m := re.match(r"\d+", s[i + 1 :])):
            out.append(chr(int(m.group())))
            i += 1 + len(m.group())
        elif nx.isspace():
            j = s.find("\\", i + 1)
            i = len(s) if j < 0 else j + 1
        elif nx == "&":
            i += 2
        elif m := ASCII_RE.match(s, i + 1):
            out.append(ASCII[m.group()])
            i = m.end()
        else:
            out.append(HS_ESCAPES.get(nx, nx))
            i += 2
    return "".join(out)


# ============================================================================ spec cases


@dataclass
class Step:
    op: str  # deploy | call | fields | bind | compile | lint
    src: str = ""
    args: list[str] = field(default_factory=list)  # Solidity literal texts
    fn: str = ""
    target: Any = None  # deploy index (0 = first) or a variable bound by a `bind` step
    expect_return: str | None = None
    checks: list[tuple[list[Any], Any]] = field(default_factory=list)  # (path, expected)
    names: list[str] = field(default_factory=list)
    anns: int | None = None
    at_least: bool = False  # `length anns `shouldSatisfy` (>= N)`


@dataclass
class Case:
    suite: str
    name: str
    line: int
    skipped: bool = False
    pending: str | None = None
    steps: list[Step] = field(default_factory=list)
    error: str | None = None  # expected exception constructor, None = success
    error_msg: str | None = None
    unchecked: list[str] = field(default_factory=list)
    inexpressible: str | None = None
    # results
    checked: int = 0  # expected values compared
    outcome: str = ""
    stage: str = ""
    message: str = ""


HEAD = re.compile(r'^(\s*)\(?(x?)(describe|context|it|specify)\s+("(?:[^"\\]|\\.)*")')
RUNNERS = {  # helper -> number of address arguments before the args list (None: no list)
    "runBS": None,
    "runBS'": None,
    "runBSBeef": None,
    "runBSBeef'": None,
    "runArgs": 0,
    "runArgsBeef": 0,
    "runArgsWithSender": 1,
    "runArgsWithSenderBeef": 1,
    "runArgsWithOrigin": 2,
    "runArgsWithCertificateRegistry": None,
}
# Detectors the platform's compiler runs with its typechecker (compileSource'): an annotation of
# theirs is a compile error there (and here).
COMPILE_DETECTORS = {"ConstantFunctions.detector", "MultipleDeclarations.detector"}
# identifiers meaning the case drives the node below the contract API
HARNESS = {
    "insert": "writes raw storage",
    "A.insert": "writes raw storage",
    "checkStorage": None,
    "erNewContractAddress": "reads the create result record",
    "erEvents": "reads the events of the result record",
    "erReturnVal": "reads the result record",
    "Action.": "reads state-diff actions",
    "deriveAddressWithSalt": None,
}


def indent_of(s: str) -> int:
    return len(s) - len(s.lstrip())


def extract_cases(suite: str, src: str, read_file: Any) -> list[Case]:
    sk = skeletonize(src)
    lines = sk.text.split("\n")
    bindings, prefixes = top_level_bindings(lines, sk.quotes)
    cases: list[Case] = []
    stack: list[tuple[int, bool]] = []
    i = 0
    while i < len(lines):
        m = HEAD.match(lines[i])
        if not m:
            i += 1
            continue
        indent = len(m.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        skipped = m.group(2) == "x" or any(s for _, s in stack)
        if m.group(3) in ("describe", "context"):
            stack.append((indent, skipped))
            i += 1
            continue
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or indent_of(lines[j]) > indent):
            j += 1
        case = Case(suite, hs_string(m.group(4)), sk.lines[i], skipped)
        body = "\n".join([lines[i][m.end() :], *lines[i + 1 : j]])
        BodyReader(case, tokenize(body), sk.quotes, bindings, prefixes, read_file).read()
        cases.append(case)
        i = j
    return cases


def top_level_bindings(
    lines: list[str], quotes: list[str]
) -> tuple[dict[str, str], dict[str, str]]:
    """``name = [r|...|]`` sources and helpers like ``f x = g [r|...|] ++ x`` (a prefix)."""
    bindings: dict[str, str] = {}
    prefixes: dict[str, str] = {}
    decl: list[str] = []
    for line in [*lines, "END"]:
        if line[:1].strip() and decl:
            text = " ".join(decl)
            m = re.match(r"([a-z][\w']*)\s*(.*?)=(.*)", text)
            qqs = re.findall(r"QQ(\d+)", text)
            if m and len(qqs) == 1:
                if m.group(2).strip():
                    prefixes[m.group(1)] = quotes[int(qqs[0])]
                else:
                    bindings[m.group(1)] = quotes[int(qqs[0])]
            decl = []
        if line.strip():
            decl.append(line)
    return bindings, prefixes


class BodyReader:
    """Turns the tokens of one case body into steps and an expectation."""

    def __init__(
        self,
        case: Case,
        toks: list[Tok],
        quotes: list[str],
        bindings: dict[str, str],
        prefixes: dict[str, str],
        read_file: Any,
    ) -> None:
        self.case, self.t, self.quotes = case, toks, quotes
        self.bindings, self.prefixes = dict(bindings), prefixes
        self.read_file = read_file
        self.deploys = 0
        self.vars: set[str] = set()

    def tok(self, p: int) -> Tok:
        return self.t[p] if p < len(self.t) else ("eof", "")

    def give_up(self, why: str) -> None:
        if self.case.inexpressible is None:
            self.case.inexpressible = why

    def read(self) -> None:
        c, p = self.case, 0
        while p < len(self.t):
            kind, text = self.t[p]
            if kind == "id" and self.tok(p + 1) == ("sym", "=") and self.binding(p + 2, text):
                p += 2
                continue
            if kind == "id" and text == "adjust_":
                p = self.balance(p + 1)
                continue
            if kind == "id" and text in RUNNERS:
                p = self.runner(p + 1, text)
            elif kind == "id" and text in ("runCall", "runCall'", "call2"):
                p = self.call(p + 1, text)
            elif kind == "id" and text in ("getFields", "getFields2", "getAll", "getAll2"):
                p = self.fields(p, text)
            elif kind == "id" and text == "getSolidStorageKeyVal'":
                p = self.key_val(p + 1)
            elif kind == "id" and text in ("runFile", "runFileArgs"):
                p = self.run_file(p + 1, text)
            elif kind == "id" and text == "runTypechecker":
                src, p = self.source(p + 1)
                c.steps.append(Step("compile", src or "", anns=self.anns(p)))
                c.steps[-1].at_least = self.at_least(p)
            elif kind == "bt" and text in ("`forSource`", "`forContract`"):
                detector = self.tok(p - 1)[1]
                src, p = self.source(p + 1)
                # forContract compiles (typechecker and the compiler's own detectors) first and
                # counts a failure's annotations; a detector the compiler runs has nothing left to
                # add when it succeeds, so the case is a compile expectation like runTypechecker's
                op = (
                    "compile"
                    if text == "`forContract`" and detector in COMPILE_DETECTORS
                    else "lint"
                )
                c.steps.append(Step(op, src or "", fn=detector, anns=self.anns(p)))
                c.steps[-1].at_least = self.at_least(p)
            elif kind == "id" and text == "pendingWith":
                c.pending = hs_string(self.tok(p + 1)[1]) if self.tok(p + 1)[0] == "str" else "?"
                p += 1
            elif kind == "bt" and text == "`shouldThrow`":
                sel = self.tok(p + 1)[1]
                c.error = selector_error(sel)
                if self.tok(p + 2)[0] == "str":
                    c.error_msg = hs_string(self.tok(p + 2)[1])
                p += 2
            elif kind == "bt" and text in ("`shouldBe`", "`shouldSatisfy`", "`shouldNotReturn`"):
                if not (c.steps and c.steps[-1].op in ("compile", "lint")):
                    c.unchecked.append(f"{text.strip('`')} assertion")
                p += 1
            elif kind == "id" and (text in HARNESS or text.startswith("Action.")):
                why = HARNESS.get(text, "reads state-diff actions")
                if why:
                    self.give_up(why)
                else:
                    c.unchecked.append(f"{text} check")
                p += 1
            elif kind == "id" and text == "case":
                c.unchecked.append("expectation computed by an expression (case ... of)")
                p += 1
            else:
                p += 1
        if c.steps and c.steps[0].op in ("compile", "lint") and c.steps[0].anns:
            first = c.steps[0]
            c.error = "Typechecker" if first.op == "compile" else "StaticAnalysis"
            c.error_msg = f"{'at least ' if first.at_least else ''}{first.anns} annotation(s)"
            if first.fn:
                c.error_msg += f" from {first.fn}"
        if not c.steps and not c.pending and not c.inexpressible:
            self.give_up("no recognised harness step")

    # -- pieces

    def count(self, p: int) -> tuple[int | None, bool]:
        """The annotation count a compile/lint step is compared with, and whether it is a
        minimum: ``shouldBe N`` or ``shouldSatisfy (>= N)``."""
        for q in range(p, min(p + 12, len(self.t))):
            if self.t[q] == ("bt", "`shouldBe`") and self.tok(q + 1)[0] == "num":
                return hs_int(self.tok(q + 1)[1]), False
            if self.t[q] == ("bt", "`shouldSatisfy`"):
                form = [self.tok(q + k) for k in range(1, 5)]
                texts = [f[1] for f in form]
                if texts[:2] == ["(", ">="] and form[2][0] == "num" and texts[3] == ")":
                    return hs_int(form[2][1]), True
                return None, False
        return None, False

    def anns(self, p: int) -> int | None:
        return self.count(p)[0]

    def at_least(self, p: int) -> bool:
        return self.count(p)[1]

    def source(self, p: int) -> tuple[str | None, int]:
        while self.tok(p) in (("sym", "$"), ("sym", "(")):
            p += 1
        kind, text = self.tok(p)
        if kind == "qq":
            return self.quotes[int(text[2:])], p + 1
        if kind == "id" and text in self.bindings:
            return self.bindings[text], p + 1
        self.give_up(f"source built by an expression ({text})")
        return None, p

    def strlist(self, p: int) -> tuple[list[str] | None, int]:
        while self.tok(p) == ("sym", "$"):
            p += 1
        if self.tok(p) != ("sym", "["):
            return None, p
        out, p = [], p + 1
        while self.tok(p)[0] == "str":
            out.append(hs_string(self.tok(p)[1]))
            p += 1
            if self.tok(p) == ("sym", ","):
                p += 1
        if self.tok(p) != ("sym", "]"):
            return None, p
        return out, p + 1

    def address(self, tok: Tok, after: Tok) -> Any:
        kind, text = tok
        if text == "uploadAddress":
            return 0
        if text == "secondAddress":
            return 1
        if kind == "sym" and text == "(" and after[1] in self.vars:
            return after[1]
        return None

    def binding(self, p: int, name: str) -> bool:
        """``name = [r|..|]``, also whitespace-filtered or with ``T.replace "$X" other``."""
        q = p
        while q < len(self.t) and q < p + 30 and self.t[q][0] != "qq":
            q += 1
        if self.tok(q)[0] != "qq":
            return False
        text = self.quotes[int(self.t[q][1][2:])]
        words = [t[1] for t in self.t[p:q]]
        if "filter" in words and "isSpace" in words:
            text = "".join(c for c in text if not c.isspace() or c == " ")
        if "T.replace" in words:
            i = words.index("T.replace")
            old, new = self.tok(p + i + 1), self.tok(p + i + 2)
            if old[0] != "str" or new[1] not in self.bindings:
                return False
            text = text.replace(hs_string(old[1]), self.bindings[new[1]])
        elif len(words) > 2 and "filter" not in words:
            return False
        self.bindings[name] = text
        return True

    def key_val(self, p: int) -> int:
        """``getSolidStorageKeyVal' (x^.namedAccountAddress) (singleton "f") `shouldReturn` V``."""
        target = self.address(self.tok(p), self.tok(p + 1))
        q = p
        while q < p + 12 and self.tok(q) != ("id", "singleton"):
            q += 1
        name, want = self.tok(q + 1), self.tok(q + 3)
        if target is None or name[0] != "str" or want != ("bt", "`shouldReturn`"):
            self.case.unchecked.append("raw storage read not understood")
            return p
        end = q + 6 if self.tok(q + 5)[0] in ("str", "num", "id") else q + 5
        value = parse_value(self.t[q + 4 : end], self.bindings)
        if value is None:
            self.case.unchecked.append("raw storage value not understood")
        else:
            path = [("field", hs_string(name[1]))]
            self.case.steps.append(Step("fields", target=target, checks=[(path, value)]))
        return end

    def balance(self, p: int) -> int:
        """``adjust_ ... (a^.namedAccountAddress) (... addressStateBalance = N})``."""
        target = None
        for q in range(p, min(p + 30, len(self.t))):
            if target is None and self.t[q] == ("sym", "("):
                target = self.address(self.tok(q), self.tok(q + 1))
            if self.t[q] == ("id", "addressStateBalance") and self.tok(q + 2)[0] == "num":
                if target is None:
                    break
                self.case.steps.append(
                    Step("balance", target=target, anns=hs_int(self.t[q + 2][1]))
                )
                return q + 3
        self.give_up("sets account state directly")
        return p

    def runner(self, p: int, helper: str) -> int:
        naddr = RUNNERS[helper]
        args: list[str] | None = []
        if naddr is not None:
            p += naddr
            args, p = self.strlist(p)
            if args is None:
                self.give_up(f"{helper} arguments built by an expression")
                return p
        src, p = self.source(p)
        if src is not None:
            if helper in self.prefixes:
                src = self.prefixes[helper] + src
            self.case.steps.append(Step("deploy", src, args or []))
            self.deploys += 1
        return p

    def run_file(self, p: int, helper: str) -> int:
        args: list[str] | None = []
        if helper == "runFileArgs":
            args, p = self.strlist(p)
        if self.tok(p)[0] != "str" or args is None:
            self.give_up(f"{helper} with computed arguments")
            return p
        text = self.read_file(hs_string(self.tok(p)[1]))
        self.case.steps.append(Step("deploy", text, args))
        self.deploys += 1
        return p + 1

    def call(self, p: int, helper: str) -> int:
        if self.tok(p)[0] != "str":
            self.give_up(f"{helper} of a computed function name")
            return p
        fn = hs_string(self.tok(p)[1])
        args, p = self.strlist(p + 1)
        if args is None:
            self.give_up(f"{helper} arguments built by an expression")
            return p
        if helper == "call2":
            target = self.address(self.tok(p), self.tok(p + 1))
            if target is None:
                self.give_up("call2 on a computed address")
                return p
            p += 1
        else:
            src, p = self.source(p)
            if src is None:
                return p
            self.case.steps.append(Step("deploy", src))
            target = self.deploys
            self.deploys += 1
        step = Step("call", fn=fn, args=args, target=target)
        self.case.steps.append(step)
        while self.tok(p) == ("sym", ")"):
            p += 1
        if self.tok(p) == ("bt", "`shouldReturn`"):
            if self.tok(p + 1) == ("id", "Just") and self.tok(p + 2)[0] == "str":
                step.expect_return = hs_string(self.tok(p + 2)[1])
                p += 3
            else:
                self.case.unchecked.append("return value given by an expression")
        return p

    def group(self, p: int) -> tuple[list[list[Tok]], int]:
        """The comma-separated elements of the bracketed list starting at ``p``."""
        depth, q = 0, p
        elems: list[list[Tok]] = []
        cur: list[Tok] = []
        while q < len(self.t):
            kind, text = self.t[q]
            if text in ("[", "(") and kind == "sym":
                depth += 1
                if depth == 1:
                    q += 1
                    continue
            elif text in ("]", ")") and kind == "sym":
                depth -= 1
                if depth == 0:
                    elems.append(cur)
                    return [e for e in elems if e], q + 1
            elif text == "," and depth == 1:
                elems.append(cur)
                cur = []
                q += 1
                continue
            cur.append(self.t[q])
            q += 1
        return [], q

    def fields(self, p: int, helper: str) -> int:
        target = 1 if helper.endswith("2") else 0
        bound = self.tok(p - 1) == ("sym", "<-")
        elems, p = self.group(p + 1)
        paths: list[list[Any]] = []
        for e in elems:
            if helper.startswith("getFields"):
                paths.append([("field", hs_string(e[0][1]))] if e[0][0] == "str" else [None])
            else:
                paths.append(parse_path(e))
        if bound:
            names = [e[-1][1] for e in self.pattern_before(p)]
            self.vars.update(names)
            self.case.steps.append(
                Step("bind", target=target, names=names, checks=[(path, None) for path in paths])
            )
            return p
        if self.tok(p) != ("bt", "`shouldReturn`"):
            self.case.unchecked.append(f"{helper} without shouldReturn")
            return p
        p += 1
        velems: list[list[Tok]] = []
        if self.tok(p) == ("id", "replicate") and self.tok(p + 1)[0] == "num":
            vals, p = parse_value(self.t[p + 2 : p + 3], {}), p + 3
            values = [vals] * hs_int(self.tok(p - 2)[1])
        else:
            velems, p = self.group(p)
            values = [parse_value(v, self.bindings) for v in velems]
        if len(values) != len(paths):
            self.case.unchecked.append(f"{helper} with values not understood")
            return p
        checks = [(pa, v) for pa, v in zip(paths, values, strict=True)]
        for (pa, v), raw in zip(checks, velems if values is not None else [], strict=False):
            if None in pa or v is None:
                shown = " ".join(t[1] for t in raw)[:60]
                self.case.unchecked.append(f"storage value or path not understood: {shown}")
        self.case.steps.append(Step("fields", target=target, checks=checks))
        return p

    def pattern_before(self, p: int) -> list[list[Tok]]:
        """The ``[Ctor "T" var, ...]`` pattern left of the ``<-`` before a getFields."""
        q = p - 1
        while q > 0 and self.t[q] != ("sym", "<-"):
            q -= 1
        r = q - 1
        while r > 0 and self.t[r] != ("sym", "["):
            r -= 1
        elems, _ = self.group(r)
        return [e for e in elems if e and e[-1][0] == "id"]


def parse_path(toks: list[Tok]) -> list[Any]:
    out: list[Any] = []
    toks = [t for t in toks if t[1] not in ("$", "(", ")", ",", "[", "]")]
    i = 0
    while i < len(toks):
        text = toks[i][1]
        nxt = toks[i + 1] if i + 1 < len(toks) else ("eof", "")
        if text == "Field" and nxt[0] == "str":
            out.append(("field", hs_string(nxt[1])))
            i += 2
        elif text == "ArrayIndex" and nxt[0] == "num":
            out.append(("index", hs_int(nxt[1])))
            i += 2
        elif text == "MapIndex" and i + 2 < len(toks):
            ctor, arg = nxt[1], toks[i + 2]
            if ctor == "INum" and arg[0] == "num":
                out.append(("key", str(hs_int(arg[1]))))
            elif ctor == "IText" and arg[0] == "str":
                out.append(("key", hs_string(arg[1])))
            elif ctor == "IBool":
                out.append(("key", arg[1].lower()))
            elif ctor == "iAddress" and arg[0] == "num":
                out.append(("key", f"{hs_int(arg[1]):040x}"))
            else:
                return [None]
            i += 3
        else:
            return [None]
    return out


def parse_value(toks: list[Tok], bindings: dict[str, str]) -> Any:
    """An expected storage value (``BInteger 3``, ``bContract "X" 0x99`` ...) or None."""
    toks = [t for t in toks if t[1] not in ("$", "(", ")", "UTF8.fromString", "NamedAccount")]
    if not toks:
        return None
    head, rest = toks[0][1], toks[1:]
    neg = rest[:1] == [("sym", "-")]
    nums = [
        hs_int(t[1]) for t in rest if t[0] == "num" and re.fullmatch(r"0x[0-9a-fA-F]+|\d+", t[1])
    ]
    strs = [hs_string(t[1]) for t in rest if t[0] == "str"]
    if head == "BDefault":
        return ("default",)
    if head == "BInteger" and nums:
        return ("int", -nums[0] if neg else nums[0])
    if head == "BBool" and rest:
        return ("bool", rest[0][1] == "True")
    if head == "BString" and len(rest) == 1 and strs:
        return ("str", strs[0])
    if head == "BString" and len(rest) == 1 and rest[0][1] in bindings:
        return ("str-qq", bindings[rest[0][1]])  # text of a quasi-quote
    words = [t[1] for t in rest]
    for fn, width in (("word256ToBytes", 64), ("word160ToBytes", 40)):
        if head == "BString" and fn in words and nums:
            return ("bytes", f"{nums[-1]:0{width}x}")
    if head == "BString" and "LabeledError.b16Decode" in words and strs:
        return ("bytes", strs[-1].lower())
    if head == "BDecimal" and strs:
        return ("decimal", strs[0])
    if head == "BEnumVal" and nums:
        return ("int", nums[-1])
    if head in ("bContract", "bContract'", "BContract", "bAccount", "bAddress", "BAccount"):
        ids = [t[1] for t in rest if t[0] == "id"]
        if nums and not [i for i in ids if i not in ("UnspecifiedChain", "MainChain")]:
            return ("addr", nums[0]) if nums[0] else ("default",)
        if ids and ids[-1] in ("uploadAddress", "secondAddress"):
            return ("addr", ids[-1])
        if ids == ["sender"]:
            return ("addr", 0xDEADBEEF)
    return None


def hs_bytes(s: str) -> bytes:
    """A Haskell string literal used as a ByteString: each character is one byte."""
    return s.encode("latin-1") if all(ord(c) < 256 for c in s) else s.encode()


def load_suites(mirror: str) -> list[Case]:
    def show(path: str) -> str:
        return subprocess.run(
            ["git", "-C", mirror, "show", f"HEAD:{path}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    def read_file(rel: str) -> str:
        try:
            return show(str(PurePosixPath(TESTS).parent / rel))
        except subprocess.CalledProcessError:
            return ""

    cases: list[Case] = []
    for suite in SUITES:
        cases += extract_cases(suite, show(f"{TESTS}/{suite}.hs"), read_file)
    return cases
