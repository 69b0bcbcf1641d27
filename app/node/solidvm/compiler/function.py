"""The function compiler: one class combining the statement, expression and call compilers."""

from __future__ import annotations

from .assignment import AssignmentMixin
from .bounds import BoundsMixin
from .builtins import BuiltinsMixin
from .calls import CallsMixin
from .expressions import ExpressionsMixin
from .libraries import LibrariesMixin
from .lowlevel import LowLevelMixin
from .places import PlacesMixin
from .statements import StatementsMixin
from .trycatch import TryCatchMixin
from .variadic import VariadicMixin


class FunctionCompiler(
    StatementsMixin,
    ExpressionsMixin,
    AssignmentMixin,
    CallsMixin,
    BuiltinsMixin,
    VariadicMixin,
    LowLevelMixin,
    LibrariesMixin,
    PlacesMixin,
    TryCatchMixin,
    BoundsMixin,
):
    """Compiles the bodies of one function (or modifier, or initializer) of contract ``c``."""
