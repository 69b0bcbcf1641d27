"""The secret store for the UI: every keyring or file operation runs off the GUI thread.

With an OS keyring, secrets are read and written directly. Without one, they go to the
passphrase-encrypted file, which must be unlocked first; until then nothing is remembered and
nothing is read (the user types the password each time), never a plaintext fallback.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from .secrets import (
    EncryptedFileStore,
    KeyringStore,
    SecretStore,
    SecretStoreError,
    keyring_usable,
)


class SecretService(QObject):
    """Signals: kind_changed(str): ``keyring``, ``file-locked`` or ``file``."""

    kind_changed = Signal(str)

    def __init__(
        self,
        config_dir: Path,
        *,
        use_keyring: Callable[[], bool] = keyring_usable,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.config_dir = config_dir
        self._use_keyring = use_keyring
        self._store: SecretStore | None = None
        self.kind = ""  # unknown until probe()

    async def probe(self) -> str:
        """Find out whether the OS keyring works (slow: done once, in a thread)."""
        if not self.kind:
            usable = await asyncio.to_thread(self._use_keyring)
            if usable:
                self._store = await asyncio.to_thread(KeyringStore)
                self.kind = "keyring"
            else:
                self.kind = "file-locked"
            self.kind_changed.emit(self.kind)
        return self.kind

    @property
    def file_path(self) -> Path:
        from .secrets import FILE_NAME

        return self.config_dir / FILE_NAME

    async def unlock(self, passphrase: str) -> None:
        """Open the encrypted file with ``passphrase`` (creates it on first use)."""
        await self.probe()
        if self.kind == "keyring":
            return
        if not passphrase:
            raise SecretStoreError("enter the passphrase of the secrets file")
        self._store = await asyncio.to_thread(EncryptedFileStore, self.file_path, passphrase)
        self.kind = "file"
        self.kind_changed.emit(self.kind)

    @property
    def writable(self) -> bool:
        return self._store is not None

    async def get(self, key: str) -> str | None:
        await self.probe()
        store = self._store
        if store is None:
            return None
        return await asyncio.to_thread(store.get, key)

    async def set(self, key: str, value: str) -> None:
        await self.probe()
        store = self._store
        if store is None:
            raise SecretStoreError(
                "no OS keyring is available: set a passphrase to remember secrets on this machine"
            )
        await asyncio.to_thread(store.set, key, value)

    async def delete(self, key: str) -> None:
        await self.probe()
        store = self._store
        if store is not None:
            await asyncio.to_thread(store.delete, key)
