#!/usr/bin/env bash
# Build the one-directory bundle dist/stratoscope/ with PyInstaller, then run its self-test.
#
#   packaging/build.sh            (or: make package)
#
# Uses the project's .venv (created by `make install` when missing) and installs PyInstaller
# into it when missing (the `package` extra of pyproject.toml). The bundle also gets the desktop
# entry, the AppStream metainfo and the hicolor icons under dist/stratoscope/share/, laid out as
# they go under /usr or ~/.local. Set SKIP_SELF_TEST=1 to skip the smoke test.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=.venv/bin/python
APP_ID=io.github.stratoscope.Stratoscope
[ -x "$PY" ] || make install
if ! "$PY" -c 'import PyInstaller' 2>/dev/null; then
  echo "installing PyInstaller into .venv"
  "$PY" -m pip install --quiet 'pyinstaller>=6'
fi

start=$(date +%s)
"$PY" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath dist --workpath build/pyinstaller packaging/stratoscope.spec

share=dist/stratoscope/share
install -Dm644 "packaging/$APP_ID.desktop" "$share/applications/$APP_ID.desktop"
install -Dm644 "packaging/$APP_ID.metainfo.xml" "$share/metainfo/$APP_ID.metainfo.xml"
mkdir -p "$share/icons"
cp -r packaging/icons/hicolor "$share/icons/"
took=$(( $(date +%s) - start ))

echo "built dist/stratoscope/ in ${took} s: $(du -sh dist/stratoscope | cut -f1)"
# Libraries the X11 platform plugin links to but this machine lacks were not bundled: the
# target must have them (Debian: libxcb-icccm4 libxcb-keysyms1 ...), or install them and rebuild.
xcb=dist/stratoscope/_internal/PySide6/Qt/plugins/platforms/libqxcb.so
if command -v ldd >/dev/null && [ -f "$xcb" ]; then
  missing=$(ldd "$xcb" | awk '/not found/ {print $1}' | sort -u | tr '\n' ' ')
  [ -z "$missing" ] || echo "warning: not bundled (missing here), needed for X11: $missing"
fi
if [ "${SKIP_SELF_TEST:-0}" != 1 ]; then
  QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen} dist/stratoscope/stratoscope --self-test
fi
