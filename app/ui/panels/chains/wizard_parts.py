"""Parts of the creation wizard: its last page (who signs, where the chain goes, what keeps the
request from being sent, the exact request, the node's answer) and small helpers of its pages."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.services.composer import Preview
from app.ui.panels.chains.models import ChoiceModel
from app.ui.widgets.common import CopyField, name_widget

ERROR = "color: #c0392b;"


def hint(text: str, parent: QWidget) -> QLabel:
    """A word-wrapped line of explanation on a page."""
    label = QLabel(text, parent)
    label.setWordWrap(True)
    return label


def fill(combo: QComboBox, items: list[tuple[str, Any]]) -> None:
    """Replace a combo's items (its model is a ChoiceModel: lists here can be long)."""
    model = combo.model()
    assert isinstance(model, ChoiceModel)
    model.set_items(items)
    combo.setCurrentIndex(0 if items else -1)


def table_view(parent: QWidget, model: Any, name: str, accessible: str) -> QTableView:
    """An editable list of rows (members, balances); Tab leaves it, arrows move in it."""
    view = QTableView(parent)
    view.setModel(model)
    name_widget(view, name, accessible)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    view.verticalHeader().setVisible(False)
    view.setTabKeyNavigation(False)
    view.setMinimumHeight(100)
    return view


class ReviewPage(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.signer = QLabel("", self)
        name_widget(self.signer, "createChainSigner", "Created by")
        self.where = QLabel("", self)
        name_widget(self.where, "createChainWhere", "Where the chain goes")
        self.problems = QLabel("", self)
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet(ERROR)
        name_widget(self.problems, "createChainProblems", "Problems to fix first")
        self.warnings = QLabel("", self)
        self.warnings.setWordWrap(True)
        self.warnings.setStyleSheet("color: #b7791f;")
        name_widget(self.warnings, "createChainWarnings", "Warnings")
        self.request = QPlainTextEdit(self)
        self.request.setReadOnly(True)
        self.request.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.request.setMinimumHeight(80)
        name_widget(self.request, "createChainRequest", "The HTTP request")
        self.copy_curl = QPushButton("Copy as curl", self)
        name_widget(self.copy_curl, "createChainCopyCurl", "Copy the request as curl")
        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        name_widget(self.status, "createChainStatus", "Result")
        self.new_id = CopyField("createChainNewId", "Chain ID", self)
        self.new_id.setVisible(False)
        form = QFormLayout()
        form.addRow("Signer", self.signer)
        form.addRow("Chain", self.where)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.problems)
        lay.addWidget(self.warnings)
        row = QHBoxLayout()
        row.addWidget(QLabel("Request", self))
        row.addStretch(1)
        row.addWidget(self.copy_curl)
        lay.addLayout(row)
        lay.addWidget(self.request, 1)
        lay.addWidget(self.status)
        lay.addWidget(self.new_id)

    def show_draft(self, preview: Preview | None, problems: list[str], warnings: list[str]) -> None:
        self.problems.setText("\n".join(f"✘ {p}" for p in problems))
        self.warnings.setText("\n".join(f"⚠ {w}" for w in warnings))
        if preview is not None:
            p = preview
            self.signer.setText(f"<b>{p.signer}</b> (the node signs with this user's key)")
            self.where.setText(p.chain)
            self.request.setPlainText(f"{p.method} {p.url}\n\n{json.dumps(p.body, indent=2)}")
        self.copy_curl.setEnabled(preview is not None)
