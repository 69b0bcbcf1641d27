"""The Assets panel against a real sandbox node (issue 9): the demo application CarDemo, a car's
whole life through the forms and the confirmation sheet, who sees it as users switch and as it
changes hands, its shard and history, search and filters (the same rows as the equivalent
Cirrus query), refusals in words, updates sent as contract calls with the scheme in either bit
order, an application opened by URL, and a second window signed in as another user."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import qasync
import shiboken6
from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QSizePolicy, QWidget
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.client.assets import AssetApp
from app.services.assets import SCHEME_ORDER_KEY
from app.services.controller import AppController
from app.ui.panels.assets.dialogs import AssetForm
from app.ui.panels.assets.panel import AssetsPanel
from app.ui.shell.main_window import MainWindow
from app.ui.widgets.confirm_dialog import ConfirmDialog
from tests.gui.conftest import connect, drive
from tests.integration.node_fixture import RunningNode

GOV = "0000000000000000000000000000000000000100"
CAR_KEY = "CarDemo/car"


def open_panel(
    loop: qasync.QEventLoop, controller: AppController, window: MainWindow, node: RunningNode
) -> AssetsPanel:
    connect(loop, controller, node, "alice")
    panel = next(p for p in window.panels if isinstance(p, AssetsPanel))
    window.nav.setCurrentRow(window.panels.index(panel))
    drive(loop, lambda: panel.loaded and panel.listing is not None)
    assert panel.current() is not None
    assert panel.app_box.currentData() == CAR_KEY
    return panel


def as_user(loop: qasync.QEventLoop, panel: AssetsPanel, user: str) -> None:
    """Switch the window's user and wait for the panel's list as that user."""
    loop.run_until_complete(panel.controller.switch_user(user, user))
    drive(loop, lambda: f"visible to {user}" in panel.status.text())


def make_car(node: RunningNode, user: str, vin: str, **fields: Any) -> str:
    args = {"vin": vin, "color": "red", "model": "T", "weight": 1000, **fields}
    r = node.client(user).post("/apps/CarDemo/car", json={"carArgs": args})
    assert r.status_code == 200, r.text
    return str(r.json()["data"]["chainIds"][0])


def review(loop: qasync.QEventLoop, form: AssetForm) -> ConfirmDialog:
    """Press Review… on a form; the confirmation sheet it opens."""
    assert form.review_button.isEnabled(), form.problems_label.text()
    form.review_button.click()
    drive(loop, lambda: form.findChild(ConfirmDialog) is not None)
    sheet = form.findChild(ConfirmDialog)
    assert isinstance(sheet, ConfirmDialog) and sheet.isVisible()
    return sheet


def request_of(sheet: ConfirmDialog) -> tuple[str, dict[str, Any]]:
    """The first line (method and URL) and the JSON body the sheet shows."""
    head, body = sheet.request.toPlainText().split("\n\n", 1)
    out: dict[str, Any] = json.loads(body)
    return head, out


def closed(form: AssetForm) -> bool:
    return not shiboken6.isValid(form) or not form.isVisible()


def send(loop: qasync.QEventLoop, form: AssetForm, sheet: ConfirmDialog) -> None:
    """Send, and wait until the form closed (success) or shows the node's answer."""
    sheet.send_button.click()
    drive(loop, lambda: closed(form) or form.error.text().startswith("✘"), 30)


def selected_chain(panel: AssetsPanel) -> str:
    rec = panel.selected()
    return rec.chain_id if rec is not None else ""


def current_app(panel: AssetsPanel) -> AssetApp:
    cur = panel.current()
    assert cur is not None
    return cur[0]


def cards(panel: AssetsPanel) -> int:
    """Cards in the gallery: the rows its (shared) model shows."""
    model = panel.gallery.model()
    assert model is panel.table.model()
    return model.rowCount()


# ---------------------------------------------------------------------------- lifecycle


def test_a_car_created_updated_and_transferred_through_the_forms(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    panel = open_panel(loop, controller, window, node)
    assert panel.views.tabText(0) == "Gallery" and panel.gallery.viewMode().name == "IconMode"
    before = set(panel.visible_chains())

    # -- create: a typed form, checked as it is typed, then the confirmation sheet
    form = panel.new_asset()
    assert form is not None
    assert set(form.editors) == {"vin", "color", "model", "weight"}
    for name, value in (("vin", "VIN-GUI-1"), ("color", "red"), ("model", "Accord")):
        form.set_value(name, value)
    form.set_value("weight", "heavy")
    assert "weight must be a whole number, not 'heavy'" in form.problems_label.text()
    assert not form.review_button.isEnabled()
    form.set_value("weight", "1400")
    assert form.problems_label.text() == ""
    sheet = review(loop, form)
    head, body = request_of(sheet)
    assert head == f"POST {node.url}/apps/CarDemo/car"
    assert body == {
        "carArgs": {"vin": "VIN-GUI-1", "color": "red", "model": "Accord", "weight": 1400}
    }
    assert sheet.preview.curl().startswith("curl -s -X POST")  # -s: no progress meter
    send(loop, form, sheet)
    assert closed(form)
    drive(loop, lambda: selected_chain(panel) not in ("", *before))
    car = panel.selected()
    assert car is not None and car.values == {
        "vin": "VIN-GUI-1",
        "color": "red",
        "model": "Accord",
        "weight": 1400,
    }
    chain = car.chain_id
    assert car.owner_label == "alice" and car.organization == "Acme"
    assert chain in panel.visible_chains()
    assert cards(panel) == len(panel.visible_chains()) >= 1
    row = panel.model.row_of(chain)
    assert panel.model.index(row, 0).data() == "alice"
    assert panel.model.index(row, 1).data() == "Acme / Engineering"
    assert panel.last_action.text() == f"✔ Created a car on its shard {chain}"

    # -- bob (Globex) does not see alice's car
    as_user(loop, panel, "bob")
    assert chain not in panel.visible_chains()
    assert panel.selected() is None and panel.detail is None
    as_user(loop, panel, "alice")
    assert chain in panel.visible_chains()

    # -- update two fields: one check box each, the scheme shown in the sandbox's bit order
    assert panel.select(chain)
    upd = panel.update_asset()
    assert upd is not None and upd.current_order() == "seed"
    assert upd.bit_labels["vin"].text() == "1000 = 8"
    assert upd.bit_labels["weight"].text() == "0001 = 1"
    assert "tick at least one field" in upd.problems_label.text()
    upd.set_value("color", "blue")
    upd.set_value("weight", "1600")
    assert "0101 = 5" in upd.scheme.text()
    assert not upd.editors["vin"].isEnabled()  # unticked: not sent
    sheet = review(loop, upd)
    head, body = request_of(sheet)
    assert head == f"PUT {node.url}/apps/CarDemo/car/update"
    assert body == {"address": GOV, "chainId": chain, "updates": {"color": "blue", "weight": 1600}}
    what = sheet.findChild(QLabel, "confirmWhat")
    assert what is not None and "(scheme 0101 = 5)" in what.text()
    assert "color: red → blue" in what.text()
    send(loop, upd, sheet)
    drive(loop, lambda: panel.detail is not None and panel.detail.record.values["color"] == "blue")
    assert panel.detail is not None and panel.detail.record.values["weight"] == 1600
    r = node.client("alice").get(f"/apps/CarDemo/car/{chain}")
    assert (r.json()["data"]["color"], r.json()["data"]["weight"]) == ("blue", 1600)

    # -- transfer to bob, picked among the node's users
    xfer = panel.transfer_asset()
    assert xfer is not None
    xfer.choose("bob")
    assert "Globex gains the shard and Acme loses it" in xfer.note.text()
    sheet = review(loop, xfer)
    head, body = request_of(sheet)
    assert head == f"POST {node.url}/apps/CarDemo/car/transferOwnership"
    assert body == {"address": GOV, "chainId": chain, "newOwner": node.address("bob")}
    send(loop, xfer, sheet)
    assert closed(xfer)
    drive(
        loop,
        lambda: chain not in panel.visible_chains() and "visible to alice" in panel.status.text(),
    )

    # -- now bob sees it, with its shard and its history
    as_user(loop, panel, "bob")
    assert chain in panel.visible_chains()
    assert panel.select(chain)
    drive(loop, lambda: len(panel.timeline_rows()) == 3, 20)
    detail = panel.detail
    assert detail is not None
    assert [(e.values["color"], e.owner_name) for e in detail.timeline] == [
        ("red", "alice"),
        ("blue", "alice"),
        ("blue", "bob"),
    ]
    rows = panel.timeline_rows()
    assert rows[0][2].split("\n") == [
        "created by alice (Acme)",
        "vin = VIN-GUI-1",
        "color = red",
        "model = Accord",
        "weight = 1400",
    ]
    assert rows[1][2].split("\n") == ["color: red → blue", "weight: 1400 → 1600"]
    assert rows[2][2].split("\n") == ["owner alice → bob", "the shard moves from Acme to Globex"]
    assert detail.timeline[2].describe() == "owner alice → bob; the shard moves from Acme to Globex"
    assert [r[1] for r in rows] == ["alice", "alice", "bob"]
    assert panel.d_chain.value() == chain
    assert "Globex" in panel.d_members.text() and "Acme" not in panel.d_members.text()
    assert "bob" in panel.d_owner.text() and "Globex" in panel.d_owner.text()
    # a change's transaction opens in the inspector
    opened: list[str] = []
    panel.transaction_requested.connect(opened.append)
    item = panel.timeline.topLevelItem(2)
    assert item is not None
    panel.timeline.itemDoubleClicked.emit(item, 0)
    assert opened == [detail.timeline[2].tx_hash] and len(opened[0]) == 64


# ---------------------------------------------------------------------------- search and filter


def cirrus_chains(node: RunningNode, user: str, url: str) -> set[str]:
    r = node.client(user).get(url)
    assert r.status_code == 200, r.text
    return {row["chainId"] for row in r.json()}


def test_search_and_filters_narrow_the_list_like_cirrus(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    ours = {
        make_car(node, "alice", "FLT-1", color="magenta", weight=100): "FLT-1",
        make_car(node, "alice", "FLT-2", color="Magenta", weight=300): "FLT-2",
        make_car(node, "alice", "FLT-3", color="teal", weight=500): "FLT-3",
    }
    carols = make_car(node, "carol", "FLT-4", color="magenta", weight=700)  # Acme: alice sees it
    make_car(node, "alice", "OTHER-1", color="magenta", weight=100)  # not found by the search
    panel = open_panel(loop, controller, window, node)
    everything = set(panel.visible_chains())
    assert set(ours) | {carols} <= everything

    def shown() -> set[str]:
        return {
            panel.model.records[panel.model.row_of(c)].values["vin"] for c in panel.visible_chains()
        }

    panel.search.setText("flt-")
    assert shown() == {"FLT-1", "FLT-2", "FLT-3", "FLT-4"}
    assert cards(panel) == 4
    assert panel.status.text().startswith("4 shown of ")
    panel.filter.setText("color=ilike.magenta&weight=lt.600")
    assert shown() == {"FLT-1", "FLT-2"}
    panel.filter.setText("or=(weight.eq.100,color.eq.teal)")
    assert shown() == {"FLT-1", "FLT-3"}
    # the same query of the Cirrus table gives the same assets
    label = panel.cirrus_query.text()
    assert label.startswith("Same in Cirrus: /cirrus/search/Acme-CarDemo-Car?appChainId=eq.")
    url = label.removeprefix("Same in Cirrus: ")
    assert cirrus_chains(node, "alice", url) == set(panel.visible_chains())
    # a filter that cannot work is explained; the last good one stays
    panel.filter.setText("weight=gt.heavy")
    assert "weight is a number: 'heavy' is not one" in panel.filter_status.text()
    assert shown() == {"FLT-1", "FLT-3"}
    panel.filter.setText("wheels=eq.4")
    assert "no column 'wheels'" in panel.filter_status.text()
    panel.filter.setText("")
    assert panel.filter_status.text() == ""
    panel.mine.setChecked(True)  # carol's car goes
    assert shown() == {"FLT-1", "FLT-2", "FLT-3"}
    panel.mine.setChecked(False)
    panel.search.setText("")
    assert set(panel.visible_chains()) == everything
    # the list and its filtered view keep Qt's model contract
    ModelTester(None).check(panel.model)
    ModelTester(None).check(panel.proxy)


# ---------------------------------------------------------------------------- refusals


def test_refusals_are_shown_in_words_and_the_form_keeps_its_values(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    panel = open_panel(loop, controller, window, node)
    # a transfer to a user without an identity: the contract refuses it
    chain = make_car(node, "alice", "REFUSE-1")
    panel.reload(select=chain)
    drive(loop, lambda: selected_chain(panel) == chain)
    form = panel.transfer_asset()
    assert form is not None
    form.to.setEditText("0x" + node.address("dave").upper())
    assert "No identity on this node has that address" in form.note.text()
    sheet = review(loop, form)
    assert request_of(sheet)[1]["newOwner"] == node.address("dave")
    send(loop, form, sheet)
    assert form.isVisible()
    assert "the new owner has no registered identity" in form.error.text()
    assert form.to.currentText() == "0x" + node.address("dave").upper()
    form.reject()

    # bob's organization is not a member of alice's application: creating is refused
    as_user(loop, panel, "bob")
    create = panel.new_asset()
    assert create is not None
    for name, value in (("vin", "BOB-1"), ("color", "grey"), ("model", "M"), ("weight", "5")):
        create.set_value(name, value)
    send(loop, create, review(loop, create))
    assert create.isVisible()
    assert "Not allowed (HTTP 403): user bob is not a member of application CarDemo" in (
        create.error.text()
    )
    assert create.values() == {"vin": "BOB-1", "color": "grey", "model": "M", "weight": 5}
    assert create.review_button.isEnabled()  # ready to try again
    create.reject()


# ---------------------------------------------------------------------------- contract calls


def test_update_as_a_contract_call_sends_the_scheme_in_the_chosen_bit_order(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    chain = make_car(node, "alice", "SCHEME-1", color="red", weight=1000)
    panel = open_panel(loop, controller, window, node)
    panel.reload(select=chain)
    drive(loop, lambda: selected_chain(panel) == chain)

    def current() -> dict[str, Any]:
        data: dict[str, Any] = node.client("alice").get(f"/apps/CarDemo/car/{chain}").json()["data"]
        return {k: data[k] for k in ("vin", "color", "model", "weight")}

    # the sandbox's order: color and weight are 0101 = 5
    form = panel.update_asset()
    assert form is not None
    form.via.setCurrentIndex(form.via.findData("contract"))
    form.set_value("color", "green")
    form.set_value("weight", "1100")
    sheet = review(loop, form)
    head, body = request_of(sheet)
    assert head == f"POST {node.url}/svc/v2.3/transaction?resolve=true&chainid={chain}"
    (tx,) = body["txs"]
    assert tx["payload"]["method"] == "update"
    assert tx["payload"]["contractAddress"] == GOV
    assert tx["payload"]["args"] == {
        "_vin": "SCHEME-1",
        "_color": "green",
        "_model": "T",
        "_weight": 1100,
        "_scheme": 5,
    }
    send(loop, form, sheet)
    assert closed(form)
    assert current() == {"vin": "SCHEME-1", "color": "green", "model": "T", "weight": 1100}

    # the platform's order, chosen for this application and kept in the profile
    drive(loop, lambda: panel.selected() is not None)
    form = panel.update_asset()
    assert form is not None
    form.order.setCurrentIndex(1)
    drive(loop, lambda: controller.assets.scheme_order(current_app(panel)) == "platform")
    assert controller.session.profile is not None
    assert controller.session.profile.extra[SCHEME_ORDER_KEY] == {"CarDemo": "platform"}

    def saved() -> object:  # written off the GUI thread, after the choice is in memory
        found = {p.name: p for p in controller.profiles.load()}
        profile = controller.session.profile
        mine = found.get(profile.name) if profile is not None else None
        return mine.extra.get(SCHEME_ORDER_KEY) if mine is not None else None

    drive(loop, lambda: saved() == {"CarDemo": "platform"})
    assert panel.order_box.currentData() == "platform"
    form.via.setCurrentIndex(form.via.findData("contract"))
    assert form.bit_labels["vin"].text() == "0001 = 1"
    form.set_value("weight", "9")
    assert "1000 = 8" in form.scheme.text()
    sheet = review(loop, form)
    assert request_of(sheet)[1]["txs"][0]["payload"]["args"]["_scheme"] == 8
    send(loop, form, sheet)
    # the sandbox's contract reads bit 8 as the first field (vin, sent unchanged): the weight
    # stays, which is why the order must match the application's contract
    assert current() == {"vin": "SCHEME-1", "color": "green", "model": "T", "weight": 1100}
    panel.set_scheme_order("seed")
    drive(loop, lambda: controller.assets.scheme_order(current_app(panel)) == "seed")


# ---------------------------------------------------------------------------- other applications


def test_an_application_opened_by_url(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    mine = make_car(node, "alice", "URL-1")
    panel = open_panel(loop, controller, window, node)
    panel.url.setText(f"{node.url}/apps/CarDemo/car")
    panel.open_button.click()
    drive(loop, lambda: panel.app_box.currentData() == "/apps/CarDemo/car" and panel.loaded)
    drive(loop, lambda: panel.listing is not None and panel.listing.app.foreign)
    app, asset = panel.current()  # type: ignore[misc]
    assert app.foreign and app.base == "/apps/CarDemo"
    assert asset.field_names == ["vin", "color", "model", "weight"]  # read from its rows
    assert asset.field("weight") is not None and asset.field("weight").type == "int"  # type: ignore[union-attr]
    assert panel.order_box.currentData() == "platform"  # a foreign app: the platform's order
    assert mine in panel.visible_chains()
    assert "which a typed URL does not give" in panel.cirrus_query.text()
    # a URL that is not an asset route is explained
    panel.url.setText("ftp://elsewhere/car")
    panel.open_button.click()
    drive(loop, lambda: panel.status.text().startswith("✘"))
    assert "http://, https:// or /" in panel.status.text()


def test_a_second_window_signed_in_as_another_user(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    chain = make_car(node, "alice", "TWIN-1")
    panel = open_panel(loop, controller, window, node)
    assert chain in panel.visible_chains()
    # a node of its own (not the embedded sandbox): bob's password must be known first
    panel.open_second_window("bob")
    drive(loop, lambda: panel.status.text().startswith("✘"))
    assert "sign in as bob once with Act as" in panel.status.text()
    as_user(loop, panel, "bob")
    as_user(loop, panel, "alice")
    panel.open_second_window("bob")
    drive(loop, lambda: bool(panel.second_windows), 20)
    (second,) = panel.second_windows
    assert isinstance(second, MainWindow)
    twin = next(p for p in second.panels if isinstance(p, AssetsPanel))
    drive(loop, lambda: twin.loaded and "visible to bob" in twin.status.text())
    assert twin.app_box.currentData() == CAR_KEY
    assert chain not in twin.visible_chains()
    assert second.controller.session.username == "bob"
    assert controller.session.username == "alice"  # the first window is still alice's
    # alice hands the car to bob: it appears in his window when it reloads
    r = node.client("alice").post(
        "/apps/CarDemo/car/transferOwnership", json={"chainId": chain, "newOwner": "bob"}
    )
    assert r.status_code == 200, r.text
    twin.reload()
    drive(loop, lambda: chain in twin.visible_chains())
    second.close()
    drive(loop, lambda: second.is_closed, 20)


def test_switching_the_user_in_the_toolbar_reloads_the_assets(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    chain = make_car(node, "alice", "SWITCH-1")
    panel = open_panel(loop, controller, window, node)
    alice_view = set(panel.visible_chains())
    assert chain in alice_view

    def pick(user: str) -> None:
        assert window.user_switcher.findText(user) >= 0, user
        window.switch_user(user, user)  # the toolbar's switcher, its password given
        drive(loop, lambda: f"visible to {user}" in panel.status.text(), 20)
        assert window.user_switcher.currentText() == user

    pick("carol")
    assert set(panel.visible_chains()) == alice_view  # same organization, same shards
    pick("bob")
    assert chain not in panel.visible_chains()
    assert not alice_view & set(panel.visible_chains())


# ---------------------------------------------------------------------------- mouse and layout


def click_card(qtbot: QtBot, panel: AssetsPanel, chain: str) -> None:
    """A real mouse click on the asset's card in the Gallery tab."""
    panel.views.setCurrentWidget(panel.gallery)
    index = panel.proxy.mapFromSource(panel.model.index(panel.model.row_of(chain), 0))
    assert index.isValid(), chain
    panel.gallery.scrollTo(index)
    rect = panel.gallery.visualRect(index)
    assert rect.isValid() and panel.gallery.viewport().rect().contains(rect.center())
    qtbot.mouseClick(panel.gallery.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def click_row(qtbot: QtBot, panel: AssetsPanel, chain: str, column: int = 2) -> None:
    """A real mouse click on a cell of the asset's row in the Table tab."""
    panel.views.setCurrentWidget(panel.table)
    index = panel.proxy.mapFromSource(panel.model.index(panel.model.row_of(chain), column))
    assert index.isValid(), chain
    panel.table.scrollTo(index)
    rect = panel.table.visualRect(index)
    assert rect.isValid() and panel.table.viewport().rect().contains(rect.center())
    qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def shows(panel: AssetsPanel, chain: str) -> bool:
    """The detail pane shows the asset on ``chain``, read from the node, with its history."""
    d = panel.detail
    return d is not None and d.record.chain_id == chain and panel.timeline.topLevelItemCount() > 0


def test_clicking_a_card_or_a_row_opens_the_asset(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    first = make_car(node, "alice", "CLICK-1", color="orange")
    second = make_car(node, "alice", "CLICK-2", color="purple")
    panel = open_panel(loop, controller, window, node)
    panel.selection.clearSelection()
    panel.selection.setCurrentIndex(QModelIndex(), QItemSelectionModel.SelectionFlag.Clear)
    drive(loop, lambda: panel.detail is None)
    assert panel.d_title.text() == "Select an asset"
    assert not panel.update_button.isEnabled() and not panel.transfer_button.isEnabled()

    click_card(qtbot, panel, first)
    drive(loop, lambda: shows(panel, first))
    assert "CLICK-1" in panel.d_title.text()
    assert panel.update_button.isEnabled() and panel.transfer_button.isEnabled()

    click_row(qtbot, panel, second)
    drive(loop, lambda: shows(panel, second))
    assert "CLICK-2" in panel.d_title.text()
    assert panel.d_chain.value() == second
    # and back on the card of the first: the shared selection follows the click
    click_card(qtbot, panel, first)
    drive(loop, lambda: shows(panel, first))
    assert selected_chain(panel) == first
    # the keyboard moves through the cards the same way
    panel.gallery.setFocus()
    qtbot.keyClick(panel.gallery, Qt.Key.Key_Home)
    top = panel.proxy.record(0)
    assert top is not None
    drive(loop, lambda: shows(panel, top.chain_id))
    qtbot.keyClick(panel.gallery, Qt.Key.Key_Right)
    after = panel.proxy.record(1)
    assert after is not None
    drive(loop, lambda: shows(panel, after.chain_id))


def test_the_new_owner_clicks_a_transferred_car_and_sees_its_history(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    chain = make_car(node, "alice", "GIFT-1", color="green")
    panel = open_panel(loop, controller, window, node)
    assert panel.select(chain)
    form = panel.transfer_asset()
    assert form is not None
    form.choose("bob")
    send(loop, form, review(loop, form))
    assert closed(form)
    drive(loop, lambda: chain not in panel.visible_chains())
    as_user(loop, panel, "bob")
    assert chain in panel.visible_chains()
    click_row(qtbot, panel, chain)
    drive(loop, lambda: shows(panel, chain) and panel.timeline.topLevelItemCount() == 2, 20)
    assert [r[1] for r in panel.timeline_rows()] == ["alice", "bob"]
    assert panel.timeline_rows()[1][2].startswith("owner alice → bob")
    assert "bob" in panel.d_owner.text()
    assert panel.update_button.isEnabled() and panel.transfer_button.isEnabled()
    as_user(loop, panel, "alice")


def heights(form: AssetForm) -> dict[str, int]:
    """The height of each entry of a form (line edits, combo boxes), by object name."""
    return {
        w.objectName(): w.height()
        for w in form.findChildren(QWidget)
        if isinstance(w, (QLineEdit, QComboBox)) and w.objectName() and w.isVisible()
    }


def fits(edit: QLineEdit | QComboBox, text: str) -> bool:
    """``text`` is shown whole in the entry (its text area is at least as wide)."""
    line = edit if isinstance(edit, QLineEdit) else edit.lineEdit()
    assert line is not None
    margins = line.textMargins()
    room = line.width() - margins.left() - margins.right() - 8  # the frame's padding
    return room >= line.fontMetrics().horizontalAdvance(text)


def test_forms_keep_their_fields_when_the_node_refuses(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    window.resize(1024, 640)
    panel = open_panel(loop, controller, window, node)
    chain = make_car(node, "alice", "SQUASH-1")
    panel.reload(select=chain)
    drive(loop, lambda: selected_chain(panel) == chain)

    # -- transfer to an address without an identity: refused, the owner box keeps its height
    form = panel.transfer_asset()
    assert form is not None
    qtbot.waitExposed(form)
    dave = "0x" + node.address("dave")
    form.to.setEditText(dave)
    assert fits(form.to, dave), (form.to.width(), dave)
    before = heights(form)
    assert before["assetTransferTo"] >= form.to.sizeHint().height()
    send(loop, form, review(loop, form))
    assert "no registered identity" in form.error.text()
    qtbot.wait(50)  # the layout settles
    assert heights(form) == before
    assert form.error.height() >= form.error.heightForWidth(form.error.width()) > 0
    form.reject()
    # choosing bob shows a note inside the entries: the dialog grows, the note shows whole
    form = panel.transfer_asset()
    assert form is not None
    qtbot.waitExposed(form)
    form.choose("bob")
    qtbot.wait(50)
    assert form.note.isVisible() and "Globex gains the shard" in form.note.text()
    shown = form.note.visibleRegion().boundingRect().height()
    assert shown >= form.note.heightForWidth(form.note.width()) > 0, shown
    assert form.scroller.verticalScrollBar().maximum() == 0
    form.reject()

    # -- bob may not create: the form keeps every field whole after the refusal
    as_user(loop, panel, "bob")
    create = panel.new_asset()
    assert create is not None
    qtbot.waitExposed(create)
    vin = "1HGCM82633A004352"  # a 17-character VIN
    for name, value in (("vin", vin), ("color", "grey"), ("model", "M"), ("weight", "5")):
        create.set_value(name, value)
    edit = create.editors["vin"]
    assert isinstance(edit, QLineEdit) and fits(edit, vin), edit.width()
    before = heights(create)
    assert all(h >= edit.sizeHint().height() for h in before.values()), before
    send(loop, create, review(loop, create))
    assert "not a member of application CarDemo" in create.error.text()
    qtbot.wait(50)
    assert heights(create) == before
    assert create.error.height() >= create.error.heightForWidth(create.error.width()) > 0
    create.reject()
    as_user(loop, panel, "alice")


def test_new_is_disabled_with_the_reason_for_a_user_the_node_would_refuse(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    panel = open_panel(loop, controller, window, node)
    assert panel.create_button.isEnabled()  # alice (Acme) is a member of CarDemo
    assert not panel.create_reason.isVisible()
    # bob's Globex is not a member of the application: the node would answer 403
    as_user(loop, panel, "bob")
    assert not panel.create_button.isEnabled()
    reason = "Globex is not a member of CarDemo: the node refuses bob a new car"
    assert reason in panel.create_button.toolTip()
    assert panel.create_reason.isVisible() and reason in panel.create_reason.text()
    qtbot.mouseClick(panel.create_button, Qt.MouseButton.LeftButton)
    qtbot.wait(50)
    assert panel.findChild(AssetForm) is None  # a click on it opens nothing
    # dave has no certificate at all
    as_user(loop, panel, "dave")
    assert not panel.create_button.isEnabled()
    assert "dave has no registered identity" in panel.create_reason.text()
    # back to a member: New… works again, the reason goes
    as_user(loop, panel, "carol")
    assert panel.create_button.isEnabled() and not panel.create_reason.isVisible()
    assert panel.create_button.toolTip() == "Create an asset of this application"
    qtbot.mouseClick(panel.create_button, Qt.MouseButton.LeftButton)
    drive(loop, lambda: isinstance(panel.findChild(AssetForm), AssetForm))
    form = panel.findChild(AssetForm)
    assert form is not None and form.isVisible()
    form.reject()
    as_user(loop, panel, "alice")


def test_the_panel_is_usable_at_1024x640(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    vin = "1HGCM82633A004352"
    chains = [make_car(node, "alice", f"SMALL-{i}") for i in range(3)]
    chain = make_car(node, "alice", vin)
    panel = open_panel(loop, controller, window, node)
    # the other panels' own minimum sizes are their modules' concern: only this one counts
    for p in window.panels:
        if p is not panel:
            p.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)

    def small() -> bool:  # once the window's minimum size has followed (a posted event)
        window.resize(1024, 640)
        return window.size() == QSize(1024, 640)

    qtbot.waitUntil(small, timeout=3000)
    panel.reload(select=chain)
    drive(loop, lambda: shows(panel, chain))
    panel.views.setCurrentWidget(panel.gallery)
    qtbot.wait(50)
    assert window.size() == QSize(1024, 640)
    window.grab().save(str(tmp_path / "assets-1024x640.png"))
    inside = panel.rect()
    for w in (
        panel.app_box,
        panel.search,
        panel.filter,
        panel.create_button,
        panel.update_button,
        panel.transfer_button,
        panel.order_box,
        panel.second_button,
        panel.timeline,
        panel.status,
    ):
        box = QRect(w.mapTo(panel, QPoint(0, 0)), w.size())
        assert w.isVisible() and inside.contains(box), (w.objectName(), box, inside)
        assert w.width() >= w.minimumSizeHint().width(), w.objectName()
    # two columns of cards, the VIN in the title whole; the detail shows the owner's address
    first, second = (panel.proxy.index(r, 0) for r in (0, 1))
    assert panel.gallery.visualRect(first).top() == panel.gallery.visualRect(second).top()
    assert panel.gallery.viewport().rect().contains(panel.gallery.visualRect(second))
    card = panel.gallery.visualRect(panel.proxy.mapFromSource(panel.model.index(0, 0)))
    title = QFont(panel.gallery.font())
    title.setBold(True)
    title.setPointSizeF(title.pointSizeF() * 1.1)
    assert QFontMetrics(title).horizontalAdvance(vin) <= card.width() - 8 - 17
    assert panel.d_owner.width() >= panel.d_owner.minimumSizeHint().width()
    assert set(chains) <= set(panel.visible_chains())
