"""Composer panel: write or open contracts (a folder as a project, files in tabs), compile the
file in front with its imports, deploy it, call functions, batch.

Arguments are edited with typed editors (or as raw JSON); every write goes through the
confirmation sheet, which shows the exact request; the result area decodes what came back.
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QKeySequence, QResizeEvent, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLineEdit,
    QListWidget,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.client.abi_types import AbiTypeError, ContractSpec, FunctionSpec, parse_int
from app.client.errors import StratoError, TransactionFailed
from app.client.models import TxRequest, TxResult
from app.client.scenario import Scenario
from app.services.composer import Draft
from app.services.controller import AppController
from app.ui.panels.composer.build import Build, Problem, compile_front
from app.ui.panels.composer.debug_dock import ComposerDebugger
from app.ui.panels.composer.form_helpers import args_text as _args_text
from app.ui.panels.composer.form_helpers import compact as _compact
from app.ui.panels.composer.project_api import ProjectApi
from app.ui.panels.composer.results import result_html
from app.ui.panels.composer.scenarios import ScenarioBar
from app.ui.panels.composer.source_pane import SAMPLES, SourcePane, go_to
from app.ui.panels.composer.tests_view import TestsView
from app.ui.widgets.arg_editor import AddressBook, ArgumentsEditor, FittingScrollArea
from app.ui.widgets.common import ReadsWhenShown, name_widget, while_alive
from app.ui.widgets.confirm_dialog import ConfirmDialog
from app.ui.widgets.contact_name import ask_contact_name

__all__ = ["SAMPLES", "ComposerPanel"]
MAIN_CHAIN = "Main chain"


class ComposerPanel(ProjectApi, ReadsWhenShown):
    """Signals: transaction_requested(str): the user wants to inspect a transaction;
    file_saved(str): the absolute path of a source file just saved."""

    title = "Composer"
    transaction_requested = Signal(str)
    file_saved = Signal(str)

    def __init__(self, controller: AppController, parent: QWidget | None = None) -> None:
        super().__init__(self._reload_lists, parent)
        self.setObjectName("composerPanel")
        self.setAccessibleName("Transaction composer")
        self.controller = controller
        self.composer = controller.composer
        self.specs: dict[str, ContractSpec] = {}
        self.compiled_source = ""
        self.last_build: Build | None = None
        self.places: list[Problem] = []  # failure places the result view links to
        self.call_spec: ContractSpec | None = None
        self.batch: list[tuple[TxRequest, str]] = []
        self.user_rows: list[tuple[str, str]] = []
        self._stale = False  # the lists wait for the first user (sign-in), not the first show
        self.contract_rows: list[tuple[str, str, str]] = []
        self.last_results: list[TxResult] = []
        self.block_numbers: dict[str, int] = {}  # hash -> block, of failures looked up

        # -- source side
        self.source = SourcePane(controller, self)
        self.source.file_saved.connect(self.file_saved)
        self.sidebar = self.source.sidebar
        self.samples = self.source.samples
        self.open_button = self.source.open_button
        self.save_button = self.source.save_button
        self.compile_button = self.source.compile_button
        self.compile_button.clicked.connect(self.compile)
        self.source_status = self.source.source_status

        # -- deploy tab
        self.contract = QComboBox(self)
        name_widget(self.contract, "deployContract", "Contract to deploy")
        self.contract.currentIndexChanged.connect(self._contract_chosen)
        _compact(self.contract)
        self.vm = QComboBox(self)
        self.vm.addItems(["SolidVM", "EVM"])
        name_widget(self.vm, "deployVm", "Virtual machine")
        self.vm.currentIndexChanged.connect(self._contract_chosen)
        self.history = QCheckBox("Keep history tables in Cirrus", self)
        name_widget(self.history, "deployHistory", "Keep history")
        self.book = AddressBook()
        self.book.save_contact = self.ask_contact_name
        self.deploy_args = ArgumentsEditor("deployArgs", self, self.book)
        self.deploy_args.changed.connect(self._update_buttons)
        self.deploy_button = self._button("Deploy…", "deployButton", "Deploy the contract")
        self.deploy_button.clicked.connect(self.deploy)
        self.deploy_batch = self._button("Add to batch", "deployAddToBatch", "Add to the batch")
        self.deploy_batch.clicked.connect(self._deploy_to_batch)
        deploy = QWidget(self)
        df = QFormLayout(deploy)
        df.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        df.addRow("Contract", self.contract)
        df.addRow("VM", self.vm)
        df.addRow("", self.history)
        df.addRow("Constructor", self.deploy_args)

        # -- call tab
        self.known = QComboBox(self)
        name_widget(self.known, "callKnownContracts", "Contracts on the node")
        self.known.activated.connect(self._known_chosen)
        _compact(self.known)
        self.refresh_known = self._button("Reload", "callReloadContracts", "Reload the list")
        self.refresh_known.clicked.connect(self.reload_contracts)
        self.call_name = QLineEdit(self)
        self.call_name.setPlaceholderText("contract name")
        name_widget(self.call_name, "callContractName", "Contract name")
        self.call_address = QLineEdit(self)
        self.call_address.setPlaceholderText("contract address (40 hex digits)")
        name_widget(self.call_address, "callAddress", "Contract address")
        self.call_address.setMinimumWidth(self.fontMetrics().horizontalAdvance("0" * 41))
        self.call_address.textChanged.connect(self._update_buttons)
        self.load_button = self._button("Load", "callLoad", "Load the contract's functions")
        self.load_button.clicked.connect(self.load_contract)
        self.function = QComboBox(self)
        name_widget(self.function, "callFunction", "Function")
        self.function.currentIndexChanged.connect(self._function_chosen)
        _compact(self.function)
        self.call_args = ArgumentsEditor("callArgs", self, self.book)
        self.call_args.changed.connect(self._update_buttons)
        self.value = QLineEdit(self)
        self.value.setPlaceholderText("0 (units sent with the call)")
        name_widget(self.value, "callValue", "Value")
        self.call_button = self._button("Call…", "callButton", "Call the function")
        self.call_button.clicked.connect(self.call)
        self.call_batch = self._button("Add to batch", "callAddToBatch", "Add to the batch")
        self.call_batch.clicked.connect(self._call_to_batch)
        call = QWidget(self)
        cf = QFormLayout(call)
        cf.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        kr = QHBoxLayout()
        kr.addWidget(self.known, 1)
        kr.addWidget(self.refresh_known)
        cf.addRow("Known", kr)
        ar = QHBoxLayout()
        ar.addWidget(self.call_name, 1)
        ar.addWidget(self.load_button)
        cf.addRow("Contract", ar)
        cf.addRow("Address", self.call_address)
        cf.addRow("Function", self.function)
        cf.addRow("Arguments", self.call_args)
        cf.addRow("Value", self.value)

        # -- shared options, batch, result
        self.chain = QComboBox(self)
        name_widget(self.chain, "composerChain", "Target chain")
        self.chain.addItem(MAIN_CHAIN, None)
        _compact(self.chain)
        self.resolve = QCheckBox("Wait for the result", self)
        self.resolve.setToolTip("resolve=true: the node answers once the transaction is mined")
        self.resolve.setChecked(True)
        name_widget(self.resolve, "composerResolve", "Wait for the result")
        self.gas_limit = QLineEdit(self)
        self.gas_limit.setPlaceholderText("gas limit (node default)")
        name_widget(self.gas_limit, "composerGasLimit", "Gas limit")
        self.gas_price = QLineEdit(self)
        self.gas_price.setPlaceholderText("gas price (node default)")
        name_widget(self.gas_price, "composerGasPrice", "Gas price")
        options = QFormLayout()
        options.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        cr = QHBoxLayout()
        cr.addWidget(self.chain, 1)
        cr.addWidget(self.resolve)
        options.addRow("Chain", cr)
        gp = QHBoxLayout()
        gp.addWidget(self.gas_limit)
        gp.addWidget(self.gas_price)
        options.addRow("txParams", gp)
        self.tabs = QTabWidget(self)
        name_widget(self.tabs, "composerTabs", "Deploy or call")
        self.tabs.addTab(deploy, "Deploy")
        self.tabs.addTab(call, "Call")
        self.batch_list = QListWidget(self)
        name_widget(self.batch_list, "composerBatch", "Batch")
        self.send_batch = self._button("Send batch…", "composerSendBatch", "Send the batch")
        self.send_batch.clicked.connect(self.send_batch_now)
        self.clear_batch = self._button("Clear", "composerClearBatch", "Clear the batch")
        self.clear_batch.clicked.connect(self._clear_batch)
        self.scenarios = ScenarioBar(controller, self.show_results, self._show_error, self)
        self.record_button = self.scenarios.record_button
        self.save_scenario_button = self.scenarios.save_scenario_button
        self.scenario_status = self.scenarios.scenario_status
        self.save_scenario_to = self.scenarios.save_scenario_to
        self.replay_file = self.scenarios.replay_file
        self.result = QTextBrowser(self)
        self.result.setOpenLinks(False)
        self.result.anchorClicked.connect(self._link)
        self.scenarios.replaying.connect(lambda: self.result.setHtml("<i>Replaying…</i>"))
        name_widget(self.result, "composerResult", "Result")
        # what is being composed scrolls (it never grows the window); below it, the result
        # and the batch share tabs and a usable height; a splitter divides the space
        compose = QWidget(self)
        rl = QVBoxLayout(compose)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.tabs, 1)
        rl.addLayout(options)
        self.compose_scroll = FittingScrollArea(self)
        self.compose_scroll.setObjectName("composerComposeScroll")
        self.compose_scroll.setWidget(compose)
        # Deploy…/Call… under what scrolls, never below its fold (a small screen, long forms)
        self.compose_actions = QStackedWidget(self)
        self.compose_actions.setObjectName("composerActions")
        for first, second in (
            (self.deploy_button, self.deploy_batch),
            (self.call_button, self.call_batch),
        ):
            row = QWidget(self.compose_actions)
            rh = QHBoxLayout(row)
            rh.setContentsMargins(0, 0, 0, 0)
            rh.addWidget(first)
            rh.addWidget(second)
            rh.addStretch(1)
            self.compose_actions.addWidget(row)
        self.tabs.currentChanged.connect(self.compose_actions.setCurrentIndex)
        composing = QWidget(self)
        cl = QVBoxLayout(composing)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addWidget(self.compose_scroll, 1)
        cl.addWidget(self.compose_actions)
        batch = QWidget(self)
        bl = QVBoxLayout(batch)
        bh = QHBoxLayout()
        bh.addWidget(self.send_batch)
        bh.addWidget(self.clear_batch)
        bh.addStretch(1)
        bl.addLayout(bh)
        bl.addWidget(self.batch_list, 1)
        self.output = QTabWidget(self)
        name_widget(self.output, "composerOutput", "Result and batch")
        self.output.addTab(self.result, "Result")
        self.output.addTab(batch, "Batch")
        self.result.setMinimumHeight(self.fontMetrics().lineSpacing() * 5)
        self.result.textChanged.connect(lambda: self.output.setCurrentIndex(0))
        results = QWidget(self)
        resl = QVBoxLayout(results)
        resl.setContentsMargins(0, 0, 0, 0)
        resl.addWidget(self.output, 1)
        resl.addWidget(self.scenarios)
        right = QSplitter(Qt.Orientation.Vertical, self)
        right.setObjectName("composerRightSplit")
        right.setChildrenCollapsible(False)
        right.addWidget(composing)
        right.addWidget(results)
        right.setStretchFactor(0, 2)
        right.setStretchFactor(1, 1)
        # until the user drags it, the divider follows the panel's height: what is composed
        # shows whole when it fits (Call button included), the result takes the rest
        self.right_split = right
        self._split_dragged = False
        right.splitterMoved.connect(self._on_split_dragged)
        self.compose_scroll.refitted.connect(self._on_compose_refitted)

        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.setObjectName("composerSplit")
        split.addWidget(self.sidebar)
        split.addWidget(self.source)
        split.addWidget(right)
        split.setChildrenCollapsible(False)
        split.setCollapsible(0, True)  # the file sidebar folds away on a small screen
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setStretchFactor(2, 1)
        split.setSizes([0, 400, 400])  # folded until a folder is open
        self.split = split
        self.sidebar.root_changed.connect(self._root_changed)
        self.track_sidebar_width()
        self.tests_view = TestsView(controller, self, self)  # the Tests view: a sidebar tab
        self.add_sidebar_tab(self.tests_view, "Tests")
        self.tests_view.install_shortcuts(self, self.show_tests)
        self.tests_view.transaction_requested.connect(self.transaction_requested)
        self.file_saved.connect(self.tests_view.file_saved)
        self.sidebar.root_changed.connect(self.tests_view.follow_folder)
        self.sidebar.currentChanged.connect(self.tests_tab_chosen)
        lay = QVBoxLayout(self)
        lay.addWidget(split)
        # Tab follows the layout: the editor, the Deploy/Call tabs, their page ... the result
        self.source.focus_next = self.tabs
        self.source._documents_changed()
        # after the form and its options, the buttons under them
        QWidget.setTabOrder(self.gas_price, self.deploy_button)
        QWidget.setTabOrder(self.deploy_button, self.deploy_batch)
        QWidget.setTabOrder(self.deploy_batch, self.call_button)
        QWidget.setTabOrder(self.call_button, self.call_batch)
        QWidget.setTabOrder(self.output, self.result)
        self._shortcuts()
        self.debugger = ComposerDebugger(self)  # Debug after Add to batch, its dock, the keys
        controller.session.user_changed.connect(self._on_user)
        controller.contacts_changed.connect(self._refill_book)
        self._update_buttons()

    def _on_split_dragged(self) -> None:
        self._split_dragged = True

    def _on_compose_refitted(self) -> None:
        # as wide as its fields need (the source editor scrolls sideways instead): a sideways
        # scroll bar here would hide the Call button's bottom edge on a small screen
        page = self.compose_scroll.widget()
        if page is not None:
            bar = self.compose_scroll.verticalScrollBar().sizeHint().width()
            self.compose_scroll.setMinimumWidth(min(page.minimumSizeHint().width() + bar, 520))
        if not self._split_dragged:
            self._fit_split()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.widen_sidebar()  # the Tests view's room follows the window's
        if not self._split_dragged:
            self._fit_split()

    def _fit_split(self) -> None:
        total = sum(self.right_split.sizes())
        if total <= 0:
            return
        results, page = self.right_split.widget(1), self.compose_scroll.widget()
        if results is None or page is None:
            return
        below = results.minimumSizeHint().height()
        wanted = page.sizeHint().height() + 2 * self.compose_scroll.frameWidth()
        wanted += self.compose_actions.sizeHint().height() + 6  # the buttons and a spacing
        top = max(min(wanted, total - below), total // 3)
        self.right_split.setSizes([top, total - top])

    def _shortcuts(self) -> None:
        """Deploy, Call and Send batch from anywhere in the panel (the buttons' own shortcuts
        would only work on their visible tab)."""
        for keys, button, run in (
            ("Ctrl+Shift+D", self.deploy_button, self._deploy_key),
            ("Ctrl+Return", self.call_button, self._call_key),
            ("Ctrl+Shift+Return", self.send_batch, self.send_batch_now),
        ):
            QShortcut(QKeySequence(keys), self, run)
            button.setToolTip(f"{button.accessibleName()} ({keys})")

    def _deploy_key(self) -> None:
        self.show_compose(asked=True)
        self.tabs.setCurrentIndex(0)
        if self.deploy_button.isEnabled():
            self.deploy()
        else:
            self.contract.setFocus()

    def _call_key(self) -> None:
        self.show_compose(asked=True)
        self.tabs.setCurrentIndex(1)
        if self.call_button.isEnabled():
            self.call()
        else:
            (self.function if self.call_spec is not None else self.call_address).setFocus()

    @property
    def scenario(self) -> Scenario | None:
        """The scenario recorded last (None before a recording ends)."""
        return self.scenarios.scenario

    def _button(self, text: str, name: str, accessible: str) -> QPushButton:
        b = QPushButton(text, self)
        name_widget(b, name, accessible)
        return b

    # ------------------------------------------------------------ source

    def compile(self) -> None:
        """Compile the tab in front with the files it imports (open tabs' unsaved text wins)."""
        doc = self.source.current
        vm = self.vm.currentText()
        self.compile_button.setEnabled(False)
        self.source_status.setText("Compiling…")
        self.source.clear_problems()

        def done(build: Build) -> None:
            self.compile_button.setEnabled(True)
            if build.problems:
                first = build.problems[0]
                self.source_status.setText(f"✘ {first.message} ({first.where()})")
                self.source.show_problems(build.problems)
                return
            specs = build.specs
            self.specs, self.compiled_source = specs, build.source
            self.last_build = build
            self.contract.blockSignals(True)
            self.contract.clear()
            self.contract.addItems(list(specs))
            self.contract.blockSignals(False)
            if specs:
                self.contract.setCurrentIndex(len(specs) - 1)  # the last one is usually "main"
            self._contract_chosen()
            files = f" from {build.files} files" if build.files > 1 else ""
            self.source_status.setText(f"✔ {len(specs)} contract(s){files}: {', '.join(specs)}")

        def failed(text: str) -> None:
            self.compile_button.setEnabled(True)
            self.source_status.setText(f"✘ {text}")

        self.controller.tasks.start(
            "Compiling",
            compile_front(
                self.composer,
                doc.path,
                doc.text,
                self.source.open_sources(),
                self.source.folder,
                vm,
            ),
            on_done=while_alive(self, done),
            on_error=while_alive(self, failed),
        )

    def _contract_chosen(self, _i: int = 0) -> None:
        spec = self.specs.get(self.contract.currentText())
        self.deploy_args.set_function(spec.constructor if spec else None, self.vm.currentText())
        self.debugger.offer_compiled(spec)  # the Call tab's functions before any deployment
        self._update_buttons()

    # ------------------------------------------------------------ options

    def _tx_params(self) -> dict[str, int]:
        out = {}
        for key, edit in (("gasLimit", self.gas_limit), ("gasPrice", self.gas_price)):
            n = parse_int(edit.text()) if edit.text().strip() else None
            if edit.text().strip() and (n is None or n < 0):
                raise AbiTypeError(key, "a whole number of at least 0")
            if n is not None:
                out[key] = n
        return out

    def _chain(self) -> str | None:
        data = self.chain.currentData()
        return str(data) if data else None

    def _update_buttons(self) -> None:
        deploy_ok = bool(self.specs) and not self.deploy_args.problems()
        self.deploy_button.setEnabled(deploy_ok)
        self.deploy_batch.setEnabled(deploy_ok)
        spec = self._function()
        call_ok = spec is not None and not self.call_args.problems()
        call_ok = call_ok and bool(self.call_address.text().strip())
        self.call_button.setEnabled(call_ok)
        self.call_batch.setEnabled(call_ok)
        if hasattr(self, "debugger"):  # (built last)
            self.debugger.update_buttons()
        self.send_batch.setEnabled(bool(self.batch))
        self.output.setTabText(1, f"Batch ({len(self.batch)})" if self.batch else "Batch")
        self.clear_batch.setEnabled(bool(self.batch))

    # ------------------------------------------------------------ building

    def deploy_request(self) -> tuple[TxRequest, str]:
        name = self.contract.currentText()
        args = self.deploy_args.wire_args()
        tx = TxRequest.upload(
            name,
            self.compiled_source,
            args,
            vm=self.vm.currentText(),
            history=[name] if self.history.isChecked() else None,
            chain_id=self._chain(),
        )
        return tx, f"deploy {name}({_args_text(args)}) [{self.vm.currentText()}]"

    def call_request(self) -> tuple[TxRequest, str]:
        fn = self._function()
        if fn is None:
            raise AbiTypeError("", "choose a function")
        args = self.call_args.wire_args()
        value = parse_int(self.value.text()) if self.value.text().strip() else 0
        if value is None or value < 0:
            raise AbiTypeError("value", "a whole number of at least 0")
        address = self.call_address.text().strip().lower().removeprefix("0x")
        tx = TxRequest.call(
            address,
            fn.name,
            args,
            contract_name=self.call_name.text().strip(),
            value=value,
            chain_id=self._chain(),
        )
        shown = f"{self.call_name.text()}({address[:8]}…).{fn.name}({_args_text(args)})"
        return tx, shown + (f" with value {value}" if value else "")

    def _draft(self, items: list[tuple[TxRequest, str]]) -> Draft:
        return Draft(
            [t for t, _ in items],
            [d for _, d in items],
            resolve=self.resolve.isChecked(),
            chain_id=self._chain(),
            tx_params=self._tx_params(),
        )

    # ------------------------------------------------------------ sending

    def deploy(self) -> ConfirmDialog | None:
        self.deploy_args.touch_all()  # asked to send: every problem in red
        return self._confirm(self.deploy_request)

    def call(self) -> ConfirmDialog | None:
        self.call_args.touch_all()
        return self._confirm(self.call_request)

    def _confirm(self, build: Any) -> ConfirmDialog | None:
        try:
            item = build()
            draft = self._draft([item])
        except AbiTypeError as exc:
            self._show_error(str(exc))
            return None
        return self.confirm_and_send(draft)

    def confirm_and_send(self, draft: Draft) -> ConfirmDialog | None:
        try:
            preview = self.composer.preview(draft)
        except StratoError as exc:
            self._show_error(str(exc))
            return None
        dialog = ConfirmDialog(preview, draft.descriptions, self, send_first=True)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def finished(code: int) -> None:
            if code == QDialog.DialogCode.Accepted:
                self._send(draft)

        dialog.finished.connect(finished)
        dialog.open()
        return dialog

    def _send(self, draft: Draft) -> None:
        self.result.setHtml("<i>Sending…</i>")

        # the form's contract is known; other calls of a batch are read from the node
        known: dict[tuple[str, str, str], ContractSpec | None] = {}
        if self.call_spec is not None:
            here = self.call_address.text().strip().lower().removeprefix("0x")
            known[(self.call_name.text().strip(), here, self._chain() or "")] = self.call_spec

        async def run() -> tuple[list[TxResult], list[FunctionSpec | None]]:
            try:
                results = await self.composer.send(draft)
            except TransactionFailed as exc:
                # a single failing transaction answers 422 with the VM's message only: the
                # transaction itself (hash, gas, block) is looked up
                failed, block = TxResult("Failure", "", message=exc.message), -1
                if len(draft.txs) == 1:
                    failed, block = await self.composer.failed_result(draft.txs[0], exc.message)
                if failed.hash and block >= 0:
                    self.block_numbers[failed.hash] = block
                results = [failed]
            functions: list[FunctionSpec | None] = []
            if len(results) == len(draft.txs):
                functions = await self.composer.called_functions(draft.txs, known)
            return results, functions

        self.controller.tasks.start(
            "Sending",
            run(),
            on_done=while_alive(self, lambda done: self.show_results(*done)),
            on_error=while_alive(self, self._show_error),
        )

    def show_results(
        self, results: list[TxResult], functions: list[FunctionSpec | None] | None = None
    ) -> None:
        """``functions``: the function each result answers (its returns label the values)."""
        self.last_results = results
        self.places = []
        called = list(functions or [])
        called += [None] * (len(results) - len(called))
        parts = [
            result_html(
                r,
                f,
                block=self.block_numbers.get(r.hash),
                build=self.last_build,
                specs=self.specs,
                places=self.places,
            )
            for r, f in zip(results, called, strict=False)
        ]
        self.result.setHtml("<hr>".join(parts))
        tracker = self.controller.pending
        for r in results:
            if r.pending and r.hash:
                tracker.track(r.hash, "composer")
        uploaded = [r for r in results if r.ok and r.address]
        if uploaded and len(results) == 1:
            created = uploaded[-1]
            name = str((created.contents or {}).get("name") or self.contract.currentText())
            self.call_name.setText(name)
            self.call_address.setText(created.address or "")
            if name in self.specs:
                self._set_call_spec(self.specs[name])

    def _link(self, url: QUrl) -> None:
        text = url.toString()
        if text.startswith("tx:"):
            self.transaction_requested.emit(text[3:])
        elif text.startswith("loc:") and text[4:].isdigit() and int(text[4:]) < len(self.places):
            p = self.places[int(text[4:])]
            if p.path is not None:
                self.source.open_location(p.path, p.line, p.column)
            else:
                self.source.new_scratch()
                go_to(self.source.scratch().editor, p.line, p.column)

    def _show_error(self, text: str) -> None:
        self.result.setHtml(f'<b style="color:#c0392b">✘ {escape(text)}</b>')

    # ------------------------------------------------------------ call side

    def _on_user(self, _name: str) -> None:
        # the lists are read when the panel is on screen, not while the app starts
        self.mark_stale()

    def _reload_lists(self) -> None:
        self._stale = False
        self.reload_users()
        self.reload_contracts()
        self.reload_chains()

    def reload_contracts(self) -> None:
        def done(rows: list[tuple[str, str, str]]) -> None:
            self.contract_rows = rows
            self._refill_book()
            self.known.clear()
            self.known.addItem("Choose a contract…", None)
            for name, address, chain in rows[:500]:
                where = f" on {chain[:8]}…" if chain else ""
                self.known.addItem(f"{name} {address[:10]}…{where}", (name, address, chain))

        self.controller.tasks.start(
            "Listing contracts", self.composer.contracts(), on_done=while_alive(self, done)
        )

    def _refill_book(self, _contacts: object = None) -> None:
        contacts = [(f"contact {n}", a) for n, a in sorted(self.controller.contacts.items())]
        users = [(f"user {name}", addr) for name, addr in self.user_rows]
        recent = [(f"{n} contract", a) for n, a, c in self.contract_rows[:50] if not c]
        self.book.entries = contacts + users + recent

    def ask_contact_name(self, address: str, near: QWidget) -> QInputDialog:
        """Ask for a name and store ``address`` under it in the contacts (non-blocking)."""
        return ask_contact_name(self.controller, address, near, self._show_error)

    def reload_users(self) -> None:
        def done(rows: list[tuple[str, str]]) -> None:
            self.user_rows = rows
            self._refill_book()

        self.controller.tasks.start(
            "Listing users", self.composer.users(), on_done=while_alive(self, done)
        )

    def reload_chains(self) -> None:
        if self.controller.session.client is None:
            return

        def done(chains: list[tuple[str, str]]) -> None:
            current = self.chain.currentData()
            self.chain.clear()
            self.chain.addItem(MAIN_CHAIN, None)
            for cid, label in chains:
                self.chain.addItem(f"{label or cid[:12]} ({cid[:8]}…)", cid)
            self.chain.setCurrentIndex(max(self.chain.findData(current), 0))

        self.controller.tasks.start(
            "Listing chains",
            self.controller.cirrus.chain_choices(),
            on_done=while_alive(self, done),
        )

    def _known_chosen(self, index: int) -> None:
        data = self.known.itemData(index)
        if not data:
            return
        name, address, chain = data
        self.call_name.setText(name)
        self.call_address.setText(address)
        self.chain.setCurrentIndex(max(self.chain.findData(chain or None), 0))
        self.load_contract()

    def open_contract(self, name: str, address: str, chain_id: str = "", method: str = "") -> None:
        """Load a deployed contract's functions into the Call page (a link from elsewhere),
        ``method`` chosen once they are loaded."""
        self._wanted_method = method
        self.call_name.setText(name)
        self.call_address.setText(address)
        if chain_id and self.chain.findData(chain_id) < 0:
            self.chain.addItem(f"chain {chain_id[:8]}…", chain_id)
        self.chain.setCurrentIndex(max(self.chain.findData(chain_id or None), 0))
        self.load_contract()

    def load_contract(self) -> None:
        name = self.call_name.text().strip()
        address = self.call_address.text().strip().lower().removeprefix("0x")
        if not name or len(address) != 40:
            self._show_error("enter the contract's name and its 40-digit address")
            return
        self.controller.tasks.start(
            f"Loading {name}",
            self.composer.deployed(name, address, self._chain()),
            on_done=while_alive(self, self._set_call_spec),
            on_error=while_alive(self, self._show_error),
        )

    def _set_call_spec(self, spec: ContractSpec, show: bool = True) -> None:
        self.call_spec = spec
        self.function.blockSignals(True)
        self.function.clear()
        for f in spec.functions:
            label = f.signature() + ("  [view]" if f.is_view else "")
            self.function.addItem(label, f.name)
        wanted = getattr(self, "_wanted_method", "")
        self._wanted_method = ""
        if wanted and self.function.findData(wanted) >= 0:
            self.function.setCurrentIndex(self.function.findData(wanted))
        self.function.blockSignals(False)
        self._function_chosen()
        if show:
            self.tabs.setCurrentIndex(1)

    def _function(self) -> FunctionSpec | None:
        if self.call_spec is None:
            return None
        return self.call_spec.function(str(self.function.currentData() or ""))

    def _function_chosen(self, _i: int = 0) -> None:
        self.call_args.set_function(self._function(), "SolidVM")
        fn = self._function()
        self.value.setEnabled(fn is not None and fn.payable)
        self._update_buttons()

    # ------------------------------------------------------------ batch

    def _deploy_to_batch(self) -> None:
        self._add_to_batch(self.deploy_request)

    def _call_to_batch(self) -> None:
        self._add_to_batch(self.call_request)

    def _add_to_batch(self, build: Any) -> None:
        try:
            tx, text = build()
        except AbiTypeError as exc:
            self._show_error(str(exc))
            return
        self.batch.append((tx, text))
        self.batch_list.addItem(text)
        self._update_buttons()
        self.output.setCurrentIndex(1)

    def _clear_batch(self) -> None:
        self.batch.clear()
        self.batch_list.clear()
        self._update_buttons()

    def send_batch_now(self) -> ConfirmDialog | None:
        if not self.batch:
            return None
        try:
            draft = self._draft(list(self.batch))
        except AbiTypeError as exc:
            self._show_error(str(exc))
            return None
        dialog = self.confirm_and_send(draft)
        if dialog is not None:
            dialog.accepted.connect(self._clear_batch)
        return dialog
