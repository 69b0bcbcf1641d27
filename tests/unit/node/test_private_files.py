"""Files the node writes are 0600 even over a stale temp file (issue 17 item 5)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.node.files import LocalBlobStore
from app.node.perms import secure_data_dir
from app.node.store import Store
from app.node.vault import load_node_secret, write_private_file


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


@pytest.fixture(autouse=True)
def permissive_umask() -> Iterator[None]:
    """The usual desktop umask: files come out 0644 unless the code says otherwise."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_write_private_file_over_stale_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "node-secret"
    stale = tmp_path / "node-secret.tmp"
    stale.write_bytes(b"old")
    os.chmod(stale, 0o644)
    write_private_file(target, b"x" * 32)
    assert target.read_bytes() == b"x" * 32
    assert _mode(target) == 0o600
    assert not stale.exists()


def test_node_secret_is_private(tmp_path: Path) -> None:
    (tmp_path / "node-secret.tmp").write_bytes(b"")
    os.chmod(tmp_path / "node-secret.tmp", 0o666)
    load_node_secret(tmp_path)
    assert _mode(tmp_path / "node-secret") == 0o600


def test_blob_over_stale_part_file(tmp_path: Path) -> None:
    store = LocalBlobStore(tmp_path / "files")
    assert _mode(tmp_path / "files") == 0o700
    part = tmp_path / "files" / "k1.part"
    part.write_bytes(b"half")
    os.chmod(part, 0o644)
    store.put("k1", b"data")
    assert _mode(tmp_path / "files" / "k1") == 0o600
    assert store.get("k1") == b"data"


def test_store_database_and_wal_are_private(tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = Store(data)
    try:
        store.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('x', '1')")
        assert _mode(data) == 0o700
        for name in ("node.sqlite3", "node.sqlite3-wal", "node.sqlite3-shm"):
            assert _mode(data / name) == 0o600, name
    finally:
        store.close()


def test_secure_data_dir_tightens_only_the_nodes_files(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "files" / "sub").mkdir(parents=True)
    for name in ("node.sqlite3", "node.sqlite3-wal", "oidc-signing-key.pem", "files/a", "mine"):
        (data / name).write_text("x")
        os.chmod(data / name, 0o644)
    os.chmod(data, 0o755)
    secure_data_dir(data)
    assert _mode(data) == 0o700
    assert _mode(data / "files") == 0o700
    assert _mode(data / "files" / "sub") == 0o700
    for name in ("node.sqlite3", "node.sqlite3-wal", "oidc-signing-key.pem", "files/a"):
        assert _mode(data / name) == 0o600, name
    assert _mode(data / "mine") == 0o644
