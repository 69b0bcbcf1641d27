"""The global search box against a real node (issue 9): an address, a contact's name, a
transaction hash, a block number or hash, a chain ID and a contract/table name each open the
right panel or view; what the node does not know is said in words."""

from __future__ import annotations

from typing import Any

import pytest
import qasync

from app.services.controller import AppController
from app.services.search import NotFound, SearchHit
from app.ui.panels.chains.panel import ChainsPanel
from app.ui.panels.composer.panel import ComposerPanel
from app.ui.panels.tables.panel import TablesPanel
from app.ui.shell.lookup_dialogs import AddressDialog, BlockDialog
from app.ui.shell.main_window import MainWindow
from app.ui.shell.tx_inspector import TxInspectorDialog
from tests.gui.conftest import connect, drive
from tests.integration.node_fixture import RunningNode

SRC = "contract Beacon { uint public n; function ping() public { n += 1; } }"


@pytest.fixture(scope="module")
def seeded(node: RunningNode) -> dict[str, Any]:
    alice = node.client("alice")
    tx = {
        "type": "CONTRACT",
        "payload": {"contract": "Beacon", "src": SRC, "args": {}, "metadata": {"VM": "SolidVM"}},
    }
    r = alice.post("/svc/v2.3/transaction?resolve=true", json={"txs": [tx]})
    assert r.status_code == 200, r.text
    result = r.json()[0]
    block = alice.get("/svc-api/eth/v1.2/block/last/1").json()[0]
    chains = alice.get("/svc-api/eth/v1.2/chain").json()
    return {
        "contract": result["data"]["contents"]["address"],
        "tx": result["hash"],
        "block_number": int(block["blockData"]["number"]),
        "block_hash": block["blockHash"],
        "chain": chains[0]["id"],
        "bob": node.address("bob"),
    }


def resolve(loop: qasync.QEventLoop, controller: AppController, text: str) -> SearchHit:
    hit: SearchHit = loop.run_until_complete(controller.search.resolve(text))
    return hit


def test_every_kind_of_text_opens_its_view(
    node: RunningNode,
    seeded: dict[str, Any],
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    connect(loop, controller, node, "alice")
    # a transaction hash: the inspector
    hit = resolve(loop, controller, seeded["tx"].upper())
    assert (hit.kind, hit.value) == ("transaction", seeded["tx"])
    assert isinstance(window.go_to(hit), TxInspectorDialog)
    # a contract's address: the composer's Call page on it
    hit = resolve(loop, controller, "0x" + seeded["contract"])
    assert (hit.kind, hit.name) == ("contract", "Beacon")
    window.go_to(hit)
    composer = window.stack.currentWidget()
    assert (
        isinstance(composer, ComposerPanel) and composer.call_address.text() == seeded["contract"]
    )
    # a user's address: the address view, with the name from the identity registry
    hit = resolve(loop, controller, seeded["bob"])
    assert (hit.kind, hit.name) == ("account", "bob")
    dialog = window.go_to(hit)
    assert isinstance(dialog, AddressDialog)
    drive(loop, lambda: dialog.info is not None)
    assert dialog.name.text() == "bob" and "Globex" in dialog.identity.text()
    assert dialog.model.rowCount() >= 1  # bob's identity registration at least
    # saved as a contact, the name finds the address
    dialog.save_as_contact("Bobby")
    drive(loop, lambda: "Bobby" in controller.contacts)
    hit = resolve(loop, controller, "bobby")
    assert (hit.kind, hit.value) == ("account", seeded["bob"])
    # a block number and a block hash: the block view with its transactions
    hit = resolve(loop, controller, str(seeded["block_number"]))
    block_view = window.go_to(hit)
    assert isinstance(block_view, BlockDialog)
    assert block_view.block.hash == seeded["block_hash"]
    assert seeded["tx"] in [
        block_view.model.transaction(r).hash  # type: ignore[union-attr]
        for r in range(block_view.model.rowCount())
    ]
    hit = resolve(loop, controller, seeded["block_hash"])
    assert (hit.kind, hit.value) == ("block", str(seeded["block_number"]))
    # a chain ID: the chain browser with that chain selected
    hit = resolve(loop, controller, seeded["chain"])
    assert hit.kind == "chain" and hit.name == "CarDemo-realm"
    chains = window.go_to(hit)
    assert isinstance(chains, ChainsPanel)
    drive(loop, lambda: chains.selected_id() == seeded["chain"])
    # a table or contract name, whole or in part: the Tables panel on it
    hit = resolve(loop, controller, "certif")
    assert (hit.kind, hit.value) == ("table", "Certificate")
    tables = window.go_to(hit)
    assert isinstance(tables, TablesPanel) and tables.table_name.currentText() == "Certificate"
    drive(loop, lambda: tables.model.total is not None and tables.model.total >= 4)


def test_unknown_texts_are_said_in_words(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "alice")
    for text, words in [
        ("ab" * 32, "is no transaction, chain or block"),
        ("99999999", "there is no block 99999999"),
        ("12" * 20, "no account or contract has the address"),
        ("NoSuchThing", "no table or contract is named like 'NoSuchThing'"),
    ]:
        with pytest.raises(NotFound, match=words):
            resolve(loop, controller, text)
    # through the search box: the message bar says it, nothing opens
    window.search.setText("NoSuchThing")
    window.search.returnPressed.emit()
    drive(loop, window.message_bar.isVisible)
    assert "NoSuchThing" in window.message_bar.text.text()


def test_names_beside_addresses(
    node: RunningNode,
    seeded: dict[str, Any],
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    """Contacts (and the node's users) name addresses in the account's transactions, the
    transaction inspector and the Tables panel's row detail."""
    connect(loop, controller, node, "alice")
    bob = seeded["bob"]
    assert controller.address_names()[bob] == "bob"  # from the identity registry
    r = node.client("alice").post(
        "/svc/v2.3/transaction?resolve=true",
        json={"txs": [{"type": "TRANSFER", "payload": {"toAddress": bob, "value": 5}}]},
    )
    assert r.status_code == 200, r.text
    transfer = r.json()[0]["hash"]
    loop.run_until_complete(controller.add_contact("Bob at Globex", bob))
    assert controller.address_names()[bob] == "Bob at Globex"  # a contact wins
    panel = window.panels[0]
    model = panel.tx_model  # type: ignore[attr-defined]
    loop.run_until_complete(controller.account.refresh())
    drive(loop, lambda: any(model.transaction(i).hash == transfer for i in range(model.rowCount())))
    row = next(i for i in range(model.rowCount()) if model.transaction(i).hash == transfer)
    assert model.data(model.index(row, 3)) == f"Bob at Globex ({bob[:8]}…)"
    inspector = window.open_transaction(transfer)
    drive(loop, lambda: inspector.details is not None)
    assert f"{bob} (Bob at Globex)" in inspector.view.toPlainText()
    inspector.close()
    tables = window.panels[2]
    assert isinstance(tables, TablesPanel)
    html = tables.row_html({"userAddress": bob, "commonName": "bob"})
    assert "(Bob at Globex)" in html
