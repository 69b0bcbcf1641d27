"""Users of the sandbox node: passwords, organisations, OAuth clients.

Passwords are stored as scrypt hashes; the confidential OAuth client's secret is sealed with the
node secret like the private keys, so the database alone reveals neither.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import secrets
import sqlite3
import time

from .genesis import DESKTOP_CLIENT, NODE_CLIENT, ROOT_USER, default_password
from .store import Store
from .vault import Vault

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
ORG_RE = re.compile(r"^[^\x00-\x1f]{1,128}$")
_SCRYPT = {"n": 2**14, "r": 8, "p": 1}


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, dklen=32, **_SCRYPT)
    return f"scrypt${_SCRYPT['n']}${_SCRYPT['r']}${_SCRYPT['p']}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
    except ValueError:
        return False
    if scheme != "scrypt":
        return False
    got = hashlib.scrypt(
        password.encode(), salt=bytes.fromhex(salt), dklen=32, n=int(n), r=int(r), p=int(p)
    )
    return hmac.compare_digest(got.hex(), digest)


@functools.cache
def _stand_in_hash() -> str:
    """A hash of a random password, made once: what an unknown user's password is checked
    against (the same scrypt cost as a real check)."""
    return hash_password(secrets.token_urlsafe(16))


class UserError(ValueError):
    """Bad user input for the user commands (message is shown to the user)."""


class UserStore:
    """Reads and writes the ``users`` and ``oauth_clients`` tables; the OIDC user directory."""

    def __init__(self, store: Store, vault: Vault) -> None:
        self.store = store
        self.vault = vault

    def get(self, name: str) -> sqlite3.Row | None:
        return self.store.one("SELECT * FROM users WHERE name=?", name)

    def all(self) -> list[sqlite3.Row]:
        return self.store.all("SELECT * FROM users ORDER BY created_at, name")

    def add(
        self,
        name: str,
        org: str,
        unit: str,
        password: str | None,
        *,
        identity: bool = True,
        demo: bool = False,
    ) -> str:
        """Create a user; returns the password (generated when none is given)."""
        if not NAME_RE.match(name):
            raise UserError(
                f"invalid user name {name!r}: use letters, digits, '.', '_' or '-' (max 64)"
            )
        if not ORG_RE.match(org) or (unit and not ORG_RE.match(unit)):
            raise UserError("organization and unit must be 1-128 printable characters")
        if self.get(name) is not None:
            raise UserError(f"user {name} already exists")
        if password is None:
            password = default_password(name) if demo else secrets.token_urlsafe(12)
        if len(password) < 1 or len(password) > 256:
            raise UserError("password must be 1-256 characters")
        email = f"{name}@{re.sub(r'[^a-z0-9]+', '-', org.lower()).strip('-') or 'org'}.example"
        self.store.execute(
            "INSERT INTO users (name, password_hash, org, unit, email, wants_identity, "
            "default_password, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            name,
            hash_password(password),
            org,
            unit,
            email,
            1 if identity else 0,
            1 if demo else 0,
            time.time(),
        )
        return password

    def set_password(self, name: str, password: str) -> None:
        if self.get(name) is None:
            raise UserError(f"no user {name}")
        self.store.execute(
            "UPDATE users SET password_hash=?, default_password=0 WHERE name=?",
            hash_password(password),
            name,
        )

    def users_with_default_password(self) -> list[str]:
        return [
            r["name"] for r in self.store.all("SELECT name FROM users WHERE default_password=1")
        ]

    # ------------------------------------------------------------ OIDC user directory

    def check_password(self, username: str, password: str) -> bool:
        """Constant work whether or not the user exists: an unknown name is checked against a
        stand-in hash, so the answer's timing does not tell which names are users."""
        row = self.get(username)
        if row is None:
            verify_password(password, _stand_in_hash())
            return False
        return verify_password(password, row["password_hash"])

    def email_of(self, username: str) -> str | None:
        row = self.get(username)
        return str(row["email"]) if row else None

    def client_subject(self, client_id: str, client_secret: str) -> str | None:
        row = self.store.one("SELECT * FROM oauth_clients WHERE client_id=?", client_id)
        if row is None or row["sealed_secret"] is None:
            return None
        secret = self.vault.unseal(row["sealed_secret"])
        if not hmac.compare_digest(secret, client_secret.encode()):
            return None
        return str(row["subject"])

    def client_exists(self, client_id: str) -> bool:
        return (
            self.store.one("SELECT 1 FROM oauth_clients WHERE client_id=?", client_id) is not None
        )

    def ensure_clients(self) -> None:
        if not self.client_exists(NODE_CLIENT):
            secret = secrets.token_urlsafe(24)
            self.store.execute(
                "INSERT INTO oauth_clients (client_id, sealed_secret, subject) VALUES (?, ?, ?)",
                NODE_CLIENT,
                self.vault.seal(secret.encode()),
                ROOT_USER,
            )
        if not self.client_exists(DESKTOP_CLIENT):
            self.store.execute(
                "INSERT INTO oauth_clients (client_id, sealed_secret, subject) "
                "VALUES (?, NULL, NULL)",
                DESKTOP_CLIENT,
            )

    def node_client(self) -> tuple[str, str]:
        row = self.store.one("SELECT * FROM oauth_clients WHERE client_id=?", NODE_CLIENT)
        if row is None:
            raise UserError("the node's OAuth client does not exist yet: start the node once")
        return NODE_CLIENT, self.vault.unseal(row["sealed_secret"]).decode()
