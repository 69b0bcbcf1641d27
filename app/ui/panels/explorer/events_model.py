"""The Events feed as a lazy table model: rows come from an :class:`EventFeed` (the node's
event tables merged newest first) a page at a time, as the view scrolls."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)

from app.services.explorer_contracts import EventFeed, EventRow, ExplorerContractsService
from app.services.tasks import TaskRegistry

from .contracts_model import short, value_text
from .list_tools import Clock, exact, parse_time, relative
from .pacing import OwnedTasks

Index = QModelIndex | QPersistentModelIndex
PAGE = 100
ROW_ROLE = Qt.ItemDataRole.UserRole + 1
DISPLAY = Qt.ItemDataRole.DisplayRole


def arguments_text(args: dict[str, Any], limit: int = 200) -> str:
    """``name=value, …`` of an event's arguments, in the table's column order."""
    return value_text(", ".join(f"{k}={value_text(v, 80)}" for k, v in args.items()), limit)


class EventsModel(QAbstractTableModel):
    """Merged event rows; ``set_source`` picks the tables (and an instance's address).

    Signals: ``loading_changed(bool)``, ``failed(str)``, ``rows_loaded(int)`` (rows held)."""

    loading_changed = Signal(bool)
    failed = Signal(str)
    rows_loaded = Signal(int)
    HEADERS = ("Block", "Time", "Contract", "Event", "Arguments", "Address", "Transaction")

    def __init__(
        self,
        service: ExplorerContractsService,
        tasks: TaskRegistry | OwnedTasks,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.service = service
        self.tasks = tasks
        self.rows: list[EventRow] = []
        self.feed: EventFeed | None = None
        self.loading = False
        self.table_count = 0
        self.source: tuple[list[str], str] = ([], "")
        self._generation = 0
        Clock.shared().tick.connect(self._tick)  # "2 min ago" stays true

    def _tick(self) -> None:
        if self.rows:
            self.dataChanged.emit(self.index(0, 1), self.index(len(self.rows) - 1, 1), [DISPLAY])

    def set_source(self, tables: Iterable[str], address: str = "") -> None:
        """Start a new feed over ``tables`` and read its first page."""
        self.beginResetModel()
        self._generation += 1
        self.rows = []
        tables = list(tables)
        self.table_count = len(tables)
        self.source = (tables, address)  # what an export reads again
        self.feed = self.service.feed(tables, address) if tables else None
        self._set_loading(False)
        self.endResetModel()
        if self.feed is not None:
            self.fetchMore(QModelIndex())
        else:
            self.rows_loaded.emit(0)

    def clear(self) -> None:
        self.set_source([])

    def _set_loading(self, on: bool) -> None:
        if on != self.loading:
            self.loading = on
            self.loading_changed.emit(on)

    def event_at(self, row: int) -> EventRow | None:
        return self.rows[row] if 0 <= row < len(self.rows) else None

    # ------------------------------------------------------------ model

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def canFetchMore(self, parent: Index) -> bool:
        return (
            not parent.isValid()
            and self.feed is not None
            and not self.loading
            and not self.feed.exhausted
        )

    def fetchMore(self, parent: Index) -> None:
        if not self.canFetchMore(parent):
            return
        feed = self.feed
        assert feed is not None
        gen = self._generation
        self._set_loading(True)

        def done(page: list[EventRow]) -> None:
            if gen != self._generation:
                return
            if page:
                n = len(self.rows)
                self.beginInsertRows(QModelIndex(), n, n + len(page) - 1)
                self.rows.extend(page)
                self.endInsertRows()
            self._set_loading(False)
            self.rows_loaded.emit(len(self.rows))

        def failed(text: str) -> None:
            if gen == self._generation:
                self.feed = None  # a broken table: stop rather than ask again on every scroll
                self._set_loading(False)
                self.failed.emit(text)

        self.tasks.start("Reading events", feed.next(PAGE), done, failed)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = DISPLAY) -> Any:
        if role != DISPLAY:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section]
        return section + 1

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        r = self.rows[index.row()]
        if role == ROW_ROLE:
            return r
        col = index.column()
        if role == DISPLAY:
            if col == 0:
                return "" if r.block_number is None else str(r.block_number)
            if col == 1:
                return relative(parse_time(r.timestamp)) or r.timestamp.removesuffix(" UTC")
            if col == 2:
                return r.contract
            if col == 3:
                return r.event
            if col == 4:
                return arguments_text(r.args)
            if col == 5:
                return short(r.address)
            return short(r.tx_hash)
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == 1:
                return exact(parse_time(r.timestamp)) or r.timestamp
            if col == 4:
                return "\n".join(f"{k} = {value_text(v, 500)}" for k, v in r.args.items())
            if col == 5:
                return r.address
            if col == 6:
                return r.tx_hash
        if role == Qt.ItemDataRole.TextAlignmentRole and col == 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None
