"""Built-in functions, by family; ``BuiltinsMixin`` offers every ``b_<name>`` to the compiler."""

from __future__ import annotations

from .core import CoreBuiltins
from .crypto import CryptoBuiltins
from .identity import IdentityBuiltins
from .introspection import IntrospectionBuiltins
from .strings import StringBuiltins
from .testing import TestingBuiltins
from .x509 import X509Builtins


class BuiltinsMixin(
    CoreBuiltins,
    CryptoBuiltins,
    IdentityBuiltins,
    IntrospectionBuiltins,
    StringBuiltins,
    TestingBuiltins,
    X509Builtins,
):
    """Every built-in function family."""
