"""keccak256: Ethereum's Keccak-256 (not SHA3-256), from safe-pysha3 with pycryptodome's as
the fallback; both give the same digests."""

from __future__ import annotations

import hashlib
import os

import pytest

from app.node.solidvm import ops
from app.node.solidvm.ops import keccak256, keccak256_portable

VECTORS = {
    b"": "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
    b"abc": "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45",
    # the selector of transfer(address,uint256) is its first four bytes
    b"transfer(address,uint256)": (
        "a9059cbb2ab09eb219583f4a59a5d0623ade346d962bcd4e46b11da047c9049b"
    ),
}


def test_the_fast_form_is_installed() -> None:
    """safe-pysha3 is a dependency: the node hashes without a ctypes hop per call."""
    assert ops.KECCAK_FAST


@pytest.mark.parametrize("data", list(VECTORS))
def test_known_digests(data: bytes) -> None:
    assert keccak256(data).hex() == VECTORS[data]
    assert keccak256_portable(data).hex() == VECTORS[data]


@pytest.mark.parametrize("size", [1, 31, 32, 135, 136, 137, 272, 5000, 100_000])
def test_both_forms_agree_across_the_rate_boundaries(size: int) -> None:
    data = os.urandom(size)
    assert keccak256(data) == keccak256_portable(data)
    assert keccak256(data) != hashlib.sha3_256(data).digest()  # Keccak's padding, not SHA3's


def test_the_digest_is_bytes() -> None:
    assert type(keccak256(b"abc")) is bytes
    assert type(keccak256_portable(b"abc")) is bytes
