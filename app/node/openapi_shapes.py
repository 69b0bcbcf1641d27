"""Shared pieces of the node's OpenAPI description: parameter formats, component schemas,
the error answers every route shares. :mod:`app.node.openapi_ops` uses them per route.
"""

from __future__ import annotations

from typing import Any

S = dict[str, Any]


def ref(name: str) -> S:
    return {"$ref": f"#/components/schemas/{name}"}


def json_of(schema: S, description: str) -> S:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def text_of(description: str, media: str = "text/plain") -> S:
    return {"description": description, "content": {media: {"schema": {"type": "string"}}}}


def array(items: S, **extra: Any) -> S:
    return {"type": "array", "items": items, **extra}


def obj(required: list[str] | None = None, **props: S) -> S:
    out: S = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out


def nullable(schema: S) -> S:
    return {**schema, "nullable": True}


def query(name: str, schema: S, description: str, **extra: Any) -> S:
    return {"name": name, "in": "query", "schema": schema, "description": description, **extra}


def body(schema: S, example: Any = None, media: str = "application/json") -> S:
    content: S = {"schema": schema}
    if example is not None:
        content["example"] = example
    return {"required": True, "content": {media: content}}


STR: S = {"type": "string"}
UINT: S = {"type": "integer", "minimum": 0, "maximum": 10**18 - 1}
FLAG: S = {"type": "boolean"}
HEX40_IN: S = {"type": "string", "pattern": "^(0[xX])?[0-9a-fA-F]{40}$"}
HEX64_IN: S = {"type": "string", "pattern": "^(0[xX])?[0-9a-fA-F]{64}$"}
CHAIN_IN: S = {"type": "string", "pattern": "^((0[xX])?[0-9a-fA-F]{1,64}|main)?$"}
DEMO_ADDRESS = "00000000000000000000000000000000deadbeef"
SIMPLE_SRC = "contract Simple { uint public x; constructor(uint _x) { x = _x; } }"

RESOLVE = query("resolve", FLAG, "wait for the result (up to the node's --resolve-timeout)")
CHAINID = query(
    "chainid",
    CHAIN_IN,
    "private chain id (64 hex digits; shorter is left-padded; empty or "
    "'main' is the main chain); members only: an unknown chain gets the non-member's 403",
)
LIMIT = query("limit", UINT, "at most this many items")
OFFSET = query("offset", UINT, "skip this many items")

PATH_PARAMS: dict[str, S] = {
    "hash": {"schema": HEX64_IN, "description": "transaction hash (64 hex digits)"},
    "address": {"schema": HEX40_IN, "description": "account or contract address (40 hex)"},
    "name": {
        "schema": {"type": "string", "minLength": 1},
        "description": "a user or contract name",
    },
    "n": {"schema": {"type": "integer", "minimum": 0}, "description": "how many (capped at 100)"},
    "mapping": {"schema": {"type": "string", "minLength": 1}, "description": "mapping variable"},
    "key": {"schema": {"type": "string", "minLength": 1}, "description": "mapping key"},
    "table": {
        "schema": {"type": "string", "minLength": 1},
        "description": "contract name, history@<name>, <Contract>.<Event> or an asset table",
        "example": "Certificate",
    },
    "app": {"schema": {"type": "string", "minLength": 1}, "example": "CarDemo"},
    "asset": {"schema": {"type": "string", "minLength": 1}, "example": "car"},
    "id": {
        "schema": {"type": "string", "minLength": 1},
        "description": "the asset's shard chain id, or <address>:<chainId>",
    },
    "chain": {"schema": CHAIN_IN, "description": "the asset's shard chain id"},
    "token": {"schema": {"type": "string", "minLength": 1}, "description": "one-time link"},
    "rest": {"schema": {"type": "string"}, "description": "any file route"},
    "sid": {"schema": {"type": "string", "minLength": 1}, "description": "a debug session id"},
    "ref": {"schema": {"type": "integer", "minimum": 1}, "description": "a variables reference"},
    "file": {"schema": {"type": "string", "minLength": 1}, "description": "a source file name"},
}

TX_RESULT: S = obj(
    ["status", "hash"],
    status={"type": "string", "enum": ["Pending", "Success", "Failure", "Discarded"]},
    hash={"type": "string", "pattern": "^[0-9a-f]{64}$"},
    txResult=nullable({"type": "object"}),
    data=nullable(obj(["tag"], tag={"type": "string", "enum": ["Upload", "Call", "Send"]})),
)
TX_PARAMS: S = obj(gasLimit=UINT, gasPrice=UINT, nonce=UINT)
AMOUNT: S = {
    "anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "pattern": "^[0-9]+$"}]
}
META: S = obj(VM={"type": "string", "enum": ["SolidVM", "EVM"]}, history=STR)

COMPONENTS: S = {
    "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}},
    "schemas": {
        "Message": {"type": "string", "description": "what was wrong, as a JSON string"},
        "Error": obj(
            ["error"], error=STR, hashes=array({"type": "string", "pattern": "^[0-9a-f]{64}$"})
        ),
        "Problem": {"anyOf": [ref("Message"), ref("Error")]},
        "Address": {"type": "string", "pattern": "^[0-9a-f]{40}$"},
        "Hash": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        "Key": obj(["status", "address"], status=STR, address=ref("Address"), pubkey=STR),
        "TxResult": TX_RESULT,
        "TxParams": TX_PARAMS,
        "ContractPayload": obj(
            ["src"],
            contract=STR,
            src={"anyOf": [STR, {"type": "object"}]},
            args={"type": "object"},
            metadata=META,
            value=AMOUNT,
            chainid=CHAIN_IN,
            txParams=TX_PARAMS,
        ),
        "FunctionPayload": obj(
            ["contractAddress", "method"],
            contractName=STR,
            contractAddress=HEX40_IN,
            method=STR,
            args={"type": "object"},
            value=AMOUNT,
            chainid=CHAIN_IN,
            txParams=TX_PARAMS,
        ),
        "TransferPayload": obj(
            ["toAddress", "value"], toAddress=HEX40_IN, value=AMOUNT, chainid=CHAIN_IN
        ),
        "Tx": obj(
            ["type", "payload"],
            type={"type": "string", "enum": ["CONTRACT", "FUNCTION", "TRANSFER"]},
            payload={
                "anyOf": [ref("ContractPayload"), ref("FunctionPayload"), ref("TransferPayload")]
            },
        ),
        "TransactionRequest": obj(
            ["txs"], txs=array(ref("Tx"), minItems=1, maxItems=5000), txParams=TX_PARAMS
        ),
        "Block": obj(
            ["kind", "blockHash", "blockData", "receiptTransactions"],
            kind=STR,
            blockHash=STR,
            blockData=obj(["number", "timestamp"], number={"type": "integer"}, timestamp=STR),
            receiptTransactions=array(ref("Transaction")),
        ),
        "Transaction": obj(
            ["kind", "hash", "from", "transactionType", "blockNumber", "status"],
            kind=STR,
            hash=ref("Hash"),
            **{"from": ref("Address"), "to": ref("Address")},
            transactionType={
                "type": "string",
                "enum": ["Contract", "FunctionCall", "Transfer", "GENESIS"],
            },
            blockNumber={"type": "integer"},
            value=STR,
            nonce={"type": "integer"},
            timestamp=STR,
            status=STR,
            chainId=ref("Hash"),
        ),
        "Account": obj(
            ["kind", "address", "nonce", "balance"],
            kind=STR,
            address=ref("Address"),
            nonce={"type": "integer"},
            balance={"type": "string", "pattern": "^[0-9]+$"},
            codeHash=STR,
            contractName=nullable(STR),
            latestBlockNum={"type": "integer"},
            chainId=ref("Hash"),
        ),
        "ContractDetails": obj(
            ["name", "address", "src", "xabi"],
            name=STR,
            address=ref("Address"),
            chainId=STR,
            src=STR,
            bin=STR,
            codeHash={"type": "object"},
            xabi={"type": "object"},
        ),
        "TraceValue": obj(["value"], name=STR, type=STR, value={}),
        "TraceFrame": obj(
            ["type", "kind", "contract", "address", "function", "status", "items"],
            type={"enum": ["call"]},
            kind={"enum": ["call", "staticcall", "delegatecall", "library", "create"]},
            contract=STR,
            codeContract=STR,
            address=ref("Address"),
            chainId=nullable(ref("Hash")),
            function=STR,
            sender=ref("Address"),
            value=STR,
            args=array(ref("TraceValue")),
            returns=array(ref("TraceValue")),
            status={"enum": ["ok", "failed", "reverted"]},
            steps=UINT,
            error=obj(
                ["kind", "message"],
                kind=STR,
                message=STR,
                position=obj(name=STR, line=UINT, column=UINT),
            ),
            items=array(
                {
                    "anyOf": [
                        ref("TraceFrame"),
                        obj(
                            ["type"],
                            type={"enum": ["event", "write", "truncated"]},
                            reverted={"type": "boolean"},
                        ),
                    ]
                },
                description="in order: nested calls, events (contract, address, name, args) "
                "and storage writes (variable, key, old, new; op push/pop/replace for arrays); "
                "reverted: undone by a failure",
            ),
        ),
        "Trace": obj(
            ["hash", "version", "frames", "truncated", "root"],
            hash=ref("Hash"),
            version=UINT,
            frames=UINT,
            truncated={"type": "boolean"},
            omitted=UINT,
            root=ref("TraceFrame"),
        ),
        "Member": obj(access={"type": "boolean"}, orgName=STR, orgUnit=STR, commonName=STR),
        "ChainCreate": obj(
            ["members", "balances"],
            label={"type": "string", "maxLength": 256},
            src={"anyOf": [STR, {"type": "object"}]},
            contract=STR,
            name=STR,
            args={"type": "object"},
            members=array(ref("Member"), minItems=1, maxItems=1000),
            balances=array(obj(["address"], address=HEX40_IN, balance=AMOUNT)),
            parentChain=CHAIN_IN,
            codePtr=obj(["account"], account=STR, name=STR),
            metadata=META,
            **{"async": {"type": "boolean"}},
        ),
        "Chain": obj(
            ["id", "info"],
            id=ref("Hash"),
            info=obj(
                ["label", "members"],
                label=STR,
                members=array({"type": "object"}),
                accountInfo=array({"type": "object"}),
                codeInfo=array({"type": "object"}),
                parentChain=nullable(ref("Hash")),
            ),
        ),
        "CirrusError": obj(
            ["message"], code=nullable(STR), message=STR, details=nullable(STR), hint=nullable(STR)
        ),
        "AppOk": obj(["success", "data"], success={"type": "boolean", "enum": [True]}, data={}),
        "AppError": obj(
            ["success", "error"],
            success={"type": "boolean", "enum": [False]},
            error=STR,
            details=STR,
        ),
        "FileError": obj(
            ["error"], error=obj(["message"], message=STR, status={"type": "integer"})
        ),
        "OAuthError": obj(["error"], error=STR, error_description=STR),
    },
}

PROBLEM = ref("Problem")
NO_TOKEN = {
    **json_of(ref("Error"), "no bearer token"),
    "headers": {"WWW-Authenticate": {"schema": STR}},
}
AUTH_FAILED = json_of(ref("Message"), "invalid jwt: the token is malformed, expired or unknown")
JSON_BODY_ERRORS = {
    "400": json_of(
        PROBLEM,
        "the body is not valid JSON, holds text with a lone UTF-16 surrogate (the message "
        "names the field) or does not have the shape required",
    ),
    "413": json_of(PROBLEM, "the body is larger than the node accepts (--max-body)"),
}
BAD = json_of(PROBLEM, "a parameter is invalid (the message names it)")
NEED_ONE = {
    "description": "no filter given, or a parameter is invalid",
    "content": {"text/plain": {"schema": STR}, "application/json": {"schema": PROBLEM}},
}
NOT_MEMBER = json_of(
    ref("Message"),
    "the caller is not a member of the chain, or there is no such chain: one answer for both, "
    "naming the field (chainid, parentChain, codePtr.account)",
)
HALTED = json_of(PROBLEM, "the node halted after a storage failure")
TIMEOUT = json_of(ref("Error"), "not complete within --resolve-timeout (still queued)")
FAILED_ONE = json_of(ref("Message"), "resolve=true and the single transaction failed")

COMPONENTS["schemas"]["CompileItem"] = obj(
    ["source"], contractName=STR, source=STR, vm={"type": "string", "enum": ["SolidVM", "EVM"]}
)
