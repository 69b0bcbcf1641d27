"""Save PNG screenshots of every panel and dialog, rendered offscreen (no display needed).

    python tools/screenshot.py [--out docs/screenshots] [--theme light|dark]
                               [--size 1600x1000 --size 1024x640] [--only NAME ...] [--strict]

Starts a throw-away embedded sandbox, signs in as alice, fills the panels with something to
show (a token deployed, cars, a file, a private chain being drafted) and grabs each panel and
dialog with ``QWidget.grab()`` at every ``--size`` (default: 1600x1000 and 1024x640). The
first size is written to ``--out`` itself (``<name>-<theme>.png``: the README shows these),
every other one to ``--out/<W>x<H>/``. A dialog is fitted to the size as a screen of that size
would (never larger, never below its own minimum).

Each shot stands alone: one that fails (a panel or dialog changed under it) is reported and the
others are still taken. After the pictures, a layout report lists, per shot and size, what a
small screen does to it: a window or dialog that needs more than the size, widgets squashed
below their minimum, and widgets cut off outside their window. It is also written to
``layout-report.txt`` next to each size's pictures. ``--strict`` exits 1 when a shot failed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import tempfile
import traceback
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

DEFAULT_SIZES = ("1600x1000", "1024x640")
TITLE_BAR = 32  # what a window manager takes from a screen's height for a dialog's title
MAX_PROBLEMS = 15  # per shot and size, in the layout report
CARS = (
    ("1HGCM82633A004352", "red", "Accord", 1400),
    ("5YJ3E1EA7KF317000", "white", "Model 3", 1750),
    ("WVWZZZ1JZXW000001", "blue", "Golf", 1200),
)


def parse_size(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d{3,5})x(\d{3,5})", text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"a size is WIDTHxHEIGHT, like 1024x640, not {text!r}")
    return int(m.group(1)), int(m.group(2))


async def settle(seconds: float) -> None:
    await asyncio.sleep(seconds)


async def until(check: Callable[[], object], seconds: float = 20.0) -> None:
    """Run the loop until ``check()`` holds, or ``seconds`` pass (the shot shows what is there)."""
    for _ in range(int(seconds / 0.05)):
        try:
            if check():
                return
        except Exception:
            pass
        await asyncio.sleep(0.05)


@dataclass
class Shooter:
    """Grabs widgets at every size and keeps what went wrong (failed shots, layout problems)."""

    window: Any
    out: Path
    theme: str
    sizes: list[tuple[int, int]]
    only: set[str] = field(default_factory=set)
    saved: list[Path] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    problems: dict[tuple[int, int], list[str]] = field(default_factory=dict)

    def wanted(self, name: str) -> bool:
        return not self.only or name in self.only

    def path(self, name: str, size: tuple[int, int]) -> Path:
        folder = self.out if size == self.sizes[0] else self.out / f"{size[0]}x{size[1]}"
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{name}-{self.theme}.png"

    def fit_window(self, size: tuple[int, int]) -> None:
        """The window at ``size``. Below the first size it is held there even when its
        minimum is larger, as a small screen holds it: what that squashes shows."""
        from PySide6.QtWidgets import QLayout

        lay = self.window.layout()
        if size == self.sizes[0]:
            lay.setSizeConstraint(QLayout.SizeConstraint.SetDefaultConstraint)
        else:
            lay.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
            self.window.setMinimumSize(0, 0)
        self.window.resize(*size)

    async def window_shot(
        self,
        name: str,
        part: Any = None,
        prepare: Callable[[tuple[int, int]], None] | None = None,
    ) -> None:
        """The main window at each size (or one part of it, laid out at that window size);
        ``prepare(size)`` runs once the window has the size (a dock sized as it opens there)."""
        if not self.wanted(name):
            return
        for size in self.sizes:
            self.fit_window(size)
            if prepare is not None:
                prepare(size)
            await settle(0.35)
            self._save(part or self.window, name, size, self.window)
        self.fit_window(self.sizes[0])

    async def dialog_shot(self, name: str, dialog: Any) -> None:
        """A dialog fitted to each size: its own size when it fits, else the size's bounds."""
        if not self.wanted(name) or dialog is None:
            return
        natural = dialog.size()
        for size in self.sizes:
            w, h = size[0], size[1] - TITLE_BAR
            dialog.resize(min(natural.width(), w), min(natural.height(), h))
            await settle(0.3)
            self._save(dialog, name, size, dialog, (w, h))
        dialog.resize(natural)

    def save_pixmap(self, pixmap: Any, name: str, size: tuple[int, int]) -> None:
        path = self.path(name, size)
        pixmap.save(str(path))
        self.saved.append(path)

    def _save(
        self, widget: Any, name: str, size: tuple[int, int], top: Any, bounds: Any = None
    ) -> None:
        self.save_pixmap(widget.grab(), name, size)
        found = layout_problems(top, bounds or size)
        if found:
            self.problems.setdefault(size, []).append(
                f"{name}:\n" + "\n".join(f"    {p}" for p in found)
            )

    async def run(self, name: str, step: Callable[[], Awaitable[None]]) -> None:
        """One scene; a failure is reported, and the next scene still runs."""
        try:
            await step()
        except Exception as exc:
            where = traceback.extract_tb(exc.__traceback__)[-1]
            self.failed.append(
                f"{name}: {type(exc).__name__}: {exc} (at {Path(where.filename).name}:"
                f"{where.lineno})"
            )
        finally:
            close_new_dialogs(self.window)


def describe(w: Any) -> str:
    """A widget as the report names it: its object name, else its class and text."""
    name = w.objectName() or w.accessibleName()
    text = ""
    if hasattr(w, "text") and callable(w.text):
        try:
            text = str(w.text())[:30]
        except Exception:
            text = ""
    kind = type(w).__name__
    if name and not name.startswith("qt_"):
        return f"{kind} {name}"
    return f"{kind} {text!r}" if text else kind


def layout_problems(top: Any, bounds: tuple[int, int]) -> list[str]:
    """What a screen of ``bounds`` does to ``top``: too large, squashed children, cut-off ones.
    Heuristic (hints of custom widgets may be wrong): a list to look at, not a verdict."""
    from PySide6.QtCore import QPoint, QRect
    from PySide6.QtWidgets import (
        QAbstractButton,
        QAbstractScrollArea,
        QAbstractSpinBox,
        QComboBox,
        QHeaderView,
        QLabel,
        QLineEdit,
        QScrollArea,
        QWidget,
    )

    out: list[str] = []
    hint = top.minimumSizeHint()
    if max(top.width(), hint.width()) > bounds[0] or max(top.height(), hint.height()) > bounds[1]:
        out.append(
            f"needs at least {max(top.width(), hint.width())}x{max(top.height(), hint.height())}"
            f", more than {bounds[0]}x{bounds[1]}"
        )
        out.extend(largest_minimums(top, bounds))
    frame = top.rect()  # cut off by its own window (a window too large is said above)
    reported: set[int] = set()
    for w in top.findChildren(QWidget):
        if w.isWindow() or not w.isVisibleTo(top) or w.objectName().startswith("qt_"):
            continue
        parent = w.parentWidget()
        if parent is not None and id(parent) in reported:
            reported.add(id(w))
            continue
        in_scroll = False
        p = parent
        while p is not None and p is not top:
            if isinstance(p, QScrollArea) or (
                isinstance(p.parentWidget(), QAbstractScrollArea)
                and p is p.parentWidget().viewport()
            ):
                in_scroll = True
                break
            p = p.parentWidget()
        if in_scroll:
            continue
        at = QRect(w.mapTo(top, QPoint(0, 0)), w.size())
        if at.right() < 0 or at.bottom() < 0 or isinstance(w, QHeaderView):
            continue  # parked out of sight by Qt (a dock's tab bar); a view's header
        if w.width() > 0 and w.height() > 0 and not frame.contains(at):
            visible = frame.intersected(at)
            if visible.width() * visible.height() < at.width() * at.height() * 0.9:
                out.append(f"{describe(w)} cut off: at {at.x()},{at.y()} {w.width()}x{w.height()}")
                reported.add(id(w))
                continue
        hint = w.minimumSizeHint()
        checked: tuple[type, ...] = (QLineEdit, QAbstractButton, QComboBox, QAbstractSpinBox)
        if isinstance(w, QLabel) and not w.wordWrap() and w.text() and w.pixmap().isNull():
            checked = (QLabel,)
        if isinstance(w, checked) and isinstance(w, QWidget) and hint.isValid():
            short_h = w.height() < hint.height() - 2
            short_w = w.width() < hint.width() - 2 and not isinstance(w, QLineEdit)
            if short_h or short_w:
                out.append(
                    f"{describe(w)} squashed to {w.width()}x{w.height()} "
                    f"(needs {hint.width()}x{hint.height()})"
                )
                reported.add(id(w))
        elif isinstance(w, QAbstractScrollArea) and 0 <= w.height() < 48:
            out.append(f"{describe(w)} only {w.height()} px tall")
            reported.add(id(w))
    if len(out) > MAX_PROBLEMS:
        out = [*out[:MAX_PROBLEMS], f"… and {len(out) - MAX_PROBLEMS} more"]
    return out


def largest_minimums(top: Any, bounds: tuple[int, int]) -> list[str]:
    """For a main window too large: the panels whose minimum size makes it so."""
    panels = getattr(top, "panels", None)
    stack = getattr(top, "stack", None)
    if not panels or stack is None:
        return []
    room_w = bounds[0] - (top.width() - stack.width())
    room_h = bounds[1] - (top.height() - stack.height())
    out = []
    for panel in panels:
        hint = panel.minimumSizeHint()
        if hint.width() > room_w or hint.height() > room_h:
            out.append(
                f"{type(panel).__name__} asks for at least {hint.width()}x{hint.height()} "
                f"(the window leaves it {room_w}x{room_h})"
            )
    return out


def close_new_dialogs(window: Any) -> None:
    """Close what a scene left open (its dialogs and sheets), so the next one starts clean."""
    from PySide6.QtWidgets import QApplication, QDialog

    for w in QApplication.topLevelWidgets():
        if w is not window and isinstance(w, QDialog) and w.isVisible():
            w.reject()


def show_panel(window: Any, panel: Any) -> None:
    """Bring ``panel`` forward the way the navigation does (whatever shape it has now)."""
    go = getattr(window, "show_panel", None)
    if callable(go):
        go(panel)
        return
    index = window.panels.index(panel)
    nav = getattr(window, "nav", None)
    if nav is not None and hasattr(nav, "setCurrentRow") and nav.count() == len(window.panels):
        nav.setCurrentRow(index)
    window.stack.setCurrentWidget(panel)


def panel_of(window: Any, kind: type) -> Any:
    return next(p for p in window.panels if isinstance(p, kind))


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "panel"


async def shoot(shooter: Shooter, tmp: Path) -> None:
    """Every scene, in an order where each leaves the node with what the next one shows."""
    from PySide6.QtCore import Qt

    from app.ui.panels.account.panel import AccountPanel

    window = shooter.window
    controller = window.controller
    await controller.set_sandbox_gas(True)  # so that the faucet has something to do
    await controller.start()
    await controller.account.faucet()
    await controller.account.refresh()
    await settle(0.3)
    run = shooter.run

    async def main_window() -> None:
        show_panel(window, panel_of(window, AccountPanel))
        await shooter.window_shot("main-window")
        await shooter.window_shot("account-panel", panel_of(window, AccountPanel))

    async def inspector() -> None:
        window.inspector.show()
        window.resizeDocks([window.inspector], [260], Qt.Orientation.Vertical)
        await settle(0.3)
        table = window.inspector.table
        table.selectRow(table.model().rowCount() - 1)
        await settle(0.2)
        try:
            await shooter.window_shot("main-window-inspector")
        finally:
            window.inspector.hide()

    async def connection() -> None:
        await shooter.dialog_shot("connection-dialog", window.open_connection_dialog())

    async def password() -> None:
        dialog = window.ask_password("bob", "bob's password is not saved on this computer")
        await shooter.dialog_shot("password-dialog", dialog)

    await run("main-window", main_window)
    await run("main-window-inspector", inspector)
    await run("send", lambda: send_scenes(shooter))
    await run("connection-dialog", connection)
    await run("password-dialog", password)
    state: dict[str, Any] = {}
    await run("composer", lambda: composer_scenes(shooter, state))
    await run("composer-tests", lambda: tests_scene(shooter, tmp))
    await run("lookups", lambda: lookup_scenes(shooter))
    await run("tables", lambda: tables_scene(shooter))
    await run("chains", lambda: chains_scenes(shooter))
    await run("assets", lambda: assets_scenes(shooter))
    await run("files", lambda: files_scenes(shooter, tmp))
    await run("dashboard", lambda: dashboard_scene(shooter))
    await run("explorer", lambda: explorer_scenes(shooter, state))
    await run("composer-debugger", lambda: debugger_scene(shooter))
    await run("welcome", lambda: welcome_scene(shooter))
    await run("tour", lambda: tour_scene(shooter))
    await run("about", lambda: about_scene(shooter))
    await run("other panels", lambda: other_panels(shooter))

    async def no_identity() -> None:
        show_panel(window, panel_of(window, AccountPanel))
        await controller.switch_user("dave")
        await controller.account.refresh()
        await settle(0.2)
        await shooter.window_shot("account-panel-no-identity", panel_of(window, AccountPanel))

    await run("account-panel-no-identity", no_identity)


async def composer_scenes(shooter: Shooter, state: dict[str, Any]) -> None:
    """A sample compiled and deployed (its sheet), a call being prepared, the transaction."""
    from app.ui.panels.composer.panel import ComposerPanel

    window = shooter.window
    composer = panel_of(window, ComposerPanel)
    show_panel(window, composer)
    composer.editor.setPlainText((ROOT / "resources" / "contracts" / "Token.sol").read_text())
    composer.compile()
    await until(lambda: composer.contract.findText("Token") >= 0)
    composer.contract.setCurrentText("Token")
    args = composer.deploy_args.editors
    args["_name"].set_value("Demo token")
    args["_symbol"].set_value("DMO")
    args["_supply"].set_value("1e6")
    sheet = composer.deploy()
    await settle(0.3)
    await shooter.dialog_shot("confirmation-sheet", sheet)
    sheet.send_button.click()
    await until(lambda: bool(composer.last_results))
    await settle(0.5)
    fn = composer.function
    fn.setCurrentIndex(fn.findData("transfer"))
    call = composer.call_args.editors
    call["to"].set_value(await bob_address(window.controller))
    call["amount"].set_value(250)
    await settle(0.3)
    await shooter.window_shot("composer")
    tx = composer.last_results[0].hash
    state["tx"] = tx
    state["token"] = composer.call_address.text()  # the Explorer's contract and token pages
    inspector = window.open_transaction(tx)
    await settle(0.8)
    await shooter.dialog_shot("transaction-inspector", inspector)
    inspector.close()


async def tests_scene(shooter: Shooter, tmp: Path) -> None:
    """The composer's Tests view after a run of the GUI tests' corpus: a failure selected."""
    import shutil

    from app.ui.panels.composer.panel import ComposerPanel

    window = shooter.window
    composer = panel_of(window, ComposerPanel)
    show_panel(window, composer)
    project = tmp / "tests-project"
    shutil.copytree(ROOT / "tests" / "corpus" / "describe_gui", project)
    composer.open_folder(project)
    composer.load_path(project / "counter_test.sol")
    composer.show_tests()
    view = composer.tests_view
    await until(lambda: len(view.model.all_tests()) == 6)
    view.run_all()
    await until(lambda: not view.service.running and view.model.totals()["passed"] == 4)
    for t in view.model.all_tests():
        if t.key == "Describe_Counter.it_cannot_go_below_zero":
            view.select_node(t)
    await settle(0.3)
    await shooter.window_shot("composer-tests")
    composer.focus_files()


async def send_scenes(shooter: Shooter) -> None:
    """The Send dialog filled in for bob, then its confirmation sheet (gas charged)."""
    from app.ui.panels.account.panel import AccountPanel

    window = shooter.window
    panel = panel_of(window, AccountPanel)
    show_panel(window, panel)
    dialog = panel.open_send_dialog()
    await until(lambda: bool(dialog.users) and isinstance(dialog.balances.get(None), int))
    dialog.recipient_edit.setText("bob")
    dialog.amount.setText("12.5")
    await settle(0.3)
    await shooter.dialog_shot("send-dialog", dialog)
    sheet = dialog.review()
    await settle(0.3)
    await shooter.dialog_shot("send-sheet", sheet)
    if sheet is not None:
        sheet.reject()
    dialog.reject()


async def lookup_scenes(shooter: Shooter) -> None:
    """What the search box opens for an address and for a block number."""
    window = shooter.window
    controller = window.controller
    hit = await controller.search.resolve(await bob_address(controller))
    await shooter.dialog_shot("address-lookup", window.go_to(hit))
    close_new_dialogs(window)
    health = controller.session.health
    latest = health.last_block if health is not None and health.last_block else 1
    hit = await controller.search.resolve(str(max(1, latest - 1)))
    await shooter.dialog_shot("block-lookup", window.go_to(hit))


async def tables_scene(shooter: Shooter) -> None:
    """The identity registry's certificates, filtered with the builder."""
    from app.ui.panels.tables.panel import TablesPanel

    window = shooter.window
    tables = panel_of(window, TablesPanel)
    show_panel(window, tables)
    await settle(0.5)
    tables.open_table("Certificate")
    await settle(0.5)
    builder = tables.builder
    builder.query_text.setText(
        "select=commonName,organization,organizationalUnit,userAddress"
        "&or=(organization.eq.Acme,and(organizationalUnit.ilike.*log*,commonName.not.eq.dave))"
        "&order=organization,commonName"
    )
    builder.apply_text()
    await settle(0.8)
    builder.tree.setCurrentIndex(builder.model.index(1, 0, builder.model.index(0, 0)))
    tables.view.clicked.emit(tables.model.index(0, 0))
    await settle(0.2)
    await shooter.window_shot("tables")


async def chains_scenes(shooter: Shooter) -> None:
    """The demo app's realm chain, and every page of the create-chain wizard."""
    from app.ui.panels.chains.create_dialog import STEPS
    from app.ui.panels.chains.panel import ChainsPanel

    window = shooter.window
    chains = panel_of(window, ChainsPanel)
    show_panel(window, chains)
    await settle(1.0)
    chains.tree.expandAll()
    model = chains.tree.model()
    chains.tree.setCurrentIndex(model.index(0, 0, model.index(0, 0)))
    await settle(1.0)
    await shooter.window_shot("chains")
    wizard = chains.open_create_dialog()
    await settle(1.0)
    wizard.label.setText("Supply chain")
    wizard.compile()
    await settle(1.0)
    for step in STEPS:
        wizard.go_to(step)
        await settle(0.3)
        await shooter.dialog_shot(f"create-chain-{slug(step)}", wizard)
    await shooter.dialog_shot("create-chain", wizard)  # the Review page: the README's picture
    wizard.discard()


async def assets_scenes(shooter: Shooter) -> None:
    """Three cars, one repainted, its timeline; the create, update and transfer forms."""
    from app.ui.panels.assets.panel import AssetsPanel

    window = shooter.window
    controller = window.controller
    client = controller.session.client
    await controller.account.faucet()  # the composer's shots spent alice's first tokens
    shards = []
    for vin, colour, model, weight in CARS:
        made = await client.create_asset(
            "/apps/CarDemo", "car", {"vin": vin, "color": colour, "model": model, "weight": weight}
        )
        shards.append(str(made["chainIds"][0]))
    gov = "0000000000000000000000000000000000000100"
    await client.update_asset("/apps/CarDemo", "car", gov, shards[0], {"color": "green"})
    assets = panel_of(window, AssetsPanel)
    show_panel(window, assets)
    await until(lambda: assets.loaded and len(assets.visible_chains()) >= 3)
    assets.select(shards[0])
    await until(lambda: len(assets.timeline_rows()) >= 2)
    await settle(0.5)
    await shooter.window_shot("assets")
    forms: list[tuple[str, Callable[[], Any]]] = [
        ("asset-create", assets.new_asset),
        ("asset-update", assets.update_asset),
        ("asset-transfer", assets.transfer_asset),
    ]
    for name, opener in forms:

        async def one(n: str = name, o: Callable[[], Any] = opener) -> None:
            await form_shot(shooter, n, o)

        await shooter.run(name, one)


async def form_shot(shooter: Shooter, name: str, opener: Callable[[], Any]) -> None:
    dialog = opener()
    if dialog is None:
        raise RuntimeError("the panel opened no dialog (nothing selected?)")
    await settle(0.4)
    await shooter.dialog_shot(name, dialog)
    dialog.reject()


async def files_scenes(shooter: Shooter, tmp: Path) -> None:
    """A report hashed here, its upload sheet, uploaded, verified; the attest sheet."""
    from app.ui.panels.files.panel import FilesPanel

    window = shooter.window
    files = panel_of(window, FilesPanel)
    show_panel(window, files)
    await until(lambda: files.loaded)
    report = tmp / "inspection-report.pdf"
    report.write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 4000)
    files.choose_file(str(report))
    await until(files.upload_button.isEnabled)
    files.metadata.setText("vehicle inspection, VIN 1HGCM82633A004352")
    sheet = files.upload()
    if sheet is not None:  # the upload waits for its confirmation sheet
        await settle(0.3)
        await shooter.dialog_shot("files-upload-sheet", sheet)
        sheet.accept()
    await until(lambda: files.upload_status.text().startswith(("✔", "✘")))
    await until(lambda: files.selected() is not None)
    files.verify()
    await settle(1.5)
    await shooter.window_shot("files")
    sheet = files.attest()
    if sheet is not None:
        await settle(0.3)
        await shooter.dialog_shot("files-attest-sheet", sheet)
        sheet.reject()


async def dashboard_scene(shooter: Shooter) -> None:
    from app.ui.panels.dashboard.panel import DashboardPanel

    window = shooter.window
    dash = panel_of(window, DashboardPanel)
    show_panel(window, dash)
    dash.window_box.setCurrentIndex(dash.window_box.findData(100))
    await until(lambda: dash.plots_ready)
    await settle(2.0)
    dash.redraw()
    await settle(0.5)
    await shooter.window_shot("dashboard")


async def explorer_scenes(shooter: Shooter, state: dict[str, Any]) -> None:
    """The Explorer: blocks with a block's detail; transactions with one inspected (its Trace
    tab too); the Accounts view with an account page; the token's contract page (Read, Code)
    and its token page."""
    from app.ui.panels.explorer.panel import ExplorerPanel
    from app.ui.panels.explorer.transactions_model import TX_ROLE

    window = shooter.window
    panel = panel_of(window, ExplorerPanel)
    show_panel(window, panel)
    await until(lambda: panel.blocks_model.head >= 0 and panel.txs_model.rowCount() > 0)
    head = panel.blocks_model.head
    panel.blocks_view.go_to(head - 1)
    panel.show_block(head - 1)
    await settle(1.0)
    await shooter.window_shot("explorer")
    panel.tabs.setCurrentWidget(panel.txs_view)
    await settle(0.5)
    model = panel.txs_model
    rows = [model.index(r, 0).data(TX_ROLE) for r in range(min(model.rowCount(), 50))]
    row = next((r for r, tx in enumerate(rows) if tx and tx.kind == "FunctionCall"), 0)
    panel.txs_view.table.selectRow(row)
    tx = model.index(row, 0).data(TX_ROLE)
    if tx is not None:
        panel.show_transaction(tx.hash)
    await until(lambda: panel.detail.inspector.details is not None)
    await settle(0.5)
    await shooter.window_shot("explorer-transaction")
    inspector = panel.detail.inspector
    inspector.tabs.setCurrentWidget(inspector.trace)
    await settle(0.8)
    await shooter.window_shot("explorer-trace")
    inspector.tabs.setCurrentIndex(0)
    await explorer_pages(shooter, panel, state)
    panel.tabs.setCurrentWidget(panel.blocks_view)


async def explorer_pages(shooter: Shooter, panel: Any, state: dict[str, Any]) -> None:
    """The Accounts view and alice's page; the token deployed by the composer scene: its
    contract page's Read (a view function queried) and Code tabs, and its Token tab."""
    from app.services.explorer_contracts import Instance

    accounts = panel.accounts_view
    panel.tabs.setCurrentWidget(accounts)
    await until(lambda: accounts.model.rowCount() > 0 and not accounts.model.loading)
    await settle(0.5)
    await shooter.window_shot("explorer-accounts")
    alice = shooter.window.controller.account.view.address or ""
    page = panel.open_account(alice)
    await until(lambda: page.entry is not None and page.txs_model.rowCount() > 0)
    await settle(0.8)
    await shooter.window_shot("explorer-account")
    token = state.get("token", "")
    if not token:
        return
    panel.tabs.setCurrentWidget(panel.contracts_view)
    detail = panel.contracts_view.show_instance(Instance("Token", token))
    contract = detail.page
    await until(lambda: contract.source is not None and contract.token is not None)
    read = contract.read
    detail.tabs.setCurrentWidget(read)
    if read.choose("balanceOf"):
        read.args.set_values({read.current().params[0].name: alice})
        read.run()
        await until(lambda: "balanceOf" in read.results.toPlainText())
    elif read.functions.count():
        read.functions.setCurrentRow(0)
        read.run()
        await until(lambda: bool(read.results.toPlainText()))
    await settle(0.5)
    await shooter.window_shot("explorer-contract-read")
    detail.tabs.setCurrentWidget(contract.code)
    await settle(0.5)
    await shooter.window_shot("explorer-contract-code")
    token_page = contract.token
    if token_page is not None:
        detail.tabs.setCurrentWidget(token_page)
        await until(lambda: token_page.supply is not None)
        await settle(1.0)
        await shooter.window_shot("explorer-token")


DEBUG_SAMPLE = """contract Counter {
    uint public total;
    constructor(uint start) public { total = start; }
    function add(uint x) public returns (uint) {
        uint doubled = x * 2;
        total = total + doubled;
        return total;
    }
}
"""


async def debugger_scene(shooter: Shooter) -> None:
    """The composer paused at a breakpoint (Debug on the Call tab before any deployment: a
    fresh one on a copy of the state) with the Debug dock: the lit line, the stack, watches,
    the locals and an evaluated expression; stopped afterwards, the dock closed."""
    from app.ui.panels.composer.panel import ComposerPanel

    window = shooter.window
    composer = panel_of(window, ComposerPanel)
    show_panel(window, composer)
    composer.source.new_scratch()  # the Untitled tab: the project's files stay as they are
    await settle(0.2)
    composer.editor.setPlainText(DEBUG_SAMPLE)
    composer.call_address.clear()  # (an earlier scene's contract) nothing deployed yet
    composer.result.clear()
    composer.compile()
    await until(lambda: composer.contract.findText("Counter") >= 0)
    composer.contract.setCurrentText("Counter")
    await until(lambda: "start" in composer.deploy_args.editors)
    composer.deploy_args.editors["start"].set_value("10")
    # nothing deployed: the Call tab offers the compiled contract, Debug runs a fresh deployment
    await until(lambda: composer.function.findData("add") >= 0)
    composer.function.setCurrentIndex(composer.function.findData("add"))
    await until(lambda: "x" in composer.call_args.editors)
    composer.call_args.editors["x"].set_value("21")
    editor = composer.editor
    editor.toggle_breakpoint(6)
    dbg = composer.debugger
    dbg.pane.watches.set_expressions(["doubled", "total + doubled", "msg.sender"])
    dbg.debug_button.click()
    await until(lambda: editor.paused_line == 6, 30)
    await settle(1.0)
    dbg.pane.evaluate.setText("x * 2")
    dbg.pane.evaluate.returnPressed.emit()
    await until(lambda: "x * 2" in dbg.pane.log.toPlainText(), 10)

    def opened_at(size: tuple[int, int]) -> None:
        """The dock as it first opens in a window of that size."""
        from PySide6.QtCore import Qt

        from app.ui.panels.composer.debug_pane import dock_height

        high = dock_height(size[1], dbg.dock.fontMetrics().lineSpacing())
        window.resizeDocks([dbg.dock], [high], Qt.Orientation.Vertical)

    try:
        await shooter.window_shot("composer-debugger", prepare=opened_at)
    finally:
        dbg.pane.buttons["stop"].click()
        await until(lambda: editor.paused_line is None, 10)
        editor.toggle_breakpoint(6)
        dbg.dock.close()


async def welcome_scene(shooter: Shooter) -> None:
    from app.ui.shell.welcome_dialog import WelcomeDialog

    window = shooter.window
    show_panel(window, window.panels[0])
    welcome = WelcomeDialog(window.controller, window)
    welcome.show()
    await settle(0.3)
    await shooter.dialog_shot("welcome", welcome)
    welcome.close()


async def tour_scene(shooter: Shooter) -> None:
    """The tour's step on the composer, drawn where it stands over the window."""
    window = shooter.window
    show_panel(window, window.panels[0])
    tour = window.start_tour()
    tour.go(2)
    try:
        for size in shooter.sizes:
            shooter.fit_window(size)
            await settle(0.4)
            tour.place()
            await settle(0.1)
            if shooter.wanted("tour"):
                shooter.save_pixmap(composite(window, tour), "tour", size)
                found = layout_problems(tour, size)
                if found:
                    shooter.problems.setdefault(size, []).append(
                        "tour:\n" + "\n".join(f"    {p}" for p in found)
                    )
        shooter.fit_window(shooter.sizes[0])
    finally:
        tour.close()


async def about_scene(shooter: Shooter) -> None:
    """The About box, when the window has one (a menu action whose text starts with About)."""
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QApplication, QDialog

    window = shooter.window
    action = next(
        (
            a
            for a in window.findChildren(QAction)
            if a.text().replace("&", "").lower().startswith("about")
        ),
        None,
    )
    if action is None:
        return  # no About box yet: nothing to shoot, nothing failed
    before = set(QApplication.topLevelWidgets())
    QApplication.processEvents()
    action.trigger()
    await settle(0.5)
    opened = [
        w
        for w in QApplication.topLevelWidgets()
        if w not in before and isinstance(w, QDialog) and w.isVisible()
    ]
    if not opened:
        raise RuntimeError(f"{action.text()!r} opened no dialog that could be shot")
    await shooter.dialog_shot("about", opened[0])


async def other_panels(shooter: Shooter) -> None:
    """Panels no scene above shows (added since): each as it is, named after its title."""
    from app.ui.panels.account.panel import AccountPanel
    from app.ui.panels.assets.panel import AssetsPanel
    from app.ui.panels.chains.panel import ChainsPanel
    from app.ui.panels.composer.panel import ComposerPanel
    from app.ui.panels.dashboard.panel import DashboardPanel
    from app.ui.panels.explorer.panel import ExplorerPanel
    from app.ui.panels.files.panel import FilesPanel
    from app.ui.panels.tables.panel import TablesPanel

    known = (
        AccountPanel,
        AssetsPanel,
        ChainsPanel,
        ComposerPanel,
        DashboardPanel,
        ExplorerPanel,
        FilesPanel,
        TablesPanel,
    )
    window = shooter.window
    for panel in window.panels:
        if isinstance(panel, known):
            continue
        name = f"panel-{slug(str(getattr(panel, 'title', '') or panel.objectName()))}"

        async def one(p: Any = panel, n: str = name) -> None:
            show_panel(window, p)
            await settle(1.0)
            await shooter.window_shot(n)

        await shooter.run(name, one)


def composite(window: Any, dialog: Any) -> Any:
    """The window with the (top-level) dialog drawn where it stands over it."""
    from PySide6.QtGui import QPainter

    shot = window.grab()
    at = window.mapFromGlobal(dialog.mapToGlobal(dialog.rect().topLeft()))
    at.setX(max(0, min(at.x(), shot.width() - dialog.width())))
    at.setY(max(0, min(at.y(), shot.height() - dialog.height())))
    painter = QPainter(shot)
    painter.drawPixmap(at, dialog.grab())
    painter.end()
    return shot


async def bob_address(controller: object) -> str:
    from app.services.controller import AppController

    assert isinstance(controller, AppController)
    users = dict(await controller.composer.users())
    return users["bob"]


async def shoot_all(shooter_args: dict[str, Any]) -> Shooter:
    from app.services.controller import AppController
    from app.ui.shell.main_window import MainWindow

    tmp = Path(tempfile.mkdtemp(prefix="stratoscope-shots-"))
    controller = AppController(config_directory=tmp / "config", sandbox_dir=tmp / "sandbox")
    window = MainWindow(controller)
    shooter = Shooter(window, **shooter_args)
    shooter.fit_window(shooter.sizes[0])
    window.show()
    try:
        await shoot(shooter, tmp)
    except Exception as exc:
        shooter.failed.append(f"start: {type(exc).__name__}: {exc}")
    finally:
        await controller.shutdown()
        window.deleteLater()
    return shooter


def report(shooter: Shooter) -> str:
    lines: list[str] = []
    for size in shooter.sizes:
        found = shooter.problems.get(size, [])
        head = f"== layout at {size[0]}x{size[1]}: "
        lines.append(head + (f"{len(found)} shots to look at" if found else "nothing found"))
        lines.extend(found)
        folder = shooter.path("x", size).parent
        (folder / "layout-report.txt").write_text("\n".join([head, *found]) + "\n")
    if shooter.failed:
        lines.append(f"== {len(shooter.failed)} shots failed (the others were taken):")
        lines.extend(f"  {f}" for f in shooter.failed)
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    p.add_argument("--theme", choices=("light", "dark"), default="light")
    p.add_argument(
        "--size",
        type=parse_size,
        action="append",
        help="WIDTHxHEIGHT, repeatable; the first goes to --out, others to --out/WxH "
        f"(default: {' and '.join(DEFAULT_SIZES)})",
    )
    p.add_argument("--only", nargs="+", default=[], help="shoot only these names")
    p.add_argument("--strict", action="store_true", help="exit 1 when a shot failed")
    args = p.parse_args()
    sizes = args.size or [parse_size(s) for s in DEFAULT_SIZES]
    import qasync
    from PySide6.QtWidgets import QApplication

    from app.ui.shell.theme import apply_theme

    app = QApplication([sys.argv[0]])
    apply_theme(app, args.theme)
    args.out.mkdir(parents=True, exist_ok=True)
    loop = qasync.QEventLoop(app)
    loop.set_default_executor(ThreadPoolExecutor(2))  # as the app does: no QThread pool
    asyncio.set_event_loop(loop)
    shooter_args = {"out": args.out, "theme": args.theme, "sizes": sizes, "only": set(args.only)}
    with loop:
        shooter = loop.run_until_complete(shoot_all(shooter_args))
    for path in shooter.saved:
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    print(report(shooter))
    del app
    import gc

    gc.collect()
    return 1 if args.strict and shooter.failed else 0


if __name__ == "__main__":
    sys.exit(main())
