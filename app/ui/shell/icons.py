"""The app's identity on the desktop: its icon and the id of its desktop entry.

The icon is one SVG (``resources/icons/stratoscope.svg``); Qt scales it for every size, through
the ``svg`` icon engine plugin. ``APP_ID`` is the name of the desktop entry and AppStream
metainfo in ``packaging/`` (and the Wayland app id), so the desktop shows the right icon for the
running window.
"""

from __future__ import annotations

from PySide6.QtGui import QIcon

from app.ui.paths import RESOURCES

APP_ID = "io.github.stratoscope.Stratoscope"
ICON_PATH = RESOURCES / "icons" / "stratoscope.svg"


def app_icon() -> QIcon:
    """The app's icon (a null icon when the SVG or Qt's svg plugin is missing)."""
    return QIcon(str(ICON_PATH)) if ICON_PATH.exists() else QIcon()
