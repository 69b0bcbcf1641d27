"""Save PNG screenshots of the app's window and panels, rendered offscreen (no display needed).

    python tools/screenshot.py [--out docs/screenshots] [--theme light|dark]

Starts a throw-away embedded sandbox, signs in as alice, asks the faucet for tokens, opens the
HTTP inspector, and grabs each part with ``QWidget.grab()``. The README shows these files.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


async def settle(seconds: float) -> None:
    await asyncio.sleep(seconds)


async def shoot(out: Path, theme: str) -> list[Path]:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QWidget

    from app.services.controller import AppController
    from app.ui.shell.main_window import MainWindow

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    tmp = Path(tempfile.mkdtemp(prefix="stratoscope-shots-"))
    controller = AppController(config_directory=tmp / "config", sandbox_dir=tmp / "sandbox")
    window = MainWindow(controller)
    window.resize(1180, 820)
    window.show()
    saved: list[Path] = []

    def save(widget: QWidget, name: str) -> None:
        path = out / f"{name}-{theme}.png"
        widget.grab().save(str(path))
        saved.append(path)

    try:
        await controller.set_sandbox_gas(True)  # so that the faucet has something to do
        await controller.start()
        await controller.account.faucet()
        await controller.account.refresh()
        await settle(0.3)
        save(window, "main-window")
        save(window.panels[0], "account-panel")
        window.inspector.show()
        window.resizeDocks([window.inspector], [260], Qt.Orientation.Vertical)
        await settle(0.3)
        table = window.inspector.table
        table.selectRow(table.model().rowCount() - 1)
        await settle(0.2)
        save(window, "main-window-inspector")
        dialog = window.open_connection_dialog()
        await settle(0.2)
        save(dialog, "connection-dialog")
        dialog.close()
        # the composer: a sample compiled and deployed, a call being prepared
        composer = window.panels[1]
        window.nav.setCurrentRow(1)
        window.inspector.hide()
        src = (ROOT / "resources" / "contracts" / "Token.sol").read_text()
        composer.editor.setPlainText(src)  # type: ignore[attr-defined]
        composer.compile()  # type: ignore[attr-defined]
        await settle(0.5)
        composer.contract.setCurrentText("Token")  # type: ignore[attr-defined]
        args = composer.deploy_args.editors  # type: ignore[attr-defined]
        args["_name"].set_value("Demo token")
        args["_symbol"].set_value("DMO")
        args["_supply"].set_value("1e6")
        sheet = composer.deploy()  # type: ignore[attr-defined]
        await settle(0.3)
        save(sheet, "confirmation-sheet")
        sheet.send_button.click()
        await settle(0.8)
        fn = composer.function  # type: ignore[attr-defined]
        fn.setCurrentIndex(fn.findData("transfer"))
        call = composer.call_args.editors  # type: ignore[attr-defined]
        call["to"].set_value(await bob_address(controller))
        call["amount"].set_value(250)
        await settle(0.3)
        save(window, "composer")
        tx = composer.last_results[0].hash  # type: ignore[attr-defined]
        inspector = window.open_transaction(tx)
        await settle(0.8)
        save(inspector, "transaction-inspector")
        inspector.close()
        # the Tables panel on the identity registry's certificates, filtered with the builder
        tables = window.panels[2]
        window.nav.setCurrentRow(2)
        await settle(0.5)
        tables.open_table("Certificate")  # type: ignore[attr-defined]
        await settle(0.5)
        builder = tables.builder  # type: ignore[attr-defined]
        builder.query_text.setText(
            "select=commonName,organization,organizationalUnit,userAddress"
            "&or=(organization.eq.Acme,and(organizationalUnit.ilike.*log*,commonName.not.eq.dave))"
            "&order=organization,commonName"
        )
        builder.apply_text()
        await settle(0.8)
        builder.tree.setCurrentIndex(builder.model.index(1, 0, builder.model.index(0, 0)))
        tables.view.clicked.emit(tables.model.index(0, 0))  # type: ignore[attr-defined]
        await settle(0.2)
        save(window, "tables")
        # the Chains panel on the demo app's realm, and the create-chain wizard's review
        chains = window.panels[3]
        window.nav.setCurrentRow(3)
        await settle(1.0)
        chains.tree.expandAll()  # type: ignore[attr-defined]
        realm = chains.tree.model().index(0, 0, chains.tree.model().index(0, 0))  # type: ignore[attr-defined]
        chains.tree.setCurrentIndex(realm)  # type: ignore[attr-defined]
        await settle(1.0)
        save(window, "chains")
        wizard = chains.open_create_dialog()  # type: ignore[attr-defined]
        await settle(1.0)
        wizard.label.setText("Supply chain")
        wizard.compile()
        await settle(1.0)
        wizard.go_to("Review")
        await settle(0.3)
        save(wizard, "create-chain")
        wizard.discard()  # typed into: close() would ask first
        await shoot_later_panels(window, save, tmp)
        window.nav.setCurrentRow(0)
        await controller.switch_user("dave")
        await controller.account.refresh()
        await settle(0.2)
        save(window.panels[0], "account-panel-no-identity")
    finally:
        await controller.shutdown()
        window.deleteLater()
    return saved


async def until(check: Callable[[], bool], seconds: float = 20.0) -> None:
    """Run the loop until ``check()`` holds, or ``seconds`` pass (the shot shows what is there)."""
    for _ in range(int(seconds / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)


async def shoot_later_panels(window: Any, save: Callable[[Any, str], None], tmp: Path) -> None:
    """Assets, Files and Dashboard with something in them; the welcome and the tour."""
    from app.ui.panels.assets.panel import AssetsPanel
    from app.ui.panels.dashboard.panel import DashboardPanel
    from app.ui.panels.files.panel import FilesPanel
    from app.ui.shell.welcome_dialog import WelcomeDialog

    controller = window.controller
    client = controller.session.client
    await controller.account.faucet()  # the composer's shots spent alice's first tokens
    # -- assets: three cars, one repainted
    cars = (
        ("1HGCM82633A004352", "red", "Accord", 1400),
        ("5YJ3E1EA7KF317000", "white", "Model 3", 1750),
        ("WVWZZZ1JZXW000001", "blue", "Golf", 1200),
    )
    shards = []
    for vin, colour, model, weight in cars:
        made = await client.create_asset(
            "/apps/CarDemo", "car", {"vin": vin, "color": colour, "model": model, "weight": weight}
        )
        shards.append(str(made["chainIds"][0]))
    gov = "0000000000000000000000000000000000000100"
    await client.update_asset("/apps/CarDemo", "car", gov, shards[0], {"color": "green"})
    assets = next(p for p in window.panels if isinstance(p, AssetsPanel))
    window.nav.setCurrentRow(window.panels.index(assets))
    await until(lambda: assets.loaded and len(assets.visible_chains()) >= 3)
    assets.select(shards[0])
    await until(lambda: len(assets.timeline_rows()) >= 2)
    await settle(0.5)
    save(window, "assets")
    # -- files: a report hashed here, uploaded, attested by its uploader and verified
    files = next(p for p in window.panels if isinstance(p, FilesPanel))
    window.nav.setCurrentRow(window.panels.index(files))
    report = tmp / "inspection-report.pdf"
    report.write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 4000)
    files.choose_file(str(report))
    await until(files.upload_button.isEnabled)
    files.metadata.setText("vehicle inspection, VIN 1HGCM82633A004352")
    files.upload_button.click()
    await until(lambda: files.upload_status.text().startswith(("✔", "✘")))
    await until(lambda: files.selected() is not None)
    files.verify()
    await settle(1.5)
    save(window, "files")
    # -- the dashboard over the last 100 blocks
    dash = next(p for p in window.panels if isinstance(p, DashboardPanel))
    window.nav.setCurrentRow(window.panels.index(dash))
    dash.window_box.setCurrentIndex(dash.window_box.findData(100))
    await settle(3.0)
    dash.redraw()
    await settle(0.5)
    save(window, "dashboard")
    # -- first run: the welcome, then the tour's step on the composer
    window.nav.setCurrentRow(0)
    welcome = WelcomeDialog(controller, window)
    welcome.show()
    await settle(0.3)
    save(welcome, "welcome")
    welcome.close()
    tour = window.start_tour()
    tour.go(2)
    await settle(0.4)
    save_composite(window, tour, save)
    tour.close()


def save_composite(window: Any, dialog: Any, save: Callable[[Any, str], None]) -> None:
    """The window with the (top-level) tour drawn where it stands over it."""
    from PySide6.QtGui import QPainter
    from PySide6.QtWidgets import QLabel

    shot = window.grab()
    at = window.mapFromGlobal(dialog.mapToGlobal(dialog.rect().topLeft()))
    at.setX(max(0, min(at.x(), shot.width() - dialog.width())))
    at.setY(max(0, min(at.y(), shot.height() - dialog.height())))
    painter = QPainter(shot)
    painter.drawPixmap(at, dialog.grab())
    painter.end()
    holder = QLabel()
    holder.setPixmap(shot)
    holder.resize(shot.size())
    save(holder, "tour")


async def bob_address(controller: object) -> str:
    from app.services.controller import AppController

    assert isinstance(controller, AppController)
    users = dict(await controller.composer.users())
    return users["bob"]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    p.add_argument("--theme", choices=("light", "dark"), default="light")
    args = p.parse_args()
    import qasync
    from PySide6.QtWidgets import QApplication

    from app.ui.shell.theme import apply_theme

    app = QApplication([sys.argv[0]])
    apply_theme(app, args.theme)
    args.out.mkdir(parents=True, exist_ok=True)
    loop = qasync.QEventLoop(app)
    loop.set_default_executor(ThreadPoolExecutor(2))  # as the app does: no QThread pool
    asyncio.set_event_loop(loop)
    with loop:
        saved = loop.run_until_complete(shoot(args.out, args.theme))
    for path in saved:
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    del app
    import gc

    gc.collect()
    return 0


if __name__ == "__main__":
    sys.exit(main())
