"""The call-trace recorder compiled to C (mypyc), used only when built from these very sources.

Recording a transaction's call trace (trace.py, trace_show.py) is pure Python work on the
block producer's thread for every transaction; compiled by mypyc it costs less than half as
much (``benchmarks/trace_cost.py``). ``tools/build_native.py`` (run by ``make install``)
compiles those modules into ``build/native/`` and writes a stamp naming the digests of the
sources it compiled. :func:`use_compiled`, called by this package's ``__init__`` before any
of its modules is imported, puts that directory first on the package's search path when the
stamp matches the sources and this interpreter; otherwise (no C compiler at install, a source
edited since, another Python, ``STRATOSCOPE_NATIVE=off``) the modules are imported from their
``.py`` files as before. Both forms are the same code: mypyc compiles the typed Python itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import MutableSequence
from pathlib import Path

# this package's modules that tools/build_native.py compiles (the producer's trace recorder)
COMPILED = ("trace", "trace_show")
STAMP_FILE = "stamp.json"
ENV = "STRATOSCOPE_NATIVE"  # "off": the .py files whatever is built; a path: another build dir

PACKAGE_DIR = Path(__file__).resolve().parent
DEFAULT_DIR = PACKAGE_DIR.parents[2] / "build" / "native"  # beside app/ in a source checkout

_in_use = False


def native_dir() -> Path | None:
    """Where the compiled modules are looked for (None: switched off)."""
    setting = os.environ.get(ENV, "").strip()
    if setting.lower() in ("off", "0", "no", "false"):
        return None
    return Path(setting) if setting else DEFAULT_DIR


def sources_digest() -> dict[str, str] | None:
    """SHA-256 of each compiled module's source (None when a source is missing, as in a
    bundle that ships byte code only)."""
    out: dict[str, str] = {}
    for name in COMPILED:
        try:
            out[name] = hashlib.sha256((PACKAGE_DIR / f"{name}.py").read_bytes()).hexdigest()
        except OSError:
            return None
    return out


def stamp() -> dict[str, object]:
    """What a build of the current sources for this interpreter writes (and what
    :func:`use_compiled` expects to find)."""
    return {"cache_tag": sys.implementation.cache_tag, "sources": sources_digest()}


def use_compiled(search_path: MutableSequence[str]) -> bool:
    """Put the build directory first on ``search_path`` (the package's ``__path__``) when it
    holds a build of exactly these sources for this interpreter; True when it did."""
    global _in_use
    where = native_dir()
    if where is None:
        return False
    try:
        found = json.loads((where / STAMP_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    want = stamp()
    if want["sources"] is None or found != want:
        return False
    if str(where) not in search_path:
        search_path.insert(0, str(where))
    _in_use = True
    return True


def in_use() -> bool:
    """Whether this process imports the compiled forms (benchmarks and tests say which)."""
    return _in_use
