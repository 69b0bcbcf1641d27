"""Follow the system's light or dark colour scheme (Fusion style, palette switched live)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication


def dark_palette() -> QPalette:
    p = QPalette()
    base, alt, text = QColor(30, 32, 36), QColor(42, 45, 50), QColor(224, 226, 230)
    role = QPalette.ColorRole
    for r, c in (
        (role.Window, alt),
        (role.WindowText, text),
        (role.Base, base),
        (role.AlternateBase, alt),
        (role.ToolTipBase, base),
        (role.ToolTipText, text),
        (role.Text, text),
        (role.Button, alt),
        (role.ButtonText, text),
        (role.BrightText, QColor(255, 90, 90)),
        (role.Link, QColor(110, 170, 255)),
        (role.Highlight, QColor(60, 120, 215)),
        (role.HighlightedText, QColor(255, 255, 255)),
        (role.PlaceholderText, QColor(140, 144, 150)),
    ):
        p.setColor(r, c)
    disabled = QPalette.ColorGroup.Disabled
    for r in (role.Text, role.ButtonText, role.WindowText):
        p.setColor(disabled, r, QColor(120, 124, 130))
    return p


def scheme_is_dark(override: str = "system") -> bool:
    if override in ("dark", "light"):
        return override == "dark"
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


def apply_theme(app: QApplication, override: str = "system") -> None:
    """Fusion everywhere (consistent on every desktop), with the palette of the scheme."""
    app.setStyle("Fusion")

    def update() -> None:
        style = app.style()
        app.setPalette(dark_palette() if scheme_is_dark(override) else style.standardPalette())

    update()
    if override == "system":
        app.styleHints().colorSchemeChanged.connect(lambda _s: update())
