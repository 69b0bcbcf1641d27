"""The ledger: accepts transactions, runs them in blocks, keeps results, state and durability.

Life of a transaction: ``submit`` validates the whole request up front (nothing is queued when
anything is wrong), signs each transaction with the sender's vault key, writes it to the database
as ``Pending`` and only then hands out its hash. The block producer runs the queue in order, seals
a block and commits the block, the results and the events in one SQLite transaction.

Contract storage is written in snapshots (every few hundred blocks, every few seconds and at
shutdown). On start the node loads the last snapshot and re-runs the blocks committed after it:
execution is deterministic (each block records its timestamp), so the state comes back exactly,
and transactions still ``Pending`` run in new blocks. Nothing whose hash was returned is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from . import certs
from .chains import Chain, parse_member
from .cirrus.backend import CirrusBackend
from .cirrus.collections import CollectionIndexer
from .cirrus.indexer import Indexer, cirrus_timestamp
from .config import NodeConfig
from .errors import ApiError, bad_request
from .genesis import (
    DEMO_BALANCE,
    DEMO_USERS,
    FAUCET_AMOUNT,
    REGISTRY_ADDRESS,
    REGISTRY_SOURCE,
    ROOT_USER,
)
from .solidvm import (
    ArgumentError,
    CompiledUnit,
    ContractDef,
    ParseError,
    SolidVMError,
    TxEnv,
    World,
    compile_source,
    contract_address,
)
from .solidvm.abi import decode_args
from .solidvm.ops import keccak256
from .solidvm.persist import dump_value, load_value
from .solidvm.values import Address, default_value
from .solidvm.world import AccountState, ExecResult
from .state_diff import tx_state_diff
from .store import Store, dumps
from .vault import Vault

log = logging.getLogger("stratoscope.node")

ZERO_HASH = "0" * 64
HEX = set("0123456789abcdef")
TX_TYPES = ("TRANSFER", "CONTRACT", "FUNCTION")
GOVERNANCE = int("100", 16)
GOVERNANCE_HEX = format(GOVERNANCE, "040x")
DEFAULT_GAS_LIMIT = 100_000_000
DEFAULT_GAS_PRICE = 1
BASE_GAS = 21_000
NODE_MAX_STEPS = 2_000_000
MAX_TXS_PER_REQUEST = 5_000
SNAPSHOT_EVERY_BLOCKS = 500
SNAPSHOT_EVERY_SECONDS = 5.0
RESULT_CACHE = 20_000


def hex64(n: int) -> str:
    return format(n, "064x")


def norm_address(value: Any, what: str) -> str:
    """40 lowercase hex digits from a string with or without 0x; 400 otherwise."""
    if not isinstance(value, str):
        raise bad_request(f"{what} must be a string of 40 hex digits, got {json.dumps(value)}")
    h = value[2:] if value[:2] in ("0x", "0X") else value
    h = h.lower()
    if len(h) != 40 or not set(h) <= HEX:
        raise bad_request(f"{what} must be 40 hex digits, got {json.dumps(value)[:60]}")
    return h


def norm_chain(value: Any, what: str = "chainid") -> str:
    """64-hex chain id; empty for the main chain."""
    if value is None or value == "":
        return ""
    if not isinstance(value, str):
        raise bad_request(f"{what} must be a string of 64 hex digits")
    h = value[2:] if value[:2] in ("0x", "0X") else value
    h = h.lower()
    if h == "main":
        return ""
    if not h or len(h) > 64 or not set(h) <= HEX:
        raise bad_request(f"{what} must be 64 hex digits, got {json.dumps(value)[:80]}")
    return h.rjust(64, "0")


def parse_amount(value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise bad_request(f"{what} must be a non-negative integer")
    if isinstance(value, int):
        n = value
    elif isinstance(value, float) and value.is_integer():
        n = int(value)
    elif (
        isinstance(value, str) and value.isascii() and value.strip().isdigit() and len(value) < 100
    ):
        n = int(value.strip())
    else:
        raise bad_request(f"{what} must be a non-negative integer, got {json.dumps(value)[:60]}")
    if n < 0 or n.bit_length() > 256:
        raise bad_request(f"{what} must be a non-negative integer below 2**256")
    return n


@dataclass
class Sub:
    """A submitted transaction."""

    seq: int
    hash: str
    sender: str
    username: str
    type: str
    payload: dict[str, Any]
    chain: str
    gas_limit: int
    gas_price: int
    submitted_at: float
    resolve: bool = False
    internal: bool = False
    signature: dict[str, str] = field(default_factory=dict)
    future: asyncio.Future[dict[str, Any]] | None = None
    nonce: int = -1
    recorded: bool = False  # its row is in the database

    def request_json(self) -> str:
        return dumps(
            {
                "type": self.type,
                "payload": self.payload,
                "gasLimit": self.gas_limit,
                "gasPrice": self.gas_price,
                "internal": self.internal,
                "signature": self.signature,
            }
        )


@dataclass
class ContractMeta:
    name: str
    code_hash: str
    creator: str
    created_block: int
    created_tx: str
    updated_block: int
    updated_tx: str
    history: str = ""
    org: str = ""
    app: str = ""
    table: str = ""


@dataclass
class Head:
    number: int = -1
    hash: str = ZERO_HASH
    timestamp: int = 0


class Ledger:
    """All chain state of the node and the block producer that advances it."""

    def __init__(self, config: NodeConfig, store: Store, vault: Vault) -> None:
        self.config = config
        self.store = store
        self.vault = vault
        self.world = World()
        # sources compiled at run time by create()/create2() join the code table
        self.world.compile_hook = lambda src, vm: self.unit(vm, src)[1]
        self.world.test_clock = config.test_clock
        self.units: dict[str, CompiledUnit] = {}
        self.codes: dict[str, tuple[str, str]] = {}  # code hash -> (vm, source)
        self.new_codes: set[str] = set()
        self.meta: dict[tuple[str, int], ContractMeta] = {}
        self.head = Head()
        self.queue: list[Sub] = []
        self.wakeup = asyncio.Event()
        self.results: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.dirty_contracts: dict[tuple[str, int], AccountState] = {}
        self.dirty_balances: set[tuple[str, int]] = set()
        self.blocks_since_snapshot = 0
        self.last_snapshot = time.monotonic()
        self.started = time.time()
        self.block_listeners: list[Any] = []
        self._producer: asyncio.Task[None] | None = None
        self._seq = 0
        self.root_address = ""
        self._pending_events: list[tuple[str, str, str, str, str, str]] = []
        self._event_senders: dict[str, str] = {}  # tx hash -> sender, for the event rows
        self.watchers: dict[str, list[asyncio.Future[dict[str, Any]]]] = {}
        self._block_touched: dict[tuple[str, int], tuple[str, str]] = {}
        self.halted: str | None = None
        self.chains: dict[str, Chain] = {}
        self._chain_seq = 0  # makes chain ids unique within a nanosecond
        self._sealed: dict[str, bytes] = {}  # address -> sealed key (b"" when none)
        self.dirty_chains: set[str] = set()
        self._pending_history: list[tuple[str, ContractDef, dict[str, Any]]] = []
        self._root_cert = ""  # the operator's certificate, issuer of the users' ones
        backend = CirrusBackend(store.db, store.path)
        self.indexer = Indexer(backend, self.world, config.index_evm)
        self.collections = CollectionIndexer(backend, self.world)

    # ================================================================ start-up

    def open(self) -> None:
        """Load state from the database (creating the genesis on a fresh data dir)."""
        fresh = self.store.one("SELECT 1 FROM blocks LIMIT 1") is None and (
            self.store.one("SELECT 1 FROM txs LIMIT 1") is None
        )
        if fresh:
            self._create_users()
        self._load_snapshot()
        self._seq = int((self.store.one("SELECT MAX(seq) FROM txs") or [0])[0] or 0)
        root = self.key_of(ROOT_USER)
        self.root_address = root["address"] if root else ""
        self._replay()
        self._index_collections_once()
        if fresh:
            self._genesis()
        for row in self.store.all(
            "SELECT * FROM txs WHERE status='Pending' AND block_number IS NULL ORDER BY seq"
        ):
            self.queue.append(self._sub_from_row(row))

    def _create_users(self) -> None:
        from .users import UserStore

        users = UserStore(self.store, self.vault)
        with self.store.transaction():
            for u in DEMO_USERS:
                if users.get(u.name) is None:
                    users.add(u.name, u.org, u.unit, None, identity=u.identity, demo=True)
                if self.key_of(u.name) is None:
                    self._insert_key(u.name)
            users.ensure_clients()

    def _genesis(self) -> None:
        """Block 0: the identity registry and the demo users' identities and balances."""
        root = self.key_of(ROOT_USER)
        assert root is not None
        subs = [
            self._internal_sub(
                "CONTRACT",
                {
                    "contract": "CertificateRegistry",
                    "src": REGISTRY_SOURCE,
                    "args": {},
                    "metadata": {"VM": "SolidVM"},
                    "address": REGISTRY_ADDRESS,
                },
            )
        ]
        for u in DEMO_USERS:
            key = self.key_of(u.name)
            if u.identity and key is not None:
                subs.append(self._identity_sub(u.name, key["address"], u.org, u.unit))
        if not self.config.gas:
            for u in DEMO_USERS:
                key = self.key_of(u.name)
                if key is not None:
                    subs.append(
                        self._internal_sub(
                            "TRANSFER",
                            {"faucet": True, "toAddress": key["address"], "value": DEMO_BALANCE},
                        )
                    )
        self._record(subs)
        self._run_block(subs)
        self.snapshot()

    def _identity_sub(self, name: str, address: str, org: str, unit: str) -> Sub:
        key = self.key_of(name)
        cert = self._issue_certificate(name, org, unit, key["pubkey"]) if key else ""
        return self._internal_sub(
            "FUNCTION",
            {
                "contractAddress": REGISTRY_ADDRESS,
                "method": "registerCertificate",
                "args": {
                    "_userAddress": address,
                    "_commonName": name,
                    "_organization": org,
                    "_organizationalUnit": unit,
                    "_country": "",
                    "_publicKey": key["pubkey"] if key else "",
                    "_certificateString": cert,
                },
            },
        )

    def _issue_certificate(self, name: str, org: str, unit: str, pubkey: str) -> str:
        """A real X.509 certificate (PEM chain) for the registry, signed by the operator.

        Made when the registration is submitted, so the recorded transaction carries it and a
        replay registers the very same certificate.
        """
        row = self.store.one("SELECT pubkey, sealed FROM keys WHERE name=?", ROOT_USER)
        if row is None:
            return ""
        secret = self.vault.unseal(row["sealed"])
        if name == ROOT_USER:
            self._root_cert = certs.issue((name, org, unit, ""), pubkey, secret, None)
            return self._root_cert
        if not self._root_cert:
            root = self.world.identities.get(int(self.root_address or "0", 16)) or {}
            self._root_cert = root.get("certString", "")
        if "BEGIN CERTIFICATE" not in self._root_cert:  # a registry made before certificates
            self._root_cert = certs.issue(
                (ROOT_USER, "BlockApps", "Operations", ""), row["pubkey"], secret, None
            )
        return certs.issue((name, org, unit, ""), pubkey, secret, self._root_cert)

    def _internal_sub(self, type_: str, payload: dict[str, Any], chain: str = "") -> Sub:
        root = self.key_of(ROOT_USER)
        assert root is not None
        sub = self._new_sub(ROOT_USER, root["address"], type_, payload, chain, None, internal=True)
        return sub

    def chain_balance(self, chain: str, address: str) -> int:
        return self.world.balances.get((chain, int(address, 16)), 0)

    def fund_on_chain(self, chain: str, address: str) -> None:
        """With --gas, queue the faucet's amount for ``address`` on private chain ``chain``: the
        asset application does this for a shard's new owner, who otherwise holds nothing on it
        and could not pay for the next update. Without gas, nothing."""
        if not self.config.gas:
            return
        sub = self._internal_sub(
            "TRANSFER", {"faucet": True, "toAddress": address, "value": FAUCET_AMOUNT}, chain
        )
        self._record([sub])
        self.queue.append(sub)
        self.wakeup.set()

    def register_identity_later(self, name: str) -> None:
        """Queue the identity registration of a user who asked for one and now has a key."""
        from .users import UserStore

        u = UserStore(self.store, self.vault).get(name)
        key = self.key_of(name)
        if u is None or key is None or not u["wants_identity"]:
            return
        if int(key["address"], 16) in self.world.identities:
            return
        sub = self._identity_sub(name, key["address"], u["org"], u["unit"])
        self._record([sub])
        self.queue.append(sub)
        self.wakeup.set()

    def _load_snapshot(self) -> None:
        for row in self.store.all("SELECT * FROM chains ORDER BY creation_block, rowid"):
            chain = Chain.from_row(row)
            self.chains[chain.id] = chain
            self.world.add_chain(chain.id, chain.parent)
        for row in self.store.all("SELECT code_hash, vm, source FROM codes"):
            self.codes[row["code_hash"]] = (row["vm"], row["source"])
        for row in self.store.all("SELECT * FROM contracts"):
            cdef = self._cdef(row["code_hash"], row["name"])
            addr = int(row["address"], 16)
            acct = AccountState(addr, row["chain"], cdef)
            data = json.loads(row["storage"])
            acct.storage = {
                sv.name: load_value(data[sv.name], sv.type)
                if sv.name in data
                else default_value(sv.type)
                for sv in cdef.state_vars
                if not sv.constant
            }
            self.world.accounts[(row["chain"], addr)] = acct
            self.meta[(row["chain"], addr)] = ContractMeta(
                row["name"],
                row["code_hash"],
                row["creator"],
                row["created_block"],
                row["created_tx"],
                row["updated_block"],
                row["updated_tx"],
                row["history"],
                row["org"],
                row["app"],
                row["tbl"],
            )
        self._link_creators()
        for row in self.store.all("SELECT * FROM accounts"):
            key = (row["chain"], int(row["address"], 16))
            self.world.balances[key] = int(row["balance"])
            self.world.nonces[key] = int(row["nonce"])
        self._sync_identities()
        self.world.clock["offset"] = int(self.store.get_meta("clock_offset") or 0)
        snap = int(self.store.get_meta("snapshot_block") or -1)
        head = self.store.one("SELECT * FROM blocks WHERE number=?", snap)
        if head is not None:
            self.head = Head(head["number"], head["hash"], head["timestamp"])

    def _link_creators(self) -> None:
        """Restore who created each loaded contract (``this.creator``, ``this.root`` need it)."""
        accounts = self.world.accounts
        for (chain, addr), meta in self.meta.items():
            acct = accounts.get((chain, addr))
            parent = int(meta.creator, 16) if meta.creator else None
            if acct is not None and parent is not None:
                if (chain, parent) in accounts:
                    acct.creator = parent
                else:
                    acct.origin = parent

    def _replay(self) -> None:
        """Re-run the blocks committed after the last snapshot."""
        snap = int(self.store.get_meta("snapshot_block") or -1)
        blocks = self.store.all("SELECT * FROM blocks WHERE number > ? ORDER BY number", snap)
        for b in blocks:
            rows = self.store.all(
                "SELECT * FROM txs WHERE block_number=? ORDER BY tx_index", b["number"]
            )
            subs = [self._sub_from_row(r) for r in rows]
            for i, (sub, row) in enumerate(zip(subs, rows, strict=True)):
                res = self._execute(sub, b["number"], b["timestamp"], i)
                if res["status"] != row["status"]:
                    log.warning(
                        "replay of %s gave %s, recorded %s", sub.hash, res["status"], row["status"]
                    )
            self.head = Head(b["number"], b["hash"], b["timestamp"])
            self.blocks_since_snapshot += 1
        # events and Cirrus rows of these blocks were committed with them the first time
        self._pending_events.clear()
        self._event_senders.clear()
        self._block_touched.clear()
        self._pending_history.clear()
        self.collections.pending.clear()

    def _index_collections_once(self) -> None:
        """Collection tables for the contracts of a data dir made before they existed: every
        entry of every indexed contract, once (later blocks keep them up to date)."""
        if self.store.get_meta("cirrus_collections"):
            return
        cx = self.collections
        by_block: dict[int, dict[tuple[str, int], Any]] = {}
        for k, meta in self.meta.items():
            acct = self.world.accounts.get(k)
            if acct is None or self._collection_table(k) is None:
                continue
            row = self.store.one("SELECT sender FROM txs WHERE hash=?", meta.updated_tx)
            tx = (meta.updated_tx, str(row["sender"]) if row else "")
            for cv in cx.vars_of(acct.cdef):
                cx.mark_all(acct, cv, tx)
            if k in cx.pending:
                by_block.setdefault(meta.updated_block, {})[k] = cx.pending.pop(k)
        with self.store.transaction() as db:
            for number, pending in sorted(by_block.items()):
                b = self.store.one("SELECT hash, timestamp FROM blocks WHERE number=?", number)
                block = (number, str(b["hash"]) if b else "", int(b["timestamp"]) if b else 0)
                cx.pending = pending
                cx.flush(block, self._collection_table)
            db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('cirrus_collections', '1')"
            )

    def _collection_table(self, k: tuple[str, int]) -> str | None:
        """The Cirrus table of an indexed contract (its collections are ``<table>-<name>``)."""
        meta = self.meta.get(k)
        acct = self.world.accounts.get(k)
        if meta is None or acct is None or acct.cdef is None or not self.indexer.indexed(acct.cdef):
            return None
        return meta.table

    def _sub_from_row(self, row: Any) -> Sub:
        req = json.loads(row["request"])
        return Sub(
            seq=row["seq"],
            hash=row["hash"],
            sender=row["sender"],
            username=row["username"],
            type=row["type"],
            payload=req["payload"],
            chain=row["chain"],
            gas_limit=req["gasLimit"],
            gas_price=req["gasPrice"],
            submitted_at=row["submitted_at"],
            internal=bool(req.get("internal")),
            signature=req.get("signature") or {},
            recorded=True,
        )

    # ================================================================ keys

    def key_of(self, name: str) -> dict[str, str] | None:
        row = self.store.one("SELECT address, pubkey FROM keys WHERE name=?", name)
        return {"address": row["address"], "pubkey": row["pubkey"]} if row else None

    def _insert_key(self, name: str) -> dict[str, str]:
        address, pubkey, sealed = self.vault.new_key()
        self._sealed.pop(address, None)
        self.store.execute(
            "INSERT INTO keys (name, address, pubkey, sealed, created_at) VALUES (?, ?, ?, ?, ?)",
            name,
            address,
            pubkey,
            sealed,
            time.time(),
        )
        return {"address": address, "pubkey": pubkey}

    def create_key(self, name: str) -> dict[str, str]:
        with self.store.transaction():
            if self.key_of(name) is not None:
                raise ApiError(400, f"User {name} already exists")
            key = self._insert_key(name)
        # with gas on, a new account holds nothing until the faucet funds it
        self.register_identity_later(name)
        return key

    def name_of_address(self, address: str) -> str | None:
        row = self.store.one("SELECT name FROM keys WHERE address=?", address)
        return str(row["name"]) if row else None

    # ================================================================ compile cache

    def code_hash(self, vm: str, source: str) -> str:
        """A SolidVM code collection's hash is the keccak256 of its source, as on the platform
        (salted addresses are derived from it); EVM code is keyed apart from SolidVM's."""
        if vm == "SolidVM":
            return keccak256(source.encode()).hex()
        return keccak256(f"{vm}\0{source}".encode()).hex()

    def unit(self, vm: str, source: str, stored: bool = False) -> tuple[str, CompiledUnit]:
        """The compiled unit of a source (cached by code hash).

        ``stored`` code was accepted once already, maybe by this node started with
        ``--test-clock``: it compiles with ``fastForward`` declared, which then refuses to run
        unless the node allows it.
        """
        h = self.code_hash(vm, source)
        unit = self.units.get(h)
        if unit is None:
            unit = compile_source(
                source,
                vm=vm,
                test_clock=stored or self.config.test_clock,
                checks=not stored,  # stored code loads as accepted, whatever checks came since
            )
            self.units[h] = unit
            if h not in self.codes:
                self.codes[h] = (vm, source)
                self.new_codes.add(h)
        return h, unit

    def _cdef(self, code_hash: str, name: str) -> ContractDef:
        vm, source = self.codes[code_hash]
        _, unit = self.unit(vm, source, stored=True)
        return unit.contracts[name]

    # ================================================================ submission

    def _new_sub(
        self,
        username: str,
        sender: str,
        type_: str,
        payload: dict[str, Any],
        chain: str,
        tx_params: dict[str, Any] | None,
        *,
        resolve: bool = False,
        internal: bool = False,
    ) -> Sub:
        params = tx_params or {}
        gas_limit = parse_amount(params.get("gasLimit", DEFAULT_GAS_LIMIT), "txParams.gasLimit")
        gas_price = parse_amount(params.get("gasPrice", DEFAULT_GAS_PRICE), "txParams.gasPrice")
        self._seq += 1
        now = time.time()
        body = dumps([sender, self._seq, now, type_, payload, chain, gas_limit, gas_price])
        digest = keccak256(body.encode())
        signature: dict[str, str] = {}
        sealed = self._sealed.get(sender)
        if sealed is None:
            row = self.store.one("SELECT sealed FROM keys WHERE address=?", sender)
            sealed = self._sealed[sender] = row["sealed"] if row is not None else b""
        if sealed:
            sig = self.vault.sign(sealed, digest)
            signature = {"r": sig[:32].hex(), "s": sig[32:64].hex(), "v": format(27 + sig[64], "x")}
        tx_hash = keccak256(digest + bytes.fromhex("".join(signature.values()) or "00")).hex()
        return Sub(
            seq=self._seq,
            hash=tx_hash,
            sender=sender,
            username=username,
            type=type_,
            payload=payload,
            chain=chain,
            gas_limit=gas_limit,
            gas_price=gas_price,
            submitted_at=now,
            resolve=resolve,
            internal=internal,
            signature=signature,
        )

    def _record(self, subs: list[Sub]) -> None:
        with self.store.transaction() as db:
            self._insert_rows(db, subs)

    def _insert_rows(self, db: Any, subs: list[Sub]) -> None:
        for s in subs:
            s.recorded = True
        db.executemany(
            "INSERT INTO txs (seq, hash, sender, username, type, request, status, chain, "
            "to_address, submitted_at) VALUES (?, ?, ?, ?, ?, ?, 'Pending', ?, ?, ?)",
            [
                (
                    s.seq,
                    s.hash,
                    s.sender,
                    s.username,
                    s.type,
                    s.request_json(),
                    s.chain,
                    _to_address(s),
                    s.submitted_at,
                )
                for s in subs
            ],
        )

    def validate(
        self, username: str, txs: Any, query_chain: str
    ) -> list[tuple[str, dict[str, Any], str]]:
        """Check every transaction of a request; returns (type, payload, chain) triples."""
        if not isinstance(txs, list) or not txs:
            raise bad_request("txs must be a non-empty array of transactions")
        if len(txs) > MAX_TXS_PER_REQUEST:
            raise bad_request(f"at most {MAX_TXS_PER_REQUEST} transactions per request")
        out: list[tuple[str, dict[str, Any], str]] = []
        for i, tx in enumerate(txs):
            where = f"txs[{i}]"
            if not isinstance(tx, dict):
                raise bad_request(f"{where} must be an object with 'type' and 'payload'")
            t = tx.get("type")
            if t not in TX_TYPES:
                raise bad_request(
                    f"{where}.type must be one of CONTRACT, FUNCTION, TRANSFER, got {json.dumps(t)}"
                )
            payload = tx.get("payload")
            if not isinstance(payload, dict):
                raise bad_request(f"{where}.payload must be an object")
            chain = norm_chain(payload.get("chainid") or query_chain, f"{where}.payload.chainid")
            if chain:
                self.require_member(username, chain)
            if t == "CONTRACT":
                out.append((t, self._check_upload(payload, where), chain))
            elif t == "FUNCTION":
                out.append((t, self._check_call(payload, where, chain), chain))
            else:
                out.append((t, self._check_transfer(payload, where), chain))
        return out

    def _check_upload(self, p: dict[str, Any], where: str) -> dict[str, Any]:
        src = p.get("src")
        if isinstance(src, dict | list) and src:
            from .solidvm import join_sources

            try:
                src = join_sources(src)
            except (TypeError, ValueError):
                raise bad_request(f"{where}.payload.src is not a valid source collection") from None
        if not isinstance(src, str) or not src.strip():
            raise bad_request(f"{where}.payload.src must be the contract source code")
        metadata = p.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise bad_request(f"{where}.payload.metadata must be an object")
        vm = metadata.get("VM", "EVM")
        if vm not in ("EVM", "SolidVM"):
            raise bad_request(f"Invalid value for VM choice: {json.dumps(vm)}")
        history = metadata.get("history", "")
        if not isinstance(history, str):
            raise bad_request(f"{where}.payload.metadata.history must be a string of names")
        if vm == "SolidVM":
            from .solidvm.imports import check_imports

            try:
                check_imports(p["src"])  # on the upload as sent: joining drops the file names
            except ParseError as exc:
                raise bad_request(str(exc)) from None
        try:
            _, unit = self.unit(vm, src)
        except ParseError as exc:
            raise bad_request(str(exc)) from None
        except SolidVMError as exc:
            raise bad_request(exc.message) from None
        name = p.get("contract") or p.get("name")
        if name is None:
            names = unit.names
            if len(names) != 1:
                raise bad_request(
                    "When you upload multiple contracts, you need to specify which contract "
                    "should be uploaded with the 'contract' field"
                )
            name = names[0]
        if not isinstance(name, str) or name not in unit.contracts:
            raise bad_request(f"Could not find global contract metadataId for {name} in source")
        cdef = unit.contracts[name]
        if cdef.kind != "contract":
            raise bad_request(f"{name} is an {cdef.kind}, not a contract, and cannot be uploaded")
        args = p.get("args", {})
        if args is None:
            args = {}
        ctor = cdef.constructor
        try:
            decode_args(ctor.params if ctor else [], args, vm, f"constructor of {name}")
        except ArgumentError as exc:
            raise bad_request(exc.message) from None
        value = parse_amount(p.get("value", 0), f"{where}.payload.value")
        out = {
            "contract": name,
            "src": src,
            "args": args,
            "metadata": {"VM": vm, "history": history} if history else {"VM": vm},
            "value": value,
        }
        return out

    def _check_call(self, p: dict[str, Any], where: str, chain: str) -> dict[str, Any]:
        address = norm_address(p.get("contractAddress"), f"{where}.payload.contractAddress")
        method = p.get("method")
        if not isinstance(method, str) or not method:
            raise bad_request(f"{where}.payload.method must be the name of a function")
        acct = self.world.accounts.get((chain, int(address, 16)))
        if acct is None or acct.cdef is None:
            raise bad_request(
                "postUsersContractMethod': Couldn't find contract details for contract at "
                f"address {address}" + (f" on chain {chain}" if chain else "")
            )
        fns = [f for f in acct.cdef.functions.get(method, []) if f.external]
        if not fns:
            raise bad_request(f"Contract doesn't have a method named '{method}'")
        args = p.get("args")
        if args is None:
            if any(f.params for f in fns) and not any(not f.params for f in fns):
                raise bad_request("no arguments provided to function.")
            args = {}
        fn = self.world.pick_function(acct.cdef, method, args)
        try:
            decode_args(fn.params, args, acct.cdef.vm, f"function {method}")
        except ArgumentError as exc:
            raise bad_request(exc.message) from None
        value = parse_amount(p.get("value", 0), f"{where}.payload.value")
        return {
            "contractAddress": address,
            "method": method,
            "args": args,
            "value": value,
            "contractName": acct.cdef.name,
        }

    def _check_transfer(self, p: dict[str, Any], where: str) -> dict[str, Any]:
        to = norm_address(p.get("toAddress"), f"{where}.payload.toAddress")
        if "value" not in p:
            raise bad_request(f"{where}.payload.value is required")
        value = parse_amount(p.get("value"), f"{where}.payload.value")
        return {"toAddress": to, "value": value}

    async def submit(
        self,
        username: str,
        sender: str,
        txs: Any,
        tx_params: Any,
        query_chain: str,
        resolve: bool,
    ) -> list[dict[str, Any]]:
        """Validate, record and queue a request's transactions; wait for them if ``resolve``."""
        if self.halted:
            raise ApiError(503, self.halted)
        if tx_params is not None and not isinstance(tx_params, dict):
            raise bad_request("txParams must be an object with gasLimit and gasPrice")
        checked = self.validate(username, txs, query_chain)
        subs = []
        for (t, payload, chain), raw in zip(checked, txs, strict=True):
            params = raw.get("payload", {}).get("txParams") or tx_params
            if params is not None and not isinstance(params, dict):
                raise bad_request("txParams must be an object with gasLimit and gasPrice")
            subs.append(self._new_sub(username, sender, t, payload, chain, params, resolve=resolve))
        if resolve:
            self._discard_pending_of(username)
        loop = asyncio.get_running_loop()
        if resolve:
            # Their hashes are only handed out with their results, so their rows can be written
            # in the block's own commit: one commit per transaction instead of two.
            for s in subs:
                s.future = loop.create_future()
        else:
            self._record(subs)
        self.queue.extend(subs)
        self.wakeup.set()
        if not resolve:
            return [pending_result(s.hash) for s in subs]
        futures = [s.future for s in subs if s.future is not None]
        try:
            done = await asyncio.wait_for(
                asyncio.shield(asyncio.gather(*futures)), timeout=self.config.resolve_timeout
            )
        except TimeoutError:
            unrecorded = [s for s in subs if not s.recorded and not (s.future and s.future.done())]
            if unrecorded:
                self._record(unrecorded)  # the 504 names their hashes: they must survive a crash
            raise ApiError(
                504,
                {
                    "error": f"the transactions did not complete within "
                    f"{self.config.resolve_timeout:g} s; they are still queued and their results "
                    "stay readable by hash",
                    "hashes": [s.hash for s in subs],
                },
            ) from None
        return list(done)

    def _discard_pending_of(self, username: str) -> None:
        """Seed rule 3: a resolve=true request discards the sender's unfinished async ones."""
        victims = [s for s in self.queue if s.username == username and not s.resolve]
        if not victims:
            return
        self.queue = [s for s in self.queue if not (s.username == username and not s.resolve)]
        with self.store.transaction() as db:
            for s in victims:
                res = discarded_result(s.hash)
                self._cache(s.hash, res)
                for fut in self.watchers.pop(s.hash, ()):
                    if not fut.done():
                        fut.set_result(res)
                db.execute(
                    "UPDATE txs SET status='Discarded', result=? WHERE hash=?", (dumps(res), s.hash)
                )

    async def faucet(self, username: str, address: str, resolve: bool) -> dict[str, Any]:
        if not self.config.gas:
            return {"status": "Success", "hash": ZERO_HASH, "txResult": None, "data": None}
        sub = self._internal_sub(
            "TRANSFER", {"faucet": True, "toAddress": address, "value": FAUCET_AMOUNT}
        )
        sub.resolve = resolve
        if resolve:
            sub.future = asyncio.get_running_loop().create_future()
        self._record([sub])
        self.queue.append(sub)
        self.wakeup.set()
        if not resolve or sub.future is None:
            return pending_result(sub.hash)
        try:
            return await asyncio.wait_for(
                asyncio.shield(sub.future), timeout=self.config.resolve_timeout
            )
        except TimeoutError:
            raise ApiError(
                504,
                {"error": "the faucet transaction did not complete in time", "hashes": [sub.hash]},
            ) from None

    # ================================================================ block production

    def start(self) -> None:
        self._producer = asyncio.get_running_loop().create_task(self._produce())
        if self.queue:  # transactions recorded before a crash or shutdown run first
            self.wakeup.set()

    async def stop(self) -> None:
        if self._producer is not None:
            self._producer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._producer
        if self.queue:
            self.run_pending()
        self.snapshot()

    async def _produce(self) -> None:
        while True:
            await self.wakeup.wait()
            self.wakeup.clear()
            if self.config.block_time > 0:
                await asyncio.sleep(self.config.block_time)
            while self.queue:
                try:
                    self.run_pending()
                except Exception as exc:
                    self._halt(exc)
                    return
                await asyncio.sleep(0)

    def _halt(self, exc: BaseException) -> None:
        """A block could not be committed: stop producing rather than diverge from the disk."""
        log.critical("block production stopped: %s", exc, exc_info=exc)
        self.halted = f"block production stopped after an internal error ({exc}); restart the node"
        for sub in self.queue:
            if sub.future is not None and not sub.future.done():
                sub.future.set_exception(ApiError(503, self.halted))
        for futs in self.watchers.values():
            for fut in futs:
                if not fut.done():
                    fut.set_exception(ApiError(503, self.halted))
        self.watchers.clear()

    def run_pending(self, limit: int = 2_000) -> None:
        batch, self.queue = self.queue[:limit], self.queue[limit:]
        if batch:
            try:
                self._run_block(batch)
            except Exception:
                self.queue = batch + self.queue  # still Pending on disk; re-run after a restart
                raise

    def _run_block(self, batch: list[Sub]) -> None:
        number = self.head.number + 1
        ts = max(int(time.time()), self.head.timestamp)
        results = []
        gas = 0
        for i, sub in enumerate(batch):
            res = self._execute(sub, number, ts, i)
            results.append(res)
            tr = res.get("txResult")
            if isinstance(tr, dict):
                gas += int(tr.get("gasUsed", "0"), 16)
        block_hash = keccak256(
            dumps([self.head.hash, number, ts, [s.hash for s in batch]]).encode()
        ).hex()
        for res in results:
            tr = res.get("txResult")
            if isinstance(tr, dict):
                tr["blockHash"] = block_hash
        events = list(self._pending_events)
        with self.store.transaction() as db:
            fresh = [s for s in batch if not s.recorded]
            if fresh:
                self._insert_rows(db, fresh)
            db.execute(
                "INSERT INTO blocks (number, hash, parent_hash, timestamp, tx_count, gas_used) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (number, block_hash, self.head.hash, ts, len(batch), gas),
            )
            db.executemany(
                "UPDATE txs SET status=?, result=?, block_number=?, tx_index=?, nonce=? "
                "WHERE hash=?",
                [
                    (res["status"], dumps(res), number, i, sub.nonce, sub.hash)
                    for i, (sub, res) in enumerate(zip(batch, results, strict=True))
                ],
            )
            if events:
                db.executemany(
                    "INSERT INTO events (block_number, tx_hash, chain, address, contract, name, "
                    "args) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(number, *e) for e in events],
                )
            for cid in self.dirty_chains:
                chain = self.chains.get(cid)
                if chain is not None:
                    db.execute(
                        "INSERT OR REPLACE INTO chains VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        chain.to_row(),
                    )
            self.dirty_chains.clear()
            db.execute("SAVEPOINT cirrus")
            try:
                self._index_block(number, block_hash, ts)
            except Exception:
                # Cirrus is derived data: a failure there must not stop the chain.
                log.exception("indexing block %d failed; its Cirrus rows are missing", number)
                db.execute("ROLLBACK TO cirrus")
                self.indexer.backend.reload()
            db.execute("RELEASE cirrus")
            for h in self.new_codes:
                vm, source = self.codes[h]
                db.execute(
                    "INSERT OR IGNORE INTO codes (code_hash, vm, source) VALUES (?, ?, ?)",
                    (h, vm, source),
                )
            self.new_codes.clear()
        self.head = Head(number, block_hash, ts)
        for sub, res in zip(batch, results, strict=True):
            self._cache(sub.hash, res)
            if sub.future is not None and not sub.future.done():
                sub.future.set_result(res)
            for fut in self.watchers.pop(sub.hash, ()):
                if not fut.done():
                    fut.set_result(res)
        for listener in self.block_listeners:
            listener(number, batch, results)
        self.blocks_since_snapshot += 1
        if (
            self.blocks_since_snapshot >= SNAPSHOT_EVERY_BLOCKS
            or time.monotonic() - self.last_snapshot > SNAPSHOT_EVERY_SECONDS
        ):
            self.snapshot()

    def _index_block(self, number: int, block_hash: str, ts: int) -> None:
        """Cirrus rows for everything this block changed (called inside the block's commit)."""
        ix = self.indexer
        by_table: dict[str, tuple[ContractDef, list[dict[str, Any]]]] = {}
        for k, (tx_hash, sender) in self._block_touched.items():
            acct = self.world.accounts.get(k)
            meta = self.meta.get(k)
            if acct is None or acct.cdef is None or meta is None or not ix.indexed(acct.cdef):
                continue
            row = ix.row(acct, number, block_hash, ts, tx_hash, sender)
            by_table.setdefault(meta.table, (acct.cdef, []))[1].append(row)
        for table, (cdef, rows) in by_table.items():
            ix.write_rows(table, cdef, rows)
        db = self.store.db
        db.execute("SAVEPOINT collections")
        try:
            self.collections.flush((number, block_hash, ts), self._collection_table)
        except Exception:
            # the contract rows stay; only this block's collection rows are missing
            log.exception("indexing the collections of block %d failed", number)
            db.execute("ROLLBACK TO collections")
            ix.backend.reload()
        db.execute("RELEASE collections")
        hist: dict[str, tuple[ContractDef, list[dict[str, Any]]]] = {}
        for table, cdef, row in self._pending_history:
            row["block_hash"] = block_hash
            row["block_timestamp"] = cirrus_timestamp(ts)
            hist.setdefault(table, (cdef, []))[1].append(row)
        for table, (cdef, rows) in hist.items():
            ix.write_history(table, cdef, rows)
        evs: dict[tuple[str, str], list[tuple[str, str, list[tuple[str, str]], str, str]]] = {}
        event_rows: list[tuple[str, str, list[tuple[str, str]], str, str]]
        params: dict[tuple[str, str], list[str]] = {}
        for tx_hash, chain, address, _contract, name, args_json in self._pending_events:
            k2 = (chain, int(address, 16))
            meta = self.meta.get(k2)
            acct = self.world.accounts.get(k2)
            if meta is None or acct is None or acct.cdef is None or not ix.indexed(acct.cdef):
                continue
            args = [(str(a[0]), str(a[1])) for a in json.loads(args_json)]
            key = (meta.table, name)
            sender = self._event_senders.get(tx_hash, "")
            evs.setdefault(key, []).append((chain, address, args, tx_hash, sender))
            params[key] = [a[0] for a in args]
        for (table, name), event_rows in evs.items():
            ix.write_events(
                table, name, params[(table, name)], event_rows, (number, block_hash, ts)
            )
        self._event_senders.clear()
        self._block_touched.clear()
        self._pending_history.clear()
        self._pending_events.clear()

    def snapshot(self) -> None:
        """Write the storage of every contract changed since the last snapshot."""
        with self.store.transaction() as db:
            for (chain, addr), acct in self.dirty_contracts.items():
                meta = self.meta[(chain, addr)]
                assert acct.cdef is not None
                storage = {
                    sv.name: dump_value(acct.storage[sv.name], sv.type)
                    for sv in acct.cdef.state_vars
                    if not sv.constant
                }
                db.execute(
                    "INSERT OR REPLACE INTO contracts (chain, address, name, code_hash, storage, "
                    "creator, created_block, created_tx, updated_block, updated_tx, history, "
                    "org, app, tbl) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        chain,
                        format(addr, "040x"),
                        meta.name,
                        meta.code_hash,
                        dumps(storage),
                        meta.creator,
                        meta.created_block,
                        meta.created_tx,
                        meta.updated_block,
                        meta.updated_tx,
                        meta.history,
                        meta.org,
                        meta.app,
                        meta.table,
                    ),
                )
            for chain, addr in self.dirty_balances | set(self.dirty_contracts):
                key = (chain, addr)
                db.execute(
                    "INSERT OR REPLACE INTO accounts (chain, address, balance, nonce) "
                    "VALUES (?, ?, ?, ?)",
                    (
                        chain,
                        format(addr, "040x"),
                        str(self.world.balances.get(key, 0)),
                        self.world.nonces.get(key, 0),
                    ),
                )
            db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('snapshot_block', ?)",
                (str(self.head.number),),
            )
            db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('clock_offset', ?)",
                (str(self.world.clock["offset"]),),
            )
        self.dirty_contracts.clear()
        self.dirty_balances.clear()
        self.blocks_since_snapshot = 0
        self.last_snapshot = time.monotonic()

    # ================================================================ execution

    def _execute(self, sub: Sub, number: int, ts: int, index: int) -> dict[str, Any]:
        """Run one transaction; returns its result object. Never raises for contract errors."""
        t0 = time.perf_counter()
        chain = sub.chain
        sender_int = int(sub.sender, 16)
        key = (chain, sender_int)
        nonce = self.world.nonces.get(key, 0)
        sub.nonce = nonce
        is_root = sub.username == ROOT_USER or sub.internal
        gas_on = self.config.gas and not sub.internal
        max_steps = NODE_MAX_STEPS
        price = sub.gas_price
        if gas_on:
            # gas buys steps: no more than the gas limit allows, nor than the balance can pay
            affordable = self.world.balances.get(key, 0) // price if price else sub.gas_limit
            max_steps = max(0, min(NODE_MAX_STEPS, sub.gas_limit, affordable) - BASE_GAS)
        env = TxEnv(sender=sub.sender, block_number=number, timestamp=ts, max_steps=max_steps)
        res: ExecResult | None = None
        data: dict[str, Any] | None = None
        kind = "SolidVM"
        try:
            if not is_root and sender_int not in self.world.identities:
                raise SolidVMError(
                    "Sender does not have a registered certificate: Sender doesn't have a "
                    f"registered cert {sub.sender}",
                    "identity",
                )
            if gas_on:
                have = self.world.balances.get(key, 0)
                if sub.gas_limit < BASE_GAS:
                    raise SolidVMError(
                        f"gas limit {sub.gas_limit} is below the base cost of {BASE_GAS}",
                        "intrinsic gas",
                    )
                if have < BASE_GAS * price:
                    raise SolidVMError(
                        f"insufficient balance: account {sub.sender} holds {have}, but a "
                        f"transaction costs at least {BASE_GAS * price} ({BASE_GAS} gas at "
                        f"gasPrice {price}); fund the account with the faucet first",
                        "insufficient balance",
                    )
            if chain and not is_root and not self._member_addr(sub.sender, chain):
                raise SolidVMError(
                    f"inaccessible chain: {sub.sender} is not a member of chain {chain}",
                    "inaccessible chain",
                )
            if sub.type == "GENESIS":
                res, data = self._exec_genesis(sub, env)
            elif sub.type == "CONTRACT":
                res, data, kind = self._exec_upload(sub, env, nonce)
            elif sub.type == "FUNCTION":
                res, data, kind = self._exec_call(sub, env)
            else:
                data = self._exec_transfer(sub, nonce, BASE_GAS * price if gas_on else 0)
            status = "Success"
            message = "Success!"
        except SolidVMError as exc:
            status = "Failure"
            message = exc.message
            data = None
            res = None
        steps = res.steps if res is not None else 0
        gas_used = BASE_GAS + steps
        self.world.nonces[key] = nonce + 1
        self.dirty_balances.add(key)
        if gas_on:
            fee = min(gas_used * price, self.world.balances.get(key, 0))
            self.world.balances[key] = self.world.balances.get(key, 0) - fee
        if res is not None:
            self._note_changes(sub, res, number)
        tx_result: dict[str, Any] = {
            "deletedStorage": "",
            "status": "success" if status == "Success" else _failure_status(message),
            "contractsDeleted": "",
            "gasUsed": hex64(gas_used),
            "stateDiff": self._state_diff(res),
            "time": round(time.perf_counter() - t0, 6),
            "kind": kind,
            "chainId": chain or None,
            "response": _response_hex(res),
            "blockHash": "",
            "transactionHash": sub.hash,
            "etherUsed": hex64(gas_used * sub.gas_price if gas_on else 0),
            "newStorage": "",
            "message": message,
            "trace": "\n".join(res.logs) if res is not None else "",  # log(...) lines
            "contractsCreated": ",".join(a for _, a in res.created) if res else "",
        }
        return {"status": status, "hash": sub.hash, "txResult": tx_result, "data": data}

    def _exec_upload(
        self, sub: Sub, env: TxEnv, nonce: int
    ) -> tuple[ExecResult, dict[str, Any], str]:
        p = sub.payload
        vm = p["metadata"].get("VM", "EVM")
        code_hash, unit = self.unit(vm, p["src"])
        cdef = unit.contracts[p["contract"]]
        explicit = p.get("address") if sub.internal else None
        address = explicit or format(contract_address(int(sub.sender, 16), nonce), "040x")
        res = self.world.deploy(
            cdef,
            p.get("args") or {},
            env,
            chain_id=sub.chain,
            address=address,
            value=int(p.get("value") or 0),
        )
        contents = {
            "bin": p["src"],
            "chainId": sub.chain,
            "address": address,
            "bin-runtime": p["src"],
            "codeHash": {"kind": vm, "name": cdef.name, "digest": code_hash}
            if vm == "SolidVM"
            else {"kind": vm, "digest": code_hash},
            "name": cdef.name,
            "src": p["src"],
            "xabi": cdef.xabi,
        }
        return res, {"tag": "Upload", "contents": contents}, vm

    def _code_of(self, cdef: ContractDef) -> str:
        return self.code_hash(cdef.vm, cdef.source)

    def _exec_call(self, sub: Sub, env: TxEnv) -> tuple[ExecResult, dict[str, Any], str]:
        p = sub.payload
        res = self.world.call(
            p["contractAddress"],
            p["method"],
            p.get("args") or {},
            env,
            chain_id=sub.chain,
            value=int(p.get("value") or 0),
        )
        acct = self.world.accounts[(sub.chain, int(p["contractAddress"], 16))]
        kind = acct.cdef.vm if acct.cdef else "SolidVM"
        return res, {"tag": "Call", "contents": res.values}, kind

    # ================================================================ private chains

    def cert_of_user(self, username: str) -> dict[str, str] | None:
        key = self.key_of(username)
        return self.world.identities.get(int(key["address"], 16)) if key else None

    def _member_addr(self, address: str, chain: str) -> bool:
        rec = self.chains.get(chain)
        return rec is not None and rec.is_member(self.world.identities.get(int(address, 16)))

    def is_member(self, username: str, chain: str) -> bool:
        rec = self.chains.get(chain)
        return rec is not None and rec.is_member(self.cert_of_user(username))

    def require_member(self, username: str, chain: str) -> Chain:
        rec = self.chains.get(chain)
        if rec is None:
            raise bad_request(f"Unknown chain {chain}")
        if not rec.is_member(self.cert_of_user(username)):
            raise ApiError(403, f"User {username} is not a member of chain {chain}")
        return rec

    def accessible_chains(self, username: str) -> list[Chain]:
        cert = self.cert_of_user(username)
        return [c for c in self.chains.values() if c.is_member(cert)]

    def validate_chain(self, username: str, body: Any) -> dict[str, Any]:
        """Check a chain creation request (POST /bloc/v2.2/chain); returns the GENESIS payload."""
        if not isinstance(body, dict):
            raise bad_request("body must be a chain creation object")
        label = body.get("label", "")
        if not isinstance(label, str) or len(label) > 256:
            raise bad_request("label must be a string (at most 256 characters)")
        members_in = body.get("members")
        if not isinstance(members_in, list) or not members_in:
            raise bad_request("Private chains must include at least one member")
        if len(members_in) > 1000:
            raise bad_request("at most 1000 members")
        members = [parse_member(m, i) for i, m in enumerate(members_in)]
        balances_in = body.get("balances")
        if not isinstance(balances_in, list):
            raise bad_request("balances must be an array of {address, balance}")
        balances: list[tuple[str, int]] = []
        for i, b in enumerate(balances_in):
            if not isinstance(b, dict):
                raise bad_request(f"balances[{i}] must be an object with address and balance")
            balances.append(
                (
                    norm_address(b.get("address"), f"balances[{i}].address"),
                    parse_amount(b.get("balance", 0), f"balances[{i}].balance"),
                )
            )
        if not any(v > 0 for _, v in balances):
            raise bad_request("At least one account must have a non-zero balance")
        parent = norm_chain(body.get("parentChain"), "parentChain")
        if parent:
            if parent not in self.chains:
                raise bad_request(f"Unknown parent chain {parent}")
            self.require_member(username, parent)
        metadata = body.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise bad_request("metadata must be an object")
        vm = metadata.get("VM", "SolidVM")
        if vm not in ("SolidVM", "EVM"):
            raise bad_request(f"Unknown VM: {json.dumps(vm)[:40]}")
        history = metadata.get("history", "")
        if not isinstance(history, str):
            raise bad_request("metadata.history must be a string")
        name = body.get("contract") or body.get("name")
        code_ptr = body.get("codePtr")
        pointer: list[str] | None = None
        if code_ptr is not None:
            if not isinstance(code_ptr, dict):
                raise bad_request("codePtr must be {account, name}")
            acct_text = code_ptr.get("account")
            if not isinstance(acct_text, str):
                raise bad_request("codePtr.account must be '<address>' or '<address>:<chainId>'")
            a, _, c = acct_text.partition(":")
            ptr_chain = "" if c in ("", "main") else norm_chain(c, "codePtr.account chain")
            if ptr_chain:
                if ptr_chain not in self.chains:
                    raise bad_request(f"codePtr: unknown chain {ptr_chain}")
                self.require_member(username, ptr_chain)
            ptr = self.world.accounts.get((ptr_chain, int(norm_address(a, "codePtr.account"), 16)))
            if ptr is None or ptr.cdef is None:
                raise bad_request(f"codePtr: no contract at {acct_text}")
            src: Any = ptr.cdef.source
            vm = ptr.cdef.vm
            name = code_ptr.get("name") or name
            pointer = [ptr_chain, ptr.hex]
        else:
            src = body.get("src")
        payload = self._check_upload(
            {
                "src": src,
                "contract": name,
                "args": body.get("args") or {},
                "metadata": {"VM": vm, "history": history} if history else {"VM": vm},
            },
            "chain",
        )
        self._chain_seq += 1
        chain_id = keccak256(
            dumps([username, label, parent, time.time_ns(), self._chain_seq]).encode()
        ).hex()
        payload.update(
            {
                "chainId": chain_id,
                "label": label,
                "parentChain": parent,
                "members": [m.to_json() for m in members],
                "balances": [[a, str(v)] for a, v in balances],
            }
        )
        if pointer is not None:
            payload["codePtr"] = pointer
        return payload

    async def create_chain(self, username: str, sender: str, body: Any) -> str:
        if self.halted:
            raise ApiError(503, self.halted)
        payload = self.validate_chain(username, body)
        sub = self._new_sub(username, sender, "GENESIS", payload, "", None, resolve=True)
        sub.future = asyncio.get_running_loop().create_future()
        self._record([sub])
        self.queue.append(sub)
        self.wakeup.set()
        if body.get("async") is True:
            return str(payload["chainId"])
        try:
            res = await asyncio.wait_for(
                asyncio.shield(sub.future), timeout=self.config.resolve_timeout
            )
        except TimeoutError:
            raise ApiError(
                504, {"error": "the chain was not created in time", "hashes": [sub.hash]}
            ) from None
        if res["status"] != "Success":
            raise ApiError(400, f"Could not create the chain: {res['txResult']['message']}")
        return str(payload["chainId"])

    def _exec_genesis(self, sub: Sub, env: TxEnv) -> tuple[ExecResult, dict[str, Any]]:
        p = sub.payload
        cid = p["chainId"]
        chain = Chain(
            id=cid,
            label=p["label"],
            parent=p["parentChain"],
            members=[parse_member(m, 0) for m in p["members"]],
            balances=[(a, int(v)) for a, v in p["balances"]],
            metadata=dict(p["metadata"]),
            creator=sub.sender,
            creation_block=env.block_number,
            creation_tx=sub.hash,
            governance=p["contract"],
        )
        vm = p["metadata"].get("VM", "SolidVM")
        code_hash, unit = self.unit(vm, p["src"])
        chain.code_hash = code_hash
        cdef = unit.contracts[p["contract"]]
        self.world.add_chain(cid, chain.parent)
        self.chains[cid] = chain
        saved = {k: v for k, v in self.world.balances.items() if k[0] == cid}
        for a, v in chain.balances:
            self.world.balances[(cid, int(a, 16))] = v
            self.dirty_balances.add((cid, int(a, 16)))
        try:
            res = self.world.deploy(
                cdef, p.get("args") or {}, env, chain_id=cid, address=GOVERNANCE
            )
        except SolidVMError:
            del self.chains[cid]
            self.world.chain_parents.pop(cid, None)
            for a, _ in chain.balances:
                self.world.balances.pop((cid, int(a, 16)), None)
            self.world.balances.update(saved)
            raise
        self.dirty_chains.add(cid)
        return res, {
            "tag": "Upload",
            "contents": {"chainId": cid, "address": GOVERNANCE_HEX, "name": cdef.name},
        }

    def _block_hash(self, number: int) -> str | None:
        if number == self.head.number + 1:
            return None  # still being sealed
        row = self.store.one("SELECT hash FROM blocks WHERE number=?", number)
        return str(row["hash"]) if row else None

    def chain_json(self, chain: Chain) -> dict[str, Any]:
        accounts: list[dict[str, Any]] = [
            {"address": a, "balance": str(self.world.balances.get((chain.id, int(a, 16)), 0))}
            for a, _ in chain.balances
        ]
        gov = self.world.accounts.get((chain.id, GOVERNANCE))
        if gov is not None:
            accounts.append(
                {
                    "address": GOVERNANCE_HEX,
                    "balance": str(self.world.balances.get((chain.id, GOVERNANCE), 0)),
                    "codeHash": chain.code_hash,
                }
            )
        src = self.codes.get(chain.code_hash, ("", ""))[1]
        return {
            "id": chain.id,
            "info": {
                "label": chain.label,
                "members": [m.to_json() for m in chain.members],
                "balances": [{"address": a, "balance": str(v)} for a, v in chain.balances],
                "accountInfo": accounts,
                "codeInfo": [{"code": "", "src": src, "name": chain.governance}],
                "parentChain": chain.parent or None,
                "creationBlock": self._block_hash(chain.creation_block),
                "creationBlockNumber": chain.creation_block,
                "creationTx": chain.creation_tx,
                "creator": chain.creator,
                "nonce": 0,
                "metadata": chain.metadata,
            },
        }

    def _exec_transfer(self, sub: Sub, nonce: int, fee: int = 0) -> dict[str, Any]:
        p = sub.payload
        to = int(p["toAddress"], 16)
        value = int(p["value"])
        chain = sub.chain
        b = self.world.balances
        if p.get("faucet") and sub.internal:
            b[(chain, to)] = b.get((chain, to), 0) + value
        else:
            src = (chain, int(sub.sender, 16))
            have = b.get(src, 0)
            if have < value + fee:
                raise SolidVMError(
                    f"insufficient balance: account {sub.sender} holds {have}, the transfer "
                    f"needs {value}" + (f" plus {fee} for gas" if fee else ""),
                    "insufficient balance",
                )
            b[src] = have - value
            b[(chain, to)] = b.get((chain, to), 0) + value
        self.dirty_balances.add((chain, to))
        return {
            "tag": "Send",
            "contents": {
                "hash": sub.hash,
                "gasLimit": sub.gas_limit,
                "codeOrData": "",
                "gasPrice": sub.gas_price,
                "to": p["toAddress"],
                "from": sub.sender,
                "value": str(value),
                "r": sub.signature.get("r", ""),
                "s": sub.signature.get("s", ""),
                "v": sub.signature.get("v", ""),
                "nonce": nonce,
                "chainId": chain or None,
                "metadata": None,
            },
        }

    def _note_changes(self, sub: Sub, res: ExecResult, number: int) -> None:
        history = ""
        if sub.type in ("CONTRACT", "GENESIS"):
            history = str(sub.payload.get("metadata", {}).get("history", ""))
        tracked = {h.strip() for h in history.split(",") if h.strip()}
        for chain, addr in res.created:
            k = (chain, int(addr, 16))
            acct = self.world.accounts[k]
            assert acct.cdef is not None
            org, app, table = self._table_for(acct, sub)
            self.meta[k] = ContractMeta(
                acct.cdef.name,
                self._code_of(acct.cdef),
                sub.sender if acct.creator is None else format(acct.creator, "040x"),
                number,
                sub.hash,
                number,
                sub.hash,
                acct.cdef.name if acct.cdef.name in tracked else "",
                org,
                app,
                table,
            )
        registry_touched = False
        written: list[AccountState] = []
        for chain, addr in res.touched:
            k = (chain, int(addr, 16))
            touched = self.world.accounts.get(k)
            if touched is None:
                continue
            self.dirty_contracts[k] = touched
            written.append(touched)
            m = self.meta.get(k)
            if m is not None:
                m.updated_block = number
                m.updated_tx = sub.hash
                self._block_touched[k] = (sub.hash, sub.sender)
                cdef = touched.cdef
                if m.history and cdef is not None and self.indexer.indexed(cdef):
                    row = self.indexer.row(touched, number, "", 0, sub.hash, sub.sender)
                    self._pending_history.append((m.table, cdef, row))
            if addr == REGISTRY_ADDRESS and chain == "":
                registry_touched = True
        for ev in res.events:
            chain_rec = self.chains.get(ev.chain_id) if ev.chain_id else None
            if chain_rec is not None and chain_rec.apply_event(ev.name, [v for _, v in ev.args]):
                self.dirty_chains.add(chain_rec.id)
            self._pending_events.append(
                (sub.hash, ev.chain_id, ev.address, ev.contract, ev.name, dumps(ev.args))
            )
            self._event_senders[sub.hash] = sub.sender
        if res.journal:
            created = {(chain, int(addr, 16)) for chain, addr in res.created}
            self.collections.note_tx(res.journal, written, created, (sub.hash, sub.sender))
        if registry_touched:
            self._sync_identities()

    def _state_diff(self, res: ExecResult | None) -> str:
        """The transaction result's ``stateDiff`` (see :mod:`app.node.state_diff`)."""
        if res is None:
            return ""
        accts = [self.world.accounts.get((c, int(a, 16))) for c, a in res.touched]
        created = {(c, int(a, 16)) for c, a in res.created}
        return tx_state_diff(res.journal, [a for a in accts if a is not None], created)

    def _table_for(self, acct: AccountState, sub: Sub) -> tuple[str, str, str]:
        """(org, app, Cirrus table name) of a new contract, per the platform's naming rule."""
        cdef = acct.cdef
        assert cdef is not None
        name = cdef.name
        if not cdef.pragma_solidvm:
            return "", name, name
        pointer = sub.payload.get("codePtr") if sub.type == "GENESIS" else None
        if acct.creator is None and pointer:
            # a chain's governance contract made from an application's code collection
            parent = self.meta.get((pointer[0], int(pointer[1], 16)))
            if parent is not None and parent.org:
                if parent.app == name:
                    return parent.org, name, f"{parent.org}-{name}"
                return parent.org, parent.app, f"{parent.org}-{parent.app}-{name}"
        if acct.creator is None:
            cert = self.world.identities.get(int(sub.sender, 16)) or {}
            org = cert.get("organization", "")
            return org, name, f"{org}-{name}" if org else name
        parent = self.meta.get((acct.chain, acct.creator))
        if parent is None or not parent.org:
            return "", name, name
        return parent.org, parent.app, f"{parent.org}-{parent.app}-{name}"

    def _sync_identities(self) -> None:
        """Rebuild the identity table getUserCert reads from the on-chain registry."""
        reg = self.world.accounts.get(("", int(REGISTRY_ADDRESS, 16)))
        if reg is None:
            return
        certs = reg.storage.get("certificates") or {}
        ids: dict[int, dict[str, str]] = {}
        for user, ref in certs.items():
            cert = self.world.accounts.get(("", ref.value))
            if cert is None or not cert.storage.get("isValid"):
                continue
            st = cert.storage
            ids[user.value] = {
                "commonName": st["commonName"],
                "organization": st["organization"],
                "organizationalUnit": st["organizationalUnit"],
                "group": st["group"],
                "country": st["country"],
                "publicKey": st["publicKey"],
                "certString": st["certificateString"],
                "parent": format(st["parent"].value, "040x"),
                "userAddress": format(user.value, "040x"),
            }
        self.world.identities.clear()
        for a, cert_fields in ids.items():
            self.world.register_identity(a, cert_fields)

    # ================================================================ results

    def _cache(self, tx_hash: str, res: dict[str, Any]) -> None:
        self.results[tx_hash] = res
        if len(self.results) > RESULT_CACHE:
            self.results.popitem(last=False)

    def result(self, tx_hash: str) -> dict[str, Any]:
        res = self.results.get(tx_hash)
        if res is not None:
            return res
        row = self.store.one("SELECT status, result FROM txs WHERE hash=?", tx_hash)
        if row is None or row["result"] is None:
            return pending_result(tx_hash)
        parsed: dict[str, Any] = json.loads(row["result"])
        return parsed

    def results_of(self, hashes: Iterable[str]) -> list[dict[str, Any]]:
        return [self.result(h) for h in hashes]

    def visible_chains(self, username: str) -> set[str]:
        """Private chains whose Cirrus rows ``username`` may see (members only)."""
        return {c.id for c in self.accessible_chains(username)}

    def is_queued(self, tx_hash: str) -> bool:
        return any(s.hash == tx_hash for s in self.queue)

    async def wait_results(self, hashes: list[str], timeout: float) -> list[dict[str, Any]]:
        """Results of ``hashes``, waiting up to ``timeout`` for queued ones (``?resolve``)."""
        queued = {s.hash for s in self.queue}
        loop = asyncio.get_running_loop()
        futures = []
        for h in set(hashes) & queued:
            fut: asyncio.Future[dict[str, Any]] = loop.create_future()
            self.watchers.setdefault(h, []).append(fut)
            futures.append(fut)
        if futures:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(asyncio.gather(*futures)), timeout)
        return self.results_of(hashes)


def _to_address(s: Sub) -> str | None:
    if s.type == "FUNCTION":
        return str(s.payload.get("contractAddress"))
    if s.type == "TRANSFER":
        return str(s.payload.get("toAddress"))
    return None


def _failure_status(message: str) -> dict[str, Any]:
    return {
        "stage": "Execution",
        "type": {"tag": "ExecutionFailure", "contents": message},
        "details": message,
    }


def _response_hex(res: ExecResult | None) -> str:
    if res is None or not res.values:
        return ""
    return dumps(res.values).encode().hex()


def pending_result(tx_hash: str) -> dict[str, Any]:
    return {"status": "Pending", "hash": tx_hash, "txResult": None, "data": None}


def discarded_result(tx_hash: str) -> dict[str, Any]:
    message = (
        "discarded: a transaction with resolve=true from the same user was submitted before "
        "this one completed (seed rule 3); it was not executed"
    )
    return {
        "status": "Discarded",
        "hash": tx_hash,
        "txResult": {
            "status": {
                "stage": "Queue",
                "type": {"tag": "Discarded", "contents": message},
                "details": message,
            },
            "message": message,
            "transactionHash": tx_hash,
        },
        "data": None,
    }


__all__ = ["Address", "Ledger", "Sub", "discarded_result", "pending_result"]
