"""Small helpers of the composer's forms: how arguments read in a one-line description, and
combo boxes that elide long entries instead of widening the pane."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox


def args_text(args: dict[str, Any]) -> str:
    text = ", ".join(f"{k}: {json.dumps(v)}" for k, v in args.items())
    return text if len(text) < 300 else text[:297] + "…"


def compact(combo: QComboBox, chars: int = 16) -> None:
    """Long entries (function signatures, contract lists) elide instead of widening the pane;
    the popup still shows them whole."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(chars)
    combo.view().setTextElideMode(Qt.TextElideMode.ElideNone)
