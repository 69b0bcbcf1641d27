"""Names for addresses: the one cache every view asks (address -> who or what it is).

A view never waits for a name: :meth:`NameService.lookup` answers from the cache at once (None
when unknown) and queues the address; the queued addresses are resolved together, on the event
loop's network I/O (never blocking the GUI thread), and :attr:`NameService.resolved` names the
addresses that got a name so that the views repaint them.

Where names come from, cheapest first, each read once per node and user:
- the app's contacts (the user's own names, shown first);
- the node's users with a certificate: the ``Certificate`` table of Cirrus, found by what the
  node lists (the seed's ``Certificate`` or STRATO 16's ``<creator>-Certificate`` view):
  common name and organisation;
- on the sandbox, its account table's users (``/stratoscope/accounts?kind=user``: those
  without a certificate too);
- the contracts the node lists (``/bloc/v2.2/contracts``: name and instances), one request;
- any address still unknown: its account (``/strato-api/eth/v1.2/account?address=``), whose
  ``contractName`` names a contract created since (a few at a time);
- still unknown: the contracts of the private chains the user sees (once), labelled with
  their chain (an asset's contract on its shard: ``Car · <the shard's label>``).
An address that none of these names is remembered as nameless (asked once).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.client.cirrus_names import table_of
from app.client.errors import StratoError

from .chains import all_chains
from .session import Session
from .tasks import TaskRegistry

log = logging.getLogger("stratoscope.services")

BATCH = 64  # unknown addresses looked up one by one per round, at most
READERS = 4  # account reads at once
FLUSH_MS = 30  # addresses asked within this long are resolved together
MAX_CHAINS = 100  # private chains whose contracts name addresses, at most
ACCOUNT_TABLE = "/stratoscope/accounts"  # the sandbox's own account table


def _ignore(_result: object) -> None:
    """A round's end: what it found was announced by ``resolved``; a failure leaves hex."""


def norm(address: str) -> str:
    return address.lower().removeprefix("0x")


def short_hex(address: str) -> str:
    """``1234ab…cdef``: an address as lists show it beside its name."""
    a = norm(address)
    return f"{a[:6]}…{a[-4:]}" if len(a) > 12 else a


@dataclass(frozen=True)
class AddressName:
    """Who or what an address is. ``kind``: ``user``, ``contract`` or ``contact`` (a name the
    user gave it); ``org``: a user's organisation; ``label``: a contract instance's label (the
    private chain it lives on), when it has one."""

    address: str
    kind: str
    name: str
    org: str = ""
    label: str = ""

    @property
    def text(self) -> str:
        """``alice (Acme)``, ``Token``, ``Car · CarDemo-realm``."""
        if self.kind == "user" and self.org:
            return f"{self.name} ({self.org})"
        if self.label:
            return f"{self.name} · {self.label}"
        return self.name


def display(address: str, name: AddressName | None) -> str:
    """An address as a list shows it: ``alice (Acme) · 1234ab…cdef`` or the short hex."""
    short = short_hex(address)
    return f"{name.text} · {short}" if name is not None else short


class NameService(QObject):
    """The app's names for addresses (one for the app: ``AppController.names``).

    Signals: resolved(list): addresses that now have a name (or another one); reset(): every
    name is forgotten (another node or user), the views ask again."""

    resolved = Signal(list)
    reset = Signal()

    def __init__(
        self,
        session: Session,
        parent: QObject | None = None,
        tasks: TaskRegistry | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.tasks = tasks  # the app's registry: a shutdown cancels a round under way
        self._names: dict[str, AddressName] = {}
        self._contacts: dict[str, AddressName] = {}
        self._nameless: set[str] = set()
        self._queued: set[str] = set()
        self._bulk_done = False
        self._private_done = False
        self._want_private = False  # a view met an address on a private chain
        self._on_chains: dict[tuple[str, str], AddressName] = {}  # (chain, address) -> name
        self._task: asyncio.Task[Any] | None = None
        self.requests = 0  # node reads made (the tests count them)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FLUSH_MS)
        self._timer.timeout.connect(self._flush)
        session.user_changed.connect(lambda _u: self.clear())
        session.state_changed.connect(lambda _s: self.clear())

    # ------------------------------------------------------------ what views call

    def lookup(self, address: str, chain: str = "") -> AddressName | None:
        """The name known for ``address`` now (None: unknown yet, and it is asked for).
        ``chain``: the private chain the address was met on (a contract there is not the main
        chain's: an asset's contract shares its address with every other shard's)."""
        a = norm(address)
        if not a:
            return None
        if chain:
            found = self._contacts.get(a) or self._on_chains.get((chain, a))
            if found is None:
                user = self._names.get(a)
                if user is not None and user.kind == "user":
                    return user
                if not self._private_done and not self._want_private:
                    self._want_private = True
                    if not self._timer.isActive():
                        self._timer.start()
            return found
        found = self._contacts.get(a) or self._names.get(a)
        if found is None and a not in self._nameless:
            self.request([a])
        return found

    def text(self, address: str, chain: str = "") -> str:
        """``name · short hex`` or the short hex (and the name asked for)."""
        return display(address, self.lookup(address, chain))

    def known(self, address: str, chain: str = "") -> AddressName | None:
        """The name known now, without asking the node."""
        a = norm(address)
        if chain:
            return self._contacts.get(a) or self._on_chains.get((chain, a))
        return self._contacts.get(a) or self._names.get(a)

    def request(self, addresses: Iterable[str]) -> None:
        """Resolve these addresses soon (with every other one asked meanwhile)."""
        fresh = {
            norm(a)
            for a in addresses
            if a and norm(a) not in self._names and norm(a) not in self._nameless
        }
        if not fresh:
            return
        self._queued |= fresh
        if not self._timer.isActive():
            self._timer.start()

    def set_contacts(self, contacts: dict[str, str]) -> None:
        """The address book (name -> address): its names come first."""
        before = set(self._contacts)
        self._contacts = {
            norm(a): AddressName(norm(a), "contact", n) for n, a in contacts.items() if a
        }
        changed = sorted(before | set(self._contacts))
        if changed:
            self.resolved.emit(changed)

    def clear(self) -> None:
        """Forget the node's names (another node or user sees other contracts and chains)."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        known = bool(self._names)
        self._names.clear()
        self._nameless.clear()
        self._queued.clear()
        self._on_chains.clear()
        self._bulk_done = self._private_done = self._want_private = False
        if known:
            self.reset.emit()

    async def resolve(self, addresses: Iterable[str], chain: str = "") -> dict[str, AddressName]:
        """The names of ``addresses`` (those that have one; met on ``chain``), read from the
        node if needed."""
        wanted = {norm(a) for a in addresses if a}
        if chain and not self._private_done:
            self._want_private = True
        await self._resolve(wanted - set(self._names) - self._nameless)
        return {a: n for a in wanted if (n := self.known(a, chain) or self.known(a)) is not None}

    # ------------------------------------------------------------ reading

    def _flush(self) -> None:
        if self._task is not None and not self._task.done():
            self._timer.start()  # one round at a time; this one follows
            return
        queued, self._queued = self._queued, set()
        if (not queued and not self._want_private) or self.session.client is None:
            return
        if self.tasks is None:
            self._task = asyncio.ensure_future(self._round(queued))
        else:
            self._task = self.tasks.start(
                "Naming addresses", self._round(queued), _ignore, _ignore, background="names"
            )

    async def _round(self, addresses: set[str]) -> None:
        try:
            await self._resolve(addresses)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a name is a nicety: the address stays shown as hex
            log.info("cannot resolve names: %s", exc)
        if self._queued:
            self._timer.start()

    async def _resolve(self, addresses: set[str]) -> None:
        client = self.session.client
        if client is None or not (addresses or self._want_private):
            return
        got: list[str] = []
        if self._want_private and not self._private_done:
            self._private_done = True
            got += await self._private(client)
        if not self._bulk_done:
            self._bulk_done = True
            got += await self._bulk(client)
        rest = sorted(addresses - set(self._names) - self._nameless)[:BATCH]
        sem = asyncio.Semaphore(READERS)

        async def one(a: str) -> None:
            async with sem:
                self.requests += 1
                try:
                    state = await client.account(a)
                except StratoError:
                    state = None
            name = getattr(state, "contract_name", None) if state is not None else None
            if name:
                self._names[a] = AddressName(a, "contract", str(name))
                got.append(a)
            else:
                self._nameless.add(a)

        await asyncio.gather(*(one(a) for a in rest))
        missing = [a for a in rest if a in self._nameless]
        if missing and not self._private_done:
            self._private_done = True
            got += await self._private(client)
        for a in missing:  # met on the main chain's side: named if one private chain has it
            found = {n for (_c, b), n in self._on_chains.items() if b == a}
            if len(found) == 1:
                self._names[a] = found.pop()
                self._nameless.discard(a)
                got.append(a)
        if got:
            self.resolved.emit(sorted(set(got)))

    async def _private(self, client: Any) -> list[str]:
        """Contracts of the private chains the user sees, labelled with their chain (read
        once, when an address is still unknown after the main chain's reads)."""
        try:
            self.requests += 1
            chains = (await all_chains(client))[:MAX_CHAINS]
        except StratoError as exc:
            log.info("no private chains to name contracts by: %s", exc)
            return []
        sem = asyncio.Semaphore(READERS)
        got: list[str] = []

        async def listed(chain: Any) -> None:
            async with sem:
                self.requests += 1
                try:
                    data = await client.contracts(chain.id)
                except StratoError:
                    return
            label = chain.label or f"chain {chain.id[:8]}…"
            for name, entries in data.items():
                for e in entries if isinstance(entries, list) else []:
                    a = norm(str(e.get("address") or "")) if isinstance(e, dict) else ""
                    if a:
                        named = AddressName(a, "contract", str(name), label=label)
                        self._on_chains[(chain.id, a)] = named
                        got.append(a)

        await asyncio.gather(*(listed(c) for c in chains))
        return got

    async def _bulk(self, client: Any) -> list[str]:
        """Users (Cirrus' certificates) and listed contracts, one request each."""
        got: list[str] = []
        try:
            self.requests += 1
            rows, _ = await client.cirrus(
                await table_of(client, "Certificate"),
                [("select", "commonName,organization,userAddress"), ("limit", "10000")],
            )
        except StratoError as exc:
            log.info("no certificates to name users by: %s", exc)
            rows = []
        for r in rows:
            a = norm(str(r.get("userAddress") or ""))
            if a and r.get("commonName"):
                self._names[a] = AddressName(
                    a, "user", str(r["commonName"]), str(r.get("organization") or "")
                )
                got.append(a)
        try:  # the sandbox's account table also names users without a certificate
            self.requests += 1
            data = await client.json(
                "GET", ACCOUNT_TABLE, params={"kind": "user", "limit": 1000, "sort": "name"}
            )
        except StratoError:
            data = {}  # a STRATO node: no such table
        for r in data.get("accounts", []) if isinstance(data, dict) else []:
            a = norm(str(r.get("address") or ""))
            if a and r.get("name") and a not in self._names:
                self._names[a] = AddressName(
                    a, "user", str(r["name"]), str(r.get("organization") or "")
                )
                got.append(a)
        try:
            self.requests += 1
            listed = await client.contracts()
        except StratoError as exc:
            log.info("no contract list to name contracts by: %s", exc)
            listed = {}
        for name, entries in listed.items():
            for e in entries if isinstance(entries, list) else []:
                if not isinstance(e, dict) or not e.get("address"):
                    continue
                a = norm(str(e["address"]))
                if a not in self._names:
                    self._names[a] = AddressName(a, "contract", str(name))
                    got.append(a)
        return got
