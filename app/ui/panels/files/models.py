"""The Files panel's pieces without the panel: the files model, the drop area, the storage a
URI names, and the requests the confirmation sheet shows before an upload or an attestation."""

from __future__ import annotations

import json
import mimetypes
import re
import shlex
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QFrame, QWidget

from app.client.files import FILE_ROUTES, FileEntry
from app.services.composer import Preview
from app.services.files import LocalFile

Index = QModelIndex | QPersistentModelIndex
SENT_TYPE = "application/octet-stream"  # the client sends every file as plain bytes


KEY_PREFIX = re.compile(r"^\d{10,}-(?:[0-9a-f]{8}-)?")  # <ms>-[<random>-]name


def size_text(n: int) -> str:
    size = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{n} bytes" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} bytes"


def time_text(t: datetime | None) -> str:
    return t.astimezone().strftime("%Y-%m-%d %H:%M:%S") if t else ""


def original_name(key: str) -> str:
    """The uploaded file's own name inside a storage key (``1700000000000-ab12cd34-x.pdf``)."""
    return KEY_PREFIX.sub("", key) or key or "file"


class FilesModel(QAbstractTableModel):
    """The node's files: key, URI, hash, upload time and how many users signed."""

    HEADERS = ("Key", "URI", "Hash", "Uploaded", "Signers", "Storage")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.entries: list[FileEntry] = []
        self.counts: dict[str, int] = {}
        self.counts_loaded = False

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.entries)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section] if 0 <= section < len(self.HEADERS) else None
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.entries):
            return None
        e = self.entries[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.UserRole:
            return e
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if col == 0:
                return e.key
            if col == 1:
                return e.uri
            if col == 2:
                return e.hash
            if col == 3:
                if role == Qt.ItemDataRole.ToolTipRole and e.created:
                    return e.created.strftime("%Y-%m-%dT%H:%M:%SZ")
                return time_text(e.created)
            if col == 5:
                where = storage_of(e.uri)
                return where.label if role == Qt.ItemDataRole.ToolTipRole else where.short
            if col == 4:
                n = self.counts.get(e.address)
                if n is not None:
                    return str(n)
                if role == Qt.ItemDataRole.ToolTipRole:
                    return "not read yet" if not self.counts_loaded else "could not be read"
                return "…" if not self.counts_loaded else "?"
        if role == Qt.ItemDataRole.TextAlignmentRole and col == 4:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def set_entries(self, entries: list[FileEntry]) -> None:
        self.beginResetModel()
        self.entries = list(entries)
        self.counts = {}
        self.counts_loaded = False
        self.endResetModel()

    def set_counts(self, counts: dict[str, int], *, complete: bool = True) -> None:
        self.counts.update(counts)
        self.counts_loaded = self.counts_loaded or complete
        if self.entries:
            self.dataChanged.emit(self.index(0, 4), self.index(len(self.entries) - 1, 4))

    def entry(self, row: int) -> FileEntry | None:
        return self.entries[row] if 0 <= row < len(self.entries) else None

    def row_of(self, address: str) -> int:
        return next((i for i, e in enumerate(self.entries) if e.address == address), -1)


class DropArea(QFrame):
    """Takes one local file dropped on it (``file_dropped(path)``)."""

    file_dropped = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAcceptDrops(True)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setFrameShadow(QFrame.Shadow.Sunken)
        self.setMinimumHeight(56)

    @staticmethod
    def _path(event: QDragEnterEvent | QDropEvent) -> str:
        mime = event.mimeData()
        if not mime.hasUrls():
            return ""
        urls = [u for u in mime.urls() if u.isLocalFile()]
        if len(urls) != 1 or not Path(urls[0].toLocalFile()).is_file():
            return ""
        return urls[0].toLocalFile()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._path(event):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        path = self._path(event)
        if path:
            event.acceptProposedAction()
            self.file_dropped.emit(path)
        else:
            event.ignore()


@dataclass(frozen=True)
class Storage:
    """Where a record's file is kept, as its URI says: ``provider`` is the word an upload
    names (``local``, ``s3``), ``short`` the table's word, ``label`` the sentence."""

    provider: str
    short: str
    label: str


def storage_of(uri: str) -> Storage:
    """The storage a record's URI names: ``local://`` (files kept by the node itself),
    S3 (``s3://`` or an Amazon S3 host; a STRATO node's other http(s) URIs come from an
    S3-compatible endpoint), or another scheme shown as it is."""
    parts = urlsplit(uri.strip())
    scheme, host = parts.scheme.lower(), parts.hostname or ""
    if not scheme:
        return Storage("", "", "not known")
    if scheme == "local":
        return Storage("local", "local", "local files kept by the node (local://)")
    if scheme == "s3":
        return Storage("s3", "S3", f"S3 bucket {host}" if host else "S3")
    if scheme in ("http", "https"):
        if host.endswith(".amazonaws.com"):
            return Storage("s3", "S3", f"Amazon S3 ({host})")
        return Storage("s3", "S3-compatible", f"S3-compatible storage at {host or uri}")
    return Storage(scheme, scheme, f"{scheme}:// storage")


def kind_of(name: str) -> str:
    """What the file's name says it is (``application/pdf``), or ``no known type``."""
    guessed, _enc = mimetypes.guess_type(name, strict=False)
    return guessed or "no known type"


@dataclass(frozen=True)
class FileRequest(Preview):
    """A request of the file routes as the confirmation sheet shows it: ``shown`` is the
    request in words (an upload is multipart, not JSON), ``command`` its curl."""

    shown: str = ""
    command: str = ""

    def curl(self) -> str:
        return self.command or super().curl()


def upload_request(
    base_url: str, signer: str, local: LocalFile, metadata: str, provider: str
) -> FileRequest:
    """The multipart POST ``/upload`` sends: the file's bytes, ``provider`` and ``metadata``."""
    url = f"{base_url}{FILE_ROUTES}/upload"
    fields = {"provider": provider, "metadata": metadata}
    shown = "\n".join(
        [
            f"POST {url}",
            "Authorization: Bearer *** (" + signer + "'s token)",
            "Content-Type: multipart/form-data",
            "",
            f"content: {local.name}",
            f"    {local.size:,} bytes, sent as {SENT_TYPE} (its name says {kind_of(local.name)})",
            f"    SHA-256 {local.sha256}",
            *(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in fields.items()),
        ]
    )
    command = " ".join(
        [
            f"curl -s -X POST {shlex.quote(url)} -H 'Authorization: Bearer ***'",
            "-F " + shlex.quote(f"content=@{local.path};type={SENT_TYPE}"),
            *("-F " + shlex.quote(f"{k}={v}") for k, v in fields.items()),
        ]
    )
    body: dict[str, Any] = {"content": f"{local.name} ({local.size} bytes)", **fields}
    return FileRequest("POST", url, body, signer, "main chain", shown, command)


def attest_request(base_url: str, signer: str, entry: FileEntry) -> FileRequest:
    """The JSON POST ``/attest`` sends: the record's address."""
    url = f"{base_url}{FILE_ROUTES}/attest"
    body = {"contractAddress": entry.address}
    shown = "\n".join(
        [
            f"POST {url}",
            "Authorization: Bearer *** (" + signer + "'s token)",
            "Content-Type: application/json",
            "",
            json.dumps(body, indent=2),
        ]
    )
    return FileRequest("POST", url, body, signer, "main chain", shown)
