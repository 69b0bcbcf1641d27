"""The message bar: the one place errors and notices appear in the window (non-modal, the latest
message with the action that helps, a history of the last ones)."""

from __future__ import annotations

from collections import deque
from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from app.ui.widgets.common import name_widget

MAX_MESSAGES = 200


class MessageBar(QFrame):
    """The one place errors and notices appear: non-modal, latest message, with an action."""

    action_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messageBar")
        self.setAccessibleName("Messages")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._pending_action = ""
        self.text = QLabel(self)
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        name_widget(self.text, "messageText", "Message")
        self.action = QPushButton(self)
        name_widget(self.action, "messageAction", "Message action")
        self.action.clicked.connect(lambda: self.action_requested.emit(self._pending_action))
        self.close_button = QPushButton("Dismiss", self)
        name_widget(self.close_button, "messageDismiss", "Dismiss the message")
        self.close_button.clicked.connect(self.hide)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 8, 4)
        lay.addWidget(self.text, 1)
        lay.addWidget(self.action)
        lay.addWidget(self.close_button)
        self.history: deque[tuple[str, str, str]] = deque(maxlen=MAX_MESSAGES)
        self.topic = ""
        self.hide()

    def clear_topic(self, topic: str) -> None:
        """Hide the message shown if it is about ``topic`` (what it said is over)."""
        if self.isVisible() and self.topic == topic:
            self.hide()

    def show_message(
        self, level: str, title: str, text: str, action: str = "", topic: str = ""
    ) -> None:
        """``topic`` names what the message is about ("node": the node did not answer,
        "sandbox": the embedded node stopped), for :meth:`clear_topic`."""
        self.history.append((level, title, text))
        self.topic = topic
        icon = {"error": "✘", "warning": "⚠", "info": "i"}.get(level, "")
        self.text.setText(f"{icon} <b>{_esc(title)}</b>: {_esc(text)}")
        self.setProperty("level", level)
        colour = {"error": "#c0392b", "warning": "#b7791f"}.get(level, "#2b6cb0")
        self.setStyleSheet(f"#messageBar {{ border: 1px solid {colour}; border-radius: 4px; }}")
        self._pending_action = action
        self.action.setVisible(bool(action))
        self.action.setText({"sign-in": "Sign in…", "restart": "Restart sandbox"}.get(action, ""))
        self.show()


def _esc(s: str) -> str:
    return escape(s, quote=False).replace("\n", "<br>")
