"""Models for the Assets panel: one table model of the assets a user sees, a filter proxy that
keeps the rows a filter (the Cirrus query model's conditions) is true for, and the card
delegate that draws the same rows as a gallery."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from app.client.assets import AssetRecord, AssetType

RECORD_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_ROLE = Qt.ItemDataRole.UserRole + 2
Index = QModelIndex | QPersistentModelIndex


def value_text(v: Any) -> str:
    if v is None:
        return "∅"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


class AssetTableModel(QAbstractTableModel):
    """Owner, organization, the asset's fields and its shard, one row per asset."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.asset: AssetType | None = None
        self.records: list[AssetRecord] = []

    def set_records(self, asset: AssetType | None, records: list[AssetRecord]) -> None:
        self.beginResetModel()
        self.asset = asset
        self.records = list(records)
        self.endResetModel()

    def columns(self) -> list[str]:
        fields = self.asset.field_names if self.asset else []
        return ["Owner", "Organization", *fields, "Shard"]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.records)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns())

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            cols = self.columns()
            return cols[section] if 0 <= section < len(cols) else None
        return None

    def record(self, row: int) -> AssetRecord | None:
        return self.records[row] if 0 <= row < len(self.records) else None

    def row_of(self, chain_id: str) -> int:
        return next((i for i, r in enumerate(self.records) if r.chain_id == chain_id), -1)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        rec = self.record(index.row()) if index.isValid() else None
        if rec is None:
            return None
        if role == RECORD_ROLE:
            return rec
        cols = self.columns()
        col = cols[index.column()] if index.column() < len(cols) else ""
        if col == "Owner":
            value: Any = rec.owner_label
            tip = f"{rec.owner_label}: {rec.owner}"
        elif col == "Organization":
            value = f"{rec.organization} / {rec.unit}" if rec.unit else rec.organization
            tip = value
        elif col == "Shard":
            value = f"{rec.chain_id[:12]}…"
            tip = rec.chain_id
        else:
            raw = rec.values.get(col)
            if role == SORT_ROLE:
                return raw if isinstance(raw, (int, str)) else value_text(raw)
            value = value_text(raw)
            tip = value
        if role == Qt.ItemDataRole.DisplayRole:
            return value
        if role == SORT_ROLE:
            return value
        if role == Qt.ItemDataRole.ToolTipRole:
            return tip
        return None


class AssetFilterProxy(QSortFilterProxyModel):
    """Keeps the assets whose row a predicate accepts; sorts on the raw values."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.predicate: Callable[[Mapping[str, Any]], bool] | None = None
        self.setSortRole(SORT_ROLE)

    def set_predicate(self, predicate: Callable[[Mapping[str, Any]], bool] | None) -> None:
        self.beginFilterChange()
        self.predicate = predicate
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        model = self.sourceModel()
        if self.predicate is None or not isinstance(model, AssetTableModel):
            return True
        rec = model.record(source_row)
        return rec is not None and self.predicate({**rec.row, **rec.values})

    def record(self, row: int) -> AssetRecord | None:
        rec = self.index(row, 0).data(RECORD_ROLE)
        return rec if isinstance(rec, AssetRecord) else None

    def records(self) -> list[AssetRecord]:
        return [r for r in (self.record(i) for i in range(self.rowCount())) if r is not None]


CARD = QSize(230, 128)
CARD_MIN_WIDTH = 176  # narrower cards elide too much of their fields
TITLE_SAMPLE = "1HGCM82633A004352"  # a 17-character VIN: a card's title shows one whole
CARD_PADDING = 4 + 4 + 11 + 6  # the card's margin and the text's indents (paint)


def swatch_colour(record: AssetRecord) -> QColor | None:
    """A colour a field names (a car's ``color: blue``), for the card's stripe."""
    for name, v in record.values.items():
        if "colo" in name.lower() and isinstance(v, str) and QColor.isValidColorName(v):
            return QColor.fromString(v)
    return None


class AssetCardDelegate(QStyledItemDelegate):
    """Draws an asset as a card: title, its fields, its owner; the selected one highlighted."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.me = ""  # the signed-in user's address: their cards say "yours"
        self.card = QSize(CARD)  # the gallery sets the width to fill its columns

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        return self.card

    def paint(self, painter: QPainter | None, option: QStyleOptionViewItem, index: Index) -> None:
        rec = index.data(RECORD_ROLE)
        model = index.model()
        source = model.sourceModel() if isinstance(model, QSortFilterProxyModel) else model
        asset = source.asset if isinstance(source, AssetTableModel) else None
        if painter is None or not isinstance(rec, AssetRecord) or asset is None:
            return
        pal = option.palette
        rect: QRect = option.rect.adjusted(4, 4, -4, -4)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        path = QPainterPath()
        path.addRoundedRect(rect, 8, 8)
        painter.fillPath(path, pal.color(QPalette.ColorRole.Base))
        edge = (
            pal.color(QPalette.ColorRole.Highlight)
            if selected
            else pal.color(QPalette.ColorRole.Mid)
        )
        painter.setPen(QPen(edge, 2 if selected else 1))
        painter.drawPath(path)
        colour = swatch_colour(rec)
        if colour is not None:
            painter.fillRect(QRect(rect.left() + 1, rect.top() + 8, 5, rect.height() - 16), colour)
        text_rect = rect.adjusted(11, 8, -6, -8)  # past the colour stripe (CARD_PADDING)
        title_font = card_title_font(option.font)
        painter.setFont(title_font)
        painter.setPen(pal.color(QPalette.ColorRole.Text))
        line = painter.fontMetrics().height()
        title = painter.fontMetrics().elidedText(
            rec.title(asset), Qt.TextElideMode.ElideRight, text_rect.width()
        )
        painter.drawText(text_rect.left(), text_rect.top() + line, title)
        painter.setFont(option.font)
        fm = painter.fontMetrics()
        y = text_rect.top() + line + 4
        body = [f"{k}: {value_text(v)}" for k, v in rec.values.items()][1:5]
        for text in body:
            y += fm.height()
            painter.drawText(
                text_rect.left(),
                y,
                fm.elidedText(text, Qt.TextElideMode.ElideRight, text_rect.width()),
            )
        owner = f"owner {rec.owner_label} · {rec.organization}"
        if self.me and rec.owner == self.me:
            owner += " (yours)"
        painter.setPen(pal.color(QPalette.ColorRole.PlaceholderText))
        painter.drawText(
            text_rect.left(),
            text_rect.bottom(),
            fm.elidedText(owner, Qt.TextElideMode.ElideRight, text_rect.width()),
        )
        painter.restore()


def card_title_font(base: QFont) -> QFont:
    font = QFont(base)
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() * 1.1)
    return font


class CardGallery(QListView):
    """The cards as a wrapping grid whose columns fill the width (no wide empty margin on a
    small screen, no tiny cards on a large one)."""

    def resizeEvent(self, event: QResizeEvent) -> None:
        delegate = self.itemDelegate()
        if isinstance(delegate, AssetCardDelegate):
            gap = 2 * self.spacing()
            # the event gives the viewport's size; the scroll bar's room is kept either way,
            # so the bar appearing or going changes nothing
            bar = self.verticalScrollBar()
            room = event.size().width() - (0 if bar.isVisible() else bar.sizeHint().width())
            title = QFontMetrics(card_title_font(self.font())).horizontalAdvance(TITLE_SAMPLE)
            least = max(CARD_MIN_WIDTH, title + CARD_PADDING + 2)
            columns = max(1, room // (least + gap))
            width = max(least, min(room // columns - gap, CARD.width() * 3 // 2))
            if width != delegate.card.width():
                delegate.card = QSize(width, CARD.height())
                self.scheduleDelayedItemsLayout()
        super().resizeEvent(event)
