"""Connection profiles: which node to talk to and how to sign in.

Profiles live in ``profiles.json`` under the platform's config dir, written atomically. They hold
no secret: passwords, client secrets and tokens go to the secret store under the profile's name.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from platformdirs import user_config_dir

PROFILES_FILE = "profiles.json"
NAME_RE = re.compile(r"^[^\x00-\x1f/\\]{1,64}$")
FLOWS = ("password", "client_credentials", "authorization_code", "token")


class ProfileError(ValueError):
    """A profile that cannot be saved or read; the message says why."""


def config_dir() -> Path:
    return Path(user_config_dir("stratoscope", appauthor=False))


@dataclass
class Profile:
    name: str
    node_url: str
    sandbox: bool = False  # the embedded sandbox node (its URL changes with every start)
    discovery_url: str = ""
    client_id: str = ""
    flow: str = "password"
    username: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def secret_key(self, what: str) -> str:
        """The secret store key of one of this profile's secrets (password, token ...)."""
        return f"profile:{self.name}:{what}"

    def check(self) -> None:
        if not NAME_RE.match(self.name):
            raise ProfileError("a profile name needs 1-64 characters and no slashes")
        if not self.sandbox and not re.match(r"^https?://[^\s/]+", self.node_url):
            raise ProfileError(f"node URL must start with http:// or https://: {self.node_url!r}")
        if self.flow not in FLOWS:
            raise ProfileError(f"sign-in flow must be one of {', '.join(FLOWS)}")
        if self.discovery_url and not re.match(r"^https?://", self.discovery_url):
            raise ProfileError("the OpenID discovery URL must start with http:// or https://")


class ProfileStore:
    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or config_dir()
        self.path = self.directory / PROFILES_FILE

    def load(self) -> list[Profile]:
        try:
            raw: Any = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            raise ProfileError(f"{self.path} cannot be read: {exc}") from None
        if not isinstance(raw, dict) or not isinstance(raw.get("profiles"), list):
            raise ProfileError(f"{self.path} is not a profile file")
        out = []
        known = set(Profile.__dataclass_fields__)
        for item in raw["profiles"]:
            if isinstance(item, dict) and "name" in item and "node_url" in item:
                out.append(Profile(**{k: v for k, v in item.items() if k in known}))
        return out

    def save(self, profiles: list[Profile]) -> None:
        names = set()
        for p in profiles:
            p.check()
            if p.name in names:
                raise ProfileError(f"two profiles are named {p.name!r}")
            names.add(p.name)
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(PROFILES_FILE + ".tmp")
        tmp.write_text(
            json.dumps({"version": 1, "profiles": [asdict(p) for p in profiles]}, indent=2),
            encoding="utf-8",
        )
        os.replace(tmp, self.path)

    def upsert(self, profile: Profile) -> None:
        profiles = [p for p in self.load() if p.name != profile.name]
        self.save([*profiles, profile])

    def remove(self, name: str) -> None:
        self.save([p for p in self.load() if p.name != name])


SETTINGS_FILE = "settings.json"


def read_json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``; None when it is missing, unreadable or not an object."""
    try:
        raw: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return raw if isinstance(raw, dict) else None


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write through a temporary file and a rename: a crash leaves the old file or the new."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # a temporary file of its own: two writers sharing one would mix their bytes
    fd, name = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    tmp = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(data, indent=2))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class AppSettings:
    """Small UI state (last profile, last user per profile): JSON beside the profiles."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or config_dir()
        self.path = self.directory / SETTINGS_FILE

    def load(self) -> dict[str, Any]:
        raw = read_json_object(self.path)
        return raw if raw is not None else {}

    def save(self, data: dict[str, Any]) -> None:
        write_json_atomic(self.path, data)


CONTACTS_FILE = "contacts.json"
ADDRESS_RE = re.compile(r"^(0x)?[0-9a-fA-F]{40}$")


class ContactStore:
    """Names for other people's addresses (an address book), beside the profiles."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or config_dir()
        self.path = self.directory / CONTACTS_FILE

    def load(self) -> dict[str, str]:
        raw = read_json_object(self.path)
        items = raw.get("contacts") if raw is not None else None
        if not isinstance(items, dict):
            return {}
        return {
            str(n): str(a).lower().removeprefix("0x")
            for n, a in items.items()
            if isinstance(a, str) and ADDRESS_RE.match(a)
        }

    def add(self, name: str, address: str) -> dict[str, str]:
        name = name.strip()
        if not NAME_RE.match(name):
            raise ProfileError("a contact's name needs 1-64 characters and no slashes")
        if not ADDRESS_RE.match(address.strip()):
            raise ProfileError("a contact's address is 40 hex digits")
        contacts = self.load()
        contacts[name] = address.strip().lower().removeprefix("0x")
        write_json_atomic(self.path, {"version": 1, "contacts": contacts})
        return contacts


SAVED_QUERIES_FILE = "saved_queries.json"


class SavedQueryStore:
    """Named Cirrus queries per connection profile: ``{profile: {name: "/cirrus/search/T?..."}}``.

    A query is kept as its path and query string, the form a user can paste anywhere; entries
    that do not read back as a Cirrus URL are dropped on load rather than breaking the list.
    """

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or config_dir()
        self.path = self.directory / SAVED_QUERIES_FILE

    def _all(self) -> dict[str, dict[str, str]]:
        raw = read_json_object(self.path)
        profiles = raw.get("profiles") if raw is not None else None
        if not isinstance(profiles, dict):
            return {}
        return {
            str(p): {str(n): u for n, u in q.items() if isinstance(u, str)}
            for p, q in profiles.items()
            if isinstance(q, dict)
        }

    def load(self, profile: str) -> dict[str, str]:
        return {
            n: u for n, u in self._all().get(profile, {}).items() if u.startswith("/cirrus/search/")
        }

    def save(self, profile: str, name: str, url: str) -> dict[str, str]:
        name = name.strip()
        if not NAME_RE.match(name):
            raise ProfileError("a saved query's name needs 1-64 characters and no slashes")
        if not url.startswith("/cirrus/search/"):
            raise ProfileError("a saved query is a /cirrus/search/... path")
        data = self._all()
        data.setdefault(profile, {})[name] = url
        write_json_atomic(self.path, {"version": 1, "profiles": data})
        return self.load(profile)

    def remove(self, profile: str, name: str) -> dict[str, str]:
        data = self._all()
        if data.get(profile, {}).pop(name, None) is not None:
            write_json_atomic(self.path, {"version": 1, "profiles": data})
        return self.load(profile)
