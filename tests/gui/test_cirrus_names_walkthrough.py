"""Issue 25's walk-through: a contract deployed by alice (org Acme) has its rows in
``Acme-Nest`` and ``Acme-Nest.Summed``; the transaction inspector and the Explorer find them
from what the node lists, not by the plain spelling ``Nest.Summed``."""

from __future__ import annotations

import qasync
from pytestqt.qtbot import QtBot

from app.client.cirrus_names import CirrusNames
from app.client.state_diff import NOT_KEPT
from app.services.controller import AppController
from app.services.tx_state import transaction_state
from app.ui.panels.explorer.contracts_view import ContractsView
from app.ui.panels.explorer.events_view import EventsView
from app.ui.panels.explorer.instance_detail import InstanceDetail
from app.ui.panels.tables.panel import TablesPanel, contract_of, picker_order
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive
from tests.gui.test_composer import compile_source, confirm, panel_of
from tests.gui.test_explorer_contracts import Links, click, links  # noqa: F401 (fixture)
from tests.gui.test_tx_inspector import RECEIVER, inspect
from tests.integration.node_fixture import RunningNode

NEST = (
    "pragma solidvm 12.0; contract Nest { event Summed(uint total); "
    "function f() public { emit Summed(1); } }"
)


def deploy_and_call(
    loop: qasync.QEventLoop, window: MainWindow, source: str, function: str
) -> tuple[str, str]:
    """Compile, deploy and call ``function`` in the composer, as a user does: (address, call
    hash)."""
    panel = panel_of(window)
    compile_source(loop, panel, source)
    confirm(loop, panel, panel.deploy())
    address = panel.call_address.text()
    panel.function.setCurrentIndex(panel.function.findData(function))
    confirm(loop, panel, panel.call())
    return address, panel.last_results[0].hash


def test_an_org_members_events_show_in_the_inspector_and_the_explorer(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    links: Links,  # noqa: F811
    qtbot: QtBot,
) -> None:
    connect(loop, controller, node, "alice")
    address, call = deploy_and_call(loop, window, NEST, "f")
    client = controller.session.client
    assert client is not None
    tables = loop.run_until_complete(client.cirrus_schema())["definitions"]
    assert "Acme-Nest.Summed" in tables and "Nest.Summed" not in tables  # the bug's setting

    # the inspector: the event, with its argument
    dialog = inspect(qtbot, loop, window, call)
    assert dialog.details is not None
    assert dialog.details.events == [("Summed", {"total": "1"})]
    text = dialog.view.toPlainText()
    assert "none emitted" not in text and "Summed" in text
    dialog.close()

    # Explorer -> Contracts -> Nest -> Events
    view = ContractsView(controller, links)
    links.host(view)
    links.show()
    model = view.model
    drive(loop, lambda: "Nest" in model.names())
    qtbot.keyClicks(view.filter, address[:12])
    drive(loop, lambda: model.rowCount(model.name_index("Nest")) == 1)
    click(qtbot, view.tree, model.index(0, 0, model.name_index("Nest")))
    detail = links.detail
    assert isinstance(detail, InstanceDetail)
    drive(loop, lambda: detail.tables.table != "")
    assert detail.tables.table == "Acme-Nest"
    detail.tabs.setCurrentWidget(detail.events)
    ev = detail.events.model
    drive(loop, lambda: len(ev.rows) == 1 and not ev.loading)
    assert (ev.rows[0].contract, ev.rows[0].event) == ("Nest", "Summed")
    assert ev.rows[0].args == {"total": "1"}
    assert "no event tables" not in detail.events.status.text()

    # the Events feed names the contract as the Contracts view does
    feed = EventsView(controller, links)
    links.host(feed)
    feed.reload()
    drive(loop, lambda: feed.contract_box.findData("Nest") >= 0)
    assert feed.contract_box.findData("Acme-Nest") < 0
    feed.set_filter("Nest", "Summed")
    drive(loop, lambda: len(feed.model.rows) == 1 and not feed.model.loading)
    assert feed.model.rows[0].address == address


def test_the_tables_picker_groups_both_families_by_contract() -> None:
    names = CirrusNames(
        [
            "event",
            "contract",
            "history@storage",
            "Acme-Nest.Summed",
            "BlockApps-Token-Transfer",
            "BlockApps-Nest-Summed",
            "Acme-Nest",
            "BlockApps-Nest",
            "history@Acme-Nest",
            "BlockApps-Token",
            "BlockApps-Token-_balances",
            "Acme-Nest-values",
        ],
        interfaces={"Token": (["Transfer"], ["_balances"]), "Nest": (["Summed"], ["values"])},
    )
    assert picker_order(names) == [
        "Acme-Nest",
        "Acme-Nest-values",
        "history@Acme-Nest",
        "Acme-Nest.Summed",
        "BlockApps-Nest",
        "BlockApps-Nest-Summed",
        "BlockApps-Token",
        "BlockApps-Token-_balances",
        "BlockApps-Token-Transfer",
        "contract",
        "event",
        "history@storage",
    ]
    assert contract_of("BlockApps-Nest-Summed", names) == "Nest"
    assert contract_of("history@Acme-Shop-Part") == "Part"


def test_the_tables_picker_lists_an_org_members_tables_together(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    connect(loop, controller, node, "alice")
    panel = next(p for p in window.panels if isinstance(p, TablesPanel))
    window.nav.setCurrentRow(window.panels.index(panel))  # read once, before the deploy
    drive(loop, lambda: panel.table_name.count() > 0)
    drive(loop, lambda: controller.session.last_block is not None)
    before = controller.session.last_block or 0
    deploy_and_call(loop, window, NEST, "f")
    # the app saw the new blocks (the deploy's and the call's)
    drive(loop, lambda: (controller.session.last_block or 0) >= before + 2)
    window.nav.setCurrentRow(window.panels.index(panel))  # shown again: read afresh
    drive(loop, lambda: panel.table_name.findText("Acme-Nest.Summed") >= 0)
    listed = [panel.table_name.itemText(i) for i in range(panel.table_name.count())]
    nest = [i for i, t in enumerate(listed) if panel.names.group(t) == "Nest"]
    assert nest == list(range(nest[0], nest[-1] + 1))  # together
    assert listed[nest[0]] == "Acme-Nest"  # its own table first
    assert {"Acme-Nest", "Acme-Nest.Summed"} <= {listed[i] for i in nest}
    assert panel.names.contract_of("Acme-Nest.Summed") == "Nest"


PURSE = """pragma solidvm 12.0;
contract Purse {
    uint public supply;
    mapping(address => uint) public balances;
    constructor() public { supply = 5; balances[msg.sender] = 5; }
    function give(address to) public { supply += 1; balances[to] += 1; }
}
"""


def test_the_state_diff_on_a_strato_node_reads_an_org_members_tables(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    """Without the sandbox's stateDiff (as on STRATO), the inspector's diff comes from
    ``history@Acme-Purse`` and ``Acme-Purse-balances``, not ``history@Purse``."""
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    compile_source(loop, panel, PURSE)
    panel.history.setChecked(True)
    confirm(loop, panel, panel.deploy())
    address = panel.call_address.text()
    panel.function.setCurrentIndex(panel.function.findData("give"))
    panel.call_args.editors["to"].set_value(RECEIVER)
    confirm(loop, panel, panel.call())
    call = panel.last_results[0].hash
    client = controller.session.client
    assert client is not None
    result = loop.run_until_complete(client.result(call))
    as_strato = {**result.raw["txResult"], "stateDiff": ""}  # STRATO leaves it empty
    report = loop.run_until_complete(
        transaction_state(client, "Purse", address, None, call, as_strato)
    )
    assert report.changes is not None
    assert ("supply", 5, 6) in report.changes
    assert (f"balances[{RECEIVER}]", NOT_KEPT, 1) in report.changes
    assert "from history@Acme-Purse" in report.scope
