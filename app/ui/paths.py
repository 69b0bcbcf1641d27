"""Where the app's resources are: ``resources/`` at the top of the checkout (or of the bundle)."""

from __future__ import annotations

from pathlib import Path

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
