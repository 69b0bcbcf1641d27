"""The Files panel against real sandbox nodes (issue 9): the SHA-256 computed here before
anything is sent, upload and list, attest as two users and verify with names and
organizations, download with the hash check (a match, a tampered blob, a record made the way
STRATO 7.4 hashed files), progress and cancel for large files, and a node without external
storage (``serve --no-file-storage``, which answers 405 as STRATO 7.4 without a bucket)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QWidget
from pytestqt.qtbot import QtBot

from app.client.errors import RequestError
from app.client.files import PLATFORM_HMAC, FileStorageUnavailable, no_storage_error
from app.services.controller import AppController
from app.ui.panels.files.panel import FilesPanel, original_name, storage_of
from app.ui.shell.main_window import MainWindow
from app.ui.widgets.confirm_dialog import ConfirmDialog
from tests.gui.conftest import connect, drive
from tests.integration.conftest import make_node
from tests.integration.node_fixture import CONTRACTS, RunningNode, deploy

P = "/apex-api/bloc/file"
MiB = 1024 * 1024


@pytest.fixture(scope="module")
def bare_node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    """A node without external file storage."""
    n = make_node(tmp_path_factory, "--no-file-storage", name="nostorage")
    try:
        yield n
    finally:
        n.stop()


def upload_as(node: RunningNode, user: str, data: bytes, name: str) -> dict[str, Any]:
    r = node.client(user).post(
        f"{P}/upload",
        files={"content": (name, data, "application/octet-stream")},
        data={"provider": "s3", "metadata": f"{name} by {user}"},
    )
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def listed(node: RunningNode) -> list[dict[str, Any]]:
    r = node.client("alice").get(f"{P}/list", params={"limit": 1000})
    assert r.status_code == 200, r.text
    out: list[dict[str, Any]] = r.json()["list"]
    return out


def open_panel(
    loop: qasync.QEventLoop, controller: AppController, node: RunningNode, user: str = "alice"
) -> FilesPanel:
    connect(loop, controller, node, user)
    panel = FilesPanel(controller)
    panel.resize(1200, 800)
    panel.show()  # the list is read when the panel is first shown
    drive(loop, lambda: panel.loaded)
    return panel


def select(loop: qasync.QEventLoop, panel: FilesPanel, address: str) -> None:
    drive(loop, lambda: panel.model.row_of(address) >= 0)
    assert panel.select(address)
    drive(loop, lambda: panel.verification is not None and panel.verification.address == address)


def hash_in_panel(loop: qasync.QEventLoop, panel: FilesPanel, path: Path) -> None:
    panel.choose_file(str(path))
    drive(loop, lambda: panel.local is not None and panel.local.path == path)


def sheet_of(loop: qasync.QEventLoop, panel: FilesPanel) -> ConfirmDialog:
    """The confirmation sheet the panel opened (and nothing sent while it is up)."""
    drive(loop, lambda: any(s.isVisible() for s in panel.findChildren(ConfirmDialog)))
    sheet = next(s for s in panel.findChildren(ConfirmDialog) if s.isVisible())
    return sheet


def answer(loop: qasync.QEventLoop, qtbot: QtBot, sheet: ConfirmDialog, send: bool) -> None:
    """Click Send (Upload / Attest) or Cancel on the sheet, as a user does."""
    name = "confirmSend" if send else "confirmCancel"
    button = sheet.findChild(QPushButton, name)
    assert isinstance(button, QPushButton) and button.isVisible()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    drive(loop, lambda: not shiboken6.isValid(sheet) or not sheet.isVisible())


def click(qtbot: QtBot, button: QWidget) -> None:
    assert button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def download(loop: qasync.QEventLoop, panel: FilesPanel, dest: Path) -> None:
    panel.check = None
    panel.download_to(str(dest))
    drive(loop, lambda: panel.check is not None or panel.result.property("ok") is False)


# ---------------------------------------------------------------------------- upload


def test_hash_shown_before_upload_then_upload_lists_it(
    node: RunningNode,
    controller: AppController,
    loop: qasync.QEventLoop,
    tmp_path: Path,
    qtbot: QtBot,
) -> None:
    data = os.urandom(300_000) + b"end of report"
    path = tmp_path / "report.pdf"
    path.write_bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    panel = open_panel(loop, controller, node)
    before = listed(node)
    assert not panel.upload_button.isEnabled()  # nothing chosen yet

    hash_in_panel(loop, panel, path)
    # the hash is on screen, and nothing went to the node
    assert panel.local_hash.value() == sha
    assert panel.local_name.text() == "report.pdf — 293.0 KiB"
    assert "nothing has been sent" in panel.upload_status.text()
    assert listed(node) == before
    assert panel.upload_button.isEnabled()

    panel.metadata.setText("quarterly report")
    click(qtbot, panel.upload_button)
    answer(loop, qtbot, sheet_of(loop, panel), send=True)
    drive(loop, lambda: panel.upload_status.text().startswith(("✔", "✘")))
    assert panel.upload_status.text().startswith("✔ Uploaded report.pdf as record ")
    assert "the node recorded the same hash" in panel.upload_status.text()
    # the list reloads with the new record selected; its hash is the one shown before
    drive(loop, lambda: any(e.hash == sha for e in panel.model.entries))
    entry = next(e for e in panel.model.entries if e.hash == sha)
    assert entry.key.endswith("report.pdf") and original_name(entry.key) == "report.pdf"
    assert entry.key in entry.uri
    assert panel.model.entries[0] == entry  # newest first
    drive(loop, lambda: panel.selected() == entry)
    row = panel.model.row_of(entry.address)
    cells = [panel.model.index(row, c).data() for c in range(5)]
    assert cells[:3] == [entry.key, entry.uri, sha]
    assert cells[3] and cells[3][:2] == "20"  # a local date
    drive(loop, lambda: panel.model.index(row, 4).data() == "1")  # the uploader signed it
    # on chain: the record holds the hash and the metadata typed in the panel
    state = node.client("bob").get(f"/bloc/v2.2/contracts/ExternalStorage/{entry.address}/state")
    assert state.json()["fileHash"] == sha
    assert state.json()["metadata"] == "quarterly report"
    assert state.json()["signers"] == [node.address("alice")]
    panel.close()


def test_progress_and_download_of_a_large_file(
    node: RunningNode,
    controller: AppController,
    loop: qasync.QEventLoop,
    tmp_path: Path,
    qtbot: QtBot,
) -> None:
    data = os.urandom(8 * MiB + 12_345)
    path = tmp_path / "big.bin"
    path.write_bytes(data)
    panel = open_panel(loop, controller, node)
    hashed: list[tuple[int, int]] = []
    controller.files.hash_progress.connect(lambda done, total: hashed.append((done, total)))
    hash_in_panel(loop, panel, path)
    size = len(data)
    # one report per MiB read, in order, up to the whole file
    assert hashed[0] == (0, size) and hashed[-1] == (size, size)
    assert len(hashed) >= 10
    assert [d for d, _ in hashed] == sorted(d for d, _ in hashed)
    assert all(t == size for _, t in hashed)
    assert panel.local_hash.value() == hashlib.sha256(data).hexdigest()
    assert not panel.hash_progress.isVisible() and not panel.cancel_hash_button.isVisible()

    click(qtbot, panel.upload_button)
    answer(loop, qtbot, sheet_of(loop, panel), send=True)
    drive(loop, lambda: panel.upload_status.text().startswith(("✔", "✘")), timeout=30)
    assert panel.upload_status.text().startswith("✔"), panel.upload_status.text()
    drive(loop, lambda: (getattr(panel.selected(), "key", "") or "").endswith("big.bin"))
    received: list[tuple[int, int]] = []
    controller.files.download_progress.connect(lambda done, total: received.append((done, total)))
    dest = tmp_path / "out" / "big-copy.bin"
    dest.parent.mkdir()
    download(loop, panel, dest)
    assert panel.check is not None and panel.check.matches
    assert dest.read_bytes() == data
    assert received[-1] == (size, size) and len(received) >= 9
    assert sorted(p.name for p in dest.parent.iterdir()) == ["big-copy.bin"]  # no .part left
    panel.close()


def test_cancel_hashing_a_huge_file(
    node: RunningNode, controller: AppController, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    path = tmp_path / "huge.img"
    with path.open("wb") as f:
        f.truncate(2048 * MiB)  # sparse: 2 GiB of zeros, read in ~1 s if nobody stops it
    panel = open_panel(loop, controller, node)
    seen: list[int] = []

    def progress(done: int, total: int) -> None:
        seen.append(done)
        if done >= MiB and panel.cancel_hash_button.isVisible():
            panel.cancel_hash_button.click()  # the user cancels once it started

    controller.files.hash_progress.connect(progress)
    panel.choose_file(str(path))
    assert panel.hash_progress.isVisible()
    drive(loop, lambda: not panel.hashing)
    loop.run_until_complete(asyncio.sleep(0.3))  # the worker stops at its next chunk
    assert panel.local is None and panel.local_hash.value() == ""
    assert panel.upload_status.text() == "Hashing cancelled: nothing was sent."
    assert not panel.upload_button.isEnabled()
    assert seen and max(seen) < 512 * MiB  # stopped early, not at the end
    panel.close()


# ---------------------------------------------------------------------------- the sheet


def test_upload_shows_the_sheet_and_cancel_sends_nothing(
    node: RunningNode,
    controller: AppController,
    loop: qasync.QEventLoop,
    tmp_path: Path,
    qtbot: QtBot,
) -> None:
    """An upload is a write: the sheet says who signs, where, what (name, size, SHA-256,
    content type) and the exact request; Cancel sends nothing, Upload sends it."""
    data = b"%PDF-1.4 delivery note " * 500
    path = tmp_path / "delivery-note.pdf"
    path.write_bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    panel = open_panel(loop, controller, node)
    hash_in_panel(loop, panel, path)
    panel.metadata.setText("note for the sheet")
    before = listed(node)

    click(qtbot, panel.upload_button)
    sheet = sheet_of(loop, panel)
    assert sheet.windowTitle() == "Upload delivery-note.pdf?"
    assert sheet.send_button.text() == "Upload"
    assert sheet.findChild(QWidget, "confirmSigner").text().startswith("alice")  # type: ignore[union-attr]
    what = sheet.findChild(QWidget, "confirmWhat").text()  # type: ignore[union-attr]
    for word in ("delivery-note.pdf", f"{len(data):,} bytes", sha, "application/pdf", "alice"):
        assert word in what, word
    request = sheet.request.toPlainText()
    assert request.startswith(f"POST {node.url}/apex-api/bloc/file/upload\n")
    for word in (
        "multipart/form-data",
        "content: delivery-note.pdf",
        "application/octet-stream",
        sha,
        'metadata: "note for the sheet"',
        'provider: "local"',  # what this node's records say (it keeps files itself)
    ):
        assert word in request, word
    curl = sheet.preview.curl()
    assert f"content=@{path};type=application/octet-stream" in curl and "-F" in curl
    assert curl.startswith("curl -s -X POST")  # -s: no progress meter in the output
    loop.run_until_complete(asyncio.sleep(0.3))
    assert listed(node) == before  # nothing sent while the sheet is up

    answer(loop, qtbot, sheet, send=False)
    loop.run_until_complete(asyncio.sleep(0.5))
    assert listed(node) == before
    assert panel.upload_status.text() == "Upload cancelled: nothing was sent."
    assert panel.upload_button.isEnabled()

    click(qtbot, panel.upload_button)
    answer(loop, qtbot, sheet_of(loop, panel), send=True)
    drive(loop, lambda: panel.upload_status.text().startswith(("✔", "✘")))
    assert panel.upload_status.text().startswith("✔ Uploaded delivery-note.pdf")
    after = listed(node)
    assert len(after) == len(before) + 1 and after[-1]["hash"] == sha
    panel.close()


def test_attest_shows_the_sheet_and_cancel_sends_nothing(
    node: RunningNode, controller: AppController, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    rec = upload_as(node, "carol", b"terms and conditions", "terms.txt")
    address = rec["contractAddress"]

    def signers() -> list[str]:
        r = node.client("alice").get(f"{P}/verify", params={"contractAddress": address})
        out: list[str] = r.json()["signers"]
        return out

    panel = open_panel(loop, controller, node, "alice")
    select(loop, panel, address)
    click(qtbot, panel.attest_button)
    sheet = sheet_of(loop, panel)
    assert sheet.windowTitle() == "Attest terms.txt?" and sheet.send_button.text() == "Attest"
    what = sheet.findChild(QWidget, "confirmWhat").text()  # type: ignore[union-attr]
    for word in ("terms.txt", "alice", address, rec["fileKey"], rec["hash"]):
        assert word in what, word
    request = sheet.request.toPlainText()
    assert request.startswith(f"POST {node.url}/apex-api/bloc/file/attest\n")
    assert f'"contractAddress": "{address}"' in request
    assert "/apex-api/bloc/file/attest" in sheet.preview.curl()

    answer(loop, qtbot, sheet, send=False)
    loop.run_until_complete(asyncio.sleep(0.5))
    assert signers() == [node.address("carol")]
    assert panel.status.text() == "Attestation cancelled: nothing was sent."

    click(qtbot, panel.attest_button)
    answer(loop, qtbot, sheet_of(loop, panel), send=True)
    drive(loop, lambda: panel.status.text().startswith(("✔", "✘")))
    assert panel.status.text() == f"✔ alice signed {rec['fileKey']}: 2 signers"
    assert signers() == [node.address("carol"), node.address("alice")]
    panel.close()


# ---------------------------------------------------------------------------- storage


def test_provider_follows_the_storage_the_node_reports(
    node: RunningNode,
    controller: AppController,
    loop: qasync.QEventLoop,
    tmp_path: Path,
    qtbot: QtBot,
) -> None:
    """The sandbox keeps files itself (``local://`` URIs): the panel must not say ``s3``."""
    rec = upload_as(node, "bob", b"a local file", "local.txt")
    assert rec["uri"].startswith("local://")
    panel = open_panel(loop, controller, node)
    assert panel.provider.text() == "local"
    assert "local files kept by the node" in panel.storage_note.text()
    row = panel.model.row_of(rec["contractAddress"])
    assert panel.model.index(row, 5).data() == "local"
    select(loop, panel, rec["contractAddress"])
    assert "Storage" in panel.detail.toPlainText()
    assert "local files kept by the node (local://)" in panel.detail.toPlainText()
    assert "s3" not in panel.detail.toPlainText().lower().replace(rec["uri"].lower(), "")
    # a provider the user typed is kept
    panel.provider.clear()
    qtbot.keyClicks(panel.provider, "custom")
    panel.follow_storage("local://x")
    assert panel.provider.text() == "custom"
    panel.close()


@pytest.mark.parametrize(
    ("uri", "provider", "short"),
    [
        ("local://1700000000000-ab12cd34-x.pdf", "local", "local"),
        ("https://bucket.s3.amazonaws.com/1700000000000-x.pdf", "s3", "S3"),
        ("https://s3.eu-west-1.amazonaws.com/bucket/k", "s3", "S3"),
        ("s3://bucket/k", "s3", "S3"),
        ("http://minio.local:9000/bucket/k", "s3", "S3-compatible"),
        ("ipfs://bafy/k", "ipfs", "ipfs"),
        ("", "", ""),
    ],
)
def test_storage_of_uris(uri: str, provider: str, short: str) -> None:
    where = storage_of(uri)
    assert (where.provider, where.short) == (provider, short)


# ---------------------------------------------------------------------------- attest / verify


@pytest.mark.cirrus_families  # the signers' names, from the certificate registry's table
def test_attest_as_two_users_and_verify_names_them(
    node: RunningNode, controller: AppController, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    rec = upload_as(node, "carol", b"the contract text", "contract.txt")
    address = rec["contractAddress"]
    panel = open_panel(loop, controller, node, "alice")
    select(loop, panel, address)
    click(qtbot, panel.attest_button)
    answer(loop, qtbot, sheet_of(loop, panel), send=True)
    drive(loop, lambda: panel.status.text().startswith(("✔", "✘")))
    assert panel.status.text() == "✔ alice signed " + rec["fileKey"] + ": 2 signers"

    # acting as bob: the panel reloads (it is on screen), bob signs too
    panel.loaded = False
    loop.run_until_complete(controller.switch_user("bob", "bob"))
    drive(loop, lambda: panel.loaded)
    select(loop, panel, address)
    click(qtbot, panel.attest_button)
    answer(loop, qtbot, sheet_of(loop, panel), send=True)
    drive(loop, lambda: panel.status.text().startswith(("✔", "✘")))
    assert panel.status.text().endswith(": 3 signers"), panel.status.text()

    panel.verify_button.click()
    drive(loop, lambda: len(getattr(panel.verification, "signers", [])) == 3)
    v = panel.verification
    assert v is not None
    assert [(s.common_name, s.organization, s.unit) for s in v.signers] == [
        ("carol", "Acme", "Sales"),
        ("alice", "Acme", "Engineering"),
        ("bob", "Globex", "Logistics"),
    ]
    assert [s.address for s in v.signers] == [node.address(u) for u in ("carol", "alice", "bob")]
    assert v.hash == hashlib.sha256(b"the contract text").hexdigest()
    shown = panel.detail.toPlainText()
    assert "3 signers" in shown
    for word in ("carol", "alice", "bob", "Globex", "Logistics", "Engineering", rec["uri"]):
        assert word in shown
    drive(loop, lambda: panel.model.index(panel.model.row_of(address), 4).data() == "3")

    # signing twice is refused in the node's words
    click(qtbot, panel.attest_button)
    answer(loop, qtbot, sheet_of(loop, panel), send=True)
    drive(loop, lambda: panel.status.text().startswith("✘"))
    assert "You already signed this transaction" in panel.status.text()
    assert node.client("alice").get(f"{P}/verify", params={"contractAddress": address}).json()[
        "signers"
    ] == [node.address(u) for u in ("carol", "alice", "bob")]
    panel.close()


# ---------------------------------------------------------------------------- download


def test_download_matches_and_says_so(
    node: RunningNode, controller: AppController, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    data = b"invoice 42\n" * 1000
    rec = upload_as(node, "bob", data, "invoice.txt")
    panel = open_panel(loop, controller, node)
    select(loop, panel, rec["contractAddress"])
    dest = tmp_path / "invoice.txt"
    download(loop, panel, dest)
    check = panel.check
    assert check is not None and check.matches and check.form == "SHA-256"
    assert dest.read_bytes() == data
    assert check.sha256 == check.expected == hashlib.sha256(data).hexdigest()
    assert panel.result.isVisible() and panel.result.property("ok") is True
    assert panel.result.text() == "✔ The downloaded file matches the on-chain hash."
    assert str(dest) in panel.result_detail.text() and check.sha256 in panel.result_detail.text()
    panel.close()


def test_tampered_blob_is_detected(
    node: RunningNode, controller: AppController, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    data = b"pay 100 to bob"
    rec = upload_as(node, "alice", data, "order.txt")
    # someone with access to the storage changes the file behind the record's back
    blob = node.data_dir / "files" / rec["fileKey"]
    assert blob.read_bytes() == data
    blob.write_bytes(b"pay 900 to eve")
    panel = open_panel(loop, controller, node)
    select(loop, panel, rec["contractAddress"])
    dest = tmp_path / "order.txt"
    download(loop, panel, dest)
    check = panel.check
    assert check is not None and not check.matches
    assert dest.read_bytes() == b"pay 900 to eve"  # saved as received, and said untrustworthy
    assert check.expected == hashlib.sha256(data).hexdigest()
    assert check.sha256 == hashlib.sha256(b"pay 900 to eve").hexdigest()
    assert panel.result.text() == "✘ The downloaded file does NOT match the on-chain hash."
    text = panel.result_detail.text()
    assert check.sha256 in text and check.expected in text and "do not trust it" in text
    assert panel.result.property("ok") is False
    panel.close()


def test_a_record_hashed_the_strato_74_way_is_recognised(
    node: RunningNode, controller: AppController, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    """STRATO 7.4's apex stored createHmac('sha256', file).digest('hex'): a record made that
    way (deployed directly, its blob put in the node's store) is checked against that form."""
    data = os.urandom(5000)
    key = "1700000000000-legacy.bin"
    (node.data_dir / "files" / key).write_bytes(data)
    legacy = hmac.new(data, b"", hashlib.sha256).hexdigest()
    address = deploy(
        node.client("alice"),
        "ExternalStorage",
        (CONTRACTS / "ExternalStorage.sol").read_text(),
        {
            "_fileKey": key,
            "_uri": f"https://bucket.s3.amazonaws.com/{key}",
            "_host": "s3",
            "_fileHash": legacy,
            "_metadata": "from 7.4",
        },
    )
    panel = open_panel(loop, controller, node)
    select(loop, panel, address)
    entry = panel.selected()
    assert entry is not None and entry.key == key and original_name(key) == "legacy.bin"
    assert panel.model.index(panel.model.row_of(address), 5).data() == "S3"
    download(loop, panel, tmp_path / "legacy.bin")
    assert panel.check is not None and panel.check.matches
    assert panel.check.form == PLATFORM_HMAC
    assert "STRATO 7.4" in panel.result.text() and panel.result.text().startswith("✔")
    panel.close()


# ---------------------------------------------------------------------------- no storage


def test_node_without_storage_says_so(
    bare_node: RunningNode, controller: AppController, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    r = bare_node.client("alice").get(f"{P}/list")
    assert r.status_code == 405
    assert r.json()["error"]["message"] == "external storage feature is not enabled on that node"
    panel = open_panel(loop, controller, bare_node)
    assert panel.storage_available is False
    assert panel.notice.isVisible()
    text = panel.notice.text()
    assert "This node has no external file storage" in text
    assert "no storage bucket is configured" in text
    assert panel.model.rowCount() == 0
    assert panel.count.text() == "No external file storage on this node"
    for b in (panel.attest_button, panel.verify_button, panel.download_button):
        assert not b.isEnabled()
    # a local file can still be hashed, but there is nowhere to upload it
    path = tmp_path / "note.txt"
    path.write_bytes(b"note")
    hash_in_panel(loop, panel, path)
    assert panel.local_hash.value() == hashlib.sha256(b"note").hexdigest()
    assert not panel.upload_button.isEnabled()
    panel.close()


@pytest.mark.parametrize(
    ("status", "why"),
    [
        (404, "STRATO 7.5 and later removed them"),
        (405, "no storage bucket is configured"),
        (410, "removed in STRATO 7.5"),
    ],
)
def test_statuses_that_mean_no_storage(status: int, why: str) -> None:
    """404 (STRATO 7.5+: no such route), 405 (7.4 without a bucket), 410 (STRATO 8)."""
    err = no_storage_error(RequestError("x", status=status, method="GET", url=f"{P}/list"))
    assert isinstance(err, FileStorageUnavailable) and err.status == status
    assert err.message.startswith("this node has no external file storage: ") and why in str(err)


# ---------------------------------------------------------------------------- main window


def test_main_window_has_the_files_panel(
    node: RunningNode, window: MainWindow, controller: AppController, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node)
    panel = next(p for p in window.panels if isinstance(p, FilesPanel))
    row = window.panels.index(panel)
    assert window.nav.item(row).text() == "Files"
    assert panel.objectName() == "filesPanel" and not panel.loaded
    window.nav.setCurrentRow(row)  # shown: the list is read
    drive(loop, lambda: panel.loaded)
    assert panel.storage_available is True
    assert len(panel.model.entries) == len(listed(node))
    # the record link opens the composer on the ExternalStorage contract
    panel.view.selectRow(0)
    opened: list[tuple[str, str, str]] = []
    panel.contract_requested.connect(lambda *a: opened.append(a))
    panel.record_button.click()
    assert opened == [("ExternalStorage", panel.model.entries[0].address, "")]


def test_files_panel_at_1024x640_scrolls_instead_of_squashing(
    node: RunningNode, controller: AppController, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    """In a 1024x640 window the panel gets about 830x500, and 830x340 with the HTTP inspector
    docked below: the list keeps a usable height and the panel scrolls to the rest; nothing is
    squashed below its minimum."""
    upload_as(node, "alice", b"one more row", "row.txt")
    panel = open_panel(loop, controller, node)
    for height in (500, 340):
        panel.resize(830, height)
        loop.run_until_complete(asyncio.sleep(0.2))
        hint = panel.minimumSizeHint()
        assert hint.width() <= 830 and hint.height() <= height, hint
        assert panel.height() == height
        assert panel.view.height() >= 200, panel.view.height()
        for w in (panel.upload_button, panel.metadata, panel.provider, panel.choose_button):
            assert w.height() >= w.minimumSizeHint().height(), w.objectName()
    bar = panel.scroller.verticalScrollBar()
    assert bar.maximum() > 0  # the rest is reached by scrolling
    bar.setValue(bar.maximum())
    loop.run_until_complete(asyncio.sleep(0.1))
    panel.grab().save(str(tmp_path / "files-1024x640.png"))
    print(tmp_path / "files-1024x640.png")
    panel.close()
