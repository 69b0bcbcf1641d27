"""Built-in functions, by family; ``BuiltinsMixin`` offers every ``b_<name>`` to the compiler."""

from __future__ import annotations

from .core import CoreBuiltins
from .crypto import CryptoBuiltins
from .encoding import EncodingBuiltins
from .identity import IdentityBuiltins
from .introspection import IntrospectionBuiltins
from .strings import StringBuiltins
from .testing import TestingBuiltins
from .utility import UtilityBuiltins
from .x509 import X509Builtins
from .zk import ZkBuiltins


class BuiltinsMixin(
    CoreBuiltins,
    CryptoBuiltins,
    EncodingBuiltins,
    IdentityBuiltins,
    IntrospectionBuiltins,
    StringBuiltins,
    TestingBuiltins,
    UtilityBuiltins,
    X509Builtins,
    ZkBuiltins,
):
    """Every built-in function family."""
