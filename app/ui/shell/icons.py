"""The app's identity on the desktop: its icon and the id of its desktop entry.

The icon is one SVG (``resources/icons/stratoscope.svg``); Qt scales it for every size, through
the ``svg`` icon engine plugin. ``APP_ID`` is the name of the desktop entry and AppStream
metainfo in ``packaging/`` (and the Wayland app id), so the desktop shows the right icon for the
running window.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QAbstractButton

from app.ui.paths import RESOURCES

APP_ID = "io.github.stratoscope.Stratoscope"
ICON_PATH = RESOURCES / "icons" / "stratoscope.svg"


def app_icon() -> QIcon:
    """The app's icon (a null icon when the SVG or Qt's svg plugin is missing)."""
    return QIcon(str(ICON_PATH)) if ICON_PATH.exists() else QIcon()


# -- icons of the UI: one maintained icon set (Material Design Icons through qtawesome)

# the app's names for what an icon shows -> the icon set's names; any "prefix.name" of qtawesome
# (e.g. "mdi6.car") is accepted as it is
ICONS = {
    "account": "mdi6.account-circle-outline",
    "assets": "mdi6.car-outline",
    "composer": "mdi6.file-code-outline",
    "tables": "mdi6.table",
    "files": "mdi6.file-document-multiple-outline",
    "chains": "mdi6.link-variant",
    "dashboard": "mdi6.chart-line",
    "panel": "mdi6.view-dashboard-outline",
    "connect": "mdi6.lan-connect",
    "refresh": "mdi6.refresh",
    "inspector": "mdi6.swap-vertical",
    "log": "mdi6.text-box-outline",
    "search": "mdi6.magnify",
    "copy": "mdi6.content-copy",
    "quit": "mdi6.exit-to-app",
    "about": "mdi6.information-outline",
    "tour": "mdi6.map-marker-path",
    "restart": "mdi6.restart",
    "user": "mdi6.account-switch-outline",
    "back": "mdi6.arrow-left",
    "forward": "mdi6.arrow-right",
    "theme": "mdi6.theme-light-dark",
    "open": "mdi6.folder-open-outline",
    "save": "mdi6.content-save-outline",
}
ICON_PROPERTY = "iconName"  # a QAction/QAbstractButton with this property is re-tinted by retint()

_cache: dict[tuple[str, str, str], QIcon] = {}


def _colours() -> tuple[str, str]:
    """The palette's text colour and its disabled variant: icons read like the text beside them."""
    pal = QGuiApplication.palette()
    role = QPalette.ColorRole.WindowText
    return (
        pal.color(QPalette.ColorGroup.Normal, role).name(),
        pal.color(QPalette.ColorGroup.Disabled, role).name(),
    )


def icon(name: str) -> QIcon:
    """The icon ``name`` (a key of :data:`ICONS` or a qtawesome name) in the palette's colours.

    qtawesome (~0.1 s to import, ~25 ms for its fonts) is loaded on the first call, not at start
    up: the main window sets its icons just after it is shown. An unknown name or a missing
    qtawesome gives a null icon (text only), never an error.
    """
    normal, disabled = _colours()
    key = (name, normal, disabled)
    found = _cache.get(key)
    if found is not None:
        return found
    try:
        os.environ.setdefault("QT_API", "pyside6")  # qtawesome's Qt shim: our binding
        import qtawesome

        made = qtawesome.icon(ICONS.get(name, name), color=normal, color_disabled=disabled)
        result = made if isinstance(made, QIcon) else QIcon()
    except Exception:  # an optional decoration: a wrong name or a missing font costs the icon only
        result = QIcon()
    _cache[key] = result
    return result


def set_icon(target: QAction | QAbstractButton, name: str) -> None:
    """Give a QAction or button the icon ``name`` and remember it, so :func:`retint` can redraw
    it in the colours of a new theme."""
    if isinstance(target, (QAction, QAbstractButton)):
        target.setProperty(ICON_PROPERTY, name)
        target.setIcon(icon(name))


def retint(root: object) -> None:
    """Re-apply every icon set with :func:`set_icon` under ``root`` (after a palette change)."""
    if not isinstance(root, QObject):
        return
    targets: list[QAction | QAbstractButton] = [
        *root.findChildren(QAction),
        *root.findChildren(QAbstractButton),
    ]
    for obj in targets:
        name = obj.property(ICON_PROPERTY)
        if name:
            obj.setIcon(icon(str(name)))


def tinted(name: str, colour: str) -> QIcon:
    """The icon ``name`` in a fixed colour (a test's pass/fail mark reads by its colour too)."""
    key = (name, colour, colour)
    found = _cache.get(key)
    if found is not None:
        return found
    try:
        os.environ.setdefault("QT_API", "pyside6")
        import qtawesome

        made = qtawesome.icon(ICONS.get(name, name), color=colour)
        result = made if isinstance(made, QIcon) else QIcon()
    except Exception:  # a decoration only, as in icon()
        result = QIcon()
    _cache[key] = result
    return result
