"""The signed-in user's account: key, balance, identity certificate, faucet, recent transactions.

Refreshes are coalesced: a new block while a refresh runs schedules exactly one more, so a busy
node never stacks requests. Everything here goes through the session's client.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.client.cirrus_names import table_of
from app.client.errors import AuthError, RequestError, StratoError
from app.client.models import Account, Transaction, TxResult

from .chains import all_chains
from .session import Session
from .tasks import TaskRegistry

log = logging.getLogger("stratoscope.services")

RECENT_LIMIT = 100
CERT_FIELDS = ("commonName", "organization", "organizationalUnit", "country", "isValid")
REALM_SUFFIX = "-realm"  # an asset application's realm chain is labelled "<App>-realm"
MAIN_CHAIN = "Main chain"


@dataclass(frozen=True)
class ChainRef:
    """What the history needs to know about a private chain: its name and what made it."""

    id: str
    label: str = ""
    parent: str = ""
    governance: str = ""  # the contract the chain was created with

    @property
    def name(self) -> str:
        return self.label or f"{self.id[:8]}…"


def chain_name(chain_id: str | None, chains: dict[str, ChainRef]) -> str:
    """The Chain column: "Main chain", a private chain's label, or its short ID."""
    if not chain_id:
        return MAIN_CHAIN
    ref = chains.get(chain_id)
    return ref.name if ref is not None else f"{chain_id[:8]}…"


def describe_tx(tx: Transaction, chains: dict[str, ChainRef], created: dict[str, str]) -> str:
    """What a transaction did, in words (the node says "GENESIS" for a chain's creation;
    ``created`` maps such a transaction's hash to the chain it created)."""
    kind = tx.kind
    if kind == "GENESIS":
        ref = chains.get(created.get(tx.hash, ""))
        if ref is None:
            return "Chain created"
        parent = chains.get(ref.parent)
        if parent is not None and parent.label.endswith(REALM_SUFFIX):
            app = parent.label[: -len(REALM_SUFFIX)]
            return f"Asset created: {ref.governance or ref.name} ({app})"
        if ref.label.endswith(REALM_SUFFIX):
            return f"Application created: {ref.label[: -len(REALM_SUFFIX)]}"
        return f"Chain created: {ref.name}"
    if kind == "Contract" or (not tx.to and kind in ("", "CONTRACT")):
        name = str(tx.metadata.get("name") or "")
        return f"Contract created: {name}" if name else "Contract created"
    if kind == "FunctionCall":
        func = str(tx.metadata.get("funcName") or "")
        return f"Call: {func}()" if func else "Function call"
    return kind or "Transaction"


@dataclass(frozen=True)
class AccountView:
    """What the account panel shows. ``identity`` is None when the user has no certificate;
    ``identity_error`` says why it could not be read (then ``identity`` means nothing)."""

    username: str
    address: str | None = None
    pubkey: str = ""
    balance: int | None = None
    nonce: int | None = None
    identity: dict[str, Any] | None = None
    identity_error: str = ""
    loaded: bool = False
    transactions: list[Transaction] = field(default_factory=list)
    chains: dict[str, ChainRef] = field(default_factory=dict)  # private chains, by ID
    created: dict[str, str] = field(default_factory=dict)  # GENESIS tx hash -> chain ID

    @property
    def has_identity(self) -> bool:
        return self.identity is not None and str(self.identity.get("isValid", "true")) != "False"


class AccountService(QObject):
    """Signals:
    changed(object): a new ``AccountView``.
    faucet_finished(object): the faucet's ``TxResult``.
    busy_changed(str): what runs now ("" when idle): "refresh", "create-key", "faucet".
    """

    changed = Signal(object)
    faucet_finished = Signal(object)
    busy_changed = Signal(str)

    def __init__(
        self, session: Session, tasks: TaskRegistry, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.tasks = tasks
        self.view = AccountView("")
        self._refreshing = False
        self._again = False
        self._chains: dict[str, ChainRef] = {}  # chains seen so far (labels do not change)
        self._created: dict[str, str] = {}
        self._unmatched: set[str] = set()  # GENESIS hashes no visible chain names
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(150)
        self._debounce.timeout.connect(lambda: self.request_refresh(background="new block"))
        session.user_changed.connect(self._on_user)
        session.block_changed.connect(lambda _n: self._debounce.start())

    def _emit(self, view: AccountView) -> None:
        self.view = view
        self.changed.emit(view)

    def _on_user(self, name: str) -> None:
        # another user sees other chains
        self._chains, self._created, self._unmatched = {}, {}, set()
        self._emit(AccountView(name))
        self.request_refresh()

    def request_refresh(self, *, background: str = "") -> None:
        """Refresh soon; coalesced with a refresh already running. ``background`` names the
        loop asking (the inspector marks its requests as polling)."""
        if self.session.client is None:
            return
        if self._refreshing:
            self._again = True
            return
        self.tasks.start("Refreshing the account", self.refresh(), background=background)

    async def refresh(self) -> AccountView:
        self._refreshing = True
        self.busy_changed.emit("refresh")
        try:
            while True:
                self._again = False
                view = await self._load()
                if view.username != self.session.username:
                    continue  # the user switched while this one loaded: load the new one
                self._emit(view)
                if not self._again:
                    return view
        finally:
            self._refreshing = False
            self.busy_changed.emit("")

    async def _load(self) -> AccountView:
        client = self.session.client
        if client is None:
            raise AuthError("not connected")
        name = self.session.username
        acct: Account | None
        if self.view.username == name and self.view.address:
            # a key never changes: only the first load (after each sign-in) asks for it
            acct = Account(self.view.address, self.view.pubkey)
        else:
            acct = await client.get_key()
        if acct is None:
            return AccountView(name, loaded=True)
        state = await client.account(acct.address)
        identity, identity_error = await self._identity(acct.address)
        txs = await self._recent(acct.address)
        await self._learn_chains(txs)
        return AccountView(
            name,
            acct.address,
            acct.pubkey,
            state.balance if state else 0,
            state.nonce if state else 0,
            identity,
            identity_error,
            True,
            txs,
            dict(self._chains),
            dict(self._created),
        )

    async def _identity(self, address: str) -> tuple[dict[str, Any] | None, str]:
        client = self.session.client
        assert client is not None
        try:
            table = await table_of(client, "Certificate")
            rows, _ = await client.cirrus(table, [("userAddress", f"eq.{address}"), ("limit", "1")])
        except RequestError as exc:
            return None, f"the certificate registry cannot be read: {exc.message}"
        if not rows:
            return None, ""
        row = rows[0]
        return {k: row.get(k, "") for k in CERT_FIELDS} | {
            "certificateString": row.get("certificateString", "")
        }, ""

    async def _recent(self, address: str) -> list[Transaction]:
        client = self.session.client
        assert client is not None
        try:
            txs = await client.transactions(address=address)
        except RequestError as exc:
            log.info("recent transactions unavailable: %s", exc)
            return []
        txs.sort(key=lambda t: (t.block_number, t.timestamp), reverse=True)
        return txs[:RECENT_LIMIT]

    async def _learn_chains(self, txs: list[Transaction]) -> None:
        """Names of the chains the history mentions, and which chain each GENESIS created;
        asked only when the history has a chain or a creation not seen before."""
        unknown = {t.chain_id for t in txs if t.chain_id and t.chain_id not in self._chains}
        creations = {
            t.hash
            for t in txs
            if t.kind == "GENESIS" and t.hash not in self._created and t.hash not in self._unmatched
        }
        if not unknown and not creations:
            return
        client = self.session.client
        assert client is not None
        try:
            found = await all_chains(client)
        except StratoError as exc:
            log.info("chain names unavailable: %s", exc)
            return
        for info in found:
            self._chains[info.id] = ChainRef(info.id, info.label, info.parent, info.governance)
            if info.creation_tx:
                self._created[info.creation_tx] = info.id
        self._unmatched |= creations - self._created.keys()

    async def create_key(self) -> AccountView:
        client = self.session.client
        if client is None:
            raise AuthError("not connected")
        self.busy_changed.emit("create-key")
        try:
            await client.ensure_key()
        finally:
            self.busy_changed.emit("")
        return await self.refresh()

    async def faucet(self) -> TxResult:
        """Ask the node's faucet for tokens; waits for the result (resolve=true)."""
        client = self.session.client
        if client is None:
            raise AuthError("not connected")
        address = self.view.address
        if not address:
            acct = await client.get_key()
            if acct is None:
                raise StratoError(f"{self.session.username} has no key yet: create it first")
            address = acct.address
        self.busy_changed.emit("faucet")
        try:
            result = await client.fill(address, username=self.session.username or "user")
        finally:
            self.busy_changed.emit("")
        self.faucet_finished.emit(result)
        await self.session.poll_health()  # the status bar shows the new block at once
        if result.status == "Failure":
            raise StratoError(f"the faucet transaction failed: {result.message or 'no reason'}")
        self.request_refresh()
        return result
