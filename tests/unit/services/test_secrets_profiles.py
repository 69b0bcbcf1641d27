"""Secret store (keyring or encrypted file) and connection profiles."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail

from app.services.profiles import Profile, ProfileError, ProfileStore
from app.services.secrets import (
    EncryptedFileStore,
    KeyringStore,
    SecretStoreError,
    keyring_usable,
    open_secret_store,
)


class MemoryKeyring(KeyringBackend):
    """A real keyring backend that keeps passwords in memory (for tests)."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.items:
            raise keyring.errors.PasswordDeleteError("not found")
        del self.items[(service, username)]


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


def test_keyring_store_round_trip(memory_keyring: MemoryKeyring) -> None:
    assert keyring_usable()
    store = open_secret_store(Path("/nonexistent"), lambda: pytest.fail("no passphrase asked"))
    assert isinstance(store, KeyringStore) and store.kind == "keyring"
    store.set("profile:x:password", "s3cret")
    assert memory_keyring.items[("stratoscope", "profile:x:password")] == "s3cret"
    assert store.get("profile:x:password") == "s3cret"
    store.delete("profile:x:password")
    store.delete("profile:x:password")  # deleting twice is fine
    assert store.get("profile:x:password") is None


def test_fail_keyring_is_not_usable() -> None:
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())  # type: ignore[no-untyped-call]
    try:
        assert not keyring_usable()
    finally:
        keyring.set_keyring(previous)


def test_encrypted_file_fallback(tmp_path: Path) -> None:
    store = open_secret_store(tmp_path, lambda: "correct horse", use_keyring=lambda: False)
    assert isinstance(store, EncryptedFileStore)
    store.set("token", "eyJ-very-secret")
    path = tmp_path / "secrets.enc"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert b"eyJ-very-secret" not in path.read_bytes()  # never plaintext
    again = EncryptedFileStore(path, "correct horse")
    assert again.get("token") == "eyJ-very-secret"
    again.delete("token")
    assert EncryptedFileStore(path, "correct horse").get("token") is None


def test_wrong_passphrase_and_damage(tmp_path: Path) -> None:
    path = tmp_path / "secrets.enc"
    EncryptedFileStore(path, "one").set("k", "v")
    with pytest.raises(SecretStoreError, match="wrong passphrase"):
        EncryptedFileStore(path, "two")
    with pytest.raises(SecretStoreError, match="passphrase"):
        EncryptedFileStore(path, "")
    path.write_text("{not json")
    with pytest.raises(SecretStoreError, match="damaged"):
        EncryptedFileStore(path, "one")


def test_profiles_round_trip(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path)
    assert store.load() == []
    sandbox = Profile("Sandbox", "", sandbox=True, username="alice")
    remote = Profile(
        "Prod",
        "https://strato.example.com",
        discovery_url=("https://id.example.com/.well-known/openid-configuration"),
        client_id="app",
        flow="authorization_code",
    )
    store.save([sandbox, remote])
    assert store.load() == [sandbox, remote]
    remote.username = "bob"
    store.upsert(remote)
    assert [p.username for p in store.load()] == ["alice", "bob"]
    store.remove("Sandbox")
    assert [p.name for p in store.load()] == ["Prod"]
    assert "secret" not in (tmp_path / "profiles.json").read_text().lower()
    assert remote.secret_key("password") == "profile:Prod:password"


@pytest.mark.parametrize(
    "bad",
    [
        Profile("", "http://x"),
        Profile("a/b", "http://x"),
        Profile("ok", "ftp://x"),
        Profile("ok", "http://x", flow="magic"),
        Profile("ok", "http://x", discovery_url="file:///etc/passwd"),
    ],
)
def test_invalid_profiles_are_refused(tmp_path: Path, bad: Profile) -> None:
    with pytest.raises(ProfileError):
        ProfileStore(tmp_path).save([bad])
    assert not (tmp_path / "profiles.json").exists()


def test_duplicate_names_and_damaged_file(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path)
    with pytest.raises(ProfileError, match="two profiles"):
        store.save([Profile("a", "http://x"), Profile("a", "http://y")])
    (tmp_path / "profiles.json").write_text("[]")
    with pytest.raises(ProfileError, match="not a profile file"):
        store.load()


def test_contacts_are_validated_and_kept(tmp_path: Path) -> None:
    from app.services.profiles import ContactStore, ProfileError

    store = ContactStore(tmp_path)
    assert store.load() == {}
    assert store.add(" Bob ", "0x" + "AB" * 20) == {"Bob": "ab" * 20}
    assert ContactStore(tmp_path).load() == {"Bob": "ab" * 20}
    with pytest.raises(ProfileError, match="40 hex digits"):
        store.add("Eve", "12345")
    with pytest.raises(ProfileError, match="1-64 characters"):
        store.add("a/b", "ab" * 20)
    (tmp_path / "contacts.json").write_text("{broken")
    assert store.load() == {}  # a damaged file reads as empty, it does not stop the app
