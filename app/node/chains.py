"""Private chains: their records, membership rules and the checks on creation requests.

A member entry names an organisation, optionally narrowed to a unit and a common name (empty
parts are wildcards); ``access: false`` entries grant nothing. Membership changes through events
emitted by contracts on the chain: the seed's ``OrganizationAdded/Removed(org)`` and the
platform's ``OrgAdded``, ``OrgUnitAdded``, ``CommonNameAdded`` and their ``*Removed`` forms.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .errors import bad_request

GOVERNANCE_ADDRESS = "0000000000000000000000000000000000000100"
MAX_MEMBERS = 1_000


def not_a_member(username: str, chain: str, what: str = "chainid") -> str:
    """The one refusal (a 403) for a private chain the user may not see, whether it exists or
    not: telling "unknown" from "not a member" would tell an outsider which chains exist."""
    return f"{what}: user {username} is not a member of chain {chain}, or there is no such chain"


@dataclass
class Member:
    org: str = ""
    unit: str = ""
    common_name: str = ""
    access: bool = True

    def matches(self, cert: dict[str, str]) -> bool:
        if not self.access:
            return False
        if self.org and cert.get("organization", "") != self.org:
            return False
        if self.unit and cert.get("organizationalUnit", "") != self.unit:
            return False
        return not (self.common_name and cert.get("commonName", "") != self.common_name)

    def to_json(self) -> dict[str, Any]:
        return {
            "orgName": self.org,
            "orgUnit": self.unit,
            "commonName": self.common_name,
            "access": self.access,
        }


@dataclass
class Chain:
    id: str
    label: str
    parent: str  # "" for a child of the main chain
    members: list[Member]
    balances: list[tuple[str, int]]
    metadata: dict[str, str]
    creator: str
    creation_block: int = -1
    creation_tx: str = ""
    governance: str = ""  # contract name at 0x100
    code_hash: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def is_member(self, cert: dict[str, str] | None) -> bool:
        return cert is not None and any(m.matches(cert) for m in self.members)

    # ------------------------------------------------------------ membership events

    def apply_event(self, name: str, args: list[str]) -> bool:
        """Apply a membership event; True when it was one."""
        a = [*args, "", "", ""]
        if name in ("OrganizationAdded", "OrgAdded"):
            self._add(Member(a[0]))
        elif name == "OrgUnitAdded":
            self._add(Member(a[0], a[1]))
        elif name == "CommonNameAdded":
            self._add(Member(a[0], a[1], a[2]))
        elif name in ("OrganizationRemoved", "OrgRemoved"):
            self.members = [m for m in self.members if m.org != a[0]]
        elif name == "OrgUnitRemoved":
            self.members = [m for m in self.members if not (m.org == a[0] and m.unit == a[1])]
        elif name == "CommonNameRemoved":
            self.members = [
                m
                for m in self.members
                if not (m.org == a[0] and m.unit == a[1] and m.common_name == a[2])
            ]
        else:
            return False
        return True

    def _add(self, m: Member) -> None:
        if m.org and all(m != x for x in self.members) and len(self.members) < MAX_MEMBERS:
            self.members.append(m)

    # ------------------------------------------------------------ persistence

    def to_row(self) -> tuple[Any, ...]:
        return (
            self.id,
            self.label,
            self.parent,
            json.dumps([m.to_json() for m in self.members]),
            json.dumps([[a, str(b)] for a, b in self.balances]),
            json.dumps(self.metadata),
            self.creator,
            self.creation_block,
            self.creation_tx,
            self.governance,
            self.code_hash,
        )

    @classmethod
    def from_row(cls, row: Any) -> Chain:
        return cls(
            id=row["id"],
            label=row["label"],
            parent=row["parent"],
            members=[parse_member(m, 0) for m in json.loads(row["members"])],
            balances=[(a, int(b)) for a, b in json.loads(row["balances"])],
            metadata=json.loads(row["metadata"]),
            creator=row["creator"],
            creation_block=row["creation_block"],
            creation_tx=row["creation_tx"],
            governance=row["governance"],
            code_hash=row["code_hash"],
        )


def parse_member(m: Any, i: int) -> Member:
    if not isinstance(m, dict):
        raise bad_request(f"members[{i}] must be an object with orgName, orgUnit, commonName")
    out = Member()
    for key, attr in (("orgName", "org"), ("orgUnit", "unit"), ("commonName", "common_name")):
        v = m.get(key, "")
        if v is None:
            v = ""
        if not isinstance(v, str) or len(v) > 256:
            raise bad_request(f"members[{i}].{key} must be a string")
        setattr(out, attr, v)
    access = m.get("access", True)
    if not isinstance(access, bool):
        raise bad_request(f"members[{i}].access must be true or false")
    out.access = access
    if (out.unit or out.common_name) and not out.org:
        raise bad_request(f"members[{i}] names a unit or common name without an orgName")
    return out
