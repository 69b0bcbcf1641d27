"""Compile the node's hottest modules with mypyc into build/native/ (run by `make install`).

The modules named by ``app/node/native.py`` (``COMPILED``) are compiled as they are: mypyc
turns their typed Python into a C extension each, which their package imports instead of the
``.py`` files while a stamp names exactly these sources (see native.py). mypyc comes with mypy
(a test dependency, so `make install` has it); a C compiler and Python's headers are needed.
Without them this prints why and exits 0: the node then runs the same modules as Python, only
slower.

    .venv/bin/python tools/build_native.py [--out DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _native_module() -> ModuleType:
    """app/node/native.py on its own (importing its package would import the very modules
    being compiled, and any earlier build of them)."""
    spec = importlib.util.spec_from_file_location(
        "stratoscope_native", ROOT / "app" / "node" / "native.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


native = _native_module()

# mypyc type-checks what it compiles and what that imports; the project's own mypy settings
# (strict, unused-section notes) are lint's business: here only what compiling needs
MYPY_CONFIG = "[mypy]\npython_version = 3.11\nignore_missing_imports = True\n"


def build(out: Path) -> None:
    """Compile ``native.COMPILED`` into ``out`` (replaced), its stamp written last."""
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped]

    want = native.stamp()
    if want["sources"] is None:
        raise SystemExit("build_native: the sources to compile are missing")
    with tempfile.TemporaryDirectory(prefix="stratoscope-native-") as tmp:
        work = Path(tmp)
        config = work / "mypy.ini"
        config.write_text(MYPY_CONFIG, encoding="utf-8")
        here = Path.cwd()
        os.chdir(ROOT)  # mypyc names the modules by their paths from here
        try:
            exts = mypycify(
                [
                    "--config-file",
                    str(config),
                    *(str(p.relative_to(ROOT)) for p in native.sources()),
                ],
                separate=True,  # each module's runtime in its package directory, no top-level one
                target_dir=str(work / "c"),
            )
            # a Distribution of its own: setup() would read pyproject.toml, which an older
            # setuptools in the venv cannot (and this builds no package)
            dist = Distribution({"name": "stratoscope-native", "ext_modules": exts})
            cmd = dist.get_command_obj("build_ext")
            cmd.build_lib = str(work / "lib")
            cmd.build_temp = str(work / "temp")
            dist.run_command("build_ext")
        finally:
            os.chdir(here)
        staged = work / "out"
        for package, modules in native.COMPILED.items():
            lib = native.package_dir(package, work / "lib")
            built = sorted(lib.glob("*.so")) + sorted(lib.glob("*.pyd"))
            names = {f.name.split(".")[0].removesuffix("__mypyc") for f in built}
            if not set(modules) <= names:
                raise SystemExit(f"build_native: mypyc built no extension for {package}")
            dest = native.package_dir(package, staged)
            dest.mkdir(parents=True)
            for f in built:
                shutil.copy2(f, dest / f.name)
        (staged / native.STAMP_FILE).write_text(json.dumps(want, indent=1), encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(staged, out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=native.DEFAULT_DIR)
    opts = ap.parse_args()
    t0 = time.monotonic()
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        print("build_native: mypyc is not installed: the node runs its modules as Python")
        return 0
    try:
        build(opts.out)
    except (Exception, SystemExit) as exc:  # no compiler, no headers, a mypyc error
        print(f"build_native: not built ({exc}): the node runs its modules as Python")
        shutil.rmtree(opts.out, ignore_errors=True)  # no stale build left to match
        return 0
    print(
        f"build_native: compiled {', '.join(p.stem for p in native.sources())} into {opts.out} "
        f"in {time.monotonic() - t0:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
