"""The composer's scenario bar: record what is sent, save it, replay a scenario file.

Split from the panel (its own job); results and errors still show in the panel's result area.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.client.abi_types import FunctionSpec
from app.client.models import TxResult
from app.client.scenario import ReplayStep, Scenario
from app.services.composer import Preview
from app.services.controller import AppController
from app.ui.widgets.common import name_widget, while_alive
from app.ui.widgets.confirm_dialog import ConfirmDialog
from app.ui.widgets.file_places import SCENARIO, place_dialog


class ScenarioBar(QWidget):
    """Signals: replaying(): a replay was confirmed and starts."""

    replaying = Signal()

    def __init__(
        self,
        controller: AppController,
        show_results: Callable[[list[TxResult], list[FunctionSpec | None]], None],
        show_error: Callable[[str], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.composer = controller.composer
        self.show_results = show_results
        self._show_error = show_error
        self.scenario: Scenario | None = None
        self.record_button = self._button("● Record", "composerRecord", "Record a scenario")
        self.record_button.setCheckable(True)
        self.record_button.setToolTip(
            "Record what you send as a scenario (created addresses become placeholders)"
        )
        self.record_button.toggled.connect(self._record_toggled)
        self.save_scenario_button = self._button(
            "Save scenario…", "composerSaveScenario", "Save the recorded scenario"
        )
        self.save_scenario_button.clicked.connect(self.save_scenario)
        self.save_scenario_button.setEnabled(False)
        self.replay_button = self._button("Replay…", "composerReplay", "Replay a scenario file")
        self.replay_button.clicked.connect(self.open_scenario)
        self.scenario_status = QLabel("", self)
        name_widget(self.scenario_status, "composerScenarioStatus", "Scenario status")
        # on its own line under the buttons: what it says never widens the composer's column
        # (that squeezed the project sidebar to its tabs' scroll arrows), it wraps there
        self.scenario_status.setWordWrap(True)
        self.scenario_status.setSizePolicy(
            QSizePolicy.Policy.Ignored, self.scenario_status.sizePolicy().verticalPolicy()
        )
        self.composer.recording_changed.connect(self._on_recording)
        self.composer.replay_progress.connect(self._on_replay_progress)
        self.composer.result.connect(self._on_sent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(2)
        lay = QHBoxLayout()
        lay.addWidget(self.record_button)
        lay.addWidget(self.save_scenario_button)
        lay.addWidget(self.replay_button)
        lay.addStretch(1)
        outer.addLayout(lay)
        outer.addWidget(self.scenario_status)

    def _button(self, text: str, name: str, accessible: str) -> QPushButton:
        b = QPushButton(text, self)
        name_widget(b, name, accessible)
        return b

    def _record_toggled(self, on: bool) -> None:
        if on:
            self.controller.tasks.start(
                "Starting the recorder",
                self.composer.start_recording(),
                on_error=while_alive(self, self._record_failed),
            )
        elif self.composer.recorder is not None:
            self.scenario = self.composer.stop_recording()
            n = len(self.scenario.steps)
            self.scenario_status.setText(f"Recorded {n} step(s): Save scenario… to keep them")
            self.save_scenario_button.setEnabled(True)

    def _record_failed(self, text: str) -> None:
        self.record_button.setChecked(False)
        self._show_error(text)

    def _on_recording(self, on: bool) -> None:
        self.record_button.setText("■ Stop recording" if on else "● Record")
        if on:
            self.scenario_status.setText("Recording: 0 step(s)")

    def _on_sent(self, _result: TxResult) -> None:
        rec = self.composer.recorder
        if rec is not None:
            self.scenario_status.setText(f"Recording: {len(rec.scenario.steps)} step(s)")

    def save_scenario(self) -> QFileDialog | None:
        if self.scenario is None:
            return None
        return place_dialog(
            self,
            self.controller,
            SCENARIO,
            "Save the scenario",
            "Scenario (*.json)",
            self.save_scenario_to,
            save_suffix="json",
            suggested=f"scenario-{time.strftime('%Y-%m-%d-%H%M')}.json",
        )

    def save_scenario_to(self, name: str) -> None:
        if self.scenario is None:
            return
        text, path = self.scenario.dumps(), Path(name)
        self.controller.tasks.start(
            f"Saving {path.name}",
            asyncio.to_thread(path.write_text, text, encoding="utf-8"),
            on_done=while_alive(
                self, lambda _r: self.scenario_status.setText(f"Scenario saved to {path}")
            ),
        )

    def open_scenario(self) -> QFileDialog:
        return place_dialog(
            self,
            self.controller,
            SCENARIO,
            "Replay a scenario",
            "Scenario (*.json);;All (*)",
            self.replay_file,
        )

    def replay_file(self, name: str) -> None:
        path = Path(name)

        async def load() -> Scenario:
            return Scenario.loads(await asyncio.to_thread(path.read_text, encoding="utf-8"))

        self.controller.tasks.start(
            f"Reading {path.name}",
            load(),
            on_done=while_alive(self, self.confirm_replay),
            on_error=while_alive(self, self._show_error),
        )

    def confirm_replay(self, scenario: Scenario) -> ConfirmDialog | None:
        client = self.controller.session.client
        if client is None:
            self._show_error("not connected")
            return None
        preview = Preview(
            "POST",
            f"{client.base_url}{client.svc_prefix()}/transaction?resolve=true (once per step)",
            {"steps": [s.to_json() for s in scenario.steps]},
            self.controller.session.username,
            "as recorded per step",
        )
        notes = [s.note or f"{len(s.txs)} transaction(s)" for s in scenario.steps]
        dialog = ConfirmDialog(preview, notes, self)
        dialog.setWindowTitle(f"Replay {len(scenario.steps)} step(s)?")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self._replay(scenario))
        dialog.open()
        return dialog

    def _replay(self, scenario: Scenario) -> None:
        self.replaying.emit()

        def done(steps: list[ReplayStep]) -> None:
            results = [r for s in steps for r in s.results]
            functions = [
                s.functions[i] if i < len(s.functions) else None
                for s in steps
                for i in range(len(s.results))
            ]
            self.show_results(results, functions)
            failed = any(r.status == "Failure" for r in results)
            self.scenario_status.setText(
                f"Replayed {len(steps)} of {len(scenario.steps)} step(s)"
                + (": stopped at a failure" if failed else "")
            )

        self.controller.tasks.start(
            "Replaying a scenario",
            self.composer.replay(scenario),
            on_done=while_alive(self, done),
            on_error=while_alive(self, self._show_error),
        )

    def _on_replay_progress(self, done: int, total: int) -> None:
        self.scenario_status.setText(f"Replaying: {done} of {total} step(s)")
