"""The menu bar (File, Edit, View, Go, Tools, Help) and the About dialog.

Every action of the window is in a menu with its shortcut shown, so it can be found and reached
without the mouse. A panel adds its own actions with a ``menu_actions()`` method returning
``{"File": [QAction, ...], "Edit": [...], "View": [...], "Tools": [...]}``: they appear in those
menus under a section named after the panel, and are visible (and their shortcuts active) only
while that panel is shown. Give them icons with ``app.ui.shell.icons.set_icon``.
"""

from __future__ import annotations

import platform
import sys
from html import escape
from typing import TYPE_CHECKING

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QVBoxLayout,
    QWidget,
)

from app import __version__ as app_version
from app.ui.shell.icons import app_icon
from app.ui.shell.theme import THEMES, current_theme
from app.ui.widgets.common import name_widget

if TYPE_CHECKING:
    from app.ui.shell.main_window import MainWindow

MENUS = ("File", "Edit", "View", "Go", "Tools", "Help")
PANEL_MENUS = ("File", "Edit", "View", "Tools")


def make_action(
    window: QWidget, text: str, name: str, shortcut: str | QKeySequence.StandardKey = ""
) -> QAction:
    act = QAction(text, window)
    act.setObjectName(name)
    if shortcut:
        act.setShortcut(QKeySequence(shortcut))
        act.setToolTip(f"{text.rstrip('…')} ({act.shortcut().toString()})")
    return act


def build_menus(window: MainWindow) -> dict[str, QMenu]:
    """Fill the window's menu bar with its actions (made by the window before this runs)."""
    bar = window.menuBar()
    bar.setObjectName("menuBar")
    menus: dict[str, QMenu] = {}
    for title in MENUS:
        menu = bar.addMenu(f"&{title}")
        menu.setObjectName(f"menu{title}")
        menus[title] = menu

    file = menus["File"]
    file.addAction(window.connect_action)
    window.panel_sections["File"] = file.addSeparator()
    file.addSeparator()
    file.addAction(window.quit_action)

    edit = menus["Edit"]
    edit.addAction(window.copy_action)
    edit.addAction(window.find_action)
    window.panel_sections["Edit"] = edit.addSeparator()

    view = menus["View"]
    view.addAction(window.inspector_action)
    view.addAction(window.log_action)
    view.addAction(window.debug_action)
    view.addSeparator()
    theme = view.addMenu("&Theme")
    theme.setObjectName("menuTheme")
    group = QActionGroup(theme)
    for name in THEMES:
        act = QAction(name.capitalize(), theme)
        act.setObjectName(f"actionTheme{name.capitalize()}")
        act.setCheckable(True)
        act.setChecked(name == current_theme())
        act.setData(name)
        act.triggered.connect(lambda _checked=False, n=name: window.set_theme(n))
        group.addAction(act)
        theme.addAction(act)
        window.theme_actions[name] = act
    view.addSeparator()
    view.addAction(window.refresh_action)
    window.panel_sections["View"] = view.addSeparator()

    go = menus["Go"]
    for act in window.panel_actions:
        go.addAction(act)
    go.addSeparator()
    go.addAction(window.back_action)
    go.addAction(window.forward_action)

    tools = menus["Tools"]
    tools.addAction(window.switch_user_action)
    tools.addAction(window.restart_action)
    window.panel_sections["Tools"] = tools.addSeparator()

    help_ = menus["Help"]
    help_.addAction(window.tour_action)
    help_.addSeparator()
    help_.addAction(window.about_action)
    return menus


def add_panel_actions(window: MainWindow, menus: dict[str, QMenu]) -> dict[int, list[QAction]]:
    """The actions panels contribute (``menu_actions()``), by panel index."""
    found: dict[int, list[QAction]] = {}
    for index, panel in enumerate(window.panels):
        provider = getattr(panel, "menu_actions", None)
        if not callable(provider):
            continue
        title = str(getattr(panel, "title", panel.objectName()))
        for menu_name, actions in dict(provider()).items():
            menu = menus.get(menu_name if menu_name in PANEL_MENUS else "Tools")
            if menu is None or not actions:
                continue
            section = QAction(title, menu)
            section.setSeparator(True)
            section.setText(title)
            anchor = window.panel_sections.get(menu_name)
            menu.insertAction(anchor, section) if anchor else menu.addAction(section)
            for act in actions:
                menu.insertAction(anchor, act) if anchor else menu.addAction(act)
                window.addAction(act)  # the shortcut works with the menu closed
            found.setdefault(index, []).extend([section, *actions])
    return found


def versions(window: MainWindow) -> list[tuple[str, str]]:
    """What the About dialog lists: the app, Qt, PySide6, Python and the node's version."""
    session = window.controller.session
    health = session.health
    if session.state == "connected" and health is not None:
        name = str(health.raw.get("name") or "node")
        node = f"{name} {health.version or '(version not reported)'} at {session.node_url}"
    elif session.node_url:
        node = f"{session.node_url}: {session.state}"
    else:
        node = "not connected"
    return [
        ("Stratoscope", app_version),
        ("Qt", qVersion()),
        ("PySide6", pyside_version),
        ("Python", f"{platform.python_version()} ({sys.implementation.name})"),
        ("Node", node),
    ]


class AboutDialog(QDialog):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.setObjectName("aboutDialog")
        self.setWindowTitle("About Stratoscope")
        icon = QLabel(self)
        icon.setPixmap(app_icon().pixmap(64, 64))
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.versions = versions(window)
        rows = "".join(
            f"<tr><td><b>{escape(k)}</b>&nbsp;&nbsp;</td><td>{escape(v)}</td></tr>"
            for k, v in self.versions
        )
        self.text = QLabel(
            "<h3>Stratoscope</h3><p>A desktop explorer and wallet for the STRATO blockchain "
            f"platform, with a built-in sandbox node.</p><table>{rows}</table>",
            self,
        )
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.text.setMinimumWidth(420)  # a node URL on one line
        name_widget(self.text, "aboutText", "Versions")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        close = buttons.button(QDialogButtonBox.StandardButton.Close)
        name_widget(close, "aboutClose", "Close")
        top = QHBoxLayout()
        top.addWidget(icon)
        top.addWidget(self.text, 1)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(buttons)
        close.setDefault(True)
        close.setFocus()

    def plain_text(self) -> str:
        """The versions as plain text (what a bug report needs)."""
        return "\n".join(f"{k}: {v}" for k, v in self.versions)
