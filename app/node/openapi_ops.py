"""What each route of the node takes and answers, for :mod:`app.node.openapi`.

Keyed by the handler's qualified name (``NodeApi.get_key``); ``name:METHOD`` overrides one method
of a handler that serves several. Shapes follow the seeds and the platform's published Swagger
document for strato-api and bloc, narrowed to what this node accepts: addresses are 40 hex digits,
hashes and chain ids 64, integers ASCII digits. Statuses are every one the route can answer; the
bearer-token statuses (401, 403) and those of any JSON body (400, 413) are added by the builder.
"""

from __future__ import annotations

from .openapi_debug import DEBUG_OPERATIONS
from .openapi_readcall import READ_CALL_OPERATIONS
from .openapi_shapes import (
    BAD,
    CHAIN_IN,
    CHAINID,
    DEMO_ADDRESS,
    FAILED_ONE,
    FLAG,
    HALTED,
    HEX40_IN,
    HEX64_IN,
    LIMIT,
    NEED_ONE,
    NOT_MEMBER,
    OFFSET,
    PROBLEM,
    RESOLVE,
    SIMPLE_SRC,
    STR,
    TIMEOUT,
    UINT,
    S,
    array,
    body,
    json_of,
    obj,
    query,
    ref,
    text_of,
)
from .openapi_strato16 import STRATO16_OPERATIONS


def ok(schema: S, description: str = "success") -> S:
    return {"200": json_of(schema, description)}


def app_ok(data: S) -> S:
    return {"200": json_of({**ref("AppOk"), "properties": {"data": data}}, "success")}


COMPILE_BAD = json_of(
    PROBLEM,
    "invalid body, the source does not compile, or compiling it took longer than the node's "
    "--compile-time-limit (default 10 s; the message says 'compile time limit exceeded')",
)
APP_404 = json_of(ref("AppError"), "no such application, asset type or visible asset")
APP_400 = json_of({"anyOf": [ref("AppError"), ref("Message")]}, "invalid parameters or body")
APP_403 = json_of(ref("AppError"), "the caller may not change this asset")
APP_422 = json_of(ref("AppError"), "the contract refused the change")
FILE_400 = json_of(
    {"anyOf": [ref("FileError"), PROBLEM]}, "invalid parameters or body, or no such file record"
)
ASSET_QUERY = [
    LIMIT,
    OFFSET,
    query("sort", STR, "a field, '-field' for descending"),
    query("queryValue", STR, "text searched in queryFields (default: every string field)"),
    query("queryFields", STR, "comma-separated fields for queryValue"),
    query(
        "fields",
        {"type": "object", "additionalProperties": STR},
        "any asset field: value, or <op>.<value> (eq, neq, lt, lte, gt, gte, like, ilike)",
        style="form",
        explode=True,
    ),
]
CIRRUS_QUERY = [
    query("select", STR, "columns, count, or joins: col,Foreign(cols)"),
    query("order", STR, "<column>.asc|desc[.nullsfirst|.nullslast],..."),
    query("limit", UINT, "at most this many rows"),
    query("offset", {"type": "integer"}, "skip this many rows (negative is ignored)"),
    query("or", STR, "(<col>.<op>.<value>,...), nestable"),
    query("and", STR, "(<col>.<op>.<value>,...), nestable"),
    query(
        "filters",
        {"type": "object", "additionalProperties": STR},
        "one <column>=<op>.<value> per column (PostgREST operators; not. negates)",
        style="form",
        explode=True,
    ),
    {"name": "Range", "in": "header", "schema": STR, "description": "items=<first>-<last>"},
    {"name": "Prefer", "in": "header", "schema": STR, "description": "count=exact"},
]
TOKEN_FORM = obj(
    ["grant_type"],
    grant_type={
        "type": "string",
        "enum": ["password", "client_credentials", "authorization_code", "refresh_token"],
    },
    username=STR,
    password=STR,
    client_id=STR,
    client_secret=STR,
    scope=STR,
    code=STR,
    redirect_uri=STR,
    code_verifier=STR,
    refresh_token=STR,
)
AUTHORIZE_PARAMS = [
    query(n, STR, d)
    for n, d in (
        ("client_id", "a registered client"),
        ("redirect_uri", "an http URL on a loopback host"),
        ("response_type", "code"),
        ("state", "echoed back"),
        ("code_challenge", "PKCE S256 challenge"),
        ("code_challenge_method", "S256"),
        ("scope", "openid and others"),
        ("nonce", "copied into the id token"),
    )
]
LOGOUT_PARAMS = [
    query("post_logout_redirect_uri", STR, "loopback URL to go to afterwards"),
    query("redirect_uri", STR, "the same, older spelling"),
    query("state", STR, "echoed back"),
]
PAGE = text_of("an HTML page", "text/html")
REDIRECT = {
    "description": "redirect to the client",
    "headers": {"Location": {"schema": STR}},
}
CIRRUS_READ_ONLY = {
    "summary": "Cirrus is read-only",
    "responses": {"403": json_of(ref("CirrusError"), "only GET is allowed")},
}
USERINFO = {
    "summary": "OIDC userinfo of the bearer token's user",
    "responses": {
        "200": json_of(obj(["sub"], sub=STR, preferred_username=STR, email=STR), "the user"),
        "401": json_of(ref("OAuthError"), "no or invalid bearer token"),
    },
}

OPERATIONS: dict[str, S] = {
    # ------------------------------------------------------------ public
    "NodeApi.health": {
        "responses": ok(
            obj(
                ["name", "version", "lastBlock", "healthInfo"],
                name=STR,
                version=STR,
                timestamp=STR,
                uptime={"type": "integer"},
                lastBlock=obj(["number"], number={"type": "integer"}, hash=STR),
                healthInfo=obj(["isHealthy"], isHealthy={"type": "boolean"}),
                gas={"type": "boolean"},
            )
        )
    },
    "NodeApi.ping": {"responses": {"200": text_of("pong")}},
    "NodeApi.openapi": {"responses": ok(obj(["openapi", "paths"]), "this document")},
    "NodeApi.version": {"responses": ok(obj(["name", "version"], name=STR, version=STR))},
    # ------------------------------------------------------------ keys and users
    "NodeApi.get_key": {
        "parameters": [query("username", STR, "another user's key (default: the caller's)")],
        "responses": {**ok(ref("Key")), "400": json_of(PROBLEM, "the user has no key")},
    },
    "NodeApi.post_key": {
        "responses": {**ok(ref("Key")), "400": json_of(PROBLEM, "the caller has a key already")},
    },
    "NodeApi.list_users": {
        "parameters": [query("address", HEX40_IN, "only the user of this address"), LIMIT, OFFSET],
        "responses": {
            **ok(array(obj(["username", "address"], username=STR, address=ref("Address")))),
            "400": BAD,
        },
    },
    # ------------------------------------------------------------ transactions
    "NodeApi.transaction": {
        "parameters": [RESOLVE, CHAINID],
        "requestBody": body(
            ref("TransactionRequest"),
            {
                "txs": [
                    {
                        "type": "CONTRACT",
                        "payload": {
                            "contract": "Simple",
                            "src": SIMPLE_SRC,
                            "args": {"_x": 1},
                            "metadata": {"VM": "SolidVM"},
                        },
                    }
                ],
                "txParams": {"gasLimit": 100000000, "gasPrice": 1},
            },
        ),
        "responses": {
            **ok(array(ref("TxResult")), "one result per transaction, in order"),
            "400": json_of(
                PROBLEM,
                "a parameter is invalid (the message names it), or an uploaded source does not "
                "compile or took longer than --compile-time-limit to compile",
            ),
            "403": NOT_MEMBER,
            "422": FAILED_ONE,
            "503": HALTED,
            "504": TIMEOUT,
        },
    },
    "NodeApi.tx_result": {
        "parameters": [RESOLVE],
        "responses": {
            **ok(ref("TxResult"), "the result (Pending while queued or unknown)"),
            "400": BAD,
        },
    },
    "NodeApi.tx_results": {
        "parameters": [RESOLVE],
        "requestBody": body(array(HEX64_IN, maxItems=10000), ["0x" + "ab" * 32]),
        "responses": {**ok(array(ref("TxResult")), "the results, in the order asked")},
    },
    "NodeApi.tx_trace": {
        "parameters": [query("hash", HEX64_IN, "transaction hash", required=True)],
        "responses": {
            **ok(
                ref("Trace"),
                "the call tree the sandbox recorded (a sandbox extension: a STRATO node "
                "answers 404)",
            ),
            "400": BAD,
            "404": json_of(
                ref("Message"),
                "unknown transaction (or a private chain's, to a non-member), not run yet, no "
                "trace kept (older than the last --trace-keep transactions, a transfer) or the "
                "node runs with --traces off",
            ),
        },
    },
    "NodeApi.fill": {
        "parameters": [RESOLVE],
        "responses": {
            **ok(ref("TxResult"), "the faucet transaction (a zero hash without --gas)"),
            "400": BAD,
            "504": TIMEOUT,
        },
    },
    # ------------------------------------------------------------ explorer
    "NodeApi.blocks": {
        "parameters": [
            query("number", UINT, "block number"),
            query("minnumber", UINT, "lowest block number"),
            query("maxnumber", UINT, "highest block number"),
            query("index", UINT, "first block number"),
            query("hash", HEX64_IN, "block hash"),
            query("blockid", HEX64_IN, "block hash"),
            query("sortby", {"enum": ["asc", "desc"]}, "by number: asc (default) or desc"),
        ],
        "responses": {**ok(array(ref("Block"), maxItems=100)), "400": NEED_ONE},
    },
    "NodeApi.last_blocks": {
        "responses": {**ok(array(ref("Block"), maxItems=100)), "400": BAD},
    },
    "NodeApi.transactions": {
        "parameters": [
            query("hash", HEX64_IN, "transaction hash"),
            query("address", HEX40_IN, "sender or recipient"),
            query("from", HEX40_IN, "sender"),
            query("to", HEX40_IN, "recipient"),
            query("blocknumber", UINT, "block number"),
            query("minblocknumber", UINT, "lowest block number"),
            query("maxblocknumber", UINT, "highest block number"),
            query("chainid", {"anyOf": [CHAIN_IN, {"enum": ["all"]}]}, "chain, or all"),
            query("sortby", {"enum": ["asc", "desc"]}, "asc (default) or desc: newest first"),
            query(
                "type",
                {"enum": ["Contract", "FunctionCall", "Transfer"]},
                "the sandbox's own: transactions of that kind",
            ),
            query("status", {"enum": ["Success", "Failure"]}, "the sandbox's own: by result"),
            LIMIT,
            OFFSET,
        ],
        "responses": {
            **ok(array(ref("Transaction"), maxItems=100)),
            "400": NEED_ONE,
            "403": NOT_MEMBER,
        },
    },
    "NodeApi.last_transactions": {
        "responses": {**ok(array(ref("Transaction"), maxItems=100)), "400": BAD},
    },
    "NodeApi.accounts": {
        "parameters": [
            query("address", HEX40_IN, "account address"),
            query("contractName", STR, "every contract of that name"),
            CHAINID,
        ],
        "responses": {**ok(array(ref("Account"))), "400": NEED_ONE, "403": NOT_MEMBER},
    },
    "NodeApi.account_list": {
        "description": (
            "A sandbox extension (no STRATO node serves it): every account the node knows - "
            "users' keys with their organisation, contracts with their name and creator, "
            "addresses holding a balance or a nonce, and addresses only seen in transactions - "
            "with balance, nonce and transaction count (sent or received), sorted and paged. "
            "The table is built once per committed block."
        ),
        "parameters": [
            query(
                "sort",
                {"enum": ["address", "name", "kind", "balance", "nonce", "txs"]},
                "the order (default address)",
            ),
            query(
                "order",
                {"enum": ["asc", "desc"]},
                "default: asc for address, name and kind, desc for the figures",
            ),
            query("kind", {"enum": ["user", "contract", "other"]}, "only accounts of that kind"),
            query("creator", HEX40_IN, "only the contracts this address created"),
            query("address", HEX40_IN, "only this account"),
            query(
                "limit",
                {"type": "integer", "minimum": 0, "maximum": 1000},
                "at most this many accounts (default 100)",
            ),
            OFFSET,
            CHAINID,
        ],
        "responses": {
            **ok(
                obj(
                    ["total", "accounts"],
                    total={"type": "integer"},
                    accounts=array(
                        obj(
                            ["address", "kind", "balance", "nonce", "txCount"],
                            address=ref("Address"),
                            kind={"enum": ["user", "contract", "other"]},
                            name=STR,
                            organization=STR,
                            balance={"type": "string", "pattern": "^[0-9]+$"},
                            nonce={"type": "integer"},
                            txCount={"type": "integer"},
                            creator={"type": "string", "pattern": "^([0-9a-f]{40})?$"},
                        ),
                        maxItems=1000,
                    ),
                ),
                "one page of accounts and how many match in all",
            ),
            "400": BAD,
            "403": NOT_MEMBER,
        },
    },
    # ------------------------------------------------------------ contracts (bloc)
    "NodeApi.contracts": {
        "parameters": [CHAINID],
        "responses": {
            **ok(
                {
                    "type": "object",
                    "additionalProperties": array(
                        obj(["address"], address=ref("Address"), createdAt={"type": "integer"})
                    ),
                },
                "deployed contracts by name",
            ),
            "400": BAD,
            "403": NOT_MEMBER,
        },
    },
    "NodeApi.xabi": {
        "requestBody": body(
            obj(
                ["src"],
                src={"anyOf": [STR, {"type": "object"}]},
                vm={"type": "string", "enum": ["SolidVM", "EVM"]},
            ),
            {"src": SIMPLE_SRC},
        ),
        "responses": {
            **ok(obj(["src"], src={"type": "object"}), "xabi of each contract"),
            "400": COMPILE_BAD,
        },
    },
    "NodeApi.compile": {
        "requestBody": body(
            {
                "anyOf": [
                    array(ref("CompileItem"), minItems=1),
                    ref("CompileItem"),
                ]
            },
            [{"contractName": "Simple", "source": SIMPLE_SRC, "vm": "SolidVM"}],
        ),
        "responses": {
            **ok(
                array(
                    obj(["contractName", "codeHash"], contractName=STR, codeHash={"type": "object"})
                ),
                "the code hash of each contract (nothing is stored until a transaction deploys it)",
            ),
            "400": COMPILE_BAD,
        },
    },
    "NodeApi.contract_details": {
        "parameters": [CHAINID],
        "responses": {**ok(ref("ContractDetails")), "400": BAD, "403": NOT_MEMBER},
    },
    "NodeApi.contract_state": {
        "parameters": [
            CHAINID,
            query("name", STR, "only this state variable"),
            query(
                "offset",
                UINT,
                "of an array variable's elements, or (sandbox) of a mapping's entries in stored "
                "order (entries holding the default are not shown and not counted)",
            ),
            query("count", UINT, "of an array variable's elements or a mapping's entries"),
            query("length", FLAG, "the length of an array variable, or a mapping's entries"),
        ],
        "responses": {
            **ok({"type": "object"}, "state variables and values"),
            "400": BAD,
            "403": NOT_MEMBER,
        },
    },
    "NodeApi.contract_state_key": {
        "parameters": [CHAINID],
        "responses": {
            **ok({"type": "object"}, "{mapping: {key: value}}"),
            "400": BAD,
            "403": NOT_MEMBER,
        },
    },
    "NodeApi.post_chain": {
        "requestBody": body(
            ref("ChainCreate"),
            {
                "label": "example",
                "src": SIMPLE_SRC,
                "contract": "Simple",
                "args": {"_x": 1},
                "members": [{"orgName": "Acme", "access": True}],
                "balances": [{"address": DEMO_ADDRESS, "balance": 1}],
                "metadata": {"VM": "SolidVM"},
            },
        ),
        "responses": {
            **ok(ref("Hash"), "the new chain's id"),
            "400": BAD,
            "403": NOT_MEMBER,
            "503": HALTED,
            "504": TIMEOUT,
        },
    },
    "NodeApi.post_chains": {
        "requestBody": body(array(ref("ChainCreate"), minItems=1, maxItems=100)),
        "responses": {
            **ok(array(ref("Hash")), "the new chains' ids"),
            "400": BAD,
            "403": NOT_MEMBER,
            "503": HALTED,
            "504": TIMEOUT,
        },
    },
    "NodeApi.get_chains": {
        "parameters": [
            query(
                "chainid",
                array(CHAIN_IN),
                "only these chains (repeatable)",
                style="form",
                explode=True,
            ),
            LIMIT,
            OFFSET,
        ],
        "responses": {**ok(array(ref("Chain"))), "400": BAD, "403": NOT_MEMBER},
    },
    # ------------------------------------------------------------ Cirrus
    "NodeApi.cirrus_schema": {
        "responses": ok(obj(["definitions"]), "PostgREST's OpenAPI 2.0 root document"),
    },
    "NodeApi.cirrus": {
        "parameters": CIRRUS_QUERY,
        "responses": {
            **ok(array({"type": "object"}), "the rows the caller may see"),
            "206": json_of(array({"type": "object"}), "part of the rows (Range, Prefer)"),
            "400": json_of(ref("CirrusError"), "the query does not parse or names no column"),
            "404": json_of(ref("CirrusError"), "no such table"),
            "416": json_of(ref("CirrusError"), "the range is not satisfiable"),
            "503": json_of(ref("CirrusError"), "the table is being updated; retry"),
        },
    },
    "NodeApi.cirrus:POST": CIRRUS_READ_ONLY,
    "NodeApi.cirrus:PUT": CIRRUS_READ_ONLY,
    "NodeApi.cirrus:PATCH": CIRRUS_READ_ONLY,
    "NodeApi.cirrus:DELETE": CIRRUS_READ_ONLY,
    # ------------------------------------------------------------ asset applications
    "AppHandlers.list_apps": {
        "summary": "The asset applications",
        "responses": app_ok(array({"type": "object"})),
    },
    "AppHandlers.create_app": {
        "summary": "Create an asset application (deploys it and its realm chain)",
        "requestBody": body(
            obj(["name", "assets"], name=STR, assets={"anyOf": [array({}), {"type": "object"}]}),
            {"name": "Fleet", "assets": [{"name": "truck", "fields": {"plate": "string"}}]},
        ),
        "responses": {**app_ok({"type": "object"}), "400": APP_400},
    },
    "AppHandlers.user_me": {
        "summary": "The caller's registered identity",
        "responses": {**app_ok({"type": "object"}), "400": APP_400, "404": APP_404},
    },
    "AppHandlers.users": {
        "summary": "Every registered identity",
        "responses": {**app_ok(array({"type": "object"})), "404": APP_404},
    },
    "AppHandlers.user_by_address": {
        "summary": "The identity registered for an address",
        "responses": {**app_ok({"type": "object"}), "400": APP_400, "404": APP_404},
    },
    "AppHandlers.list_assets": {
        "summary": "Assets of a type the caller may see",
        "parameters": ASSET_QUERY,
        "responses": {
            **app_ok(obj(["total"], total={"type": "integer"})),
            "400": json_of({"anyOf": [ref("AppError"), ref("CirrusError")]}, "invalid query"),
            "404": APP_404,
            "503": json_of(PROBLEM, "the table is being updated; retry"),
        },
    },
    "AppHandlers.create_asset": {
        "summary": "Create an asset (a new shard whose governance contract it is)",
        "requestBody": body(
            {"type": "object"},
            {"carArgs": {"vin": "VIN1", "color": "red", "model": "T", "weight": 1000}},
        ),
        "responses": {
            **app_ok(obj(["id"], id=STR, chainIds=array(ref("Hash")))),
            "400": APP_400,
            "403": APP_403,
            "404": APP_404,
            "503": HALTED,
            "504": TIMEOUT,
        },
    },
    "AppHandlers.update_asset": {
        "summary": "Update fields of an asset (owner only)",
        "requestBody": body(
            obj(chainId=STR, id=STR, updates={"type": "object"}),
            {"chainId": "0" * 64, "updates": {"color": "blue"}},
        ),
        "responses": {
            **app_ok({}),
            "400": APP_400,
            "403": APP_403,
            "404": APP_404,
            "422": APP_422,
            "503": HALTED,
            "504": TIMEOUT,
        },
    },
    "AppHandlers.transfer": {
        "summary": "Transfer an asset to another user (owner only)",
        "requestBody": body(
            obj(chainId=STR, id=STR, newOwner=STR), {"chainId": "0" * 64, "newOwner": "bob"}
        ),
        "responses": {
            **app_ok({}),
            "400": APP_400,
            "403": APP_403,
            "404": APP_404,
            "422": APP_422,
            "503": HALTED,
            "504": TIMEOUT,
        },
    },
    "AppHandlers.get_asset": {
        "summary": "One asset",
        "responses": {**app_ok({"type": "object"}), "400": APP_400, "404": APP_404},
    },
    "AppHandlers.get_asset2": {
        "summary": "One asset, by address and shard",
        "responses": {**app_ok({"type": "object"}), "400": APP_400, "404": APP_404},
    },
    "AppHandlers.audit": {
        "summary": "History of one asset",
        "responses": {**app_ok(array({"type": "object"})), "400": APP_400, "404": APP_404},
    },
    "AppHandlers.audit2": {
        "summary": "History of one asset, by address and shard",
        "responses": {**app_ok(array({"type": "object"})), "400": APP_400, "404": APP_404},
    },
    # ------------------------------------------------------------ external file storage
    "FileHandlers.upload": {
        "summary": "Store a file and record its hash on chain",
        "requestBody": body(
            obj(
                ["content", "provider", "metadata"],
                content={"type": "string", "format": "binary"},
                provider={"type": "string", "maxLength": 200},
                metadata={"type": "string", "maxLength": 10000},
            ),
            media="multipart/form-data",
        ),
        "responses": {
            **ok(
                obj(
                    ["contractAddress", "fileKey", "uri", "hash"],
                    contractAddress=ref("Address"),
                    fileKey=STR,
                    uri=STR,
                    metadata=STR,
                    hash=STR,
                )
            ),
            "400": FILE_400,
            "413": json_of(ref("FileError"), "the file is larger than --max-upload-mb"),
            "500": json_of(ref("FileError"), "the file storage failed"),
        },
    },
    "FileHandlers.list": {
        "summary": "Uploaded files",
        "parameters": [LIMIT, OFFSET],
        "responses": {**ok(obj(["list"], list=array({"type": "object"}))), "400": BAD},
    },
    "FileHandlers.download": {
        "summary": "A one-time download link",
        "parameters": [query("contractAddress", HEX40_IN, "the file's record", required=True)],
        "responses": {**ok(obj(["url"], url=STR, expiresIn={"type": "integer"})), "400": FILE_400},
    },
    "FileHandlers.blob": {
        "summary": "The content behind a one-time link",
        "responses": {
            "200": {
                "description": "the file",
                "content": {"application/octet-stream": {"schema": {"type": "string"}}},
            },
            "404": json_of(ref("FileError"), "unknown, expired or used link"),
            "410": json_of(ref("FileError"), "the content is gone from the storage"),
        },
    },
    "FileHandlers.attest": {
        "summary": "Attest to a file",
        "requestBody": body(obj(["contractAddress"], contractAddress=HEX40_IN)),
        "responses": {
            **ok(obj(["attested", "signers"], attested={"type": "boolean"}, signers={})),
            "400": FILE_400,
        },
    },
    "FileHandlers.verify": {
        "summary": "Signers of a file",
        "parameters": [query("contractAddress", HEX40_IN, "the file's record", required=True)],
        "responses": {
            **ok(obj(["uri", "signers", "fileHash"], uri=STR, signers=array(STR), fileHash=STR)),
            "400": FILE_400,
        },
    },
    "FileService.routes.<locals>.not_enabled": {
        "summary": "External storage is not enabled (--no-file-storage)",
        "responses": {"405": json_of(ref("FileError"), "the feature is not enabled")},
    },
    # ------------------------------------------------------------ OIDC issuer
    "OidcIssuer._discovery_endpoint": {
        "summary": "OIDC discovery",
        "responses": ok(obj(["issuer", "token_endpoint"], issuer=STR, token_endpoint=STR)),
    },
    "OidcIssuer._jwks_endpoint": {
        "summary": "The issuer's signing keys",
        "responses": ok(obj(["keys"], keys=array({"type": "object"}))),
    },
    "OidcIssuer._token_endpoint": {
        "summary": "OAuth token endpoint",
        "requestBody": body(
            TOKEN_FORM,
            {"grant_type": "password", "username": "alice", "password": "wrong"},
            media="application/x-www-form-urlencoded",
        ),
        "responses": {
            **ok(
                obj(
                    ["access_token", "token_type", "expires_in"],
                    access_token=STR,
                    token_type=STR,
                    expires_in={"type": "integer"},
                    refresh_token=STR,
                    id_token=STR,
                    scope=STR,
                ),
                "tokens",
            ),
            "400": json_of(ref("OAuthError"), "invalid request or grant"),
            "401": json_of(ref("OAuthError"), "client authentication failed"),
            "429": {
                **json_of(
                    ref("OAuthError"),
                    "too many failed sign-ins (passwords or client secrets); retry after "
                    "Retry-After s",
                ),
                "headers": {"Retry-After": {"schema": {"type": "integer"}}},
            },
        },
    },
    "OidcIssuer._authorize_endpoint": {
        "summary": "Sign-in page of the authorization code flow",
        "parameters": AUTHORIZE_PARAMS,
        "responses": {
            "200": PAGE,
            "302": REDIRECT,
            "303": REDIRECT,
            "400": text_of("an HTML page saying what is wrong", "text/html"),
        },
    },
    "OidcIssuer._authorize_endpoint:POST": {
        "summary": "Sign in (form post of the sign-in page)",
        "requestBody": body(
            obj(username=STR, password=STR, client_id=STR, redirect_uri=STR, state=STR),
            media="application/x-www-form-urlencoded",
        ),
        "responses": {
            "200": PAGE,
            "302": REDIRECT,
            "303": REDIRECT,
            "400": text_of("an HTML page saying what is wrong", "text/html"),
            "401": text_of("the sign-in page again: wrong password", "text/html"),
            "429": {
                **text_of("the sign-in page again: too many failed sign-ins", "text/html"),
                "headers": {"Retry-After": {"schema": {"type": "integer"}}},
            },
        },
    },
    "OidcIssuer._userinfo_endpoint": USERINFO,
    "OidcIssuer._logout_endpoint": {
        "summary": "Sign out",
        "parameters": LOGOUT_PARAMS,
        "responses": {
            "200": PAGE,
            "302": REDIRECT,
            "303": REDIRECT,
            "400": text_of("an HTML page saying what is wrong", "text/html"),
        },
    },
    "OidcIssuer._logout_endpoint:POST": {
        "summary": "Sign out (form post)",
        "requestBody": body(
            obj(post_logout_redirect_uri=STR, redirect_uri=STR, state=STR),
            media="application/x-www-form-urlencoded",
        ),
        "responses": {
            "200": PAGE,
            "302": REDIRECT,
            "303": REDIRECT,
            "400": text_of("an HTML page saying what is wrong", "text/html"),
        },
    },
}

# the routes STRATO 16 serves beyond the seeds (their entries win: accounts gains its search)
OPERATIONS.update(STRATO16_OPERATIONS)
OPERATIONS.update(DEBUG_OPERATIONS)
OPERATIONS.update(READ_CALL_OPERATIONS)
