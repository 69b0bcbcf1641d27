"""Packaging: ``--self-test`` of the app from source (always) and of the built bundle
``dist/stratoscope/stratoscope`` (when ``make package`` built one), the desktop entry, the
AppStream metainfo and the icons."""

from __future__ import annotations

import asyncio
import configparser
import io
import os
import shutil
import struct
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from app.ui.shell.icons import APP_ID, ICON_PATH
from app.ui.shell.self_test import Checks
from tests.integration.node_fixture import ROOT

PACKAGING = ROOT / "packaging"
DESKTOP = PACKAGING / f"{APP_ID}.desktop"
METAINFO = PACKAGING / f"{APP_ID}.metainfo.xml"
BUNDLE = ROOT / "dist" / "stratoscope" / "stratoscope"
ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
CHECKS = (
    "Qt platform",
    "Image formats and icon",
    "Main window",
    "Solidity highlighting",
    "QR codes",
    "Icons",
    "Plots",
    "Keyring",
    "Secret store",
    "Sandbox node",
    "Health",
    "Token",
    "Authenticated read",
    "Compile",
)


def self_test(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """Headless, and with keyring's fail backend: the secret store must fall back to its file."""
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    return subprocess.run(
        [*argv, "--self-test"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def assert_passed(proc: subprocess.CompletedProcess[str]) -> None:
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr[-3000:]
    for name in CHECKS:
        assert f"  ok   {name}: " in out, f"{name} not checked:\n{out}"
    assert f"Self-test passed: {len(CHECKS)} checks" in out
    assert "encrypted file written and read back" in out  # no keyring: the file fallback
    assert "Traceback" not in proc.stderr


def test_self_test_from_source() -> None:
    proc = self_test([sys.executable, "-m", "app"])
    assert_passed(proc)
    assert "(from source" in proc.stdout
    assert "-m app.node serve" in proc.stdout  # the node as `make run` starts it


def test_self_test_of_the_built_bundle() -> None:
    if not BUNDLE.exists():
        pytest.skip(f"no bundle at {BUNDLE.relative_to(ROOT)}: `make package` builds it")
    proc = self_test([str(BUNDLE)])
    assert_passed(proc)
    assert "(frozen bundle" in proc.stdout
    assert f"{BUNDLE} --node serve" in proc.stdout  # the bundle runs the node itself
    # keyring's backends were found through its bundled entry points
    keyring_line = next(line for line in proc.stdout.splitlines() if "Keyring:" in line)
    assert "SecretService" in keyring_line
    internal = BUNDLE.parent / "_internal"
    plugins = internal / "PySide6" / "Qt" / "plugins"
    for plugin in (
        "platforms/libqxcb.so",
        "platforms/libqoffscreen.so",
        "platforms/libqwayland.so",
        "imageformats/libqsvg.so",
        "imageformats/libqjpeg.so",
        "iconengines/libqsvgicon.so",
    ):
        assert (plugins / plugin).exists(), plugin
    assert (internal / "resources" / "contracts" / "Token.sol").exists()
    assert (internal / "app" / "ui" / "solidity-highlights.scm").exists()
    share = BUNDLE.parent / "share"
    assert (share / "applications" / DESKTOP.name).exists()
    assert (share / "metainfo" / METAINFO.name).exists()
    assert (share / "icons" / "hicolor" / "48x48" / "apps" / f"{APP_ID}.png").exists()


def test_a_failed_check_is_reported_and_its_dependants_skipped() -> None:
    out = io.StringIO()
    checks = Checks(out)

    async def broken() -> str:
        raise RuntimeError("no xcb platform plugin")

    async def fine() -> str:
        return "all good"

    async def run() -> None:
        ok = await checks.run("Qt platform", broken)
        await checks.run("Main window", fine, needs=ok)
        await checks.run("QR codes", fine)

    asyncio.run(run())
    assert checks.failed == ["Qt platform"]
    assert (checks.passed, checks.skipped) == (1, 1)
    lines = out.getvalue().splitlines()
    assert lines[0] == "  FAIL Qt platform: RuntimeError: no xcb platform plugin"
    assert lines[1].startswith("  skip Main window: ")
    assert lines[2] == "  ok   QR codes: all good"


# ---------------------------------------------------------------- desktop integration files


def test_desktop_entry() -> None:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(DESKTOP, encoding="utf-8")
    entry = parser["Desktop Entry"]
    assert entry["Type"] == "Application"
    assert entry["Name"] == "Stratoscope"
    assert entry["Exec"].split()[0] == "stratoscope"  # the console script and the bundle's name
    assert entry["Icon"] == APP_ID
    assert entry["Terminal"] == "false"
    assert entry["StartupWMClass"] == "Stratoscope"  # Qt's WM_CLASS: the application name
    assert entry["Comment"] and entry["GenericName"]
    for key in ("Categories", "Keywords"):
        assert entry[key].endswith(";") and "Development" in entry["Categories"]
    if shutil.which("desktop-file-validate"):
        proc = subprocess.run(
            ["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True, check=False
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_appstream_metainfo() -> None:
    root = ET.parse(METAINFO).getroot()
    assert root.tag == "component" and root.get("type") == "desktop-application"

    def text(path: str) -> str:
        node = root.find(path)
        assert node is not None and node.text, f"{path} missing"
        return node.text.strip()

    assert text("id") == APP_ID
    assert text("metadata_license") == "CC0-1.0"
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert text("project_license") == pyproject["license"]  # the SPDX string (PEP 639)
    assert text("name") == "Stratoscope"
    assert text("summary")
    assert root.findall("description/p") and root.findall("description/ul/li")
    launchable = root.find("launchable")
    assert launchable is not None and launchable.get("type") == "desktop-id"
    assert launchable.text == DESKTOP.name
    assert text("provides/binary") == "stratoscope"
    assert root.find("content_rating") is not None
    releases = root.findall("releases/release")
    assert releases and releases[0].get("version") == pyproject["version"]
    if shutil.which("appstreamcli"):
        proc = subprocess.run(
            ["appstreamcli", "validate", "--no-net", str(METAINFO)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", path
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_icons_rendered_from_the_svg() -> None:
    hicolor = PACKAGING / "icons" / "hicolor"
    for size in ICON_SIZES:
        assert png_size(hicolor / f"{size}x{size}" / "apps" / f"{APP_ID}.png") == (size, size)
    scalable = hicolor / "scalable" / "apps" / f"{APP_ID}.svg"
    assert scalable.read_bytes() == ICON_PATH.read_bytes()  # packaging/render_icons.py copies it
    root = ET.parse(ICON_PATH).getroot()
    assert root.tag.endswith("svg") and root.get("viewBox") == "0 0 256 256"
