"""The chain browser against a real sandbox node (issue 8): the tree of accessible chains with
their members, balances, governance and contracts; the creation wizard (source and codePtr
governance, typed constructor arguments, members, balances, parent, VM, history), the request
shown before sending, the node's refusals kept in the dialog; membership events and the chain's
transaction history."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
import qasync
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QApplication, QPushButton, QScrollArea
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.services.chains import GOVERNANCE_ADDRESS, ChainInfo, ChainMember
from app.services.controller import AppController
from app.ui.panels.chains.create_dialog import STEPS, CreateChainDialog
from app.ui.panels.chains.models import MAIN_CHAIN, ChainTreeModel
from app.ui.panels.chains.panel import ChainsPanel
from app.ui.shell.main_window import MainWindow
from app.ui.shell.tx_inspector import TxInspectorDialog
from tests.gui.conftest import connect, drive
from tests.gui.keys import tab_through
from tests.integration.node_fixture import RunningNode, call_tx, deploy, upload_tx

# A governance contract with typed constructor arguments and every membership event.
GOV_SRC = """
contract Gov {
    uint public quorum;
    string public motto;
    address public admin;

    event OrgAdded(string org);
    event OrgRemoved(string org);
    event OrgUnitAdded(string org, string unit);

    constructor(uint _quorum, string _motto, address _admin) public {
        quorum = _quorum;
        motto = _motto;
        admin = _admin;
    }

    function addOrg(string o) public { emit OrgAdded(o); }
    function removeOrg(string o) public { emit OrgRemoved(o); }
    function addUnit(string o, string u) public { emit OrgUnitAdded(o, u); }
}
"""

# A contract deployed on a chain (not its governance) that also changes membership, the seed's way.
NOTE_SRC = """
contract Note {
    string public text;
    event OrganizationAdded(string org);
    constructor(string _text) public { text = _text; }
    function invite(string o) public { emit OrganizationAdded(o); }
}
"""


LEFT = Qt.MouseButton.LeftButton


def create_chain(client: httpx.Client, body: dict[str, Any]) -> str:
    r = client.post("/bloc/v2.2/chain", json=body)
    assert r.status_code == 200, r.text
    return str(r.json())


def chain_body(address: str, label: str, **extra: Any) -> dict[str, Any]:
    return {
        "label": label,
        "src": GOV_SRC,
        "contract": "Gov",
        "args": {"_quorum": 2, "_motto": label, "_admin": address},
        "members": [{"orgName": "Acme", "access": True}],
        "balances": [{"address": address, "balance": 700}],
        "metadata": {"VM": "SolidVM"},
        **extra,
    }


def on_chain(client: httpx.Client, chain: str, tx: dict[str, Any]) -> dict[str, Any]:
    r = client.post(
        "/svc/v2.3/transaction", params={"resolve": "true", "chainid": chain}, json={"txs": [tx]}
    )
    assert r.status_code == 200, r.text
    res: dict[str, Any] = r.json()[0]
    assert res["status"] == "Success", res
    return res


@pytest.fixture(scope="module")
def family(node: RunningNode) -> dict[str, str]:
    """alice's parent chain (with a Note contract on it), its child, and bob's Globex chain."""
    alice = node.client("alice")
    me = node.address("alice")
    parent = create_chain(alice, chain_body(me, "Acme parent"))
    child = create_chain(alice, chain_body(me, "Acme child", parentChain=parent))
    globex = create_chain(
        node.client("bob"),
        {**chain_body(node.address("bob"), "Globex only"), "members": [{"orgName": "Globex"}]},
    )
    note = on_chain(alice, parent, upload_tx("Note", NOTE_SRC, {"_text": "on the parent"}))
    main_gov = deploy(alice, "Gov", GOV_SRC, {"_quorum": 1, "_motto": "main", "_admin": me})
    return {
        "parent": parent,
        "child": child,
        "globex": globex,
        "note": str(note["data"]["contents"]["address"]),
        "main_gov": main_gov,
        "alice": me,
        "bob": node.address("bob"),
    }


def open_panel(
    loop: qasync.QEventLoop, controller: AppController, node: RunningNode, user: str = "alice"
) -> ChainsPanel:
    connect(loop, controller, node, user)
    panel = ChainsPanel(controller)
    panel.resize(1100, 700)
    panel.show()  # the lists are read when the panel is first shown
    drive(loop, lambda: panel.loaded)
    return panel


def wait_activity(loop: qasync.QEventLoop, panel: ChainsPanel, chain_id: str) -> None:
    drive(loop, lambda: panel.activity is not None and panel.activity.chain_id == chain_id)


def children(panel: ChainsPanel, index: QModelIndex) -> list[str]:
    m = panel.model
    return [str(m.data(m.index(r, 0, index))) for r in range(m.rowCount(index))]


def open_dialog(loop: qasync.QEventLoop, panel: ChainsPanel, parent: str = "") -> CreateChainDialog:
    dialog = panel.open_create_dialog(parent)
    # the template compiles, the user's organization and address are prefilled
    drive(
        loop,
        lambda: (
            dialog.spec is not None
            and dialog.members.rowCount() == 1
            and dialog.balances.rowCount() == 1
        ),
    )
    return dialog


def confirm(dialog: CreateChainDialog) -> None:
    """Send from the confirmation sheet that Create chain opened."""
    sheet = dialog.sheet
    assert sheet is not None and sheet.isVisible()
    sheet.send_button.click()
    assert dialog.sheet is None and dialog.sending


def compile_gov(loop: qasync.QEventLoop, dialog: CreateChainDialog) -> None:
    dialog.source.setPlainText(GOV_SRC)
    dialog.compile()
    drive(loop, lambda: dialog.spec is not None and dialog.spec.name == "Gov")


# ---------------------------------------------------------------------------- tree


def test_tree_nests_chains_and_shows_their_details(
    family: dict[str, str], node: RunningNode, controller: AppController, loop: qasync.QEventLoop
) -> None:
    panel = open_panel(loop, controller, node)
    m = panel.model
    ModelTester(None).check(m)
    # the main chain at the top, the parent under it, the child under the parent
    assert m.rowCount() == 1
    main = m.index(0, 0)
    assert m.data(main) == MAIN_CHAIN
    top = children(panel, main)
    assert "Acme parent" in top and "Acme child" not in top and "Globex only" not in top
    parent_index = m.index_of(family["parent"])
    assert m.parent(parent_index) == main
    assert children(panel, parent_index) == ["Acme child"]
    child_index = m.index_of(family["child"])
    assert m.parent(child_index) == parent_index
    assert m.data(child_index.siblingAtColumn(1)) == family["child"]
    assert m.path_of(family["child"]) == [MAIN_CHAIN, "Acme parent", "Acme child"]
    assert not m.index_of(family["globex"]).isValid()  # bob's chain: alice is no member

    assert panel.select(family["parent"])
    wait_activity(loop, panel, family["parent"])
    assert panel.chain_id.value() == family["parent"]  # copyable ID
    assert panel.o_label.text() == "Acme parent"
    assert panel.o_parent.text().startswith(MAIN_CHAIN)
    members = [panel.members.data(panel.members.index(0, c)) for c in range(4)]
    assert members == ["Acme", "(any)", "(any)", "yes"]
    balances = {
        panel.balances.data(panel.balances.index(r, 0)): panel.balances.data(
            panel.balances.index(r, 2)
        )
        for r in range(panel.balances.rowCount())
    }
    assert balances == {family["alice"]: "alice", GOVERNANCE_ADDRESS: "governance contract"}
    assert panel.balances.data(panel.balances.index(0, 1)) == "700 wei"
    assert panel.g_name.text().startswith("<b>Gov</b>")
    assert "constructor(uint _quorum, string _motto, address _admin)" in (
        panel.g_source.toPlainText()
    )
    contracts = {
        (
            panel.contracts.data(panel.contracts.index(r, 0)),
            panel.contracts.data(panel.contracts.index(r, 1)),
        )
        for r in range(panel.contracts.rowCount())
    }
    assert contracts == {("Gov", GOVERNANCE_ADDRESS), ("Note", family["note"])}
    assert panel.tabs.tabText(4) == "Contracts (2)"
    # a double-click opens a contract in the composer (the window connects the signal)
    opened: list[tuple[str, str, str]] = []
    panel.contract_requested.connect(lambda *a: opened.append(a))
    note_row = next(
        r
        for r in range(panel.contracts.rowCount())
        if panel.contracts.data(panel.contracts.index(r, 0)) == "Note"
    )
    panel.contracts_view.doubleClicked.emit(panel.contracts.index(note_row, 1))
    assert opened == [("Note", family["note"], family["parent"])]

    # the child names its parent; the main chain lists main-chain contracts
    assert panel.select(family["child"])
    wait_activity(loop, panel, family["child"])
    assert panel.o_parent.text() == "Acme parent"
    assert panel.o_parent_id.value() == family["parent"]
    assert panel.select("")
    wait_activity(loop, panel, "")
    names = {
        panel.contracts.data(panel.contracts.index(r, 0)) for r in range(panel.contracts.rowCount())
    }
    assert {"Gov", "Certificate"} <= names
    assert panel.chain_id.value() == "" and not panel.new_child_button.isEnabled()
    panel.close()


def test_chains_of_other_organizations_are_not_shown(
    family: dict[str, str], node: RunningNode, controller: AppController, loop: qasync.QEventLoop
) -> None:
    panel = open_panel(loop, controller, node, "alice")
    assert panel.model.index_of(family["parent"]).isValid()
    # acting as bob (Globex): the panel reloads because it is on screen
    loop.run_until_complete(controller.switch_user("bob", "bob"))
    drive(loop, lambda: panel.model.index_of(family["globex"]).isValid())
    ids = {c.id for c in panel.model.chains()}
    assert family["parent"] not in ids and family["child"] not in ids
    assert "Globex only" in children(panel, panel.model.index(0, 0))
    ModelTester(None).check(panel.model)
    panel.close()


def test_model_keeps_orphans_and_tolerates_platform_variants() -> None:
    """Chains read from other node versions: members as {access} only, balances as numbers in
    accountInfo, codeInfo missing, a parent the user cannot see, a parent cycle."""
    a, b, c, d = ("a" * 64, "b" * 64, "c" * 64, "d" * 64)
    chains = [
        ChainInfo.from_json(
            {
                "id": a,
                "info": {
                    "label": "everyone",
                    "members": [{"access": True}],
                    "accountInfo": [{"address": "0x" + "1" * 40, "balance": 5}],
                    "parentChain": None,
                },
            }
        ),
        ChainInfo.from_json({"id": b, "info": {"parentChain": "e" * 64}}),  # parent not visible
        ChainInfo.from_json({"id": c, "info": {"label": "loop c", "parentChain": d}}),
        ChainInfo.from_json({"chainId": d, "label": "loop d", "parentChain": c}),
    ]
    assert chains[0].members == (ChainMember(),) and chains[0].members[0].describe() == "everyone"
    assert chains[0].balances[0].address == "1" * 40 and chains[0].balances[0].balance == 5
    assert chains[1].governance == "" and chains[1].label == ""
    model = ChainTreeModel()
    model.set_chains(chains)
    ModelTester(None).check(model)
    main = model.index(0, 0)
    assert model.rowCount(main) >= 2
    assert b in model.orphans and model.parent(model.index_of(b)) == main
    # the cycle is broken: both chains are in the tree, one of them under the main chain
    assert model.index_of(c).isValid() and model.index_of(d).isValid()


# ---------------------------------------------------------------------------- wizard


@pytest.mark.cirrus_families  # the node's identities, from its certificate registry's table
def test_wizard_from_source_builds_the_exact_request_and_creates_the_chain(
    family: dict[str, str], node: RunningNode, controller: AppController, loop: qasync.QEventLoop
) -> None:
    panel = open_panel(loop, controller, node)
    dialog = open_dialog(loop, panel)
    assert dialog.members.members() == [ChainMember("Acme")]  # alice's organization
    assert dialog.balances.balances() == ([(family["alice"], 1000)], [])
    compile_gov(loop, dialog)
    # typed constructor arguments
    assert list(dialog.args.editors) == ["_quorum", "_motto", "_admin"]
    dialog.args.editors["_quorum"].set_value("3")
    dialog.args.editors["_motto"].set_value("shared ledger")
    dialog.args.editors["_admin"].set_value(family["alice"])
    # members: a user picked from the node's identities, an entry typed in, access off
    pick = next(
        i
        for i in range(dialog.member_pick.count())
        if dialog.member_pick.itemText(i).startswith("User bob")
    )
    dialog.member_pick.setCurrentIndex(pick)
    dialog.add_picked_member()
    row = dialog.add_member("")
    for col, text in enumerate(("Initech", "Research", "")):
        dialog.members.setData(dialog.members.index(row, col), text)
    dialog.members.setData(
        dialog.members.index(row, 3), Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole
    )
    # balances: bob picked with an amount
    bob_item = dialog.balance_pick.findData(family["bob"])
    dialog.balance_pick.setCurrentIndex(bob_item)
    dialog.balance_amount.setText("1e3")
    dialog.add_picked_balance()
    # chain page: label, parent, history; VM stays SolidVM
    dialog.label.setText("Wizard child")
    dialog.parent_combo.setCurrentIndex(dialog.parent_combo.findData(family["parent"]))
    dialog.history.setText("Gov")
    dialog.go_to("Review")
    assert dialog.page() == STEPS.index("Review")
    expected = {
        "contract": "Gov",
        "src": GOV_SRC,
        "args": {"_quorum": 3, "_motto": "shared ledger", "_admin": family["alice"]},
        "members": [
            {"access": True, "orgName": "Acme"},
            {"access": True, "orgName": "Globex", "orgUnit": "Logistics", "commonName": "bob"},
            {"access": False, "orgName": "Initech", "orgUnit": "Research"},
        ],
        "balances": [
            {"address": family["alice"], "balance": 1000},
            {"address": family["bob"], "balance": 1000},
        ],
        "label": "Wizard child",
        "parentChain": family["parent"],
        "metadata": {"VM": "SolidVM", "history": "Gov"},
        "name": "Gov",
    }
    assert dialog.request_body() == expected
    # the exact request, shown before anything is sent
    text = dialog.request.toPlainText()
    assert text.startswith(f"POST {node.url}/bloc/v2.2/chain\n\n")
    assert json.loads(text.split("\n\n", 1)[1]) == expected
    assert dialog.review_where.text() == "child of Acme parent"
    assert dialog.problems_label.text() == "" and dialog.warnings_label.text() == ""
    assert dialog.create_button.isEnabled()
    dialog.create_button.click()
    confirm(dialog)
    drive(loop, lambda: bool(dialog.created_id), timeout=30)
    new_id = dialog.created_id
    assert dialog.new_id.value() == new_id and dialog.status.text().startswith("✔")
    # the tree reloads and selects the new chain, under its parent
    drive(loop, lambda: panel.selected_id() == new_id)
    assert panel.model.parent(panel.model.index_of(new_id)) == panel.model.index_of(
        family["parent"]
    )
    # the node has the chain as requested
    info = node.client("alice").get("/bloc/v2.2/chain", params={"chainid": new_id}).json()[0]
    assert info["info"]["label"] == "Wizard child"
    assert info["info"]["parentChain"] == family["parent"]
    assert info["info"]["metadata"] == {"VM": "SolidVM", "history": "Gov"}
    state = node.client("alice").get(
        f"/bloc/v2.2/contracts/Gov/{GOVERNANCE_ADDRESS}/state", params={"chainid": new_id}
    )
    assert state.json()["quorum"] == "3" and state.json()["motto"] == "shared ledger"
    dialog.close()
    panel.close()


def test_wizard_from_deployed_code_sends_a_code_pointer(
    family: dict[str, str], node: RunningNode, controller: AppController, loop: qasync.QEventLoop
) -> None:
    panel = open_panel(loop, controller, node)
    dialog = open_dialog(loop, panel)
    dialog.from_code.setChecked(True)
    assert dialog.spec is None  # the template's spec is dropped
    # the governance contract of the parent chain, by its chain: account "<address>:<chainId>"
    dialog.code_chain.setCurrentIndex(dialog.code_chain.findData(family["parent"]))
    drive(loop, lambda: dialog.deployed.count() > 1 and dialog.deployed.itemData(1) is not None)
    gov = next(
        i
        for i in range(1, dialog.deployed.count())
        if dialog.deployed.itemData(i).address == GOVERNANCE_ADDRESS
    )
    dialog.deployed.setCurrentIndex(gov)
    drive(loop, lambda: dialog.spec is not None and dialog.spec.name == "Gov")
    dialog.args.set_values({"_quorum": 9, "_motto": "pointer", "_admin": family["alice"]})
    dialog.label.setText("From code")
    dialog.go_to("Review")
    body = dialog.request_body()
    assert "src" not in body
    assert body["codePtr"] == {"account": f"{GOVERNANCE_ADDRESS}:{family['parent']}", "name": "Gov"}
    assert body["contract"] == "Gov" and "parentChain" not in body
    assert body["args"] == {"_quorum": 9, "_motto": "pointer", "_admin": family["alice"]}
    assert dialog.review_where.text() == "child of the main chain"
    sheet = dialog.send()
    assert sheet is not None and sheet.windowTitle() == "Create this chain?"
    assert json.loads(sheet.request.toPlainText().split("\n\n", 1)[1]) == body
    confirm(dialog)
    drive(loop, lambda: not dialog.sending, timeout=30)
    assert dialog.created_id, dialog.status.text()
    new_id = dialog.created_id
    drive(loop, lambda: panel.selected_id() == new_id)
    assert panel.model.parent(panel.model.index_of(new_id)) == panel.model.index(0, 0)
    wait_activity(loop, panel, new_id)
    assert "contract Gov" in panel.g_source.toPlainText()  # the pointed code's source

    # a main-chain contract: the account is the bare address
    dialog.code_chain.setCurrentIndex(0)
    drive(
        loop,
        lambda: any(
            getattr(dialog.deployed.itemData(i), "address", "") == family["main_gov"]
            for i in range(dialog.deployed.count())
        ),
    )
    dialog.deployed.setCurrentIndex(
        next(
            i
            for i in range(1, dialog.deployed.count())
            if dialog.deployed.itemData(i).address == family["main_gov"]
        )
    )
    drive(loop, lambda: dialog.spec is not None and bool(dialog.args.editors))
    dialog.args.set_values({"_quorum": 1, "_motto": "main", "_admin": family["alice"]})
    dialog.refresh_review()
    assert dialog.request_body()["codePtr"] == {"account": family["main_gov"], "name": "Gov"}
    dialog.discard()
    panel.close()


def test_refused_requests_show_the_nodes_words_and_keep_the_form(
    family: dict[str, str], node: RunningNode, controller: AppController, loop: qasync.QEventLoop
) -> None:
    panel = open_panel(loop, controller, node)
    before = len(panel.model.chains())
    # "New child chain…" starts with the selected chain as the parent
    assert panel.select(family["child"])
    panel.new_child_button.click()
    child_dialog = panel.dialog
    assert child_dialog is not None
    assert child_dialog.parent_combo.currentData() == family["child"]
    child_dialog.close()  # untouched: closes without a question
    assert child_dialog.question is None and not child_dialog.isVisible()
    dialog = open_dialog(loop, panel)
    assert dialog.parent_combo.currentData() == ""  # "New chain…": a child of the main chain
    compile_gov(loop, dialog)
    dialog.args.set_values({"_quorum": 1, "_motto": "refused", "_admin": family["alice"]})
    dialog.label.setText("Never created")
    dialog.members.remove(0)  # no members
    dialog.go_to("Review")
    assert "no members" in dialog.warnings_label.text()
    assert dialog.create_button.isEnabled()  # the node decides; its rules differ
    dialog.create_button.click()
    confirm(dialog)
    drive(loop, lambda: "was not created" in dialog.status.text())
    assert "Private chains must include at least one member" in dialog.status.text()
    # nothing lost: label, source, arguments, balances are as typed
    assert dialog.label.text() == "Never created"
    assert dialog.source.toPlainText() == GOV_SRC
    assert dialog.args.values()["_motto"] == "refused"
    assert dialog.balances.rowCount() == 1 and not dialog.created_id
    # compiling again (or another VM) keeps the typed arguments
    dialog.compile()
    drive(loop, dialog.compile_button.isEnabled)
    assert dialog.args.values()["_motto"] == "refused"

    # a member again, but only a zero balance
    dialog.add_member("Acme")
    dialog.balances.setData(dialog.balances.index(0, 1), "0")
    assert "non-zero balance" in dialog.warnings_label.text()
    dialog.create_button.click()
    confirm(dialog)
    drive(loop, lambda: "non-zero balance" in dialog.status.text() and not dialog.sending)
    assert "At least one account must have a non-zero balance" in dialog.status.text()
    assert dialog.members.members() == [ChainMember("Acme")]
    # a form problem is caught before sending: a bad address
    dialog.balances.setData(dialog.balances.index(0, 0), "not-an-address")
    dialog.balances.setData(dialog.balances.index(0, 1), "5")
    assert "40 hex digits" in dialog.problems_label.text()
    assert not dialog.create_button.isEnabled()
    panel.reload()
    drive(loop, lambda: panel.status.text().endswith("access"))
    assert len(panel.model.chains()) == before
    dialog.discard()
    panel.close()


# ---------------------------------------------------------------------------- activity


@pytest.mark.cirrus_families  # the events are read from the seed's event tables
def test_membership_events_of_the_chain(
    family: dict[str, str],
    node: RunningNode,
    cirrus_names: str,
    controller: AppController,
    loop: qasync.QEventLoop,
) -> None:
    alice = node.client("alice")
    me = family["alice"]
    chain = create_chain(alice, chain_body(me, "Events"))
    panel = open_panel(loop, controller, node)
    assert panel.select(chain)
    wait_activity(loop, panel, chain)
    assert panel.events.rowCount() == 0
    strato16 = cirrus_names == "strato16"
    assert ("cannot be matched" if strato16 else "No membership events") in panel.events_note.text()

    # the governance contract (platform names) and another contract (the seed's name) emit
    add = on_chain(alice, chain, call_tx(GOVERNANCE_ADDRESS, "addOrg", {"o": "Initech"}))
    on_chain(alice, chain, call_tx(GOVERNANCE_ADDRESS, "addUnit", {"o": "Globex", "u": "Legal"}))
    note = on_chain(alice, chain, upload_tx("Note", NOTE_SRC, {"_text": "x"}))
    note_address = note["data"]["contents"]["address"]
    on_chain(alice, chain, call_tx(note_address, "invite", {"o": "Umbrella"}))
    on_chain(alice, chain, call_tx(GOVERNANCE_ADDRESS, "removeOrg", {"o": "Initech"}))
    # the same event on another chain is not this chain's
    on_chain(alice, family["parent"], call_tx(GOVERNANCE_ADDRESS, "addOrg", {"o": "Elsewhere"}))

    panel.refresh_button.click()
    if strato16:  # said, not shown as "no membership events"
        drive(loop, lambda: "cannot be matched to the chain" in panel.events_note.text())
        assert panel.events.rowCount() == 0
        panel.close()
        return
    drive(loop, lambda: panel.activity is not None and panel.events.rowCount() == 4)
    ev = panel.events
    changes = [ev.data(ev.index(r, 2)) for r in range(ev.rowCount())]
    assert changes == [
        "+ organization Initech",
        "+ unit Globex / Legal",
        "+ organization Umbrella",
        "- organization Initech",
    ]
    assert [ev.data(ev.index(r, 3)) for r in range(4)] == [
        "OrgAdded",
        "OrgUnitAdded",
        "OrganizationAdded",
        "OrgRemoved",
    ]
    assert ev.data(ev.index(0, 5)) == "alice"  # the sender, by name
    assert ev.data(ev.index(0, 6)) == add["hash"]
    assert ev.data(ev.index(2, 4)).startswith("Note ")
    assert panel.tabs.tabText(5) == "Membership (4)"
    # the members the events produced
    members = {m.describe() for m in panel.selected_chain().members}  # type: ignore[union-attr]
    assert {"organization Acme", "unit Globex / Legal", "organization Umbrella"} <= members
    assert "organization Initech" not in members
    # double-click opens the transaction that emitted it
    opened: list[str] = []
    panel.transaction_requested.connect(opened.append)
    panel._open_event(ev.index(0, 0))
    assert opened == [add["hash"]]
    panel.close()


def test_transaction_history_of_a_chain(
    family: dict[str, str],
    node: RunningNode,
    controller: AppController,
    loop: qasync.QEventLoop,
    window: MainWindow,
) -> None:
    alice = node.client("alice")
    chain = create_chain(alice, chain_body(family["alice"], "History"))
    call = on_chain(alice, chain, call_tx(GOVERNANCE_ADDRESS, "addOrg", {"o": "Hooli"}))
    connect(loop, controller, node)
    # the panel is the fourth of the window (Ctrl+4) and reads its lists when shown
    panel = window.panels[3]
    assert isinstance(panel, ChainsPanel) and window.nav.item(3).text() == "Chains"
    window.nav.setCurrentRow(3)
    drive(loop, lambda: panel.loaded and panel.model.index_of(chain).isValid())
    assert panel.select(chain)
    wait_activity(loop, panel, chain)
    txs = panel.txs
    rows = [[txs.data(txs.index(r, c)) for c in range(5)] for r in range(txs.rowCount())]
    assert [r[1] for r in rows] == ["Chain created", "Call: addOrg()"]
    assert rows[1][0] == call["hash"] and rows[1][2] == family["alice"]
    assert int(rows[0][3]) <= int(rows[1][3])
    assert all(r[4] for r in rows)  # a time for each
    assert "2 transaction(s) on this chain" in panel.txs_note.text()
    # a double-click asks the window for the transaction inspector
    seen: list[str] = []
    panel.transaction_requested.connect(seen.append)
    index = txs.index(1, 0)
    panel.txs_view.doubleClicked.emit(index)
    assert seen == [call["hash"]]
    inspectors = [d for d in window.findChildren(TxInspectorDialog) if d.isVisible()]
    assert [d.hash_edit.text() for d in inspectors] == [call["hash"]]
    for d in inspectors:
        d.close()


def test_a_chain_created_after_its_dialog_closed_is_still_selected(
    family: dict[str, str], node: RunningNode, controller: AppController, loop: qasync.QEventLoop
) -> None:
    panel = open_panel(loop, controller, node)
    dialog = open_dialog(loop, panel)  # the template: a constructor without arguments
    dialog.label.setText("Closed early")
    dialog.go_to("Review")
    assert dialog.request_body()["args"] == {} and dialog.request_body()["contract"] == "Governance"
    dialog.create_button.click()
    confirm(dialog)
    dialog.close()  # while the chain is being created: nothing to lose, no question
    drive(loop, lambda: (c := panel.selected_chain()) is not None and c.label == "Closed early")
    assert panel.selected_chain().governance == "Governance"  # type: ignore[union-attr]
    panel.close()


def test_enter_on_review_creates_through_the_sheet_and_escape_asks(
    family: dict[str, str],
    node: RunningNode,
    controller: AppController,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    """Enter on the Review page is Create chain (then the confirmation sheet), never Close;
    Escape on a filled-in wizard asks first (issue 16)."""
    panel = open_panel(loop, controller, node)
    dialog = open_dialog(loop, panel)
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)

    def key(k: Qt.Key) -> None:
        """A key to whatever has the focus, as the keyboard sends it."""
        target = QApplication.focusWidget()
        assert target is not None
        qtbot.keyClick(target, k)

    for _ in range(STEPS.index("Chain")):
        qtbot.mouseClick(dialog.next_button, LEFT)
    qtbot.mouseClick(dialog.label, LEFT)
    qtbot.keyClicks(dialog.label, "By keyboard")
    qtbot.mouseClick(dialog.next_button, LEFT)
    assert dialog.page() == STEPS.index("Review")
    assert dialog.create_button.isEnabled()
    key(Qt.Key.Key_Return)
    assert dialog.isVisible(), "Enter discarded the wizard"
    assert dialog.create_button.isDefault() and not dialog.close_button.isDefault()
    sheet = dialog.sheet
    assert sheet is not None and sheet.isVisible() and sheet.windowTitle() == "Create this chain?"
    sheet.activateWindow()
    qtbot.waitUntil(sheet.isActiveWindow)
    # the sheet's default is Cancel (an irreversible write is never sent by a stray Enter)
    assert sheet.cancel_button.isDefault()
    qtbot.keyClick(sheet, Qt.Key.Key_S, Qt.KeyboardModifier.AltModifier)  # Send
    drive(loop, lambda: bool(dialog.created_id), timeout=30)
    drive(loop, lambda: panel.selected_id() == dialog.created_id)
    assert panel.model.chain(dialog.created_id).label == "By keyboard"  # type: ignore[union-attr]
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    key(Qt.Key.Key_Escape)  # created: nothing to lose, it closes
    assert not dialog.isVisible()

    # Escape on a filled-in wizard asks; Escape again keeps editing; Discard closes
    dialog = open_dialog(loop, panel)
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    dialog.go_to("Chain")
    qtbot.mouseClick(dialog.label, LEFT)
    qtbot.keyClicks(dialog.label, "Half done")
    key(Qt.Key.Key_Return)  # Enter on another page: Next
    assert dialog.page() == STEPS.index("Review")
    key(Qt.Key.Key_Escape)
    question = dialog.question
    assert question is not None and question.isVisible() and dialog.isVisible()
    question.activateWindow()
    qtbot.waitUntil(question.isActiveWindow)
    key(Qt.Key.Key_Escape)  # "Keep editing"
    assert not question.isVisible() and dialog.isVisible() and dialog.question is None
    assert dialog.label.text() == "Half done"
    qtbot.mouseClick(dialog.close_button, LEFT)  # Close asks too
    question = dialog.question
    assert question is not None and question.isVisible()
    discard = question.findChild(QPushButton, "discardYes")
    assert discard is not None
    qtbot.mouseClick(discard, LEFT)
    assert not dialog.isVisible()
    # an untouched wizard closes on Escape at once
    dialog = open_dialog(loop, panel)
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    key(Qt.Key.Key_Escape)
    assert dialog.question is None and not dialog.isVisible()
    panel.close()


def test_small_screen_and_tab_order(
    family: dict[str, str],
    node: RunningNode,
    controller: AppController,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    """The wizard fits a 1024x640 screen, its pages scroll at its minimum size instead of
    squashing, and Tab follows the layout in the panel and the wizard (issue 16)."""
    panel = open_panel(loop, controller, node)
    panel.resize(1024 - 200, 640 - 120)  # the panel's share of a 1024x640 window
    hint = panel.minimumSizeHint()
    assert hint.width() <= 1024 - 200 and hint.height() <= 640 - 160, hint
    # the Contracts tab: its copy button sits above the table and comes first
    assert panel.select(family["parent"])
    wait_activity(loop, panel, family["parent"])
    panel.tabs.setCurrentIndex(4)
    seen = tab_through(qtbot, panel, panel.tree, panel.contracts_view)
    assert seen[-2:] == [panel.copy_contract, panel.contracts_view]

    dialog = open_dialog(loop, panel)
    room = dialog.screen().availableGeometry()
    assert dialog.width() <= room.width() and dialog.height() <= room.height() - 40
    assert dialog.minimumSize().width() <= 640 and dialog.minimumSize().height() <= 400
    # a governance contract with a dozen constructor arguments
    params = ", ".join(f"uint _n{i}" for i in range(12))
    dialog.source.setPlainText(f"contract Many {{ constructor({params}) public {{}} }}")
    dialog.compile()
    drive(loop, lambda: dialog.spec is not None and dialog.spec.name == "Many")
    dialog.resize(dialog.minimumSize())
    dialog.go_to("Constructor")
    loop.run_until_complete(asyncio.sleep(0.05))
    assert dialog.size() == dialog.minimumSize()  # the page did not grow the dialog
    page = dialog.pages.currentWidget()
    assert isinstance(page, QScrollArea)
    inner = dialog.args.scroll_area.verticalScrollBar()
    assert max(page.verticalScrollBar().maximum(), inner.maximum()) > 0  # ... it scrolls
    editor = dialog.args.editors["_n11"]
    assert editor.height() >= editor.minimumSizeHint().height()  # ... nothing squashed
    # Members: the picker row above the table, left to right, then the table
    dialog.go_to("Members")
    seen = tab_through(qtbot, dialog, dialog.member_pick, dialog.members_view)
    assert seen == [
        dialog.member_pick,
        dialog.add_member_button,
        dialog.new_member_button,
        dialog.remove_member_button,
        dialog.members_view,
    ]
    dialog.go_to("Review")
    seen = tab_through(qtbot, dialog, dialog.copy_curl, dialog.request)
    assert seen == [dialog.copy_curl, dialog.request]
    dialog.discard()
    panel.close()


def test_a_chain_created_elsewhere_appears_without_refresh(
    family: dict[str, str], node: RunningNode, controller: AppController, loop: qasync.QEventLoop
) -> None:
    controller.session.health_interval = 0.1  # the block watch reads the latest block
    panel = open_panel(loop, controller, node)
    panel._watch.setInterval(50)
    assert panel.select(family["parent"])
    before = {c.id for c in panel.model.chains()}
    # another program (here: bob's own HTTP client) creates a chain alice can see
    made = create_chain(
        node.client("bob"),
        {**chain_body(node.address("bob"), "Made by a script"), "members": [{"orgName": "Acme"}]},
    )
    assert made not in before
    drive(loop, lambda: panel.model.chain(made) is not None, 20)
    assert panel.model.chain(made).label == "Made by a script"  # type: ignore[union-attr]
    assert panel.selected_id() == family["parent"]  # the selection stays where it was
    # hidden, the panel reads nothing; shown again it is up to date
    panel.hide()
    later = create_chain(node.client("alice"), chain_body(family["alice"], "While hidden"))
    drive(loop, lambda: panel._stale, 20)
    assert panel.model.chain(later) is None
    panel.show()
    drive(loop, lambda: panel.model.chain(later) is not None, 20)
    panel.close()
