"""Chains and identities: certificates, the on-chain registry, private-chain membership."""

from __future__ import annotations

from typing import Any

from .. import certs
from ..chains import Chain, not_a_member
from ..config import NodeConfig
from ..errors import ApiError
from ..genesis import (
    FAUCET_AMOUNT,
    REGISTRY_ADDRESS,
    ROOT_USER,
)
from ..solidvm import World
from ..store import Store
from ..vault import Vault
from .codebook import CodeBook
from .common import (
    GOVERNANCE,
    GOVERNANCE_HEX,
    Sub,
)
from .keys import KeyRing
from .state import ChainState
from .txqueue import TxQueue


class Identities:
    """Users' certificates (the registry contract's, mirrored in ``world.identities``) and
    who may use which private chain."""

    def __init__(
        self,
        config: NodeConfig,
        store: Store,
        vault: Vault,
        state: ChainState,
        keys: KeyRing,
        codes: CodeBook,
        queue: TxQueue,
    ) -> None:
        self.config = config
        self.store = store
        self.vault = vault
        self.state = state
        self.world = state.world
        self.chains = state.chains
        self.keys = keys
        self.codes = codes
        self.queue = queue
        self._root_cert = ""  # the operator's certificate, issuer of the users' ones

    def identity_sub(self, name: str, address: str, org: str, unit: str) -> Sub:
        key = self.keys.key_of(name)
        cert = self.issue_certificate(name, org, unit, key["pubkey"]) if key else ""
        return self.keys.internal_sub(
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

    def issue_certificate(self, name: str, org: str, unit: str, pubkey: str) -> str:
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
            root = self.world.identities.get(int(self.keys.root_address or "0", 16)) or {}
            self._root_cert = root.get("certString", "")
        if "BEGIN CERTIFICATE" not in self._root_cert:  # a registry made before certificates
            self._root_cert = certs.issue(
                (ROOT_USER, "BlockApps", "Operations", ""), row["pubkey"], secret, None
            )
        return certs.issue((name, org, unit, ""), pubkey, secret, self._root_cert)

    def create_key(self, name: str) -> dict[str, str]:
        with self.store.transaction():
            if self.keys.key_of(name) is not None:
                raise ApiError(400, f"User {name} already exists")
            key = self.keys.insert_key(name)
        # with gas on, a new account holds nothing until the faucet funds it
        self.register_identity_later(name)
        return key

    def register_identity_later(self, name: str) -> None:
        """Queue the identity registration of a user who asked for one and now has a key."""
        from ..users import UserStore

        u = UserStore(self.store, self.vault).get(name)
        key = self.keys.key_of(name)
        if u is None or key is None or not u["wants_identity"]:
            return
        if int(key["address"], 16) in self.world.identities:
            return
        sub = self.identity_sub(name, key["address"], u["org"], u["unit"])
        self.queue.record([sub])
        self.queue.put([sub])

    def chain_balance(self, chain: str, address: str) -> int:
        """As of the last committed block (for code on the loop, as :meth:`chain_json`)."""
        balance: int = self.state.committed().balances.get((chain, int(address, 16)), 0)
        return balance

    def fund_on_chain(self, chain: str, address: str) -> None:
        """With --gas, queue the faucet's amount for ``address`` on private chain ``chain``: the
        asset application does this for a shard's new owner, who otherwise holds nothing on it
        and could not pay for the next update. Without gas, nothing."""
        if not self.config.gas:
            return
        sub = self.keys.internal_sub(
            "TRANSFER", {"faucet": True, "toAddress": address, "value": FAUCET_AMOUNT}, chain
        )
        self.queue.record([sub])
        self.queue.put([sub])

    def cert_of_user(self, username: str) -> dict[str, str] | None:
        key = self.keys.key_of(username)
        return self.world.identities.get(int(key["address"], 16)) if key else None

    def member_addr(self, address: str, chain: str) -> bool:
        rec = self.chains.get(chain)
        return rec is not None and rec.is_member(self.world.identities.get(int(address, 16)))

    def is_member(self, username: str, chain: str) -> bool:
        rec = self.chains.get(chain)
        return rec is not None and rec.is_member(self.cert_of_user(username))

    def require_member(self, username: str, chain: str, what: str = "chainid") -> Chain:
        """The private chain ``chain`` (named by the request's field ``what``) when
        ``username`` is one of its members. A chain that does not exist gets the same 403 as one
        the user is not a member of, so that no outsider learns which chains exist."""
        rec = self.chains.get(chain)
        if rec is None or not rec.is_member(self.cert_of_user(username)):
            raise ApiError(403, not_a_member(username, chain, what))
        return rec

    def accessible_chains(self, username: str) -> list[Chain]:
        cert = self.cert_of_user(username)
        return [c for c in list(self.chains.values()) if c.is_member(cert)]

    def visible_chains(self, username: str) -> set[str]:
        """Private chains whose Cirrus rows ``username`` may see (members only)."""
        return {c.id for c in self.accessible_chains(username)}

    def sync(self) -> None:
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
        # built aside and swapped in one assignment: the loop reads identities meanwhile
        fresh = World()
        for a, cert_fields in ids.items():
            fresh.register_identity(a, cert_fields)
        self.world.identities = fresh.identities

    def chain_json(self, chain: Chain) -> dict[str, Any]:
        """A chain as the API shows it; balances as of the last committed block (the routes
        call it on the loop while the producer's worker may be half-way through a block)."""
        world = self.state.committed()
        accounts: list[dict[str, Any]] = [
            {"address": a, "balance": str(world.balances.get((chain.id, int(a, 16)), 0))}
            for a, _ in chain.balances
        ]
        gov = world.accounts.get((chain.id, GOVERNANCE))
        if gov is not None:
            accounts.append(
                {
                    "address": GOVERNANCE_HEX,
                    "balance": str(world.balances.get((chain.id, GOVERNANCE), 0)),
                    "codeHash": chain.code_hash,
                }
            )
        src = self.codes.source(chain.code_hash)
        return {
            "id": chain.id,
            "info": {
                "label": chain.label,
                "members": [m.to_json() for m in chain.members],
                "balances": [{"address": a, "balance": str(v)} for a, v in chain.balances],
                "accountInfo": accounts,
                "codeInfo": [{"code": "", "src": src, "name": chain.governance}],
                "parentChain": chain.parent or None,
                "creationBlock": self.state.block_hash(chain.creation_block),
                "creationBlockNumber": chain.creation_block,
                "creationTx": chain.creation_tx,
                "creator": chain.creator,
                "nonce": 0,
                "metadata": chain.metadata,
            },
        }
