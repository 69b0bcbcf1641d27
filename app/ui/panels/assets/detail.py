"""The Assets panel's detail pane: the selected asset as the node has it now, its shard (chain ID
and members) and the timeline of its fields and owners from the application's audit route.

Only shows what it is given; the panel decides what is selected and reads it."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QHeaderView,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.client.assets import AssetRecord, AssetType
from app.services.assets import AssetDetail
from app.ui.panels.assets.models import value_text
from app.ui.widgets.common import CopyField, name_widget


class DetailPane(QWidget):
    """Signals: transaction_requested(str): a history entry's transaction was double-clicked."""

    transaction_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel("Select an asset", self)
        name_widget(self.title, "assetsDetailTitle", "Selected asset")
        self.owner = self._value("assetsDetailOwner", "Owner")
        self.fields = self._value("assetsDetailFields", "Fields")
        self.chain = CopyField("assetsDetailChain", "Shard chain ID", self)
        self.shard = self._value("assetsDetailShard", "Shard")
        self.members = self._value("assetsDetailMembers", "Shard members")
        self.note = self._value("assetsDetailNote", "Notes")
        self.timeline = QTreeWidget(self)
        self.timeline.setHeaderLabels(["Block", "Owner", "Change"])
        self.timeline.setRootIsDecorated(False)
        self.timeline.setUniformRowHeights(False)  # a change is a line per field
        head = self.timeline.header()
        head.setStretchLastSection(False)
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.timeline.setToolTip("Double-click a change to open its transaction")
        name_widget(self.timeline, "assetsTimeline", "Ownership and field history")
        self.timeline.itemDoubleClicked.connect(self._timeline_clicked)
        form = QFormLayout()
        form.addRow("Owner", self.owner)
        form.addRow("Fields", self.fields)
        form.addRow("Shard", self.chain)
        form.addRow("", self.shard)
        form.addRow("Members", self.members)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.title)
        lay.addLayout(form)
        lay.addWidget(QLabel("History (from the audit route)", self))
        lay.addWidget(self.timeline, 1)
        lay.addWidget(self.note)

    def _value(self, name: str, accessible: str) -> QLabel:
        label = QLabel("", self)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        name_widget(label, name, accessible)
        return label

    def clear(self) -> None:
        self.timeline.clear()
        self.title.setText("Select an asset")
        for w in (self.owner, self.fields, self.shard, self.members, self.note):
            w.setText("")
        self.chain.set_value("")

    def reading(self, record: AssetRecord, asset: AssetType) -> None:
        """The asset's title while its detail is on its way."""
        self.title.setText(f"<b>{escape(record.title(asset))}</b>")
        self.note.setText("Reading its shard and history…")

    def show_detail(self, detail: AssetDetail, asset: AssetType) -> None:
        self.timeline.clear()
        rec = detail.record
        self.title.setText(f"<b>{escape(rec.title(asset))}</b> ({asset.name})")
        self.owner.setText(
            f"{escape(rec.owner_label)} — {escape(rec.organization)} / {escape(rec.unit)}"
            f"<br><small>{rec.owner}</small>"
        )
        self.fields.setText(
            "<br>".join(
                f"{escape(k)}: <b>{escape(value_text(v))}</b>" for k, v in rec.values.items()
            )
        )
        self.chain.set_value(rec.chain_id)
        chain = detail.chain
        if chain is not None:
            self.shard.setText(
                f"{escape(chain.title())}, governed by {escape(chain.governance or '?')}"
                + (f"; parent {chain.parent[:12]}…" if chain.parent else "")
            )
            self.members.setText(", ".join(m.describe() for m in chain.members) or "—")
        else:
            self.shard.setText("")
            self.members.setText("not readable")
        for e in detail.timeline:
            item = QTreeWidgetItem(
                [
                    str(e.block_number) if e.block_number >= 0 else "",
                    e.owner_name,
                    "\n".join(e.lines()),
                ]
            )
            item.setData(0, Qt.ItemDataRole.UserRole, e.tx_hash)
            item.setToolTip(2, f"{e.describe()}\n{e.timestamp}\ntransaction {e.tx_hash}")
            item.setTextAlignment(0, Qt.AlignmentFlag.AlignTop)
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignTop)
            self.timeline.addTopLevelItem(item)
        self.note.setText(detail.note)

    def timeline_rows(self) -> list[tuple[str, str, str]]:
        """(block, owner, change) of each history entry, oldest first."""
        out = []
        for i in range(self.timeline.topLevelItemCount()):
            item = self.timeline.topLevelItem(i)
            if item is not None:
                out.append((item.text(0), item.text(1), item.text(2)))
        return out

    def _timeline_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        tx = item.data(0, Qt.ItemDataRole.UserRole)
        if tx:
            self.transaction_requested.emit(str(tx))
