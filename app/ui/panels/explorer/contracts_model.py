"""Tree models of the Contracts view: contract names -> instances, and an instance's state
(mappings and arrays read a page at a time, when asked)."""

from __future__ import annotations

import json
import time
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)

from app.services.explorer_contracts import (
    STATE_PAGE,
    ExplorerContractsService,
    Instance,
    StateVar,
)
from app.services.tasks import TaskRegistry

from .pacing import OwnedTasks

Index = QModelIndex | QPersistentModelIndex
CHUNK = 200  # instances of one name shown per expansion step
INSTANCE_ROLE = Qt.ItemDataRole.UserRole + 1
MORE_ROLE = Qt.ItemDataRole.UserRole + 2
DISPLAY = Qt.ItemDataRole.DisplayRole
TOOLTIP = Qt.ItemDataRole.ToolTipRole


def short(address: str) -> str:
    return f"{address[:8]}…{address[-4:]}" if len(address) > 14 else address


def when(ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ms / 1000)) if ms > 0 else ""


def value_text(v: Any, limit: int = 300) -> str:
    """A state value in one line: strings as they are, structures as compact JSON."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        text = v
    elif isinstance(v, int | float):
        text = str(v)
    else:
        text = json.dumps(v, separators=(", ", ": "), ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class TwoLevelModel(QAbstractItemModel):
    """A tree of top rows and their children: a child's internal id is its parent's row + 1
    (0 marks a top row), so no per-row objects are needed. Shared by the contracts tree and the
    state tree."""

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, 0)
        return self.createIndex(row, column, parent.row() + 1)

    def parent(self, child: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not child.isValid() or child.internalId() == 0:
            return QModelIndex()
        return self.createIndex(child.internalId() - 1, 0, 0)


class ContractsModel(TwoLevelModel):
    """Contract names (top rows) and their instances (children, revealed a chunk at a time).

    The node sends every name and instance in one answer (``/bloc/v2.2/contracts``); rows of
    instances are made only when a name is expanded. Signals: ``loaded(int)`` names shown,
    ``failed(str)``."""

    loaded = Signal(int)
    failed = Signal(str)
    # a name's row counts its instances where an instance's row names its chain
    HEADERS = ("Contract / instance", "Instances / chain", "Created")

    def __init__(
        self,
        service: ExplorerContractsService,
        tasks: TaskRegistry | OwnedTasks,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.service = service
        self.tasks = tasks
        self._all: dict[str, list[Instance]] = {}
        self._names: list[str] = []
        self._kids: dict[str, list[Instance]] = {}  # the filtered instances of each name
        self._shown: dict[str, int] = {}
        self._filter = ""
        self._busy = False
        self._generation = 0
        self.loading = False

    # ------------------------------------------------------------ loading and filtering

    def reload(self) -> None:
        self._generation += 1
        gen = self._generation
        self.loading = True

        def done(data: dict[str, list[Instance]]) -> None:
            if gen == self._generation:
                self.loading = False
                self._all = data
                self._apply()

        def failed(text: str) -> None:
            if gen == self._generation:
                self.loading = False
                self.failed.emit(text)

        self.tasks.start("Reading the node's contracts", self.service.instances(), done, failed)

    def set_filter(self, text: str) -> None:
        self._filter = text.strip().lower().removeprefix("0x")
        self._apply()

    def _apply(self) -> None:
        f = self._filter
        self._busy = True  # a view may ask for children while the reset is announced
        self.beginResetModel()
        self._names, self._kids, self._shown = [], {}, {}
        for name, items in self._all.items():
            if not f or f in name.lower():
                kids = items
            else:
                kids = [i for i in items if i.address.lower().startswith(f)]
                if not kids:
                    continue
            self._names.append(name)
            self._kids[name] = kids
        self.endResetModel()
        self._busy = False
        self.loaded.emit(len(self._names))

    # ------------------------------------------------------------ lookups

    def names(self) -> list[str]:
        return list(self._names)

    def kids(self, name: str) -> list[Instance]:
        """The instances of ``name`` the filter keeps (all of them, shown or not yet)."""
        return list(self._kids.get(name, []))

    @property
    def totals(self) -> tuple[int, int]:
        """Contract names and instances the node listed (before the filter)."""
        return len(self._all), sum(len(v) for v in self._all.values())

    @property
    def filtered(self) -> bool:
        return bool(self._filter)

    def instance(self, index: Index) -> Instance | None:
        if not index.isValid() or index.internalId() == 0:
            return None
        name = self._names[index.internalId() - 1]
        return self._kids[name][index.row()]

    def name_index(self, name: str) -> QModelIndex:
        return self.index(self._names.index(name), 0) if name in self._names else QModelIndex()

    # ------------------------------------------------------------ model

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if not parent.isValid():
            return len(self._names)
        if parent.internalId() == 0 and parent.column() == 0:
            return self._shown.get(self._names[parent.row()], 0)
        return 0

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(self.HEADERS)

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        if not parent.isValid():
            return bool(self._names)
        if parent.internalId() == 0 and parent.column() == 0:
            return bool(self._kids[self._names[parent.row()]])
        return False

    def canFetchMore(self, parent: Index) -> bool:
        if self._busy or not parent.isValid() or parent.internalId() != 0:
            return False
        if parent.column() != 0:
            return False
        name = self._names[parent.row()]
        return self._shown.get(name, 0) < len(self._kids[name])

    def fetchMore(self, parent: Index) -> None:
        if not self.canFetchMore(parent):
            return
        name = self._names[parent.row()]
        have = self._shown.get(name, 0)
        more = min(CHUNK, len(self._kids[name]) - have)
        self._busy = True  # a view told of the insertion may ask again: not now
        self.beginInsertRows(parent, have, have + more - 1)
        self._shown[name] = have + more
        self.endInsertRows()
        self._busy = False

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = DISPLAY) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == DISPLAY:
            return self.HEADERS[section]
        return None

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        if not index.isValid():
            return None
        col = index.column()
        if index.internalId() == 0:
            name = self._names[index.row()]
            n = len(self._kids[name])
            if role == DISPLAY:
                if col == 0:
                    return name
                if col == 1:
                    return f"{n} instance{'s' if n != 1 else ''}"
                return ""
            if role == TOOLTIP and col == 0:
                return f"{name}: {n} instance{'s' if n != 1 else ''}"
            return None
        inst = self.instance(index)
        assert inst is not None
        if role == DISPLAY:
            if col == 0:
                return short(inst.address)
            if col == 1:
                return f"{inst.chain_id[:10]}…" if inst.chain_id else "main"
            block = f"block {inst.created_block}" if inst.created_block is not None else ""
            return "  ".join(x for x in (block, when(inst.created_ms)) if x)
        if role == TOOLTIP:
            return f"{inst.name} at {inst.address}" + (
                f" on chain {inst.chain_id}" if inst.chain_id else " (main chain)"
            )
        if role == INSTANCE_ROLE:
            return inst
        return None


class StateModel(TwoLevelModel):
    """An instance's state variables; a mapping's or array's entries are children, the first
    page read when it is expanded, the next ones when its last row ("more …") is activated."""

    failed = Signal(str)
    page_loaded = Signal(str, int)  # variable, entries now shown
    HEADERS = ("Variable / key", "Type", "Value")

    def __init__(
        self,
        service: ExplorerContractsService,
        tasks: TaskRegistry | OwnedTasks,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.service = service
        self.tasks = tasks
        self.instance: Instance | None = None
        self.vars: list[StateVar] = []
        self._entries: dict[int, list[tuple[str, Any]]] = {}
        self._more: dict[int, bool] = {}
        self._loading: set[int] = set()
        self._generation = 0

    def set_state(self, instance: Instance, variables: list[StateVar]) -> None:
        self.beginResetModel()
        self._generation += 1
        self.instance = instance
        self.vars = variables
        self._entries, self._more, self._loading = {}, {}, set()
        self.endResetModel()

    def variable_index(self, name: str) -> QModelIndex:
        for i, v in enumerate(self.vars):
            if v.name == name:
                return self.index(i, 0)
        return QModelIndex()

    def entries(self, name: str) -> list[tuple[str, Any]]:
        idx = self.variable_index(name)
        return list(self._entries.get(idx.row(), [])) if idx.isValid() else []

    def is_more_row(self, index: Index) -> bool:
        if not index.isValid() or index.internalId() == 0:
            return False
        var = index.internalId() - 1
        return index.row() >= len(self._entries.get(var, []))

    # ------------------------------------------------------------ paging

    def _has_more(self, var: int) -> bool:
        return self._more.get(var, True)

    def load_more(self, index: Index) -> None:
        """Read the next page of the collection ``index`` (a variable or its "more" row)."""
        if not index.isValid():
            return
        var = index.row() if index.internalId() == 0 else index.internalId() - 1
        v = self.vars[var]
        if not v.collection or var in self._loading or not self._has_more(var):
            return
        assert self.instance is not None
        self._loading.add(var)
        gen = self._generation
        offset = len(self._entries.get(var, []))

        def done(page: list[tuple[str, Any]]) -> None:
            if gen != self._generation:
                return
            self._add_page(var, page)  # still "loading": a view told of the rows may ask
            self._loading.discard(var)

        def failed(text: str) -> None:
            if gen == self._generation:
                self._loading.discard(var)
                self.failed.emit(text)

        self.tasks.start(
            f"Reading {v.name}",
            self.service.state_page(self.instance, v.name, offset, STATE_PAGE),
            done,
            failed,
        )

    def _add_page(self, var: int, page: list[tuple[str, Any]]) -> None:
        parent = self.index(var, 0)
        had = self._entries.get(var)
        have = len(had or [])
        v = self.vars[var]
        more = len(page) >= STATE_PAGE and (v.length is None or have + len(page) < v.length)
        if had is not None and self._has_more(var):  # drop the old "more" row
            self.beginRemoveRows(parent, have, have)
            self._more[var] = False
            self.endRemoveRows()
        new = len(page) + (1 if more else 0)
        if new:
            self.beginInsertRows(parent, have, have + new - 1)
        self._entries[var] = (had or []) + page
        self._more[var] = more
        if new:
            self.endInsertRows()
        self.page_loaded.emit(v.name, len(self._entries[var]))

    # ------------------------------------------------------------ model

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if not parent.isValid():
            return len(self.vars)
        if parent.internalId() != 0 or parent.column() != 0:
            return 0
        entries = self._entries.get(parent.row())
        if entries is None:
            return 0
        return len(entries) + (1 if self._has_more(parent.row()) else 0)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(self.HEADERS)

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        if not parent.isValid():
            return bool(self.vars)
        if parent.internalId() != 0 or parent.column() != 0:
            return False
        v = self.vars[parent.row()]
        if not v.collection:
            return False
        if parent.row() in self._entries:
            return self.rowCount(parent) > 0
        return v.length is None or v.length > 0

    def canFetchMore(self, parent: Index) -> bool:
        """Only the first page comes by itself (on expanding); later ones when asked."""
        if not parent.isValid() or parent.internalId() != 0 or parent.column() != 0:
            return False
        var = parent.row()
        return self.vars[var].collection and var not in self._entries and var not in self._loading

    def fetchMore(self, parent: Index) -> None:
        if self.canFetchMore(parent):
            self.load_more(parent)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = DISPLAY) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == DISPLAY:
            return self.HEADERS[section]
        return None

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        if not index.isValid() or role not in (DISPLAY, TOOLTIP, MORE_ROLE):
            return None
        col = index.column()
        if index.internalId() == 0:
            v = self.vars[index.row()]
            if role == MORE_ROLE:
                return False
            if col == 0:
                return v.name
            if col == 1:
                return v.type_text
            if v.error:
                return f"⚠ {v.error}"
            if v.collection:
                n = v.length
                shown = len(self._entries.get(index.row(), []))
                if n is None:
                    return f"{shown} entries read — expand to read" if shown else "expand to read"
                return f"{n:,} entries" + (f" ({shown:,} read)" if shown else "")
            return value_text(v.value, 300 if role == DISPLAY else 4000)
        var = index.internalId() - 1
        entries = self._entries.get(var, [])
        if index.row() >= len(entries):
            if role == MORE_ROLE:
                return True
            if col == 0:
                total = self.vars[var].length
                of = f" of {total:,}" if total is not None else ""
                return f"… {len(entries):,}{of} shown — activate to read {STATE_PAGE} more"
            return ""
        if role == MORE_ROLE:
            return False
        key, value = entries[index.row()]
        if col == 0:
            return key
        if col == 1:
            return ""
        return value_text(value, 300 if role == DISPLAY else 4000)
