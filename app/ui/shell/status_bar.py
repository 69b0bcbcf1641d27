"""What the status bar says about the node's health: in words, coloured for the theme."""

from __future__ import annotations

from app.client.models import Health
from app.services.session import Session

# health colours readable on each theme's window colour (WCAG AA against it)
HEALTH_LIGHT = {"ok": "#1e7b34", "warning": "#8a5a00", "error": "#b3261e"}
HEALTH_DARK = {"ok": "#6fd08c", "warning": "#f0c05a", "error": "#ff8a80"}
HEALTH_CHECKS = {
    "isNotStalled": "block production stalled",
    "isValidBlocksInc": "block numbers not increasing",
}


def health_problems(health: Health) -> list[str]:
    """What the node's /health says is wrong, in words."""
    info = health.raw.get("healthInfo")
    info = info if isinstance(info, dict) else {}
    return [words for key, words in HEALTH_CHECKS.items() if info.get(key) is False]


def health_status(session: Session, dark: bool) -> tuple[str, str, str, str]:
    """(text, level, tooltip, colour) for the session's node: "healthy · <node> <version>" in
    green, what is wrong in red, "not answering" when it does not; nothing when not connected."""
    s = session
    health = s.health
    if s.state == "disconnected" or not s.node_url:
        return "", "", "", ""
    if s.state == "unreachable":
        text, level = "not answering", "error"
        tip = f"{s.node_url} does not answer: check that the node runs and the address"
    elif health is None:
        text, level = "health unknown", "warning"
        tip = f"{s.node_url} did not answer /health yet"
    else:
        version = f"{health.raw.get('name') or 'node'} {health.version}".strip()
        problems = health_problems(health)
        if health.healthy and not problems:
            text, level = f"healthy · {version}", "ok"
        else:
            text, level = f"NOT healthy: {', '.join(problems) or 'the node says so'}", "error"
        tip = f"{s.node_url}: {text}, version {health.version or '?'}, up {health.uptime} s"
    return text, level, tip, (HEALTH_DARK if dark else HEALTH_LIGHT)[level]
