"""The composer's editors and the result rendering for decimal, user-defined value types and
variadic. The specs are read from xabi dicts in the platform's shapes (``SolidVM.Model.Type``),
so these run without a node."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QTextBrowser,
)
from pytestqt.qtbot import QtBot

from app.client.abi_types import ContractSpec, FunctionSpec
from app.client.models import Transaction, TxResult
from app.services.composer import TxDetails
from app.ui.shell.tx_inspector import render
from app.ui.widgets.arg_editor import (
    ArgumentsEditor,
    DecimalEditor,
    UdvtEditor,
    VariadicEditor,
    VariadicItemEditor,
)
from app.ui.widgets.tx_render import returned_items

PRICE = {"tag": "UserDefined", "alias": "Price", "actual": {"tag": "Int", "bytes": 32}}
XABI: dict[str, Any] = {
    "funcs": {
        "quote": {
            "args": {
                "rate": {"tag": "Decimal", "index": 0},
                "price": {**PRICE, "index": 1},
                "rest": {"tag": "Variadic", "index": 2},
            },
            "vals": {
                "total": {"tag": "Decimal", "index": 0},
                "unit": {**PRICE, "index": 1},
                "ok": {"tag": "Bool", "index": 2},
                "extra": {"tag": "Variadic", "index": 3},
            },
        },
        "prices": {
            "args": {},
            "vals": {"#0": {"tag": "Array", "entry": PRICE, "index": 0}},
        },
    },
    "events": {
        "Quoted": {
            "logs": [["rate", {"tag": "Decimal"}], ["price", PRICE], ["ok", {"tag": "Bool"}]]
        }
    },
}
SPEC = ContractSpec.from_xabi("Shop", XABI)


def quote() -> FunctionSpec:
    f = SPEC.function("quote")
    assert f is not None
    return f


def make_editor(qtbot: QtBot) -> ArgumentsEditor:
    ed = ArgumentsEditor("callArgs")
    qtbot.addWidget(ed)
    ed.set_function(quote())
    ed.show()
    qtbot.waitExposed(ed)
    return ed


def line(ed: ArgumentsEditor, name: str) -> QLineEdit:
    w = ed.findChild(QLineEdit, name)
    assert w is not None, name
    return w


def test_decimal_editor_keeps_the_exact_text(qtbot: QtBot) -> None:
    ed = make_editor(qtbot)
    rate = ed.editors["rate"]
    assert isinstance(rate, DecimalEditor)
    edit = line(ed, "arg_rate")
    assert edit.accessibleName() == "rate (decimal)" and "12.5" in edit.placeholderText()
    edit.clear()
    qtbot.keyClicks(edit, "12.50x")  # the x cannot be part of a decimal: refused as typed
    assert edit.text() == "12.50" and rate.value() == "12.50"
    assert ed.problems() == [] and ed.wire_args()["rate"] == "12.50"  # text, never a float
    edit.setText("1.2.3")
    assert ed.problems() == ["rate: a decimal is written like 12.5, -0.25 or 1.5e3"]
    assert "written like" in edit.toolTip() and "border" in edit.styleSheet()
    edit.setText("-1.5e3")
    assert ed.problems() == [] and ed.wire_args()["rate"] == "-1500"
    edit.setText("0." + "1" * 300)
    assert ed.problems() == ["rate: at most 255 decimal places"]


def test_udvt_editor_shows_the_alias_and_edits_the_actual_type(qtbot: QtBot) -> None:
    ed = make_editor(qtbot)
    price = ed.editors["price"]
    assert isinstance(price, UdvtEditor)
    alias = price.findChild(QLabel, "arg_price_alias")
    assert alias is not None and alias.text() == "Price" and "uint256" in alias.toolTip()
    edit = line(ed, "arg_price")
    assert edit.accessibleName() == "price (Price, a uint256)"
    edit.clear()
    qtbot.keyClicks(edit, "0x10")
    assert price.value() == 16 and ed.wire_args()["price"] == 16
    edit.setText("1.5")
    assert ed.problems() == ["price: uint256 needs a whole number"]


def test_variadic_editor_adds_typed_items_from_the_keyboard(qtbot: QtBot) -> None:
    ed = make_editor(qtbot)
    line(ed, "arg_rate").setText("2.5")
    rest = ed.editors["rest"]
    assert isinstance(rest, VariadicEditor) and rest.value() == []
    with qtbot.waitActive(ed):
        ed.activateWindow()
    for _ in range(4):
        qtbot.mouseClick(rest.add_button, Qt.MouseButton.LeftButton)
    items = [eds[0] for _, eds in rest.rows]
    assert all(isinstance(i, VariadicItemEditor) for i in items)
    first = items[0]
    assert isinstance(first, VariadicItemEditor)
    # each item starts as text; the new one has the focus, so typing goes on at once
    assert QApplication.focusWidget() is items[-1].findChild(QLineEdit, "arg_rest_3_")
    qtbot.keyClicks(first.edit, "hello")
    number = items[1]
    assert isinstance(number, VariadicItemEditor)
    number.kind.setCurrentText("number")
    qtbot.keyClicks(number.edit, "1.50")
    flag = items[2]
    assert isinstance(flag, VariadicItemEditor)
    flag.kind.setCurrentText("bool")
    assert flag.check.isVisible() and not flag.edit.isVisible()
    flag.check.setChecked(True)
    raw = items[3]
    assert isinstance(raw, VariadicItemEditor)
    raw.kind.setCurrentText("JSON")
    qtbot.keyClicks(raw.edit, '[1, {"a": 2}]')
    assert ed.problems() == []
    assert ed.wire_args()["rest"] == ["hello", "1.50", True, [1, {"a": 2}]]
    # wrong items are named by their place
    raw.edit.setText("{broken")
    assert ed.problems()[0].startswith("rest[3]: not valid JSON")
    assert "not valid JSON" in raw.edit.toolTip()
    raw.edit.setText("null")
    assert ed.problems() == ["rest[3]: null is not a value (the platform refuses null arguments)"]
    number.edit.setText("lots")
    assert "rest[1]: not a number" in ed.problems()[0]
    # remove takes a row out
    remove = rest.findChild(QAbstractButton, "arg_rest_3_remove")
    assert remove is not None
    remove.click()
    number.edit.setText("7")
    assert ed.wire_args()["rest"] == ["hello", 7, True]


def test_raw_json_page_keeps_decimals_exact(qtbot: QtBot) -> None:
    ed = make_editor(qtbot)
    ed.set_values({"rate": "12.000", "price": 3, "rest": ["a", 2]})
    ed.raw_toggle.setChecked(True)
    assert json.loads(ed.raw.toPlainText()) == {"rate": "12.000", "price": 3, "rest": ["a", 2]}
    # JSON numbers with fractions are read exactly, not through a float
    exact = "0.1000000000000000055511151231257827"
    ed.raw.setPlainText(f'{{"rate": {exact}, "price": "7", "rest": [2.50, true, null]}}')
    ed.raw_toggle.setChecked(False)
    assert ed.raw_toggle.isChecked()  # a null cannot go back to the editors
    assert "rest[2]: null" in ed.problems_label.text()
    ed.raw.setPlainText(f'{{"rate": {exact}, "price": "7", "rest": [2.50, true, {{"k": [1]}}]}}')
    ed.raw_toggle.setChecked(False)
    assert not ed.raw_toggle.isChecked()
    assert ed.editors["rate"].value() == exact
    assert ed.editors["price"].value() == 7
    rest = ed.editors["rest"]
    assert isinstance(rest, VariadicEditor)
    kinds = [
        (i.kind.currentText(), i.edit.text())
        for _, (i,) in rest.rows
        if isinstance(i, VariadicItemEditor)
    ]
    assert kinds == [("number", "2.50"), ("bool", ""), ("JSON", '{"k": [1]}')]
    assert ed.wire_args() == {
        "rate": exact,
        "price": 7,
        "rest": ["2.50", True, {"k": [1]}],
    }
    # a raw page opened over a half-typed item still shows it
    items = [eds[0] for _, eds in rest.rows]
    assert isinstance(items[2], VariadicItemEditor)
    items[2].edit.setText("[1,")
    ed.raw_toggle.setChecked(True)
    assert json.loads(ed.raw.toPlainText())["rest"] == ["2.50", True, "[1,"]


def test_every_new_editor_widget_has_names(qtbot: QtBot) -> None:
    ed = make_editor(qtbot)
    rest = ed.editors["rest"]
    assert isinstance(rest, VariadicEditor)
    rest.add_button.click()
    rest.add_button.click()
    missing = [
        f"{type(w).__name__} {w.objectName()!r} {w.accessibleName()!r}"
        for kind in (QAbstractButton, QLineEdit, QComboBox)
        for w in ed.findChildren(kind)
        if not (isinstance(w, QLineEdit) and isinstance(w.parent(), QComboBox))
        and (not w.objectName() or not w.accessibleName())
    ]
    assert missing == []
    names = {w.objectName() for w in ed.findChildren(QComboBox)}
    assert {"arg_rest_0__kind", "arg_rest_1__kind"} <= names


# ---------------------------------------------------------------- rendering


def test_returned_values_render_by_their_declared_types() -> None:
    fn = quote()
    # the sandbox's strings
    items = returned_items(["12.000", "1500", "true", ["1", "abc", "true", ["2"]]], fn)
    assert items == [
        "total (decimal) = <code>12.000</code>",
        "unit (Price) = <code>1500</code> <i>Price</i>",
        "ok (bool) = <code>true</code>",
        "extra (variadic) = "
        "[<code>1</code>, <code>abc</code>, <code>true</code>, [<code>2</code>]]",
    ]
    # a real node's numbers and bools read the same
    assert returned_items([12, 1500, True, [1, True]], fn) == [
        "total (decimal) = <code>12</code>",
        "unit (Price) = <code>1500</code> <i>Price</i>",
        "ok (bool) = <code>true</code>",
        "extra (variadic) = [<code>1</code>, <code>true</code>]",
    ]
    assert returned_items([0.5, "1", False, []], fn)[0] == "total (decimal) = <code>0.5</code>"
    # a variadic spread over the result list is gathered back
    spread = returned_items(["1.5", "2", "false", "x", "y"], fn)
    assert spread[-1] == "extra (variadic) = [<code>x</code>, <code>y</code>]"
    assert (
        returned_items(["1.5", "2", "false", "x"], fn)[-1] == "extra (variadic) = [<code>x</code>]"
    )
    prices = SPEC.function("prices")
    assert returned_items([["1", "2"]], prices) == [
        "#0 (Price[]) = [<code>1</code> <i>Price</i>, <code>2</code> <i>Price</i>]"
    ]
    # without a declaration values still show, escaped
    assert returned_items(["<b>", ["a"]], None) == [
        "#0 = <code>&lt;b&gt;</code>",
        "#1 = [<code>a</code>]",
    ]


def test_inspector_renders_the_new_types(qtbot: QtBot) -> None:
    result = TxResult(
        "Success", "ab" * 32, tag="Call", contents=["3.750", "42", "false", ["a", "1"]]
    )
    details = TxDetails(
        "ab" * 32,
        result,
        contract_name="Shop",
        function=quote(),
        called=SPEC,
        events=[("Quoted", {"rate": "3.750", "price": "42", "ok": "False"})],
    )
    view = QTextBrowser()
    qtbot.addWidget(view)
    view.setHtml(render(details))
    text = view.toPlainText()
    assert "total (decimal) = 3.750" in text
    assert "unit (Price) = 42 Price" in text
    assert "ok (bool) = false" in text
    assert "extra (variadic) = [a, 1]" in text
    assert "Quoted(rate: 3.750, price: 42 Price, ok: false)" in text


def test_mapping_keys_are_wide_enough_for_an_address_and_a_vin(qtbot: QtBot) -> None:
    """A mapping's key shares its row with the value: it used to be squeezed to a few
    characters. An address key shows 0x and all 40 digits, a string key a 17-character VIN."""
    xabi: dict[str, Any] = {
        "funcs": {
            "seed": {
                "args": {
                    "owners": {
                        "tag": "Mapping",
                        "key": {"tag": "Address"},
                        "value": {"tag": "Int", "bytes": 32},
                        "index": 0,
                    },
                    "cars": {
                        "tag": "Mapping",
                        "key": {"tag": "String", "dynamic": True},
                        "value": {"tag": "Bool"},
                        "index": 1,
                    },
                },
                "vals": {},
            }
        }
    }
    f = ContractSpec.from_xabi("Fleet", xabi).function("seed")
    assert f is not None
    ed = ArgumentsEditor("callArgs")
    qtbot.addWidget(ed)
    ed.set_function(f)
    ed.resize(500, 400)
    ed.show()
    qtbot.waitExposed(ed)
    for name in ("owners", "cars"):
        add = ed.editors[name].add_button  # type: ignore[attr-defined]
        qtbot.mouseClick(add, Qt.MouseButton.LeftButton)
    address, vin = "0x" + "a" * 40, "1HGCM82633A004352"
    key = line(ed, "arg_owners_0__key")
    key.setText(address)
    assert key.width() > key.fontMetrics().horizontalAdvance(address)
    car = line(ed, "arg_cars_0__key")
    car.setText(vin)
    assert car.width() > car.fontMetrics().horizontalAdvance(vin)


def test_inspector_says_what_a_genesis_transaction_is(qtbot: QtBot) -> None:
    """The node's kind "GENESIS" alone reads like the main chain's first block; the inspector
    says it as the account panel and the Explorer do."""
    tx = Transaction("cd" * 32, "ab" * 20, None, "GENESIS", 7, "2026-11-24 12:00:00 UTC", 0)
    details = TxDetails("cd" * 32, TxResult("Success", "cd" * 32), tx=tx)
    view = QTextBrowser()
    qtbot.addWidget(view)
    view.setHtml(render(details))
    text = view.toPlainText()
    assert "Chain created" in text and "GENESIS" not in text
