"""External file storage (``/apex-api/bloc/file/...``): blobs outside the chain, records on it.

Each uploaded file is kept in a blob store (a directory under the data dir by default, or any
S3-compatible bucket) and described on chain by an ``ExternalStorage`` record contract holding
its key, URI, host, SHA-256 and the list of users who attested to it. A failed upload leaves
neither a blob nor a record; a record whose blob went missing is reported as such.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Protocol

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from .errors import ApiError
from .ledger import Ledger, norm_address
from .numbers import is_ascii_digits
from .solidvm.values import Address

if TYPE_CHECKING:
    from .api import NodeApi

RECORD_SOURCE = (
    Path(__file__).resolve().parents[2] / "resources" / "contracts" / "ExternalStorage.sol"
)
RECORD_CONTRACT = "ExternalStorage"
PREFIX = "/apex-api/bloc/file"
LINK_LIFETIME = 3600
# what a STRATO 7.4 node without a bucket answers on every file route (reference §6)
NOT_ENABLED = "external storage feature is not enabled on that node"
SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def file_error(status: int, message: str) -> ApiError:
    return ApiError(status, {"error": {"message": message, "status": status}})


class BlobStore(Protocol):
    host: str

    def put(self, key: str, data: bytes) -> str: ...  # returns the URI
    def get(self, key: str) -> bytes | None: ...  # None when the blob is missing
    def delete(self, key: str) -> None: ...


class LocalBlobStore:
    """Files under ``<data dir>/files``, written atomically."""

    host = "local"

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True, mode=0o700)

    def _path(self, key: str) -> Path:
        p = (self.root / key).resolve()
        if p.parent != self.root.resolve():
            raise file_error(400, "invalid file key")
        return p

    def put(self, key: str, data: bytes) -> str:
        path = self._path(key)
        tmp = path.with_name(path.name + ".part")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)  # a stale .part would keep its mode through O_CREAT
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
        return f"local://{key}"

    def get(self, key: str) -> bytes | None:
        try:
            return self._path(key).read_bytes()
        except FileNotFoundError:
            return None

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)


class S3BlobStore:
    """An S3 bucket (AWS or any S3-compatible server given by an endpoint URL)."""

    def __init__(self, bucket: str, key_id: str, secret: str, endpoint: str | None) -> None:
        import boto3
        from botocore.config import Config

        self.bucket = bucket
        self.endpoint = endpoint
        self.client = boto3.client(
            "s3",
            aws_access_key_id=key_id,
            aws_secret_access_key=secret,
            endpoint_url=endpoint,
            region_name=os.environ.get("EXT_STORAGE_OBJ_REGION", "us-east-1"),
            config=Config(retries={"max_attempts": 3}, connect_timeout=5, read_timeout=30),
        )
        self.host = endpoint or f"{bucket}.s3.amazonaws.com"

    def put(self, key: str, data: bytes) -> str:
        self.client.put_object(Bucket=self.bucket, Key=key, Body=data)
        if self.endpoint:
            return f"{self.endpoint.rstrip('/')}/{self.bucket}/{key}"
        return f"https://{self.bucket}.s3.amazonaws.com/{key}"

    def get(self, key: str) -> bytes | None:
        from botocore.exceptions import ClientError

        try:
            obj = self.client.get_object(Bucket=self.bucket, Key=key)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404", "NotFound"):
                return None
            raise
        data: bytes = obj["Body"].read()
        return data

    def delete(self, key: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=key)


def blob_store_from_env(data_dir: Path, env: dict[str, str] | None = None) -> BlobStore:
    """S3 when a bucket is configured (EXT_STORAGE_OBJ_* or EXT_STORAGE_S3_*), else local."""
    e = dict(os.environ) if env is None else env

    def var(name: str) -> str | None:
        return e.get(f"EXT_STORAGE_OBJ_{name}") or e.get(f"EXT_STORAGE_S3_{name}")

    bucket = var("BUCKET")
    if bucket:
        key_id, secret = var("ACCESS_KEY_ID"), var("SECRET_ACCESS_KEY")
        if not key_id or not secret:
            raise ValueError(
                "EXT_STORAGE_OBJ_BUCKET is set but the access key id or secret access key is not"
            )
        return S3BlobStore(bucket, key_id, secret, var("ENDPOINT_URL"))
    return LocalBlobStore(data_dir / "files")


@dataclass
class Link:
    key: str
    expires: float
    name: str


class FileService:
    """The file routes; without a blob store (``serve --no-file-storage``) every one of them
    answers 405, as a STRATO node started without a bucket does."""

    def __init__(self, ledger: Ledger, store: BlobStore | None, max_upload: int) -> None:
        self.ledger = ledger
        self.store = store
        self.max_upload = max_upload
        self.links: dict[str, Link] = {}

    @property
    def blobs(self) -> BlobStore:
        if self.store is None:
            raise file_error(405, NOT_ENABLED)
        return self.store

    def routes(self, api: NodeApi) -> list[BaseRoute]:
        e = api.endpoint
        if self.store is None:

            async def not_enabled(request: Request) -> Response:
                raise file_error(405, NOT_ENABLED)

            return [Route(f"{PREFIX}/{{rest:path}}", e(not_enabled), methods=["GET", "POST"])]
        h = FileHandlers(self, api)
        return [
            Route(f"{PREFIX}/upload", e(h.upload), methods=["POST"]),
            Route(f"{PREFIX}/list", e(h.list), methods=["GET"]),
            Route(f"{PREFIX}/download", e(h.download), methods=["GET"]),
            Route(f"{PREFIX}/attest", e(h.attest), methods=["POST"]),
            Route(f"{PREFIX}/verify", e(h.verify), methods=["GET"]),
            # the one-time links handed out by /download carry their own secret
            Route(f"{PREFIX}/blob/{{token}}", e(h.blob, public=True), methods=["GET"]),
        ]

    def record(self, address: str) -> Any:
        view = self.ledger.committed()  # as of the last committed block
        acct = view.account(int(address, 16), "")
        if acct is None or acct.cdef is None or acct.cdef.name != RECORD_CONTRACT:
            raise file_error(400, "Contract address not found")
        return SimpleNamespace(cdef=acct.cdef, storage=view.storage(acct))


class FileHandlers:
    def __init__(self, svc: FileService, api: NodeApi) -> None:
        self.svc = svc
        self.api = api
        self.ledger = svc.ledger

    def _address_param(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not value:
            raise file_error(400, f"wrong {where} params, expected: {{contractAddress}}")
        try:
            return norm_address(value, "contractAddress")
        except ApiError:
            raise file_error(400, "Contract address not found") from None

    async def upload(self, request: Request) -> Response:
        from .api import JsonBody

        length = request.headers.get("content-length")
        if length and is_ascii_digits(length) and int(length) > self.svc.max_upload + 64 * 1024:
            raise file_error(413, f"file too large: at most {self.svc.max_upload} bytes")
        ctype = request.headers.get("content-type", "")
        if not ctype.startswith("multipart/form-data"):
            raise file_error(400, "file missing: send multipart/form-data with a 'content' file")
        try:
            form = await request.form(max_files=1, max_fields=16)
        except Exception:
            raise file_error(400, "malformed multipart body") from None
        try:
            upload = form.get("content")
            provider = form.get("provider")
            metadata = form.get("metadata")
            if not isinstance(upload, UploadFile):
                raise file_error(400, "file missing")
            if not isinstance(provider, str) or not isinstance(metadata, str):
                raise file_error(400, "wrong body params, expected: {provider, metadata}")
            if len(metadata) > 10_000 or len(provider) > 200:
                raise file_error(400, "metadata or provider too long")
            data = await upload.read(self.svc.max_upload + 1)
            if len(data) > self.svc.max_upload:
                raise file_error(413, f"file too large: at most {self.svc.max_upload} bytes")
            original = SAFE_NAME.sub("_", upload.filename or "file")[-100:] or "file"
        finally:
            await form.close()
        user = request.state.user
        sender = self.api.sender_of(user)
        key = f"{int(time.time() * 1000)}-{secrets.token_hex(4)}-{original}"
        digest = hashlib.sha256(data).hexdigest()
        try:
            uri = await asyncio.to_thread(self.svc.blobs.put, key, data)
        except Exception as exc:
            raise file_error(500, f"storing the file failed: {type(exc).__name__}") from None
        tx = {
            "type": "CONTRACT",
            "payload": {
                "contract": RECORD_CONTRACT,
                "src": RECORD_SOURCE.read_text(encoding="utf-8"),
                "args": {
                    "_fileKey": key,
                    "_uri": uri,
                    "_host": self.svc.blobs.host,
                    "_fileHash": digest,
                    "_metadata": metadata,
                },
                "metadata": {"VM": "SolidVM"},
            },
        }
        try:
            res = (await self.ledger.submit(user, sender, [tx], None, "", True))[0]
        except BaseException:
            await asyncio.to_thread(self.svc.blobs.delete, key)
            raise
        if res["status"] != "Success":
            await asyncio.to_thread(self.svc.blobs.delete, key)
            raise file_error(400, f"the record could not be created: {res['txResult']['message']}")
        address = res["data"]["contents"]["address"]
        return JsonBody(
            {
                "contractAddress": address,
                "fileKey": key,
                "uri": uri,
                "metadata": metadata,
                "hash": digest,
            }
        )

    async def list(self, request: Request) -> Response:
        from .api import JsonBody, int_param

        limit = min(int_param(request, "limit", 100) or 100, 1000)
        offset = int_param(request, "offset", 0) or 0
        led = self.ledger
        view = led.committed()
        records = sorted(
            (
                (m.created_block, k)
                for k, m in view.meta.items()
                if m.name == RECORD_CONTRACT and k[0] == ""
            ),
        )[offset : offset + limit]
        blocks = led.block_times({block for block, _ in records})
        out = []
        for block, (_, addr) in records:
            acct = view.account(addr, "")
            assert acct is not None
            st = view.storage(acct)
            out.append(
                {
                    "contractAddress": format(addr, "040x"),
                    "hash": st["fileHash"],
                    "fileKey": st["fileKey"],
                    "uri": st["uri"],
                    "createdAt": time.strftime(
                        "%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(blocks.get(block, 0))
                    ),
                }
            )
        return JsonBody({"list": out})

    async def download(self, request: Request) -> Response:
        from .api import JsonBody

        address = self._address_param(request.query_params.get("contractAddress"), "query")
        acct = self.svc.record(address)
        now = time.time()
        for token in [t for t, link in self.svc.links.items() if link.expires < now]:
            del self.svc.links[token]
        token = secrets.token_urlsafe(24)
        self.svc.links[token] = Link(
            acct.storage["fileKey"], now + LINK_LIFETIME, acct.storage["fileKey"].split("-", 2)[-1]
        )
        base = str(request.base_url).rstrip("/")
        return JsonBody({"url": f"{base}{PREFIX}/blob/{token}", "expiresIn": LINK_LIFETIME})

    async def blob(self, request: Request) -> Response:
        link = self.svc.links.pop(request.path_params["token"], None)
        if link is None or link.expires < time.time():
            raise file_error(404, "this download link is unknown, expired or already used")
        data = await asyncio.to_thread(self.svc.blobs.get, link.key)
        if data is None:
            raise file_error(410, f"the content of {link.key} is missing from the file storage")
        return Response(
            data,
            media_type="application/octet-stream",
            headers={"Content-Disposition": f'attachment; filename="{link.name}"'},
        )

    async def attest(self, request: Request) -> Response:
        from .api import JsonBody

        body = await self.api.json_body(request)
        address = self._address_param(
            body.get("contractAddress") if isinstance(body, dict) else None, "body"
        )
        self.svc.record(address)
        user = request.state.user
        sender = self.api.sender_of(user)
        tx = {
            "type": "FUNCTION",
            "payload": {"contractAddress": address, "method": "attest", "args": {}},
        }
        res = (await self.ledger.submit(user, sender, [tx], None, "", True))[0]
        if res["status"] != "Success":
            message = res["txResult"]["message"]
            if "already signed" in message:
                raise file_error(400, "You already signed this transaction")
            raise file_error(400, message)
        return JsonBody({"attested": True, "signers": res["data"]["contents"][0]})

    async def verify(self, request: Request) -> Response:
        from .api import JsonBody

        address = self._address_param(request.query_params.get("contractAddress"), "query")
        st = self.svc.record(address).storage
        signers = [s.hex if isinstance(s, Address) else str(s) for s in st["signers"]]
        return JsonBody(
            {
                "uri": st["uri"],
                "timeStamp": str(st["timeStamp"]),
                "signers": signers,
                "fileHash": st["fileHash"],
            }
        )
