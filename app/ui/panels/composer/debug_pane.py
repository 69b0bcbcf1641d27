"""The Debug dock of the composer: the run's buttons, the call stack, the watches, the variables
and an evaluate box, in a window dock (movable, closable, reopened from View > Debugger, its
place kept with the window's state) that shows itself when a debug run starts.

Docked at the bottom (where it first goes) the stack, watches and variables stand side by side
so each keeps the dock's full height on a small screen; docked at a side they stack up.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QDockWidget,
    QGridLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMainWindow,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.services.tasks import TaskRegistry
from app.ui.panels.composer.debug_models import StackModel
from app.ui.panels.composer.debug_watches import WatchList
from app.ui.widgets.common import name_widget

BUTTONS = (
    ("continue", "Continue", "F5"),
    ("next", "Step over", "F10"),
    ("stepIn", "Step in", "F11"),
    ("stepOut", "Step out", "Shift+F11"),
    ("stop", "Stop", "Shift+F5"),
)


class DebugPane(QWidget):
    """The call stack (a list model), the watches, the variables (a lazy tree), the run's
    output and an evaluate box."""

    def __init__(self, tasks: TaskRegistry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("debugPane")
        self.status = QLabel(
            "Press Debug on the Call or Deploy tab, or on a test of the Tests view, to step "
            "through it.",
            self,
        )
        self.status.setObjectName("debugStatus")
        self.status.setWordWrap(True)
        self.buttons: dict[str, QPushButton] = {}
        self.controls = QGridLayout()  # one row in a wide dock, two in a narrow one
        self.controls.setContentsMargins(0, 0, 0, 0)
        for action, text, keys in BUTTONS:
            b = QPushButton(text, self)
            name_widget(b, f"debug_{action}", f"{text} ({keys})")
            b.setToolTip(f"{text} ({keys})")
            b.setEnabled(False)
            self.buttons[action] = b
        self.pause_on_failure = QCheckBox("Pause on failure", self)
        self.pause_on_failure.setChecked(True)
        name_widget(self.pause_on_failure, "debugPauseOnFailure", "Pause where a call fails")
        self.pause_on_failure.setToolTip(
            "Stop where a require, revert or runtime failure fires that no try/catch up the "
            "stack catches, before the frame unwinds"
        )
        self._place_controls(wide=True)
        self.stack_model = StackModel(self)
        self.stack = QListView(self)
        self.stack.setModel(self.stack_model)
        name_widget(self.stack, "debugStack", "Call stack")
        self.variables = QTreeView(self)
        name_widget(self.variables, "debugVariables", "Variables")
        self.variables.setAlternatingRowColors(True)
        self.variables.header().setStretchLastSection(True)
        self.evaluate = QLineEdit(self)
        self.evaluate.setPlaceholderText("evaluate a SolidVM expression in the selected frame")
        name_widget(self.evaluate, "debugEvaluate", "Evaluate")
        self.log = QTextBrowser(self)
        name_widget(self.log, "debugOutput", "Debug output")
        self.watches = WatchList(tasks, self)
        # the variables with the run's output under them, the evaluate box last
        values = QSplitter(Qt.Orientation.Vertical, self)
        values.setObjectName("debugValuesSplit")
        values.addWidget(_titled("Variables", self.variables, self))
        values.addWidget(self.log)
        values.setStretchFactor(0, 4)
        values.setStretchFactor(1, 1)
        line = self.fontMetrics().lineSpacing()
        self.log.setMaximumHeight(line * 5)
        self.log.setMinimumHeight(max(line * 3, 48))
        values.setSizes([line * 16, line * 3])  # the variables first (a short dock)
        values.setChildrenCollapsible(False)
        right = QWidget(self)
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(values, 1)
        rl.addWidget(self.evaluate)
        self.split = QSplitter(Qt.Orientation.Horizontal, self)
        self.split.setObjectName("debugSplit")
        self.split.addWidget(_titled("Call stack", self.stack, self))
        self.split.addWidget(_titled("Watches", self.watches, self))
        self.split.addWidget(right)
        self.split.setChildrenCollapsible(False)
        for i, stretch in enumerate((2, 2, 3)):
            self.split.setStretchFactor(i, stretch)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 4)
        lay.setSpacing(3)
        lay.addLayout(self.controls)
        lay.addWidget(self.status)
        lay.addWidget(self.split, 1)

    def set_paused(self, paused: bool, active: bool) -> None:
        for action, b in self.buttons.items():
            b.setEnabled(active if action == "stop" else paused)
        self.evaluate.setEnabled(paused)

    def set_side_by_side(self, side_by_side: bool) -> None:
        """Columns in a wide dock (bottom, top, floating), rows in a tall one (left, right),
        whose buttons take two rows (the dock stays narrow)."""
        wanted = Qt.Orientation.Horizontal if side_by_side else Qt.Orientation.Vertical
        if self.split.orientation() != wanted:
            self.split.setOrientation(wanted)
            self._place_controls(wide=side_by_side)

    def _place_controls(self, wide: bool) -> None:
        grid = self.controls
        for w in [*self.buttons.values(), self.pause_on_failure]:
            grid.removeWidget(w)
        for c in range(grid.columnCount()):
            grid.setColumnStretch(c, 0)
        per_row = len(self.buttons) if wide else 3
        for i, b in enumerate(self.buttons.values()):
            grid.addWidget(b, i // per_row, i % per_row)
        if wide:
            grid.setColumnStretch(per_row, 1)
            grid.addWidget(self.pause_on_failure, 0, per_row + 1)
        else:
            grid.addWidget(self.pause_on_failure, 1, 2, 1, 2)
            grid.setColumnStretch(per_row, 1)


class DebugDock(QDockWidget):
    """The window's Debug dock; the composer's debugger owns its pane."""

    def __init__(self, pane: DebugPane, parent: QWidget | None = None) -> None:
        super().__init__("Debug", parent)
        self.setObjectName("debugDock")
        self.pane = pane
        self.setWidget(pane)
        self.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetClosable
            | QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
        )
        self.first_show_sizing = True  # off once the window restored a state that shows it
        self.dockLocationChanged.connect(self._located)
        self.topLevelChanged.connect(lambda _f: self._located())
        self.visibilityChanged.connect(self._shown)

    def _located(self, _area: object = None) -> None:
        window = self.parentWidget()
        if self.isFloating() or not isinstance(window, QMainWindow):
            self.pane.set_side_by_side(True)
            return
        area = window.dockWidgetArea(self)
        sides = (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea)
        self.pane.set_side_by_side(area not in sides)

    def _shown(self, visible: bool) -> None:
        """The first time it shows docked at the top or bottom: about 40 % of the window's
        height (room for a dozen rows of watches), not the strip a new dock gets."""
        if not visible or not self.first_show_sizing:
            return
        self.first_show_sizing = False
        window = self.parentWidget()
        if self.isFloating() or not isinstance(window, QMainWindow):
            return
        area = window.dockWidgetArea(self)
        if area in (Qt.DockWidgetArea.BottomDockWidgetArea, Qt.DockWidgetArea.TopDockWidgetArea):
            target = dock_height(window.height(), self.fontMetrics().lineSpacing())
            QTimer.singleShot(
                0, self, lambda: window.resizeDocks([self], [target], Qt.Orientation.Vertical)
            )

    def dock_into(self, window: QMainWindow, beside: QDockWidget) -> QAction:
        """Docked at the bottom of ``window``, tabbed with ``beside``, hidden until a run
        starts; the View menu's action that shows and hides it."""
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self)
        window.tabifyDockWidget(beside, self)
        self.hide()
        action = self.toggleViewAction()
        action.setText("Debugger")
        action.setObjectName("actionDebugger")
        action.setShortcut(QKeySequence("Ctrl+Shift+Y"))
        return action

    def reveal(self) -> None:
        """Shown and in front (a run starts)."""
        self.show()
        self.raise_()


def dock_height(window_height: int, line_height: int) -> int:
    """The dock's first height: 40 % of the window, at most 24 lines of text."""
    return max(min(window_height * 2 // 5, line_height * 24), line_height * 12)


def _titled(title: str, body: QWidget, parent: QWidget) -> QWidget:
    """``body`` under a small bold title (the columns say what they show)."""
    box = QWidget(parent)
    lay = QVBoxLayout(box)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.setSpacing(1)
    label = QLabel(f"<b>{title}</b>", box)
    label.setBuddy(body)
    lay.addWidget(label)
    lay.addWidget(body, 1)
    return box
