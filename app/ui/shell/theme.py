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


THEMES = ("system", "light", "dark")
_state = {"override": "system", "watching": False}


def current_theme() -> str:
    """The scheme chosen last (``system``, ``light`` or ``dark``)."""
    return str(_state["override"])


def scheme_is_dark(override: str | None = None) -> bool:
    """Whether the scheme in use (or ``override``) is dark."""
    override = current_theme() if override is None else override
    if override in ("dark", "light"):
        return override == "dark"
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


def apply_theme(app: QApplication, override: str = "system") -> None:
    """Fusion everywhere (consistent on every desktop), with the palette of the scheme; with
    ``system`` it follows the desktop's scheme live. May be called again to switch."""
    _state["override"] = override if override in THEMES else "system"
    if app.style().name().lower() != "fusion":
        app.setStyle("Fusion")

    def update() -> None:
        dark = scheme_is_dark()
        app.setPalette(dark_palette() if dark else app.style().standardPalette())

    def on_scheme(_scheme: object) -> None:
        if current_theme() == "system":
            update()

    update()
    if not _state["watching"]:  # one connection, whatever the number of switches
        _state["watching"] = True
        app.styleHints().colorSchemeChanged.connect(on_scheme)
