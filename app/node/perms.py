"""Keeps the node's data dir private to the account running it.

The database holds password hashes and private-chain state, the data dir also the node secret
and the token signing key: the dir is 0700 and every file 0600. The node process runs with
umask 077 so that files made later (the SQLite -wal/-shm, blobs, node.json) are private too; a
data dir left by an older node is tightened when the node opens it.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600
NODE_UMASK = 0o077

# Top-level entries the node writes; anything else a user keeps beside them is left alone.
_OWN_PREFIXES = ("node", "oidc-", ".oidc-", "traces.")
_OWN_DIRS = ("files",)


def restrict_umask() -> None:
    """Files the node process creates from now on are private to its account."""
    os.umask(NODE_UMASK)


def _chmod(path: str | Path, mode: int) -> None:
    with contextlib.suppress(OSError):
        if os.stat(path, follow_symlinks=False).st_mode & 0o777 != mode:
            os.chmod(path, mode, follow_symlinks=False)


def secure_data_dir(data_dir: Path) -> None:
    """Create ``data_dir`` 0700, or tighten an existing one and the node's files in it."""
    data_dir.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    if os.name != "posix":
        return
    _chmod(data_dir, DIR_MODE)
    for entry in os.scandir(data_dir):
        if entry.is_symlink():
            continue
        if entry.is_dir() and entry.name in _OWN_DIRS:
            _chmod(entry.path, DIR_MODE)
            for root, dirs, files in os.walk(entry.path):
                for d in dirs:
                    _chmod(os.path.join(root, d), DIR_MODE)
                for f in files:
                    _chmod(os.path.join(root, f), FILE_MODE)
        elif entry.is_file() and entry.name.startswith(_OWN_PREFIXES):
            _chmod(entry.path, FILE_MODE)


def create_private_file(path: Path) -> None:
    """Make ``path`` (empty) with mode 0600 unless it exists, so that SQLite, which gives its
    -wal and -shm files the database file's mode, keeps all three private."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
