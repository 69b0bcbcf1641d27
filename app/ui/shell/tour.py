"""The guided tour: a small non-modal window that selects each panel of the main window in turn,
frames it, and says in a sentence what it is for; Back, Next and Close.

The steps come from ``window.panels`` (by their ``title``), so a panel added later gets a step
too: its ``tour_text`` attribute when it has one, else a generic sentence. A last step points at
the toolbar. F1 in the main window starts the tour again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QCloseEvent, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.widgets.common import name_widget

if TYPE_CHECKING:
    from app.ui.shell.main_window import MainWindow

PANEL_TEXT = {
    "Account": (
        "Who you act as: address and public key (with copy buttons and a QR code), balance, "
        "identity certificate, the faucet and your recent transactions. Switch user with "
        "<i>Act as</i> in the toolbar (Ctrl+U); try dave to see a user without an identity."
    ),
    "Composer": (
        "Write or open a contract (<i>Samples…</i> has the demo contracts), compile it, deploy it "
        "with a typed editor per constructor argument, and call functions of deployed "
        "contracts. Every write shows the exact request for confirmation first; "
        "<i>● Record</i> turns what you send into a replayable scenario."
    ),
    "Tables": (
        "Cirrus, STRATO's index of every contract: pick a table (the demo app CarDemo's cars "
        "are one), build filters, sort, join related tables, save queries and export CSV or "
        "JSON. Click a row for its contract, history and transactions."
    ),
    "Chains": (
        "The private chains you can see, under the main chain: members, balances, governance "
        "contract, contracts and history. CarDemo keeps its data in a chain of its own; "
        "<i>New chain…</i> creates another."
    ),
    "Files": (
        "External storage: upload a file (its SHA-256 goes on chain), attest it as the current "
        "user, verify who signed it, and download it with a check against the hash on chain."
    ),
    "Dashboard": (
        "Live numbers and plots of the latest blocks and of the requests this app makes to the "
        "node."
    ),
    "Assets": (
        "The node's asset applications, CarDemo's cars among them: a gallery and a table with "
        "a filter, each asset's chain, members and history; create, update and transfer "
        "assets. Switch user to see who sees what."
    ),
}

FINAL_TEXT = (
    "The toolbar has the rest: <i>Connection…</i> (Ctrl+Shift+O) to reach a real STRATO node, "
    "the search box (Ctrl+G) to jump to a transaction, the <i>HTTP inspector</i> (Ctrl+I) with "
    "every request the app made, and the <i>Sandbox log</i> (Ctrl+L). Ctrl+1, Ctrl+2 … select "
    "the panels in the order of the list; every action is in the menus, with its shortcut. "
    "Press F1 to see this tour again."
)


@dataclass(frozen=True)
class TourStep:
    title: str
    text: str
    panel: int | None  # index into window.panels; None: the step selects no panel


def tour_steps(window: MainWindow) -> list[TourStep]:
    steps = []
    order = window.nav.visual_order()  # Ctrl+N is the N-th entry of the navigation
    for i, panel in enumerate(window.panels):
        n = order.index(i) + 1 if i in order else i + 1
        title = str(getattr(panel, "title", "") or panel.objectName() or f"Panel {i + 1}")
        own = getattr(panel, "tour_text", None)
        text = (
            own
            if isinstance(own, str) and own
            else PANEL_TEXT.get(
                title,
                f"The {title} panel. Open it any time from the list on the left"
                + (f" or with Ctrl+{n}." if n <= 9 else "."),
            )
        )
        steps.append(TourStep(title, text, i))
    steps.append(TourStep("Toolbar", FINAL_TEXT, None))
    return steps


class PanelHighlight(QFrame):
    """A frame drawn over a widget (mouse clicks go through to it), following its size."""

    def __init__(self, target: QWidget) -> None:
        super().__init__(target)
        self.setObjectName("tourHighlight")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        colour = target.palette().color(QPalette.ColorRole.Highlight).name()
        self.setStyleSheet(
            f"#tourHighlight {{ border: 3px solid {colour}; border-radius: 6px; "
            "background: transparent; }"
        )
        target.installEventFilter(self)
        self.setGeometry(target.rect())
        self.raise_()
        self.show()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and isinstance(watched, QWidget):
            self.setGeometry(watched.rect())
        return False


class GuidedTour(QDialog):
    """Signals: step_changed(int): the index of the step now shown."""

    step_changed = Signal(int)

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.setObjectName("guidedTour")
        self.setWindowTitle("Stratoscope tour")
        self.setModal(False)
        self.window_ = window
        self.steps = tour_steps(window)
        self.index = 0
        self.highlight: PanelHighlight | None = PanelHighlight(window.stack)

        self.heading = QLabel(self)
        name_widget(self.heading, "tourHeading", "Tour step")
        self.text = QLabel(self)
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setFixedWidth(420)  # the height follows each step's text
        name_widget(self.text, "tourText", "What this panel is for")
        self.back_button = QPushButton("Back", self)
        name_widget(self.back_button, "tourBack", "Previous step")
        self.back_button.clicked.connect(self.back)
        self.next_button = QPushButton("Next", self)
        name_widget(self.next_button, "tourNext", "Next step")
        self.next_button.setDefault(True)
        self.next_button.clicked.connect(self.next)
        self.close_button = QPushButton("Close", self)
        name_widget(self.close_button, "tourClose", "Close the tour")
        self.close_button.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addWidget(self.close_button)
        buttons.addStretch(1)
        buttons.addWidget(self.back_button)
        buttons.addWidget(self.next_button)
        lay = QVBoxLayout(self)
        lay.addWidget(self.heading)
        lay.addWidget(self.text, 1)
        lay.addLayout(buttons)
        lay.setSizeConstraint(QLayout.SizeConstraint.SetFixedSize)
        self.go(0)

    @property
    def current(self) -> TourStep:
        return self.steps[self.index]

    def go(self, index: int) -> None:
        self.index = max(0, min(index, len(self.steps) - 1))
        step = self.current
        if step.panel is not None:
            self.window_.nav.setCurrentRow(step.panel)
        if self.highlight is not None:
            self.highlight.setVisible(step.panel is not None)
            self.highlight.raise_()
        self.heading.setText(f"<b>{step.title}</b> — step {self.index + 1} of {len(self.steps)}")
        self.text.setText(step.text)
        self.back_button.setEnabled(self.index > 0)
        last = self.index == len(self.steps) - 1
        self.next_button.setText("Finish" if last else "Next")
        if self.isVisible():  # a longer or shorter text: keep the lower right corner in place
            corner = self.geometry().bottomRight()
            self.adjustSize()
            self.move(corner - QPoint(self.width() - 1, self.height() - 1))
        self.step_changed.emit(self.index)

    def next(self) -> None:
        if self.index == len(self.steps) - 1:
            self.close()
        else:
            self.go(self.index + 1)

    def back(self) -> None:
        self.go(self.index - 1)

    def place(self) -> None:
        """Beside the panels, in the lower right corner of the window, clear of the list."""
        scroll = getattr(self.window_, "panel_scroll", None)  # what is visible of the panel
        stack = scroll.viewport() if isinstance(scroll, QAbstractScrollArea) else self.window_.stack
        self.adjustSize()
        corner = stack.mapToGlobal(QPoint(stack.width(), stack.height()))
        self.move(corner - QPoint(self.width() + 24, self.height() + 24))

    def showEvent(self, event: QShowEvent) -> None:
        """Take the keyboard when shown: Enter goes on, Escape closes."""
        super().showEvent(event)
        self.raise_()
        self.activateWindow()
        self.next_button.setFocus(Qt.FocusReason.ActiveWindowFocusReason)

    def _drop_highlight(self) -> None:
        if self.highlight is not None:
            self.highlight.hide()
            self.highlight.deleteLater()
            self.highlight = None

    def closeEvent(self, event: QCloseEvent) -> None:
        self._drop_highlight()
        super().closeEvent(event)
        self.window_.activateWindow()  # the keyboard goes back to the window

    def done(self, result: int) -> None:  # Escape rejects without a close event
        self._drop_highlight()
        super().done(result)
        self.window_.activateWindow()


def start_tour(window: MainWindow) -> GuidedTour:
    """Show the tour from its first step (the one already open, if any)."""
    for tour in window.findChildren(GuidedTour):
        if tour.isVisible():
            tour.go(0)
            tour.raise_()
            tour.activateWindow()
            return tour
    tour = GuidedTour(window)
    tour.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    tour.show()
    tour.place()
    return tour
