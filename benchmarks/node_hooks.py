"""A sandbox node started with hooks: code its interpreter runs first, and code it runs on some
of the node's modules as soon as each is loaded, before anything uses it.

The hooks are a ``sitecustomize.py`` written into a temporary directory that goes first on the
node's ``PYTHONPATH`` (the node inherits the environment; Python imports ``sitecustomize`` at
start). A finder on ``sys.meta_path`` lets each named module load as usual, then calls the
hooks' ``_after_load(name, module)``. write_tail.py times the node's work this way;
write_bound.py switches parts of it off.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

_FINDER = '''
import importlib.abc as _abc, importlib.util as _util, sys as _sys

AFTER = {after!r}


class _AfterLoad(_abc.MetaPathFinder):
    """Loads a module of AFTER as usual, then calls _after_load(name, module)."""

    def find_spec(self, name, path, target=None):
        if name not in AFTER:
            return None
        _sys.meta_path.remove(self)
        try:
            spec = _util.find_spec(name)
        finally:
            _sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _after_load(name, module)

        spec.loader.exec_module = exec_module
        return spec


_sys.meta_path.insert(0, _AfterLoad())
'''


def hooks_source(body: str, after: Iterable[str]) -> str:
    """A ``sitecustomize.py``: ``body`` (which defines ``_after_load(name, module)``), then
    the finder that calls it once each module named in ``after`` is loaded."""
    return body + _FINDER.format(after=sorted(set(after)))


@contextmanager
def hooked(tmp: Path, source: str, env: dict[str, str] | None = None) -> Iterator[None]:
    """Meanwhile, a node started from this process loads ``source`` as its
    ``sitecustomize.py`` (written into ``tmp/hooks``), with ``env`` added to its environment."""
    hooks = tmp / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "sitecustomize.py").write_text(source)
    path = os.pathsep.join(filter(None, [str(hooks), os.environ.get("PYTHONPATH")]))
    with mock.patch.dict(os.environ, {"PYTHONPATH": path, **(env or {})}):
        yield
