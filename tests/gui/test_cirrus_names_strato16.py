"""Issue 25's walk-through against a sandbox that serves only STRATO 16's Cirrus names
(``serve --cirrus-names strato16``: ``BlockApps-Nest``, ``BlockApps-Nest-Summed``, the global
``event``, ``history@storage`` ...; no ``Nest``, ``Acme-Nest.Summed`` or ``history@``
per contract): the inspector, the Explorer and the Tables picker find the same things."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync
from pytestqt.qtbot import QtBot

from app.client.state_diff import NOT_KEPT
from app.services.controller import AppController
from app.services.tx_state import transaction_state
from app.ui.panels.explorer.contracts_view import ContractsView
from app.ui.panels.explorer.events_view import EventsView
from app.ui.panels.explorer.instance_detail import InstanceDetail
from app.ui.panels.tables.panel import TablesPanel
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive
from tests.gui.test_cirrus_names_walkthrough import NEST, PURSE, deploy_and_call
from tests.gui.test_composer import compile_source, confirm, panel_of
from tests.gui.test_explorer_contracts import Links, click, links  # noqa: F401 (fixture)
from tests.gui.test_tx_inspector import RECEIVER, inspect
from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--cirrus-names", "strato16", name="strato16")
    try:
        yield n
    finally:
        n.stop()


def test_events_show_in_the_inspector_and_the_explorer(
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
    assert "BlockApps-Nest-Summed" in tables
    assert not {"Nest", "Acme-Nest", "Acme-Nest.Summed", "Nest.Summed"} & set(tables)

    dialog = inspect(qtbot, loop, window, call)
    assert dialog.details is not None and dialog.details.events is not None
    assert [(n, {k: str(v) for k, v in a.items()}) for n, a in dialog.details.events] == [
        ("Summed", {"total": "1"})
    ]
    text = dialog.view.toPlainText()
    assert "none emitted" not in text and "Summed" in text
    dialog.close()

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
    assert detail.tables.table == "BlockApps-Nest"
    # STRATO 16 keeps every contract's history, in history@storage
    assert detail.tables.history == "history@storage" and detail.history_button.isEnabled()
    assert "without history" not in detail.tables_note.text()
    detail.tabs.setCurrentWidget(detail.events)
    ev = detail.events.model
    drive(loop, lambda: len(ev.rows) == 1 and not ev.loading)
    assert (ev.rows[0].contract, ev.rows[0].event) == ("Nest", "Summed")
    assert {k: str(v) for k, v in ev.rows[0].args.items()} == {"total": "1"}

    feed = EventsView(controller, links)
    links.host(feed)
    feed.reload()
    drive(loop, lambda: feed.contract_box.findData("Nest") >= 0)
    feed.set_filter("Nest", "Summed")
    drive(loop, lambda: len(feed.model.rows) == 1 and not feed.model.loading)
    assert feed.model.rows[0].address == address


def test_the_tables_picker_groups_the_views_by_contract(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    connect(loop, controller, node, "alice")
    deploy_and_call(loop, window, NEST, "f")
    panel = next(p for p in window.panels if isinstance(p, TablesPanel))
    window.stack.setCurrentWidget(panel)
    panel.reload_tables(refresh=True)
    drive(loop, lambda: panel.table_name.findText("BlockApps-Nest-Summed") >= 0)
    listed = [panel.table_name.itemText(i) for i in range(panel.table_name.count())]
    nest = [i for i, t in enumerate(listed) if panel.names.group(t) == "Nest"]
    assert nest == list(range(nest[0], nest[-1] + 1))
    assert [listed[i] for i in nest][:1] == ["BlockApps-Nest"]
    assert "BlockApps-Nest-Summed" in {listed[i] for i in nest}
    assert panel.names.kind("BlockApps-Nest-Summed") == "event"
    # the global tables come last, under no contract
    assert listed[-1] in {"contract", "event", "event_array", "mapping", "storage"} or listed[
        -1
    ].startswith("history@")


def test_the_state_diff_reads_the_views_and_history_at_storage(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    compile_source(loop, panel, PURSE)
    confirm(loop, panel, panel.deploy())
    address = panel.call_address.text()
    panel.function.setCurrentIndex(panel.function.findData("give"))
    panel.call_args.editors["to"].set_value(RECEIVER)
    confirm(loop, panel, panel.call())
    call = panel.last_results[0].hash
    client = controller.session.client
    assert client is not None
    result = loop.run_until_complete(client.result(call))
    as_strato = {**result.raw["txResult"], "stateDiff": ""}
    report = loop.run_until_complete(
        transaction_state(client, "Purse", address, None, call, as_strato)
    )
    assert report.changes is not None, report.note
    got = {k: (str(a) if a is not NOT_KEPT else a, str(b)) for k, a, b in report.changes}
    assert got["supply"] == ("5", "6")
    assert got[f"balances[{RECEIVER}]"] == (NOT_KEPT, "1")
    assert "history@storage" in report.scope
