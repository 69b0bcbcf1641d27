"""The Explorer's contract page and token page against a real sandbox node (issue 29): the
Read tab queries view functions inline with typed editors and shows typed results, Write opens
the composer with the function chosen, Code shows the interface and the node's source, and a
token-like contract gets a Token tab (holders largest first with their share, transfers newest
first, total supply), under the seed's Cirrus names and STRATO 16's."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QTreeWidgetItem
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.services.explorer_contracts import Instance
from app.ui.panels.explorer.instance_detail import InstanceDetail
from app.ui.panels.explorer.panel import ExplorerPanel
from app.ui.panels.explorer.token_page import TokenPage
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import Family, connect, drive
from tests.gui.test_explorer_contracts import Links
from tests.integration.node_fixture import RunningNode, call_tx, submit, upload_tx

pytestmark = pytest.mark.cirrus_families  # the default sandbox and a STRATO 16-only one

COIN = """
contract Coin {
    string public name;
    uint public totalSupply;
    mapping(address => uint) public balances;
    event Transfer(address from, address to, uint value);
    constructor(string _name, uint supply) public {
        name = _name;
        totalSupply = supply;
        balances[msg.sender] = supply;
    }
    function transfer(address to, uint value) public returns (bool) {
        require(balances[msg.sender] >= value, "not enough");
        balances[msg.sender] -= value;
        balances[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }
    function balanceOf(address who) public view returns (uint) { return balances[who]; }
    function twice(uint n, string label) public pure returns (string, uint) {
        return (label, n * 2);
    }
}
"""
SHOTS = "/tmp/h29b"


@dataclass
class Coin:
    node: RunningNode
    family: Family
    address: str
    alice: str
    bob: str
    carol: str


def _ok(res: Any) -> Any:
    assert all(r["status"] == "Success" for r in res), res
    return res


@pytest.fixture(scope="module")
def coin(node: RunningNode, family: Family) -> Coin:
    alice = node.client("alice")
    (r,) = _ok(submit(alice, upload_tx("Coin", COIN, {"_name": "Gold", "supply": 1000})))
    address = str(r["data"]["contents"]["address"])
    bob, carol = node.address("bob"), node.address("carol")
    _ok(submit(alice, call_tx(address, "transfer", {"to": bob, "value": 250})))
    _ok(submit(alice, call_tx(address, "transfer", {"to": carol, "value": 50})))
    return Coin(node, family, address, node.address("alice"), bob, carol)


def open_page(
    coin: Coin, controller: AppController, loop: qasync.QEventLoop, qtbot: QtBot
) -> tuple[Links, InstanceDetail]:
    connect(loop, controller, coin.node, "alice")
    links = Links()
    qtbot.addWidget(links)
    detail = InstanceDetail(controller, Instance("Coin", coin.address), links)
    links.show_detail(detail, "Coin")
    links.show()
    return links, detail


def tab_titles(detail: InstanceDetail) -> list[str]:
    return [detail.tabs.tabText(i).replace("&", "") for i in range(detail.tabs.count())]


def test_read_tab_queries_views_inline_write_opens_composer_code_shows_source(
    coin: Coin, controller: AppController, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    links, detail = open_page(coin, controller, loop, qtbot)
    page = detail.page
    drive(loop, lambda: page.source is not None and page.token is not None)
    assert tab_titles(detail) == [
        "State", "Read", "Write", "Txs", "Events", "Code", "Token"
    ]  # fmt: skip
    # Read: the view and pure functions, each with its typed editors, then the public scalar
    # variables as their getters (the mapping's getter takes a key: the State tab pages it)
    read = page.read
    listed = [read.functions.item(i).text() for i in range(read.functions.count())]
    assert listed == [
        "balanceOf(address who) returns (uint256)",
        "twice(uint256 n, string label) returns (string, uint256)",
        "name  ·  string  (public variable)",
        "totalSupply  ·  uint256  (public variable)",
    ], listed
    detail.tabs.setCurrentWidget(read)
    assert read.choose("balanceOf")
    assert list(read.args.editors) == ["who"]
    assert not read.query.isEnabled()  # an address is needed first
    read.args.set_values({"who": coin.bob})
    assert read.query.isEnabled()
    qtbot.mouseClick(read.query, Qt.MouseButton.LeftButton)
    drive(loop, lambda: "250" in read.results.toPlainText())
    text = read.results.toPlainText()
    assert "balanceOf" in text and "(uint256) = 250" in text, text
    # a pure function with two arguments, two typed results
    assert read.choose("twice")
    read.args.set_values({"n": 21, "label": "half"})
    qtbot.mouseClick(read.query, Qt.MouseButton.LeftButton)
    drive(loop, lambda: "twice" in read.results.toPlainText())
    text = read.results.toPlainText()
    assert "(string) = half" in text and "(uint256) = 42" in text, text
    assert text.index("twice") < text.index("balanceOf")  # newest first
    # the typed editor refuses a bad value before anything is sent
    read.args.set_values({"n": "lots", "label": "x"})
    assert not read.query.isEnabled()
    # Write: the functions that change state; one opens the composer with it chosen
    detail.tabs.setCurrentWidget(detail.methods)
    methods = detail.methods
    assert [methods.item(i).text() for i in range(methods.count())] == [
        "transfer(address to, uint256 value)"
    ]
    asked: list[tuple[str, str, str, str]] = []
    detail.contract_requested.connect(lambda *a: asked.append(a))
    item = methods.item(0)
    qtbot.mouseClick(
        methods.viewport(),
        Qt.MouseButton.LeftButton,
        pos=methods.visualItemRect(item).center(),
    )
    assert asked == [("Coin", coin.address, "", "transfer")]
    # Code: the interface with types, and the node's source
    code = page.code
    detail.tabs.setCurrentWidget(code)
    tree = code.interface

    def node(*path: int) -> QTreeWidgetItem:
        found = tree.topLevelItem(path[0])
        for i in path[1:]:
            assert found is not None
            found = found.child(i)
        assert found is not None
        return found

    tops = [node(i).text(0) for i in range(tree.topLevelItemCount())]
    assert tops == ["Functions (3)", "Events (1)", "State variables (3)"], tops
    got = {node(2, i).text(0): node(2, i).text(1) for i in range(3)}
    assert got["balances"].startswith("mapping(address => uint256)"), got
    assert got["totalSupply"].startswith("uint256"), got
    event = node(1, 0)
    assert (event.text(0), event.text(1)) == (
        "Transfer",
        "(address from, address to, uint256 value)",
    )
    assert "function balanceOf(address who)" in code.source.toPlainText()
    assert code.source.isReadOnly()
    links.resize(1024, 640)
    detail.tabs.setCurrentWidget(read)
    links.grab().save(f"{SHOTS}/contract_read_{coin.family.strato16}.png")
    detail.tabs.setCurrentWidget(code)
    links.grab().save(f"{SHOTS}/contract_code_{coin.family.strato16}.png")


CAR = """
contract Car {
    string public model;
    uint public weight;
    bool public sold;
    address public owner;
    uint secret;
    mapping(uint => string) public notes;
    constructor(string _model, uint _weight) public {
        model = _model;
        weight = _weight;
        owner = msg.sender;
        secret = 7;
    }
    function sell() public { sold = true; }
}
"""


def test_read_tab_lists_public_variables_of_a_contract_without_view_functions(
    node: RunningNode, controller: AppController, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    """Like CarDemo: no view function, yet its public variables are readable on Read."""
    alice = node.client("alice")
    (r,) = _ok(submit(alice, upload_tx("Car", CAR, {"_model": "T", "_weight": 1200})))
    address = str(r["data"]["contents"]["address"])
    _ok(submit(alice, call_tx(address, "sell", {})))
    connect(loop, controller, node, "alice")
    links = Links()
    qtbot.addWidget(links)
    detail = InstanceDetail(controller, Instance("Car", address), links)
    links.show_detail(detail, "Car")
    links.show()
    page = detail.page
    drive(loop, lambda: page.source is not None)
    read = page.read
    detail.tabs.setCurrentWidget(read)
    assert read.functions.isVisible()
    listed = [read.functions.item(i).text() for i in range(read.functions.count())]
    assert listed == [
        "model  ·  string  (public variable)",
        "owner  ·  address  (public variable)",
        "sold  ·  bool  (public variable)",
        "weight  ·  uint256  (public variable)",
    ], listed  # not the private one, not the mapping
    assert "4 public variables" in read.note.text()
    for name, shown in (("weight", "(uint256) = 1200"), ("model", "(string) = T"),
                        ("sold", "(bool) = true")):  # fmt: skip
        assert read.choose(name)
        assert not read.args.editors  # a getter takes no argument
        assert read.query.isEnabled()
        qtbot.mouseClick(read.query, Qt.MouseButton.LeftButton)
        drive(loop, lambda n=name: read.results.toPlainText().startswith(n))  # type: ignore[misc]
        text = read.results.toPlainText()
        assert shown in text.split("\n\n")[0] or shown in text, text
    assert read.choose("owner")
    qtbot.mouseClick(read.query, Qt.MouseButton.LeftButton)
    drive(loop, lambda: read.results.toPlainText().startswith("owner"))
    me = node.address("alice").lower().removeprefix("0x")
    assert me in read.results.toPlainText().lower()


def test_token_page_holders_largest_first_with_share_transfers_newest_first(
    coin: Coin,
    controller: AppController,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    qtmodeltester: ModelTester,
) -> None:
    links, detail = open_page(coin, controller, loop, qtbot)
    drive(loop, lambda: detail.page.token is not None)
    token = detail.page.token
    assert isinstance(token, TokenPage)
    detail.tabs.setCurrentWidget(token)
    assert token.info is None or token.info.holders_table  # read below
    drive(loop, lambda: token.info is not None and token.supply is not None)
    assert token.info is not None
    assert token.info.holders_table == coin.family.collection("Coin", "balances")
    assert token.info.sole  # the only Coin: its table is read without the address filter
    assert token.info.transfers_table == coin.family.event("Coin", "Transfer")
    holders = token.holders_model
    drive(loop, lambda: holders.rowCount() == 3)
    drive(loop, lambda: holders.index(2, 2).data() != "…")
    rows = [
        [holders.index(r, c).data(Qt.ItemDataRole.ToolTipRole if c == 1 else 0) for c in range(4)]
        for r in range(3)
    ]
    assert rows == [
        ["1", coin.alice, "700", "70.00 %"],
        ["2", coin.bob, "250", "25.00 %"],
        ["3", coin.carol, "50", "5.00 %"],
    ], rows
    assert holders.index(1, 1).data().startswith("bob · ")  # the user's name beside it
    qtmodeltester.check(holders)
    summary = token.summary.text()
    assert "1,000" in summary and "totalSupply" in summary and "3</b> holders" in summary, summary
    # transfers, newest first, from the Transfer event's table
    transfers = token.transfers_model
    drive(loop, lambda: transfers.rowCount() == 2 and transfers.at_end)
    got = [
        (
            transfers.index(r, 1).data(Qt.ItemDataRole.ToolTipRole),
            transfers.index(r, 2).data(Qt.ItemDataRole.ToolTipRole),
            transfers.index(r, 3).data(),
        )
        for r in range(2)
    ]
    assert got == [(coin.alice, coin.carol, "50"), (coin.alice, coin.bob, "250")], got
    qtmodeltester.check(transfers)
    token.tabs.setCurrentIndex(1)
    qtbot.mouseClick(
        token.transfers.viewport(),
        Qt.MouseButton.LeftButton,
        pos=token.transfers.visualRect(transfers.index(0, 0)).center(),
    )
    first = transfers.transfer(0)
    assert first is not None
    if coin.family.strato16:  # STRATO 16's event views name no transaction
        assert first.tx_hash == "" and links.calls[-1][0] == "detail"
    else:
        assert links.calls[-1] == ("transaction", first.tx_hash) and first.tx_hash
    links.resize(1024, 640)
    token.tabs.setCurrentIndex(0)
    links.grab().save(f"{SHOTS}/token_{coin.family.strato16}.png")


def test_a_token_sharing_its_table_lists_only_its_own_holders(
    coin: Coin, controller: AppController, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    alice = coin.node.client("alice")
    _ok(submit(alice, upload_tx("Coin", COIN, {"_name": "Silver", "supply": 9})))  # a 2nd Coin
    _links, detail = open_page(coin, controller, loop, qtbot)
    drive(loop, lambda: detail.page.token is not None)
    token = detail.page.token
    assert token is not None
    drive(loop, lambda: token.info is not None and token.holders_model.rowCount() > 0)
    assert token.info is not None and not token.info.sole  # read with the address filter
    holders = token.holders_model
    assert holders.rowCount() == 3
    drive(loop, lambda: holders.holder(2) is not None)
    assert [holders.holder(r).amount for r in range(3)] == [700, 250, 50]  # type: ignore[union-attr]


def test_contract_and_token_page_in_the_window_at_1024x640(
    coin: Coin, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, coin.node, "alice")
    window.resize(1024, 640)
    panel = next(p for p in window.panels if isinstance(p, ExplorerPanel))
    window.nav.setCurrentRow(window.panels.index(panel))
    panel.tabs.setCurrentWidget(panel.contracts_view)
    detail = panel.contracts_view.show_instance(Instance("Coin", coin.address))
    drive(loop, lambda: detail.page.token is not None and detail.page.source is not None)
    token = detail.page.token
    assert token is not None
    detail.tabs.setCurrentWidget(detail.page.read)
    detail.page.read.choose("balanceOf")
    loop.run_until_complete(asyncio.sleep(0.3))
    window.grab().save(f"{SHOTS}/window_read_{coin.family.strato16}.png")
    detail.tabs.setCurrentWidget(token)
    drive(loop, lambda: token.holders_model.holder(0) is not None)
    loop.run_until_complete(asyncio.sleep(0.3))
    window.grab().save(f"{SHOTS}/window_token_{coin.family.strato16}.png")
    bar = detail.tabs.tabBar()
    for i in range(bar.count()):  # every tab's title whole (arrows reach those off the bar)
        assert bar.tabRect(i).width() >= bar.tabSizeHint(i).width(), bar.tabText(i)
    # the pane stays inside the window, whichever tab is in front
    for page in (token, detail.page.read, detail.page.code, detail.methods):
        detail.tabs.setCurrentWidget(page)
        loop.run_until_complete(asyncio.sleep(0.05))
        right = detail.mapTo(window, QPoint(detail.width(), 0)).x()
        assert right <= window.width(), (page.objectName(), right)
    assert token.holders.viewport().width() > 200


def _written(node: RunningNode) -> tuple[int, int]:
    """(alice's nonce, the chain's height): a transaction of hers moves both."""
    alice = node.client("alice")
    acct = alice.get("/strato-api/eth/v1.2/account", params={"address": node.address("alice")})
    last = alice.get("/strato-api/eth/v1.2/block/last/1")
    assert acct.status_code == last.status_code == 200, acct.text + last.text
    return int(acct.json()[0]["nonce"]), int(last.json()[0]["blockData"]["number"])


def test_a_query_on_the_read_tab_sends_no_transaction(
    coin: Coin, controller: AppController, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    _links, detail = open_page(coin, controller, loop, qtbot)
    page = detail.page
    drive(loop, lambda: page.source is not None)
    read = page.read
    detail.tabs.setCurrentWidget(read)
    before = _written(coin.node)
    assert read.choose("balanceOf")
    read.args.set_values({"who": coin.carol})
    qtbot.mouseClick(read.query, Qt.MouseButton.LeftButton)
    drive(loop, lambda: "balanceOf" in read.results.toPlainText())
    assert _written(coin.node) == before  # no transaction: alice's nonce and the height
    text = read.results.toPlainText()
    assert "(uint256) = 50" in text and "read-only, no transaction" in text, text
    assert "read-only, no transaction" in read.query.toolTip()
    # a node without the read-only call: the query falls back to a transaction, and says so
    page.reads.read_only = False
    read.args.set_values({"who": coin.bob})
    qtbot.mouseClick(read.query, Qt.MouseButton.LeftButton)
    drive(loop, lambda: "250" in read.results.toPlainText())
    assert "transaction" in read.results.toPlainText().split("balanceOf")[1]
    nonce, _height = _written(coin.node)
    assert nonce == before[0] + 1
    assert "lands in a block" in read.query.toolTip()


def test_token_holders_and_transfers_counted_and_exported(
    coin: Coin,
    controller: AppController,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    """The holders' and the transfers' Export ▾ (issue 29): every holder, largest first with
    its share, as CSV; every transfer, newest first, as JSON; the holders counted."""
    _links, detail = open_page(coin, controller, loop, qtbot)
    drive(loop, lambda: detail.page.token is not None)
    token = detail.page.token
    assert token is not None
    detail.tabs.setCurrentWidget(token)
    hbar, tbar = token.holders_bar, token.transfers_bar
    drive(loop, lambda: token.supply is not None and token.holders_model.rowCount() == 3)
    assert hbar.count.text() == "3 holders, largest first"
    assert hbar.export.isVisible() and hbar.count.isVisible()
    task = hbar.export_to(tmp_path / "holders.csv", "csv")
    assert task is not None
    loop.run_until_complete(task)
    lines = (tmp_path / "holders.csv").read_text().splitlines()
    assert lines == [
        "rank,address,balance,share",
        f"1,{coin.alice},700,0.7",
        f"2,{coin.bob},250,0.25",
        f"3,{coin.carol},50,0.05",
    ], lines
    assert "Exported 3 row(s)" in hbar.status.text()
    token.tabs.setCurrentIndex(1)
    assert tbar.export.isVisible()
    drive(loop, lambda: token.transfers_model.at_end and token.transfers_model.rowCount() == 2)
    task = tbar.export_to(tmp_path / "transfers.json", "json")
    assert task is not None
    loop.run_until_complete(task)
    assert token.transfers_status.parent() is tbar  # one line: the count, the Export ▾
    assert token.transfers_status.text().startswith("2 transfers")
    rows = json.loads((tmp_path / "transfers.json").read_text())
    assert [(r["from"], r["to"], r["amount"]) for r in rows] == [
        (coin.alice, coin.carol, "50"), (coin.alice, coin.bob, "250")
    ]  # fmt: skip
    assert all(isinstance(r["block_number"], int) for r in rows)


def test_the_largest_holders_show_before_the_count_is_in(
    coin: Coin, controller: AppController, loop: qasync.QEventLoop
) -> None:
    """A count of a million rows can take longer than the first page: the page's rows show
    as soon as it is in, the rest of the rows are added when the count comes."""
    from app.services.tokens import TokenService, TokenShape
    from app.ui.panels.explorer.token_page import HoldersModel

    connect(loop, controller, coin.node, "alice")
    service = TokenService(controller.explorer_contracts)
    info = loop.run_until_complete(
        service.token(Instance("Coin", coin.address), TokenShape("balances", supply="totalSupply"))
    )
    release = asyncio.Event()

    def start(coro: Any, done: Any, failed: Any, background: bool = False) -> Any:
        if coro.cr_code.co_name == "holders_count":  # held back until the test lets it go
            inner = coro

            async def later() -> Any:
                await release.wait()
                return await inner

            coro = later()
        return controller.tasks.start("holders", coro, on_done=done, on_error=failed)

    model = HoldersModel(service, start)
    counted: list[int] = []
    model.counted.connect(counted.append)
    model.reset(info)
    drive(loop, lambda: model.rowCount() > 0)
    assert not counted and model.rowCount() == 3  # the first page, before any count
    assert model.index(0, 2).data() == "700"
    release.set()
    drive(loop, lambda: counted == [3])
    assert model.rowCount() == 3
