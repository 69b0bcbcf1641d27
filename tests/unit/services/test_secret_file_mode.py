"""secrets.enc is 0600 every time it is written, even over a stale temp file (issue 17 item 5)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

import app.services.secrets as secrets_mod
from app.services.secrets import EncryptedFileStore


def test_secret_file_is_0600_over_stale_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(secrets_mod, "SCRYPT_N", 2**10)  # the mode is the point, not the KDF
    path = tmp_path / "secrets.enc"
    stale = tmp_path / "secrets.enc.tmp"
    stale.write_text("left by a crash")
    os.chmod(stale, 0o644)
    old = os.umask(0o022)
    try:
        store = EncryptedFileStore(path, "pass phrase")
        store.set("token", "s3cret")
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert not stale.exists()
        os.chmod(path, 0o644)  # a file made 0644 by an older version ...
        stale.write_text("again")
        os.chmod(stale, 0o666)
        store.set("token", "other")  # ... is 0600 after the next write
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    finally:
        os.umask(old)
    assert EncryptedFileStore(path, "pass phrase").get("token") == "other"
