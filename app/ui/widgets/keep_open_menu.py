"""A menu of check boxes that stays open while they are ticked (Columns & joins: a menu that
closed after every tick made choosing five columns five trips to the button), and a combo box
searched by any part of its items (a table's 40 columns), and a stack of editors that keeps
one height whichever page is in front (the buttons under it stay put)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QComboBox, QCompleter, QMenu, QStackedWidget

TICK_KEYS = (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter)


class KeepOpenMenu(QMenu):
    """A click, Space or Enter on a checkable action toggles it and leaves the menu open;
    other actions, Esc and a click outside close it as usual."""

    @staticmethod
    def _tickable(action: QAction | None) -> bool:
        return action is not None and action.isCheckable() and action.isEnabled()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        action = self.actionAt(event.position().toPoint())
        if self._tickable(action):
            assert action is not None
            action.trigger()
            return
        super().mouseReleaseEvent(event)

    def set_ticks(self, ticks: dict[str, bool]) -> None:
        """Tick the actions named (object names) as given, silently: the actions are kept,
        so the open menu neither jumps nor loses the action being clicked."""
        for act in self.actions():
            want = ticks.get(act.objectName())
            if want is not None and act.isChecked() != want:
                act.blockSignals(True)
                act.setChecked(want)
                act.blockSignals(False)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        action = self.activeAction()
        if event.key() in TICK_KEYS and self._tickable(action):
            assert action is not None
            action.trigger()
            return
        super().keyPressEvent(event)


def make_searchable(combo: QComboBox, rows: int = 20) -> None:
    """An editable combo box whose typed text finds items containing it, any case, in a
    list of up to ``rows`` rows; typed text is not added as an item."""
    combo.setEditable(True)
    combo.setMaxVisibleItems(rows)
    combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
    finder = QCompleter(combo.model(), combo)
    finder.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
    finder.setFilterMode(Qt.MatchFlag.MatchContains)
    finder.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
    finder.setMaxVisibleItems(rows)
    combo.setCompleter(finder)


class SteadyHeight(QObject):
    """Holds a stacked widget at the height of its tallest page at its current width (a
    wrapped hint on one page, a row of fields on another): switching pages moves nothing
    below it. Refitted when the stack is resized."""

    def __init__(self, stack: QStackedWidget) -> None:
        super().__init__(stack)
        self.stack = stack
        stack.installEventFilter(self)
        self.fit()

    def fit(self) -> None:
        width = max(self.stack.width(), 1)
        tallest = 0
        for i in range(self.stack.count()):
            page = self.stack.widget(i)
            if page is None:
                continue
            lay = page.layout()
            if page.hasHeightForWidth():
                h = page.heightForWidth(width)
            elif lay is not None and lay.hasHeightForWidth():
                h = lay.totalHeightForWidth(width)
            else:
                h = page.sizeHint().height()
            tallest = max(tallest, h, page.minimumSizeHint().height())
        if tallest > 0 and self.stack.height() != tallest:
            self.stack.setFixedHeight(tallest)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.stack and event.type() == QEvent.Type.Resize:
            self.fit()
        return False
