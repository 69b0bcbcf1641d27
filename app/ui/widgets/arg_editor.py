"""Typed argument editors generated from declared SolidVM types, with a raw-JSON view.

Every editor holds the value of one ``AbiType`` (see ``app.client.abi_types``): numbers take
unbounded integers (``1e18`` and ``0x..`` too), decimals keep the exact text typed, bools are
check boxes, enums drop-downs, arrays editable lists (fixed arrays keep their length), structs
grouped members, mappings key/value rows, user-defined value types the editor of their actual
type beside the alias, and ``variadic`` a list of untyped items (text, number, bool or raw JSON).
``ArgumentsEditor`` puts one editor per parameter beside a raw-JSON page of the whole
``args`` object; switching pages converts both ways, and problems are listed per field before
anything is sent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from PySide6.QtCore import QEvent, QObject, QRegularExpression, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QRegularExpressionValidator
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.client.abi_types import (
    AbiType,
    AbiTypeError,
    FunctionSpec,
    Unparsed,
    decimal_parts,
    decimal_text,
    parse_int,
)
from app.ui.widgets.common import name_widget

PLACEHOLDER = {
    "int": "whole number: 42, 1e18, 0x2a",
    "address": "40 hex digits",
    "contract": "contract address (40 hex digits)",
    "account": "address, or address:chainId",
    "bytes": "hex digits",
    "string": "text",
    "decimal": "decimal: 12.5, -0.25, 1.5e3",
}
# the arguments area's height, in text lines: at least two or three editors, and no more asked
# for than a dozen lines (more scroll)
MIN_LINES = 4
MAX_LINES = 12
# what a decimal can be on its way to being one: keys that could never make one are refused
DECIMAL_TYPING = r"\s*[+-]?[0-9]*\.?[0-9]*([eE][+-]?[0-9]*)?\s*"


class AddressBook:
    """Known addresses offered beside address fields: contacts, users of the node, recent
    contracts. ``save_contact`` (when set) stores a typed address under a name."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, str]] = []  # (label, address)
        self.save_contact: Callable[[str, QWidget], object] | None = None


class ValueEditor(QWidget):
    """Base: ``value()``/``set_value()``; ``changed`` fires on every edit."""

    changed = Signal()

    def __init__(
        self, t: AbiType, path: str, parent: QWidget | None = None, book: AddressBook | None = None
    ) -> None:
        super().__init__(parent)
        self.type = t
        self.path = path
        self.book = book

    # Every editor class below overrides both (QWidget's metaclass rules out abc.ABC here).
    def value(self) -> Any:
        raise NotImplementedError(type(self).__name__)

    def set_value(self, v: Any) -> None:
        raise NotImplementedError(type(self).__name__)


def editor_for(
    t: AbiType, path: str, parent: QWidget | None = None, book: AddressBook | None = None
) -> ValueEditor:
    kinds: dict[str, type[ValueEditor]] = {
        "bool": BoolEditor,
        "enum": EnumEditor,
        "decimal": DecimalEditor,
        "udvt": UdvtEditor,
        "array": ArrayEditor,
        "struct": StructEditor,
        "mapping": MappingEditor,
        "variadic": VariadicEditor,
    }
    return kinds.get(t.kind, TextEditor)(t, path, parent, book)


def _object_name(path: str) -> str:
    return "arg_" + "".join(c if c.isalnum() else "_" for c in path)


class TextEditor(ValueEditor):
    """Numbers, addresses, accounts, strings and bytes: a line edit checked as you type."""

    def __init__(
        self, t: AbiType, path: str, parent: QWidget | None = None, book: AddressBook | None = None
    ) -> None:
        super().__init__(t, path, parent, book)
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText(PLACEHOLDER.get(t.kind, t.describe()))
        name_widget(self.edit, _object_name(path), f"{path} ({t.describe()})")
        self.edit.textChanged.connect(self._edited)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.edit)
        self.pick: QToolButton | None = None
        if t.kind in ("address", "account", "contract") and book is not None:
            self.pick = QToolButton(self)
            self.pick.setText("…")
            self.pick.setToolTip("Pick a known address")
            name_widget(self.pick, _object_name(path) + "_pick", f"Pick an address for {path}")
            menu = QMenu(self.pick)
            menu.aboutToShow.connect(self._fill_menu)
            self.pick.setMenu(menu)
            self.pick.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
            lay.addWidget(self.pick)
        self.set_value(t.default())

    def _fill_menu(self) -> None:
        assert self.pick is not None and self.book is not None
        menu = self.pick.menu()
        menu.clear()
        for label, address in self.book.entries:
            act = menu.addAction(f"{label}  {address[:10]}…")
            act.setData(address)
            act.triggered.connect(self._picked)
        if not self.book.entries:
            menu.addAction("(no known addresses)").setEnabled(False)
        address = str(self.value()).partition(":")[0]
        if self.book.save_contact is not None and len(address.removeprefix("0x")) == 40:
            menu.addSeparator()
            save = menu.addAction("Save this address as a contact…")
            save.triggered.connect(self._save_contact)

    def _save_contact(self) -> None:
        assert self.book is not None and self.book.save_contact is not None
        self.book.save_contact(str(self.value()).partition(":")[0], self)

    def _picked(self) -> None:
        act = self.sender()
        if isinstance(act, QAction):
            self.set_value(str(act.data()))

    def _edited(self) -> None:
        problems = self.type.problems(self.value(), "SolidVM", self.path)
        self.edit.setToolTip(problems[0].message if problems else "")
        self.edit.setStyleSheet("QLineEdit { border: 1px solid #c0392b; }" if problems else "")
        self.changed.emit()

    def value(self) -> Any:
        text = self.edit.text()
        if self.type.kind == "int":
            n = parse_int(text)
            return n if n is not None else text
        return text

    def set_value(self, v: Any) -> None:
        self.edit.setText("" if v is None else str(v))
        self.edit.setCursorPosition(0)  # long addresses show their start


class DecimalEditor(TextEditor):
    """A decimal as text: what is typed is what is sent (canonicalised, never through a float);
    keys that cannot be part of a decimal are refused."""

    def __init__(
        self, t: AbiType, path: str, parent: QWidget | None = None, book: AddressBook | None = None
    ) -> None:
        super().__init__(t, path, parent, book)
        self.edit.setValidator(
            QRegularExpressionValidator(QRegularExpression(DECIMAL_TYPING), self.edit)
        )


class UdvtEditor(ValueEditor):
    """A user-defined value type (``type Price is uint;``): its alias, then the editor of the
    actual type (same path, so problems and object names read as for a plain parameter)."""

    def __init__(
        self, t: AbiType, path: str, parent: QWidget | None = None, book: AddressBook | None = None
    ) -> None:
        super().__init__(t, path, parent, book)
        assert t.actual is not None
        actual = t.actual.describe()
        self.alias = QLabel(t.describe(), self)
        self.alias.setToolTip(f"{t.describe()} is a user-defined value type over {actual}")
        self.alias.setStyleSheet("font-style: italic;")
        name_widget(self.alias, _object_name(path) + "_alias", f"{path} type {t.describe()}")
        self.inner = editor_for(t.actual, path, self, book)
        self.inner.changed.connect(self.changed)
        for w in self.inner.findChildren(QWidget, _object_name(path)):
            w.setAccessibleName(f"{path} ({t.describe()}, a {actual})")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.alias)
        lay.addWidget(self.inner, 1)

    def value(self) -> Any:
        return self.inner.value()

    def set_value(self, v: Any) -> None:
        self.inner.set_value(v)


class BoolEditor(ValueEditor):
    def __init__(
        self, t: AbiType, path: str, parent: QWidget | None = None, book: AddressBook | None = None
    ) -> None:
        super().__init__(t, path, parent, book)
        self.box = QCheckBox("true", self)
        name_widget(self.box, _object_name(path), f"{path} (bool)")
        self.box.toggled.connect(self._toggled)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.box)

    def _toggled(self, on: bool) -> None:
        self.box.setText("true" if on else "false")
        self.changed.emit()

    def value(self) -> Any:
        return self.box.isChecked()

    def set_value(self, v: Any) -> None:
        self.box.setChecked(bool(v))
        self.box.setText("true" if v else "false")


class EnumEditor(ValueEditor):
    def __init__(
        self, t: AbiType, path: str, parent: QWidget | None = None, book: AddressBook | None = None
    ) -> None:
        super().__init__(t, path, parent, book)
        self.combo = QComboBox(self)
        self.combo.addItems(list(t.names))
        name_widget(self.combo, _object_name(path), f"{path} ({t.describe()})")
        self.combo.currentIndexChanged.connect(self._index)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.combo)

    def _index(self, _i: int) -> None:
        self.changed.emit()

    def value(self) -> Any:
        return self.combo.currentText()

    def set_value(self, v: Any) -> None:
        i = self.combo.findText(str(v))
        self.combo.setCurrentIndex(max(i, 0))


class _Rows(ValueEditor):
    """Shared by arrays and mappings: rows with a remove button and an Add button."""

    def __init__(
        self, t: AbiType, path: str, parent: QWidget | None = None, book: AddressBook | None = None
    ) -> None:
        super().__init__(t, path, parent, book)
        self.box = QGroupBox(t.describe(), self)
        self.rows_layout = QVBoxLayout()
        self.add_button = QPushButton("Add", self.box)
        name_widget(self.add_button, _object_name(path) + "_add", f"Add to {path}")
        self.add_button.clicked.connect(self._add_clicked)
        inner = QVBoxLayout(self.box)
        inner.addLayout(self.rows_layout)
        inner.addWidget(self.add_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.box)
        self.rows: list[tuple[QWidget, list[ValueEditor]]] = []

    def _add_clicked(self) -> None:
        self.add_row()
        self.changed.emit()

    def add_row(self, value: Any = None) -> list[ValueEditor]:
        """Append a row of editors (ArrayEditor and MappingEditor override this)."""
        raise NotImplementedError(type(self).__name__)

    def _row_frame(self, editors: list[ValueEditor], removable: bool) -> QWidget:
        frame = QFrame(self.box)
        row = QHBoxLayout(frame)
        row.setContentsMargins(0, 0, 0, 0)
        for ed in editors:
            row.addWidget(ed, 1)
            ed.changed.connect(self.changed)
        if removable:
            remove = QPushButton("Remove", frame)
            n = len(self.rows)
            name_widget(remove, f"{_object_name(self.path)}_{n}_remove", f"Remove {self.path}[{n}]")
            remove.clicked.connect(lambda _c=False, f=frame: self._remove(f))
            row.addWidget(remove)
        self.rows_layout.addWidget(frame)
        self.rows.append((frame, editors))
        return frame

    def _remove(self, frame: QWidget) -> None:
        self.rows = [(f, e) for f, e in self.rows if f is not frame]
        frame.setParent(None)
        frame.deleteLater()
        self.changed.emit()

    def clear_rows(self) -> None:
        for frame, _ in self.rows:
            frame.setParent(None)
            frame.deleteLater()
        self.rows = []


class ArrayEditor(_Rows):
    def __init__(
        self, t: AbiType, path: str, parent: QWidget | None = None, book: AddressBook | None = None
    ) -> None:
        super().__init__(t, path, parent, book)
        self.add_button.setVisible(t.length is None)
        self.set_value(t.default())

    def add_row(self, value: Any = None) -> list[ValueEditor]:
        assert self.type.entry is not None
        ed = editor_for(self.type.entry, f"{self.path}[{len(self.rows)}]", self.box, self.book)
        if value is not None:
            ed.set_value(value)
        self._row_frame([ed], removable=self.type.length is None)
        return [ed]

    def value(self) -> Any:
        return [eds[0].value() for _, eds in self.rows]

    def set_value(self, v: Any) -> None:
        self.clear_rows()
        for x in v if isinstance(v, list) else []:
            self.add_row(x)


# what a mapping's key field shows without scrolling: 0x and 40 hex digits for addresses, a
# 17-character VIN or name for strings and bytes
KEY_CHARS = {"address": 42, "account": 42, "contract": 42, "string": 17, "bytes": 17}


class MappingEditor(_Rows):
    def __init__(
        self, t: AbiType, path: str, parent: QWidget | None = None, book: AddressBook | None = None
    ) -> None:
        super().__init__(t, path, parent, book)
        self.add_button.setText("Add key")

    def add_row(self, value: Any = None) -> list[ValueEditor]:
        assert self.type.key is not None and self.type.value is not None
        n = len(self.rows)
        key = editor_for(self.type.key, f"{self.path}[{n}].key", self.box, self.book)
        val = editor_for(self.type.value, f"{self.path}[{n}].value", self.box, self.book)
        if isinstance(key, TextEditor):  # beside its value, a key was squeezed to a few chars
            digit = key.edit.fontMetrics().horizontalAdvance("0")
            key.edit.setMinimumWidth(digit * KEY_CHARS.get(self.type.key.kind, 10) + 12)
        if value is not None:
            key.set_value(value[0])
            val.set_value(value[1])
        self._row_frame([key, val], removable=True)
        return [key, val]

    def value(self) -> Any:
        return [(eds[0].value(), eds[1].value()) for _, eds in self.rows]

    def set_value(self, v: Any) -> None:
        self.clear_rows()
        for pair in v if isinstance(v, list) else []:
            self.add_row(pair)


ITEM_KINDS = ("text", "number", "bool", "JSON")
ITEM_HINTS = {
    "text": "text, sent as a JSON string",
    "number": "42, -7, 1e18 or 1.5 (fractions travel as their exact text)",
    "JSON": 'any JSON value: 42, "text", true, [1, 2], {"a": 1}',
}


def variadic_item(kind: str, text: str, checked: bool = False) -> Any:
    """The value of one variadic item typed as ``kind`` (an Unparsed when it is not one)."""
    if kind == "bool":
        return checked
    if kind == "text":
        return text
    if kind == "number":
        n = parse_int(text)
        if n is not None:
            return n
        try:
            number, places = decimal_parts(text)
        except ValueError:
            return Unparsed(text, "not a number: write 42, -7, 1e18 or 1.5")
        return number if places == 0 else Decimal(decimal_text(text))
    if not text.strip():
        return Unparsed(text, 'empty: write a JSON value such as 42, "text" or [1, 2]')
    try:
        return json.loads(text, parse_float=Decimal)
    except ValueError as exc:
        return Unparsed(text, f"not valid JSON: {getattr(exc, 'msg', exc)}")
    except RecursionError:
        return Unparsed(text, "not valid JSON: nests too deeply")


class VariadicItemEditor(ValueEditor):
    """One untyped value of a variadic: what kind it is, then its text (or a check box)."""

    def __init__(
        self, t: AbiType, path: str, parent: QWidget | None = None, book: AddressBook | None = None
    ) -> None:
        super().__init__(t, path, parent, book)
        name = _object_name(path)
        self.kind = QComboBox(self)
        self.kind.addItems(list(ITEM_KINDS))
        name_widget(self.kind, name + "_kind", f"Kind of {path}")
        self.edit = QLineEdit(self)
        name_widget(self.edit, name, f"{path} (variadic item)")
        # beside the kind and Remove, a narrow form would squeeze the text to nothing
        self.edit.setMinimumWidth(self.fontMetrics().horizontalAdvance("0") * 12)
        self.check = QCheckBox("false", self)
        name_widget(self.check, name + "_bool", f"{path} (bool)")
        self.check.setVisible(False)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.kind)
        lay.addWidget(self.edit, 1)
        lay.addWidget(self.check, 1)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.edit.textChanged.connect(self._edited)
        self.check.toggled.connect(self._edited)
        self._kind_changed()

    def _kind_changed(self, _i: int = 0) -> None:
        kind = self.kind.currentText()
        self.edit.setVisible(kind != "bool")
        self.check.setVisible(kind == "bool")
        self.edit.setPlaceholderText(ITEM_HINTS.get(kind, ""))
        self._edited()

    def _edited(self) -> None:
        self.check.setText("true" if self.check.isChecked() else "false")
        problems = self.type.problems([self.value()], "SolidVM", self.path)
        self.edit.setToolTip(problems[0].message if problems else "")
        self.edit.setStyleSheet("QLineEdit { border: 1px solid #c0392b; }" if problems else "")
        self.changed.emit()

    def focus(self) -> None:
        (self.check if self.kind.currentText() == "bool" else self.edit).setFocus()

    def value(self) -> Any:
        return variadic_item(self.kind.currentText(), self.edit.text(), self.check.isChecked())

    def set_value(self, v: Any) -> None:
        kind, text = "JSON", ""
        if isinstance(v, bool):
            kind = "bool"
            self.check.setChecked(v)
        elif isinstance(v, int):
            kind, text = "number", str(v)
        elif isinstance(v, (float, Decimal)):
            try:
                kind, text = "number", decimal_text(v)
            except ValueError:
                text = str(v)
        elif isinstance(v, str):
            kind, text = "text", v
        elif isinstance(v, Unparsed):
            text = v.text
        else:
            text = json.dumps(v, default=_json_default)
        self.edit.blockSignals(True)
        self.edit.setText(text)
        self.edit.blockSignals(False)
        self.kind.setCurrentText(kind)
        self._kind_changed()


class VariadicEditor(_Rows):
    """Any number of values of any type: rows of untyped items, added and removed at will."""

    def __init__(
        self, t: AbiType, path: str, parent: QWidget | None = None, book: AddressBook | None = None
    ) -> None:
        super().__init__(t, path, parent, book)
        self.add_button.setText("Add value")

    def _add_clicked(self) -> None:
        super()._add_clicked()
        frame, (item,) = self.rows[-1]
        assert isinstance(item, VariadicItemEditor)
        frame.show()  # the layout would show it later; focus needs it now
        item.focus()  # typing goes on from the keyboard

    def add_row(self, value: Any = None) -> list[ValueEditor]:
        ed = VariadicItemEditor(self.type, f"{self.path}[{len(self.rows)}]", self.box, self.book)
        ed.set_value("" if value is None else value)
        self._row_frame([ed], removable=True)
        return [ed]

    def value(self) -> Any:
        return [eds[0].value() for _, eds in self.rows]

    def set_value(self, v: Any) -> None:
        self.clear_rows()
        for x in v if isinstance(v, list) else []:
            ed = self.add_row()[0]
            ed.set_value(x)  # a null too: the row shows it and says why it cannot be sent


class StructEditor(ValueEditor):
    def __init__(
        self, t: AbiType, path: str, parent: QWidget | None = None, book: AddressBook | None = None
    ) -> None:
        super().__init__(t, path, parent, book)
        box = QGroupBox(t.describe(), self)
        form = QFormLayout(box)
        self.members: dict[str, ValueEditor] = {}
        for member, mtype in t.fields:
            ed = editor_for(mtype, f"{path}.{member}", box, book)
            ed.changed.connect(self.changed)
            self.members[member] = ed
            form.addRow(f"{member} ({mtype.describe()})", ed)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(box)

    def value(self) -> Any:
        return {m: ed.value() for m, ed in self.members.items()}

    def set_value(self, v: Any) -> None:
        if isinstance(v, dict):
            for m, ed in self.members.items():
                if m in v:
                    ed.set_value(v[m])


class ArgumentsEditor(QWidget):
    """All parameters of one function: structured editors or the raw JSON ``args`` object.

    Signals: changed(): any edit (the problems list is up to date when it fires).

    A parameter's problems are shown in red once it has a value from the user (typed, picked,
    set, or the raw JSON page); an untouched form only says which fields are left to fill in
    (a red "an address is up to 40 hex digits" under a function just chosen read as an error).
    """

    changed = Signal()

    def __init__(
        self, name: str, parent: QWidget | None = None, book: AddressBook | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.book = book
        self.spec: FunctionSpec | None = None
        self.vm = "SolidVM"
        self.editors: dict[str, ValueEditor] = {}
        self.raw_toggle = QCheckBox("Raw JSON", self)
        name_widget(self.raw_toggle, f"{name}RawToggle", "Edit the arguments as raw JSON")
        self.raw_toggle.toggled.connect(self._toggle_raw)
        self.stack = _PageStack(self)
        # many parameters (or a long array, a struct) scroll here instead of growing the
        # window; a few lines stay visible however small the window is
        self.scroll_area = FittingScrollArea(self.stack)
        self.scroll_area.setObjectName(f"{name}Scroll")
        self.form_page = QWidget(self.scroll_area)
        self.form = QFormLayout(self.form_page)
        self.form.setContentsMargins(0, 0, 0, 0)
        # a narrow pane puts big editors (arrays, structs) under their label, not beside it
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.scroll_area.setWidget(self.form_page)
        self.raw = QPlainTextEdit(self.stack)
        name_widget(self.raw, f"{name}Raw", "Arguments as JSON")
        self.raw.textChanged.connect(self._update_problems)
        self.stack.addWidget(self.scroll_area)
        self.stack.addWidget(self.raw)
        self.stack.setMinimumHeight(self.fontMetrics().lineSpacing() * MIN_LINES)
        self.problems_label = QLabel("", self)
        self.problems_label.setWordWrap(True)
        name_widget(self.problems_label, f"{name}Problems", "Problems with the arguments")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.raw_toggle)
        lay.addWidget(self.stack)
        lay.addWidget(self.problems_label)
        self._raw_error = ""
        self.touched: set[str] = set()  # the parameters the user gave a value

    def set_function(self, spec: FunctionSpec | None, vm: str = "SolidVM") -> None:
        self.spec, self.vm = spec, vm
        while self.form.rowCount():
            self.form.removeRow(0)
        self.editors = {}
        self.touched = set()
        self.raw_toggle.blockSignals(True)
        self.raw_toggle.setChecked(False)
        self.raw_toggle.blockSignals(False)
        self.stack.setCurrentIndex(0)
        if spec is None:
            self._update_problems()
            return
        if not spec.params:
            self.form.addRow(QLabel("(no arguments)", self.form_page))
        for p in spec.params:
            ed = editor_for(p.type, p.name, self.form_page, self.book)
            ed.changed.connect(lambda n=p.name: self._edited(n))
            self.editors[p.name] = ed
            self.form.addRow(f"{p.name} ({p.type.describe()})", ed)
        self.stack.updateGeometry()  # the area asks for the new fields' height
        self._update_problems()

    # ------------------------------------------------------------ values

    def values(self) -> dict[str, Any]:
        """Editor values of every parameter (raises AbiTypeError when the raw JSON is bad)."""
        if self.raw_toggle.isChecked():
            return self._parse_raw()
        return {n: ed.value() for n, ed in self.editors.items()}

    def set_values(self, values: dict[str, Any]) -> None:
        self.touched.update(values)
        for n, ed in self.editors.items():
            if n in values:
                ed.set_value(values[n])
        if self.raw_toggle.isChecked():
            self._write_raw(values)
        self._update_problems()

    def problems(self) -> list[str]:
        """Every problem, shown or not (what keeps Deploy/Call off)."""
        return [str(p) for p in self._errors()]

    def _errors(self) -> list[AbiTypeError]:
        if self.spec is None:
            return []
        try:
            values = self.values()
        except AbiTypeError as exc:
            return [exc]
        return list(self.spec.problems(values, self.vm))

    def touch_all(self) -> None:
        """Show every problem in red (the user asked to send the form as it is)."""
        self.touched.update(self.editors)
        self._update_problems()

    def wire_args(self) -> dict[str, Any]:
        """The ``args`` object to send; raises AbiTypeError listing the first problem."""
        if self.spec is None:
            return {}
        values = self.values()
        found = self.spec.problems(values, self.vm)
        if found:
            raise found[0]
        return self.spec.to_wire(values)

    # ------------------------------------------------------------ raw JSON

    def _parse_raw(self) -> dict[str, Any]:
        assert self.spec is not None
        text = self.raw.toPlainText().strip() or "{}"
        try:
            data = json.loads(text, parse_float=Decimal)  # fractions stay exact
        except ValueError as exc:
            raise AbiTypeError("", f"not valid JSON: {exc}") from None
        return self.spec.from_wire(data)

    def _write_raw(self, values: dict[str, Any]) -> None:
        assert self.spec is not None
        wire = (
            self.spec.to_wire(values)
            if not self.spec.problems(values, self.vm)
            else {n: _loose_wire(self.spec, n, v) for n, v in values.items()}
        )
        self.raw.blockSignals(True)
        self.raw.setPlainText(json.dumps(wire, indent=2, default=_json_default))
        self.raw.blockSignals(False)

    def _toggle_raw(self, raw: bool) -> None:
        if self.spec is None:
            return
        if raw:
            self._write_raw({n: ed.value() for n, ed in self.editors.items()})
            self.stack.setCurrentIndex(1)
            self.stack.updateGeometry()
        else:
            try:
                values = self._parse_raw()
            except AbiTypeError as exc:
                # stay on the raw page: switching would lose what was typed
                self.raw_toggle.blockSignals(True)
                self.raw_toggle.setChecked(True)
                self.raw_toggle.blockSignals(False)
                self.problems_label.setStyleSheet("color: #c0392b;")
                self.problems_label.setText(f"Fix the JSON first: {exc}")
                return
            for n, ed in self.editors.items():
                ed.set_value(values[n])
            self.stack.setCurrentIndex(0)
            self.stack.updateGeometry()
        self._update_problems()

    def _edited(self, name: str) -> None:
        self.touched.add(name)
        self._update_problems()

    def _update_problems(self) -> None:
        raw = self.raw_toggle.isChecked()
        shown, left = [], []
        for e in self._errors():
            top = re.split(r"[\[.:]", e.path, maxsplit=1)[0]
            if raw or not e.path or top in self.touched:
                shown.append(str(e))
            elif top not in left:
                left.append(top)
        if shown:
            self.problems_label.setStyleSheet("color: #c0392b;")
            text = "\n".join(shown[:8]) + ("\n…" if len(shown) > 8 else "")
        else:
            self.problems_label.setStyleSheet("")  # a to-do, not an error
            text = f"To fill in: {', '.join(left)}" if left else ""
        self.problems_label.setText(text)
        self.changed.emit()


class FittingScrollArea(QScrollArea):
    """A resizable scroll area that follows its page's layout: a plain one sizes the page once
    and misses fields added later (its scroll range stays short, the new fields squeezed)."""

    refitted = Signal()  # the page's layout changed and the area followed it

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        # Tab goes to the fields inside (the area scrolls to each one), not to the area itself
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._refit_soon = QTimer(self)  # a child: it dies with the area, never fires after
        self._refit_soon.setSingleShot(True)
        self._refit_soon.setInterval(0)
        self._refit_soon.timeout.connect(self._refit)

    def setWidget(self, widget: QWidget) -> None:
        super().setWidget(widget)
        widget.installEventFilter(self)
        widget.setAutoFillBackground(False)
        self.viewport().setAutoFillBackground(False)  # the page's colour, not grey

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self._refit_soon.start()  # once the page's layout has run
        return super().eventFilter(watched, event)

    def _refit(self) -> None:
        self.setWidgetResizable(True)  # recomputes the page's size and the scroll range
        self.updateGeometry()
        self.refitted.emit()


class _PageStack(QStackedWidget):
    """Asks for the height of the page shown (a stack asks for its tallest page: the raw JSON
    page's default would reserve blank space under two fields), at most MAX_LINES."""

    def sizeHint(self) -> QSize:
        page = self.currentWidget()
        if page is None:
            return super().sizeHint()
        # a scroll area keeps the first size hint of its page: ask the page itself
        inner = page.widget() if isinstance(page, QScrollArea) else None
        hint = (inner or page).sizeHint()
        most = self.fontMetrics().lineSpacing() * MAX_LINES
        return QSize(hint.width(), max(min(hint.height(), most), self.minimumHeight()))


def _json_default(v: Any) -> Any:
    """What the raw page shows for values JSON has no spelling for (items still being typed)."""
    if isinstance(v, Decimal):
        return str(v)
    if isinstance(v, Unparsed):
        return v.text
    raise TypeError(f"not JSON: {v!r}")


def _loose_wire(spec: FunctionSpec, name: str, value: Any) -> Any:
    """Best-effort JSON of a value that does not validate yet (so the raw page shows it)."""
    p = next((p for p in spec.params if p.name == name), None)
    if p is None:
        return value
    if not p.type.problems(value):  # problems() accepts any shape; to_wire needs a valid one
        return p.type.to_wire(value)
    if isinstance(value, list):
        return [list(x) if isinstance(x, tuple) else x for x in value]
    return value
