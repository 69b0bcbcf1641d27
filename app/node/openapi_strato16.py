"""OpenAPI entries of the routes STRATO 16 serves beyond the seeds (metadata, storage, the
contract definition, the account search and ``/transaction/parallel``); merged into
:data:`app.node.openapi_ops.OPERATIONS`."""

from __future__ import annotations

from .openapi_shapes import (
    BAD,
    CHAINID,
    FAILED_ONE,
    HALTED,
    HEX40_IN,
    HEX64_IN,
    NEED_ONE,
    NOT_MEMBER,
    RESOLVE,
    SIMPLE_SRC,
    STR,
    TIMEOUT,
    UINT,
    S,
    array,
    body,
    json_of,
    nullable,
    obj,
    query,
    ref,
)

TYPE: S = obj(["tag"], tag=STR)
INDEXED: S = array(
    {
        "type": "array",
        "minItems": 2,
        "maxItems": 2,
        "items": {"anyOf": [nullable(STR), obj(["index", "type"], index=UINT, type=TYPE)]},
    }
)
FUNCTION: S = obj(
    ["_funcArgs", "_funcVals", "_funcVisibility"],
    _funcArgs=INDEXED,
    _funcVals=INDEXED,
    _funcVisibility=nullable(STR),
    _funcStateMutability=nullable(STR),
)
CONTRACT: S = obj(
    [
        "_contractName",
        "_parents",
        "_storageDefs",
        "_functions",
        "_events",
        "_contractType",
    ],
    _contractName=STR,
    _parents=array(STR),
    _constants={"type": "object"},
    _storageDefs={"type": "object", "additionalProperties": obj(["_varType"], _varType=TYPE)},
    _userDefined={"type": "object"},
    _enums={"type": "object"},
    _structs={"type": "object"},
    _errors={"type": "object"},
    _events={"type": "object"},
    _functions={"type": "object", "additionalProperties": FUNCTION},
    _constructor=nullable(FUNCTION),
    _modifiers={"type": "object"},
    _usings={"type": "object"},
    _contractType={
        "type": "string",
        "enum": ["ContractType", "LibraryType", "AbstractType", "InterfaceType"],
    },
    _importedFrom=nullable(STR),
    _contractContext={"type": "object"},
)
METADATA: S = obj(
    [
        "nodePubKey",
        "nodeAddress",
        "validators",
        "isSynced",
        "isVaultPasswordSet",
        "networkID",
        "urls",
    ],
    nodePubKey=STR,
    nodeAddress=STR,
    validators=array(ref("Address")),
    isSynced={"type": "boolean"},
    isVaultPasswordSet={"type": "boolean"},
    networkID={"type": "string", "pattern": "^[0-9]+$"},
    urls=obj(
        ["vault", "oauthDiscovery", "notificationServer", "fileServer", "monitor"],
        vault=STR,
        oauthDiscovery=STR,
        notificationServer=STR,
        fileServer=STR,
        monitor=STR,
    ),
)
STORAGE_ROW: S = obj(["key", "value", "address"], key=STR, value=STR, address=ref("Address"))
PATH = "a state variable's path: x, s.field, m[key], a[0], a.length"
LITERAL = 'a SolidVM literal: 123, true, "text", address(<hex>), Enum.Value.N, Contract(<hex>)'


def _q(name: str, schema: S, description: str, example: object) -> S:
    return query(name, schema, description, example=example)


STRATO16_OPERATIONS: dict[str, S] = {
    "NodeApi.metadata": {"responses": {"200": json_of(METADATA, "the node's metadata")}},
    "NodeApi.storage": {
        "parameters": [
            _q("key", STR, f"exactly this path ({PATH})", "x"),
            _q("minkey", STR, "paths from this one (text order)", "a"),
            _q("maxkey", STR, "paths up to this one (text order)", "z"),
            _q("value", STR, f"exactly this value ({LITERAL})", "1"),
            _q("minvalue", STR, "values from this one (text order)", "0"),
            _q("maxvalue", STR, "values up to this one (text order)", "9"),
            _q(
                "search",
                STR,
                "comma-separated terms, any found in address, name, path or value",
                "x",
            ),
            _q("address", HEX40_IN, "one contract's storage (no cap on rows)", "0" * 40),
            _q("offset", UINT, "skip this many rows", 0),
            _q("limit", UINT, "at most this many rows (without address: at most 1000)", 10),
            CHAINID,
        ],
        "responses": {
            "200": json_of(array(STORAGE_ROW), "stored values, by path"),
            "400": BAD,
            "403": NOT_MEMBER,
        },
    },
    "NodeApi.contract_definition": {
        "parameters": [CHAINID],
        "responses": {
            "200": json_of(CONTRACT, "the contract's SolidVM definition"),
            "400": BAD,
            "403": NOT_MEMBER,
        },
    },
    "NodeApi.accounts": {
        "parameters": [
            query("address", HEX40_IN, "account address"),
            query("contractName", STR, "every contract of that name"),
            query(
                "search",
                STR,
                "comma-separated terms, any in the address or contract name (case-insensitive)",
                example="Simple",
            ),
            query("external", {"type": "boolean"}, "true: accounts without code; false: contracts"),
            query("balance", UINT, "balance equal to"),
            query("minbalance", UINT, "balance at least"),
            query("maxbalance", UINT, "balance at most"),
            query("nonce", UINT, "nonce equal to"),
            query("minnonce", UINT, "nonce at least"),
            query("maxnonce", UINT, "nonce at most"),
            query("maxnumber", UINT, "accepted and not applied, as on the platform"),
            query("codeHash", HEX64_IN, "the contract's code hash"),
            query("limit", UINT, "at most this many (at most 1000)"),
            query("offset", UINT, "skip this many"),
            CHAINID,
        ],
        "responses": {
            "200": json_of(array(ref("Account")), "the accounts, by address"),
            "400": NEED_ONE,
            "403": NOT_MEMBER,
        },
    },
    "NodeApi.transaction_parallel": {
        "parameters": [RESOLVE, CHAINID],
        "requestBody": body(
            ref("TransactionRequest"),
            {
                "txs": [
                    {
                        "type": "CONTRACT",
                        "payload": {"contract": "Simple", "src": SIMPLE_SRC, "args": {"_x": 1}},
                    },
                    {"type": "TRANSFER", "payload": {"toAddress": "0" * 40, "value": 0}},
                ],
                "txParams": {"gasLimit": 100000000, "gasPrice": 1},
            },
        ),
        "responses": {
            "200": json_of(
                array(ref("TxResult")),
                "one result per transaction, grouped TRANSFER, CONTRACT, FUNCTION",
            ),
            "400": BAD,
            "403": NOT_MEMBER,
            "422": FAILED_ONE,
            "503": HALTED,
            "504": TIMEOUT,
        },
    },
}

__all__ = ["STRATO16_OPERATIONS"]
