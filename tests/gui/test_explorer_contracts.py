"""The Explorer's Contracts and Events views against a real sandbox node (issue 19): the
contract tree by name and instance, an instance's state (a big mapping a page at a time), its
methods (opening the composer's Call tab), transactions, events and Cirrus table links; the
Events feed merged newest first across contracts, filtered, with arguments by name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QListWidget, QWidget
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.services.explorer_contracts import ExplorerContractsService, Instance
from app.ui.panels.composer.panel import ComposerPanel
from app.ui.panels.explorer.contracts_view import ContractsView
from app.ui.panels.explorer.events_view import EventDetail, EventsView
from app.ui.panels.explorer.instance_detail import InstanceDetail
from app.ui.panels.explorer.transactions_model import TX_ROLE
from app.ui.panels.tables.panel import TablesPanel
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import Family, connect, drive
from tests.integration.node_fixture import RunningNode, call_tx, submit, upload_tx

pytestmark = pytest.mark.cirrus_families  # the default sandbox and a STRATO 16-only one

LEDGER = """
contract Ledger {
    mapping(uint => uint) public big;
    uint public total;
    string public label;
    event Filled(uint start, uint count, string note);
    constructor(string _label) public { label = _label; }
    function fill(uint start, uint n, string note) public {
        for (uint i = start; i < start + n; i++) { big[i] = i * 2 + 1; }
        total += n;
        emit Filled(start, n, note);
    }
}
"""
REGISTRY = """
contract Registry {
    uint public count;
    event Registered(string who, uint id);
    event Dropped(uint id);
    function register(string who) public { count += 1; emit Registered(who, count); }
    function drop(uint id) public { emit Dropped(id); }
}
"""
# (contract, event), newest first, as the calls below make them (one block each)
FEED = [
    ("Registry", "Registered"),
    ("Registry", "Dropped"),
    ("Ledger", "Filled"),
    ("Registry", "Registered"),
    ("Ledger", "Filled"),
]


@dataclass
class Seeded:
    node: RunningNode
    family: Family  # the Cirrus names the node serves
    ledger: str
    ledger2: str
    registry: str
    chain: str  # a private chain of Acme (alice's org) governed by a Registry
    ledger_tx: str  # the transaction that created ``ledger``


def texts(args: dict[str, Any]) -> dict[str, str]:
    """Event arguments as text: the seed's event tables hold text, STRATO 16's views numbers
    for integers."""
    return {k: str(v) for k, v in args.items()}


def _ok(res: Any) -> Any:
    assert all(r["status"] == "Success" for r in res), res
    return res


@pytest.fixture(scope="module")
def seeded(node: RunningNode, family: Family) -> Seeded:
    alice = node.client("alice")
    (r1,) = _ok(submit(alice, upload_tx("Ledger", LEDGER, {"_label": "main ledger"})))
    (r2,) = _ok(submit(alice, upload_tx("Ledger", LEDGER, {"_label": "spare"})))
    (r3,) = _ok(submit(alice, upload_tx("Registry", REGISTRY)))
    ledger, ledger2, registry = (str(r["data"]["contents"]["address"]) for r in (r1, r2, r3))
    for tx in (
        call_tx(ledger, "fill", {"start": 0, "n": 120, "note": "first"}),
        call_tx(registry, "register", {"who": "ann"}),
        call_tx(ledger, "fill", {"start": 120, "n": 5, "note": "second"}),
        call_tx(registry, "drop", {"id": 1}),
        call_tx(registry, "register", {"who": "bob"}),
    ):
        _ok(submit(alice, tx))  # resolve=true: each in a later block than the one before
    body = {
        "label": "Private registry",
        "contract": "Registry",
        "src": REGISTRY,
        "args": {},
        "members": [{"orgName": "Acme", "orgUnit": "", "commonName": "", "access": True}],
        "balances": [{"address": node.address("alice"), "balance": 1000}],
    }
    r = alice.post("/bloc/v2.2/chain", json=body)
    assert r.status_code == 200, r.text
    return Seeded(node, family, ledger, ledger2, registry, str(r.json()), str(r1["hash"]))


class Links(QWidget):
    """The Explorer panel's side of the views, for these tests: it records what the views
    ask for and shows the detail widget beside the view."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, Any]] = []
        self.detail: QWidget | None = None
        self.lay = QHBoxLayout(self)
        self.resize(1024, 640)

    def host(self, view: QWidget) -> None:
        self.lay.addWidget(view, 1)

    def show_transaction(self, tx_hash: str) -> None:
        self.calls.append(("transaction", tx_hash))

    def show_block(self, number: int) -> None:
        self.calls.append(("block", number))

    def show_address(self, address: str) -> None:
        self.calls.append(("address", address))

    def show_detail(self, widget: QWidget, title: str) -> None:
        self.calls.append(("detail", title))
        if self.detail is not None:
            self.detail.deleteLater()
        widget.setParent(self)
        self.lay.addWidget(widget, 2)
        widget.show()
        self.detail = widget


@pytest.fixture
def links(qtbot: QtBot) -> Links:
    w = Links()
    qtbot.addWidget(w)
    return w


def click(qtbot: QtBot, view: Any, index: QModelIndex) -> None:
    view.scrollTo(index)
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center()
    )


def contracts_view(
    seeded: Seeded, controller: AppController, loop: qasync.QEventLoop, links: Links
) -> ContractsView:
    connect(loop, controller, seeded.node, "alice")
    view = ContractsView(controller, links)
    links.host(view)
    return view


def test_nothing_read_while_hidden_then_tree_lists_names_and_instances(
    seeded: Seeded,
    controller: AppController,
    loop: qasync.QEventLoop,
    links: Links,
    qtbot: QtBot,
    qtmodeltester: ModelTester,
) -> None:
    view = contracts_view(seeded, controller, loop, links)
    loop.run_until_complete(__import__("asyncio").sleep(0.3))
    assert not view.model.loading and view.model.names() == []  # hidden: no read
    links.show()
    drive(loop, lambda: {"Ledger", "Registry"} <= set(view.model.names()))
    model = view.model
    ledger = model.name_index("Ledger")
    assert model.rowCount(ledger) == 0  # instances made when expanded
    view.tree.setFocus()
    view.tree.setCurrentIndex(ledger)
    qtbot.keyClick(view.tree, Qt.Key.Key_Right)  # expand
    assert view.tree.isExpanded(ledger) and model.rowCount(ledger) == 2
    got = {model.instance(model.index(r, 0, ledger)).address for r in range(2)}  # type: ignore[union-attr]
    assert got == {seeded.ledger, seeded.ledger2}
    created = model.index(0, 2, ledger).data()
    assert "block " in created, created  # the creation block, from the node
    qtmodeltester.check(model)
    # a private chain's instance is listed with its chain
    reg = model.name_index("Registry")
    view.tree.setCurrentIndex(reg)
    qtbot.keyClick(view.tree, Qt.Key.Key_Right)
    assert model.rowCount(reg) == 2
    chains = {model.instance(model.index(r, 0, reg)).chain_id for r in range(2)}  # type: ignore[union-attr]
    assert chains == {"", seeded.chain}
    # choosing it shows its state, read on its chain
    row = next(r for r in range(2) if model.index(r, 1, reg).data() != "main")
    click(qtbot, view.tree, model.index(row, 0, reg))
    detail = links.detail
    assert isinstance(detail, InstanceDetail) and detail.instance.chain_id == seeded.chain
    drive(loop, lambda: [v.name for v in detail.state_model.vars] == ["count"])
    assert str(detail.state_model.vars[0].value) == "0"
    tm = detail.txs_model
    drive(loop, lambda: tm.rowCount() == 1 and tm.at_end)  # read too: nothing left in flight
    # no call yet: only the chain's creation (its GENESIS made the governing Registry)
    assert tm.index(0, 0).data().startswith("[created]")
    # in the account panel's words, not the node's GENESIS
    drive(loop, lambda: "Chain created" in tm.index(0, 0).data())
    assert "Genesis" not in tm.index(0, 0).data()
    qtmodeltester.check(model)
    # the filter box: by name, then by address prefix
    qtbot.keyClicks(view.filter, "regis")
    assert model.names() == ["CertificateRegistry", "Registry"]  # the node's own one too
    view.filter.clear()
    qtbot.keyClicks(view.filter, seeded.ledger2[:10])
    assert model.names() == ["Ledger"]
    drive(loop, lambda: model.rowCount(model.index(0, 0)) == 1)  # expanded: the one match
    assert model.instance(model.index(0, 0, model.index(0, 0))).address == seeded.ledger2  # type: ignore[union-attr]
    links.grab().save("/tmp/x19c/contracts_tree.png")


def open_ledger(
    seeded: Seeded, view: ContractsView, links: Links, loop: qasync.QEventLoop, qtbot: QtBot
) -> InstanceDetail:
    links.show()
    model = view.model
    drive(loop, lambda: "Ledger" in model.names())
    qtbot.keyClicks(view.filter, seeded.ledger[:12])
    drive(loop, lambda: model.rowCount(model.name_index("Ledger")) == 1)  # the one match
    idx = model.index(0, 0, model.name_index("Ledger"))
    click(qtbot, view.tree, idx)
    assert isinstance(links.detail, InstanceDetail)
    assert links.detail.instance.address == seeded.ledger
    return links.detail


def test_instance_state_big_mapping_paged_methods_transactions_events(
    seeded: Seeded,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    links: Links,
    qtbot: QtBot,
    qtmodeltester: ModelTester,
) -> None:
    view = contracts_view(seeded, controller, loop, links)
    view.contract_requested.connect(window.open_contract)
    view.table_requested.connect(window.open_table)
    detail = open_ledger(seeded, view, links, loop, qtbot)
    state = detail.state_model
    drive(loop, lambda: len(state.vars) == 3)
    by_name = {v.name: v for v in state.vars}
    assert by_name["label"].value == "main ledger"
    assert str(by_name["total"].value) == "125"
    assert by_name["big"].collection and by_name["big"].length == 125
    assert by_name["big"].value is None  # not read: only counted
    qtmodeltester.check(state)
    big = state.variable_index("big")
    assert state.rowCount(big) == 0
    detail.state_view.setFocus()
    detail.state_view.setCurrentIndex(big)
    qtbot.keyClick(detail.state_view, Qt.Key.Key_Right)  # expanding reads the first page
    drive(loop, lambda: len(state.entries("big")) == 50)
    loop.run_until_complete(__import__("asyncio").sleep(0.3))
    assert len(state.entries("big")) == 50  # the first page only, until asked
    assert state.entries("big")[:2] == [("0", "1"), ("1", "3")]
    more = state.index(50, 0, big)
    assert state.is_more_row(more) and "50 of 125" in more.data()
    click(qtbot, detail.state_view, more)
    drive(loop, lambda: len(state.entries("big")) == 100)
    more = state.index(100, 0, big)
    detail.state_view.setCurrentIndex(more)
    qtbot.keyClick(detail.state_view, Qt.Key.Key_Return)  # the keyboard way
    drive(loop, lambda: len(state.entries("big")) == 125)
    assert state.rowCount(big) == 125  # no "more" row left
    assert state.entries("big")[124] == ("124", "249")
    qtmodeltester.check(state)
    links.grab().save("/tmp/x19c/instance_state.png")

    # methods: a click opens the composer's Call tab with the method chosen
    detail.tabs.setCurrentWidget(detail.methods)
    methods: QListWidget = detail.methods
    drive(loop, lambda: methods.count() >= 1 and methods.item(0).data(Qt.ItemDataRole.UserRole + 2))
    row = next(i for i in range(methods.count()) if methods.item(i).text().startswith("fill("))
    click(qtbot, methods, methods.indexFromItem(methods.item(row)))
    composer = next(p for p in window.panels if isinstance(p, ComposerPanel))
    drive(loop, lambda: composer.function.currentData() == "fill")
    assert window.stack.currentWidget() is composer and composer.tabs.currentIndex() == 1
    assert composer.call_address.text() == seeded.ledger

    # transactions: the one that created it first (the address filter misses it: a CONTRACT
    # transaction has no `to`), then the two calls; a click asks the panel to show one
    txs_page = detail.txs.parentWidget()
    assert txs_page is not None
    detail.tabs.setCurrentWidget(txs_page)
    txs = detail.txs_model
    drive(loop, lambda: txs.rowCount() == 3 and txs.at_end)
    assert txs.index(0, 0).data().startswith("[created]")
    assert txs.index(0, 0).data(TX_ROLE).hash == seeded.ledger_tx
    assert "Contract" in txs.index(0, 0).data()
    assert all(not txs.index(i, 0).data().startswith("[created]") for i in (1, 2))
    qtmodeltester.check(txs, force_py=True)  # with a row pinned above the pages
    click(qtbot, detail.txs, txs.index(1, 0))
    assert links.calls[-1][0] == "transaction" and len(links.calls[-1][1]) == 64
    assert links.calls[-1][1] != seeded.ledger_tx
    qtbot.mouseClick(detail.address_button, Qt.MouseButton.LeftButton)
    assert links.calls[-1] == ("address", seeded.ledger)

    # events of this instance, arguments by name
    detail.tabs.setCurrentWidget(detail.events)
    ev = detail.events.model
    drive(loop, lambda: len(ev.rows) == 2 and not ev.loading)
    assert [texts(r.args) for r in ev.rows] == [
        {"start": "120", "count": "5", "note": "second"},
        {"start": "0", "count": "120", "note": "first"},
    ]
    assert detail.events.contract_box.isHidden()
    assert [
        detail.events.event_box.itemText(i) for i in range(detail.events.event_box.count())
    ] == [
        "All events",
        "Filled",
    ]

    # the Cirrus tables in the Tables panel
    qtbot.mouseClick(detail.table_button, Qt.MouseButton.LeftButton)
    tables = next(p for p in window.panels if isinstance(p, TablesPanel))
    assert window.stack.currentWidget() is tables
    assert tables.table_name.currentText() == seeded.family.contract("Ledger")
    drive(loop, lambda: tables.model.rowCount() == 1)  # this instance's row, not the spare's
    assert tables.model.index(0, 0).data() is not None
    if seeded.family.strato16:  # STRATO 16 keeps every contract's history
        assert detail.history_button.isEnabled() and detail.tables_note.isHidden()
        qtbot.mouseClick(detail.history_button, Qt.MouseButton.LeftButton)
        assert tables.table_name.currentText() == "history@storage"
        drive(loop, lambda: tables.model.rowCount() >= 2)  # its creation and its two calls
        assert not tables.status.text().startswith("✘")
        return
    # Ledger was made without history: no history@ table to open, and the detail says why
    assert not detail.history_button.isEnabled()
    assert "No history@Ledger table" in detail.tables_note.text()
    assert detail.tables_note.isVisibleTo(detail)


def test_events_feed_merged_newest_first_filtered_decoded(
    seeded: Seeded,
    controller: AppController,
    loop: qasync.QEventLoop,
    links: Links,
    qtbot: QtBot,
    qtmodeltester: ModelTester,
) -> None:
    connect(loop, controller, seeded.node, "alice")
    view = EventsView(controller, links)
    links.host(view)
    loop.run_until_complete(__import__("asyncio").sleep(0.2))
    assert view.tables == []  # hidden: nothing read
    links.show()
    model = view.model
    # the node's own certificate registry logged 4 events in its genesis block: oldest
    drive(loop, lambda: len(model.rows) == 9 and not model.loading)
    assert [(r.contract, r.event) for r in model.rows[:5]] == FEED
    assert {(r.contract, r.block_number) for r in model.rows[5:]} == {("CertificateRegistry", 0)}
    blocks = [r.block_number for r in model.rows]
    assert all(b is not None for b in blocks) and blocks == sorted(blocks, reverse=True)  # type: ignore[type-var]
    assert texts(model.rows[0].args) == {"who": "bob", "id": "2"}
    assert model.index(0, 4).data() == "who=bob, id=2"
    qtmodeltester.check(model)
    links.grab().save("/tmp/x19c/events_feed.png")

    # filter by contract with the keyboard, then by event
    box: QComboBox = view.contract_box
    box.setFocus()
    qtbot.keyClicks(box, "Registry")
    assert box.currentData() == "Registry"
    drive(loop, lambda: len(model.rows) == 3 and not model.loading)
    assert [(r.contract, r.event) for r in model.rows] == [f for f in FEED if f[0] == "Registry"]
    ebox: QComboBox = view.event_box
    assert [ebox.itemText(i) for i in range(ebox.count())] == [
        "All events",
        "Dropped",
        "Registered",
    ]
    ebox.setFocus()
    qtbot.keyClicks(ebox, "Registered")
    drive(loop, lambda: len(model.rows) == 2 and not model.loading)
    assert [r.args["who"] for r in model.rows] == ["bob", "ann"]
    qtmodeltester.check(model)

    # an event's detail: its arguments by name, links to its transaction and block
    click(qtbot, view.table, model.index(1, 0))
    assert isinstance(links.detail, EventDetail)
    assert links.detail.fields["who"].value() == "ann"
    assert str(links.detail.fields["id"].value()) == "1"
    if seeded.family.strato16:  # STRATO 16's event rows name their block, not their transaction
        assert model.rows[1].tx_hash == "" and not links.detail.tx_button.isEnabled()
    else:
        qtbot.mouseClick(links.detail.tx_button, Qt.MouseButton.LeftButton)
        assert links.calls[-1] == ("transaction", model.rows[1].tx_hash)
    qtbot.mouseClick(links.detail.block_button, Qt.MouseButton.LeftButton)
    assert links.calls[-1:] == [("block", model.rows[1].block_number)]
    # back to everything
    box.setCurrentIndex(0)
    ebox.setCurrentIndex(0)
    drive(loop, lambda: len(model.rows) == 9 and not model.loading)
    n = 9 if seeded.family.strato16 else 4  # STRATO 16: a view of every declared event
    assert f"9 events from {n} tables, newest first" in view.status.text()


def test_feed_merges_pages_without_reading_everything(
    seeded: Seeded, controller: AppController, loop: qasync.QEventLoop
) -> None:
    """Pages of two rows per table: the merge reads only what the rows asked for need."""
    connect(loop, controller, seeded.node, "alice")
    service = ExplorerContractsService(controller.session)
    tables = loop.run_until_complete(service.event_tables())
    fam = seeded.family
    tables = [fam.event("Ledger", "Filled"), fam.event("Registry", "Dropped")]
    tables.append(fam.event("Registry", "Registered"))
    assert set(tables) <= set(loop.run_until_complete(service.event_tables()))
    feed = service.feed(tables, page=1)
    first = loop.run_until_complete(feed.next(2))
    assert [(r.contract, r.event) for r in first] == FEED[:2]
    assert feed.pages_read <= 4 and not feed.exhausted
    rest = loop.run_until_complete(feed.next(10))
    assert [(r.contract, r.event) for r in first + rest] == FEED
    assert feed.exhausted


def test_asset_instance_opens_its_prefixed_tables_and_shows_its_creation(
    seeded: Seeded,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    links: Links,
    qtbot: QtBot,
) -> None:
    """A car of the demo asset application: its Cirrus table is ``Acme-CarDemo-Car`` (the
    application's prefix), not ``Car``; its history table likewise; the transaction that made
    it (the shard's GENESIS, on the main chain) heads its transactions."""
    node = seeded.node
    r = node.client("alice").post(
        "/apps/CarDemo/car",
        json={"carArgs": {"vin": "X19", "color": "red", "model": "T", "weight": 1000}},
    )
    assert r.status_code == 200, r.text
    chain = str(r.json()["data"]["chainIds"][0])
    other = node.client("alice").post(  # a second car: same address 0x100, another chain
        "/apps/CarDemo/car",
        json={"carArgs": {"vin": "X20", "color": "blue", "model": "T", "weight": 900}},
    )
    assert other.status_code == 200, other.text
    view = contracts_view(seeded, controller, loop, links)
    view.table_requested.connect(window.open_table)
    links.show()
    model = view.model
    drive(loop, lambda: "Car" in model.names())
    car = model.name_index("Car")
    view.tree.expand(car)
    drive(loop, lambda: model.rowCount(car) >= 1)
    row = next(
        i
        for i in range(model.rowCount(car))
        if model.instance(model.index(i, 0, car)).chain_id == chain  # type: ignore[union-attr]
    )
    click(qtbot, view.tree, model.index(row, 0, car))
    detail = links.detail
    assert isinstance(detail, InstanceDetail) and detail.instance.chain_id == chain
    drive(loop, detail.table_button.isEnabled)
    fam = seeded.family
    table, history = fam.contract("Car", "Acme-CarDemo-Car"), fam.history("Car", "Acme-CarDemo-Car")
    assert detail.tables.table == table
    assert detail.tables_label.text() == f"{table}, {history}"
    assert detail.history_button.isEnabled() and detail.tables_note.isHidden()
    qtbot.mouseClick(detail.table_button, Qt.MouseButton.LeftButton)
    tables = next(p for p in window.panels if isinstance(p, TablesPanel))
    assert window.stack.currentWidget() is tables
    assert tables.table_name.currentText() == table
    drive(loop, lambda: tables.model.rowCount() >= 1)
    assert not tables.status.text().startswith("✘")
    if fam.strato16:  # no chain column: both cars at 0x100 (alice is a member of both chains)
        assert tables.model.rowCount() == 2
        assert "chainId" not in tables.builder.draft.to_query_string()
    else:  # the car's row only: every car has the address 0x100, its chain tells it apart
        assert tables.model.rowCount() == 1
        assert f"chainId=eq.{chain}" in tables.builder.draft.to_query_string()
    qtbot.mouseClick(detail.history_button, Qt.MouseButton.LeftButton)
    assert tables.table_name.currentText() == history
    drive(loop, lambda: tables.model.rowCount() >= 1)
    assert not tables.status.text().startswith("✘")
    # its creation: a transaction whose result created 0x100 on the car's chain
    txs = detail.txs_model
    drive(loop, lambda: txs.rowCount() >= 1 and txs.index(0, 0).data(TX_ROLE) is not None)
    assert txs.index(0, 0).data().startswith("[created]")
    made = (
        node.client("alice")
        .get(f"/bloc/v2.2/transactions/{txs.index(0, 0).data(TX_ROLE).hash}/result")
        .json()
    )
    assert detail.instance.address in made["txResult"]["contractsCreated"]
    assert made["data"]["contents"]["chainId"] == chain


def test_contract_without_a_table_says_so(
    seeded: Seeded, controller: AppController, loop: qasync.QEventLoop, links: Links
) -> None:
    connect(loop, controller, seeded.node, "alice")
    links.show()
    detail = InstanceDetail(controller, Instance("Ghost", seeded.ledger), links)
    links.show_detail(detail, "Ghost")
    drive(loop, lambda: "no table of Ghost" in detail.tables_note.text())
    assert not detail.table_button.isEnabled() and not detail.history_button.isEnabled()
    drive(loop, lambda: detail.tasks.running == 0)


def test_arrow_keys_through_instances_build_one_detail(
    seeded: Seeded,
    controller: AppController,
    loop: qasync.QEventLoop,
    links: Links,
    qtbot: QtBot,
) -> None:
    """Moving through the node's four Certificates with the arrow keys builds the detail of
    the one the selection settles on only; a click builds its own at once."""
    view = contracts_view(seeded, controller, loop, links)
    links.show()
    model = view.model
    drive(loop, lambda: "Certificate" in model.names())
    cert = model.name_index("Certificate")
    view.tree.expand(cert)
    drive(loop, lambda: model.rowCount(cert) == 4)
    details = lambda: [c for c in links.calls if c[0] == "detail"]  # noqa: E731
    click(qtbot, view.tree, model.index(0, 0, cert))
    assert len(details()) == 1  # at once
    view.tree.setFocus()
    for _ in range(3):
        qtbot.keyClick(view.tree, Qt.Key.Key_Down)
    last = model.instance(model.index(3, 0, cert))
    assert last is not None and view.tree.currentIndex().row() == 3
    assert len(details()) == 1  # nothing built while the keys move
    drive(loop, lambda: len(details()) == 2)
    loop.run_until_complete(__import__("asyncio").sleep(0.3))
    assert len(details()) == 2
    assert isinstance(links.detail, InstanceDetail) and links.detail.instance == last
    drive(loop, lambda: links.detail.tasks.running == 0)  # type: ignore[union-attr]


def test_arrow_keys_through_events_build_one_detail(
    seeded: Seeded,
    controller: AppController,
    loop: qasync.QEventLoop,
    links: Links,
    qtbot: QtBot,
) -> None:
    connect(loop, controller, seeded.node, "alice")
    view = EventsView(controller, links)
    links.host(view)
    links.show()
    model = view.model
    drive(loop, lambda: len(model.rows) >= 5 and not model.loading)
    details = lambda: [c for c in links.calls if c[0] == "detail"]  # noqa: E731
    click(qtbot, view.table, model.index(0, 0))
    assert len(details()) == 1  # a click: at once
    for _ in range(3):
        qtbot.keyClick(view.table, Qt.Key.Key_Down)
    assert view.table.currentIndex().row() == 3 and len(details()) == 1
    drive(loop, lambda: len(details()) == 2)
    loop.run_until_complete(__import__("asyncio").sleep(0.3))
    assert len(details()) == 2
    assert isinstance(links.detail, EventDetail) and links.detail.row == model.rows[3]
