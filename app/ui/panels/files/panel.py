"""Files panel: external storage and attestation (``/apex-api/bloc/file/...``).

Drop or choose a file: its SHA-256 is computed here first (in a worker thread, with progress
and Cancel), then *Upload* sends exactly those bytes and the node records them on chain. The
list shows every file the node stores (key, URI, hash, time, signers, storage). Upload and
*Attest* (which signs the selected record as the current user) are writes: each shows the
confirmation sheet first, as every other write does, and Cancel sends nothing. *Verify* lists
the signers with the names and organizations of their certificates; *Download…* saves the
content where you choose, hashes what arrived and says in big letters whether it matches the
hash on chain.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelection, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.client.files import SHA256, FileEntry, FileStorageUnavailable, UploadedFile
from app.services.controller import AppController
from app.services.files import (
    MAX_UPLOAD,
    DownloadCheck,
    LocalFile,
    Verification,
)
from app.ui.panels.files.models import (
    DropArea,
    FileRequest,
    FilesModel,
    attest_request,
    kind_of,
    original_name,
    size_text,
    storage_of,
    time_text,
    upload_request,
)
from app.ui.widgets.common import CopyField, ReadsWhenShown, name_widget, while_alive
from app.ui.widgets.confirm_dialog import ConfirmDialog
from app.ui.widgets.file_places import DOWNLOAD, UPLOAD, place_dialog, safe_file_name
from app.ui.widgets.scroll import scrolling_panel

__all__ = ["FilesModel", "FilesPanel", "original_name", "size_text", "storage_of"]
RECORD_CONTRACT = "ExternalStorage"
OK_COLOUR = "#2f855a"
BAD_COLOUR = "#c0392b"
MIN_LIST_HEIGHT = 260
UNKNOWN_STORAGE = (
    "the node's storage is not known until it stores a file (s3 is STRATO's provider name)"
)
NO_STORAGE_HELP = (
    "Files can be uploaded, attested and downloaded only on a node with external storage: "
    "a STRATO node up to 7.4 started with a storage bucket (EXT_STORAGE_S3_BUCKET and its "
    "keys), or the sandbox. Local files can still be hashed here."
)


class FilesPanel(ReadsWhenShown):
    """Signals: contract_requested(str, str, str): open a record contract (name, address,
    chain id) in the composer."""

    title = "Files"
    contract_requested = Signal(str, str, str)

    def __init__(self, controller: AppController, parent: QWidget | None = None) -> None:
        super().__init__(self.reload, parent)
        self.setObjectName("filesPanel")
        self.setAccessibleName("External file storage")
        self.controller = controller
        self.files = controller.files
        self.model = FilesModel(self)
        self.local: LocalFile | None = None
        self.verification: Verification | None = None
        self.check: DownloadCheck | None = None
        self.storage_available: bool | None = None  # None: not asked yet
        self.loaded = False
        self._hash_task: Any = None
        self._download_task: Any = None
        self._counts_task: Any = None
        self._select_after_load = ""
        self._verifying = ""

        # -- no external storage
        self.notice = QLabel(self)
        self.notice.setWordWrap(True)
        self.notice.setTextFormat(Qt.TextFormat.RichText)
        self.notice.setStyleSheet(
            f"QLabel {{ border: 1px solid {BAD_COLOUR}; border-radius: 4px; padding: 8px; }}"
        )
        name_widget(self.notice, "filesNotice", "File storage notice")
        self.notice.hide()

        # -- upload
        upload_box = QGroupBox("Upload", self)
        self.drop = DropArea(upload_box)
        name_widget(self.drop, "filesDropArea", "Drop a file to upload")
        self.drop.file_dropped.connect(self.choose_file)
        self.choose_button = QPushButton("Choose file…", self.drop)
        name_widget(self.choose_button, "filesChoose", "Choose a file to upload")
        self.choose_button.clicked.connect(self.ask_file)
        drop_lay = QHBoxLayout(self.drop)
        drop_lay.addWidget(
            QLabel("Drop a file here, or", self.drop), 1, Qt.AlignmentFlag.AlignRight
        )
        drop_lay.addWidget(self.choose_button, 0)
        drop_lay.addStretch(1)
        self.local_name = QLabel("No file chosen", upload_box)
        self.local_name.setTextFormat(Qt.TextFormat.PlainText)
        self.local_name.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        name_widget(self.local_name, "filesLocalName", "Chosen file")
        self.local_hash = CopyField("filesLocalHash", "Local SHA-256", upload_box)
        self.local_hash.edit.setPlaceholderText("computed here before anything is sent")
        self.hash_progress = QProgressBar(upload_box)
        self.hash_progress.setRange(0, 1000)
        self.hash_progress.setTextVisible(True)
        self.hash_progress.setVisible(False)
        name_widget(self.hash_progress, "filesHashProgress", "Hashing progress")
        self.cancel_hash_button = QPushButton("Cancel", upload_box)
        name_widget(self.cancel_hash_button, "filesCancelHash", "Cancel the hashing")
        self.cancel_hash_button.setVisible(False)
        self.cancel_hash_button.clicked.connect(self.cancel_hash)
        self.metadata = QLineEdit(upload_box)
        self.metadata.setPlaceholderText("stored in the record (default: the file's name)")
        name_widget(self.metadata, "filesMetadata", "Metadata")
        self.provider = QLineEdit("s3", upload_box)
        self.provider.setToolTip(
            "The storage provider the upload names; it follows the storage the node reports "
            "in its records' URIs (local:// or S3) unless you type another"
        )
        self.provider.setMaximumWidth(160)
        name_widget(self.provider, "filesProvider", "Provider")
        self.storage_note = QLabel(UNKNOWN_STORAGE, upload_box)
        self.storage_note.setTextFormat(Qt.TextFormat.PlainText)
        self.storage_note.setWordWrap(True)
        name_widget(self.storage_note, "filesStorage", "The node's file storage")
        provider_row = QHBoxLayout()
        provider_row.addWidget(self.provider)
        provider_row.addWidget(self.storage_note, 1)
        self.upload_button = QPushButton("Upload", upload_box)
        name_widget(self.upload_button, "filesUpload", "Upload the file")
        self.upload_button.setEnabled(False)
        self.upload_button.clicked.connect(self.upload)
        self.upload_status = QLabel("", upload_box)
        self.upload_status.setTextFormat(Qt.TextFormat.PlainText)
        self.upload_status.setWordWrap(True)
        self.upload_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        name_widget(self.upload_status, "filesUploadStatus", "Upload status")
        progress_row = QHBoxLayout()
        progress_row.addWidget(self.hash_progress, 1)
        progress_row.addWidget(self.cancel_hash_button)
        form = QFormLayout()
        form.addRow("File", self.local_name)
        form.addRow("SHA-256", self.local_hash)
        form.addRow("", progress_row)
        form.addRow("Metadata", self.metadata)
        form.addRow("Provider", provider_row)
        send_row = QHBoxLayout()
        send_row.addWidget(self.upload_button)
        send_row.addWidget(self.upload_status, 1)
        up = QVBoxLayout(upload_box)
        up.addWidget(self.drop)
        up.addLayout(form)
        up.addLayout(send_row)

        # -- the node's files
        self.view = QTableView(self)
        name_widget(self.view, "filesView", "Files on the node")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        for col, width in enumerate((160, 160, 130, 150)):
            self.view.setColumnWidth(col, width)
        self.view.selectionModel().selectionChanged.connect(self._selection_changed)
        self.view.doubleClicked.connect(lambda _i: self.verify())
        self.refresh_button = QPushButton("Refresh", self)
        name_widget(self.refresh_button, "filesRefresh", "Reload the list of files")
        self.refresh_button.clicked.connect(self.reload)
        self.attest_button = QPushButton("Attest", self)
        self.attest_button.setToolTip("Sign the selected record as the current user")
        name_widget(self.attest_button, "filesAttest", "Attest the selected file")
        self.attest_button.clicked.connect(self.attest)
        self.verify_button = QPushButton("Verify", self)
        self.verify_button.setToolTip("Read the record's signers and hash from the chain")
        name_widget(self.verify_button, "filesVerify", "Verify the selected file")
        self.verify_button.clicked.connect(self.verify)
        self.download_button = QPushButton("Download…", self)
        self.download_button.setToolTip("Save the content and check it against the on-chain hash")
        name_widget(self.download_button, "filesDownload", "Download the selected file")
        self.download_button.clicked.connect(self.ask_download)
        self.record_button = QPushButton("Open record", self)
        self.record_button.setToolTip("Open the ExternalStorage record contract in the composer")
        name_widget(self.record_button, "filesOpenRecord", "Open the record contract")
        self.record_button.clicked.connect(self.open_record)
        self.count = QLabel("", self)
        self.count.setTextFormat(Qt.TextFormat.PlainText)
        name_widget(self.count, "filesCount", "Files on the node")
        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        name_widget(self.status, "filesStatus", "Result of the last action")
        actions = QHBoxLayout()
        for b in (
            self.refresh_button,
            self.attest_button,
            self.verify_button,
            self.download_button,
            self.record_button,
        ):
            actions.addWidget(b)
        actions.addWidget(self.status, 1)
        actions.addWidget(self.count)

        # -- result of the last action on a record
        self.result = QLabel("", self)
        self.result.setWordWrap(True)
        rf = QFont(self.result.font())
        rf.setPointSizeF(rf.pointSizeF() * 1.6)
        rf.setBold(True)
        self.result.setFont(rf)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result.setTextFormat(Qt.TextFormat.PlainText)
        name_widget(self.result, "filesResult", "Download check")
        self.result.hide()
        self.result_detail = QLabel("", self)
        self.result_detail.setWordWrap(True)
        self.result_detail.setTextFormat(Qt.TextFormat.PlainText)
        self.result_detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        name_widget(self.result_detail, "filesResultDetail", "Download check details")
        self.result_detail.hide()
        self.download_progress = QProgressBar(self)
        self.download_progress.setRange(0, 1000)
        self.download_progress.setVisible(False)
        name_widget(self.download_progress, "filesDownloadProgress", "Download progress")
        self.cancel_download_button = QPushButton("Cancel", self)
        name_widget(self.cancel_download_button, "filesCancelDownload", "Cancel the download")
        self.cancel_download_button.setVisible(False)
        self.cancel_download_button.clicked.connect(self.cancel_download)
        self.detail = QTextBrowser(self)
        self.detail.setOpenLinks(False)
        name_widget(self.detail, "filesDetail", "Record detail")
        down_row = QHBoxLayout()
        down_row.addWidget(self.download_progress, 1)
        down_row.addWidget(self.cancel_download_button)
        side = QWidget(self)
        side_lay = QVBoxLayout(side)
        side_lay.setContentsMargins(0, 0, 0, 0)
        side_lay.addWidget(self.result)
        side_lay.addWidget(self.result_detail)
        side_lay.addLayout(down_row)
        side_lay.addWidget(self.detail, 1)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.view)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)
        self.view.setMinimumWidth(260)
        side.setMinimumWidth(220)
        split.setMinimumHeight(MIN_LIST_HEIGHT)

        # a small window scrolls the panel instead of squashing the list under the upload box
        content = QWidget(self)
        lay = QVBoxLayout(content)
        lay.addWidget(self.notice)
        lay.addWidget(upload_box)
        lay.addLayout(actions)
        lay.addWidget(split, 1)
        self.scroller = scrolling_panel(self, content, "filesScroll")

        self.files.hash_progress.connect(self._on_hash_progress)
        self.files.download_progress.connect(self._on_download_progress)
        self.files.changed.connect(self._on_changed)
        controller.session.user_changed.connect(self._on_user)
        self._update_buttons()

    # ------------------------------------------------------------ loading

    def _on_user(self, _name: str) -> None:
        self.status.setText("")  # the previous user's last message is not the new user's
        self.mark_stale()

    def _on_changed(self) -> None:
        self.mark_stale()

    def reload(self) -> None:
        """Read the node's list of files (and then how many users signed each)."""
        self._stale = False
        if self.controller.session.client is None:
            return
        self.count.setText("Reading the node's files…")

        async def load() -> list[FileEntry] | FileStorageUnavailable:
            try:
                return await self.files.list_files()
            except FileStorageUnavailable as exc:
                return exc

        self.controller.tasks.start(
            "Listing files",
            load(),
            on_done=while_alive(self, self._listed),
            on_error=while_alive(self, self._list_failed),
        )

    def _listed(self, result: list[FileEntry] | FileStorageUnavailable) -> None:
        self.loaded = True
        if isinstance(result, FileStorageUnavailable):
            self._no_storage(result)
            return
        self.storage_available = True
        self.notice.hide()
        current = self.selected()
        selected = self._select_after_load or (current.address if current else "")
        self._select_after_load = ""
        self.model.set_entries(result)
        if result:
            self.follow_storage(result[0].uri)
        n = len(result)
        self.count.setText(f"{n} file{'s' if n != 1 else ''} on the node")
        row = self.model.row_of(selected) if selected else -1
        if row >= 0:
            self.view.selectRow(row)
        self._update_buttons()
        if self._counts_task is not None:
            self._counts_task.cancel()
        if result:
            self._counts_task = self.controller.tasks.start(
                "Counting signers",
                self.files.signer_counts([e.address for e in result]),
                on_done=while_alive(self, self.model.set_counts),
                on_error=while_alive(self, lambda _t: self.model.set_counts({})),
            )

    def _list_failed(self, text: str) -> None:
        self.loaded = True
        self.count.setText("")
        self.status.setText(f"✘ Cannot list the files: {text}")

    def _no_storage(self, exc: FileStorageUnavailable) -> None:
        self.storage_available = False
        self.model.set_entries([])
        self.notice.setText(
            f"<b>✘ This node has no external file storage.</b> "
            f"{escape(exc.message[0].upper() + exc.message[1:])}.<br>{escape(NO_STORAGE_HELP)}"
        )
        self.notice.show()
        self.count.setText("No external file storage on this node")
        self._update_buttons()

    # ------------------------------------------------------------ local file and upload

    def ask_file(self) -> None:
        place_dialog(
            self,
            self.controller,
            UPLOAD,
            "Choose a file to upload",
            "All files (*)",
            self.choose_file,
        )

    def choose_file(self, path: str) -> None:
        """Hash ``path`` here (the upload waits for it); a running hashing is cancelled."""
        self.cancel_hash(quiet=True)
        p = Path(path)
        self.local = None
        self.local_hash.set_value("")
        self.local_name.setText(p.name)
        self.upload_status.setText("")
        self.hash_progress.setValue(0)
        self.hash_progress.setFormat(f"hashing {p.name}: %p%")
        self.hash_progress.setVisible(True)
        self.cancel_hash_button.setVisible(True)
        self._hash_task = self.controller.tasks.start(
            f"Hashing {p.name}",
            self.files.hash_file(p),
            on_done=while_alive(self, self._hashed),
            on_error=while_alive(self, self._hash_failed),
        )
        self._update_buttons()

    @property
    def hashing(self) -> bool:
        return self._hash_task is not None and not self._hash_task.done()

    def cancel_hash(self, quiet: bool = False) -> None:
        if self.hashing:
            self._hash_task.cancel()
            if not quiet:
                self.upload_status.setText("Hashing cancelled: nothing was sent.")
        self._hash_task = None
        self.hash_progress.setVisible(False)
        self.cancel_hash_button.setVisible(False)
        self._update_buttons()

    def _on_hash_progress(self, done: int, total: int) -> None:
        if self.hashing:
            self.hash_progress.setValue(int(done * 1000 / total) if total else 1000)

    def _hashed(self, local: LocalFile) -> None:
        self._hash_task = None
        self.local = local
        self.hash_progress.setVisible(False)
        self.cancel_hash_button.setVisible(False)
        self.local_name.setText(f"{local.name} — {size_text(local.size)}")
        self.local_hash.set_value(local.sha256)
        if local.content is None:
            self.upload_status.setText(
                f"Larger than {MAX_UPLOAD // (1024 * 1024)} MiB: hashed, but not uploaded "
                "from here."
            )
        else:
            self.upload_status.setText("SHA-256 computed locally; nothing has been sent yet.")
        self._update_buttons()

    def _hash_failed(self, text: str) -> None:
        self._hash_task = None
        self.hash_progress.setVisible(False)
        self.cancel_hash_button.setVisible(False)
        self.upload_status.setText(f"✘ {text}")
        self._update_buttons()

    def follow_storage(self, uri: str) -> None:
        """Name the storage the node reports (a record's URI) and upload with its provider,
        unless the user typed another provider."""
        where = storage_of(uri)
        if not where.provider:
            return
        self.storage_note.setText(f"the node reports its storage: {where.label}")
        if not self.provider.isModified():
            self.provider.setText(where.provider)

    def _sheet(self, request: FileRequest, what: list[str], title: str) -> ConfirmDialog:
        """The confirmation sheet every write shows, with a file route's request."""
        sheet = ConfirmDialog(request, what, self)
        sheet.setWindowTitle(title)
        sheet.request.setPlainText(request.shown)
        mode = sheet.findChild(QLabel, "confirmResolve")
        if mode is not None:
            mode.setText("the node answers once the record's transaction has run")
        sheet.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        return sheet

    def upload(self) -> ConfirmDialog | None:
        """Show what the upload sends; it is sent only when the sheet is accepted."""
        local = self.local
        client = self.controller.session.client
        if local is None or local.content is None or client is None:
            return None
        metadata = self.metadata.text().strip() or local.name
        provider = self.provider.text().strip() or "s3"
        user = self.controller.session.username
        request = upload_request(client.base_url, user, local, metadata, provider)
        what = [
            f"Upload {local.name}: {size_text(local.size)} ({local.size:,} bytes), "
            f"content type {kind_of(local.name)}",
            f"SHA-256 {local.sha256} (computed here; the node records the hash of what it "
            "receives)",
            f"Metadata: {metadata}",
            f"Provider: {provider}; the node creates an ExternalStorage record contract on the "
            f"main chain, signed by {user}",
        ]
        sheet = self._sheet(request, what, f"Upload {local.name}?")
        sheet.set_send_text("Upload")

        def finished(code: int) -> None:
            if code == QDialog.DialogCode.Accepted:
                self._send_upload(local, metadata, provider)
            else:
                self.upload_status.setText("Upload cancelled: nothing was sent.")

        sheet.finished.connect(finished)
        sheet.open()
        return sheet

    def _send_upload(self, local: LocalFile, metadata: str, provider: str) -> None:
        self.upload_button.setEnabled(False)
        self.upload_status.setText(f"Uploading {local.name} ({size_text(local.size)})…")

        async def send() -> UploadedFile | FileStorageUnavailable:
            try:
                return await self.files.upload(local, metadata, provider)
            except FileStorageUnavailable as exc:
                return exc

        self.controller.tasks.start(
            f"Uploading {local.name}",
            send(),
            on_done=while_alive(self, lambda up: self._uploaded(local, up)),
            on_error=while_alive(self, self._upload_failed),
        )

    def _uploaded(self, local: LocalFile, up: UploadedFile | FileStorageUnavailable) -> None:
        if isinstance(up, FileStorageUnavailable):
            self._no_storage(up)
            self.upload_status.setText("✘ Not sent: this node has no external file storage.")
            return
        note = ""
        if up.hash:
            same = up.hash in local.forms.values()
            note = (
                "; the node recorded the same hash"
                if same
                else f"; ✘ the node recorded another hash: {up.hash}"
            )
        self.upload_status.setText(f"✔ Uploaded {local.name} as record {up.address}{note}.")
        self.follow_storage(up.uri)
        self._select_after_load = up.address
        self._update_buttons()

    def _upload_failed(self, text: str) -> None:
        self.upload_status.setText(f"✘ Upload failed: {text}")
        self._update_buttons()

    # ------------------------------------------------------------ records

    def selected(self) -> FileEntry | None:
        rows = self.view.selectionModel().selectedRows()
        return self.model.entry(rows[0].row()) if rows else None

    def select(self, address: str) -> bool:
        row = self.model.row_of(address)
        if row >= 0:
            self.view.selectRow(row)
        return row >= 0

    def _selection_changed(self, *_args: QItemSelection) -> None:
        self._update_buttons()
        entry = self.selected()
        if entry is not None and (
            self.verification is None or self.verification.address != entry.address
        ):
            self.verify()

    def _update_buttons(self) -> None:
        connected = self.controller.session.client is not None
        storage = connected and self.storage_available is not False
        has = storage and self.selected() is not None
        for b in (self.attest_button, self.verify_button, self.record_button):
            b.setEnabled(has)
        self.download_button.setEnabled(has and not self.downloading)
        self.refresh_button.setEnabled(connected)
        local = self.local
        self.upload_button.setEnabled(
            storage and local is not None and local.content is not None and not self.hashing
        )

    def attest(self) -> ConfirmDialog | None:
        """Show what signing the selected record sends; it is sent only when accepted."""
        entry = self.selected()
        client = self.controller.session.client
        if entry is None or client is None:
            return None
        user = self.controller.session.username
        request = attest_request(client.base_url, user, entry)
        what = [
            f"Sign the record of {original_name(entry.key)} as {user}: {user}'s address is "
            "added to its on-chain signers",
            f"Record {entry.address} (key {entry.key})",
            f"Hash on chain: {entry.hash or 'none'}",
        ]
        sheet = self._sheet(request, what, f"Attest {original_name(entry.key)}?")
        sheet.set_send_text("Attest")

        def finished(code: int) -> None:
            if code == QDialog.DialogCode.Accepted:
                self._send_attest(entry, user)
            else:
                self.status.setText("Attestation cancelled: nothing was sent.")

        sheet.finished.connect(finished)
        sheet.open()
        return sheet

    def _send_attest(self, entry: FileEntry, user: str) -> None:
        self.attest_button.setEnabled(False)
        self.status.setText(f"Signing {entry.key} as {user}…")

        def done(signers: list[str]) -> None:
            n = len(signers)
            self.status.setText(f"✔ {user} signed {entry.key}: {n} signer{'s' if n != 1 else ''}")
            self.model.set_counts({entry.address: n}, complete=False)
            self._update_buttons()
            if self.selected() == entry:
                self.verify()

        def failed(text: str) -> None:
            self.status.setText(f"✘ {user} could not sign: {text}")
            self._update_buttons()

        self.controller.tasks.start(
            f"Attesting {entry.key}",
            self.files.attest(entry.address),
            on_done=while_alive(self, done),
            on_error=while_alive(self, failed),
        )

    def verify(self) -> None:
        entry = self.selected()
        if entry is None:
            return
        self._verifying = entry.address
        self.verification = None
        self.detail.setHtml(f"<p>Reading the record of <b>{escape(entry.key)}</b>…</p>")

        def done(v: Verification) -> None:
            if self._verifying != v.address:
                return  # another record was selected meanwhile
            self._verifying = ""
            self.verification = v
            self.model.set_counts({v.address: len(v.signers)}, complete=False)
            self._show_verification(entry, v)

        def failed(text: str) -> None:
            if self._verifying == entry.address:
                self._verifying = ""
                self.detail.setHtml(f"<p>✘ {escape(text)}</p>")

        self.controller.tasks.start(
            f"Verifying {entry.key}",
            self.files.verify(entry.address),
            on_done=while_alive(self, done),
            on_error=while_alive(self, failed),
        )

    def _show_verification(self, entry: FileEntry, v: Verification) -> None:
        on_chain = v.hash or entry.hash
        rows = "".join(
            "<tr>"
            f"<td>{escape(s.common_name) or '<i>unknown</i>'}</td>"
            f"<td>{escape(s.organization)}</td>"
            f"<td>{escape(s.unit)}</td>"
            f"<td><code>{escape(s.address)}</code></td>"
            "</tr>"
            for s in v.signers
        )
        names = (
            ""
            if v.names_known
            else "<p><i>The node's certificate registry could not be read: no names.</i></p>"
        )
        n = len(v.signers)
        self.detail.setHtml(
            f"<h3>{escape(original_name(entry.key))}</h3>"
            "<table cellspacing='4'>"
            f"<tr><td>Record</td><td><code>{escape(v.address)}</code></td></tr>"
            f"<tr><td>Key</td><td>{escape(entry.key)}</td></tr>"
            f"<tr><td>URI</td><td>{escape(v.uri or entry.uri)}</td></tr>"
            f"<tr><td>Storage</td><td>{escape(storage_of(v.uri or entry.uri).label)}</td></tr>"
            f"<tr><td>Uploaded</td><td>{escape(time_text(v.time or entry.created))}</td></tr>"
            f"<tr><td>Hash on chain</td><td><code>{escape(on_chain)}</code></td></tr>"
            "</table>"
            f"<h4>{n} signer{'s' if n != 1 else ''}</h4>"
            "<table border='1' cellspacing='0' cellpadding='4'>"
            "<tr><th>Name</th><th>Organization</th><th>Unit</th><th>Address</th></tr>"
            f"{rows}</table>{names}"
        )

    def open_record(self) -> None:
        entry = self.selected()
        if entry is not None:
            self.contract_requested.emit(RECORD_CONTRACT, entry.address, "")

    # ------------------------------------------------------------ download

    @property
    def downloading(self) -> bool:
        return self._download_task is not None and not self._download_task.done()

    def ask_download(self) -> None:
        entry = self.selected()
        if entry is None:
            return
        name = original_name(entry.key)
        suffix = Path(name).suffix.lstrip(".")
        place_dialog(
            self,
            self.controller,
            DOWNLOAD,
            "Save the downloaded file",
            "All files (*)",
            lambda path: self.download_to(path, entry),
            save_suffix=suffix or "bin",
            suggested=safe_file_name(name),
        )

    def download_to(self, path: str, entry: FileEntry | None = None) -> None:
        """Download the selected (or given) record's content to ``path`` and check its hash."""
        entry = entry or self.selected()
        if entry is None or self.downloading:
            return
        self.check = None
        self.result.hide()
        self.result_detail.hide()
        self.download_progress.setValue(0)
        self.download_progress.setFormat(f"downloading {original_name(entry.key)}: %p%")
        self.download_progress.setVisible(True)
        self.cancel_download_button.setVisible(True)
        self._download_task = self.controller.tasks.start(
            f"Downloading {entry.key}",
            self.files.download(entry.address, Path(path), entry.hash),
            on_done=while_alive(self, self._downloaded),
            on_error=while_alive(self, self._download_failed),
        )
        self._update_buttons()

    def cancel_download(self) -> None:
        if self.downloading:
            self._download_task.cancel()
            self._show_result("Download cancelled.", "Nothing was saved.", None)
        self._download_done()

    def _download_done(self) -> None:
        self._download_task = None
        self.download_progress.setVisible(False)
        self.cancel_download_button.setVisible(False)
        self._update_buttons()

    def _on_download_progress(self, done: int, total: int) -> None:
        if not self.downloading:
            return
        if total:
            self.download_progress.setRange(0, 1000)
            self.download_progress.setValue(int(done * 1000 / total))
        else:
            self.download_progress.setRange(0, 0)  # size not announced: busy indicator

    def _downloaded(self, check: DownloadCheck) -> None:
        self._download_done()
        self.check = check
        if check.matches:
            how = "" if check.form == SHA256 else f" ({check.form})"
            self._show_result(
                f"✔ The downloaded file matches the on-chain hash{how}.",
                f"Saved {size_text(check.size)} to {check.path}\nSHA-256: {check.sha256}",
                True,
            )
        elif not check.expected:
            self._show_result(
                "✘ The record has no hash to compare the download with.",
                f"Saved to {check.path}",
                False,
            )
        else:
            self._show_result(
                "✘ The downloaded file does NOT match the on-chain hash.",
                "Its content is not what was recorded.\n"
                f"SHA-256 of the download: {check.sha256}\n"
                f"Hash on chain: {check.expected}\n"
                f"Saved to {check.path}: do not trust it.",
                False,
            )

    def _download_failed(self, text: str) -> None:
        self._download_done()
        self._show_result("✘ Download failed.", text, False)

    def _show_result(self, headline: str, detail: str, ok: bool | None) -> None:
        """The big ✔/✘ line of the last download, and its details below it."""
        colour = {True: OK_COLOUR, False: BAD_COLOUR}.get(ok) if ok is not None else None
        self.result.setText(headline)
        self.result.setStyleSheet(f"QLabel {{ color: {colour}; }}" if colour else "")
        self.result.setProperty("ok", ok)
        self.result.show()
        self.result_detail.setText(detail)
        self.result_detail.setVisible(bool(detail))
