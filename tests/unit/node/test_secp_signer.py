"""The signer that keeps the interpreter's lock: coincurve's signatures, without the hops."""

from __future__ import annotations

import asyncio
import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest
from coincurve import PrivateKey

from app.node.secp_signer import HeldSigner, make_held_signer
from app.node.vault import Vault


def test_signatures_are_coincurves_byte_for_byte() -> None:
    held = HeldSigner()
    for _ in range(200):
        secret, digest = os.urandom(32), os.urandom(32)
        want = bytes(PrivateKey(secret).sign_recoverable(digest, hasher=None))
        assert held.sign(secret, digest) == want


def test_bad_lengths_and_keys_are_refused() -> None:
    held = HeldSigner()
    with pytest.raises(ValueError, match="32 bytes"):
        held.sign(b"\1" * 31, b"\0" * 32)
    with pytest.raises(ValueError, match="32 bytes"):
        held.sign(b"\1" * 32, b"\0" * 33)
    with pytest.raises(ValueError, match="not valid"):
        held.sign(b"\0" * 32, b"\0" * 32)  # zero is no secp256k1 key


def test_the_vault_signs_alike_on_the_loop_and_off_it() -> None:
    """On the event loop's thread through the held signer, elsewhere through coincurve's API:
    the same signature."""
    assert isinstance(make_held_signer(), HeldSigner)
    vault = Vault(os.urandom(32))
    _, _, sealed = vault.new_key()
    digest = os.urandom(32)
    want = bytes(PrivateKey(vault.unseal(sealed)).sign_recoverable(digest, hasher=None))

    async def on_loop() -> bytes:
        return vault.sign(sealed, digest)

    assert asyncio.run(on_loop()) == want
    assert vault.sign(sealed, digest) == want


def test_the_library_calls_keep_the_interpreters_lock() -> None:
    """ctypes.PyDLL's functions carry the flag that keeps the lock (CDLL's let go of it)."""
    held = HeldSigner()
    for fn in (held._sign, held._serialize):
        assert fn._flags_ & ctypes._FUNCFLAG_PYTHONAPI  # type: ignore[attr-defined]


# Run in a fresh interpreter (a test worker's own threads would take the lock too): another
# thread counts while it holds the interpreter's lock, and the switch interval is long, so
# the only way it can count while the main thread works is that the main thread let go of the
# lock. Prints how far it counted during 10 signatures, then during a sleep (which lets go: the
# probe's control).
LOCK_PROBE = """
import os, sys, threading, time
from app.node.secp_signer import HeldSigner
secret, digest = os.urandom(32), os.urandom(32)
held = HeldSigner()
counted = 0
stop = False
def spin():
    global counted
    while not stop:
        counted += 1
sys.setswitchinterval(0.5)
t = threading.Thread(target=spin, daemon=True)
t.start()
time.sleep(0.2)
before = counted
for _ in range(10):
    held.sign(secret, digest)
during_signing = counted - before
before = counted
time.sleep(0.05)
during_sleep = counted - before
stop = True
print(during_signing, during_sleep)
"""


def test_signing_lets_no_other_thread_run() -> None:
    out = subprocess.run(
        [sys.executable, "-c", LOCK_PROBE],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=Path(__file__).resolve().parents[3],
    )
    during_signing, during_sleep = map(int, out.stdout.split())
    assert during_sleep > 0  # the probe sees a thread that lets go of the lock
    assert during_signing == 0
