"""Issue 29 item 9, with the app's own embedded sandbox (gas off, the default): the faucet box
says what the faucet does on a gas-free node before anyone clicks, a click says "nothing sent"
and why, and *Restart the sandbox charging gas…* (after a question) brings a node on which the
faucet funds the account. Against a node that is not the sandbox there is no such button."""

from __future__ import annotations

import json
from pathlib import Path

import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from app.services.controller import AppController, sandbox_profile
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive
from tests.gui.test_account_send import account_panel
from tests.integration.node_fixture import RunningNode

LEFT = Qt.MouseButton.LeftButton


def test_gas_free_sandbox_faucet_explains_and_offers_a_gas_charging_restart(
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    profile = sandbox_profile()
    creds = loop.run_until_complete(controller.stored_credentials(profile, "alice"))
    loop.run_until_complete(controller.connect_profile(profile, creds))
    panel = account_panel(window)
    window.nav.setCurrentRow(0)
    session = controller.session
    drive(loop, lambda: session.health is not None and session.health.gas is False, 30)
    drive(loop, lambda: panel.view.loaded and panel.faucet_button.isEnabled(), 30)
    # before any click: what the faucet does here, and the way to a node that charges gas
    status = panel.faucet_status
    assert "Gas is off on this node: every transaction is free" in status.text()
    assert "restart the sandbox charging gas" in status.text()
    assert panel.charge_gas_button.isVisible()
    # a click: nothing sent, and why
    qtbot.mouseClick(panel.faucet_button, LEFT)
    drive(loop, lambda: status.text().startswith("Nothing sent."), 30)
    assert "every transaction is free" in status.text()

    # the offered way: a question first (Cancel does nothing), then a restart with gas
    qtbot.mouseClick(panel.charge_gas_button, LEFT)
    ask = panel.findChild(QMessageBox, "chargeGasAsk")
    assert isinstance(ask, QMessageBox) and ask.isVisible()
    assert "Its data stays" in ask.text()
    ask.button(QMessageBox.StandardButton.Cancel).click()
    assert controller.sandbox_gas is False
    qtbot.mouseClick(panel.charge_gas_button, LEFT)
    ask = next(a for a in panel.findChildren(QMessageBox, "chargeGasAsk") if a.isVisible())
    restart = next(b for b in ask.findChildren(QPushButton) if b.text() == "Restart charging gas")
    qtbot.mouseClick(restart, LEFT)
    drive(loop, lambda: session.health is not None and session.health.gas is True, 90)
    drive(loop, lambda: status.text().startswith("✔ The sandbox charges gas now"), 30)
    assert not panel.charge_gas_button.isVisible()
    settings = json.loads((tmp_path / "config" / "settings.json").read_text())
    assert settings["sandbox_gas"] is True  # the next start charges gas too
    drive(loop, lambda: panel.view.loaded and panel.faucet_button.isEnabled(), 30)
    qtbot.mouseClick(panel.faucet_button, LEFT)
    drive(loop, lambda: "sent tokens" in status.text() or status.text().startswith("✘"), 60)
    assert status.text() == "✔ The faucet sent tokens to this account."


def test_a_gas_free_node_that_is_not_the_sandbox_offers_no_restart(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    connect(loop, controller, node, "alice")
    panel = account_panel(window)
    window.nav.setCurrentRow(0)
    session = controller.session
    drive(loop, lambda: session.health is not None and session.health.gas is False)
    drive(loop, lambda: bool(panel.faucet_status.text()))
    assert "every transaction is free" in panel.faucet_status.text()
    assert "its operator decides about gas" in panel.faucet_status.text()
    assert not panel.charge_gas_button.isVisible()
