"""A second window signed in as another user of the same node (the Assets panel's *Second window
as…*): its own controller, so both users' views of an asset can be watched side by side."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from app.client.assets import AssetError
from app.services.controller import AppController


async def second_controller(first: AppController, user: str) -> AppController:
    """A controller of its own, signed in as ``user`` to ``first``'s node (never a second
    sandbox); its configuration lives in a temporary directory the window removes."""
    profile = first.session.profile
    assert profile is not None
    creds = await first.stored_credentials(profile, user)
    if profile.flow == "password" and not creds.password:
        raise AssetError(f"sign in as {user} once with Act as: no password of theirs is known")
    config = Path(tempfile.mkdtemp(prefix="stratoscope-window-"))
    second = AppController(
        config_directory=config, sandbox_dir=config / "sandbox", secrets=first.secrets
    )
    second.setProperty("configDir", str(config))
    twin = replace(
        profile,
        name=f"{profile.name} (second window)",
        sandbox=False,  # the first window's node: never start another sandbox
        node_url=first.session.node_url,
        extra=dict(profile.extra),
    )
    try:
        await second.connect_profile(twin, creds)
    except BaseException:
        await second.shutdown()
        second.deleteLater()
        shutil.rmtree(config, ignore_errors=True)
        raise
    return second
