"""Render the app icon (resources/icons/stratoscope.svg) into the hicolor PNG sizes.

    .venv/bin/python packaging/render_icons.py [--check]

Writes packaging/icons/hicolor/<N>x<N>/apps/io.github.stratoscope.Stratoscope.png for every size
in SIZES and copies the SVG to .../scalable/apps/. Rendering uses Qt's QSvgRenderer offscreen (no
display needed). ``--check`` renders to memory and exits 1 when a committed file is missing or
has the wrong size (the PNG bytes themselves may differ between Qt versions).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

APP_ID = "io.github.stratoscope.Stratoscope"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "resources" / "icons" / "stratoscope.svg"
HICOLOR = ROOT / "packaging" / "icons" / "hicolor"


def png_path(size: int) -> Path:
    return HICOLOR / f"{size}x{size}" / "apps" / f"{APP_ID}.png"


def main(argv: list[str] | None = None) -> int:
    opts = argparse.ArgumentParser(description=__doc__).parse_known_args(argv)[1]
    check = "--check" in opts
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        print(f"{SOURCE}: not a valid SVG for Qt", file=sys.stderr)
        return 1
    problems = []
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        target = png_path(size)
        if check:
            existing = QImage(str(target))
            if existing.isNull() or existing.width() != size or existing.height() != size:
                problems.append(f"{target.relative_to(ROOT)} missing or not {size}x{size}")
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if not image.save(str(target), "PNG"):
            problems.append(f"cannot write {target}")
    scalable = HICOLOR / "scalable" / "apps" / f"{APP_ID}.svg"
    if check:
        if not scalable.exists() or scalable.read_bytes() != SOURCE.read_bytes():
            problems.append(f"{scalable.relative_to(ROOT)} differs from {SOURCE.name}")
    else:
        scalable.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SOURCE, scalable)
    del app
    for p in problems:
        print(p, file=sys.stderr)
    if not problems and not check:
        print(f"rendered {len(SIZES)} PNG sizes and the scalable SVG under {HICOLOR}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
