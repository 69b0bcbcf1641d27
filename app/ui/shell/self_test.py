"""``stratoscope --self-test``: does this installation (a checkout or a frozen bundle) have what
the app needs? Runs headless (``QT_QPA_PLATFORM=offscreen``, the default when there is no
display) and without a keyring daemon.

One line per check, then a summary; exit status 0 when every check passed, 1 otherwise.

- Qt: the platform plugin in use and the ones a desktop needs, the image formats (the icon is an
  SVG), the app icon, the main window built and rendered offscreen.
- Data and libraries: the Solidity highlighter (tree-sitter-solidity with the app's query) on a
  sample contract, QR codes (segno), the UI's icons (qtawesome and its fonts), the dashboard's
  plots (pyqtgraph, numpy), keyring's backends (found through entry points, which a frozen app
  loses unless its metadata is bundled).
- The secret store the app would use: the OS keyring (only read: nothing is written to it), or
  without one the passphrase-encrypted file, written and read back in a temporary directory.
- The embedded sandbox node, started exactly as the app starts it, on a temporary data dir:
  ``/health``, a token from its OIDC issuer (password grant as alice), then authenticated
  requests: alice's key and compiling a bundled sample contract.

Nothing outside the temporary directory is touched.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shlex
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TextIO

SAMPLE = "Token.sol"
USER = "alice"  # a demo user of every fresh sandbox; the password is the name


class Checks:
    """Runs checks in order, prints one line each; a check whose prerequisite failed is skipped."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.passed = 0
        self.failed: list[str] = []
        self.skipped = 0

    def line(self, status: str, name: str, detail: str) -> None:
        print(f"  {status:<4} {name}: {detail}", file=self.out, flush=True)

    async def run(
        self, name: str, check: Callable[[], Awaitable[str]], *, needs: bool = True
    ) -> bool:
        if not needs:
            self.skipped += 1
            self.line("skip", name, "an earlier check it depends on failed")
            return False
        try:
            detail = await check()
        except Exception as exc:
            self.failed.append(name)
            text = str(exc).strip() or type(exc).__name__
            self.line("FAIL", name, f"{type(exc).__name__}: {text}")
            return False
        self.passed += 1
        self.line("ok", name, detail)
        return True


def _platform_plugins() -> list[str]:
    from PySide6.QtCore import QLibraryInfo

    folder = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms"
    names = []
    for f in folder.glob("*") if folder.is_dir() else []:
        stem = f.name.split(".")[0].removeprefix("lib")
        names.append(stem.removeprefix("q"))
    return sorted(names)


def _desktop_platform() -> str | None:
    if sys.platform.startswith("linux"):
        return "xcb"
    return {"win32": "windows", "darwin": "cocoa"}.get(sys.platform)


async def run_checks(work: Path, checks: Checks) -> None:
    from PySide6.QtCore import qVersion
    from PySide6.QtGui import QGuiApplication, QImageReader

    from app.client.auth import OidcSession, OidcSettings, jwt_claims
    from app.client.http import StratoClient
    from app.launch import node_command
    from app.services.controller import AppController
    from app.services.secret_service import SecretService
    from app.services.secrets import EncryptedFileStore
    from app.services.session import SANDBOX_CLIENT_ID
    from app.ui.panels.composer.panel import SAMPLES
    from app.ui.shell.icons import ICON_PATH, app_icon

    config = work / "config"
    controller = AppController(
        config_directory=config,
        sandbox_dir=work / "sandbox",
        secrets=SecretService(config),
    )

    async def qt_platform() -> str:
        plugins = _platform_plugins()
        need = _desktop_platform()
        if need is not None and need not in plugins:
            raise RuntimeError(f"no {need} platform plugin (found: {', '.join(plugins)})")
        return (
            f"Qt {qVersion()}, platform {QGuiApplication.platformName()}; "
            f"platform plugins: {', '.join(plugins)}"
        )

    async def images() -> str:
        formats = {bytes(f.data()).decode() for f in QImageReader.supportedImageFormats()}
        missing = {"png", "svg", "jpeg", "ico"} - formats
        if missing:
            raise RuntimeError(f"image formats missing: {', '.join(sorted(missing))}")
        if not ICON_PATH.exists():
            raise RuntimeError(f"no icon at {ICON_PATH}")
        pixmap = app_icon().pixmap(64, 64)
        if pixmap.isNull():
            raise RuntimeError(f"the icon {ICON_PATH.name} does not render (svg icon engine?)")
        return f"{len(formats)} formats incl. svg, jpeg; app icon renders {pixmap.width()} px"

    async def main_window() -> str:
        from app.ui.shell.main_window import MainWindow

        window = MainWindow(controller)
        try:
            image = window.grab()
            if image.isNull():
                raise RuntimeError("the main window did not render")
            titles = [str(getattr(p, "title", p.objectName())) for p in window.panels]
            return (
                f"{len(titles)} panels ({', '.join(titles)}), "
                f"rendered {image.width()}x{image.height()}"
            )
        finally:
            window.deleteLater()

    async def highlighter() -> str:
        from app.ui.widgets.source_editor import TreeSitterSolidity

        samples = sorted(SAMPLES.glob("*.sol")) if SAMPLES.is_dir() else []
        if not samples:
            raise RuntimeError(f"no sample contracts in {SAMPLES}")
        source = (SAMPLES / SAMPLE).read_text(encoding="utf-8")
        spans = TreeSitterSolidity().spans(source)
        count = sum(len(v) for v in spans.values())
        if not count:
            raise RuntimeError(f"tree-sitter-solidity found nothing to colour in {SAMPLE}")
        return f"tree-sitter-solidity: {count} spans in {SAMPLE}; {len(samples)} sample contracts"

    async def qr_code() -> str:
        import segno

        qr = segno.make("0" * 40, error="m")
        return f"segno {segno.__version__}: {len(qr.matrix)}x{len(qr.matrix)} modules"

    async def icons() -> str:
        # qtawesome's fonts are data files: a bundle must carry them, or the UI has no icons
        from app.ui.shell.icons import ICONS, icon

        names = sorted(ICONS)
        blank = [n for n in names if icon(n).pixmap(16, 16).isNull()]
        if blank:
            raise RuntimeError(f"no icon for {', '.join(blank)} (qtawesome or its fonts missing)")
        import qtawesome

        return f"qtawesome {qtawesome.__version__}: {len(names)} icons rendered"

    async def plots() -> str:
        # the dashboard imports pyqtgraph lazily: a bundle must still carry it and its Qt glue
        def load() -> str:
            import numpy
            import pyqtgraph  # type: ignore[import-untyped]

            return f"pyqtgraph {pyqtgraph.__version__}, numpy {numpy.__version__}"

        versions = await asyncio.to_thread(load)
        import pyqtgraph as pg

        widget = pg.PlotWidget()
        try:
            widget.plot([0, 3, 1, 4], pen="b")
            widget.resize(200, 120)
            image = widget.grab()
            if image.isNull():
                raise RuntimeError("a plot did not render")
            return f"{versions}; a plot rendered {image.width()}x{image.height()}"
        finally:
            widget.deleteLater()

    async def keyring_backends() -> str:
        from importlib.metadata import entry_points

        names = sorted({ep.name for ep in entry_points(group="keyring.backends")})
        if not names:
            raise RuntimeError("no keyring backends registered (keyring's metadata is missing)")

        def chosen() -> str:
            import keyring

            backend = keyring.get_keyring()
            return f"{type(backend).__module__}.{type(backend).__name__}"

        return f"backends {', '.join(names)}; selected {await asyncio.to_thread(chosen)}"

    async def secret_store() -> str:
        store = controller.secrets
        kind = await store.probe()
        if kind == "keyring":
            await store.get("self-test")  # read only: the user's keyring is left alone
            return "the OS keyring answers (read only, nothing written)"
        passphrase = secrets.token_urlsafe(16)
        value = secrets.token_hex(16)
        await store.unlock(passphrase)
        await store.set("self-test", value)
        reopened = await asyncio.to_thread(EncryptedFileStore, store.file_path, passphrase)
        if reopened.get("self-test") != value:
            raise RuntimeError("the encrypted file did not give the secret back")
        if value.encode() in store.file_path.read_bytes():
            raise RuntimeError("the secret is readable in the file")
        return "no usable OS keyring: encrypted file written and read back (temporary dir)"

    await checks.run("Qt platform", qt_platform)
    await checks.run("Image formats and icon", images)
    await checks.run("Main window", main_window)
    await checks.run("Solidity highlighting", highlighter)
    await checks.run("QR codes", qr_code)
    await checks.run("Icons", icons)
    await checks.run("Plots", plots)
    await checks.run("Keyring", keyring_backends)
    await checks.run("Secret store", secret_store)

    url = ""
    oidc: OidcSession | None = None
    client: StratoClient | None = None

    async def sandbox() -> str:
        nonlocal url
        t0 = time.perf_counter()
        url = await controller.ensure_sandbox()
        command = shlex.join([*node_command(), "serve", "..."])
        return f"`{command}` listening at {url} after {time.perf_counter() - t0:.1f} s"

    async def health() -> str:
        nonlocal client
        client = StratoClient(url)
        h = await client.health()
        if not h.healthy:
            raise RuntimeError(f"the node says it is not healthy: {h.raw}")
        return f"healthy, version {h.version or '?'}, latest block {h.last_block}"

    async def token() -> str:
        nonlocal oidc
        discovery = url + "/auth/.well-known/openid-configuration"
        oidc = OidcSession(OidcSettings(discovery, SANDBOX_CLIENT_ID))
        tok = await oidc.password(USER, USER)
        name = jwt_claims(tok.access_token).get("preferred_username")
        if name != USER:
            raise RuntimeError(f"the token names {name!r}, not {USER}")
        return f"password grant for {USER} at the node's issuer ({len(tok.access_token)} chars)"

    async def read_key() -> str:
        assert client is not None and oidc is not None
        client.set_token_provider(oidc.access_token)
        account = await client.get_key()
        if account is None:
            raise RuntimeError(f"{USER} has no key on a fresh sandbox")
        return f"{USER}'s key: address {account.address}"

    async def compile_sample() -> str:
        assert client is not None
        source = (SAMPLES / SAMPLE).read_text(encoding="utf-8")
        contracts = await client.xabi(source)
        if not contracts:
            raise RuntimeError(f"the node compiled no contract from {SAMPLE}")
        return f"{SAMPLE} compiled by the node: {', '.join(sorted(contracts))}"

    started = False
    try:
        started = await checks.run("Sandbox node", sandbox)
        healthy = await checks.run("Health", health, needs=started)
        signed_in = await checks.run("Token", token, needs=healthy)
        await checks.run("Authenticated read", read_key, needs=signed_in)
        await checks.run("Compile", compile_sample, needs=signed_in)
    finally:
        if client is not None:
            await client.aclose()
        if oidc is not None:
            await oidc.aclose()
        await controller.shutdown()
        if not started:
            for line in list(controller.sandbox.log)[-15:]:
                print(f"       node: {line}", file=checks.out, flush=True)
        controller.deleteLater()


def main(out: TextIO | None = None) -> int:
    """Run the self-test in a QApplication of its own; 0 when everything passed."""
    import qasync
    from PySide6.QtWidgets import QApplication

    out = out or sys.stdout
    frozen = bool(getattr(sys, "frozen", False))
    where = f"frozen bundle {Path(sys.executable).parent}" if frozen else "from source"
    version = sys.version.split()[0]
    print(f"Stratoscope self-test ({where}, Python {version})", file=out, flush=True)
    t0 = time.perf_counter()
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # no display: still a full check
    app = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(app, QApplication)
    app.setApplicationName("Stratoscope")
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    executor = ThreadPoolExecutor(2, thread_name_prefix="stratoscope-self-test")
    loop.set_default_executor(executor)
    checks = Checks(out)
    with tempfile.TemporaryDirectory(prefix="stratoscope-self-test-") as tmp, loop:
        loop.run_until_complete(run_checks(Path(tmp), checks))
        app.processEvents()
    executor.shutdown(wait=True)
    import gc

    gc.collect()  # free Qt objects now, not in a random order at exit
    took = time.perf_counter() - t0
    if checks.failed:
        print(
            f"Self-test FAILED: {', '.join(checks.failed)} "
            f"({checks.passed} passed, {checks.skipped} skipped, {took:.1f} s)",
            file=out,
            flush=True,
        )
        return 1
    print(f"Self-test passed: {checks.passed} checks in {took:.1f} s", file=out, flush=True)
    return 0
