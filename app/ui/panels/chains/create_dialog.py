"""The create-chain wizard: every field of a chain creation request, page by page.

Governance comes from source (compiled by the node into typed specs) or from a deployed
contract (``codePtr``); constructor arguments use the composer's typed editors; members and
balances are editable tables with pickers of the node's identities; label, parent chain, VM and
history follow. The last page shows the exact request; *Create chain* (the default button there, so
Enter) puts it on the confirmation sheet every write goes through. Enter never discards the
wizard, and Escape or Close ask before losing what was typed. The node's refusal is shown in its
words on the review page and the form keeps everything typed.
"""

from __future__ import annotations

import itertools
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.client.abi_types import AbiTypeError, ContractSpec
from app.client.errors import StratoError
from app.services.chains import (
    GOVERNANCE_TEMPLATE,
    ChainContract,
    ChainDraft,
    ChainInfo,
    ChainMember,
    Identity,
)
from app.services.composer import Preview
from app.services.controller import AppController
from app.ui.panels.chains.models import MAIN_CHAIN, BalanceRowsModel, ChoiceModel, MemberRowsModel
from app.ui.panels.chains.wizard_parts import ERROR, ReviewPage, fill, hint, table_view
from app.ui.shell.theme import scheme_is_dark
from app.ui.widgets.arg_editor import AddressBook, ArgumentsEditor
from app.ui.widgets.common import copy_text, name_widget, while_alive
from app.ui.widgets.confirm_dialog import ConfirmDialog
from app.ui.widgets.discard_question import ask_discard
from app.ui.widgets.scroll import fit_to_screen, scroll_area
from app.ui.widgets.source_editor import SourceEditor

STEPS = ("Governance", "Constructor", "Members", "Balances", "Chain", "Review")
DEFAULT_BALANCE = "1000"


class CreateChainDialog(QDialog):
    """Signals: created(str): the ID of a chain the node created."""

    created = Signal(str)

    def __init__(
        self,
        controller: AppController,
        chains: list[ChainInfo],
        parent_chain: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("createChainDialog")
        self.setAccessibleName("Create a private chain")
        self.setWindowTitle("New private chain")
        self.controller = controller
        self.service = controller.chains
        self.chains = list(chains)
        self.spec: ContractSpec | None = None
        self.specs: dict[str, ContractSpec] = {}
        self.spec_source = ""  # the source the current spec was compiled from
        self._last_source = ""
        self.identities: list[Identity] = []
        self.my_address = ""
        self.created_id = ""
        self.sending = False
        self._preview: Preview | None = None
        self.book = AddressBook()
        self.sheet: ConfirmDialog | None = None  # the confirmation sheet, while it is open
        self.question: QMessageBox | None = None  # "discard?", while it is open
        self._prefilled_members: list[ChainMember] = []
        self._initial_parent = parent_chain

        self.steps = QListWidget(self)
        name_widget(self.steps, "createChainSteps", "Steps")
        self.steps.addItems([f"{i + 1}. {s}" for i, s in enumerate(STEPS)])
        self.steps.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        widest = max(self.steps.fontMetrics().horizontalAdvance(f"9. {s}") for s in STEPS)
        self.steps.setFixedWidth(widest + 32)
        self.pages = QStackedWidget(self)
        for build in (
            self._governance_page,
            self._constructor_page,
            self._members_page,
            self._balances_page,
            self._chain_page,
            self._review_page,
        ):
            self.pages.addWidget(scroll_area(build()))  # a small screen scrolls a page
        self.steps.currentRowChanged.connect(self._go)

        self.back_button = self._button("Back", "createChainBack", "Previous step")
        self.back_button.clicked.connect(lambda: self.steps.setCurrentRow(self.page() - 1))
        self.next_button = self._button("Next", "createChainNext", "Next step")
        self.next_button.clicked.connect(lambda: self.steps.setCurrentRow(self.page() + 1))
        self.create_button = self._button("Create chain", "createChainCreate", "Create the chain")
        self.create_button.clicked.connect(self.send)
        self.close_button = self._button("Close", "createChainClose", "Close")
        self.close_button.clicked.connect(self.reject)
        # a focused Back or Close never becomes the default button: Enter goes to Next, or to
        # Create chain on the review page (nothing when it is disabled), never to Close
        for b in (self.back_button, self.close_button):
            b.setAutoDefault(False)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for b in (self.back_button, self.next_button, self.create_button, self.close_button):
            buttons.addWidget(b)
        body = QHBoxLayout()
        body.addWidget(self.steps)
        body.addWidget(self.pages, 1)
        lay = QVBoxLayout(self)
        lay.addLayout(body, 1)
        lay.addLayout(buttons)
        self.setMinimumSize(520, 340)
        fit_to_screen(self, 860, 620)
        # Tab follows each page's layout (some widgets are made before those above them)
        tab_chains: list[list[QWidget]] = [
            [self.from_source, self.from_code, self.vm, self.template_button],
            [self.template_button, self.compile_button, self.contract, self.source],
            [self.member_pick, self.add_member_button, self.new_member_button],
            [self.new_member_button, self.remove_member_button, self.members_view],
            [self.balance_pick, self.balance_amount, self.add_balance_button],
            [self.add_balance_button, self.remove_balance_button, self.balances_view],
            [self.copy_curl, self.request, self.new_id.edit, self.new_id.button],
        ]
        for chain in tab_chains:
            for first, second in itertools.pairwise(chain):
                QWidget.setTabOrder(first, second)

        self.parent_combo.setCurrentIndex(max(0, self.parent_combo.findData(parent_chain)))
        self._initial_parent = str(self.parent_combo.currentData() or "")
        self.source.setPlainText(GOVERNANCE_TEMPLATE)
        self.steps.setCurrentRow(0)
        self._load_lists()
        self.compile()

    def _button(self, text: str, name: str, accessible: str) -> QPushButton:
        b = QPushButton(text, self)
        name_widget(b, name, accessible)
        return b

    # ------------------------------------------------------------ pages

    def _governance_page(self) -> QWidget:
        page = QWidget(self)
        self.from_source = QRadioButton("From source code", page)
        name_widget(self.from_source, "createChainFromSource", "Governance from source")
        self.from_code = QRadioButton("From a deployed contract (codePtr)", page)
        name_widget(self.from_code, "createChainFromCode", "Governance from deployed code")
        self.mode = QButtonGroup(page)
        self.mode.addButton(self.from_source, 0)
        self.mode.addButton(self.from_code, 1)
        self.from_source.setChecked(True)
        self.mode.idToggled.connect(self._mode_changed)
        self.vm = QComboBox(page)
        self.vm.addItems(["SolidVM", "EVM"])
        name_widget(self.vm, "createChainVm", "Virtual machine (metadata VM)")
        self.vm.currentIndexChanged.connect(self._vm_changed)

        # from source
        src = QWidget(page)
        self.source = SourceEditor(src, dark=scheme_is_dark())
        name_widget(self.source, "createChainSource", "Governance contract source")
        self.source.textChanged.connect(self._source_edited)
        self.template_button = QPushButton("Template", src)
        name_widget(self.template_button, "createChainTemplate", "Start from the template")
        self.template_button.setToolTip(
            "A governance contract whose functions emit the platform's membership events"
        )
        self.template_button.clicked.connect(lambda: self.source.setPlainText(GOVERNANCE_TEMPLATE))
        self.compile_button = QPushButton("Compile", src)
        name_widget(self.compile_button, "createChainCompile", "Compile the source")
        self.compile_button.clicked.connect(self.compile)
        self.contract = QComboBox(src)
        name_widget(self.contract, "createChainContract", "Governance contract")
        self.contract.currentIndexChanged.connect(self._contract_chosen)
        sl = QVBoxLayout(src)
        sl.setContentsMargins(0, 0, 0, 0)
        tools = QHBoxLayout()
        tools.addWidget(self.template_button)
        tools.addWidget(self.compile_button)
        tools.addWidget(QLabel("Contract", src))
        tools.addWidget(self.contract, 1)
        sl.addLayout(tools)
        sl.addWidget(self.source, 1)

        # from deployed code
        code = QWidget(page)
        self.code_chain = QComboBox(code)
        name_widget(self.code_chain, "createChainCodeChain", "Chain of the deployed contract")
        self.code_chain.setModel(ChoiceModel(self.code_chain))
        fill(self.code_chain, [(MAIN_CHAIN, ""), *self._chain_items()])
        self.code_chain.currentIndexChanged.connect(self._load_deployed)
        self.deployed = QComboBox(code)
        name_widget(self.deployed, "createChainDeployed", "Deployed contract")
        self.deployed.setModel(ChoiceModel(self.deployed))
        self.deployed.currentIndexChanged.connect(self._deployed_chosen)
        cf = QFormLayout(code)
        cf.addRow("Chain", self.code_chain)
        cf.addRow("Contract", self.deployed)
        cf.addRow(
            hint(
                "The new chain's governance contract runs this contract's code "
                "(codePtr: its address, and chain when private).",
                code,
            )
        )

        self.gov_stack = QStackedWidget(page)
        self.gov_stack.addWidget(src)
        self.gov_stack.addWidget(code)
        self.gov_status = QLabel("", page)
        self.gov_status.setWordWrap(True)
        name_widget(self.gov_status, "createChainGovernanceStatus", "Governance contract status")
        top = QHBoxLayout()
        top.addWidget(self.from_source)
        top.addWidget(self.from_code)
        top.addStretch(1)
        top.addWidget(QLabel("VM", page))
        top.addWidget(self.vm)
        lay = QVBoxLayout(page)
        lay.addLayout(top)
        lay.addWidget(self.gov_stack, 1)
        lay.addWidget(self.gov_status)
        return page

    def _constructor_page(self) -> QWidget:
        page = QWidget(self)
        self.ctor_title = QLabel("Compile the governance contract first.", page)
        name_widget(self.ctor_title, "createChainConstructorTitle", "Constructor")
        self.args = ArgumentsEditor("createChainArgs", page, self.book)
        self.args.changed.connect(self._changed)
        lay = QVBoxLayout(page)
        lay.addWidget(self.ctor_title)
        lay.addWidget(self.args)
        lay.addStretch(1)
        return page

    def _members_page(self) -> QWidget:
        page = QWidget(self)
        self.members = MemberRowsModel(self)
        self.members.dataChanged.connect(self._changed)
        self.members.rowsInserted.connect(self._changed)
        self.members.rowsRemoved.connect(self._changed)
        self.members_view = table_view(page, self.members, "createChainMembers", "Members")
        self.member_pick = QComboBox(page)
        name_widget(self.member_pick, "createChainMemberPick", "Known organizations and users")
        self.member_pick.setModel(ChoiceModel(self.member_pick))
        self.add_member_button = QPushButton("Add", page)
        name_widget(self.add_member_button, "createChainAddMember", "Add the picked member")
        self.add_member_button.clicked.connect(self.add_picked_member)
        self.new_member_button = QPushButton("New row", page)
        name_widget(self.new_member_button, "createChainNewMember", "Type a member")
        self.new_member_button.clicked.connect(lambda: self._new_row(self.members_view))
        self.remove_member_button = QPushButton("Remove", page)
        name_widget(self.remove_member_button, "createChainRemoveMember", "Remove the member")
        self.remove_member_button.clicked.connect(
            lambda: self._remove_rows(self.members_view, self.members)
        )
        pick = QHBoxLayout()
        pick.addWidget(self.member_pick, 1)
        pick.addWidget(self.add_member_button)
        pick.addWidget(self.new_member_button)
        pick.addWidget(self.remove_member_button)
        lay = QVBoxLayout(page)
        lay.addWidget(
            hint(
                "Who may see and use the chain: a whole organization, one unit of it, or one "
                "user. Empty parts match anyone; untick Access to list without access.",
                page,
            )
        )
        lay.addLayout(pick)
        lay.addWidget(self.members_view, 1)
        return page

    def _balances_page(self) -> QWidget:
        page = QWidget(self)
        self.balances = BalanceRowsModel(self)
        self.balances.dataChanged.connect(self._changed)
        self.balances.rowsInserted.connect(self._changed)
        self.balances.rowsRemoved.connect(self._changed)
        self.balances_view = table_view(page, self.balances, "createChainBalances", "Balances")
        self.balance_pick = QComboBox(page)
        self.balance_pick.setEditable(True)
        name_widget(self.balance_pick, "createChainBalancePick", "Address to fund")
        self.balance_pick.setModel(ChoiceModel(self.balance_pick))
        line = self.balance_pick.lineEdit()
        assert line is not None
        line.setPlaceholderText("address (40 hex digits) or pick a user")
        self.balance_amount = QLineEdit(DEFAULT_BALANCE, page)
        name_widget(self.balance_amount, "createChainBalanceAmount", "Amount in units")
        self.add_balance_button = QPushButton("Add", page)
        name_widget(self.add_balance_button, "createChainAddBalance", "Add the balance")
        self.add_balance_button.clicked.connect(self.add_picked_balance)
        self.remove_balance_button = QPushButton("Remove", page)
        name_widget(self.remove_balance_button, "createChainRemoveBalance", "Remove the balance")
        self.remove_balance_button.clicked.connect(
            lambda: self._remove_rows(self.balances_view, self.balances)
        )
        pick = QHBoxLayout()
        pick.addWidget(self.balance_pick, 2)
        pick.addWidget(self.balance_amount, 1)
        pick.addWidget(self.add_balance_button)
        pick.addWidget(self.remove_balance_button)
        lay = QVBoxLayout(page)
        lay.addWidget(
            hint(
                "Initial balances on the new chain, in units (1000, 1e18, 0x2a). The platform "
                "wants at least one non-zero balance even when gas is off.",
                page,
            )
        )
        lay.addLayout(pick)
        lay.addWidget(self.balances_view, 1)
        return page

    def _chain_page(self) -> QWidget:
        page = QWidget(self)
        self.label = QLineEdit(page)
        self.label.setPlaceholderText("a name people will recognise")
        name_widget(self.label, "createChainLabel", "Chain label")
        self.label.textChanged.connect(self._changed)
        self.parent_combo = QComboBox(page)
        name_widget(self.parent_combo, "createChainParent", "Parent chain")
        self.parent_combo.setModel(ChoiceModel(self.parent_combo))
        fill(self.parent_combo, [(f"{MAIN_CHAIN} (no parentChain)", ""), *self._chain_items()])
        self.parent_combo.currentIndexChanged.connect(self._changed)
        self.history = QLineEdit(page)
        self.history.setPlaceholderText("contract names to keep history tables of, e.g. Governance")
        name_widget(self.history, "createChainHistory", "History (metadata history)")
        self.history.textChanged.connect(self._changed)
        form = QFormLayout(page)
        form.addRow("Label", self.label)
        form.addRow("Parent chain", self.parent_combo)
        form.addRow("History", self.history)
        return page

    def _review_page(self) -> QWidget:
        page = ReviewPage(self)
        self.review_signer, self.review_where = page.signer, page.where
        self.problems_label, self.warnings_label = page.problems, page.warnings
        self.request, self.copy_curl = page.request, page.copy_curl
        self.status, self.new_id = page.status, page.new_id
        self.review = page
        self.copy_curl.clicked.connect(self._copy_curl)
        return page

    def _chain_items(self) -> list[tuple[str, Any]]:
        return [(f"{c.title()} ({c.id[:8]}…)", c.id) for c in self.chains]

    # ------------------------------------------------------------ navigation

    def page(self) -> int:
        return self.pages.currentIndex()

    def go_to(self, step: str) -> None:
        self.steps.setCurrentRow(STEPS.index(step))

    def _go(self, row: int) -> None:
        if not 0 <= row < len(STEPS):
            return
        on_next = self.next_button.hasFocus()
        last = row == len(STEPS) - 1
        self.pages.setCurrentIndex(row)
        self.back_button.setEnabled(row > 0)
        self.next_button.setEnabled(not last)
        self.refresh_review()
        self.next_button.setDefault(not last)
        self.create_button.setDefault(last)
        if last and on_next:  # Next went away under the focus: Create chain takes it
            (self.create_button if self.create_button.isEnabled() else self.request).setFocus()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh_review()

    # ------------------------------------------------------------ lists

    def _load_lists(self) -> None:
        tasks = self.controller.tasks
        tasks.start(
            "Listing identities",
            self.service.identities(),
            on_done=while_alive(self, self._identities_loaded),
            on_error=while_alive(self, self._list_failed),
        )
        tasks.start(
            "Reading your address",
            self.service.my_address(),
            on_done=while_alive(self, self._address_loaded),
            on_error=while_alive(self, self._list_failed),
        )
        self._load_deployed()

    def _list_failed(self, text: str) -> None:
        self.gov_status.setText(f"✘ {text}")

    def _identities_loaded(self, identities: list[Identity]) -> None:
        self.identities = identities
        picks: list[tuple[str, Any]] = []
        for org in sorted({i.organization for i in identities if i.organization}):
            picks.append((f"Organization {org}", ChainMember(org)))
        units = sorted({(i.organization, i.unit) for i in identities if i.organization and i.unit})
        picks += [(f"Unit {org} / {unit}", ChainMember(org, unit)) for org, unit in units]
        picks += [
            (
                f"User {i.common_name} ({i.organization} / {i.unit or '*'})",
                ChainMember(i.organization, i.unit, i.common_name),
            )
            for i in identities
            if i.organization
        ]
        picks.append(("Everyone ({access} only)", ChainMember()))
        fill(self.member_pick, picks)
        current = self.balance_pick.currentText()
        contacts = sorted(self.controller.contacts.items())
        fill(
            self.balance_pick,
            [(f"contact {name}  {address}", address) for name, address in contacts]
            + [(f"user {i.common_name}  {i.address}", i.address) for i in identities if i.address],
        )
        self.balance_pick.setEditText(current)
        self.book.entries = [(f"contact {n}", a) for n, a in contacts] + [
            (f"user {i.common_name}", i.address) for i in identities if i.address
        ]
        me = next(
            (i for i in identities if i.common_name == self.controller.session.username), None
        )
        if me is not None and me.organization and not self.members.rowCount():
            self.members.add(ChainMember(me.organization))  # the creator's organization
            self._prefilled_members = self.members.members()

    def _address_loaded(self, address: str) -> None:
        self.my_address = address
        if address and not self.balances.rowCount():
            self.balances.add(address, DEFAULT_BALANCE)

    def _load_deployed(self, _i: int = 0) -> None:
        chain = str(self.code_chain.currentData() or "")
        fill(self.deployed, [("Loading…", None)])
        self.controller.tasks.start(
            "Listing contracts",
            self.service.contracts(chain),
            on_done=while_alive(self, lambda rows: self._deployed_loaded(chain, rows)),
            on_error=while_alive(self, self._list_failed),
        )

    def _deployed_loaded(self, chain: str, rows: list[ChainContract]) -> None:
        if chain != str(self.code_chain.currentData() or ""):
            return  # the user chose another chain meanwhile
        self.deployed.blockSignals(True)
        fill(
            self.deployed,
            [("Choose a contract…", None)] + [(f"{c.name}  {c.address}", c) for c in rows],
        )
        self.deployed.blockSignals(False)
        if self.from_code.isChecked():
            self._deployed_chosen()

    # ------------------------------------------------------------ governance

    def _mode_changed(self, _id: int, checked: bool) -> None:
        if not checked:
            return
        self.gov_stack.setCurrentIndex(1 if self.from_code.isChecked() else 0)
        self._set_spec(None, "")
        if self.from_code.isChecked():
            self._deployed_chosen()
        else:
            self.compile()

    def _vm_changed(self, _i: int) -> None:
        if self.from_source.isChecked():
            self.compile()
        else:
            self._set_spec(self.spec, self.ctor_title.text())

    def _source_edited(self) -> None:
        text = self.source.toPlainText()
        if text == self._last_source:
            return  # re-highlighting emits textChanged too
        self._last_source = text
        if self.spec is not None and text != self.spec_source:
            self.gov_status.setText("The source changed: compile again.")
        self._changed()

    def compile(self) -> None:
        """Ask the node for the source's contracts; the last one is preselected."""
        src = self.source.toPlainText()
        if not src.strip():
            self.gov_status.setText("Write or paste the governance contract, then Compile.")
            return
        vm = self.vm.currentText()
        self.compile_button.setEnabled(False)
        self.gov_status.setText("Compiling…")
        current = self.contract.currentText()

        def done(specs: dict[str, ContractSpec]) -> None:
            self.compile_button.setEnabled(True)
            self.specs = specs
            self.spec_source = src
            self.contract.blockSignals(True)
            self.contract.clear()
            self.contract.addItems(list(specs))
            if current in specs:
                self.contract.setCurrentText(current)
            else:
                self.contract.setCurrentIndex(len(specs) - 1)
            self.contract.blockSignals(False)
            self.gov_status.setText(f"✔ {len(specs)} contract(s): {', '.join(specs)}")
            self._contract_chosen()

        def failed(text: str) -> None:
            self.compile_button.setEnabled(True)
            line = self.source.mark_error(text)
            self.gov_status.setText(f"✘ {text}" + (f" (line {line})" if line else ""))
            self._set_spec(None, "")

        self.controller.tasks.start(
            "Compiling the governance contract",
            self.controller.composer.compile(src, vm),
            on_done=while_alive(self, done),
            on_error=while_alive(self, failed),
        )

    def _contract_chosen(self, _i: int = 0) -> None:
        spec = self.specs.get(self.contract.currentText())
        self._set_spec(spec, f"Constructor of {spec.name}" if spec else "")

    def _deployed_chosen(self, _i: int = 0) -> None:
        if not self.from_code.isChecked():
            return
        c = self.deployed.currentData()
        if not isinstance(c, ChainContract):
            self._set_spec(None, "")
            return
        self.gov_status.setText(f"Reading the interface of {c.name}…")

        def done(spec: ContractSpec) -> None:
            if self.deployed.currentData() is not c:
                return
            self.gov_status.setText(f"✔ {c.name} at {c.address}")
            self._set_spec(spec, f"Constructor of {spec.name} (deployed at {c.address})")

        self.controller.tasks.start(
            "Reading a contract",
            self.controller.composer.deployed(c.name, c.address, c.chain_id or None),
            on_done=while_alive(self, done),
            on_error=while_alive(self, self._list_failed),
        )

    def _set_spec(self, spec: ContractSpec | None, title: str) -> None:
        kept: dict[str, Any] | None = None
        if spec is not None and self.spec is not None and spec.constructor == self.spec.constructor:
            try:  # the same constructor (a recompile, another VM): keep what was typed
                kept = self.args.values()
            except AbiTypeError:
                kept = None
        self.spec = spec
        self.args.set_function(spec.constructor if spec else None, self.vm.currentText())
        if kept:
            self.args.set_values(kept)
        self.ctor_title.setText(title or "Choose the governance contract first.")
        self._changed()

    # ------------------------------------------------------------ members and balances

    def add_picked_member(self) -> None:
        m = self.member_pick.currentData()
        if isinstance(m, ChainMember) and m not in self.members.members():
            self.members.add(m)

    def add_member(
        self, org: str, unit: str = "", common_name: str = "", access: bool = True
    ) -> int:
        return self.members.add(ChainMember(org, unit, common_name, access))

    def add_picked_balance(self) -> None:
        data = self.balance_pick.currentData()
        text = self.balance_pick.currentText().strip()
        address = (
            str(data) if data and text.endswith(str(data)) else text.split()[-1] if text else ""
        )
        if not address:
            self.warnings_label.setText("Pick or type an address first.")
            return
        self.balances.add(address, self.balance_amount.text().strip() or "0")

    def _new_row(self, view: QTableView) -> None:
        row = self.members.add(ChainMember("", access=True))
        view.setCurrentIndex(self.members.index(row, 0))
        view.edit(self.members.index(row, 0))

    def _remove_rows(self, view: QTableView, model: MemberRowsModel | BalanceRowsModel) -> None:
        rows = sorted({i.row() for i in view.selectionModel().selectedIndexes()}, reverse=True)
        for r in rows:
            model.remove(r)

    # ------------------------------------------------------------ the request

    def build_draft(self) -> tuple[ChainDraft, list[str]]:
        """The request the form describes, and what keeps it from being sent."""
        problems: list[str] = []
        from_code = self.from_code.isChecked()
        deployed = self.deployed.currentData()
        draft = ChainDraft(
            label=self.label.text().strip(),
            contract=self.spec.name if self.spec else "",
            vm=self.vm.currentText(),
            history=self.history.text().strip(),
            parent=str(self.parent_combo.currentData() or ""),
            members=self.members.members(),
        )
        if from_code:
            if isinstance(deployed, ChainContract):
                draft.code_ptr_address = deployed.address
                draft.code_ptr_chain = deployed.chain_id
            else:
                problems.append("choose the deployed contract")
        else:
            draft.src = self.source.toPlainText()
            if self.spec is not None and draft.src != self.spec_source:
                problems.append("the source changed since it was compiled: compile again")
        draft.balances, bad = self.balances.balances()
        problems += bad
        if self.spec is not None:
            try:
                draft.args = self.args.wire_args()
            except AbiTypeError as exc:
                problems.append(f"constructor argument {exc}")
        return draft, [*problems, *draft.problems()]

    def refresh_review(self) -> None:
        draft, problems = self.build_draft()
        body = draft.to_body()
        parent = next((c for c in self.chains if c.id == draft.parent), None)
        try:
            self._preview = self.service.preview(body, parent.title() if parent else "")
        except StratoError as exc:  # not connected: nothing can be sent
            self._preview = None
            problems.append(str(exc))
        self.review.show_draft(self._preview, problems, draft.warnings())
        on_review = self.page() == len(STEPS) - 1
        self.create_button.setEnabled(
            on_review and not problems and not self.sending and self._preview is not None
        )

    def _changed(self, *_args: object) -> None:
        if self.created_id and not self.sending:
            self.created_id = ""  # an edit after success: another chain may be created
        if self.page() == len(STEPS) - 1:
            self.refresh_review()

    def _copy_curl(self) -> None:
        if self._preview is not None:
            copy_text(self._preview.curl(), self.copy_curl, "curl command")

    def request_body(self) -> dict[str, Any]:
        """The JSON body the review page shows (what ``send`` posts)."""
        return self._preview.body if self._preview is not None else {}

    # ------------------------------------------------------------ sending

    def send(self) -> ConfirmDialog | None:
        """Put the request on the confirmation sheet; its Send creates the chain."""
        draft, problems = self.build_draft()
        if problems:
            self.go_to("Review")
            self.status.setText("✘ " + problems[0])
            return None
        body = draft.to_body()
        parent = next((c for c in self.chains if c.id == draft.parent), None)
        try:
            preview = self.service.preview(body, parent.title() if parent else "")
        except StratoError as exc:
            self.status.setText(f"✘ {exc}")
            return None
        what = (
            f"Create the private chain “{draft.label}” governed by {draft.contract or '?'}, "
            f"with {len(draft.members)} member(s) and {len(draft.balances)} balance(s)"
        )
        sheet = ConfirmDialog(preview, [what], self)
        sheet.setObjectName("createChainConfirm")
        sheet.setWindowTitle("Create this chain?")
        mode = sheet.findChild(QLabel, "confirmResolve")
        if mode is not None:
            mode.setText("the node answers once the chain exists")
        sheet.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        sheet.finished.connect(lambda code: self._confirmed(code, body))
        self.sheet = sheet
        sheet.open()
        return sheet

    def _confirmed(self, code: int, body: dict[str, Any]) -> None:
        self.sheet = None
        if code == QDialog.DialogCode.Accepted:
            self.create_now(body)

    def create_now(self, body: dict[str, Any]) -> None:
        """Send the creation request (confirmed on the sheet)."""
        self.sending = True
        self.create_button.setEnabled(False)
        self.status.setStyleSheet("")
        self.status.setText("Creating the chain… (the node answers when the chain exists)")
        self.new_id.setVisible(False)
        self.controller.tasks.start(
            "Creating a chain",
            self.service.create(body),
            on_done=while_alive(self, self._created),
            on_error=while_alive(self, self._refused),
        )

    def _created(self, chain_id: str) -> None:
        self.sending = False
        self.created_id = chain_id
        self.status.setStyleSheet("")
        self.status.setText(f"✔ Created the chain “{self.label.text().strip()}”. Its ID:")
        self.new_id.set_value(chain_id)
        self.new_id.setVisible(True)
        self.create_button.setEnabled(False)
        self.created.emit(chain_id)

    def _refused(self, text: str) -> None:
        self.sending = False
        self.status.setStyleSheet(ERROR)
        self.status.setText(f"✘ The chain was not created: {text}")
        self.refresh_review()

    # ------------------------------------------------------------ closing

    def filled_in(self) -> bool:
        """True when closing would lose what the user typed or chose (not the prefilled form,
        not a form whose chain was created or is being created)."""
        if self.sending or self.created_id:
            return False
        balances, bad = self.balances.balances()
        prefilled = [(self.my_address, int(DEFAULT_BALANCE))] if self.my_address else []
        return bool(
            self.label.text().strip()
            or self.history.text().strip()
            or self.from_code.isChecked()
            or self.source.toPlainText() != GOVERNANCE_TEMPLATE
            or self.vm.currentIndex() != 0
            or str(self.parent_combo.currentData() or "") != self._initial_parent
            or self.members.members() != self._prefilled_members
            or bad
            or balances != prefilled
        )

    def reject(self) -> None:
        """Escape, Close and the window's close button: ask before losing a filled-in form."""
        if not self.filled_in():
            super().reject()
            return
        if self.question is None:
            self.question = ask_discard(
                self,
                "Discard this chain?",
                "Close the wizard and lose what you typed? The chain is not created.",
                self.discard,
            )
            self.question.finished.connect(self._unasked)

    def _unasked(self) -> None:
        self.question = None

    def discard(self) -> None:
        """Close without asking."""
        super().reject()
