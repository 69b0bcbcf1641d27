"""Names beside addresses against a real sandbox (the seed's Cirrus names and a STRATO 16-only
node): a contract by its name and a user with their organisation in the Explorer's
transactions, the embedded inspector and the account's history, resolved by the one name
service, in batches, off the GUI thread; the hex stays in the tooltip and on copy."""

from __future__ import annotations

import pytest
import qasync
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.ui.panels.account.panel import AccountPanel
from app.ui.panels.explorer.table import COPY_ROLE
from app.ui.panels.explorer.transactions_model import TX_ROLE
from app.ui.shell.lookup_dialogs import BlockDialog
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive
from tests.gui.test_explorer import show_explorer
from tests.integration.node_fixture import RunningNode, call_tx, deploy, submit

pytestmark = pytest.mark.cirrus_families

COUNTER = "contract Counter { uint public count; function add(uint n) public { count += n; } }"


def test_name_service_resolves_contracts_and_users_in_batches(
    node: RunningNode, loop: qasync.QEventLoop, controller: AppController
) -> None:
    alice = node.client("alice")
    counter = deploy(alice, "Counter", COUNTER)
    connect(loop, controller, node)
    names = controller.names
    got = loop.run_until_complete(
        names.resolve([counter, "0x" + node.address("bob").upper(), "ab" * 20])
    )
    assert got[counter].kind == "contract" and got[counter].name == "Counter"
    bob = got[node.address("bob")]
    assert (bob.kind, bob.text) == ("user", "bob (Globex)")
    assert "ab" * 20 not in got  # nameless: remembered, not asked again
    # dave has no certificate: the sandbox's account table names him
    dave = loop.run_until_complete(names.resolve([node.address("dave")]))
    assert dave[node.address("dave")].text == "dave (Initech)"
    before = names.requests
    loop.run_until_complete(names.resolve(["ab" * 20, counter]))
    assert names.requests == before
    # a contract created after the first read is named through its account
    later = deploy(alice, "Counter", COUNTER)
    assert names.lookup(later) is None  # asked for, not waited for
    drive(loop, lambda: names.known(later) is not None)
    assert names.text(later).startswith("Counter · ")


def test_names_in_explorer_inspector_and_account_history(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
    qtbot: QtBot,
) -> None:
    alice = node.client("alice")
    counter = deploy(alice, "Counter", COUNTER)
    called = submit(alice, call_tx(counter, "add", {"n": 2}, "Counter"))[0]
    connect(loop, controller, node)
    panel = show_explorer(window, loop)
    model = panel.txs_model

    def row_of_call() -> int:
        for r in range(model.rowCount()):
            tx = model.index(r, 0).data(TX_ROLE)
            if tx is not None and tx.hash == called["hash"]:
                return r
        return -1

    drive(loop, lambda: row_of_call() >= 0)
    row = row_of_call()
    drive(loop, lambda: str(model.index(row, 4).data()).startswith("Counter · "))
    assert str(model.index(row, 3).data()).startswith("alice (Acme) · ")
    assert model.index(row, 4).data(COPY_ROLE) == counter  # the hex on copy
    assert counter in model.index(row, 4).data(0x03)  # ToolTipRole: the name and the hex
    # the inspector: From with the organisation, To by the contract's name
    panel.show_transaction(called["hash"])
    inspector = panel.detail.inspector
    drive(loop, lambda: inspector.details is not None and "Counter" in inspector.view.toPlainText())
    text = inspector.view.toPlainText()
    assert f"{counter} (Counter)" in text
    assert f"{node.address('alice')} (alice (Acme))" in text
    # the account's history names the contract it called
    account = next(p for p in window.panels if isinstance(p, AccountPanel))
    window.nav.setCurrentRow(window.panels.index(account))
    tm = account.tx_model

    def shown() -> list[str]:
        return [str(tm.index(r, 3).data()) for r in range(tm.rowCount())]

    drive(loop, lambda: any(s.startswith("Counter (") for s in shown()))


def test_block_dialog_names_contracts(
    node: RunningNode, loop: qasync.QEventLoop, controller: AppController, qtbot: QtBot
) -> None:
    """The search's block dialog (a block's transactions) names through the name service too:
    the user with their organisation (its one address column is the sender's)."""
    alice = node.client("alice")
    counter = deploy(alice, "Counter", COUNTER)
    called = submit(alice, call_tx(counter, "add", {"n": 1}, "Counter"))[0]
    connect(loop, controller, node)
    client = controller.session.client
    assert client is not None
    txs = loop.run_until_complete(client.transactions(hash=called["hash"]))
    block = loop.run_until_complete(client.block(txs[0].block_number))
    assert block is not None
    dialog = BlockDialog(block, None, controller.address_names(), controller.names)
    qtbot.addWidget(dialog)
    model = dialog.model
    hashes = [getattr(model.transaction(r), "hash", "") for r in range(model.rowCount())]
    row = hashes.index(called["hash"])
    drive(loop, lambda: str(model.index(row, 3).data()).startswith("alice (Acme) ("))
    assert node.address("alice") in model.index(row, 3).data(0x03)  # the hex in the tooltip


def test_private_chain_contract_named_with_its_chain_label(
    node: RunningNode, loop: qasync.QEventLoop, controller: AppController
) -> None:
    """An asset's contract lives on its own shard (a private chain): named after the main
    chain's reads found nothing, labelled with the shard's label."""
    alice = node.client("alice")
    car = alice.post(
        "/apps/CarDemo/car",
        json={"carArgs": {"vin": "1HGCM82633A004353", "color": "blue", "model": "S", "weight": 3}},
    )
    assert car.status_code == 200, car.text
    made = car.json()["data"]
    address, chain = made["address"], made["chainIds"][0]
    labels = {
        str(c["id"]): str(c.get("label") or c.get("info", {}).get("label") or "")
        for c in alice.get("/bloc/v2.2/chain").json()
        if isinstance(c, dict)
    }
    connect(loop, controller, node)
    names = controller.names
    got = loop.run_until_complete(names.resolve([address], chain))
    name = got[address]
    assert (name.kind, name.name) == ("contract", "Car")
    assert name.label == labels[chain] and name.text == f"Car · {labels[chain]}"
    # the same address on the application's realm chain is its governance contract
    realm = next(c for c, label in labels.items() if label == "CarDemo-realm")
    assert names.known(address, realm) is not None
    assert names.known(address, realm).name == "CarDemo"  # type: ignore[union-attr]
    # met without a chain: several chains hold it, so no one name is claimed for it
    assert names.known(address) is None or names.known(address).kind != "contract"  # type: ignore[union-attr]
