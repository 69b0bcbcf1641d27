"""The Tables panel against a real node with seeded data (issue 8): every operator through the
filter builder, nested and negated groups, URL paste round trip, the chain shortcut, header
sorting, count, limit/offset, joins as nested and expanded cells, history and event tables,
row detail links, saved queries, export of the filtered result, and errors in words."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QModelIndex, QPoint, Qt, QTimer, QUrl
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QToolButton,
    QTreeView,
    QWidget,
)
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.client.cirrus_query import CirrusQuery, Condition, Group
from app.services.controller import AppController
from app.ui.panels.tables.cirrus_model import LOADING
from app.ui.panels.tables.filter_builder import FilterBuilder, join_list, split_list
from app.ui.panels.tables.panel import MIN_ROWS_HEIGHT, TablesPanel, contract_of
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import Family, connect, drive
from tests.gui.keys import tab_through
from tests.integration.node_fixture import RunningNode

pytestmark = pytest.mark.cirrus_families  # the default sandbox and a STRATO 16-only one

SRC = """
contract Maker {
    string public city;
    constructor(string _city) public { city = _city; }
}

contract Car {
    string public model;
    string public color;
    uint public price;
    bool public sold;
    Maker public maker;
    event Sold(string buyer, uint price);

    constructor(string _model, string _color, uint _price, address _maker) public {
        model = _model;
        color = _color;
        price = _price;
        maker = Maker(_maker);
    }

    function sell(string _buyer) public {
        sold = true;
        emit Sold(_buyer, price);
    }
}
"""
MODELS = ["Focus", "Fiesta", "Punto", "Panda", "Mustang"]
COLORS = ["red", "blue", "Red", "green"]
N = 30


@dataclass
class SeedCar:
    address: str
    model: str
    color: str
    price: int
    sold: bool


@dataclass
class Seeded:
    node: RunningNode
    cars: list[SeedCar]
    makers: dict[str, str]  # city -> address
    chain: str  # a private chain of Acme whose governance contract is a Maker
    family: Family  # the Cirrus names the node serves

    @property
    def car(self) -> str:
        """The Car contract's table (``Car``; ``BlockApps-Car`` on a STRATO 16-only node)."""
        return self.family.contract("Car")

    @property
    def maker(self) -> str:
        return self.family.contract("Maker")


def _upload(client: Any, txs: list[dict[str, Any]], history: str = "") -> list[str]:
    for t in txs:
        t["payload"]["metadata"] = {"VM": "SolidVM", **({"history": history} if history else {})}
    r = client.post("/svc/v2.3/transaction?resolve=true", json={"txs": txs})
    assert r.status_code == 200, r.text
    return [res["data"]["contents"]["address"] for res in r.json()]


def _contract(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "CONTRACT", "payload": {"contract": name, "src": SRC, "args": args}}


@pytest.fixture(scope="module")
def seeded(node: RunningNode, family: Family) -> Seeded:
    alice = node.client("alice")
    detroit, turin = _upload(
        alice, [_contract("Maker", {"_city": "Detroit"}), _contract("Maker", {"_city": "Turin"})]
    )
    specs = []
    for i in range(N):
        model = MODELS[i % 5]
        maker = detroit if model in ("Focus", "Fiesta", "Mustang") else turin
        specs.append((model, COLORS[i % 4], 1000 + 100 * i, maker))
    addresses = _upload(
        alice,
        [
            _contract("Car", {"_model": m, "_color": c, "_price": p, "_maker": mk})
            for m, c, p, mk in specs
        ],
        history="Car",
    )
    cars = [
        SeedCar(a, m, c, p, i % 5 == 0)
        for i, (a, (m, c, p, _mk)) in enumerate(zip(addresses, specs, strict=True))
    ]
    sells = [
        {
            "type": "FUNCTION",
            "payload": {"contractAddress": c.address, "method": "sell", "args": {"_buyer": "bob"}},
        }
        for c in cars
        if c.sold
    ]
    r = alice.post("/svc/v2.3/transaction?resolve=true", json={"txs": sells})
    assert r.status_code == 200 and all(x["status"] == "Success" for x in r.json()), r.text
    body = {
        "label": "Secret makers",
        "contract": "Maker",
        "src": SRC,
        "args": {"_city": "Secret"},
        "members": [{"orgName": "Acme", "orgUnit": "", "commonName": "", "access": True}],
        "balances": [{"address": node.address("alice"), "balance": 1000}],
    }
    r = alice.post("/bloc/v2.2/chain", json=body)
    assert r.status_code == 200, r.text
    chain = r.json()
    return Seeded(node, cars, {"Detroit": detroit, "Turin": turin}, chain, family)


@pytest.fixture
def panel(
    seeded: Seeded, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> TablesPanel:
    connect(loop, controller, seeded.node, "alice")
    p = window.panels[2]
    assert isinstance(p, TablesPanel)
    window.nav.setCurrentRow(2)
    drive(loop, lambda: p.table_name.findText(seeded.car) >= 0)
    return p


def open_car(panel: TablesPanel, loop: qasync.QEventLoop, table: str) -> None:
    panel.table_name.setEditText(table)
    panel.apply()
    # the count and the first page are separate requests that may answer in either order:
    # the columns (which tests index by name) are known once the first page is in
    drive(
        loop,
        lambda: (
            panel.builder.info.columns and panel.model.total is not None and 0 in panel.model.pages
        ),
    )


def rows_shown(panel: TablesPanel, loop: qasync.QEventLoop, column: str) -> list[str]:
    """Every value of a column in the view, waiting for the pages."""
    if panel.model.rowCount() == 0:
        return []
    drive(loop, lambda: column in panel.model.columns)
    col = panel.model.columns.index(column)
    out = []
    for r in range(panel.model.rowCount()):
        index = panel.model.index(r, col)
        if panel.model.data(index) == LOADING:

            def loaded(index: QModelIndex = index) -> bool:
                return bool(panel.model.data(index) != LOADING)

            drive(loop, loaded)
        out.append(str(panel.model.data(index)))
    return out


def wait_total(panel: TablesPanel, loop: qasync.QEventLoop, n: int) -> None:
    drive(loop, lambda: panel.model.total == n and panel.status.text() == f"{n:,} row(s)")


def set_condition(
    qtbot: QtBot, builder: FilterBuilder, column: str, op: str, value: str, negate: bool = False
) -> None:
    """Fill the selected condition through its editor, as a user would."""
    builder.column.setEditText(column)
    i = builder.op.findData(op)
    assert i >= 0, f"{op} is not offered for {column}"
    builder.op.setCurrentIndex(i)
    builder.negate.setChecked(negate)
    if builder.value_choice.isVisibleTo(builder):
        j = builder.value_choice.findText(value)
        assert j >= 0
        builder.value_choice.setCurrentIndex(j)
        builder.value_choice.activated.emit(j)
    else:
        builder.value.clear()
        qtbot.keyClicks(builder.value, value)


CarTest = Callable[[SeedCar], bool]
OPERATOR_CASES: list[tuple[str, str, str, CarTest]] = [
    ("color", "eq", "red", lambda c: c.color == "red"),
    ("color", "neq", "red", lambda c: c.color != "red"),
    ("price", "lt", "1500", lambda c: c.price < 1500),
    ("price", "lte", "1500", lambda c: c.price <= 1500),
    ("price", "gt", "3500", lambda c: c.price > 3500),
    ("price", "gte", "3500", lambda c: c.price >= 3500),
    ("color", "like", "R*", lambda c: c.color.startswith("R")),
    ("color", "ilike", "*E*", lambda c: "e" in c.color.lower()),
    ("model", "in", "Punto, Panda", lambda c: c.model in ("Punto", "Panda")),
    ("sold", "is", "true", lambda c: c.sold),
    ("sold", "eq", "false", lambda c: not c.sold),
]


def test_every_operator_through_the_builder(
    panel: TablesPanel, seeded: Seeded, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    open_car(panel, loop, seeded.car)
    b = panel.builder
    assert b.info.column("price") is not None and b.info.column("price").type == "number"  # type: ignore[union-attr]
    # operators follow the column's type: no like on numbers, fixed values on booleans
    b.add_condition()
    set_condition(qtbot, b, "price", "gt", "1")
    assert b.op.findData("ilike") < 0 and b.op.findData("gte") >= 0
    b.column.setEditText("sold")
    assert [b.op.itemData(i) for i in range(b.op.count())] == ["is", "eq", "neq"]
    for column, op, value, test in OPERATOR_CASES:
        for negate in (False, True):
            set_condition(qtbot, b, column, op, value, negate)
            assert not b.problems.text(), b.problems.text()
            b.apply_button.click()
            expected = [c for c in seeded.cars if test(c) != negate]
            wait_total(panel, loop, len(expected))
            wire = f"{column}={'not.' if negate else ''}{op}."
            assert wire in b.preview.text(), b.preview.text()
            shown = sorted(rows_shown(panel, loop, "address"))
            assert shown == sorted(c.address for c in expected), (column, op, negate)


def test_nested_groups_negation_and_url_round_trip(
    panel: TablesPanel, seeded: Seeded, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    open_car(panel, loop, seeded.car)
    b = panel.builder
    # or( color = blue, not and( price >= 3000, model <> Mustang ) )
    group = b.add_group("or")
    set_condition(qtbot, b, "color", "eq", "blue")
    b.tree.setCurrentIndex(b.model.index_of(group))
    inner = b.add_group("and", "inside")
    set_condition(qtbot, b, "price", "gte", "3000")
    b.tree.setCurrentIndex(b.model.index_of(inner))
    b.add_condition()
    set_condition(qtbot, b, "model", "eq", "Mustang", negate=True)
    b.tree.setCurrentIndex(b.model.index_of(inner))
    assert b.editor.currentIndex() == 2  # the group editor
    b.group_negate.setChecked(True)
    expected_qs = "or=(color.eq.blue,not.and(price.gte.3000,model.not.eq.Mustang))"
    assert b.preview.text() == f"GET /cirrus/search/{seeded.car}?{expected_qs}"
    ModelTester(None).check(b.model)
    b.apply()

    def test(c: SeedCar) -> bool:
        return c.color == "blue" or not (c.price >= 3000 and c.model != "Mustang")

    expected = [c for c in seeded.cars if test(c)]
    wait_total(panel, loop, len(expected))
    assert sorted(rows_shown(panel, loop, "address")) == sorted(c.address for c in expected)
    # the tree shows the structure: one OR at the top, with a condition and a NOT AND inside
    top = b.model.index(0, 0)
    assert b.model.data(top) == "OR: any of" and b.model.rowCount(top) == 2
    assert b.model.data(b.model.index(1, 0, top)) == "NOT AND: all of"
    # a pasted URL rebuilds the same tree, with order
    b.set_table(b.info)
    assert b.model.rowCount() == 0
    b.query_text.setText(
        f"{seeded.node.url}/cirrus/search/{seeded.car}?{expected_qs}&order=price.desc"
    )
    b.query_text.returnPressed.emit()
    assert b.draft.where.items == [
        Group(
            "or",
            [
                Condition("color", "eq", "blue"),
                Group(
                    "and",
                    [Condition("price", "gte", "3000"), Condition("model", "eq", "Mustang", True)],
                    negate=True,
                ),
            ],
        )
    ]
    assert b.order.text() == "price.desc" and b.model.rowCount(b.model.index(0, 0)) == 2
    wait_total(panel, loop, len(expected))
    prices = rows_shown(panel, loop, "price")
    assert prices == [str(p) for p in sorted((c.price for c in expected), reverse=True)]
    # removing the group clears the filter (as a draft until applied)
    b.tree.setCurrentIndex(b.model.index(0, 0))
    b.remove_button.click()
    assert b.preview.text() == f"GET /cirrus/search/{seeded.car}?order=price.desc"
    assert panel.model.total == len(expected)  # not applied yet
    b.apply_button.click()
    wait_total(panel, loop, N)


LEFT = Qt.MouseButton.LeftButton


def click_row(qtbot: QtBot, view: QTreeView, index: QModelIndex) -> None:
    qtbot.mouseClick(view.viewport(), LEFT, pos=view.visualRect(index).center())


def choose(qtbot: QtBot, combo: QComboBox, data: str) -> None:
    """Choose the entry whose data is ``data`` with the keyboard, as a user tabbing through the
    form does (Home, then Down until it is there)."""

    def chosen() -> bool:
        return data in (combo.currentData(), combo.currentText())

    combo.setFocus()
    qtbot.keyClick(combo, Qt.Key.Key_Home)
    for _ in range(combo.count()):
        if chosen():
            break
        qtbot.keyClick(combo, Qt.Key.Key_Down)
    assert chosen(), f"{data} is not offered"


def plain_click(qtbot: QtBot, button: QWidget) -> None:
    """A click that must act at once: a menu it pops up instead is closed, and the test fails."""
    returned: list[bool] = []
    popped: list[QWidget] = []

    def close_menu() -> None:
        popup = QApplication.activePopupWidget()
        if not returned and popup is not None:
            popped.append(popup)
            popup.close()

    QTimer.singleShot(300, close_menu)
    qtbot.mouseClick(button, LEFT)
    returned.append(True)
    assert not popped, "the click opened a menu instead of acting"


def menu_click(qtbot: QtBot, button: QToolButton, text: str) -> None:
    """Open a tool button's menu with a click on its arrow and click the action named ``text``
    (the menu runs its own event loop: the click on the action is queued before)."""
    menu = button.menu()
    assert menu is not None
    action = next(a for a in menu.actions() if a.text() == text)
    assert action.isEnabled(), text
    clicked: list[bool] = []

    def pick() -> None:
        if not menu.isVisible():
            QTimer.singleShot(10, pick)
            return
        qtbot.mouseClick(menu, LEFT, pos=menu.actionGeometry(action).center())
        clicked.append(True)

    QTimer.singleShot(0, pick)
    arrow = QPoint(button.width() - 3, button.height() // 2)
    qtbot.mouseClick(button, LEFT, pos=arrow)
    qtbot.waitUntil(lambda: bool(clicked) and not menu.isVisible())


def fill(qtbot: QtBot, builder: FilterBuilder, column: str, op: str, value: str) -> None:
    """Type the column and the value, choose the operator (and fixed values) from their lists."""
    line = builder.column.lineEdit()
    assert line is not None
    qtbot.mouseClick(line, LEFT)
    qtbot.keyClick(line, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(line, column)
    choose(qtbot, builder.op, op)
    if builder.value_choice.isVisibleTo(builder):
        choose(qtbot, builder.value_choice, value)
        return
    qtbot.mouseClick(builder.value, LEFT)
    qtbot.keyClick(builder.value, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(builder.value, value)


def test_any_tree_by_mouse_and_keyboard(
    panel: TablesPanel, seeded: Seeded, loop: qasync.QEventLoop, qtbot: QtBot, qtmodeltester: Any
) -> None:
    """(A OR B) AND NOT (C): a group at the top level after something was selected (issue 16)."""
    open_car(panel, loop, seeded.car)
    b = panel.builder
    qtmodeltester.check(b.model, force_py=True)  # checks the model at every change below
    plain_click(qtbot, b.add_group_button)  # nothing selected: an OR group at the top
    fill(qtbot, b, "color", "eq", "red")
    qtbot.mouseClick(b.add_condition_button, LEFT)  # next to the selected condition
    fill(qtbot, b, "price", "gte", "3500")
    assert b.preview.text() == f"GET /cirrus/search/{seeded.car}?or=(color.eq.red,price.gte.3500)"
    # a condition of the OR group is selected: the menu puts the next group at the top level
    menu_click(qtbot, b.add_group_button, "AND group (all of) at the top level")
    fill(qtbot, b, "model", "eq", "Focus")
    click_row(qtbot, b.tree, b.model.index(1, 0))  # the new group: the group editor shows
    assert b.editor.currentIndex() == 2
    qtbot.mouseClick(b.group_negate, LEFT)
    qs = "or=(color.eq.red,price.gte.3500)&not.and=(model.eq.Focus)"
    assert b.preview.text() == f"GET /cirrus/search/{seeded.car}?{qs}"
    assert b.model.data(b.model.index(1, 0)) == "NOT AND: all of"
    qtbot.mouseClick(b.apply_button, LEFT)
    expected = [
        c for c in seeded.cars if (c.color == "red" or c.price >= 3500) and c.model != "Focus"
    ]
    assert 0 < len(expected) < N
    wait_total(panel, loop, len(expected))
    assert sorted(rows_shown(panel, loop, "address")) == sorted(c.address for c in expected)

    # a click below the rows clears the selection: "+ Condition" then adds at the top level
    tree = b.tree
    below = QPoint(10, tree.viewport().height() - 5)
    assert not tree.indexAt(below).isValid()
    qtbot.mouseClick(tree.viewport(), LEFT, pos=below)
    assert not tree.currentIndex().isValid() and b.editor.currentIndex() == 0
    qtbot.mouseClick(b.add_condition_button, LEFT)
    fill(qtbot, b, "sold", "is", "true")
    assert b.preview.text() == f"GET /cirrus/search/{seeded.car}?{qs}&sold=is.true"
    # moved into the group above (from the Move menu), out again (keyboard), then deleted
    menu_click(qtbot, b.move_button, "Into the group above")
    assert b.draft.where.items[1] == Group(
        "and", [Condition("model", "eq", "Focus"), Condition("sold", "is", "true")], negate=True
    )
    panel.window().activateWindow()  # shortcuts follow the focus of the active window
    tree.setFocus()
    qtbot.waitUntil(tree.hasFocus)
    qtbot.keyClick(
        tree,
        Qt.Key.Key_Left,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert b.preview.text() == f"GET /cirrus/search/{seeded.car}?{qs}&sold=is.true"
    qtbot.keyClick(
        tree, Qt.Key.Key_Up, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    moved = "or=(color.eq.red,price.gte.3500)&sold=is.true&not.and=(model.eq.Focus)"
    assert b.preview.text() == f"GET /cirrus/search/{seeded.car}?{moved}"
    qtbot.keyClick(tree, Qt.Key.Key_Delete)
    assert b.preview.text() == f"GET /cirrus/search/{seeded.car}?{qs}"
    # a group switched from OR to AND by its editor; "+ Group" inside the selected group
    click_row(qtbot, tree, b.model.index(0, 0))
    choose(qtbot, b.group_op, "and")
    menu_click(qtbot, b.add_group_button, "OR group (any of) inside the selected group")
    fill(qtbot, b, "model", "eq", "Punto")
    qtbot.mouseClick(b.add_condition_button, LEFT)
    fill(qtbot, b, "model", "eq", "Panda")
    assert b.preview.text() == (
        f"GET /cirrus/search/{seeded.car}?and=(color.eq.red,price.gte.3500,"
        "or(model.eq.Punto,model.eq.Panda))"
        "&not.and=(model.eq.Focus)"
    )
    # a selected condition goes into a new group of its own, which can then be negated
    click_row(qtbot, tree, b.model.index(0, 0, b.model.index(0, 0)))  # color = red
    menu_click(qtbot, b.move_button, "Into a new group")
    assert b.editor.currentIndex() == 1 and tree.currentIndex().parent().isValid()
    click_row(qtbot, tree, tree.currentIndex().parent())
    qtbot.mouseClick(b.group_negate, LEFT)
    assert b.preview.text() == (
        f"GET /cirrus/search/{seeded.car}?and=(not.or(color.eq.red),price.gte.3500,"
        "or(model.eq.Punto,model.eq.Panda))&not.and=(model.eq.Focus)"
    )
    qtbot.mouseClick(b.apply_button, LEFT)
    expected = [
        c
        for c in seeded.cars
        if c.color != "red" and c.price >= 3500 and c.model in ("Punto", "Panda")
    ]
    wait_total(panel, loop, len(expected))
    assert sorted(rows_shown(panel, loop, "address")) == sorted(c.address for c in expected)


def test_small_screen_scrolls_and_tab_follows_the_layout(
    panel: TablesPanel, seeded: Seeded, window: MainWindow, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    """At 1024x640 the builder gets the height it needs and the rows the rest; squeezed, the
    builder scrolls instead of squashing; Tab goes through the panel in reading order."""
    window.resize(1024, 640)
    hint = panel.minimumSizeHint()
    assert hint.width() <= 1024 - 200 and hint.height() <= 640 - 160, hint
    open_car(panel, loop, seeded.car)
    b = panel.builder
    b.add_group("or")
    b.add_condition()
    loop.run_until_complete(asyncio.sleep(0.05))  # the layout settles
    # a long request (a URL has no spaces to wrap at) does not widen the panel
    b.query_text.setText("or=(" + ",".join(f"color.eq.shade{i}" for i in range(40)) + ")")
    b.apply_text()
    loop.run_until_complete(asyncio.sleep(0.05))
    assert len(b.preview.text()) > 400
    assert panel.minimumSizeHint().width() <= 1024 - 200, panel.minimumSizeHint()
    assert panel.builder_area.horizontalScrollBar().maximum() == 0
    b.query_text.setText("")
    b.apply_text()
    b.add_group("or")
    b.add_condition()
    loop.run_until_complete(asyncio.sleep(0.05))
    area = panel.builder_area
    # all of the builder in view, unless the rows would get less than their minimum
    rows_at_minimum = panel.view.height() <= MIN_ROWS_HEIGHT + 2
    assert area.verticalScrollBar().maximum() == 0 or rows_at_minimum
    assert panel.view.height() >= 120
    # the splitter dragged up: the builder keeps its minimum and scrolls
    panel.split.moveSplitter(110, 1)
    loop.run_until_complete(asyncio.sleep(0.05))
    assert area.height() <= 120 and area.verticalScrollBar().maximum() > 0
    assert b.height() >= b.minimumSizeHint().height()
    area.ensureWidgetVisible(b.apply_button)
    apply_at = b.apply_button.mapTo(area.viewport(), QPoint(0, 0))
    assert area.viewport().rect().contains(apply_at)
    panel.resize(panel.width(), panel.height() + 1)  # the user's split stays as dragged
    assert area.height() <= 120

    # Tab: the top row left to right, the builder's tools, tree, editor, window, query, rows
    b.tree.setCurrentIndex(b.model.index(0, 0, b.model.index(0, 0)))  # a condition
    seen = tab_through(qtbot, panel, panel.table_name, panel.view)
    expected = [
        panel.table_name,
        panel.refresh_tables,
        panel.builder_toggle,
        panel.saved_box,
        panel.save_button,
        b.add_condition_button,
        b.add_group_button,
        b.move_button,
        b.remove_button,
        *([] if seeded.family.strato16 else [b.chain_scope]),  # no chainId: disabled
        b.columns_button,
        b.tree,
        b.column,
        b.negate,
        b.op,
        b.value,
        b.order,
        b.limit,
        b.offset,
        b.query_text,
        b.apply_button,
        panel.view,
    ]
    assert [w.objectName() for w in seen if w in expected] == [w.objectName() for w in expected]


def test_sorting_count_window_and_chain_shortcut(
    panel: TablesPanel, seeded: Seeded, loop: qasync.QEventLoop
) -> None:
    open_car(panel, loop, seeded.car)
    header = panel.view.horizontalHeader()
    price = panel.model.columns.index("price")
    header.sectionClicked.emit(price)
    drive(loop, lambda: panel.model.query is not None and panel.model.query.order != [])
    assert panel.builder.order.text() == "price"
    drive(loop, lambda: panel.model.data(panel.model.index(0, price)) == "1000")
    header.sectionClicked.emit(price)  # again: the other way
    drive(loop, lambda: panel.model.data(panel.model.index(0, price)) == str(1000 + 100 * (N - 1)))
    assert panel.builder.order.text() == "price.desc"
    assert "order=price.desc" in panel.builder.preview.text()
    # limit and offset are a window on the result
    panel.builder.limit.setValue(5)
    panel.builder.offset.setValue(2)
    panel.builder.apply_button.click()
    wait_total(panel, loop, 5)
    assert rows_shown(panel, loop, "price") == [str(1000 + 100 * (N - 1 - i)) for i in range(2, 7)]
    # the chain shortcut on the Maker table: main chain, one chain, every chain
    open_car(panel, loop, seeded.maker)
    wait_total(panel, loop, 3)  # Detroit, Turin and the chain's governance contract
    scope = panel.builder.chain_scope
    if seeded.family.strato16:  # STRATO 16's views have no chainId: nothing to choose by
        assert not scope.isEnabled() and "chainId" not in panel.builder.preview.text()
        assert sorted(rows_shown(panel, loop, "city")) == ["Detroit", "Secret", "Turin"]
        return
    drive(loop, lambda: scope.findData(seeded.chain) >= 0)
    scope.setCurrentIndex(scope.findData(""))
    scope.activated.emit(scope.currentIndex())
    assert "chainId=eq." in panel.builder.preview.text()
    panel.builder.apply()
    wait_total(panel, loop, 2)
    scope.setCurrentIndex(scope.findData(seeded.chain))
    scope.activated.emit(scope.currentIndex())
    panel.builder.apply()
    wait_total(panel, loop, 1)
    assert rows_shown(panel, loop, "city") == ["Secret"]
    scope.setCurrentIndex(0)
    scope.activated.emit(0)
    assert panel.builder.draft.where.items == []
    panel.builder.apply()
    wait_total(panel, loop, 3)


def test_joins_nested_and_expanded(
    panel: TablesPanel, seeded: Seeded, loop: qasync.QEventLoop
) -> None:
    open_car(panel, loop, seeded.car)
    b = panel.builder
    if seeded.family.strato16:
        # STRATO 16 embeds a contract-typed column through ``maker_fkey``, a computed
        # relationship its schema document does not describe: no join is offered (yet)
        assert not [a for a in b.columns_menu.actions() if a.objectName().startswith("join:")]
        return
    join = next(a for a in b.columns_menu.actions() if a.objectName() == "join:maker")
    assert join.text() == "Join Maker through maker"
    for name in ("column:model", "column:maker"):
        next(a for a in b.columns_menu.actions() if a.objectName() == name).trigger()
    join = next(a for a in b.columns_menu.actions() if a.objectName() == "join:maker")
    join.trigger()  # applied at once
    assert b.preview.text() == f"GET /cirrus/search/{seeded.car}?select=model,maker,Maker(*)"
    drive(loop, lambda: "Maker" in panel.model.columns and 0 in panel.model.pages)
    col = panel.model.columns.index("Maker")
    assert panel.model.is_join(col)
    cell = panel.model.data(panel.model.index(0, col))
    assert cell.startswith("▸ ") and "city=" in cell
    # expanding shows the joined row's fields as columns
    panel.model.expand(col)
    assert "Maker.city" in panel.model.columns and "Maker" not in panel.model.columns
    cities = rows_shown(panel, loop, "Maker.city")
    models = rows_shown(panel, loop, "model")
    for model, city in zip(models, cities, strict=True):
        assert city == ("Detroit" if model in ("Focus", "Fiesta", "Mustang") else "Turin")
    ModelTester(None).check(panel.model)
    panel.model.collapse("Maker")
    assert "Maker" in panel.model.columns and "Maker.city" not in panel.model.columns
    # the detail pane shows the nested row with copy links for its fields
    panel.view.clicked.emit(panel.model.index(0, 0))
    html = panel.detail.toHtml()
    assert "copy:Maker.city" in html
    panel.detail.anchorClicked.emit(QUrl("copy:Maker.city"))
    assert panel.status.text() == "Copied Maker.city"


def test_history_and_event_tables_and_row_links(
    panel: TablesPanel, seeded: Seeded, loop: qasync.QEventLoop
) -> None:
    names = [panel.table_name.itemText(i) for i in range(panel.table_name.count())]
    fam = seeded.family
    car, history, sold_event = seeded.car, fam.history("Car"), fam.event("Car", "Sold")
    assert {car, seeded.maker, history, sold_event} <= set(names)
    if fam.strato16:  # the global history@storage is listed with the global tables, last
        assert names.index(car) < names.index(sold_event) < names.index(history)
    else:
        assert names.index(car) < names.index(history) < names.index(sold_event)
    open_car(panel, loop, sold_event)
    wait_total(panel, loop, sum(c.sold for c in seeded.cars))
    assert panel.builder.info.column("buyer") is not None
    assert set(rows_shown(panel, loop, "buyer")) == {"bob"}
    assert not panel.builder.chain_scope.isEnabled()  # event tables have no chainId
    sold = next(c for c in seeded.cars if c.sold)
    open_car(panel, loop, history)
    if fam.strato16:  # every contract's history: the sold car's two versions
        panel.builder.query_text.setText(f"address=eq.{sold.address}")
        panel.builder.query_text.returnPressed.emit()
        wait_total(panel, loop, 2)
    else:
        wait_total(panel, loop, N + sum(c.sold for c in seeded.cars))
    # a car's row links to its history, its contract and its transactions
    open_car(panel, loop, seeded.car)
    panel.builder.query_text.setText(f"address=eq.{sold.address}")
    panel.builder.query_text.returnPressed.emit()
    wait_total(panel, loop, 1)
    drive(loop, lambda: 0 in panel.model.pages)
    panel.view.clicked.emit(panel.model.index(0, 0))
    requested: list[Any] = []
    panel.contract_requested.connect(lambda *a: requested.append(a))
    panel.transaction_requested.connect(lambda h: requested.append((h,)))
    panel.detail.anchorClicked.emit(QUrl("contract:"))
    assert requested[-1] == ("Car", sold.address, "")
    row = panel.model.row(0)
    assert row is not None
    if not fam.strato16:  # STRATO 16's rows name no transaction
        panel.detail.anchorClicked.emit(QUrl(f"tx:{row['transaction_hash']}"))
        assert requested[-1] == (row["transaction_hash"],)
    panel.detail.anchorClicked.emit(QUrl("transactions:"))
    drive(loop, lambda: "Transactions (" in panel.detail.toPlainText())
    # created, then sold (STRATO 16 has no per-contract history of transactions: the sale)
    assert f"Transactions ({1 if fam.strato16 else 2})" in panel.detail.toPlainText()
    panel.detail.anchorClicked.emit(QUrl("history:"))
    assert panel.table_name.currentText() == history
    wait_total(panel, loop, 2)
    if fam.strato16:
        drive(loop, lambda: 0 in panel.model.pages)
        datas = [panel.model.row(i) for i in range(2)]
        assert [d["data"]["sold"] for d in datas if d] == ["true", "false"]  # newest first
    else:
        assert rows_shown(panel, loop, "sold") == ["true", "false"]  # newest first


def test_errors_are_said_in_words_and_nothing_is_sent(
    panel: TablesPanel, seeded: Seeded, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    open_car(panel, loop, seeded.car)
    b = panel.builder
    b.add_condition()
    set_condition(qtbot, b, "price", "gt", "cheap")
    assert "price is a number column: 'cheap' is not a number" in b.problems.text()
    assert not b.apply_button.isEnabled()
    # a filter on a column the table lacks: the node's refusal in words
    b.query_text.setText("nope=eq.1")
    b.query_text.returnPressed.emit()
    drive(loop, lambda: panel.status.text().startswith("✘"))
    assert f"table '{seeded.car}' has no column 'nope'" in panel.status.text()
    # text that is no query at all is refused before anything is sent
    b.query_text.setText("price=zz.1")
    b.query_text.returnPressed.emit()
    assert "unknown operator 'zz'" in b.problems.text()
    # an unknown table
    panel.table_name.setEditText("Nope")
    panel.apply()
    drive(loop, lambda: "there is no table 'Nope'" in panel.status.text())


def test_saved_queries_per_profile_and_export(
    panel: TablesPanel,
    seeded: Seeded,
    controller: AppController,
    loop: qasync.QEventLoop,
    tmp_path: Path,
) -> None:
    open_car(panel, loop, seeded.car)
    panel.builder.query_text.setText("color=eq.blue&order=price.desc&select=price,color")
    panel.builder.query_text.returnPressed.emit()
    blue = sorted((c.price for c in seeded.cars if c.color == "blue"), reverse=True)
    wait_total(panel, loop, len(blue))
    panel.save_query("Blue cars")
    drive(loop, lambda: panel.saved_box.findText("Blue cars") >= 0)
    stored = json.loads((tmp_path / "config" / "saved_queries.json").read_text())
    profile = controller.session.profile
    assert profile is not None
    assert stored["profiles"][profile.name] == {
        "Blue cars": f"/cirrus/search/{seeded.car}?select=price,color&color=eq.blue"
        "&order=price.desc"
    }
    assert controller.cirrus.saved.load("another profile") == {}
    # choosing it runs it again, from another table
    open_car(panel, loop, seeded.maker)
    i = panel.saved_box.findText("Blue cars")
    panel.saved_box.setCurrentIndex(i)
    panel.saved_box.activated.emit(i)
    assert panel.table_name.currentText() == seeded.car
    wait_total(panel, loop, len(blue))
    # export writes every row of the filtered, ordered result
    target = tmp_path / "blue.csv"
    panel.export_to(target, "csv")
    drive(loop, lambda: panel.status.text().startswith("Exported"))
    lines = target.read_text().splitlines()
    assert lines[0] == "price,color" and lines[1:] == [f"{p},blue" for p in blue]
    # deleting it
    panel.saved_box.setCurrentIndex(panel.saved_box.findText("Blue cars"))
    panel.delete_saved()
    drive(loop, lambda: panel.saved_box.findText("Blue cars") < 0)
    assert controller.cirrus.saved.load(profile.name) == {}


def test_filter_tree_model_and_list_values(qtbot: QtBot) -> None:
    b = FilterBuilder()
    qtbot.addWidget(b)
    q = CirrusQuery.from_query_string(
        "Car", "a=eq.1&or=(b.in.(x,%22y,z%22),and(c.is.null,not.or(d.lt.2,e.gt.3)))&f=not.like.Q*"
    )
    b.set_draft(q)
    ModelTester(None).check(b.model)
    assert b.model.rowCount() == 3
    top_or = b.model.index(1, 0)
    assert b.model.rowCount(top_or) == 2
    in_cond = b.model.index(0, 2, top_or)
    assert b.model.data(in_cond) == "x, 'y,z'"
    assert b.model.data(b.model.index(2, 1)) == "not like"
    # removing and adding keep the model consistent
    b.tree.setCurrentIndex(b.model.index(1, 0, top_or))
    b.add_condition(Condition("g", "eq", "5"))
    ModelTester(None).check(b.model)
    assert b.draft.to_query_string().startswith(
        "a=eq.1&or=(b.in.(x,%22y,z%22),and(c.is.null,not.or(d.lt.2,e.gt.3),g.eq.5))"
    )
    b.tree.setCurrentIndex(b.model.index(0, 0))
    b.remove_selected()
    assert b.model.rowCount() == 2
    assert split_list('a, "b,c", d') == ["a", "b,c", "d"]
    assert join_list(["a", "b,c", ""]) == 'a, "b,c", ""'
    assert split_list(join_list(["x y", 'q"t', " pad "])) == ["x y", 'q"t', "pad"]
    assert contract_of("history@Acme-Shop-Part") == "Part" and contract_of("Car.Sold") == "Car"


def test_main_window_routes_contract_links(
    panel: TablesPanel, seeded: Seeded, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    car = seeded.cars[0]
    panel.contract_requested.emit("Car", car.address, "")
    composer = window.panels[1]
    assert window.stack.currentWidget() is composer
    assert composer.call_address.text() == car.address  # type: ignore[attr-defined]
    drive(loop, lambda: composer.function.count() > 0)  # type: ignore[attr-defined]
    functions = [composer.function.itemData(i) for i in range(composer.function.count())]  # type: ignore[attr-defined]
    assert "sell" in functions


def test_a_node_without_the_schema_document(
    seeded: Seeded,
    controller: AppController,
    loop: qasync.QEventLoop,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Behind a proxy that does not pass PostgREST's root through, the picker offers the
    contracts the node lists, and column types are guessed from rows."""
    from app.client.http import StratoClient

    async def no_schema(self: StratoClient) -> dict[str, Any]:
        return {}

    monkeypatch.setattr(StratoClient, "cirrus_schema", no_schema)
    connect(loop, controller, seeded.node, "alice")
    tables = loop.run_until_complete(controller.cirrus.tables(refresh=True))
    assert {seeded.car, seeded.maker} <= set(tables) and all(t.inferred for t in tables.values())
    if seeded.family.strato16:  # not the plain names bloc lists: this node has no such tables
        assert not {"Car", "Maker"} & set(tables)
    info = loop.run_until_complete(controller.cirrus.table_info(seeded.car))
    types = {c.name: c.type for c in info.columns}
    assert types["price"] == "number" and types["sold"] == "boolean" and types["model"] == "text"
    assert info.joins == []  # join targets cannot be guessed from rows


TOKEN_SRC = """
contract Token {
    string public symbol;
    mapping(address => uint) public balances;
    constructor(string _symbol) public {
        symbol = _symbol;
        balances[msg.sender] = 1000;
        balances[address(0xb0b)] = 25;
    }
}
"""


def test_collection_tables_are_listed_and_browsed(
    panel: TablesPanel, seeded: Seeded, loop: qasync.QEventLoop
) -> None:
    """Issue 17: a mapping's collection table (``Token-balances``) is in the picker beside its
    contract's table, its rows show the balances, and a row links to the token contract."""
    alice = seeded.node.client("alice")
    payload = {"contract": "Token", "src": TOKEN_SRC, "args": {"_symbol": "TOK"}}
    (token,) = _upload(alice, [{"type": "CONTRACT", "payload": payload}])
    panel.reload_tables(refresh=True)
    table, balances = seeded.family.contract("Token"), seeded.family.collection("Token", "balances")
    drive(loop, lambda: panel.table_name.findText(balances) >= 0)
    names = [panel.table_name.itemText(i) for i in range(panel.table_name.count())]
    assert names.index(balances) == names.index(table) + 1
    open_car(panel, loop, balances)
    wait_total(panel, loop, 2)
    assert sorted(rows_shown(panel, loop, "value")) == ["1000", "25"]
    assert set(rows_shown(panel, loop, "key")) == {seeded.node.address("alice"), "0" * 37 + "b0b"}
    assert set(rows_shown(panel, loop, "collection_name")) == {"balances"}
    panel.view.clicked.emit(panel.model.index(0, 0))
    requested: list[Any] = []
    panel.contract_requested.connect(lambda *a: requested.append(a))
    panel.detail.anchorClicked.emit(QUrl("contract:"))
    assert requested[-1] == ("Token", token, "")
    panel.detail.anchorClicked.emit(QUrl("history:"))
    assert panel.table_name.currentText() == seeded.family.history("Token")
