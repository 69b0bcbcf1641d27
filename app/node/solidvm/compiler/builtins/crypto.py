"""Hashes and signatures: keccak256/sha256/ripemd160 as SolidVM hashes, ecrecover, verifySignature.

One ``bytes`` or ``string`` argument is hashed as its bytes. Any other argument list is hashed the
way SolidVM does it: the RLP encoding of the value (one argument) or of the list of values
(several), so ``keccak256(a, b)`` equals the platform's hash of the same values.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from Crypto.Hash import RIPEMD160

from ... import ast as A
from ...errors import ExecutionError
from ...ops import describe, keccak256, type_error
from ...runtime import Frame
from ...types import ADDRESS, BOOL, BYTES32, BytesType
from ...values import Address, ArrayValue, Digest, MappingValue, StructValue, TextBytes
from ..base import CExpr, CompilerBase

Hasher = Callable[[bytes], bytes]


def _sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _ripemd160(data: bytes) -> bytes:
    return bytes(RIPEMD160.new(data).digest())


def malformed(what: str, value: Any) -> ExecutionError:
    """The platform's MalformedData error text."""
    return ExecutionError(f"Malformed data: {what}: {value!r}", "malformed data")


# ------------------------------------------------------------------ RLP, as SolidVM encodes values


def _rlp_int(n: int) -> Any:
    if n == 0:
        return b""
    if n < 0:
        return [_rlp_int(-n)]
    return n.to_bytes((n.bit_length() + 7) // 8, "big")


def rlp_item(v: Any) -> Any:
    """A runtime value as an RLP item: bytes (a string item) or a list of items."""
    if v is True or v is False:
        return b"\x01" if v else b"\x00"
    if type(v) is int:
        return _rlp_int(v)
    if type(v) is str:
        return v.encode()
    if isinstance(v, bytes):  # TextBytes: text kept in a bytes slot, SolidVM's string
        return bytes(v)
    if isinstance(v, Address):
        return v.value.to_bytes(20, "big")
    if isinstance(v, StructValue):
        return [rlp_item(v[k]) for k in sorted(v)]  # the platform's field map is sorted by name
    if isinstance(v, ArrayValue | list | tuple):
        return [rlp_item(x) for x in v]
    if isinstance(v, MappingValue) or v is None:
        return []
    return str(v).encode()  # decimals and other scalars hash as their text, as the platform


def _length_prefix(n: int, short: int, long: int) -> bytes:
    if n <= 55:
        return bytes([short + n])
    size = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([long + len(size)]) + size


def rlp_encode(item: Any) -> bytes:
    if isinstance(item, bytes):
        if len(item) == 1 and item[0] < 0x80:
            return item
        return _length_prefix(len(item), 0x80, 0xB7) + item
    inner = b"".join(rlp_encode(x) for x in item)
    return _length_prefix(len(inner), 0xC0, 0xF7) + inner


def hash_input(fr: Frame, vals: list[Any]) -> bytes:
    """What SolidVM feeds the hash: raw bytes/text for one such argument, else RLP."""
    if len(vals) == 1 and type(vals[0]) in (bytes, str, TextBytes, Digest):
        v = vals[0]
        data = bytes(v) if isinstance(v, bytes) else v.encode()
    else:
        data = rlp_encode(rlp_item(vals[0]) if len(vals) == 1 else [rlp_item(v) for v in vals])
    fr.ctx.charge_memory(len(data) // 32)
    return data


# ------------------------------------------------------------------ signatures

SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def _int_arg(v: Any, what: str) -> int:
    if type(v) is int:
        return v
    if type(v) is TextBytes:  # text in a bytes slot is a string to SolidVM
        v = v.decode("utf-8", "replace")
    if type(v) is str:
        try:
            return int(v[2:] if v[:2] in ("0x", "0X") else v, 16)
        except ValueError:
            raise ExecutionError(
                f"invalid arguments: parseHex: error parsing {what}: {v!r}", "invalid arguments"
            ) from None
    if isinstance(v, bytes):
        return int.from_bytes(v, "big")
    raise ExecutionError(
        f"invalid arguments: ecrecover: {what} must be a hex string or an integer: {describe(v)}",
        "invalid arguments",
    )


def _bytes_arg(v: Any) -> bytes:
    """A hash argument as SolidVM reads one: text (a string, or text kept in a bytes slot) is
    hex when it reads as hex, else its UTF-8; bytes as they are (a Digest: its 32 bytes);
    an integer its minimal big-endian bytes; an address its 20 bytes."""
    if type(v) is TextBytes:
        v = v.decode("utf-8", "replace")
    if isinstance(v, bytes):
        return bytes(v)
    if type(v) is str:
        try:
            return bytes.fromhex(v[2:] if v[:2] in ("0x", "0X") else v)
        except ValueError:
            return v.encode()
    if type(v) is int and v >= 0:
        return v.to_bytes((v.bit_length() + 7) // 8, "big")
    if isinstance(v, Address):
        return v.value.to_bytes(20, "big")
    raise type_error(f"expected bytes, got {describe(v)}")


def ecrecover(digest: bytes, v: int, r: int, s: int) -> Address:
    """The signer of a 32-byte digest; the zero address when none. As the platform, v is 27 or
    28 (taken as a byte: 0 and 1 recover nothing) and r and s are read modulo 2^256."""
    from coincurve import PublicKey

    rec = (v - 27) % 256
    r, s = r % (1 << 256), s % (1 << 256)
    if len(digest) != 32 or rec not in (0, 1) or not (0 < r < SECP256K1_N and 0 < s < SECP256K1_N):
        return Address(0)
    sig = r.to_bytes(32, "big") + s.to_bytes(32, "big") + bytes([rec])
    try:
        pub = PublicKey.from_signature_and_message(sig, digest, hasher=None)
    except Exception:  # coincurve raises plain Exception for an unrecoverable signature
        return Address(0)
    raw = pub.format(compressed=False)[1:]
    return Address(int.from_bytes(keccak256(raw)[12:], "big"))


def load_public_key(pem: str) -> Any:
    """A PEM public key (the platform wants PEM; hex keys are malformed data)."""
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    try:
        return load_pem_public_key(pem.encode())
    except (ValueError, TypeError):
        raise malformed("Could not parse public key", pem) from None


def verify_digest(pub: Any, der_signature: bytes, digest: bytes) -> bool:
    """ECDSA verification of a 32-byte digest (no further hashing)."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, utils

    if not isinstance(pub, ec.EllipticCurvePublicKey):
        return False
    try:
        pub.verify(der_signature, digest, ec.ECDSA(utils.Prehashed(hashes.SHA256())))
    except (InvalidSignature, ValueError):
        return False
    return True


def verify_signature(msg_hex: Any, sig_hex: Any, pubkey: Any) -> bool:
    for name, v in (("message", msg_hex), ("signature", sig_hex), ("public key", pubkey)):
        if type(v) is not str:
            raise type_error(f"verifySignature needs a string {name}, got {describe(v)}")
    try:
        digest = bytes.fromhex(msg_hex[2:] if msg_hex[:2] in ("0x", "0X") else msg_hex)
    except ValueError:
        raise malformed("Could not decode hex string", msg_hex) from None
    if len(digest) != 32:
        raise malformed("Message hash is not 32 bytes", msg_hex)
    try:
        der = bytes.fromhex(sig_hex[2:] if sig_hex[:2] in ("0x", "0X") else sig_hex)
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

        decode_dss_signature(der)
    except ValueError:
        raise malformed("Could not parse EC Signature ", sig_hex) from None
    return verify_digest(load_public_key(pubkey), der, digest)


def _invalid(what: str, value: Any) -> ExecutionError:
    return ExecutionError(f"invalid arguments: {what}: {value!r}", "invalid arguments")


def verify_p256(digest: Any, r: Any, s: Any, key: list[Any]) -> bool:
    """ECDSA on P-256 (passkeys, WebAuthn) over a 32-byte SHA-256 digest, as the platform's
    ``verifyP256(hash, r, s, pubKey)`` or ``verifyP256(hash, r, s, x, y)``."""
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    h = _bytes_arg(digest)
    if len(h) != 32:
        raise _invalid("Could not decode hash from string", h.hex())
    if len(key) == 2:
        x, y = (_int_arg(k, "public key") for k in key)
        point = b"\x04" + x.to_bytes(32, "big") + y.to_bytes(32, "big")
    elif len(key) == 1:
        raw = _bytes_arg(key[0])
        if len(raw) == 64:
            raw = b"\x04" + raw
        if len(raw) != 65:
            raise _invalid("Could not decode public key from bytestring: invalid length", raw.hex())
        point = raw
    else:
        raise _invalid("Invalid arguments for P-256 public key", len(key))
    try:
        pub = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise _invalid("Could not decode public key from bytestring", point.hex()) from None
    rv, sv = _int_arg(r, "r"), _int_arg(s, "s")
    if rv <= 0 or sv <= 0 or rv.bit_length() > 256 or sv.bit_length() > 256:
        raise _invalid("Invalid P256 signature", (rv, sv))
    return verify_digest(pub, encode_dss_signature(rv, sv), h)


class CryptoBuiltins(CompilerBase):
    """Hashes and signatures."""

    def _hash(self, args: list[A.Expr], e: A.Call, hasher: Hasher, name: str) -> CExpr:
        if not args:
            self.error(f"{name} needs at least one argument", e)
        fns = [self.expr(a)[0] for a in args]
        if len(fns) == 1:
            (f0,) = fns

            def hash1(fr: Frame) -> Any:
                v = f0(fr)
                if type(v) is bytes or type(v) is Digest:
                    return hasher(v)
                return Digest(hasher(hash_input(fr, [v])))

            return hash1, BYTES32 if name != "ripemd160" else BytesType(20)

        def hash_n(fr: Frame) -> Any:
            return Digest(hasher(hash_input(fr, [f(fr) for f in fns])))

        return hash_n, BYTES32 if name != "ripemd160" else BytesType(20)

    def b_keccak256(self, args: list[A.Expr], e: A.Call) -> CExpr:
        return self._hash(args, e, keccak256, "keccak256")

    def b_sha256(self, args: list[A.Expr], e: A.Call) -> CExpr:
        return self._hash(args, e, _sha256, "sha256")

    def b_ripemd160(self, args: list[A.Expr], e: A.Call) -> CExpr:
        return self._hash(args, e, _ripemd160, "ripemd160")

    def b_ecrecover(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if len(args) != 4:
            self.error("ecrecover takes a hash, v, r and s", e)
        h, v, r, s = (self.expr(a)[0] for a in args)

        def run_ecrecover(fr: Frame) -> Any:
            digest = _bytes_arg(h(fr))
            rv, sv = _int_arg(r(fr), "r"), _int_arg(s(fr), "s")
            return ecrecover(digest, _int_arg(v(fr), "v"), rv, sv)

        return run_ecrecover, ADDRESS

    def b_verifySignature(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if len(args) != 3:
            self.error(
                "verifySignature takes a message hash (hex), a DER signature (hex) and a PEM "
                "public key",
                e,
            )
        m, sg, pk = (self.expr(a)[0] for a in args)

        def run_verify(fr: Frame) -> Any:
            fr.ctx.steps += 100  # an EC verification costs as much as a short loop
            return verify_signature(m(fr), sg(fr), pk(fr))

        return run_verify, BOOL

    def b_verifyP256(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if len(args) not in (4, 5):
            self.error("verifyP256 takes a hash, r, s and a public key (or its x and y)", e)
        h, r, sg, *key = (self.expr(a)[0] for a in args)

        def run_verify_p256(fr: Frame) -> Any:
            fr.ctx.steps += 100
            return verify_p256(h(fr), r(fr), sg(fr), [k(fr) for k in key])

        return run_verify_p256, BOOL
