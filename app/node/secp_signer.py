"""Recoverable secp256k1 signatures made holding the interpreter's lock.

coincurve calls libsecp256k1 through cffi, which lets go of the interpreter's lock around every
C call: two per signature. On the event loop, while the block producer executes, each of those
hops waited up to a switch interval for the lock to come back: signing cost a ``resolve=false``
submission ~0.12 ms at the median for ~35 us of work. The same library functions called
through ``ctypes.PyDLL`` (which keeps the lock) take the ~35 us only. On a worker thread (a
batch's transactions are signed there) letting go is what is wanted: the producer runs
meanwhile; there the vault signs through coincurve's API.

The library is coincurve's own copy (its extension module exports libsecp256k1's functions);
the signatures are coincurve's byte for byte (RFC 6979 nonces, the library's default, as
coincurve's). Where that module cannot be loaded so (another build of coincurve), signing goes
through coincurve's API everywhere.
"""

from __future__ import annotations

import ctypes
import logging
import secrets

log = logging.getLogger(__name__)

CONTEXT_NONE = 1  # SECP256K1_CONTEXT_NONE: what signing needs since libsecp256k1 0.2


class HeldSigner:
    """libsecp256k1 through ctypes.PyDLL, on a context of its own (randomized once, as
    coincurve's is; libsecp256k1 contexts are safe to share between threads for signing)."""

    def __init__(self) -> None:
        from coincurve import _libsecp256k1

        lib = ctypes.PyDLL(_libsecp256k1.__file__)
        create = lib.secp256k1_context_create
        create.argtypes = [ctypes.c_uint]
        create.restype = ctypes.c_void_p
        randomize = lib.secp256k1_context_randomize
        randomize.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        randomize.restype = ctypes.c_int
        self._sign = lib.secp256k1_ecdsa_sign_recoverable
        self._sign.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
        self._sign.argtypes += [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p]
        self._sign.restype = ctypes.c_int
        self._serialize = lib.secp256k1_ecdsa_recoverable_signature_serialize_compact
        self._serialize.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        self._serialize.argtypes += [ctypes.POINTER(ctypes.c_int), ctypes.c_char_p]
        self._serialize.restype = ctypes.c_int
        ctx = create(CONTEXT_NONE)
        if not ctx or not randomize(ctx, secrets.token_bytes(32)):
            raise OSError("libsecp256k1: no signing context")
        self._ctx = ctx  # (one for the process: never destroyed)

    def sign(self, secret: bytes, digest: bytes) -> bytes:
        """The 65-byte recoverable signature (r, s, recovery id) of a 32-byte digest."""
        if len(secret) != 32 or len(digest) != 32:
            raise ValueError("secp256k1: the key and the digest must be 32 bytes")
        sig = ctypes.create_string_buffer(65)  # secp256k1_ecdsa_recoverable_signature
        if not self._sign(self._ctx, sig, digest, secret, None, None):
            raise ValueError("secp256k1: the key is not valid")
        out = ctypes.create_string_buffer(64)
        recid = ctypes.c_int()
        self._serialize(self._ctx, out, ctypes.byref(recid), sig)
        return out.raw + bytes((recid.value,))


def make_held_signer() -> HeldSigner | None:
    """A :class:`HeldSigner`, or None (logged) when coincurve's module does not load so."""
    try:
        return HeldSigner()
    except (ImportError, OSError, AttributeError) as exc:
        log.info("signing through coincurve's API only (%s)", exc)
        return None
