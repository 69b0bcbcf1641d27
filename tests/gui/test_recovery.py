"""Recovery from a node that stops answering, on real nodes: an error about reaching the node is
over once it answers again, and the embedded sandbox's death shows in the health at once."""

from __future__ import annotations

import pytest
import qasync

from app.services.controller import AppController
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive
from tests.integration.conftest import make_node


def message_text(window: MainWindow) -> str:
    return window.message_bar.text.text() if window.message_bar.isVisible() else ""


def test_cannot_reach_the_node_clears_itself_when_it_answers_again(
    tmp_path_factory: pytest.TempPathFactory,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    own = make_node(tmp_path_factory, name="comeback")
    try:
        connect(loop, controller, own, "alice")
        controller.session.health_interval = 0.1
        own.kill9()
        task = controller.tasks.start("Reading the contracts", controller.composer.contracts())
        drive(loop, task.done, 30)
        assert "cannot reach the node" in message_text(window)
        drive(loop, lambda: controller.session.state == "unreachable", 30)
        own.restart()
        drive(loop, lambda: controller.session.state == "connected", 30)
        drive(loop, lambda: controller.session.health is not None)
        assert message_text(window) == ""
        assert window.status_health.property("level") == "ok"
        # any other error stays until dismissed
        controller.message.emit("error", "Something else", "went wrong", "")
        loop.run_until_complete(controller.session.poll_health())
        assert "went wrong" in message_text(window)
    finally:
        loop.run_until_complete(controller.shutdown())  # disconnect before the node goes
        own.stop()


def test_the_sandbox_dying_turns_the_health_red_at_once_and_its_message_stays(
    controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    controller.session.health_interval = 3600  # no poll: the process's exit alone must tell
    controller.tasks.start("Connecting", controller.start())
    drive(loop, lambda: controller.account.view.loaded and controller.account.view.address, 60)
    assert window.status_health.property("level") == "ok"
    proc = controller.sandbox._proc
    assert proc is not None
    proc.kill()
    drive(loop, lambda: controller.sandbox.state == "crashed")
    assert window.status_health.property("level") == "error"
    assert "not answering" in window.status_health.text()
    assert "Sandbox node stopped" in message_text(window)
    # a refresh that cannot reach the node keeps the message that offers the restart
    task = controller.tasks.start("Reading the contracts", controller.composer.contracts())
    drive(loop, task.done, 30)
    assert "Sandbox node stopped" in message_text(window)
    assert window.message_bar.action.text() == "Restart sandbox"
    assert any("cannot reach" in text for _, _, text in window.message_bar.history)
    window.message_bar.action.click()
    drive(
        loop,
        lambda: controller.sandbox.state == "running" and controller.session.state == "connected",
        60,
    )
    assert message_text(window) == ""
    assert window.status_health.property("level") == "ok"
