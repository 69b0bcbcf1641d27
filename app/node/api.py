"""HTTP routes of the sandbox node (Starlette).

Routes are served at the seed prefixes and at the real platform's spellings. Every API route
needs a bearer token from the node's own issuer. Every failure is a 4xx with a JSON body that
says what was wrong: the platform's own texts where clients match on them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route

from .. import __version__
from .cirrus.http import prepare, search
from .cirrus.query import Query, QueryError
from .cirrus.stream import RowStream
from .errors import ApiError, bad_request
from .jsonenc import compact_json
from .ledger import HEX, Ledger, norm_address, norm_chain
from .numbers import is_ascii_digits
from .oidc import InvalidJwt, OidcIssuer
from .openapi import OptionsMiddleware, allow_header, allowed_methods
from .openapi import document as openapi_document
from .solidvm import ParseError, SolidVMError, compile_source
from .solidvm.abi import encode_value
from .txvisibility import hidden_hashes, unknown_result, visible_results
from .users import UserStore

log = logging.getLogger("stratoscope.node")

Handler = Callable[[Request], Awaitable[Response]]

SEED_SVC = "/svc/v2.3"
REAL_SVC = "/strato/v2.3"
BLOC = "/bloc/v2.2"
SEED_ETH = "/svc-api/eth/v1.2"
REAL_ETH = "/strato-api/eth/v1.2"
LIST_CAP = 100

BLOCK_FILTERS = "number, minnumber, maxnumber, hash, blockid, index, chainid"
TX_FILTERS = "address, from, to, hash, blocknumber, chainid"
ACCOUNT_FILTERS = (
    "address, balance, minbalance, maxbalance, nonce, minnonce, maxnonce, maxnumber, index, "
    "codeHash, contractName, codePtrAddress, codePtrChainId, chainid, external, limit, offset, "
    "ignoreChain"
)


class JsonBody(JSONResponse):
    """Compact JSON, like the platform's services (see :func:`compact_json`)."""

    def render(self, content: Any) -> bytes:
        return compact_json(content)


def iso(ts: int | float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def flag(request: Request, name: str) -> bool:
    """Servant QueryFlag: present without value, or true/1."""
    if name not in request.query_params:
        return False
    return request.query_params[name].lower() in ("", "true", "1")


def int_param(request: Request, name: str, default: int | None = None) -> int | None:
    v = request.query_params.get(name)
    if v is None or v == "":
        return default
    if not is_ascii_digits(v) or len(v) > 18:
        raise bad_request(f"query parameter {name} must be a non-negative integer")
    return int(v)


class NodeApi:
    """Builds the Starlette application around a :class:`Ledger`."""

    def __init__(self, ledger: Ledger, users: UserStore, issuer: OidcIssuer, max_body: int) -> None:
        self.ledger = ledger
        self.users = users
        self.issuer = issuer
        self.max_body = max_body
        self.started = time.time()
        self.key_cache: dict[str, str] = {}
        self.known_users: set[str] = set()
        self.spec: dict[str, Any] | None = None
        self.extra_routes: list[BaseRoute] = []

    # ------------------------------------------------------------ plumbing

    def endpoint(self, handler: Handler, public: bool = False) -> Handler:
        async def run(request: Request) -> Response:
            try:
                if not public:
                    request.state.user = self.authenticate(request)
                return await handler(request)
            except ApiError as exc:
                body = exc.body
                if isinstance(body, str) and exc.status in (400,) and body.startswith("Need one"):
                    return PlainTextResponse(body, exc.status, headers=exc.headers)
                return JsonBody(body, exc.status, headers=exc.headers)
            except Exception:
                log.exception("unexpected error in %s %s", request.method, request.url.path)
                return JsonBody(
                    {"error": "internal error: the node could not complete this request"}, 500
                )

        run.public = public  # type: ignore[attr-defined]
        run.handler = handler  # type: ignore[attr-defined]  # app.node.openapi looks it up
        return run

    def authenticate(self, request: Request) -> str:
        header = request.headers.get("authorization")
        if not header:
            raise ApiError(
                401,
                {"error": "missing bearer token: send Authorization: Bearer <access token>"},
                {"WWW-Authenticate": f'Bearer realm="{request.base_url}"'},
            )
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(
                403, "Bearer token is invalid or expired: invalid jwt: not a bearer token"
            )
        try:
            claims = self.issuer.verify(token.strip())
        except InvalidJwt as exc:
            raise ApiError(403, f"Bearer token is invalid or expired: invalid jwt: {exc}") from None
        name = claims.get("preferred_username") or claims.get("sub")
        if not isinstance(name, str):
            raise ApiError(403, "Bearer token is invalid or expired: invalid jwt: unknown user")
        if name not in self.known_users:  # users are never deleted: look each up once
            if self.users.get(name) is None:
                raise ApiError(403, "Bearer token is invalid or expired: invalid jwt: unknown user")
            self.known_users.add(name)
        return name

    async def json_body(self, request: Request) -> Any:
        length = request.headers.get("content-length")
        if length is not None and is_ascii_digits(length) and int(length) > self.max_body:
            raise ApiError(413, f"request body too large: at most {self.max_body} bytes")
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > self.max_body:
                raise ApiError(413, f"request body too large: at most {self.max_body} bytes")
            chunks.append(chunk)
        raw = b"".join(chunks)
        if not raw.strip():
            raise bad_request("request body is empty: expected JSON")
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise bad_request(f"Error in $: request body is not valid JSON ({exc})") from None
        except ValueError:  # an integer literal beyond Python's int max-str-digits limit
            raise bad_request(
                f"Error in $: a number in the request body has more than "
                f"{sys.get_int_max_str_digits()} digits"
            ) from None
        except RecursionError:
            raise bad_request("Error in $: request body nests too deeply") from None

    def sender_of(self, name: str) -> str:
        addr = self.key_cache.get(name)
        if addr is None:
            key = self.ledger.key_of(name)
            if key is None:
                raise ApiError(400, f"User {name} doesn't exist")
            addr = key["address"]
            self.key_cache[name] = addr
        return addr

    # ------------------------------------------------------------ public

    async def health(self, request: Request) -> Response:
        head = self.ledger.head
        uptime = int(time.time() - self.started)
        return JsonBody(
            {
                "name": "stratoscope-sandbox",
                "version": __version__,
                "timestamp": iso(time.time()),
                "uptime": uptime,
                "lastBlock": {
                    "number": head.number,
                    "hash": head.hash,
                    "timestamp": iso(head.timestamp) if head.number >= 0 else None,
                },
                "healthInfo": {
                    "uptime": uptime,
                    "isHealthy": True,
                    "isNotStalled": True,
                    "isValidBlocksInc": True,
                    "isLastPending": self.ledger.has_pending(),
                },
                "gas": self.ledger.config.gas,
            }
        )

    async def ping(self, request: Request) -> Response:
        return PlainTextResponse("pong")

    async def openapi(self, request: Request) -> Response:
        if self.spec is None:  # the routes are fixed once the app is built
            self.spec = openapi_document(request.app.routes, __version__)
        return JsonBody(self.spec)

    # ------------------------------------------------------------ keys and users

    async def get_key(self, request: Request) -> Response:
        name = request.query_params.get("username") or request.state.user
        key = self.ledger.key_of(name)
        if key is None:
            raise ApiError(400, f"User {name} doesn't exist")
        return JsonBody({"status": "success", "address": key["address"], "pubkey": key["pubkey"]})

    async def post_key(self, request: Request) -> Response:
        name = request.state.user
        key = self.ledger.create_key(name)
        self.key_cache[name] = key["address"]
        return JsonBody({"status": "success", "address": key["address"], "pubkey": key["pubkey"]})

    async def list_users(self, request: Request) -> Response:
        address = request.query_params.get("address")
        limit = int_param(request, "limit", LIST_CAP) or LIST_CAP
        offset = int_param(request, "offset", 0) or 0
        if address is not None:
            rows = self.ledger.store.all(
                "SELECT name, address FROM keys WHERE address=? LIMIT ? OFFSET ?",
                norm_address(address, "address"),
                limit,
                offset,
            )
        else:
            rows = self.ledger.store.all(
                "SELECT name, address FROM keys ORDER BY created_at LIMIT ? OFFSET ?", limit, offset
            )
        return JsonBody([{"username": r["name"], "address": r["address"]} for r in rows])

    # ------------------------------------------------------------ transactions

    async def transaction(self, request: Request) -> Response:
        name = request.state.user
        sender = self.sender_of(name)
        body = await self.json_body(request)
        if not isinstance(body, dict):
            raise bad_request("request body must be an object with txs and txParams")
        chain = norm_chain(request.query_params.get("chainid"))
        resolve = flag(request, "resolve")
        results = await self.ledger.submit(
            name, sender, body.get("txs"), body.get("txParams"), chain, resolve
        )
        if resolve and len(results) == 1 and results[0]["status"] == "Failure":
            message = results[0]["txResult"]["message"]
            raise ApiError(422, f"Error running the transaction: {message}")
        return JsonBody(results)

    async def tx_result(self, request: Request) -> Response:
        h = request.path_params["hash"].lower().removeprefix("0x")
        if len(h) != 64 or not set(h) <= HEX:
            raise bad_request("transaction hash must be 64 hex digits")
        if flag(request, "resolve"):
            timeout = self.ledger.config.resolve_timeout
            if h in hidden_hashes(self.ledger, request.state.user, [h]):
                return JsonBody(unknown_result(h))
            res = (await self.ledger.wait_results([h], timeout))[0]
        else:
            res = self.ledger.result(h)
        return JsonBody(visible_results(self.ledger, request.state.user, [res])[0])

    async def tx_results(self, request: Request) -> Response:
        body = await self.json_body(request)
        if not isinstance(body, list) or not all(isinstance(h, str) for h in body):
            raise bad_request("body must be a JSON array of transaction hashes")
        if len(body) > 10_000:
            raise bad_request("at most 10000 hashes per request")
        hashes = [h.lower().removeprefix("0x") for h in body]
        for h in hashes:
            if len(h) != 64 or not set(h) <= HEX:
                raise bad_request(f"invalid transaction hash {h[:80]!r}: expected 64 hex digits")
        if flag(request, "resolve"):
            timeout = self.ledger.config.resolve_timeout
            hidden = hidden_hashes(self.ledger, request.state.user, hashes)
            shown = [h for h in hashes if h not in hidden]
            waited = iter(await self.ledger.wait_results(shown, timeout))
            results = [unknown_result(h) if h in hidden else next(waited) for h in hashes]
        else:
            results = self.ledger.results_of(hashes)
        return JsonBody(visible_results(self.ledger, request.state.user, results))

    async def fill(self, request: Request) -> Response:
        address = norm_address(request.path_params["address"], "address")
        return JsonBody(
            await self.ledger.faucet(request.state.user, address, flag(request, "resolve"))
        )

    # ------------------------------------------------------------ explorer

    def _block_json(
        self, row: Any, with_txs: bool = True, request: Request | None = None
    ) -> dict[str, Any]:
        txs = (
            self.ledger.store.all(
                "SELECT * FROM txs WHERE block_number=? ORDER BY tx_index", row["number"]
            )
            if with_txs
            else []
        )
        if request is not None:
            txs = self._visible_rows(request, txs)
        return {
            "next": "",
            "kind": "Block",
            "blockHash": row["hash"],
            "blockData": {
                "kind": "BlockData",
                "parentHash": row["parent_hash"],
                "unclesHash": "0" * 64,
                "coinbase": self.ledger.root_address,
                "stateRoot": "",
                "transactionsRoot": "",
                "receiptsRoot": "",
                "difficulty": 0,
                "number": row["number"],
                "gasLimit": 0,
                "gasUsed": row["gas_used"],
                "timestamp": iso(row["timestamp"]),
                "extraData": "",
                "nonce": 0,
                "mixHash": "",
            },
            "receiptTransactions": [self._tx_json(t, row["timestamp"]) for t in txs],
            "blockUncles": [],
        }

    def _tx_json(self, row: Any, block_ts: int | None = None) -> dict[str, Any]:
        req = json.loads(row["request"])
        p = req["payload"]
        sig = req.get("signature") or {}
        kind = {"CONTRACT": "Contract", "FUNCTION": "FunctionCall", "TRANSFER": "Transfer"}
        out: dict[str, Any] = {
            "next": "",
            "kind": "Transaction",
            "from": row["sender"],
            "nonce": row["nonce"] if row["nonce"] is not None else 0,
            "gasPrice": req["gasPrice"],
            "gasLimit": req["gasLimit"],
            "value": str(p.get("value", 0)),
            "codeOrData": p.get("src", "") if row["type"] == "CONTRACT" else "",
            "r": sig.get("r", ""),
            "s": sig.get("s", ""),
            "v": sig.get("v", ""),
            "blockNumber": row["block_number"] if row["block_number"] is not None else -1,
            "hash": row["hash"],
            "transactionType": kind.get(row["type"], row["type"]),
            "timestamp": iso(block_ts if block_ts is not None else row["submitted_at"]),
            "origin": "API",
            "status": row["status"],
        }
        if row["to_address"]:
            out["to"] = row["to_address"]
        if row["chain"]:
            out["chainId"] = row["chain"]
        if row["type"] == "CONTRACT":
            out["metadata"] = {"name": p.get("contract", ""), **(p.get("metadata") or {})}
        elif row["type"] == "FUNCTION":
            out["metadata"] = {"funcName": p.get("method", ""), "args": json.dumps(p.get("args"))}
        return out

    async def blocks(self, request: Request) -> Response:
        q = request.query_params
        where: list[str] = []
        args: list[Any] = []
        for name, sql in (
            ("number", "number = ?"),
            ("minnumber", "number >= ?"),
            ("maxnumber", "number <= ?"),
            ("index", "number >= ?"),
        ):
            v = int_param(request, name)
            if v is not None:
                where.append(sql)
                args.append(v)
        for name in ("hash", "blockid"):
            if q.get(name):
                where.append("hash = ?")
                args.append(q[name].lower().removeprefix("0x"))
        if not where:
            raise ApiError(400, f"Need one of: {BLOCK_FILTERS}")
        rows = self.ledger.store.all(
            f"SELECT * FROM blocks WHERE {' AND '.join(where)} ORDER BY number LIMIT {LIST_CAP}",
            *args,
        )
        return JsonBody([self._block_json(r, request=request) for r in rows])

    async def last_blocks(self, request: Request) -> Response:
        n = _path_int(request, "n")
        rows = self.ledger.store.all(
            "SELECT * FROM blocks ORDER BY number DESC LIMIT ?", min(n, LIST_CAP)
        )
        return JsonBody([self._block_json(r, request=request) for r in rows])

    async def transactions(self, request: Request) -> Response:
        q = request.query_params
        where: list[str] = []
        args: list[Any] = []
        if q.get("hash"):
            where.append("t.hash = ?")
            args.append(q["hash"].lower().removeprefix("0x"))
        if q.get("address"):
            a = norm_address(q["address"], "address")
            where.append("(t.sender = ? OR t.to_address = ?)")
            args += [a, a]
        if q.get("from"):
            where.append("t.sender = ?")
            args.append(norm_address(q["from"], "from"))
        if q.get("to"):
            where.append("t.to_address = ?")
            args.append(norm_address(q["to"], "to"))
        bn = int_param(request, "blocknumber")
        if bn is not None:
            where.append("t.block_number = ?")
            args.append(bn)
        chain = q.get("chainid")
        if chain and chain != "all":
            cid = norm_chain(chain)
            if cid:
                self.ledger.require_member(request.state.user, cid)
            where.append("t.chain = ?")
            args.append(cid)
        if not where:
            raise ApiError(400, f"Need one of: {TX_FILTERS}")
        limit = min(int_param(request, "limit", LIST_CAP) or LIST_CAP, LIST_CAP)
        offset = int_param(request, "offset", 0) or 0
        rows = self.ledger.store.all(
            f"SELECT t.*, b.timestamp AS block_ts FROM txs t LEFT JOIN blocks b "
            f"ON b.number = t.block_number WHERE {' AND '.join(where)} "
            f"ORDER BY t.seq LIMIT ? OFFSET ?",
            *args,
            limit,
            offset,
        )
        seen = self._visible_rows(request, rows)
        return JsonBody([self._tx_json(r, r["block_ts"]) for r in seen])

    def _visible_rows(self, request: Request, rows: list[Any]) -> list[Any]:
        """Drop transactions of private chains the caller is not a member of."""
        if not any(r["chain"] for r in rows):
            return rows
        visible = self.ledger.visible_chains(request.state.user)
        return [r for r in rows if not r["chain"] or r["chain"] in visible]

    async def last_transactions(self, request: Request) -> Response:
        n = _path_int(request, "n")
        rows = self.ledger.store.all(
            "SELECT t.*, b.timestamp AS block_ts FROM txs t LEFT JOIN blocks b "
            "ON b.number = t.block_number ORDER BY t.seq DESC LIMIT ?",
            min(n, LIST_CAP),
        )
        seen = self._visible_rows(request, rows)
        return JsonBody([self._tx_json(r, r["block_ts"]) for r in seen])

    async def accounts(self, request: Request) -> Response:
        q = request.query_params
        if not q.get("address") and not q.get("contractName"):
            raise ApiError(400, f"Need one of: {ACCOUNT_FILTERS}")
        chain = norm_chain(q.get("chainid"))
        if chain:
            self.ledger.require_member(request.state.user, chain)
        world = self.ledger.world
        out = []
        if q.get("address"):
            addrs = [norm_address(q["address"], "address")]
        else:
            name = q["contractName"]
            addrs = [
                format(a, "040x")
                for (c, a), m in list(self.ledger.meta.items())  # the producer adds to it
                if c == chain and m.name == name
            ][:LIST_CAP]
        for a in addrs:
            key = (chain, int(a, 16))
            acct = world.accounts.get(key)
            has_key = self.ledger.name_of_address(a) is not None
            if acct is None and not has_key and key not in world.balances:
                continue
            meta = self.ledger.meta.get(key)
            item: dict[str, Any] = {
                "next": "",
                "kind": "AddressStateRef",
                "address": a,
                "nonce": world.nonces.get(key, 0),
                "balance": str(world.balances.get(key, 0)),
                "contractRoot": "",
                "code": "",
                "codeHash": meta.code_hash if meta else "",
                "contractName": meta.name if meta else None,
                "codePtrAddress": None,
                "codePtrChainId": None,
                "latestBlockNum": self.ledger.head.number,
            }
            if chain:
                item["chainId"] = chain
            out.append(item)
        return JsonBody(out)

    # ------------------------------------------------------------ contracts (bloc)

    async def contracts(self, request: Request) -> Response:
        chain = norm_chain(request.query_params.get("chainid"))
        if chain:
            self.ledger.require_member(request.state.user, chain)
        out: dict[str, list[dict[str, Any]]] = {}
        blocks = {
            r["number"]: r["timestamp"]
            for r in self.ledger.store.all("SELECT number, timestamp FROM blocks")
        }
        for (c, a), m in list(self.ledger.meta.items()):  # the producer adds to it
            if c != chain:
                continue
            out.setdefault(m.name, []).append(
                {
                    "createdAt": blocks.get(m.created_block, 0) * 1000,
                    "createdBlock": m.created_block,  # sandbox extra: the explorer shows it
                    "address": format(a, "040x"),
                    "chainId": c,
                }
            )
        return JsonBody(out)

    def _contract(self, request: Request) -> tuple[Any, str, str]:
        name = request.path_params["name"]
        address = request.path_params["address"]
        chain = norm_chain(request.query_params.get("chainid"))
        if chain:
            self.ledger.require_member(request.state.user, chain)
        try:
            addr = norm_address(address, "contract address")
        except ApiError:
            raise bad_request(f"Couldn't find contract {name} at address {address}") from None
        acct = self.ledger.world.accounts.get((chain, int(addr, 16)))
        if acct is None or acct.cdef is None or acct.cdef.name != name:
            raise bad_request(f"Couldn't find contract {name} at address {addr}")
        return acct, addr, chain

    async def contract_details(self, request: Request) -> Response:
        acct, addr, chain = self._contract(request)
        meta = self.ledger.meta.get((chain, int(addr, 16)))
        cdef = acct.cdef
        return JsonBody(
            {
                "bin": cdef.source,
                "chainId": chain,
                "address": addr,
                "bin-runtime": cdef.source,
                "codeHash": {
                    "kind": cdef.vm,
                    "name": cdef.name,
                    "digest": meta.code_hash if meta else "",
                },
                "name": cdef.name,
                "src": cdef.source,
                "xabi": cdef.xabi,
            }
        )

    async def contract_state(self, request: Request) -> Response:
        acct, addr, chain = self._contract(request)
        state = self.ledger.read_state(addr, chain)
        var = request.query_params.get("name")
        if var is not None:
            if var not in state:
                raise bad_request(f"contract {acct.cdef.name} has no state variable {var!r}")
            value = state[var]
            if flag(request, "length") and isinstance(value, list | dict):
                return JsonBody({var: len(value)})
            if isinstance(value, list | dict):  # a mapping pages its keys in stored order
                offset = int_param(request, "offset", 0) or 0
                count = int_param(request, "count", len(value))
                end = offset + (count if count is not None else len(value))
                if isinstance(value, dict):
                    value = dict(list(value.items())[offset:end])
                else:
                    value = value[offset:end]
            return JsonBody({var: value})
        return JsonBody(state)

    async def contract_state_key(self, request: Request) -> Response:
        acct, _, _ = self._contract(request)
        var = request.path_params["mapping"]
        key = request.path_params["key"]
        sv = acct.cdef.svars.get(var)
        if sv is None or sv.constant:
            raise bad_request(f"contract {acct.cdef.name} has no state variable {var!r}")
        from .solidvm.abi import decode_value
        from .solidvm.types import MappingType

        if not isinstance(sv.type, MappingType):
            raise bad_request(f"{var} is not a mapping")
        try:
            k = decode_value(key, sv.type.key, "key", acct.cdef.vm)
        except SolidVMError as exc:
            raise bad_request(exc.message) from None
        m = acct.storage[var]
        from .solidvm.values import default_value

        v = m.get(k, default_value(sv.type.value))
        return JsonBody({var: {key: encode_value(v, sv.type.value)}})

    async def xabi(self, request: Request) -> Response:
        body = await self.json_body(request)
        if not isinstance(body, dict) or not isinstance(body.get("src"), str | dict | list):
            raise bad_request("body must be an object with the source in 'src'")
        vm = body.get("vm") or body.get("VM") or "SolidVM"
        if vm not in ("SolidVM", "EVM"):
            raise bad_request(f"Invalid value for VM choice: {json.dumps(vm)}")
        try:
            unit = compile_source(body["src"], vm=vm, test_clock=self.ledger.config.test_clock)
        except ParseError as exc:
            raise bad_request(str(exc)) from None
        except SolidVMError as exc:
            raise bad_request(exc.message) from None
        return JsonBody({"src": unit.xabis()})

    async def compile(self, request: Request) -> Response:
        body = await self.json_body(request)
        if isinstance(body, dict):
            body = [body]
        if not isinstance(body, list) or not body:
            raise bad_request("body must be an array of {contractName, source, vm}")
        out = []
        for i, item in enumerate(body):
            if not isinstance(item, dict) or not isinstance(item.get("source"), str):
                raise bad_request(f"element {i} must have a 'source' string")
            vm = item.get("vm") or "SolidVM"
            if vm not in ("SolidVM", "EVM"):
                raise bad_request(f"Invalid value for VM choice: {json.dumps(vm)}")
            try:
                h, unit = self.ledger.unit(vm, item["source"])
            except ParseError as exc:
                raise bad_request(str(exc)) from None
            except SolidVMError as exc:
                raise bad_request(exc.message) from None
            name = item.get("contractName")
            names = [name] if isinstance(name, str) else unit.names
            for n in names:
                if n not in unit.contracts:
                    raise bad_request(
                        f"Could not find global contract metadataId for {n} in source"
                    )
                out.append({"contractName": n, "codeHash": {"kind": vm, "name": n, "digest": h}})
        return JsonBody(out)

    async def post_chain(self, request: Request) -> Response:
        name = request.state.user
        sender = self.sender_of(name)
        body = await self.json_body(request)
        return JsonBody(await self.ledger.create_chain(name, sender, body))

    async def post_chains(self, request: Request) -> Response:
        name = request.state.user
        sender = self.sender_of(name)
        body = await self.json_body(request)
        if not isinstance(body, list) or not body or len(body) > 100:
            raise bad_request("body must be an array of 1-100 chain creation objects")
        for b in body:  # all or nothing: check every body before creating any chain
            self.ledger.validate_chain(name, b)
        ids = [await self.ledger.create_chain(name, sender, b) for b in body]
        return JsonBody(ids)

    async def get_chains(self, request: Request) -> Response:
        name = request.state.user
        wanted = [norm_chain(c) for c in request.query_params.getlist("chainid") if c]
        limit = min(int_param(request, "limit", LIST_CAP) or LIST_CAP, LIST_CAP)
        offset = int_param(request, "offset", 0) or 0
        if wanted:
            out = []
            for cid in wanted:
                chain = self.ledger.require_member(name, cid)
                out.append(self.ledger.chain_json(chain))
            return JsonBody(out)
        chains = self.ledger.accessible_chains(name)[offset : offset + limit]
        return JsonBody([self.ledger.chain_json(c) for c in chains])

    def cirrus_rows(
        self, table: str, q: Query, user: str, want_total: bool = False
    ) -> tuple[list[dict[str, Any]], int | None]:
        """Rows of a Cirrus table as ``user`` may see them (for the asset applications)."""
        backend = self.ledger.indexer.backend
        try:
            return backend.run(
                table, q, self.ledger.visible_chains(user), want_total, backend.reader()
            )
        except QueryError as exc:
            raise ApiError(exc.status, exc.body) from None
        except sqlite3.OperationalError:
            raise ApiError(503, {"message": "the table is being updated; retry"}) from None

    async def cirrus_schema(self, request: Request) -> Response:
        return JsonBody(self.ledger.indexer.backend.openapi())

    async def cirrus(self, request: Request) -> Response:
        if request.method != "GET":
            raise ApiError(403, {"message": "Cirrus is read-only: only GET is allowed"})
        table = request.path_params["table"]
        backend = self.ledger.indexer.backend
        params = request.query_params.multi_items()
        args = (
            backend,
            table,
            params,
            {k.lower(): v for k, v in request.headers.items()},
            self.ledger.visible_chains(request.state.user),
        )
        q = prepare(params)
        if q is None or backend.is_cheap(table, q):
            status, body, headers = search(*args)
        else:
            # a scan reads through its own connection in a worker thread, so that it holds up
            # neither block production nor other requests
            status, body, headers = await asyncio.to_thread(search, *args)
        if isinstance(body, RowStream):  # a large result: the rest is read as it is sent
            return StreamingResponse(body.body(), status, headers, "application/json")
        return JsonBody(body, status, headers=headers)

    async def version(self, request: Request) -> Response:
        return JsonBody(
            {
                "name": "stratoscope-sandbox",
                "version": __version__,
                "monostrato": {"name": "stratoscope", "branch": "sandbox", "sha": "", "url": ""},
            }
        )

    # ------------------------------------------------------------ assembly

    def routes(self) -> list[BaseRoute]:
        table: list[tuple[list[str], list[str], Handler, str, bool]] = [
            (["/health"], ["GET"], self.health, "Node health, version, uptime, last block", True),
            (["/_ping"], ["GET"], self.ping, "Liveness probe", True),
            (["/openapi.json"], ["GET"], self.openapi, "This API description", True),
            (
                [f"{p}/key" for p in (SEED_SVC, REAL_SVC)],
                ["GET"],
                self.get_key,
                "Address and public key of the caller (or ?username=)",
                False,
            ),
            (
                [f"{p}/key" for p in (SEED_SVC, REAL_SVC)],
                ["POST"],
                self.post_key,
                "Create the caller's key pair",
                False,
            ),
            (
                [f"{p}/users" for p in (SEED_SVC, REAL_SVC)],
                ["GET"],
                self.list_users,
                "Users with keys (?address, limit, offset)",
                False,
            ),
            (
                [f"{p}/transaction" for p in (SEED_SVC, REAL_SVC, BLOC)]
                + [f"{p}/transaction/parallel" for p in (SEED_SVC, REAL_SVC, BLOC)],
                ["POST"],
                self.transaction,
                "Submit transactions (?resolve, chainid)",
                False,
            ),
            (
                [f"{BLOC}/transactions/{{hash}}/result"],
                ["GET"],
                self.tx_result,
                "Result of one transaction (a private chain's: members only, else as unknown)",
                False,
            ),
            (
                [f"{BLOC}/transactions/results"],
                ["POST"],
                self.tx_results,
                "Results of several transactions, in the order given",
                False,
            ),
            (
                [f"{BLOC}/users/{{name}}/{{address}}/fill"],
                ["POST"],
                self.fill,
                "Faucet: fund an account (?resolve)",
                False,
            ),
            (
                [f"{p}/block" for p in (SEED_ETH, REAL_ETH)],
                ["GET"],
                self.blocks,
                "Blocks by number, range or hash",
                False,
            ),
            (
                [f"{p}/block/last/{{n}}" for p in (SEED_ETH, REAL_ETH)],
                ["GET"],
                self.last_blocks,
                "The last n blocks",
                False,
            ),
            (
                [f"{p}/transaction" for p in (SEED_ETH, REAL_ETH)],
                ["GET"],
                self.transactions,
                "Transactions by hash, address, sender, recipient or block",
                False,
            ),
            (
                [f"{p}/transaction/last/{{n}}" for p in (SEED_ETH, REAL_ETH)],
                ["GET"],
                self.last_transactions,
                "The last n transactions",
                False,
            ),
            (
                [f"{p}/account" for p in (SEED_ETH, REAL_ETH)],
                ["GET"],
                self.accounts,
                "Account state: balance, nonce, contract name",
                False,
            ),
            ([f"{BLOC}/contracts"], ["GET"], self.contracts, "Deployed contracts by name", False),
            ([f"{BLOC}/contracts/xabi"], ["POST"], self.xabi, "xabi of source code", False),
            ([f"{BLOC}/contracts/compile"], ["POST"], self.compile, "Compile source code", False),
            (
                [f"{BLOC}/contracts/{{name}}/{{address}}"],
                ["GET"],
                self.contract_details,
                "Contract details with xabi",
                False,
            ),
            (
                [f"{BLOC}/contracts/{{name}}/{{address}}/state"],
                ["GET"],
                self.contract_state,
                "Contract state (?name, offset, count, length)",
                False,
            ),
            (
                [f"{BLOC}/contracts/{{name}}/{{address}}/state/{{mapping}}/{{key}}"],
                ["GET"],
                self.contract_state_key,
                "One mapping entry",
                False,
            ),
            (
                [f"{BLOC}/chain"],
                ["POST"],
                self.post_chain,
                "Create a private chain (returns its id)",
                False,
            ),
            (
                [f"{BLOC}/chains"],
                ["POST"],
                self.post_chains,
                "Create several private chains",
                False,
            ),
            (
                [f"{SEED_ETH}/chain", f"{REAL_ETH}/chain", f"{BLOC}/chain"],
                ["GET"],
                self.get_chains,
                "Chains the caller can access (?chainid repeatable)",
                False,
            ),
            (
                ["/cirrus/search/", "/cirrus/search"],
                ["GET"],
                self.cirrus_schema,
                "Tables and their columns (PostgREST's OpenAPI root document)",
                False,
            ),
            (
                ["/cirrus/search/{table}"],
                ["GET", "POST", "PUT", "PATCH", "DELETE"],
                self.cirrus,
                "Query an indexed table (PostgREST 9 syntax)",
                False,
            ),
            (
                [f"{BLOC}/", f"{BLOC}", f"{REAL_ETH}/version", f"{SEED_ETH}/version"],
                ["GET"],
                self.version,
                "Version information",
                False,
            ),
        ]
        routes: list[BaseRoute] = []
        for paths, methods, handler, summary, public in table:
            wrapped = self.endpoint(handler, public)
            wrapped.summary = summary  # type: ignore[attr-defined]
            routes += [Route(path, wrapped, methods=methods) for path in paths]
        routes.append(Mount("/auth", routes=self.issuer.routes()))
        return routes + self.extra_routes


def _path_int(request: Request, name: str) -> int:
    """A count in the path; anything above the list cap means the cap."""
    v = request.path_params[name]
    if not is_ascii_digits(v):
        raise bad_request(f"{name} must be a non-negative integer")
    return LIST_CAP if len(v) > 6 else int(v)


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        body: Any = {"error": f"no such route: {request.method} {request.url.path}"}
    elif exc.status_code == 405:
        body = {"error": f"method {request.method} is not allowed on {request.url.path}"}
        # every method of the path, not only those of the route the router tried first
        allowed = allowed_methods(request.app.routes, request.scope)
        return JsonBody(body, 405, headers={"Allow": allow_header(allowed)})
    else:
        body = {"error": exc.detail}
    return JsonBody(body, exc.status_code, headers=getattr(exc, "headers", None))


def build_app(api: NodeApi, lifespan: Any) -> Starlette:
    return Starlette(
        routes=api.routes(),
        middleware=[Middleware(OptionsMiddleware)],
        exception_handlers={HTTPException: http_error},
        lifespan=lifespan,
    )
