"""The transaction inspector's Trace tab (issue 28): the call tree of a real transaction on a real
sandbox node, the failing frame opened and marked, copy as text, and the failure's line opened
in the composer by a double-click; the model checked by pytest-qt's qtmodeltester."""

from __future__ import annotations

from typing import Any

import qasync
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QGuiApplication
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.ui.shell.main_window import MainWindow
from app.ui.shell.trace_model import POSITION_ROLE, TraceModel
from tests.gui.conftest import connect, drive
from tests.gui.test_composer import compile_source, confirm, panel_of
from tests.gui.test_tx_inspector import inspect
from tests.integration.node_fixture import RunningNode

SRC = """contract Inner {
    uint public n;
    event Bumped(uint by);
    function bump(uint by) returns (uint) {
        n += by;
        emit Bumped(by);
        require(by < 100, "too big");
        return n;
    }
}

contract Outer {
    Inner inner;
    uint public total;
    constructor() { inner = new Inner(); }
    function go(uint by) returns (uint) {
        total += by;
        return inner.bump(by);
    }
}
"""


def sample() -> dict[str, Any]:
    def frame(fn: str, items: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
        return {
            "type": "call",
            "kind": "call",
            "contract": "C",
            "address": "ab" * 20,
            "function": fn,
            "args": [],
            "status": "ok",
            "steps": 3,
            "items": items,
            **kw,
        }

    failed = frame(
        "inner",
        [{"type": "event", "name": "E", "args": [], "reverted": True}],
        status="failed",
        error={
            "kind": "revert",
            "message": "no",
            "position": {"name": "C", "line": 4, "column": 2},
        },
    )
    return {
        "frames": 3,
        "root": frame(
            "outer",
            [
                frame("ok", [{"type": "write", "variable": "x", "old": "0", "new": "1"}]),
                failed,
            ],
            status="failed",
            error={"kind": "revert", "message": "no"},
        ),
    }


def test_the_trace_model_passes_qtmodeltester(qtmodeltester: ModelTester) -> None:
    model = TraceModel()
    qtmodeltester.check(model)
    model.set_trace(sample())
    qtmodeltester.check(model)
    root = model.index(0, 0)
    assert model.rowCount(root) == 3  # two frames and the end line
    failing = model.failing_index()
    assert model.data(failing).startswith("[3] C(") and "::inner()" in model.data(failing)
    assert model.data(failing, POSITION_ROLE) == ("C", 4, 2)
    assert model.data(failing, Qt.ItemDataRole.ForegroundRole).color().name() == "#c0392b"
    model.set_trace(None)
    assert model.rowCount(QModelIndex()) == 0
    qtmodeltester.check(model)


def test_a_failed_transaction_opens_on_its_failing_frame(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    compile_source(loop, panel, SRC)
    panel.contract.setCurrentText("Outer")
    confirm(loop, panel, panel.deploy())
    panel.function.setCurrentIndex(panel.function.findData("go"))
    panel.call_args.editors["by"].set_value(500)
    confirm(loop, panel, panel.call())
    tx = panel.last_results[0].hash
    assert panel.last_results[0].status == "Failure"

    dialog = inspect(qtbot, loop, window, tx)
    view = dialog.inspector.trace
    drive(loop, lambda: view.model.trace is not None, 30)
    dialog.inspector.tabs.setCurrentWidget(view)
    tree = view.tree
    current = tree.currentIndex()
    assert current.isValid() and "Inner(" in current.data() and "::bump(by: 500)" in current.data()
    assert tree.isExpanded(current) and tree.isExpanded(current.parent())
    assert "Failed in the frame marked in red at Inner line 7" in view.note.text()
    end = view.model.index(view.model.rowCount(current) - 1, 0, current)
    assert end.data().startswith("← [Fail] solidity require failed: too big at Inner:7:")
    event = view.model.index(1, 0, current)
    assert event.data() == "emit Bumped(by: 500) (reverted)"

    qtbot.mouseClick(view.copy_button, Qt.MouseButton.LeftButton)
    copied = QGuiApplication.clipboard().text()
    assert copied.splitlines()[0].startswith("[") and "Outer(" in copied.splitlines()[0]
    assert "  │  └─ ← [Fail] solidity require failed: too big at Inner:7:" in copied

    # Enter (or a double-click) on the failed frame opens the composer at the failing line
    tree.setFocus()
    qtbot.keyClick(tree, Qt.Key.Key_Return)
    drive(loop, lambda: window.stack.currentWidget() is panel, 10)
    editor = panel.source.scratch().editor
    assert editor.textCursor().blockNumber() + 1 == 7
    assert "require(by < 100" in editor.textCursor().block().text()
    dialog.close()
