"""The node's hottest pure-Python modules compiled to C (mypyc), used only when built from
these very sources.

The block producer runs a few modules for every transaction besides executing it: the call-
trace recorder (solidvm/trace.py, trace_show.py), the state diff and its packing, the entries
and pre-images a snapshot and the Cirrus collections need, the JSON size check. Compiled by
mypyc they cost about half as much (``benchmarks/producer_cpu.py``, ``trace_cost.py``).
``tools/build_native.py`` (run by ``make install``) compiles them into ``build/native/`` (a
directory per package) and writes a stamp naming the digest of every source it compiled. Each
package's ``__init__`` calls :func:`use_compiled` before any of its modules is imported: the
package's build directory goes first on its search path when the stamp matches all the sources
and this interpreter; otherwise (no C compiler at install, a source edited since, another
Python, ``STRATOSCOPE_NATIVE=off``) every module is imported from its ``.py`` file as before.
Both forms are the same code: mypyc compiles the typed Python itself (which must therefore
hold the types it declares: mypyc checks them at run time).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import MutableSequence
from pathlib import Path
from typing import Any

# the modules tools/build_native.py compiles, by package
COMPILED: dict[str, tuple[str, ...]] = {
    "app.node": ("jsonenc", "state_diff"),
    "app.node.cirrus": ("collections",),
    "app.node.ledger": ("entries", "packing", "preimages"),
    "app.node.solidvm": ("address", "trace", "trace_show"),
}
STAMP_FILE = "stamp.json"
ENV = "STRATOSCOPE_NATIVE"  # "off": the .py files whatever is built; a path: another build dir

ROOT = Path(__file__).resolve().parents[2]  # the directory that holds ``app``
DEFAULT_DIR = ROOT / "build" / "native"  # beside app/ in a source checkout

_in_use: set[str] = set()


def native_dir() -> Path | None:
    """Where the compiled modules are looked for (None: switched off)."""
    setting = os.environ.get(ENV, "").strip()
    if setting.lower() in ("off", "0", "no", "false"):
        return None
    return Path(setting) if setting else DEFAULT_DIR


def package_dir(package: str, base: Path = ROOT) -> Path:
    """``app.node.ledger`` -> ``base/app/node/ledger``."""
    return base.joinpath(*package.split("."))


def sources() -> list[Path]:
    """The compiled modules' source files."""
    return [package_dir(p) / f"{m}.py" for p, mods in COMPILED.items() for m in mods]


def sources_digest() -> dict[str, str] | None:
    """SHA-256 of each compiled module's source, by dotted name (None when a source is
    missing, as in a bundle that ships byte code only)."""
    out: dict[str, str] = {}
    for package, modules in COMPILED.items():
        for name in modules:
            try:
                text = (package_dir(package) / f"{name}.py").read_bytes()
            except OSError:
                return None
            out[f"{package}.{name}"] = hashlib.sha256(text).hexdigest()
    return out


def stamp() -> dict[str, object]:
    """What a build of the current sources for this interpreter writes (and what
    :func:`use_compiled` expects to find)."""
    return {"cache_tag": sys.implementation.cache_tag, "sources": sources_digest()}


def _built_stamp(where: Path) -> Any:
    """The stamp a build in ``where`` wrote (None without a readable one)."""
    try:
        return json.loads((where / STAMP_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def use_compiled(package: str, search_path: MutableSequence[str]) -> bool:
    """Put ``package``'s build directory first on ``search_path`` (its ``__path__``) when the
    build holds exactly these sources for this interpreter; True when it did."""
    where = native_dir()
    if where is None or package not in COMPILED:
        return False
    found = _built_stamp(where)
    want = stamp()
    if want["sources"] is None or found != want:
        return False
    built = str(package_dir(package, where))
    if built not in search_path:
        search_path.insert(0, built)
    _in_use.add(package)
    return True


def stale_modules() -> list[str]:
    """The compiled modules whose source changed since the build for this interpreter (its
    stamp says another digest): then every module runs as Python (the stamp is checked as a
    whole), which a developer who edited one after ``make install`` would not notice but in
    the node's speed. Empty without a build, for another interpreter's, or switched off."""
    where = native_dir()
    found = _built_stamp(where) if where is not None else None
    if not isinstance(found, dict):
        return []
    want = stamp()
    built, now = found.get("sources"), want["sources"]
    if found.get("cache_tag") != want["cache_tag"] or not isinstance(built, dict) or not now:
        return []
    assert isinstance(now, dict)
    return sorted(name for name, digest in now.items() if built.get(name) != digest)


def packages_in_use() -> list[str]:
    """The packages this process imports compiled forms of, sorted."""
    return sorted(_in_use)


def in_use(package: str = "app.node.solidvm") -> bool:
    """Whether this process imports ``package``'s compiled forms (benchmarks and tests say
    which)."""
    return package in _in_use
