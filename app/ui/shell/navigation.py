"""The navigation: the panels by name and icon, under section headers (Wallet, Build, Data,
Network), keyboard navigable.

Rows are *panel indices* (``window.panels``), whatever the order on screen, so
``setCurrentRow``/``currentRow``/``currentRowChanged``/``item(i).text()``/``addItem`` keep the
meaning they had when the navigation was a flat list (the tour, search's ``go_to``, tests and
tools rely on it). Headers are disabled items: arrow keys and clicks skip them.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt, Signal
from PySide6.QtGui import QFont, QMouseEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QStackedWidget,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from app.ui.shell.icons import icon

# the sections and, by title, the panels in each; a panel in none of them goes to "More"
GROUPS: dict[str, tuple[str, ...]] = {
    "Wallet": ("Account", "Assets"),
    "Build": ("Composer",),
    "Data": ("Tables", "Files"),
    "Network": ("Chains", "Dashboard", "Explorer"),
}
OTHER_GROUP = "More"
PANEL_ROLE = Qt.ItemDataRole.UserRole + 1
ICON_ROLE = Qt.ItemDataRole.UserRole + 2


class NavItem(QTreeWidgetItem):
    """A panel's entry; ``text()`` without a column, as the list items had."""

    def text(self, column: int = 0) -> str:
        return super().text(column)


class NavigationTree(QTreeWidget):
    """Signals: currentRowChanged(int): the panel index of the entry now current."""

    currentRowChanged = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderHidden(True)
        self.setColumnCount(1)
        self.setRootIsDecorated(False)
        self.setItemsExpandable(False)
        self.setIndentation(10)
        self.setUniformRowHeights(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._items: list[NavItem] = []
        self._headers: dict[str, QTreeWidgetItem] = {}
        self.currentItemChanged.connect(self._on_current)
        self.setItemDelegate(_HeaderDelegate(self))

    # -- the list API, by panel index

    def addItem(self, title: str, icon_name: str = "panel") -> NavItem:
        """Add the entry of the next panel (index ``count()``) under its section."""
        group = next((g for g, titles in GROUPS.items() if title in titles), OTHER_GROUP)
        header = self._header(group)
        item = NavItem([title])
        item.setData(0, PANEL_ROLE, len(self._items))
        item.setData(0, ICON_ROLE, icon_name)
        item.setToolTip(0, title)
        titles = GROUPS.get(group, ())
        rank = titles.index(title) if title in titles else len(titles)
        at = 0  # keep the order of GROUPS within a section
        for i in range(header.childCount()):
            child = header.child(i)
            if child is not None and _rank(child, titles) <= rank:
                at += 1
        header.insertChild(at, item)
        self._items.append(item)
        return item

    def count(self) -> int:
        return len(self._items)

    def item(self, row: int) -> NavItem:
        return self._items[row]

    def currentRow(self) -> int:
        item = self.currentItem()
        data = item.data(0, PANEL_ROLE) if item is not None else None
        return int(data) if data is not None else -1

    def setCurrentRow(self, row: int) -> None:
        if 0 <= row < len(self._items):
            self.setCurrentItem(self._items[row])

    def visual_order(self) -> list[int]:
        """The panel indices from top to bottom (what Ctrl+1, Ctrl+2 … select)."""
        rows: list[int] = []
        for g in range(self.topLevelItemCount()):
            header = self.topLevelItem(g)
            for i in range(header.childCount() if header is not None else 0):
                child = header.child(i) if header is not None else None
                if child is not None:
                    rows.append(int(child.data(0, PANEL_ROLE)))
        return rows

    def sections(self) -> dict[str, list[str]]:
        """Section header -> the panel titles under it, as shown."""
        found: dict[str, list[str]] = {}
        for g in range(self.topLevelItemCount()):
            header = self.topLevelItem(g)
            if header is not None:
                found[header.text(0)] = [
                    child.text(0)
                    for i in range(header.childCount())
                    if (child := header.child(i)) is not None
                ]
        return found

    def section_header(self, group: str) -> QTreeWidgetItem | None:
        """The header item of a section (``"Build"``), if it has panels."""
        return self._headers.get(group)

    def group_of(self, row: int) -> str:
        parent = self._items[row].parent()
        return parent.text(0) if parent is not None else ""

    def apply_icons(self) -> None:
        """(Re)draw the icons in the current palette's colours."""
        for item in self._items:
            item.setIcon(0, icon(str(item.data(0, ICON_ROLE))))

    def sizeHint(self) -> QSize:
        return QSize(self.preferred_width(), super().sizeHint().height())

    def preferred_width(self) -> int:
        """Wide enough for the longest name with its icon (and a scroll bar on a short screen)."""
        style = self.style()
        metric = QStyle.PixelMetric
        icon_width = style.pixelMetric(metric.PM_SmallIconSize, None, self)
        bar = style.pixelMetric(metric.PM_ScrollBarExtent, None, self)
        fm = self.fontMetrics()
        widest = max((fm.horizontalAdvance(i.text()) for i in self._items), default=60)
        return widest + icon_width + self.indentation() + 2 * self.frameWidth() + bar + 24

    # -- internals

    def _header(self, group: str) -> QTreeWidgetItem:
        header = self._headers.get(group)
        if header is None:
            header = QTreeWidgetItem([group.upper()])
            # enabled (a disabled item disables its children) but not selectable; the arrow
            # keys and clicks pass it by (moveCursor, mousePressEvent)
            header.setFlags(Qt.ItemFlag.ItemIsEnabled)
            font = QFont(self.font())
            font.setBold(True)
            font.setPointSizeF(max(font.pointSizeF() * 0.85, 7.0))
            header.setFont(0, font)
            header.setData(0, Qt.ItemDataRole.AccessibleTextRole, f"{group} section")
            order = [*list(GROUPS), OTHER_GROUP]
            at = sum(1 for g in self._headers if order.index(g) < order.index(group))
            self.insertTopLevelItem(at, header)
            header.setExpanded(True)
            self._headers[group] = header
        return header

    def _on_current(self, item: QTreeWidgetItem | None, previous: QTreeWidgetItem | None) -> None:
        data = item.data(0, PANEL_ROLE) if item is not None else None
        if data is not None:
            self.currentRowChanged.emit(int(data))
        elif item is not None and previous is not None and previous.data(0, PANEL_ROLE) is not None:
            self.setCurrentItem(previous)  # a header (typed-ahead to): stay on the panel

    def moveCursor(
        self, action: QAbstractItemView.CursorAction, modifiers: Qt.KeyboardModifier
    ) -> QModelIndex:
        """Arrow keys, Home, End, Page Up/Down: from panel to panel, over the headers."""
        index = super().moveCursor(action, modifiers)
        cursor = QAbstractItemView.CursorAction
        up = action in (cursor.MoveUp, cursor.MovePrevious, cursor.MovePageUp, cursor.MoveEnd)
        while index.isValid() and index.data(PANEL_ROLE) is None:
            following = self.indexAbove(index) if up else self.indexBelow(index)
            if not following.isValid():
                return self.currentIndex()
            index = following
        return index

    def mousePressEvent(self, event: QMouseEvent) -> None:
        index = self.indexAt(event.position().toPoint())
        if index.isValid() and index.data(PANEL_ROLE) is None:
            event.accept()  # a header: nothing to select
            return
        super().mousePressEvent(event)


class _HeaderDelegate(QStyledItemDelegate):
    """Section headers in the palette's placeholder colour, read when painted: right in either
    theme, with no re-tint."""

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        if index.data(PANEL_ROLE) is None:
            palette = QPalette(option.palette)
            palette.setColor(
                QPalette.ColorRole.Text, palette.color(QPalette.ColorRole.PlaceholderText)
            )
            option.palette = palette


def _rank(item: QTreeWidgetItem, titles: tuple[str, ...]) -> int:
    title = item.text(0)
    return titles.index(title) if title in titles else len(titles)


class PanelStack(QStackedWidget):
    """The panels; sized by the panel shown, not by the largest one (inside a scroll area)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.currentChanged.connect(lambda _i: self.updateGeometry())

    def minimumSizeHint(self) -> QSize:
        current = self.currentWidget()
        return current.minimumSizeHint() if current is not None else super().minimumSizeHint()

    def sizeHint(self) -> QSize:
        current = self.currentWidget()
        return current.sizeHint() if current is not None else super().sizeHint()
