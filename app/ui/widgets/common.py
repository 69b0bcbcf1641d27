"""Small reusable widgets: a copyable value field and a QR code view."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import shiboken6
from PySide6.QtCore import QObject, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication, QPainter, QPaintEvent, QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLineEdit,
    QSizePolicy,
    QToolButton,
    QToolTip,
    QWidget,
)

T = TypeVar("T")


def while_alive(widget: QObject, fn: Callable[[T], object]) -> Callable[[T], None]:
    """``fn``, skipped once ``widget`` is deleted (a task may finish after its dialog closed)."""

    def call(arg: T) -> None:
        if shiboken6.isValid(widget):
            fn(arg)

    return call


def file_dialog(
    parent: QWidget,
    title: str,
    name_filter: str,
    on_selected: Callable[[str], object],
    *,
    save_suffix: str = "",
    directory: str = "",
) -> QFileDialog:
    """A file dialog opened with ``open()`` (never ``exec()``): choosing a file calls
    ``on_selected``; with ``save_suffix`` it asks where to save, else for an existing file."""
    dialog = QFileDialog(parent, title, directory, name_filter)
    if save_suffix:
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setDefaultSuffix(save_suffix)
    else:
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
    dialog.fileSelected.connect(on_selected)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


def copy_text(text: str, source: QWidget | None = None, what: str = "Value") -> None:
    """Put ``text`` on the clipboard and say so next to the widget that asked."""
    QGuiApplication.clipboard().setText(text)
    if source is not None:
        pos = source.mapToGlobal(QPoint(0, source.height()))
        QToolTip.showText(pos, f"{what} copied to the clipboard", source)


def name_widget(widget: QWidget, object_name: str, accessible: str) -> QWidget:
    """Give a widget the object name tests and scripts use and the name screen readers say."""
    widget.setObjectName(object_name)
    widget.setAccessibleName(accessible)
    return widget


class ReadsWhenShown(QWidget):
    """A panel that reads from the node only while it is on screen, so that start-up and
    hidden panels cost no requests: a change while hidden marks it stale, and showing it reads
    again. ``read`` is the panel's own reading (it clears ``_stale`` when it reads)."""

    def __init__(self, read: Callable[[], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.read_shown = read
        self._stale = True  # nothing read yet

    def mark_stale(self, *_args: object) -> None:
        """Something the panel shows changed (the user, the node's data): read it again now if
        the panel is on screen, else when it is next shown."""
        self._stale = True
        if self.isVisible():
            self.read_shown()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.read_shown()


class CopyField(QWidget):
    """A read-only value (address, key, hash) with a copy button; long values elide in the
    middle of the line edit but are copied whole."""

    def __init__(self, object_name: str, label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = label
        self.edit = QLineEdit(self)
        self.edit.setReadOnly(True)
        self.edit.setPlaceholderText("—")
        name_widget(self.edit, object_name, label)
        self.button = QToolButton(self)
        self.button.setText("Copy")
        self.button.setToolTip(f"Copy the {label.lower()}")
        self.button.setEnabled(False)
        name_widget(self.button, f"{object_name}Copy", f"Copy {label.lower()}")
        self.button.clicked.connect(self.copy)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.edit, 1)
        lay.addWidget(self.button)

    def set_value(self, value: str | None) -> None:
        self.edit.setText(value or "")
        self.edit.setCursorPosition(0)
        self.edit.setToolTip(value or "")
        self.button.setEnabled(bool(value))

    def value(self) -> str:
        return self.edit.text()

    def copy(self) -> None:
        if self.value():
            copy_text(self.value(), self.button, self.label)


class QrCodeView(QWidget):
    """Paints a QR code of a short text (an address) at any size, quiet zone included."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._modules: list[list[bool]] = []
        self.text = ""
        self.setMinimumSize(120, 120)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        name_widget(self, "accountQrCode", "QR code of the account address")

    def sizeHint(self) -> QSize:
        return QSize(168, 168)

    def set_text(self, text: str | None) -> None:
        if (text or "") == self.text and (self._modules or not self.text):
            return  # the panel refreshes on every block; the code only changes with the address
        self.text = text or ""
        if self.text:
            import segno  # ~3 ms per address; loaded on first use

            qr = segno.make(self.text, error="m")
            self._modules = [[bool(v) for v in row] for row in qr.matrix]
        else:
            self._modules = []
        self.setToolTip(self.text)
        self.update()

    @property
    def module_count(self) -> int:
        return len(self._modules)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        side = min(self.width(), self.height())
        painter.fillRect(QRect(0, 0, side, side), Qt.GlobalColor.white)
        n = len(self._modules)
        if not n:
            painter.setPen(Qt.GlobalColor.gray)
            painter.drawText(QRect(0, 0, side, side), Qt.AlignmentFlag.AlignCenter, "no address")
            return
        quiet = 4
        cell = side / (n + 2 * quiet)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(Qt.GlobalColor.black)
        for y, row in enumerate(self._modules):
            for x, dark in enumerate(row):
                if dark:
                    painter.drawRect(
                        QRect(
                            round((x + quiet) * cell),
                            round((y + quiet) * cell),
                            max(1, round(cell + 0.5)),
                            max(1, round(cell + 0.5)),
                        )
                    )
        painter.end()
