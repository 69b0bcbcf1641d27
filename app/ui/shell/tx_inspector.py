"""The transaction inspector: any hash, its status (live while Pending), result and decoding."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from html import escape
from typing import Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.client.units import format_amount
from app.services.account import describe_tx
from app.services.composer import TxDetails, inspect_transaction, transaction_trace
from app.services.controller import AppController
from app.services.tx_state import NOT_KEPT
from app.ui.shell.trace_view import TraceView
from app.ui.widgets.common import name_widget, while_alive
from app.ui.widgets.tx_render import returned_items, value_html

POLL_INTERVAL = 0.5
RERUN_TIP = (
    "Run the same call again in the composer's debugger, on the state just before this "
    "transaction: it stops at entry (or at a breakpoint) and writes nothing to the chain"
)
ADDRESS_KEY = re.compile(r"\[([0-9a-f]{40})\]")  # an address among a mapping entry's keys


class TxInspector(QWidget):
    """The inspector itself: a hash field, the live status and the page. One implementation,
    shown in its own dialog (:class:`TxInspectorDialog`) or embedded (the Explorer's detail
    pane). With ``links`` the page's block and addresses are links: ``block_clicked(int)``,
    ``address_clicked(str)``.

    Signals: title_changed(str): a title for the transaction shown.
    """

    title_changed = Signal(str)
    block_clicked = Signal(int)
    address_clicked = Signal(str)
    source_requested = Signal(str, int, int)  # a failed frame's (contract, line, column)
    rerun_requested = Signal(str)  # Re-run in the debugger: the transaction's hash

    def __init__(
        self,
        controller: AppController,
        tx_hash: str = "",
        parent: QWidget | None = None,
        *,
        links: bool = False,
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.links = links
        self.details: TxDetails | None = None
        self._task: asyncio.Task[Any] | None = None
        self.hash_edit = QLineEdit(tx_hash, self)
        self.hash_edit.setPlaceholderText("transaction hash (64 hex digits)")
        name_widget(self.hash_edit, "txHash", "Transaction hash")
        self.hash_edit.returnPressed.connect(self.load)
        self.load_button = QPushButton("Show", self)
        name_widget(self.load_button, "txLoad", "Show the transaction")
        self.load_button.clicked.connect(self.load)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 0)
        self.progress.setVisible(False)
        name_widget(self.progress, "txProgress", "Waiting for the transaction")
        self.view = QTextBrowser(self)
        self.view.setOpenLinks(False)
        self.view.anchorClicked.connect(self._link)
        name_widget(self.view, "txDetails", "Transaction details")
        self.rerun_button = QPushButton("Re-run in the debugger", self)
        name_widget(self.rerun_button, "txRerun", "Re-run the transaction in the debugger")
        self.rerun_button.setToolTip(RERUN_TIP)
        self.rerun_button.setEnabled(False)
        self.rerun_button.clicked.connect(self._rerun)
        top = QHBoxLayout()
        top.addWidget(self.hash_edit, 1)
        top.addWidget(self.load_button)
        top.addWidget(self.rerun_button)
        QWidget.setTabOrder(self.load_button, self.rerun_button)  # Show, then Re-run
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(top)
        lay.addWidget(self.progress)
        self.trace = TraceView(self)
        self.trace.source_requested.connect(self.source_requested)
        self._trace_task: asyncio.Task[Any] | None = None
        self.tabs = QTabWidget(self)
        self.tabs.addTab(self.view, "Details")
        self.tabs.addTab(self.trace, "Trace")
        name_widget(self.tabs, "txTabs", "Transaction details and call trace")
        lay.addWidget(self.tabs, 1)
        controller.names.resolved.connect(self._renamed)
        controller.tx_words.changed.connect(self._reworded)
        if tx_hash:
            self.load()

    def show_hash(self, tx_hash: str) -> None:
        self.hash_edit.setText(tx_hash)
        self.load()

    def load(self) -> None:
        self.load_button.setEnabled(False)
        self.rerun_button.setEnabled(False)
        self.view.setHtml("<i>Loading…</i>")
        if self._task is not None:
            self._task.cancel()
        self._task = self.controller.tasks.start(
            "Inspecting a transaction",
            self._follow(self.hash_edit.text(), while_alive(self, self._still_pending)),
            on_done=while_alive(self, self._loaded),
            on_error=while_alive(self, self._failed),
        )

    def stop(self) -> None:
        """Stop following the transaction (the inspector is closed or hidden)."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._trace_task is not None:
            self._trace_task.cancel()
            self._trace_task = None

    async def _follow(self, tx_hash: str, pending: Callable[[TxDetails], None]) -> TxDetails:
        """Load; while the result is Pending, show it and poll again."""
        composer = self.controller.composer
        while True:
            details = await inspect_transaction(composer, tx_hash)
            if not details.result.pending:
                return details
            pending(details)
            await asyncio.sleep(POLL_INTERVAL)

    def _still_pending(self, details: TxDetails) -> None:
        self.progress.setVisible(True)
        self._show(details)

    def _loaded(self, details: TxDetails) -> None:
        self._task = None
        self.load_button.setEnabled(True)
        self.progress.setVisible(False)
        self._show(details)
        kind = details.tx.kind if details.tx is not None else ""
        runs_code = kind.lower() not in ("transfer", "genesis")
        self.rerun_button.setEnabled(runs_code)
        self.rerun_button.setToolTip(
            RERUN_TIP if runs_code else "A transfer runs no contract code: nothing to debug"
        )
        self._load_trace(details.hash)

    def _rerun(self) -> None:
        if self.details is not None:
            self.rerun_requested.emit(self.details.hash)

    def _load_trace(self, tx_hash: str) -> None:
        self.trace.show_note("Loading the call trace…")
        if self._trace_task is not None:
            self._trace_task.cancel()
        self._trace_task = self.controller.tasks.start(
            "Loading a call trace",
            transaction_trace(self.controller.composer, tx_hash),
            on_done=while_alive(self, self._trace_loaded),
            on_error=while_alive(self, self._trace_failed),
        )

    def _trace_loaded(self, trace: dict[str, Any] | str) -> None:
        self._trace_task = None
        if isinstance(trace, str):
            self.trace.show_note(trace[:1].upper() + trace[1:] + ".")
        else:
            self.trace.show_trace(trace)

    def _trace_failed(self, text: str) -> None:
        self._trace_task = None
        self.trace.show_note(f"No call trace: {text}")

    def _failed(self, text: str) -> None:
        self._task = None
        self.load_button.setEnabled(True)
        self.progress.setVisible(False)
        self.view.setHtml(f'<b style="color:#c0392b">✘ {escape(text)}</b>')

    def _show(self, d: TxDetails) -> None:
        self.details = d
        self.title_changed.emit(f"Transaction {d.hash[:10]}…")
        self.view.setHtml(render(d, self._names(d), links=self.links, words=self._words(d)))

    def _words(self, d: TxDetails) -> str:
        """What the transaction did, as the account panel and the Explorer say it."""
        return self.controller.tx_words.describe_transaction(d.tx) if d.tx is not None else ""

    def _reworded(self) -> None:
        d = self.details
        if d is not None and d.tx is not None and d.tx.kind == "GENESIS":
            self.view.setHtml(render(d, self._names(d), links=self.links, words=self._words(d)))

    def _addresses(self, d: TxDetails) -> list[str]:
        tx = d.tx
        found = [tx.sender, tx.to or ""] if tx is not None else []
        found += list(d.result.contracts_created)
        found += ADDRESS_KEY.findall(" ".join(k.lower() for k, _b, _a in d.state_diff or []))
        return [a.lower() for a in found if a]

    def _names(self, d: TxDetails) -> dict[str, str]:
        """Names of the page's addresses: contacts, users (with their organisation) and
        contracts, from the app's name service (those unknown yet are asked for, and the page
        is drawn again when they arrive)."""
        names = self.controller.address_names()
        service = self.controller.names
        chain = (d.tx.chain_id or "") if d.tx is not None else ""
        for a in self._addresses(d):
            known = service.lookup(a, chain)
            if known is not None:
                names[a] = known.text
        return names

    def _renamed(self, addresses: list[str]) -> None:
        d = self.details
        if d is not None and set(addresses) & set(self._addresses(d)):
            self.view.setHtml(render(d, self._names(d), links=self.links, words=self._words(d)))

    def _link(self, url: QUrl) -> None:
        kind, _, value = url.toString().partition(":")
        if kind == "block" and value.isdigit():
            self.block_clicked.emit(int(value))
        elif kind == "address" and value:
            self.address_clicked.emit(value)


class TxInspectorDialog(QDialog):
    """Non-modal: several can be open side by side."""

    def __init__(
        self, controller: AppController, tx_hash: str = "", parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("txInspector")
        self.setAccessibleName("Transaction inspector")
        self.setWindowTitle("Transaction")
        self.controller = controller
        self.inspector = TxInspector(controller, "", self)
        self.inspector.title_changed.connect(self.setWindowTitle)
        self.hash_edit = self.inspector.hash_edit
        self.load_button = self.inspector.load_button
        self.progress = self.inspector.progress
        self.view = self.inspector.view
        lay = QVBoxLayout(self)
        lay.addWidget(self.inspector)
        self.resize(720, 520)
        if tx_hash:
            self.inspector.show_hash(tx_hash)

    @property
    def details(self) -> TxDetails | None:
        return self.inspector.details

    @property
    def _task(self) -> asyncio.Task[Any] | None:
        """The load or follow under way (the tests check that closing cancels it)."""
        return self.inspector._task

    def load(self) -> None:
        self.inspector.load()

    def done(self, result: int) -> None:
        """Closing the inspector stops following its transaction."""
        self.inspector.stop()
        super().done(result)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.inspector.stop()
        super().closeEvent(event)


def _address_html(address: str, names: dict[str, str], links: bool = False) -> str:
    name = names.get(address.lower())
    code = f"<code>{escape(address)}</code>"
    if links:
        code = f'<a href="address:{escape(address)}">{code}</a>'
    return code + (f" ({escape(name)})" if name else "")


def render(
    d: TxDetails, names: dict[str, str] | None = None, *, links: bool = False, words: str = ""
) -> str:
    """The inspector's page; ``names`` puts contact and user names beside addresses; with
    ``links`` the block and the addresses link to the Explorer (``block:N``, ``address:A``);
    ``words`` is the Type row in the account panel's words ("Asset created: Car (CarDemo)"),
    by default what the transaction alone tells ("Chain created" for the node's GENESIS)."""
    names = names or {}
    r = d.result
    colour = {"Success": "#2e7d32", "Failure": "#c0392b", "Pending": "#b7791f"}.get(
        r.status, "#555"
    )
    rows: list[tuple[str, str]] = [
        ("Status", f'<b style="color:{colour}">{escape(r.status)}</b>'),
        ("Hash", f"<code>{d.hash}</code>"),
    ]
    if r.message and (r.status != "Success" or r.message != "Success!"):
        style = "color:#c0392b;font-weight:bold" if r.status == "Failure" else ""
        rows.append(("Message", f'<span style="{style}">{escape(r.message)}</span>'))
    tx = d.tx
    if tx is not None:
        block = str(tx.block_number)
        if links and tx.block_number >= 0:
            block = f'<a href="block:{tx.block_number}">{block}</a>'
        rows += [
            ("Type", escape(words or describe_tx(tx, {}, {}))),
            ("Block", f"{block} · {escape(tx.timestamp)}"),
            ("From", _address_html(tx.sender, names, links)),
            ("To", _address_html(tx.to, names, links) if tx.to else "(new contract)"),
            ("Value", f"{format_amount(tx.value)} · {tx.value:,} wei" if tx.value else "0"),
        ]
        if tx.chain_id:
            rows.append(("Chain", f"<code>{tx.chain_id}</code>"))
    if r.gas_used:
        rows.append(("Gas used", f"{r.gas_used:,}"))
    if d.time_ms is not None:
        rows.append(("Run time", f"{d.time_ms:.2f} ms"))
    if r.block_hash:
        rows.append(("Block hash", f"<code>{r.block_hash}</code>"))
    if r.contracts_created:
        rows.append(
            (
                "Contracts created",
                "<br>".join(_address_html(a, names, links) for a in r.contracts_created),
            )
        )
    if tx is not None and tx.metadata.get("funcName"):
        call = f"{escape(d.contract_name or '?')}.{escape(str(tx.metadata['funcName']))}"
        rows.append(("Called", f"{call}({escape(json.dumps(d.call_args))})"))
    html = "<table cellpadding=3>" + "".join(
        f"<tr><td><b>{k}</b></td><td>{v}</td></tr>" for k, v in rows
    )
    html += "</table>"
    html += _data_html(d)
    html += _events_html(d)
    html += _diff_html(d, names)
    return html


def _events_html(d: TxDetails) -> str:
    if d.events is None:
        return f"<p><i>{escape(d.events_note)}</i></p>" if d.events_note else ""
    if not d.events:
        return "<h3>Events</h3><p>none emitted</p>"
    declared = {e.name: dict(e.type.fields) for e in d.called.events} if d.called else {}
    items = "".join(
        f"<li><b>{escape(name)}</b>("
        + ", ".join(
            f"{escape(k)}: {value_html(declared.get(name, {}).get(k), v)}"
            for k, v in logged.items()
        )
        + ")</li>"
        for name, logged in d.events
    )
    return f"<h3>Events</h3><ul>{items}</ul>"


def _key_names(label: str, names: dict[str, str]) -> str:
    """Contact and user names of the addresses among an entry's keys."""
    known = [names[a] for a in ADDRESS_KEY.findall(label.lower()) if a in names]
    return f" ({escape(', '.join(known))})" if known else ""


def _diff_html(d: TxDetails, names: dict[str, str]) -> str:
    """The changes, or why there are none; always with what was compared and what was not."""
    scope = f"<p><i>{escape(d.state_scope)}</i></p>" if d.state_scope else ""
    if d.state_diff is None:
        return f"<p><i>{escape(d.state_note)}</i></p>" if d.state_note else ""
    if not d.state_diff:
        return f"<h3>State</h3><p>{escape(d.state_note)}</p>{scope}"
    rows = "".join(
        f"<tr><td><code>{escape(k)}</code>{_key_names(k, names)}:</td><td>{_value(b)}</td>"
        f"<td>→</td><td>{_value(a)}</td></tr>"
        for k, b, a in d.state_diff
    )
    return f"<h3>State changed</h3><table cellpadding=3>{rows}</table>{scope}"


def _value(v: Any) -> str:
    if v is NOT_KEPT:
        return "<i>(earlier value not kept)</i>"
    if v is None:
        return "<i>(new)</i>"
    return f"<code>{escape(json.dumps(v) if not isinstance(v, str) else v)}</code>"


def _data_html(d: TxDetails) -> str:
    r = d.result
    if r.tag == "Upload" and isinstance(r.contents, dict):
        c: dict[str, Any] = r.contents
        code = c.get("codeHash")
        digest = code.get("digest") if isinstance(code, dict) else code
        out = (
            f"<h3>Upload</h3><p><b>{escape(str(c.get('name', '')))}</b> at "
            f"<code>{c.get('address')}</code><br>code hash <code>{escape(str(digest))}</code></p>"
        )
        if d.created is not None:
            funcs = [d.created.constructor, *d.created.functions]
            lines = "".join(
                f"<li><code>{escape(f.signature())}</code>{' <i>view</i>' * f.is_view}</li>"
                for f in funcs
            )
            out += f"<p>Interface</p><ul>{lines}</ul>"
        return out
    if r.tag == "Call":
        items = returned_items(r.values, d.function)
        if not items:
            return "<h3>Call</h3><p>returned nothing</p>"
        return (
            "<h3>Call</h3><p>returned</p><ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>"
        )
    if r.tag:
        return f"<h3>{escape(r.tag)}</h3><pre>{escape(json.dumps(r.contents, indent=2))}</pre>"
    return ""
