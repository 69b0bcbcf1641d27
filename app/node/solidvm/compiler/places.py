"""Where a value lives: storage places follow SolidVM's storage rules (arrays read and write at
any index), memory values the ordinary ones."""

from __future__ import annotations

from .. import ast as A
from .base import CompilerBase


class PlacesMixin(CompilerBase):
    """Tells storage places (state variables, storage references and what they contain) from
    memory values at compile time."""

    def is_storage(self, e: A.Expr) -> bool:
        if isinstance(e, A.Ident):
            lv = self.lookup_local(e.name)
            if lv is not None:
                return lv.location == "storage"
            sv = self.c.svars.get(e.name)
            return sv is not None and not sv.constant
        if isinstance(e, (A.Index, A.Member)):
            return self.is_storage(e.obj)
        return False
