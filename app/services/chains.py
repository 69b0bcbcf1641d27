"""Private chains for the chain browser: typed chain records, their activity, and creation.

Chain reads differ between the seed, the sandbox and the real platform (``info`` may lack
fields, members may be ``{access}`` alone, balances arrive as strings or numbers, in ``balances``
or in ``accountInfo``), so ``ChainInfo.from_json`` accepts all of them. Membership events have no
``chainId`` column in Cirrus: they are found through the chain's own transactions, by
``transaction_hash`` in the ``<Contract>.<Event>`` tables of the contracts on the chain.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.client.abi_types import ContractSpec
from app.client.cirrus_names import names_of, table_of
from app.client.cirrus_query import STANDARD_COLUMNS
from app.client.errors import AuthError, RequestError, StratoError
from app.client.models import Transaction, as_bool, as_int

from .composer import Preview
from .session import Session

GOVERNANCE_ADDRESS = "0000000000000000000000000000000000000100"
CHAIN_PAGE = 100  # the platform's and the sandbox's row cap for chain and transaction lists
MAX_CHAINS = 5_000
MAX_TRANSACTIONS = 2_000
HASHES_PER_QUERY = 40  # keeps a transaction_hash=in.(...) URL well under 4 KB
MAX_CONTRACT_NAMES = 50

# the seed's names, then the platform's (reference 1.6); the sandbox honours all of them
MEMBERSHIP_EVENTS = (
    "OrganizationAdded",
    "OrganizationRemoved",
    "OrgAdded",
    "OrgRemoved",
    "OrgUnitAdded",
    "OrgUnitRemoved",
    "CommonNameAdded",
    "CommonNameRemoved",
)
EVENT_META = {"id", *STANDARD_COLUMNS}

# A governance contract the wizard starts from: its functions emit the platform's membership
# events, so the chain's members can be changed after creation.
GOVERNANCE_TEMPLATE = """\
contract Governance {
    address public owner;

    event OrgAdded(string org);
    event OrgRemoved(string org);
    event OrgUnitAdded(string org, string unit);
    event OrgUnitRemoved(string org, string unit);
    event CommonNameAdded(string org, string unit, string commonName);
    event CommonNameRemoved(string org, string unit, string commonName);

    constructor() public {
        owner = tx.origin;
    }

    function addOrg(string org) public {
        require(tx.origin == owner, "only the owner changes members");
        emit OrgAdded(org);
    }

    function removeOrg(string org) public {
        require(tx.origin == owner, "only the owner changes members");
        emit OrgRemoved(org);
    }

    function addOrgUnit(string org, string unit) public {
        require(tx.origin == owner, "only the owner changes members");
        emit OrgUnitAdded(org, unit);
    }

    function removeOrgUnit(string org, string unit) public {
        require(tx.origin == owner, "only the owner changes members");
        emit OrgUnitRemoved(org, unit);
    }

    function addMember(string org, string unit, string commonName) public {
        require(tx.origin == owner, "only the owner changes members");
        emit CommonNameAdded(org, unit, commonName);
    }

    function removeMember(string org, string unit, string commonName) public {
        require(tx.origin == owner, "only the owner changes members");
        emit CommonNameRemoved(org, unit, commonName);
    }
}
"""


# ---------------------------------------------------------------------------- records


def _text(v: Any) -> str:
    return "" if v is None else str(v)


def _dicts(v: Any) -> list[dict[str, Any]]:
    """A list of objects; a single object counts as a list of one (some versions send one)."""
    if isinstance(v, dict):
        return [v]
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


def norm_hex(v: Any) -> str:
    return _text(v).strip().lower().removeprefix("0x")


@dataclass(frozen=True)
class ChainMember:
    """One member entry: empty parts are wildcards; ``{access}`` alone means everyone."""

    org: str = ""
    unit: str = ""
    common_name: str = ""
    access: bool = True

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ChainMember:
        return cls(
            _text(d.get("orgName", d.get("organization"))),
            _text(d.get("orgUnit", d.get("organizationalUnit"))),
            _text(d.get("commonName")),
            as_bool(d.get("access", True)),
        )

    def to_json(self) -> dict[str, Any]:
        """The platform's member forms: empty parts are left out, so ``{access}`` alone means
        everyone and ``{orgName, access}`` a whole organization (reference 1.6)."""
        out: dict[str, Any] = {"access": self.access}
        for key, value in (
            ("orgName", self.org),
            ("orgUnit", self.unit),
            ("commonName", self.common_name),
        ):
            if value:
                out[key] = value
        return out

    def describe(self) -> str:
        if not self.org:
            return "everyone" if not (self.unit or self.common_name) else "(no organization)"
        if self.common_name:
            return f"user {self.common_name} ({self.org} / {self.unit or '*'})"
        if self.unit:
            return f"unit {self.org} / {self.unit}"
        return f"organization {self.org}"


@dataclass(frozen=True)
class ChainBalance:
    address: str
    balance: int
    code_hash: str = ""  # set for a contract account (the governance contract)


@dataclass(frozen=True)
class ChainInfo:
    """One private chain as the browser shows it; ``raw`` keeps what the node sent."""

    id: str
    label: str = ""
    parent: str = ""  # "" = a child of the main chain
    members: tuple[ChainMember, ...] = ()
    balances: tuple[ChainBalance, ...] = ()
    governance: str = ""  # the governance contract's name
    source: str = ""  # and its source code
    code_hash: str = ""
    metadata: dict[str, str] = field(default_factory=dict)
    creation_block: str = ""  # hash
    creation_number: int = -1
    creation_tx: str = ""
    creator: str = ""
    raw: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ChainInfo:
        info = d.get("info") if isinstance(d.get("info"), dict) else d
        assert isinstance(info, dict)
        cid = norm_hex(d.get("id") or d.get("chainId") or info.get("chainId"))
        parent = norm_hex(info.get("parentChain"))
        if parent and not parent.strip("0"):
            parent = ""  # an all-zero ID names the main chain too
        codes = _dicts(info.get("codeInfo"))
        gov = codes[0] if codes else {}
        metadata_in = info.get("metadata")
        metadata = (
            {str(k): _text(v) for k, v in metadata_in.items()}
            if isinstance(metadata_in, dict)
            else {}
        )
        balances = _balances(info)
        return cls(
            id=cid,
            label=_text(info.get("label")),
            parent=parent,
            members=tuple(ChainMember.from_json(m) for m in _dicts(info.get("members"))),
            balances=balances,
            governance=_text(gov.get("name") or info.get("contract") or metadata.get("name")),
            source=_text(gov.get("src") or info.get("src")),
            code_hash=next(
                (b.code_hash for b in balances if b.code_hash),
                _text(gov.get("codeHash")),
            ),
            metadata=metadata,
            creation_block=_text(info.get("creationBlock")),
            creation_number=as_int(info.get("creationBlockNumber"), -1),
            creation_tx=norm_hex(info.get("creationTx")),
            creator=norm_hex(info.get("creator")),
            raw=dict(d),
        )

    @property
    def vm(self) -> str:
        return self.metadata.get("VM", "")

    @property
    def history(self) -> str:
        return self.metadata.get("history", "")

    def title(self) -> str:
        return self.label or f"(no label) {self.id[:8]}…"


def _balances(info: dict[str, Any]) -> tuple[ChainBalance, ...]:
    """Current balances from ``accountInfo`` (the platform's, with the governance contract),
    completed by the seed's and BlockApps-REST's ``balances`` list."""
    out: dict[str, ChainBalance] = {}
    for src in (info.get("accountInfo"), info.get("balances")):
        for b in _dicts(src):
            address = norm_hex(b.get("address"))
            if address and address not in out:
                out[address] = ChainBalance(
                    address, as_int(b.get("balance")), _text(b.get("codeHash"))
                )
    return tuple(out.values())


@dataclass(frozen=True)
class Identity:
    """A user with a certificate: what a member entry or a balance can name."""

    common_name: str
    organization: str
    unit: str
    address: str


@dataclass(frozen=True)
class ChainContract:
    name: str
    address: str
    chain_id: str
    created_ms: float = 0.0


@dataclass(frozen=True)
class MembershipEvent:
    """A membership event emitted on a chain, with where and when."""

    event: str
    contract: str
    address: str
    args: tuple[tuple[str, str], ...]  # (field, value) in declaration order
    block_number: int
    timestamp: str
    tx_hash: str
    sender: str
    row_id: int = 0

    @property
    def added(self) -> bool:
        return self.event.endswith("Added")

    def change(self) -> str:
        """The change in words: ``+ organization Globex``, ``- unit Acme / Sales``."""
        values = [v for _, v in self.args]
        kind = (
            "user"
            if self.event.startswith("CommonName")
            else "unit"
            if self.event.startswith("OrgUnit")
            else "organization"
        )
        if kind == "user" and len(values) >= 3:
            what = f"{values[2]} ({values[0]} / {values[1]})"
        else:
            what = " / ".join(values)
        return f"{'+' if self.added else '-'} {kind} {what}"


@dataclass
class ChainActivity:
    """What happened on one chain: its contracts, transactions and membership events."""

    chain_id: str
    contracts: list[ChainContract] = field(default_factory=list)
    transactions: list[Transaction] = field(default_factory=list)
    events: list[MembershipEvent] = field(default_factory=list)
    note: str = ""  # why something could not be listed
    truncated: bool = False  # more transactions exist than were read


@dataclass
class ChainDraft:
    """The creation wizard's form: everything a chain creation request can say."""

    label: str = ""
    contract: str = ""
    src: str = ""  # governance from source ...
    code_ptr_address: str = ""  # ... or from deployed code (address, and chain when private)
    code_ptr_chain: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    members: list[ChainMember] = field(default_factory=list)
    balances: list[tuple[str, int]] = field(default_factory=list)
    parent: str = ""
    vm: str = "SolidVM"
    history: str = ""

    @property
    def from_code(self) -> bool:
        return bool(self.code_ptr_address)

    def code_ptr_account(self) -> str:
        a = norm_hex(self.code_ptr_address)
        return f"{a}:{self.code_ptr_chain}" if self.code_ptr_chain else a

    def problems(self) -> list[str]:
        """What keeps the request from being built at all. Missing members or only zero
        balances are not here: the node says so in its own words (the rules differ)."""
        out: list[str] = []
        if not self.contract:
            out.append("choose the governance contract")
        if self.from_code:
            if not _is_hex(norm_hex(self.code_ptr_address), 40):
                out.append("the deployed contract's address is 40 hex digits")
            if self.code_ptr_chain and not _is_hex(self.code_ptr_chain, 64):
                out.append("the deployed contract's chain ID is 64 hex digits")
        elif not self.src.strip():
            out.append("the governance contract needs its source code")
        if self.parent and not _is_hex(self.parent, 64):
            out.append("the parent chain ID is 64 hex digits")
        for i, (address, amount) in enumerate(self.balances, 1):
            if not _is_hex(norm_hex(address), 40):
                out.append(f"balance {i}: the address is 40 hex digits")
            if amount < 0:
                out.append(f"balance {i}: the amount is at least 0")
        for i, m in enumerate(self.members, 1):
            if (m.unit or m.common_name) and not m.org:
                out.append(f"member {i}: a unit or common name needs its organization")
        if self.vm not in ("SolidVM", "EVM"):
            out.append("the VM is SolidVM or EVM")
        return out

    def warnings(self) -> list[str]:
        """What the node will probably refuse, said before sending."""
        out: list[str] = []
        if not self.label.strip():
            out.append("no label: the chain will be known by its ID alone")
        if not self.members:
            out.append("no members: nodes refuse a chain without members")
        if not any(amount > 0 for _, amount in self.balances):
            out.append("no non-zero balance: the platform wants at least one, even with gas off")
        if not any(m.access for m in self.members) and self.members:
            out.append("no member has access: nobody will be able to read the chain")
        return out

    def to_body(self) -> dict[str, Any]:
        """The chain creation request (seed 000, reference 1.6), in the seed's field order."""
        body: dict[str, Any] = {"contract": self.contract}
        if not self.from_code:
            body["src"] = self.src
        body["args"] = dict(self.args)
        body["members"] = [m.to_json() for m in self.members]
        body["balances"] = [
            {"address": norm_hex(a), "balance": amount} for a, amount in self.balances
        ]
        body["label"] = self.label
        if self.parent:
            body["parentChain"] = self.parent
        if self.from_code:
            body["codePtr"] = {"account": self.code_ptr_account(), "name": self.contract}
        metadata = {"VM": self.vm}
        if self.history.strip():
            metadata["history"] = self.history.strip()
        body["metadata"] = metadata
        body["name"] = self.contract
        return body


def _is_hex(s: str, n: int) -> bool:
    return len(s) == n and all(c in "0123456789abcdef" for c in s)


# ---------------------------------------------------------------------------- service


async def all_chains(client: Any) -> list[ChainInfo]:
    """Every chain the user can access, page by page (a node that ignores paging answers the
    same page twice, which ends the loop)."""
    out: dict[str, ChainInfo] = {}
    offset = 0
    while offset < MAX_CHAINS:
        page = await client.chains(limit=CHAIN_PAGE, offset=offset)
        fresh = 0
        for d in page:
            c = ChainInfo.from_json(d)
            if c.id and c.id not in out:
                out[c.id] = c
                fresh += 1
        if len(page) < CHAIN_PAGE or not fresh:
            break
        offset += len(page)
    return list(out.values())


class ChainService(QObject):
    """Signals: created(str): a chain this app created (its ID), whoever asked for it."""

    created = Signal(str)

    def __init__(self, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session

    def _client(self) -> Any:
        if self.session.client is None:
            raise AuthError("not connected")
        return self.session.client

    # ------------------------------------------------------------ reads

    async def chains(self) -> list[ChainInfo]:
        """Every chain the user can access."""
        return await all_chains(self._client())

    async def chain(self, chain_id: str) -> ChainInfo | None:
        data = await self._client().chains([chain_id])
        found = [ChainInfo.from_json(d) for d in data]
        return next((c for c in found if c.id == chain_id), None)

    async def identities(self) -> list[Identity]:
        """Users with a certificate (the node's ``Certificate`` table, ``BlockApps-Certificate``
        on STRATO 16), by organization."""
        client = self._client()
        rows, _ = await client.cirrus(
            await table_of(client, "Certificate"),
            [
                ("select", "commonName,organization,organizationalUnit,userAddress"),
                ("limit", "1000"),
            ],
        )
        seen: dict[str, Identity] = {}
        for r in rows:
            if not isinstance(r, dict) or not r.get("commonName"):
                continue
            ident = Identity(
                _text(r.get("commonName")),
                _text(r.get("organization")),
                _text(r.get("organizationalUnit")),
                norm_hex(r.get("userAddress")),
            )
            seen[ident.address or ident.common_name] = ident
        return sorted(seen.values(), key=lambda i: (i.organization, i.unit, i.common_name))

    async def my_address(self) -> str:
        """The signed-in user's address ("" when the user has no key yet)."""
        acct = await self._client().get_key()
        return acct.address if acct is not None else ""

    async def contracts(self, chain_id: str = "") -> list[ChainContract]:
        """The node's contracts on one chain ("" = main), newest first."""
        data = await self._client().contracts(chain_id or None)
        out: list[ChainContract] = []
        for name, entries in data.items():
            for e in _dicts(entries):
                if e.get("address"):
                    out.append(
                        ChainContract(
                            str(name),
                            norm_hex(e["address"]),
                            norm_hex(e.get("chainId")),
                            float(as_int(e.get("createdAt"))),
                        )
                    )
        out.sort(key=lambda c: (-c.created_ms, c.name, c.address))
        return out

    async def transactions(self, chain: ChainInfo | None) -> tuple[list[Transaction], bool]:
        """The chain's transactions, oldest first, its creation included when the node names
        it; and whether there were more than ``MAX_TRANSACTIONS``. The main chain gets the
        node's latest 100."""
        client = self._client()
        if chain is None:
            latest = await client.last_transactions(CHAIN_PAGE)
            main = [t for t in latest if not t.chain_id]
            return sorted(main, key=lambda t: (t.block_number, t.hash)), False
        out: dict[str, Transaction] = {}
        if chain.creation_tx:
            for t in await client.transactions(hash=chain.creation_tx):
                out.setdefault(t.hash, t)
        offset = 0
        truncated = False
        while True:
            page = await client.transactions(chainid=chain.id, limit=CHAIN_PAGE, offset=offset)
            fresh = [t for t in page if t.hash not in out]
            for t in fresh:
                out[t.hash] = t
            if len(page) < CHAIN_PAGE or not fresh:
                break
            offset += len(page)
            if offset >= MAX_TRANSACTIONS:
                truncated = True
                break
        return list(out.values()), truncated

    async def activity(self, chain: ChainInfo | None) -> ChainActivity:
        """Contracts, transactions and membership events of a chain (None = the main chain)."""
        cid = chain.id if chain is not None else ""
        act = ChainActivity(cid)
        act.contracts = await self.contracts(cid)
        act.transactions, act.truncated = await self.transactions(chain)
        if chain is not None:
            act.events, act.note = await self.membership_events(
                chain, act.contracts, [t.hash for t in act.transactions]
            )
        return act

    async def membership_events(
        self, chain: ChainInfo, contracts: list[ChainContract], hashes: Iterable[str]
    ) -> tuple[list[MembershipEvent], str]:
        """Membership events of the chain's contracts in the chain's transactions.

        Event tables have no ``chainId``; a table that does not exist (404) means nobody ever
        emitted that event. Returns the events by block and a note when they cannot be found.
        """
        hash_list = sorted({h for h in hashes if h})
        if not hash_list:
            return [], ""
        names: dict[str, str] = {}  # contract name -> one address (for its interface)
        for c in contracts:
            names.setdefault(c.name, c.address)
        if chain.governance:
            names.setdefault(chain.governance, GOVERNANCE_ADDRESS)
        found: list[MembershipEvent] = []
        # event tables appear with the first emit: the list must be newer than these
        # transactions (one re-read for the lot, not one per contract)
        after = "txs:" + hashlib.sha1(",".join(hash_list).encode()).hexdigest()
        for name, address in list(names.items())[:MAX_CONTRACT_NAMES]:
            fields = await self._membership_fields(name, address, chain.id)
            for event, declared in fields.items():
                try:
                    found += await self._event_rows(name, event, declared, hash_list, after)
                except RequestError as exc:
                    if exc.status == 400 and "transaction_hash" in exc.message:
                        return [], (
                            "this node's event tables do not record transactions (STRATO "
                            "before 10): membership events cannot be matched to the chain"
                        )
                    raise
        found.sort(key=lambda e: (e.block_number, e.row_id, e.contract, e.event))
        client = self._client()
        book = names_of(client).cached()
        if not found and book is not None and book.listed and not book.serves_seed:
            return [], (
                "this node serves STRATO 16's Cirrus names only, whose event views record no "
                "transaction and no chain: membership events cannot be matched to the chain"
            )
        return found, ""

    async def _membership_fields(
        self, name: str, address: str, chain_id: str
    ) -> dict[str, list[str]]:
        """The membership events the contract declares, with their field names; every
        membership event name (fields unknown) when its interface cannot be read."""
        try:
            details = await self._client().details(name, address, chain_id)
        except StratoError:
            details = {}
        x = details.get("xabi")
        if not isinstance(x, dict):
            return {e: [] for e in MEMBERSHIP_EVENTS}
        spec = ContractSpec.from_xabi(name, x)
        return {
            ev.name: [f for f, _ in ev.type.fields]
            for ev in spec.events
            if ev.name in MEMBERSHIP_EVENTS
        }

    async def _event_rows(
        self, contract: str, event: str, declared: list[str], hashes: list[str], after: str = ""
    ) -> list[MembershipEvent]:
        """The event's rows in these transactions, from every event table the node lists for
        the contract (``Governance.OrgAdded``, ``Acme-CarDemo-Governance.OrgAdded`` ...)."""
        client = self._client()
        names = await names_of(client).names(client, want=contract, after=after)
        # the seed's tables only: STRATO 16 has no private chains, and its event views record
        # no transaction to match the chain's against
        tables = [t for t in names.event_tables(contract, event) if names.family(t) == "seed"]
        if not tables and not names.listed:
            tables = [f"{contract}.{event}"]
        out: list[MembershipEvent] = []
        for table in tables:
            out += await self._table_event_rows(table, contract, event, declared, hashes)
        return out

    async def _table_event_rows(
        self, table: str, contract: str, event: str, declared: list[str], hashes: list[str]
    ) -> list[MembershipEvent]:
        out: list[MembershipEvent] = []
        for i in range(0, len(hashes), HASHES_PER_QUERY):
            chunk = hashes[i : i + HASHES_PER_QUERY]
            try:
                rows, _ = await self._client().cirrus(
                    table,
                    [("transaction_hash", f"in.({','.join(chunk)})"), ("order", "id")],
                )
            except RequestError as exc:
                if exc.status == 404:
                    return out  # never emitted anywhere: no table
                raise
            for r in rows:
                if not isinstance(r, dict):
                    continue
                names = declared or [k for k in r if k not in EVENT_META]
                out.append(
                    MembershipEvent(
                        event,
                        contract,
                        norm_hex(r.get("address")),
                        tuple((n, _text(r.get(n, r.get(f"{n}_")))) for n in names),
                        as_int(r.get("block_number"), -1),
                        _text(r.get("block_timestamp")),
                        norm_hex(r.get("transaction_hash")),
                        norm_hex(r.get("transaction_sender")),
                        as_int(r.get("id")),
                    )
                )
        return out

    # ------------------------------------------------------------ creation

    def preview(self, body: dict[str, Any], parent_label: str = "") -> Preview:
        """The exact request ``create`` sends, for the wizard's review page."""
        client = self._client()
        where = f"child of {parent_label}" if body.get("parentChain") else "child of the main chain"
        return Preview(
            "POST", f"{client.base_url}/bloc/v2.2/chain", body, self.session.username, where
        )

    async def create(self, body: dict[str, Any]) -> str:
        """Create the chain; its ID (64 hex digits). The node's refusal raises with its words."""
        answer = await self._client().create_chain(body)
        cid = norm_hex(answer.strip().strip('"'))
        if not _is_hex(cid, 64):
            raise RequestError(
                f"the node did not answer with a chain ID: {json.dumps(answer)[:200]}"
            )
        self.created.emit(cid)
        return cid
