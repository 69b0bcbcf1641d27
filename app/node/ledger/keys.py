"""The node's signing keys (one per user, sealed by the vault) and the signing of new
transactions."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from ..genesis import ROOT_USER
from ..solidvm.ops import keccak256
from ..store import Store, dumps
from ..vault import Vault
from .common import DEFAULT_GAS_LIMIT, DEFAULT_GAS_PRICE, Sub, parse_amount


class KeyRing:
    """Users' keys (the ``keys`` table) and the transactions they sign.

    Transaction numbers are given out by the loop and by worker threads preparing large
    requests alike, hence the lock.
    """

    def __init__(self, store: Store, vault: Vault) -> None:
        self.store = store
        self.vault = vault
        self.root_address = ""  # the operator's address (set by :meth:`load`)
        self._sealed: dict[str, bytes] = {}  # address -> sealed key (b"" when none)
        self._seq_lock = threading.Lock()
        self._seq = 0

    def load(self) -> None:
        """The last transaction number and the operator's address, at start."""
        self._seq = int((self.store.one("SELECT MAX(seq) FROM txs") or [0])[0] or 0)
        root = self.key_of(ROOT_USER)
        self.root_address = root["address"] if root else ""

    def key_of(self, name: str) -> dict[str, str] | None:
        row = self.store.one("SELECT address, pubkey FROM keys WHERE name=?", name)
        return {"address": row["address"], "pubkey": row["pubkey"]} if row else None

    def name_of_address(self, address: str) -> str | None:
        row = self.store.one("SELECT name FROM keys WHERE address=?", address)
        return str(row["name"]) if row else None

    def insert_key(self, name: str) -> dict[str, str]:
        """A new key for ``name`` (the caller checked there was none, in its transaction)."""
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

    def new_sub(
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
        """A transaction of ``sender``, numbered and signed with its key."""
        params = tx_params or {}
        gas_limit = parse_amount(params.get("gasLimit", DEFAULT_GAS_LIMIT), "txParams.gasLimit")
        gas_price = parse_amount(params.get("gasPrice", DEFAULT_GAS_PRICE), "txParams.gasPrice")
        with self._seq_lock:  # large requests are prepared on a worker thread
            self._seq += 1
            seq = self._seq
        now = time.time()
        # byte for byte dumps([sender, seq, now, type_, payload, chain, gas_limit, gas_price]),
        # the payload encoded once for the signature and the stored request
        payload_json = dumps(payload)
        body = (
            f"[{dumps(sender)},{seq},{now!r},{dumps(type_)},{payload_json},{dumps(chain)},"
            f"{gas_limit},{gas_price}]"
        )
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
            seq=seq,
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
            payload_json=payload_json,
        )

    def internal_sub(self, type_: str, payload: dict[str, Any], chain: str = "") -> Sub:
        """A transaction of the node's own, sent by the operator (it pays no gas)."""
        root = self.key_of(ROOT_USER)
        assert root is not None
        sub = self.new_sub(ROOT_USER, root["address"], type_, payload, chain, None, internal=True)
        return sub


def sub_from_row(row: Any) -> Sub:
    """A recorded transaction (a ``txs`` row) as it was submitted."""
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
