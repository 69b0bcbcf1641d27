"""External file storage for the Files panel: hash, upload, list, attest, verify, download.

Files are read and hashed in a worker thread, 1 MiB at a time, with progress and cancellation;
the bytes hashed are the bytes uploaded (held in memory up to ``MAX_UPLOAD``), so the SHA-256
shown before sending is the one of what was sent. A download is written next to its destination
as it arrives, hashed on the way, and renamed into place when complete; it is then compared with
the hash on chain (SHA-256, or STRATO 7.4's HMAC form). Signers are named through the node's
``Certificate`` table.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from PySide6.QtCore import QObject, Signal

from app.client.cirrus_names import table_of
from app.client.errors import AuthError, RequestError, StratoError
from app.client.files import (
    HMAC_BLOCK,
    FileEntry,
    FileVerification,
    UploadedFile,
    hash_forms,
    matching_form,
)
from app.client.http import StratoClient

from .session import Session

log = logging.getLogger("stratoscope.services")

CHUNK = 1024 * 1024
MAX_UPLOAD = 256 * 1024 * 1024  # larger files are hashed but not held in memory for upload
LIST_PAGE = 100
MAX_FILES = 2_000
VERIFY_CONCURRENCY = 6
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class HashCancelled(Exception):
    """The user stopped the hashing of a local file."""


@dataclass(frozen=True)
class LocalFile:
    """A file read from disk: its SHA-256 and, when it is small enough, its bytes."""

    path: Path
    size: int
    sha256: str
    forms: dict[str, str] = field(repr=False)
    content: bytes | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class Signer:
    address: str
    common_name: str = ""
    organization: str = ""
    unit: str = ""

    def label(self) -> str:
        """``alice (Acme / Engineering)``, or the bare address for an unknown signer."""
        if not self.common_name:
            return self.address
        where = " / ".join(p for p in (self.organization, self.unit) if p)
        return f"{self.common_name} ({where})" if where else self.common_name


@dataclass(frozen=True)
class Verification:
    address: str
    uri: str
    time: datetime | None
    hash: str
    signers: list[Signer]
    names_known: bool = True  # False when the node's Certificate table could not be read


@dataclass(frozen=True)
class DownloadCheck:
    """A downloaded file compared with its record's hash."""

    path: Path
    size: int
    sha256: str
    expected: str
    form: str | None  # the hash form that matched (SHA-256 or the platform's HMAC), None: none

    @property
    def matches(self) -> bool:
        return self.form is not None


def _read_and_hash(
    path: Path, stop: threading.Event, report: Callable[[int, int], None]
) -> LocalFile:
    """Runs in a worker thread: the file in 1 MiB chunks, checking ``stop`` between them."""
    size = path.stat().st_size
    keep = size <= MAX_UPLOAD
    digest = hashlib.sha256()
    parts: list[bytes] = []
    done = 0
    report(0, size)
    with path.open("rb") as f:
        while True:
            if stop.is_set():
                raise HashCancelled(f"hashing {path.name} was cancelled")
            chunk = f.read(CHUNK)
            if not chunk:
                break
            digest.update(chunk)
            if keep:
                parts.append(chunk)
            done += len(chunk)
            report(done, max(size, done))
    content = b"".join(parts) if keep else None
    small = content if content is not None and len(content) <= HMAC_BLOCK else None
    raw = digest.digest()
    return LocalFile(path, done, raw.hex(), hash_forms(raw, small), content)


def _write_and_hash(out: BinaryIO, digest: Any, small: bytearray, chunk: bytes) -> None:
    out.write(chunk)
    digest.update(chunk)
    if len(small) <= HMAC_BLOCK:
        small.extend(chunk[: HMAC_BLOCK + 1])


class FileService(QObject):
    """Signals:
    hash_progress(object, object): bytes of the local file hashed so far, of how many (Python
        ints: files may exceed 2 GiB).
    download_progress(object, object): bytes downloaded so far, of how many (0: not announced).
    changed(): a file was uploaded or attested (lists should reload).
    """

    hash_progress = Signal(object, object)
    download_progress = Signal(object, object)
    changed = Signal()

    def __init__(self, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session

    def _client(self) -> StratoClient:
        if self.session.client is None:
            raise AuthError("not connected")
        return self.session.client

    # ------------------------------------------------------------ local files

    async def hash_file(self, path: Path) -> LocalFile:
        """Read and hash ``path`` off the GUI thread; cancelling the task stops the reading."""
        loop = asyncio.get_running_loop()
        stop = threading.Event()

        def report(done: int, total: int) -> None:
            if stop.is_set():
                return
            try:
                loop.call_soon_threadsafe(self._hash_progress, stop, done, total)
            except RuntimeError:  # the loop closed meanwhile: nobody is listening
                stop.set()

        try:
            return await asyncio.to_thread(_read_and_hash, path, stop, report)
        except asyncio.CancelledError:
            stop.set()
            raise
        except OSError as exc:
            raise RequestError(f"cannot read {path}: {exc.strerror or exc}") from None

    def _hash_progress(self, stop: threading.Event, done: int, total: int) -> None:
        if not stop.is_set():
            self.hash_progress.emit(done, total)

    # ------------------------------------------------------------ node

    async def upload(self, local: LocalFile, metadata: str, provider: str = "s3") -> UploadedFile:
        """Upload the bytes that were hashed; the node creates the record contract."""
        if local.content is None:
            raise RequestError(
                f"{local.name} is larger than {MAX_UPLOAD // (1024 * 1024)} MiB: "
                "too large to upload from here"
            )
        up = await self._client().file_upload(
            local.name, local.content, metadata=metadata, provider=provider or "s3"
        )
        if up.hash and not matching_form(up.hash, local.forms):
            log.warning("the node recorded another hash for %s than computed locally", up.key)
        self.changed.emit()
        return up

    async def list_files(self) -> list[FileEntry]:
        """Every file the node lists (page by page, up to ``MAX_FILES``), newest first."""
        client = self._client()
        out: list[FileEntry] = []
        while len(out) < MAX_FILES:
            page = await client.file_list(LIST_PAGE, len(out))
            out.extend(page)
            if len(page) < LIST_PAGE:
                break
        out.reverse()  # the node lists oldest first; ties keep that order, reversed
        out.sort(key=lambda e: e.created or EPOCH, reverse=True)
        return out

    async def signer_counts(self, addresses: Iterable[str]) -> dict[str, int]:
        """How many users signed each record (one ``/verify`` per record, a few at a time);
        records that cannot be read are left out."""
        client = self._client()
        gate = asyncio.Semaphore(VERIFY_CONCURRENCY)

        async def one(address: str) -> tuple[str, int | None]:
            async with gate:
                try:
                    return address, len((await client.file_verify(address)).signers)
                except RequestError as exc:
                    log.info("cannot verify %s: %s", address, exc.message)
                    return address, None

        pairs = await asyncio.gather(*(one(a) for a in dict.fromkeys(addresses)))
        return {a: n for a, n in pairs if n is not None}

    async def attest(self, address: str) -> list[str]:
        signers = await self._client().file_attest(address)
        self.changed.emit()
        return signers

    async def verify(self, address: str) -> Verification:
        """The record's URI, time, hash and signers, each signer with the name and
        organization of their certificate when the node has one."""
        v: FileVerification = await self._client().file_verify(address)
        names_known = True
        try:
            ids = await self.identities(v.signers)
        except StratoError as exc:
            log.info("cannot read certificates: %s", exc)
            ids, names_known = {}, False
        signers = [ids.get(a, Signer(a)) for a in v.signers]
        return Verification(address, v.uri, v.time, v.hash, signers, names_known)

    async def identities(self, addresses: Iterable[str]) -> dict[str, Signer]:
        """address -> Signer from the node's ``Certificate`` table (valid ones preferred)."""
        wanted = sorted(dict.fromkeys(a.lower() for a in addresses if a))
        if not wanted:
            return {}
        client = self._client()
        rows, _ = await client.cirrus(
            await table_of(client, "Certificate"),  # BlockApps-Certificate on STRATO 16
            [
                ("select", "commonName,organization,organizationalUnit,userAddress,isValid"),
                ("userAddress", f"in.({','.join(wanted)})"),
            ],
        )
        out: dict[str, Signer] = {}
        for r in sorted(rows, key=lambda r: bool(r.get("isValid"))):  # valid ones win
            address = str(r.get("userAddress") or "").lower().removeprefix("0x")
            if address:
                out[address] = Signer(
                    address,
                    str(r.get("commonName") or ""),
                    str(r.get("organization") or ""),
                    str(r.get("organizationalUnit") or ""),
                )
        return out

    async def download(self, address: str, dest: Path, expected: str = "") -> DownloadCheck:
        """Save the file's content at ``dest`` (it appears only when complete) and compare it
        with the record's hash (read again from the chain when the node reports it)."""
        client = self._client()
        v = await client.file_verify(address)
        on_chain = v.hash or expected
        url = await client.file_download_url(address)
        tmp = dest.with_name(f".{dest.name}.part")
        try:
            out = await asyncio.to_thread(tmp.open, "wb")
        except OSError as exc:
            raise RequestError(f"cannot write {dest}: {exc.strerror or exc}") from None
        digest = hashlib.sha256()
        small = bytearray()
        received = 0
        self.download_progress.emit(0, 0)

        async def sink(chunk: bytes, total: int | None) -> None:
            nonlocal received
            await asyncio.to_thread(_write_and_hash, out, digest, small, chunk)
            received += len(chunk)
            self.download_progress.emit(received, total or 0)

        try:
            await client.file_download(url, sink)
            await asyncio.to_thread(out.close)
            await asyncio.to_thread(os.replace, tmp, dest)
        except BaseException as exc:
            out.close()
            tmp.unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise RequestError(f"cannot write {dest}: {exc.strerror or exc}") from None
            raise
        raw = digest.digest()
        forms = hash_forms(raw, bytes(small) if received <= HMAC_BLOCK else None)
        return DownloadCheck(dest, received, raw.hex(), on_chain, matching_form(on_chain, forms))
