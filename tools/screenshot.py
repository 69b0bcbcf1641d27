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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


async def settle(seconds: float) -> None:
    await asyncio.sleep(seconds)


async def shoot(out: Path, theme: str) -> list[Path]:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QWidget

    from app.services.controller import AppController
    from app.ui.main_window import MainWindow

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
        wizard.close()
        window.nav.setCurrentRow(0)
        await controller.switch_user("dave")
        await controller.account.refresh()
        await settle(0.2)
        save(window.panels[0], "account-panel-no-identity")
    finally:
        await controller.shutdown()
        window.deleteLater()
    return saved


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

    from app.ui.theme import apply_theme

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
