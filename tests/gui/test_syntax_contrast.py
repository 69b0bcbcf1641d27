"""The editor's syntax colours are readable in both themes: WCAG AA's 4.5:1 contrast of every
colour against the editor's background, and an editor follows a theme switch."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from app.ui.shell.theme import apply_theme, current_theme, dark_palette
from app.ui.widgets.source_editor import (
    DARK_EDITOR_BACKGROUND,
    LIGHT_EDITOR_BACKGROUND,
    SYNTAX_DARK,
    SYNTAX_LIGHT,
    SourceEditor,
)

AA = 4.5


def luminance(colour: QColor) -> float:
    """WCAG 2's relative luminance of an sRGB colour."""

    def channel(v: float) -> float:
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(x) for x in (colour.redF(), colour.greenF(), colour.blueF()))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str | QColor, b: str | QColor) -> float:
    la, lb = luminance(QColor(a)), luminance(QColor(b))
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def test_the_contrast_formula() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#7a1fa2", "#1e2024") == pytest.approx(1.98, abs=0.01)  # the report's 2:1


@pytest.mark.parametrize(
    ("palette", "background"),
    [(SYNTAX_LIGHT, LIGHT_EDITOR_BACKGROUND), (SYNTAX_DARK, DARK_EDITOR_BACKGROUND)],
    ids=["light", "dark"],
)
def test_every_syntax_colour_meets_aa_against_its_background(
    palette: dict[str, str], background: str
) -> None:
    ratios = {name: round(contrast(colour, background), 2) for name, colour in palette.items()}
    assert set(palette) >= {"keyword", "type", "number", "string", "comment", "function"}
    assert all(r >= AA for r in ratios.values()), ratios


def test_the_declared_backgrounds_are_the_themes_editor_backgrounds(qapp: QApplication) -> None:
    assert dark_palette().color(QPalette.ColorRole.Base) == QColor(DARK_EDITOR_BACKGROUND)
    light = qapp.style().standardPalette().color(QPalette.ColorRole.Base)
    assert contrast(light, LIGHT_EDITOR_BACKGROUND) < 1.05  # white, or as good as


@pytest.fixture
def restore_theme(qapp: QApplication) -> Iterator[None]:
    before = current_theme()
    yield
    apply_theme(qapp, before)


def test_an_open_editor_takes_the_colours_of_a_theme_switched_to(
    qapp: QApplication, restore_theme: None
) -> None:
    apply_theme(qapp, "light")
    editor = SourceEditor(dark=False)
    editor.setPlainText('contract C { string s = "x"; }')
    apply_theme(qapp, "dark")
    QApplication.processEvents()
    h = editor.highlighter
    background = editor.palette().base().color()
    assert h.dark
    for name in ("keyword", "string", "comment"):
        colour = h.capture_formats[name].foreground().color()
        assert contrast(colour, background) >= AA, name
    apply_theme(qapp, "light")
    QApplication.processEvents()
    assert not h.dark
    background = editor.palette().base().color()
    colour = h.capture_formats["keyword"].foreground().color()
    assert contrast(colour, background) >= AA
    editor.deleteLater()
