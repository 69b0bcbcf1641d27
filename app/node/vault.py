"""Key vault crypto: secp256k1 key pairs and their encryption at rest.

Private keys never leave the node and are stored only encrypted (AES-256-GCM) with a key derived
from the node secret, a random file in the data dir readable by its owner alone. A stolen database
alone therefore reveals no private key.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import threading
from collections import OrderedDict
from pathlib import Path

from coincurve import PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from .secp_signer import make_held_signer
from .solidvm.ops import keccak256

SECRET_FILE = "node-secret"
MAX_SIGNERS = 1024  # unsealed signing keys kept (see Vault.sign)


def write_private_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically with mode 0600 (even over a stale temp file,
    whose mode ``O_CREAT`` would keep)."""
    tmp = path.with_name(path.name + ".tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def load_node_secret(data_dir: Path) -> bytes:
    """The node secret, created on first use."""
    path = data_dir / SECRET_FILE
    if path.exists():
        data = path.read_bytes()
        if len(data) == 32:
            return data
        raise ValueError(f"{path} is damaged: expected 32 bytes")
    data = secrets.token_bytes(32)
    write_private_file(path, data)
    return data


def address_of_pubkey(pubkey_uncompressed: bytes) -> str:
    """Ethereum rule: last 20 bytes of keccak256 of the 64-byte public key."""
    return keccak256(pubkey_uncompressed[1:])[12:].hex()


class Vault:
    """Creates key pairs and seals/unseals private keys with the node secret."""

    def __init__(self, secret: bytes) -> None:
        key = HKDF(algorithm=SHA256(), length=32, salt=None, info=b"stratoscope vault v1").derive(
            secret
        )
        self._aead = AESGCM(key)
        # unsealed signing keys of recent senders: unsealing costs more than signing
        self._signers: OrderedDict[bytes, PrivateKey] = OrderedDict()
        # on the event loop's thread, signatures made holding the interpreter's lock
        self._held = make_held_signer()
        # senders sign on worker threads: the look-up, reordering and eviction go together
        self._signers_lock = threading.Lock()

    def new_key(self) -> tuple[str, str, bytes]:
        """(address, uncompressed public key hex, sealed private key)."""
        pk = PrivateKey()
        pub = pk.public_key.format(compressed=False)
        return address_of_pubkey(pub), pub.hex(), self.seal(pk.secret)

    def seal(self, data: bytes) -> bytes:
        nonce = secrets.token_bytes(12)
        return nonce + self._aead.encrypt(nonce, data, b"stratoscope")

    def unseal(self, blob: bytes) -> bytes:
        return self._aead.decrypt(blob[:12], blob[12:], b"stratoscope")

    def sign(self, sealed: bytes, digest: bytes) -> bytes:
        """Recoverable signature (r, s, v) of a 32-byte digest with a sealed key."""
        with self._signers_lock:
            pk = self._signers.get(sealed)
            if pk is not None:
                self._signers.move_to_end(sealed)
        if pk is None:  # unsealed outside the lock: other senders sign meanwhile
            pk = PrivateKey(self.unseal(sealed))
            with self._signers_lock:
                self._signers[sealed] = pk
                self._signers.move_to_end(sealed)
                while len(self._signers) > MAX_SIGNERS:
                    self._signers.popitem(last=False)
        if self._held is not None and asyncio._get_running_loop() is not None:
            # on the loop: no hop of the interpreter's lock (secp_signer.py); on a worker
            # thread, coincurve lets go of it in C and the producer runs meanwhile
            return self._held.sign(pk.secret, digest)
        return bytes(pk.sign_recoverable(digest, hasher=None))
