"""The Assets panel's forms: create an asset, update some of its fields, transfer it.

Each form checks what is typed as it is typed (the reason beside *Review…*), then asks the panel
for the confirmation sheet with ``review_requested`` (the button, Enter, or Alt+S: the key that
sends on the sheet opens the sheet from the form, and never types an "s"). The form stays open
while the request runs, so a refusal by the node is shown in it, in words, with everything
typed kept.
"""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.client.assets import (
    SCHEME_ORDER_LABELS,
    SCHEME_ORDERS,
    AssetError,
    AssetField,
    AssetRecord,
    AssetType,
    SchemeOrder,
    parse_value,
    scheme_binary,
    scheme_bit,
)
from app.services.assets import UpdatePlan
from app.services.chains import Identity
from app.ui.panels.assets.models import value_text
from app.ui.widgets.common import name_widget

ADDRESS_RE = re.compile(r"^(0x)?[0-9a-fA-F]{40}$")
VIN_SAMPLE = "W" * 17  # a text entry shows a whole 17-character VIN, in the widest letters
ADDRESS_CHARS = 42  # 0x and 40 hex digits
SCREEN_RESERVE = 220  # the title bar, messages and buttons: the entries scroll in the rest


class FormScroll(QScrollArea):
    """Scrolls a form's entries; asks for the entries' current size (QScrollArea keeps the
    first one it saw, so a form whose notes come and go would keep a stale gap)."""

    def sizeHint(self) -> QSize:
        body = self.widget()
        if body is None:
            return super().sizeHint()
        frame = 2 * self.frameWidth()
        return body.sizeHint() + QSize(frame, frame)

    def setWidget(self, widget: QWidget) -> None:
        super().setWidget(widget)
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # a note shown inside the entries: the dialog's layout must hear of the new height
        # (a scroll area stops the news), then the dialog grows for it
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()
            form = self.parent()
            if isinstance(form, AssetForm):
                QTimer.singleShot(0, form, form.fit_height)
        return super().eventFilter(watched, event)


class AssetForm(QDialog):
    """A form with a problems line, an error line for the node's answer and *Review…*."""

    review_requested = Signal()

    def __init__(self, prefix: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"{prefix}Dialog")
        self.setAccessibleName(title)
        self.setWindowTitle(title)
        self.problems_label = QLabel("", self)
        self.problems_label.setWordWrap(True)
        name_widget(self.problems_label, f"{prefix}Problems", "Problems with the form")
        self.error = QLabel("", self)
        self.error.setWordWrap(True)
        name_widget(self.error, f"{prefix}Error", "The node's answer")
        self.buttons = QDialogButtonBox(self)
        self.review_button = QPushButton("Review…", self)
        name_widget(self.review_button, f"{prefix}Review", "Review the request")
        self.buttons.addButton(self.review_button, QDialogButtonBox.ButtonRole.ActionRole)
        cancel = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        name_widget(cancel, f"{prefix}Cancel", "Cancel")
        self.buttons.rejected.connect(self.reject)
        self.review_button.clicked.connect(self._review)
        self.review_button.setDefault(True)  # Enter in an entry reviews
        self.review_button.setToolTip(
            "Show the exact request before anything is sent (Enter, Alt+S)"
        )
        # Alt+S sends on the sheet; in the form it opens the sheet (it used to type an "s")
        self.review_key = QShortcut(QKeySequence("Alt+S"), self)
        self.review_key.activated.connect(self.review_from_keyboard)
        self.busy = False
        # the messages take the height they need and never squeeze the entries: the dialog
        # grows for them, and where the screen is too small the entries scroll
        for label in (self.problems_label, self.error):
            label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
            label.setVisible(False)  # shown with a message (say)
        self.body = QWidget(self)  # the form's entries: disabled while a request runs
        self.layout_ = QVBoxLayout(self.body)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.scroller = FormScroll(self)
        self.scroller.setObjectName(f"{prefix}Scroll")
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)

    def finish_layout(self) -> None:
        self.scroller.setWidget(self.body)
        outer = QVBoxLayout(self)
        outer.addWidget(self.scroller)
        outer.addWidget(self.problems_label)
        outer.addWidget(self.error)
        outer.addStretch(1)  # spare height above the buttons, not between entries and messages
        outer.addWidget(self.buttons)

    def showEvent(self, event: QShowEvent) -> None:
        """As wide as the entries need (they are filled in by now), never a horizontal bar."""
        body = self.body.minimumSizeHint()
        bar = self.scroller.verticalScrollBar().sizeHint().width()
        self.scroller.setMinimumWidth(body.width() + bar)
        screen = self.screen()
        room = screen.availableGeometry().height() - SCREEN_RESERVE if screen else body.height()
        self.scroller.setMinimumHeight(min(self.body.sizeHint().height(), max(room, 80)))
        super().showEvent(event)
        self.focus_first_entry()

    def focus_first_entry(self) -> None:
        """The keyboard starts in the first entry (it started on *Cancel*: typing "bo" went
        nowhere and Enter cancelled the form)."""
        w: QWidget | None = self.body
        while (w := w.nextInFocusChain() if w is not None else None) not in (None, self.body):
            assert w is not None
            if (
                self.body.isAncestorOf(w)
                and w.isEnabled()
                and w.focusPolicy() & (Qt.FocusPolicy.TabFocus)
            ):
                w.setFocus(Qt.FocusReason.OtherFocusReason)
                return

    def say(self, label: QLabel, text: str) -> None:
        """Show a message under the form, growing the dialog (within the screen) to fit it."""
        if label.text() == text:
            return
        label.setText(text)
        label.setVisible(bool(text))  # an empty line takes no room
        self.fit_height()

    def fit_height(self) -> None:
        """Grow to the height the form and its messages need, up to the screen's."""
        lay = self.layout()
        if lay is None or not self.isVisible():
            return
        lay.activate()
        need = (
            lay.totalHeightForWidth(self.width())
            if lay.hasHeightForWidth()
            else lay.totalSizeHint().height()
        )
        screen = self.screen()
        room = screen.availableGeometry().height() - 60 if screen is not None else need
        height = min(max(self.height(), need), max(room, self.minimumHeight()))
        if height > self.height():
            self.resize(self.width(), height)

    def problems(self) -> list[str]:
        """What stops the request, in words; the create, update and transfer forms each list
        their own (a form with no rules of its own has nothing to object to)."""
        return []

    def check(self) -> list[str]:
        """Show what is wrong with the form (and allow *Review…* only when nothing is)."""
        found = self.problems()
        self.say(self.problems_label, "\n".join(f"✘ {p}" for p in found))
        self.fit_height()  # a form's own notes (the transfer's) change its height too
        self.review_button.setEnabled(not found and not self.busy)
        return found

    def review_from_keyboard(self) -> None:
        """Enter or Alt+S: review, as the button would (nothing while a request runs)."""
        if self.review_button.isEnabled():
            self._review()
        else:
            self.check()

    def _review(self) -> None:
        if not self.check():
            self.say(self.error, "")
            self.review_requested.emit()

    def set_busy(self, busy: bool, text: str = "") -> None:
        self.busy = busy
        self.body.setEnabled(not busy)
        self.say(self.error, text)
        self.check()

    def show_error(self, text: str) -> None:
        self.set_busy(False)
        self.say(self.error, f"✘ {text}")


def _editor(f: AssetField, parent: QWidget, name: str, value: Any = None) -> QWidget:
    if f.type == "bool":
        box = QCheckBox(parent)
        box.setChecked(bool(value))
        return name_widget(box, name, f.name)
    edit = QLineEdit(parent)
    edit.setPlaceholderText({"int": "whole number", "uint": "whole number ≥ 0"}.get(f.type, "text"))
    if not f.numeric:  # text: an identifier such as a VIN shows whole
        edit.setMinimumWidth(text_room(edit, VIN_SAMPLE))
    if value is not None:
        edit.setText(str(value))
    return name_widget(edit, name, f.name)


def text_room(edit: QLineEdit, sample: str) -> int:
    """The width a line edit needs to show ``sample`` whole (its frame and margins too)."""
    m = edit.textMargins()
    c = edit.contentsMargins()
    return (
        edit.fontMetrics().horizontalAdvance(sample)
        + m.left()
        + m.right()
        + c.left()
        + c.right()
        + 12  # the style's frame and text padding
    )


def _entry(w: QWidget) -> str | bool:
    if isinstance(w, QCheckBox):
        return w.isChecked()
    return w.text() if isinstance(w, QLineEdit) else ""


def _watch(w: QWidget, form: AssetForm) -> None:
    if isinstance(w, QCheckBox):
        w.toggled.connect(form.check)
    elif isinstance(w, QLineEdit):
        w.textChanged.connect(form.check)


class CreateAssetDialog(AssetForm):
    """One typed entry per field of the asset (all required, as the application wants)."""

    def __init__(self, asset: AssetType, parent: QWidget | None = None) -> None:
        super().__init__("assetCreate", f"New {asset.name}", parent)
        self.asset = asset
        self.editors: dict[str, QWidget] = {}
        form = QFormLayout()
        for f in asset.fields:
            w = _editor(f, self, f"assetCreate_{f.name}")
            self.editors[f.name] = w
            _watch(w, self)
            form.addRow(f"{f.name} ({f.type})", w)
        intro = QLabel(
            f"The {asset.name} becomes the governance contract of its own shard (a private "
            "chain): only your organization sees it until you transfer it.",
            self,
        )
        intro.setWordWrap(True)
        self.layout_.addWidget(intro)
        self.layout_.addLayout(form)
        self.finish_layout()
        self.check()

    def set_value(self, name: str, value: str | bool) -> None:
        w = self.editors[name]
        if isinstance(w, QCheckBox):
            w.setChecked(bool(value))
        elif isinstance(w, QLineEdit):
            w.setText(str(value))

    def problems(self) -> list[str]:
        out = []
        for f in self.asset.fields:
            try:
                parse_value(f, _entry(self.editors[f.name]))
            except AssetError as exc:
                out.append(exc.message)
        return out

    def values(self) -> dict[str, Any]:
        return {f.name: parse_value(f, _entry(self.editors[f.name])) for f in self.asset.fields}

    def describe(self) -> str:
        vals = ", ".join(f"{k} = {value_text(v)}" for k, v in self.values().items())
        return f"create a {self.asset.name}: {vals}"


class UpdateAssetDialog(AssetForm):
    """A check box per field: the ticked fields change. Shows each field's bit and the scheme
    the ticks make, in the chosen bit order, and how the update is sent."""

    order_changed = Signal(str)

    def __init__(
        self,
        asset: AssetType,
        record: AssetRecord,
        order: SchemeOrder,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__("assetUpdate", f"Update {record.title(asset)}", parent)
        self.asset = asset
        self.record = record
        self.checks: dict[str, QCheckBox] = {}
        self.editors: dict[str, QWidget] = {}
        self.bit_labels: dict[str, QLabel] = {}
        grid = QGridLayout()
        grid.addWidget(QLabel("<b>Change</b>", self), 0, 0)
        grid.addWidget(QLabel("<b>New value</b>", self), 0, 1)
        grid.addWidget(QLabel("<b>Bit</b>", self), 0, 2)
        for i, f in enumerate(asset.fields, start=1):
            check = QCheckBox(f"{f.name} (now {value_text(record.values.get(f.name))})", self)
            name_widget(check, f"assetUpdateCheck_{f.name}", f"Change {f.name}")
            editor = _editor(f, self, f"assetUpdate_{f.name}", record.values.get(f.name))
            editor.setEnabled(False)
            bit = QLabel("", self)
            name_widget(bit, f"assetUpdateBit_{f.name}", f"Scheme bit of {f.name}")
            check.toggled.connect(editor.setEnabled)
            check.toggled.connect(self.check)
            _watch(editor, self)
            self.checks[f.name], self.editors[f.name], self.bit_labels[f.name] = check, editor, bit
            grid.addWidget(check, i, 0)
            grid.addWidget(editor, i, 1)
            grid.addWidget(bit, i, 2)
        self.order = QComboBox(self)
        for o in SCHEME_ORDERS:
            self.order.addItem(SCHEME_ORDER_LABELS[o], o)
        self.order.setCurrentIndex(SCHEME_ORDERS.index(order))
        name_widget(self.order, "assetUpdateOrder", "Scheme bit order")
        self.order.currentIndexChanged.connect(self._order_changed)
        self.via = QComboBox(self)
        self.via.addItem("the application's update route (it builds the scheme)", "app")
        self.via.addItem("a direct call of update(…, _scheme) on the asset's shard", "contract")
        name_widget(self.via, "assetUpdateVia", "How the update is sent")
        self.via.currentIndexChanged.connect(self.check)
        self.scheme = QLabel("", self)
        self.scheme.setWordWrap(True)
        name_widget(self.scheme, "assetUpdateScheme", "Scheme value")
        options = QFormLayout()
        options.addRow("Bit order", self.order)
        options.addRow("Send as", self.via)
        options.addRow("Scheme", self.scheme)
        self.layout_.addLayout(grid)
        self.layout_.addLayout(options)
        self.finish_layout()
        self.check()

    def current_order(self) -> SchemeOrder:
        return SCHEME_ORDERS[max(self.order.currentIndex(), 0)]

    def _order_changed(self) -> None:
        self.order_changed.emit(self.current_order())
        self.check()

    def set_value(self, name: str, value: str | bool) -> None:
        self.checks[name].setChecked(True)
        w = self.editors[name]
        if isinstance(w, QCheckBox):
            w.setChecked(bool(value))
        elif isinstance(w, QLineEdit):
            w.setText(str(value))

    def selected(self) -> list[str]:
        return [f for f, c in self.checks.items() if c.isChecked()]

    def problems(self) -> list[str]:
        self._show_bits()
        out = []
        if not self.selected():
            out.append("tick at least one field to change")
        for f in self.asset.fields:
            if self.checks[f.name].isChecked():
                try:
                    parse_value(f, _entry(self.editors[f.name]))
                except AssetError as exc:
                    out.append(exc.message)
        return out

    def _show_bits(self) -> None:
        order = self.current_order()
        n = len(self.asset.fields)
        for i, f in enumerate(self.asset.fields):
            bit = scheme_bit(i, n, order)
            self.bit_labels[f.name].setText(f"{scheme_binary(bit, n)} = {bit}")
        chosen = self.selected()
        value = sum(
            scheme_bit(i, n, order) for i, f in enumerate(self.asset.fields) if f.name in chosen
        )
        how = (
            "The application computes this scheme itself from the fields sent."
            if self.via.currentData() == "app"
            else "Sent as the _scheme argument; the other fields keep their current values."
        )
        self.scheme.setText(
            f"<b>{scheme_binary(value, n)} = {value}</b> ({', '.join(chosen) or 'no field'}). {how}"
        )

    def plan(self) -> UpdatePlan:
        values = {
            f.name: parse_value(f, _entry(self.editors[f.name]))
            for f in self.asset.fields
            if self.checks[f.name].isChecked()
        }
        return UpdatePlan(values, self.current_order(), str(self.via.currentData()))

    def describe(self) -> str:
        plan = self.plan()
        changes = ", ".join(
            f"{k}: {value_text(self.record.values.get(k))} → {value_text(v)}"
            for k, v in plan.values.items()
        )
        return f"update {changes} (scheme {plan.scheme_text(self.asset)})"


class TransferAssetDialog(AssetForm):
    """Pick the new owner among the node's users (by organization) or type an address."""

    def __init__(
        self,
        asset: AssetType,
        record: AssetRecord,
        identities: list[Identity],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__("assetTransfer", f"Transfer {record.title(asset)}", parent)
        self.asset = asset
        self.record = record
        self.identities = {i.address: i for i in identities if i.address}
        self.to = QComboBox(self)
        self.to.setEditable(True)
        self.to.setMinimumContentsLength(ADDRESS_CHARS)  # a pasted 0x address shows whole
        self.to.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        name_widget(self.to, "assetTransferTo", "New owner")
        line = self.to.lineEdit()
        assert line is not None
        line.setPlaceholderText("a user of the node, or an address")
        others = sorted(
            (i for i in identities if i.address and i.address != record.owner),
            key=lambda i: (i.organization, i.unit, i.common_name),
        )
        for i in others:
            self.to.addItem(f"{i.common_name} — {i.organization} / {i.unit}", i.address)
        self.to.setCurrentIndex(-1)
        self.to.currentTextChanged.connect(self.check)
        # Enter accepts the inline completion ("bo" → bob) and reviews in one press: the line
        # edit used to keep the key for the completion, so the form never heard it
        line.installEventFilter(self)
        self.to.installEventFilter(self)  # the combo hands keys to its line edit directly
        self.note = QLabel("", self)
        self.note.setWordWrap(True)
        name_widget(self.note, "assetTransferNote", "What the transfer does")
        self.note.setVisible(False)
        form = QFormLayout()
        form.addRow("Owner now", QLabel(f"{record.owner_label} — {record.organization}", self))
        form.addRow("New owner", self.to)
        self.layout_.addLayout(form)
        self.layout_.addWidget(self.note)
        self.finish_layout()
        self.check()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched in (self.to, self.to.lineEdit())
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        ):
            line = self.to.lineEdit()
            assert line is not None
            line.deselect()  # the completed text stays, the caret goes to its end
            line.end(False)
            idx = self.to.findText(line.text())
            if idx >= 0:
                self.to.setCurrentIndex(idx)
            self.review_from_keyboard()
            return True
        return super().eventFilter(watched, event)

    def choose(self, common_name: str) -> None:
        idx = next(
            (
                k
                for k in range(self.to.count())
                if self.identities[self.to.itemData(k)].common_name == common_name
            ),
            -1,
        )
        if idx < 0:
            raise KeyError(common_name)
        self.to.setCurrentIndex(idx)

    def new_owner(self) -> str:
        """The new owner's address (40 hex digits)."""
        text = self.to.currentText().strip()
        idx = self.to.findText(text)
        if idx >= 0 and self.to.itemData(idx):
            return str(self.to.itemData(idx))
        if ADDRESS_RE.match(text):
            return text.lower().removeprefix("0x")
        raise AssetError("choose a user, or type an address of 40 hex digits")

    def problems(self) -> list[str]:
        try:
            address = self.new_owner()
        except AssetError as exc:
            self._note("")
            return [exc.message]
        if address == self.record.owner:
            self._note("")
            return [f"{self.record.owner_label} owns it already"]
        who = self.identities.get(address)
        if who is None:
            self._note(
                "No identity on this node has that address: the contract refuses an owner "
                "without a registered certificate."
            )
        elif who.organization == self.record.organization:
            self._note(
                f"{who.common_name} is in {who.organization} too: the shard keeps its members."
            )
        else:
            self._note(
                f"{who.organization} gains the shard and {self.record.organization} loses it: "
                f"after the transfer only {who.organization} sees this {self.asset.name}."
            )
        return []

    def _note(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))  # an empty note takes no room

    def describe(self) -> str:
        address = self.new_owner()
        who = self.identities.get(address)
        name = f"{who.common_name} ({who.organization})" if who else address
        return f"transfer to {name}"
