"""The contract page's tabs, added to an instance's detail (:class:`InstanceDetail`): *Read*
(view and pure functions called inline, with the composer's typed argument editors, results
typed by the declaration; public scalar variables listed as their getters, read from the
state), *Code* (the interface: functions, events, state variables with their
types; and the source the node holds) and, for a token-like contract, *Token*
(:class:`TokenPage`). The detail's *Write* tab opens the composer with a function chosen.

STRATO has no read-only call. On the sandbox node (``POST /stratoscope/call``) *Read* runs the
function read-only on a copy of the committed state: no transaction, no gas. On a node without
it, it sends the view function as a transaction of the signed-in user (a view function changes
nothing, but the transaction lands in a block and may cost gas) and shows what it returned.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.client.abi_types import AbiTypeError, ContractSpec, FunctionSpec
from app.client.models import TxResult
from app.services.contract_reads import ContractReads, ContractSource, public_getters
from app.services.explorer_contracts import type_text
from app.services.tokens import TokenService, token_shape
from app.ui.shell.theme import scheme_is_dark
from app.ui.widgets.arg_editor import ArgumentsEditor
from app.ui.widgets.common import name_widget, while_alive
from app.ui.widgets.source_editor import SourceEditor
from app.ui.widgets.tx_render import returned_items, status_colour

from .token_page import TokenPage

if TYPE_CHECKING:
    from .instance_detail import InstanceDetail

FN_ROLE = Qt.ItemDataRole.UserRole + 3
VAR_ROLE = Qt.ItemDataRole.UserRole + 4  # True: a public variable's getter, read from the state


def returns_text(fn: FunctionSpec) -> str:
    if not fn.returns:
        return ""
    return (
        " returns ("
        + ", ".join(
            # an unnamed return is "#0" in the interface: its type says enough
            p.type.describe() + (f" {p.name}" if p.name and not p.name.startswith("#") else "")
            for p in fn.returns
        )
        + ")"
    )


class ReadTab(QWidget):
    """The view and pure functions: choose one, fill its arguments, *Query*; the answers are
    listed newest first, each value named and typed by the declaration."""

    def __init__(self, detail: InstanceDetail, reads: ContractReads) -> None:
        super().__init__(detail)
        self.detail = detail
        self.reads = reads
        self.functions = QListWidget(self)
        name_widget(self.functions, "readFunctions", "View functions: choose one to query")
        self.functions.setMaximumHeight(self.fontMetrics().lineSpacing() * 7)
        self.args = ArgumentsEditor("readArgs", self)
        self.query = QPushButton("&Query", self)
        name_widget(self.query, "readQuery", "Query the chosen view function")
        self.query.setEnabled(False)
        self.note = QLabel("Reading the interface…", self)
        self.note.setWordWrap(True)
        name_widget(self.note, "readNote", "View functions")
        self.results = QTextBrowser(self)
        self.results.setOpenLinks(False)
        self.results.anchorClicked.connect(self._link)
        name_widget(self.results, "readResults", "What the view functions returned")
        self._answers: list[str] = []
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.query)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.note)
        lay.addWidget(self.functions)
        lay.addWidget(self.args)
        lay.addLayout(row)
        lay.addWidget(self.results, 1)
        self.functions.currentItemChanged.connect(self._chosen)
        self.functions.itemActivated.connect(lambda _i: self.run())
        self.args.changed.connect(self._update)
        self.query.clicked.connect(self.run)
        self._show_mode()

    def _show_mode(self) -> None:
        """The Query button says whether a query is a transaction (as learned from the node)."""
        self.query.setToolTip(
            "Call the function and show what it returns: read-only, no transaction (the "
            "sandbox runs it on a copy of the committed state; no block, no gas)"
            if self.reads.reads_without_transaction()
            else "Call the function and show what it returns (STRATO runs a call as a "
            "transaction of yours: a view function changes nothing, but it lands in a block "
            "and costs gas on a node that charges gas)"
        )

    def set_spec(self, spec: ContractSpec, getters: list[FunctionSpec] | None = None) -> None:
        """List the view functions, then ``getters``: public variables read as their getters."""
        self.functions.clear()
        views = [f for f in spec.functions if f.is_view]
        getters = list(getters or [])
        for f in views:
            item = QListWidgetItem(f.signature() + returns_text(f))
            item.setData(FN_ROLE, f)
            item.setToolTip(f"{f.mutability}: query it here")
            self.functions.addItem(item)
        for f in getters:
            item = QListWidgetItem(
                f"{f.name}  ·  {f.returns[0].type.describe()}  (public variable)"
            )
            item.setData(FN_ROLE, f)
            item.setData(VAR_ROLE, True)
            item.setToolTip(f"public {f.returns[0].type.describe()} {f.name}: read its value here")
            self.functions.addItem(item)
        parts = []
        if views:
            parts.append(f"{len(views)} view function{'s' * (len(views) != 1)}")
        if getters:
            parts.append(f"{len(getters)} public variable{'s' * (len(getters) != 1)}")
        self.note.setText(
            f"{' and '.join(parts)}: choose one, then Query"
            if parts
            else "No view or pure functions and no public scalar variables: the State tab "
            "shows the contract's state."
        )
        self.functions.setVisible(bool(parts))
        if parts:
            self.functions.setCurrentRow(0)

    def is_variable(self) -> bool:
        """Whether the chosen entry is a public variable (read from the state, not called)."""
        item = self.functions.currentItem()
        return bool(item is not None and item.data(VAR_ROLE))

    def current(self) -> FunctionSpec | None:
        item = self.functions.currentItem()
        fn = item.data(FN_ROLE) if item is not None else None
        return fn if isinstance(fn, FunctionSpec) else None

    def choose(self, name: str) -> bool:
        for i in range(self.functions.count()):
            fn = self.functions.item(i).data(FN_ROLE)
            if isinstance(fn, FunctionSpec) and fn.name == name:
                self.functions.setCurrentRow(i)
                return True
        return False

    def _chosen(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        fn = item.data(FN_ROLE) if item is not None else None
        self.args.set_function(fn if isinstance(fn, FunctionSpec) else None)
        self._update()

    def _update(self) -> None:
        self.query.setEnabled(self.current() is not None and not self.args.problems())

    def run(self) -> None:
        fn = self.current()
        if fn is None:
            return
        try:
            args = self.args.wire_args()
        except AbiTypeError:
            self.args.touch_all()
            return
        self.query.setEnabled(False)
        if self.is_variable():
            self.detail.tasks.start(
                f"Reading {fn.name}",
                self.reads.variable(self.detail.instance, fn.name),
                while_alive(self, lambda v: self._value(fn, v)),
                while_alive(self, lambda text: self._failed(fn, text)),
            )
            return
        shown = ", ".join(f"{k}={v}" for k, v in args.items())
        self.detail.tasks.start(
            f"Querying {fn.name}",
            self.reads.call(self.detail.instance, fn, args),
            while_alive(self, lambda r: self._answered(fn, shown, r)),
            while_alive(self, lambda text: self._failed(fn, text)),
        )

    def _answered(self, fn: FunctionSpec, shown: str, r: TxResult) -> None:
        head = f"<b>{escape(fn.name)}</b>({escape(shown)})"
        if r.status == "Success":
            body = "<br>".join(returned_items(r.values, fn)) or "returned nothing"
        else:
            body = f'<b style="color:{status_colour(r.status)}">{r.status}</b> {escape(r.message)}'
        if r.hash:
            body += f' <a href="tx:{r.hash}">transaction</a>'
        elif r.raw.get("readOnly"):
            body += ' <span style="color:gray">(read-only, no transaction)</span>'
        self._show_mode()
        self._add(f"{head}<br>{body}")

    def _value(self, fn: FunctionSpec, value: object) -> None:
        body = "<br>".join(returned_items([value], fn))
        note = '<span style="color:gray">(the public variable, read from the state)</span>'
        self._add(f"<b>{escape(fn.name)}</b><br>{body} {note}")

    def _failed(self, fn: FunctionSpec, text: str) -> None:
        self._add(f'<b>{escape(fn.name)}</b>: <span style="color:#c0392b">✘ {escape(text)}</span>')

    def _add(self, html: str) -> None:
        self._answers.insert(0, html)
        del self._answers[50:]
        self.results.setHtml("<hr>".join(self._answers))
        self._update()

    def _link(self, url: object) -> None:
        text = url.toString() if hasattr(url, "toString") else str(url)
        if text.startswith("tx:"):
            self.detail.links.show_transaction(text[3:])


class CodeTab(QSplitter):
    """The interface (functions, events, state variables with their types) above the source."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.setObjectName("contractCode")
        self.setChildrenCollapsible(False)
        self.interface = QTreeWidget(self)
        self.interface.setHeaderLabels(["Name", "Type"])
        self.interface.setColumnWidth(0, 200)
        name_widget(self.interface, "contractInterface", "The contract's interface")
        self.source = SourceEditor(self, dark=scheme_is_dark())
        self.source.setReadOnly(True)
        name_widget(self.source, "contractSource", "The contract's source, as the node holds it")
        self.addWidget(self.interface)
        self.addWidget(self.source)
        self.setStretchFactor(0, 1)
        self.setStretchFactor(1, 2)

    def set_source(self, src: ContractSource) -> None:
        self.source.setPlainText(src.source or "// the node gives no source for this contract")
        tree = self.interface
        tree.clear()
        spec = src.spec
        funcs = QTreeWidgetItem(tree, [f"Functions ({len(spec.functions)})", ""])
        for f in spec.functions:
            kind = f.mutability or ("payable" if f.payable else "")
            row = QTreeWidgetItem(funcs, [f.signature(), (kind + returns_text(f)).strip()])
            whole = f"{f.signature()} {kind}{returns_text(f)}".strip()
            row.setToolTip(0, whole)  # the narrow pane cuts long signatures
            row.setToolTip(1, whole)
        events = QTreeWidgetItem(tree, [f"Events ({len(spec.events)})", ""])
        for e in spec.events:
            fields = ", ".join(f"{t.describe()} {n}" for n, t in e.type.fields)
            QTreeWidgetItem(events, [e.name, f"({fields})"])
        types = src.xabi.get("types") if isinstance(src.xabi.get("types"), dict) else {}
        vs = src.xabi.get("vars") if isinstance(src.xabi.get("vars"), dict) else {}
        assert isinstance(vs, dict) and isinstance(types, dict)
        variables = QTreeWidgetItem(tree, [f"State variables ({len(vs)})", ""])
        for name, d in sorted(vs.items()):
            flags = []
            if isinstance(d, dict):
                if d.get("constant"):
                    flags.append("constant")
                if d.get("public"):
                    flags.append("public")
            text = type_text(d, types) + (f"  ({', '.join(flags)})" if flags else "")
            QTreeWidgetItem(variables, [str(name), text])
        for item in (funcs, events, variables):
            item.setExpanded(True)
            item.setFirstColumnSpanned(True)


class ContractPage:
    """The tabs a contract instance's detail gains; the node is read once, for both."""

    def __init__(self, detail: InstanceDetail) -> None:
        self.detail = detail
        controller = detail.controller
        self.reads = ContractReads(controller.session, detail)
        self.tokens = TokenService(controller.explorer_contracts, detail)
        self.read = ReadTab(detail, self.reads)
        self.code = CodeTab(detail)
        self.token: TokenPage | None = None
        self.source: ContractSource | None = None
        tabs = detail.tabs
        tabs.insertTab(1, self.read, "&Read")
        tabs.setTabToolTip(1, "Query the view functions and public variables")
        tabs.addTab(self.code, "C&ode")  # Alt+C is "Open in &composer"
        tabs.setTabToolTip(tabs.indexOf(self.code), "The interface and the source")
        detail.tasks.start(
            f"Source of {detail.instance.name}",
            self.reads.source(detail.instance),
            while_alive(detail, self._got),
            while_alive(detail, self._failed),
        )

    def _got(self, src: ContractSource) -> None:
        self.source = src
        self.read.set_spec(src.spec, public_getters(src))
        self.code.set_source(src)
        shape = token_shape(src.spec, src.xabi)
        if shape is not None:
            self.token = TokenPage(self.detail, self.tokens, shape)
            tabs = self.detail.tabs
            tabs.addTab(self.token, "To&ken")
            tabs.setTabToolTip(
                tabs.indexOf(self.token), "Holders, transfers and total supply of the token"
            )

    def _failed(self, text: str) -> None:
        self.read.note.setText(f"✘ Could not read the interface: {text}")
        self.code.source.setPlainText(f"// could not read the source: {text}")
