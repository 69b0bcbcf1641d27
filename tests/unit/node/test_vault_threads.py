"""app.node.vault: the cache of unsealed signing keys is shared by worker threads (issue 26).

Senders sign on worker threads; the cache's look-up, reordering and eviction ran without a
lock, so a thread could reorder a key another had just evicted (KeyError) or two threads
could evict past each other. Hammered from several threads with a tiny switch interval, every
signature must come out right and the cache must stay within its bound.
"""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Iterator

import pytest
from coincurve import PublicKey

from app.node import vault as vault_mod
from app.node.vault import Vault


@pytest.fixture
def switchy() -> Iterator[None]:
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between almost any two bytecodes
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def test_signing_from_many_threads_through_a_full_cache(
    switchy: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vault_mod, "MAX_SIGNERS", 2)
    v = Vault(b"\x01" * 32)
    keys = [v.new_key() for _ in range(3)]  # one more than the cache keeps: evictions
    digest = bytes(range(32))
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        rng = random.Random(offset)
        try:
            for i in range(20000):
                _, pub, sealed = keys[rng.randrange(len(keys))]
                sig = v.sign(sealed, digest)
                if i % 2000 == 0:
                    got = PublicKey.from_signature_and_message(sig, digest, hasher=None)
                    assert got.format(compressed=False).hex() == pub
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, repr(errors[:3])
    assert len(v._signers) <= 2
