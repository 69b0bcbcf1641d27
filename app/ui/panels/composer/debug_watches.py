"""The Debug dock's watches: SolidVM expressions evaluated again in the selected frame at every
stop (and when another frame is chosen), each with its typed value or its error.

The list owns no session: the debugger gives it a way to evaluate (:attr:`evaluate`) and tells
it when to refresh; answers of an older pause are dropped (the run went on meanwhile).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLineEdit,
    QMenu,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.services.tasks import TaskRegistry
from app.ui.widgets.common import name_widget, while_alive

Evaluate = Callable[[str, int], Coroutine[Any, Any, dict[str, Any]]]
NOT_PAUSED = "(not paused)"


class WatchList(QWidget):
    """An entry line (Enter adds a watch) above the watches (Delete or the menu removes one).

    Signal: changed(list): the expressions after one was added or removed (they are kept
    with the composer's workspace)."""

    changed = Signal(list)

    def __init__(self, tasks: TaskRegistry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tasks = tasks
        self.evaluate: Evaluate | None = None
        self.frame = 0  # the frame evaluated in (0: not paused)
        self.pause_no = 0
        self.entry = QLineEdit(self)
        self.entry.setPlaceholderText("add a watch: a SolidVM expression, Enter")
        name_widget(self.entry, "debugWatchEntry", "Add a watch")
        self.entry.returnPressed.connect(self._add_entered)
        self.tree = QTreeWidget(self)
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["Watch", "Value"])
        self.tree.setRootIsDecorated(False)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        name_widget(self.tree, "debugWatches", "Watches")
        self.tree.installEventFilter(self)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(
            lambda pos: self._menu().exec(self.tree.viewport().mapToGlobal(pos))
        )
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.entry)
        lay.addWidget(self.tree, 1)

    # ------------------------------------------------------------ the list

    def items(self) -> list[QTreeWidgetItem]:
        out = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [item for item in out if item is not None]

    def expressions(self) -> list[str]:
        return [item.text(0) for item in self.items()]

    def value_of(self, expression: str) -> str | None:
        return next((i.text(1) for i in self.items() if i.text(0) == expression), None)

    def add(self, expression: str) -> None:
        expression = expression.strip()
        if not expression or expression in self.expressions():
            return
        item = QTreeWidgetItem([expression, ""])
        self.tree.addTopLevelItem(item)
        self._refresh_item(item)
        self.changed.emit(self.expressions())

    def set_expressions(self, expressions: list[str]) -> None:
        """The watches kept with the workspace, back (no ``changed``: nothing new to keep)."""
        self.tree.clear()
        for e in expressions:
            if e.strip() and e.strip() not in self.expressions():
                item = QTreeWidgetItem([e.strip(), ""])
                self.tree.addTopLevelItem(item)
                self._refresh_item(item)

    def remove_selected(self) -> None:
        item = self.tree.currentItem()
        if item is not None:
            self.tree.takeTopLevelItem(self.tree.indexOfTopLevelItem(item))
            self.changed.emit(self.expressions())

    def _add_entered(self) -> None:
        self.add(self.entry.text())
        self.entry.clear()

    def _menu(self) -> QMenu:
        menu = QMenu(self)
        remove = menu.addAction("Remove watch", self.remove_selected)
        remove.setEnabled(self.tree.currentItem() is not None)
        return menu

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.tree and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
                self.remove_selected()
                return True
        return super().eventFilter(watched, event)

    # ------------------------------------------------------------ values

    def refresh(self, frame: int, pause_no: int) -> None:
        """A stop (or another frame chosen): every watch again, in ``frame``."""
        self.frame, self.pause_no = frame, pause_no
        for item in self.items():
            self._refresh_item(item)

    def running(self, pause_no: int) -> None:
        """The run goes on or ended: the values are of no pause now."""
        self.frame, self.pause_no = 0, pause_no
        for item in self.items():
            item.setText(1, NOT_PAUSED)

    def _refresh_item(self, item: QTreeWidgetItem) -> None:
        if self.evaluate is None or self.frame == 0:
            item.setText(1, NOT_PAUSED)
            return
        now, expression = self.pause_no, item.text(0)

        def show(text: str) -> None:
            if now == self.pause_no and self.tree.indexOfTopLevelItem(item) >= 0:
                item.setText(1, text)
                item.setToolTip(1, text)

        def done(r: dict[str, Any]) -> None:
            show(f"{r.get('type', '')} {r.get('result', '')}".strip())

        item.setText(1, "…")
        self.tasks.start(
            f"Watch {expression}",
            self.evaluate(expression, self.frame),
            on_done=while_alive(self, done),
            on_error=while_alive(self, lambda e: show(f"✘ {e}")),
        )
