"""Where the app keeps secrets (tokens, client secrets, passwords): never in plain files.

The OS keyring is used when a real backend is available; otherwise (headless machines, minimal
desktops) secrets go to one file encrypted with a passphrase (scrypt + AES-256-GCM). ``keyring``
is imported only when needed: finding the backend costs about a third of a second.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

SERVICE = "stratoscope"
FILE_NAME = "secrets.enc"
SCRYPT_N = 2**15


class SecretStoreError(Exception):
    """The secret store cannot be used (wrong passphrase, damaged file ...)."""


class SecretStore(Protocol):
    kind: str

    def get(self, key: str) -> str | None: ...
    def set(self, key: str, value: str) -> None: ...
    def delete(self, key: str) -> None: ...


class KeyringStore:
    """Secrets in the OS keyring, under the service name ``stratoscope``."""

    kind = "keyring"

    def __init__(self) -> None:
        import keyring

        self._keyring = keyring

    def get(self, key: str) -> str | None:
        value = self._keyring.get_password(SERVICE, key)
        return str(value) if value is not None else None

    def set(self, key: str, value: str) -> None:
        self._keyring.set_password(SERVICE, key, value)

    def delete(self, key: str) -> None:
        import keyring.errors

        # nothing stored under that key means it is already deleted
        with contextlib.suppress(keyring.errors.PasswordDeleteError):
            self._keyring.delete_password(SERVICE, key)


def keyring_usable() -> bool:
    """True when the keyring has a real backend (not the fail or null ones)."""
    try:
        import keyring
        from keyring.backends import fail

        backend = keyring.get_keyring()
    except Exception:
        return False
    name = type(backend).__module__ + "." + type(backend).__name__
    return (
        not isinstance(backend, fail.Keyring)
        and "null" not in name.lower()
        and (getattr(backend, "priority", 1) > 0)
    )


class EncryptedFileStore:
    """All secrets in one file, encrypted with a key derived from a passphrase."""

    kind = "encrypted file"

    def __init__(self, path: Path, passphrase: str) -> None:
        if not passphrase:
            raise SecretStoreError("the secret file needs a passphrase")
        self.path = path
        self._passphrase = passphrase.encode()
        self._salt = secrets.token_bytes(16)
        self._data: dict[str, str] = {}
        if path.exists():
            self._load()

    def _key(self, salt: bytes) -> bytes:
        return Scrypt(salt=salt, length=32, n=SCRYPT_N, r=8, p=1).derive(self._passphrase)

    def _load(self) -> None:
        try:
            blob: Any = json.loads(self.path.read_text())
            salt = bytes.fromhex(blob["salt"])
            nonce = bytes.fromhex(blob["nonce"])
            data = bytes.fromhex(blob["data"])
        except (OSError, ValueError, KeyError, TypeError):
            raise SecretStoreError(f"{self.path} is damaged") from None
        try:
            plain = AESGCM(self._key(salt)).decrypt(nonce, data, b"stratoscope secrets")
        except InvalidTag:
            raise SecretStoreError("wrong passphrase for the secret file") from None
        self._salt = salt
        loaded = json.loads(plain)
        self._data = {str(k): str(v) for k, v in loaded.items()}

    def _save(self) -> None:
        nonce = secrets.token_bytes(12)
        plain = json.dumps(self._data).encode()
        data = AESGCM(self._key(self._salt)).encrypt(nonce, plain, b"stratoscope secrets")
        blob = {
            "version": 1,
            "kdf": f"scrypt n={SCRYPT_N} r=8 p=1",
            "salt": self._salt.hex(),
            "nonce": nonce.hex(),
            "data": data.hex(),
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        # O_CREAT's mode applies only to a new file: a stale temp file (say 0644, left by a crash
        # or another tool) would pass its mode on to secrets.enc. Start from a fresh 0600 file.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            if os.name == "posix":
                os.fchmod(f.fileno(), 0o600)  # whatever the umask
            json.dump(blob, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    def get(self, key: str) -> str | None:
        return self._data.get(key)

    def set(self, key: str, value: str) -> None:
        self._data[key] = value
        self._save()

    def delete(self, key: str) -> None:
        if self._data.pop(key, None) is not None:
            self._save()


def open_secret_store(
    config_dir: Path,
    passphrase: Callable[[], str],
    *,
    use_keyring: Callable[[], bool] = keyring_usable,
) -> SecretStore:
    """The keyring when usable, else the encrypted file (asking ``passphrase`` for its key)."""
    if use_keyring():
        return KeyringStore()
    return EncryptedFileStore(config_dir / FILE_NAME, passphrase())
