"""External file storage over real HTTP (seed 001 "External file storage", reference §6).

``/apex-api/bloc/file/{upload,list,download,attest,verify}`` with the default local blob store
(the module's node runs with ``--max-upload-mb 1``), then the S3 backend against a real local
moto server, configured once with the seed's ``EXT_STORAGE_OBJ_*`` variables and once with the
platform's ``EXT_STORAGE_S3_*`` spellings.
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import HEX40, ROOT, RunningNode, deploy, wait_for

P = "/apex-api/bloc/file"
LIMIT = 1024 * 1024  # --max-upload-mb 1
ISO = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$"

OTHER_SRC = """
contract NotAFile {
    string public fileKey;
    constructor() public { fileKey = "k"; }
}
"""


# ---------------------------------------------------------------------------- helpers


def upload(
    client: httpx.Client,
    data: bytes,
    name: str = "hello.txt",
    *,
    provider: str | None = "s3",
    metadata: str | None = "some metadata",
) -> httpx.Response:
    fields = {}
    if provider is not None:
        fields["provider"] = provider
    if metadata is not None:
        fields["metadata"] = metadata
    return client.post(
        f"{P}/upload", files={"content": (name, data, "application/octet-stream")}, data=fields
    )


def uploaded(client: httpx.Client, data: bytes, name: str = "hello.txt") -> dict[str, Any]:
    r = upload(client, data, name)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def file_error(r: httpx.Response, status: int, message: str | None = None) -> str:
    """The reference's error body: {"error": {"message", "status"}}; returns the message."""
    assert r.status_code == status, f"{r.status_code}: {r.text[:1000]}"
    body = r.json()
    assert set(body) == {"error"}, body
    assert body["error"]["status"] == status
    text = body["error"]["message"]
    assert isinstance(text, str) and text
    if message is not None:
        assert text == message
    return text


def link(client: httpx.Client, address: str) -> str:
    r = client.get(f"{P}/download", params={"contractAddress": address})
    assert r.status_code == 200, r.text
    url = r.json()["url"]
    assert isinstance(url, str) and url.startswith("http")
    return str(url)


def fetch(url: str) -> httpx.Response:
    """A download link is used without the API token (it carries its own secret)."""
    with httpx.Client(timeout=30) as c:
        return c.get(url)


def listing(client: httpx.Client) -> list[dict[str, Any]]:
    r = client.get(f"{P}/list")
    assert r.status_code == 200, r.text
    out: list[dict[str, Any]] = r.json()["list"]
    return out


def blobs(node: RunningNode) -> list[str]:
    d = node.data_dir / "files"
    return sorted(p.name for p in d.iterdir()) if d.exists() else []


def verify(client: httpx.Client, address: str) -> dict[str, Any]:
    r = client.get(f"{P}/verify", params={"contractAddress": address})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--max-upload-mb", "1", name="files")
    try:
        yield n
    finally:
        n.stop()


@pytest.fixture(scope="module")
def addresses(node: RunningNode) -> dict[str, str]:
    return {u: node.address(u) for u in ("alice", "bob", "carol")}


@pytest.fixture(scope="module")
def hello(node: RunningNode) -> dict[str, Any]:
    """A file uploaded by alice."""
    return uploaded(node.client("alice"), b"hello world\n", "hello.txt")


# ---------------------------------------------------------------------------- local store


def test_upload_returns_the_record(node: RunningNode, hello: dict[str, Any]) -> None:
    assert set(hello) >= {"contractAddress", "fileKey", "uri", "metadata", "hash"}
    assert HEX40.match(hello["contractAddress"])
    assert hello["hash"] == hashlib.sha256(b"hello world\n").hexdigest()
    assert hello["metadata"] == "some metadata"
    assert hello["fileKey"].endswith("hello.txt")
    assert hello["fileKey"] in hello["uri"]
    # the blob is in the data dir, byte for byte
    assert (node.data_dir / "files" / hello["fileKey"]).read_bytes() == b"hello world\n"


def test_the_record_contract_holds_the_file_data(
    node: RunningNode, hello: dict[str, Any], addresses: dict[str, str]
) -> None:
    r = node.client("bob").get(
        f"/bloc/v2.2/contracts/ExternalStorage/{hello['contractAddress']}/state"
    )
    assert r.status_code == 200, r.text
    st = r.json()
    assert st["fileKey"] == hello["fileKey"]
    assert st["uri"] == hello["uri"]
    assert st["fileHash"] == hello["hash"]
    assert st["metadata"] == "some metadata"
    assert st["signers"] == [addresses["alice"]]
    assert int(st["timeStamp"]) > 1_600_000_000


def test_list_shows_the_upload(node: RunningNode, hello: dict[str, Any]) -> None:
    entries = {e["contractAddress"]: e for e in listing(node.client("carol"))}
    e = entries[hello["contractAddress"]]
    assert e["hash"] == hello["hash"]
    assert e["fileKey"] == hello["fileKey"]
    assert e["uri"] == hello["uri"]
    assert re.match(ISO, e["createdAt"]), e["createdAt"]


def test_download_link_serves_the_exact_bytes_once(
    node: RunningNode, hello: dict[str, Any]
) -> None:
    url = link(node.client("bob"), hello["contractAddress"])
    r = fetch(url)
    assert r.status_code == 200, r.text
    assert r.content == b"hello world\n"
    file_error(fetch(url), 404)
    # a new request gives a new link that works once again
    url2 = link(node.client("bob"), hello["contractAddress"])
    assert url2 != url
    assert fetch(url2).content == b"hello world\n"
    file_error(fetch(url2), 404)


def test_unknown_download_link_is_404(node: RunningNode) -> None:
    file_error(fetch(f"{node.url}{P}/blob/not-a-token"), 404)


def test_round_trip_of_any_content(node: RunningNode) -> None:
    alice = node.client("alice")
    for data in (b"", bytes(range(256)) * 40, b"\x00" * 1000, "h\u00e9llo \u2603".encode()):
        rec = uploaded(alice, data, "data.bin")
        assert rec["hash"] == hashlib.sha256(data).hexdigest()
        r = fetch(link(alice, rec["contractAddress"]))
        assert r.status_code == 200, r.text
        assert r.content == data
        assert verify(alice, rec["contractAddress"])["fileHash"] == rec["hash"]


def test_attest_adds_the_caller_and_verify_lists_the_signers(
    node: RunningNode, addresses: dict[str, str]
) -> None:
    rec = uploaded(node.client("alice"), b"contract text", "contract.txt")
    address = rec["contractAddress"]
    r = node.client("bob").post(f"{P}/attest", json={"contractAddress": address})
    assert r.status_code == 200, r.text
    assert r.json() == {"attested": True, "signers": [addresses["alice"], addresses["bob"]]}
    r = node.client("carol").post(f"{P}/attest", json={"contractAddress": "0x" + address})
    assert r.status_code == 200, r.text
    signers = [addresses["alice"], addresses["bob"], addresses["carol"]]
    assert r.json()["signers"] == signers
    v = verify(node.client("bob"), address)
    assert v["signers"] == signers
    assert v["uri"] == rec["uri"]
    assert int(v["timeStamp"]) > 1_600_000_000


def test_attesting_twice_is_refused(node: RunningNode, addresses: dict[str, str]) -> None:
    rec = uploaded(node.client("alice"), b"twice", "twice.txt")
    address = rec["contractAddress"]
    assert node.client("bob").post(f"{P}/attest", json={"contractAddress": address}).is_success
    r = node.client("bob").post(f"{P}/attest", json={"contractAddress": address})
    file_error(r, 400, "You already signed this transaction")
    # the uploader is the first signer already
    r = node.client("alice").post(f"{P}/attest", json={"contractAddress": address})
    file_error(r, 400, "You already signed this transaction")
    assert verify(node.client("alice"), address)["signers"] == [
        addresses["alice"],
        addresses["bob"],
    ]


def test_upload_with_missing_parts_is_400(node: RunningNode) -> None:
    alice = node.client("alice")
    before, files_before = listing(alice), blobs(node)
    cases = {
        # multipart with the text fields only
        "no file": alice.post(
            f"{P}/upload", files={"provider": (None, "s3"), "metadata": (None, "m")}
        ),
        "not multipart": alice.post(
            f"{P}/upload", json={"content": "x", "provider": "s3", "metadata": "m"}
        ),
        "no provider": upload(alice, b"x", provider=None),
        "no metadata": upload(alice, b"x", metadata=None),
        "no fields": upload(alice, b"x", provider=None, metadata=None),
    }
    for what, r in cases.items():
        message = file_error(r, 400)
        if what in ("no file", "not multipart"):
            assert "file missing" in message, what
        else:
            assert message == "wrong body params, expected: {provider, metadata}", what
    assert listing(alice) == before
    assert blobs(node) == files_before


def test_missing_contract_address_is_400(node: RunningNode) -> None:
    alice = node.client("alice")
    r = alice.post(f"{P}/attest", json={})
    assert "expected: {contractAddress}" in file_error(r, 400)
    for route in ("download", "verify"):
        r = alice.get(f"{P}/{route}")
        file_error(r, 400, "wrong query params, expected: {contractAddress}")


def test_unknown_contract_address_is_400(node: RunningNode) -> None:
    alice = node.client("alice")
    other = deploy(alice, "NotAFile", OTHER_SRC)  # a contract, but not a file record
    for address in ("ab" * 20, "not-an-address", other, "0x" + other):
        r = alice.post(f"{P}/attest", json={"contractAddress": address})
        file_error(r, 400, "Contract address not found")
        for route in ("download", "verify"):
            r = alice.get(f"{P}/{route}", params={"contractAddress": address})
            file_error(r, 400, "Contract address not found")


def test_file_at_the_limit_is_accepted(node: RunningNode) -> None:
    data = os.urandom(LIMIT)
    rec = uploaded(node.client("alice"), data, "limit.bin")
    assert rec["hash"] == hashlib.sha256(data).hexdigest()
    assert fetch(link(node.client("alice"), rec["contractAddress"])).content == data


@pytest.mark.parametrize("size", [LIMIT + 1, 2 * LIMIT], ids=["one-byte-over", "double"])
def test_too_large_is_413_and_leaves_nothing(node: RunningNode, size: int) -> None:
    alice = node.client("alice")
    before, files_before = listing(alice), blobs(node)
    r = upload(alice, b"z" * size, "big.bin")
    assert r.status_code == 413, r.text
    file_error(r, 413)
    assert listing(alice) == before
    assert blobs(node) == files_before


def test_deleted_blob_answers_410(node: RunningNode) -> None:
    alice = node.client("alice")
    rec = uploaded(alice, b"soon gone", "gone.txt")
    (node.data_dir / "files" / rec["fileKey"]).unlink()
    url = link(alice, rec["contractAddress"])
    r = fetch(url)
    file_error(r, 410)
    assert b"soon gone" not in r.content
    # verify still reports the record
    assert verify(alice, rec["contractAddress"])["fileHash"] == rec["hash"]


def test_user_without_identity_cannot_upload(node: RunningNode) -> None:
    dave = node.client("dave")
    before, files_before = listing(dave), blobs(node)
    r = upload(dave, b"dave's file", "dave.txt")
    assert 400 <= r.status_code < 500, r.text
    file_error(r, r.status_code)
    assert listing(dave) == before
    assert blobs(node) == files_before


def test_file_name_cannot_escape_the_store(node: RunningNode) -> None:
    rec = uploaded(node.client("alice"), b"escape", "../../../escape.txt")
    assert "/" not in rec["fileKey"]
    assert (node.data_dir / "files" / rec["fileKey"]).read_bytes() == b"escape"
    assert not (node.data_dir / "escape.txt").exists()
    assert not (node.data_dir.parent / "escape.txt").exists()


def test_routes_need_a_token(node: RunningNode, hello: dict[str, Any]) -> None:
    anon = node.client(None)
    assert anon.get(f"{P}/list").status_code == 401
    assert (
        anon.get(f"{P}/download", params={"contractAddress": hello["contractAddress"]}).status_code
        == 401
    )
    assert upload(anon, b"x").status_code == 401


# ---------------------------------------------------------------------------- S3 (moto)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Moto:
    """A moto S3 server in a subprocess."""

    def __init__(self, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._log = log.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

        def up() -> bool:
            if self.proc.poll() is not None:
                raise AssertionError(f"moto_server exited with {self.proc.returncode}")
            try:
                with httpx.Client(timeout=2) as c:
                    c.get(self.url)
            except httpx.TransportError:
                return False
            return True

        wait_for(up, 30, "moto server", poll=0.1)
        import boto3

        self.s3 = boto3.client(
            "s3",
            endpoint_url=self.url,
            aws_access_key_id="testkey",
            aws_secret_access_key="testsecret",
            region_name="us-east-1",
        )

    def objects(self, bucket: str) -> dict[str, bytes]:
        listed = self.s3.list_objects_v2(Bucket=bucket).get("Contents", [])
        return {
            o["Key"]: self.s3.get_object(Bucket=bucket, Key=o["Key"])["Body"].read() for o in listed
        }

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self._log.close()


class EnvNode(RunningNode):
    """A RunningNode whose process gets extra environment variables (the S3 settings)."""

    def __init__(self, data_dir: Path, *flags: str, env: dict[str, str], log_dir: Path) -> None:
        super().__init__(data_dir, *flags, log_dir=log_dir)
        self.env = env

    def start(self, port: int = 0) -> RunningNode:
        saved = {k: os.environ.get(k) for k in self.env}
        os.environ.update(self.env)
        try:
            return super().start(port)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


@pytest.fixture(scope="module")
def moto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Moto]:
    m = Moto(tmp_path_factory.mktemp("moto") / "moto.log")
    try:
        yield m
    finally:
        m.stop()


OBJ_SPELLING = "EXT_STORAGE_OBJ"
S3_SPELLING = "EXT_STORAGE_S3"


@pytest.fixture(scope="module", params=[OBJ_SPELLING, S3_SPELLING])
def s3_node(
    request: pytest.FixtureRequest, moto: Moto, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[RunningNode, str]]:
    prefix: str = request.param
    bucket = "stratoscope-" + prefix.rsplit("_", 1)[-1].lower()
    moto.s3.create_bucket(Bucket=bucket)
    env = {
        f"{prefix}_BUCKET": bucket,
        f"{prefix}_ACCESS_KEY_ID": "testkey",
        f"{prefix}_SECRET_ACCESS_KEY": "testsecret",
        # the endpoint of an S3-compatible server has the seed's spelling (DESIGN.md)
        "EXT_STORAGE_OBJ_ENDPOINT_URL": moto.url,
    }
    base = tmp_path_factory.mktemp("s3node")
    n = EnvNode(base / "data", env=env, log_dir=base)
    n.start()
    try:
        yield n, bucket
    finally:
        n.stop()


def test_s3_upload_download_verify(moto: Moto, s3_node: tuple[RunningNode, str]) -> None:
    node, bucket = s3_node
    alice = node.client("alice")
    data = b"to the bucket " + os.urandom(64)
    t0 = time.monotonic()
    rec = uploaded(alice, data, "bucket.bin")
    assert time.monotonic() - t0 < 20
    assert rec["hash"] == hashlib.sha256(data).hexdigest()
    # the object really is in the bucket, with the same bytes
    obj = moto.s3.get_object(Bucket=bucket, Key=rec["fileKey"])
    assert obj["Body"].read() == data
    assert bucket in rec["uri"]
    # and not in the local store
    assert blobs(node) == []
    r = fetch(link(alice, rec["contractAddress"]))
    assert r.status_code == 200, r.text
    assert r.content == data
    v = verify(node.client("bob"), rec["contractAddress"])
    assert v["fileHash"] == rec["hash"]
    assert v["uri"] == rec["uri"]
    assert [e["fileKey"] for e in listing(alice)] == [rec["fileKey"]]


def test_s3_deleted_object_answers_410(moto: Moto, s3_node: tuple[RunningNode, str]) -> None:
    node, bucket = s3_node
    alice = node.client("alice")
    rec = uploaded(alice, b"to be deleted", "del.txt")
    moto.s3.delete_object(Bucket=bucket, Key=rec["fileKey"])
    r = fetch(link(alice, rec["contractAddress"]))
    file_error(r, 410)
    assert b"to be deleted" not in r.content


def test_s3_failed_upload_leaves_no_object(moto: Moto, s3_node: tuple[RunningNode, str]) -> None:
    node, bucket = s3_node
    before = moto.objects(bucket)
    r = upload(node.client("dave"), b"dave's object", "dave.txt")
    assert 400 <= r.status_code < 500, r.text
    assert moto.objects(bucket) == before


def test_s3_storage_failure_is_500_and_records_nothing(
    moto: Moto, s3_node: tuple[RunningNode, str]
) -> None:
    node, bucket = s3_node
    alice = node.client("alice")
    before = listing(alice)
    for key in moto.objects(bucket):
        moto.s3.delete_object(Bucket=bucket, Key=key)
    moto.s3.delete_bucket(Bucket=bucket)
    try:
        r = upload(alice, b"nowhere to go", "lost.txt")
        file_error(r, 500)
        assert listing(alice) == before
    finally:
        moto.s3.create_bucket(Bucket=bucket)
