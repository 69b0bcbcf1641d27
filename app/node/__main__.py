"""Command line of the sandbox node (``python -m app.node``, ``stratoscope-node``).

At this milestone the node offers its contract engine: ``check`` compiles SolidVM source files and
lists what they contain, or reports parse errors with their line and column. The HTTP server
(``serve``) and the user commands arrive with the node itself.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .solidvm import VMS, ContractDef, SolidVMError, compile_source
from .solidvm.errors import ParseError
from .solidvm.types import Type


def _describe_contract(c: ContractDef) -> list[str]:
    def params(ps: list[tuple[str | None, Type]]) -> str:
        return ", ".join(f"{t.name} {n}" if n else t.name for n, t in ps)

    lines = [f"  {c.kind} {c.name}"]
    if c.constructor is not None:
        lines.append(f"    constructor({params(list(c.constructor.params))})")
    for fns in c.functions.values():
        for f in fns:
            if f.getter_of is not None:
                continue
            mut = f" {f.mutability}" if f.mutability else ""
            rets = f" returns ({params(f.returns)})" if f.returns else ""
            sig = f"{f.name}({params(list(f.params))})"
            lines.append(f"    function {sig} {f.visibility}{mut}{rets}")
    if c.state_vars:
        shown = [f"{v.type.name} {'public ' if v.public else ''}{v.name}" for v in c.state_vars]
        lines.append("    state: " + "; ".join(shown))
    return lines


def cmd_check(opts: argparse.Namespace) -> int:
    status = 0
    for path in opts.files:
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            print(f"{path}: cannot read: {exc.strerror}", file=sys.stderr)
            status = 1
            continue
        try:
            unit = compile_source(text, vm=opts.vm)
        except ParseError as exc:
            print(f"{path}:{exc.line}:{exc.column}: {exc.detail}", file=sys.stderr)
            status = 1
            continue
        except SolidVMError as exc:
            print(f"{path}: {exc.message}", file=sys.stderr)
            status = 1
            continue
        if opts.json:
            print(json.dumps(unit.xabis(), indent=2))
            continue
        n = len(unit.contracts)
        print(f"{path}: ok ({n} contract{'s' if n != 1 else ''})")
        for c in unit.contracts.values():
            print("\n".join(_describe_contract(c)))
    return status


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="stratoscope-node",
        description="Stratoscope sandbox node: a STRATO-compatible node for local work.",
    )
    sub = ap.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="compile SolidVM sources and list their contracts")
    check.add_argument("files", nargs="+", help=".sol files")
    check.add_argument("--vm", choices=VMS, default="SolidVM")
    check.add_argument("--json", action="store_true", help="print the xabi as JSON")
    check.set_defaults(func=cmd_check)
    return ap


def main(argv: list[str] | None = None) -> int:
    opts = build_parser().parse_args(argv)
    return int(opts.func(opts))


if __name__ == "__main__":
    sys.exit(main())
