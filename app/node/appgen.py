"""Asset application definitions and the SolidVM source generated from them.

A definition names the application and its asset types with typed fields, e.g.::

    {"name": "CarDemo",
     "assets": [{"name": "car", "fields": {"vin": "string", "color": "string",
                                          "model": "string", "weight": "int"}}]}

Field types: ``string``/``text``, ``int``/``integer``, ``uint``, ``bool``/``boolean``,
``datetime`` (an int of seconds), ``reference`` (a chain id string). The generated asset contract
is the seed's: ownership fields, constructor ``(appChainId, fields...)``, ``update(fields...,
uint _scheme)`` where the leftmost bit of the scheme (read as a binary string in field order)
stands for the first field, and ``transferOwnership(address)`` emitting the shard membership
events.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .text import refusal, surrogate_path

IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
TYPES = {
    "string": "string",
    "text": "string",
    "reference": "string",
    "int": "int",
    "integer": "int",
    "datetime": "int",
    "uint": "uint",
    "bool": "bool",
    "boolean": "bool",
}
RESERVED_FIELDS = {
    "owner",
    "appChainId",
    "ownerOrganization",
    "ownerOrganizationalUnit",
    "ownerCommonName",
    "address",
    "chainId",
    "record_id",
    "block_hash",
    "block_timestamp",
    "block_number",
    "transaction_hash",
    "transaction_sender",
}
SOLIDITY_WORDS = {
    "contract",
    "function",
    "event",
    "mapping",
    "return",
    "returns",
    "uint",
    "int",
    "string",
    "bool",
    "address",
    "account",
    "if",
    "else",
    "for",
    "while",
    "do",
    "new",
    "delete",
    "emit",
    "public",
    "private",
    "this",
    "super",
    "true",
    "false",
    "var",
    "struct",
    "enum",
    "modifier",
    "record",  # reserved by SolidVM
    "try",  # statement keywords: a field of that name could not be assigned
    "throw",
}


class DefinitionError(ValueError):
    """An application definition that cannot be used; the message says why."""


@dataclass(frozen=True)
class AssetDef:
    name: str  # route name, e.g. "car"
    contract: str  # contract name, e.g. "Car"
    fields: tuple[tuple[str, str], ...]  # (field, solidity type)


@dataclass(frozen=True)
class AppDef:
    name: str
    assets: tuple[AssetDef, ...]

    def asset(self, name: str) -> AssetDef | None:
        return next((a for a in self.assets if a.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "assets": [{"name": a.name, "fields": dict(a.fields)} for a in self.assets],
        }


def load_definition_file(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        kind = path.suffix.lstrip(".") or "JSON"
        raise DefinitionError(f"{path}: not valid {kind}: {exc}") from None
    if not isinstance(data, dict):
        raise DefinitionError(f"{path}: the definition must be an object")
    found = surrogate_path(data)
    if found is not None:
        raise DefinitionError(f"{path}: {refusal(*found)}")
    return data


def parse_definition(data: Any) -> AppDef:
    if not isinstance(data, dict):
        raise DefinitionError("the definition must be an object with name and assets")
    name = data.get("name")
    if not isinstance(name, str) or not IDENT.match(name) or name in SOLIDITY_WORDS:
        raise DefinitionError("name must be an identifier (letters, digits, '_'; max 64)")
    assets_in = data.get("assets")
    if isinstance(assets_in, dict):  # {"car": {"vin": "string"}} form
        assets_in = [{"name": k, "fields": v} for k, v in assets_in.items()]
    if not isinstance(assets_in, list) or not assets_in:
        raise DefinitionError("assets must be a non-empty list of {name, fields}")
    assets: list[AssetDef] = []
    for i, a in enumerate(assets_in):
        if not isinstance(a, dict):
            raise DefinitionError(f"assets[{i}] must be an object with name and fields")
        aname = a.get("name")
        if not isinstance(aname, str) or not IDENT.match(aname) or aname in SOLIDITY_WORDS:
            raise DefinitionError(f"assets[{i}].name must be an identifier")
        contract = aname[0].upper() + aname[1:]
        if contract == name or any(x.contract == contract for x in assets):
            raise DefinitionError(f"asset name {aname!r} clashes with another name")
        fields_in = a.get("fields")
        if isinstance(fields_in, list):
            try:
                fields_in = {f["name"]: f["type"] for f in fields_in}
            except (TypeError, KeyError):
                raise DefinitionError(f"assets[{i}].fields: use {{name: type}}") from None
        if not isinstance(fields_in, dict) or not fields_in:
            raise DefinitionError(f"assets[{i}].fields must map field names to types")
        if len(fields_in) > 64:
            raise DefinitionError(f"assets[{i}] has more than 64 fields")
        fields: list[tuple[str, str]] = []
        for fname, ftype in fields_in.items():
            if not IDENT.match(fname) or fname in SOLIDITY_WORDS or fname.startswith("_"):
                raise DefinitionError(f"field {fname!r} of {aname} is not a valid identifier")
            if fname in RESERVED_FIELDS:
                raise DefinitionError(f"field {fname!r} of {aname} is reserved")
            sol = TYPES.get(str(ftype).lower())
            if sol is None:
                raise DefinitionError(
                    f"field {fname!r} of {aname}: unknown type {ftype!r} "
                    f"(use one of {', '.join(sorted(TYPES))})"
                )
            fields.append((fname, sol))
        assets.append(AssetDef(aname, contract, tuple(fields)))
    return AppDef(name, tuple(assets))


def asset_source(a: AssetDef) -> str:
    fields = a.fields
    n = len(fields)
    decls = "\n".join(f"    {t} public {f};" for f, t in fields)
    params = ", ".join(f"{t} _{f}" for f, t in fields)
    assigns = "\n".join(f"        {f} = _{f};" for f, _ in fields)
    updates = "\n".join(
        f"        if ((_scheme & {1 << (n - 1 - i)}) != 0) {{ {f} = _{f}; }}"
        for i, (f, _) in enumerate(fields)
    )
    return f"""
contract {a.contract} {{
    address public owner;
    string public appChainId;
    string public ownerOrganization;
    string public ownerOrganizationalUnit;
    string public ownerCommonName;
{decls}

    event OrganizationAdded(string org);
    event OrganizationRemoved(string org);

    constructor(string _appChainId, {params}) public {{
        owner = tx.origin;
        appChainId = _appChainId;
        ownerOrganization = getUserCert(tx.origin)["organization"];
        ownerOrganizationalUnit = getUserCert(tx.origin)["organizationalUnit"];
        ownerCommonName = getUserCert(tx.origin)["commonName"];
{assigns}
    }}

    // _scheme, read as a {n}-digit binary string in field order: the leftmost bit is the first
    // field. A 1 marks a field to update.
    function update({params}, uint _scheme) public returns (uint) {{
        if (tx.origin != owner) {{ return 403; }}
        if (_scheme == 0) {{ return 200; }}
{updates}
        return 200;
    }}

    function transferOwnership(address _addr) public returns (uint) {{
        if (tx.origin != owner) {{ return 403; }}
        string newOrg = getUserCert(account(_addr))["organization"];
        if (bytes(newOrg).length == 0) {{ return 404; }}
        if (newOrg != ownerOrganization) {{
            emit OrganizationAdded(newOrg);
            emit OrganizationRemoved(ownerOrganization);
        }}
        owner = _addr;
        ownerOrganization = newOrg;
        ownerOrganizationalUnit = getUserCert(account(_addr))["organizationalUnit"];
        ownerCommonName = getUserCert(account(_addr))["commonName"];
        return 200;
    }}
}}
"""


def app_source(app: AppDef) -> str:
    """The application contract plus every asset contract: one code collection."""
    assets = "".join(asset_source(a) for a in app.assets)
    return f"""pragma solidvm 3.2;

contract {app.name} {{
    string public appName;
    address public owner;
    string public ownerOrganization;
    string public ownerOrganizationalUnit;

    event OrgAdded(string orgName);
    event OrgRemoved(string orgName);

    constructor() public {{
        appName = "{app.name}";
        owner = tx.origin;
        ownerOrganization = getUserCert(tx.origin)["organization"];
        ownerOrganizationalUnit = getUserCert(tx.origin)["organizationalUnit"];
    }}

    function addOrg(string _orgName) public returns (uint) {{
        if (tx.origin != owner) {{ return 403; }}
        emit OrgAdded(_orgName);
        return 200;
    }}

    function removeOrg(string _orgName) public returns (uint) {{
        if (tx.origin != owner) {{ return 403; }}
        emit OrgRemoved(_orgName);
        return 200;
    }}
}}
{assets}"""


DEMO_APP: dict[str, Any] = {
    "name": "CarDemo",
    "assets": [
        {
            "name": "car",
            "fields": {"vin": "string", "color": "string", "model": "string", "weight": "int"},
        }
    ],
}
