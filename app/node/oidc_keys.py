"""The OIDC issuer's RSA signing key: loaded from its PEM file, or created there (0600, written
atomically) on first use; and the JWK form of its integers."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from .oidc_forms import _b64url


def int_b64url(value: int) -> str:
    return _b64url(value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big"))


def load_or_create_key(path: Path) -> rsa.RSAPrivateKey:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return create_key(path)
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{path}: not a readable PEM private key ({exc})") from exc
    if not isinstance(key, rsa.RSAPrivateKey) or key.key_size < 2048:
        raise ValueError(f"{path}: not an RSA private key of at least 2048 bits")
    if os.name == "posix" and path.stat().st_mode & 0o077:
        with contextlib.suppress(OSError):
            path.chmod(0o600)
    return key


def create_key(path: Path) -> rsa.RSAPrivateKey:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(pem)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp_name, 0o600)  # mkstemp already creates 0600 on POSIX; be explicit
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    if os.name == "posix":
        with contextlib.suppress(OSError):
            dir_fd = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
    return key
