"""External file storage (``/apex-api/bloc/file/...``): wire records and the hash check. No Qt.

A file is kept outside the chain and described on it by an ``ExternalStorage`` record contract
(key, URI, host, hash, signers). The sandbox stores the file's SHA-256; STRATO 7.4's apex stored
``createHmac('sha256', file).digest('hex')``, an HMAC-SHA256 of the empty message keyed with the
file. :func:`hash_forms` gives both, so a download can be checked against either.

Nodes without external storage answer the file routes 405 (STRATO 7.4 without a bucket, and the
sandbox's ``serve --no-file-storage``), 404 (STRATO 7.5 to 7.x: the routes are gone) or 410
(STRATO 8): the client raises :class:`FileStorageUnavailable` for all three.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .errors import RequestError

FILE_ROUTES = "/apex-api/bloc/file"
NO_STORAGE_STATUSES = (404, 405, 410)
SHA256 = "SHA-256"
PLATFORM_HMAC = "HMAC-SHA256 keyed with the file (STRATO 7.4)"
HMAC_BLOCK = 64  # SHA-256's block size: longer HMAC keys are replaced by their SHA-256


class FileStorageUnavailable(RequestError):
    """The node has no external file storage (not configured, or a STRATO without the feature)."""


def no_storage_error(exc: RequestError) -> FileStorageUnavailable:
    """The sentence the user reads for a 404/405/410 from a file route."""
    if exc.status == 405:
        why = "external storage is not enabled on it (no storage bucket is configured)"
    elif exc.status == 410:
        why = "external file storage was removed in STRATO 7.5"
    else:
        why = "it has no external file storage routes (STRATO 7.5 and later removed them)"
    return FileStorageUnavailable(
        f"this node has no external file storage: {why}",
        status=exc.status,
        method=exc.method,
        url=exc.url,
        body=exc.body,
    )


def hash_forms(sha256_digest: bytes, small: bytes | None) -> dict[str, str]:
    """The hex hashes a record may hold for a file, by name. ``small`` is the whole content when
    it is at most 64 bytes, else None (a longer HMAC key is replaced by its SHA-256, which is
    ``sha256_digest``: the HMAC form needs no second pass over a large file)."""
    key = small if small is not None and len(small) <= HMAC_BLOCK else sha256_digest
    return {
        SHA256: sha256_digest.hex(),
        PLATFORM_HMAC: hmac.new(key, b"", hashlib.sha256).hexdigest(),
    }


def matching_form(expected: str, forms: dict[str, str]) -> str | None:
    """The name of the hash form equal to ``expected`` (case and ``0x`` ignored), or None."""
    want = expected.strip().lower().removeprefix("0x")
    return next((name for name, value in forms.items() if value == want), None) if want else None


def _text(d: dict[str, Any], *keys: str) -> str:
    for k in keys:
        v = d.get(k)
        if v is not None and v != "":
            return str(v)
    return ""


def addresses(value: Any) -> list[str]:
    """A list of signer addresses, lower case without ``0x``; anything else gives []."""
    if not isinstance(value, list):
        return []
    return [v.lower().removeprefix("0x") for v in value if isinstance(v, str) and v]


def key_of(uri: str) -> str:
    """The storage key at the end of a URI (STRATO's list has no ``fileKey``)."""
    return uri.rstrip("/").rsplit("/", 1)[-1] if uri else ""


def parse_time(value: Any) -> datetime | None:
    """An ISO time (``createdAt``) or Unix seconds (``timeStamp``), in UTC."""
    if value is None or value == "":
        return None
    text = str(value).strip()
    if text.isdigit():
        try:
            return datetime.fromtimestamp(int(text), UTC)
        except (OverflowError, OSError, ValueError):
            return None
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


@dataclass(frozen=True)
class FileEntry:
    """One row of ``/list``."""

    address: str
    key: str
    uri: str
    hash: str
    created: datetime | None

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> FileEntry:
        uri = _text(d, "uri")
        return cls(
            address=_text(d, "contractAddress", "address").lower().removeprefix("0x"),
            key=_text(d, "fileKey") or key_of(uri),
            uri=uri,
            hash=_text(d, "hash", "fileHash").lower(),
            created=parse_time(d.get("createdAt")),
        )


@dataclass(frozen=True)
class UploadedFile:
    """The answer of ``/upload`` (the sandbox adds ``fileKey`` and ``hash``)."""

    address: str
    key: str
    uri: str
    metadata: str
    hash: str

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> UploadedFile:
        uri = _text(d, "uri")
        return cls(
            address=_text(d, "contractAddress").lower().removeprefix("0x"),
            key=_text(d, "fileKey") or key_of(uri),
            uri=uri,
            metadata=_text(d, "metadata"),
            hash=_text(d, "hash").lower(),
        )


@dataclass(frozen=True)
class FileVerification:
    """The answer of ``/verify``: the record's URI, time and signers (the sandbox adds the
    hash; STRATO 7.4 did not send it)."""

    uri: str
    time: datetime | None
    signers: list[str] = field(default_factory=list)
    hash: str = ""

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> FileVerification:
        return cls(
            uri=_text(d, "uri"),
            time=parse_time(d.get("timeStamp")),
            signers=addresses(d.get("signers")),
            hash=_text(d, "fileHash", "hash").lower(),
        )
