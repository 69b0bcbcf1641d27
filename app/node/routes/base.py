"""Shared plumbing of the node's HTTP routes: authentication, the endpoint wrapper that turns
ApiError into answers, JSON body reading, and small query-parameter helpers."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute

from ..connections import client_gone
from ..errors import ApiError, bad_request
from ..jsondecode import NotDecoded, loads_exactly, loads_in_pieces
from ..jsonenc import (
    compact_json,
    compact_json_in_pieces,
    compact_json_nested_in_pieces,
    heavy,
)
from ..ledger import Ledger
from ..numbers import is_ascii_digits
from ..oidc import InvalidJwt, OidcIssuer
from ..text import may_hold_surrogate, refusal, surrogate_path
from ..users import UserStore

log = logging.getLogger("stratoscope.node")

Handler = Callable[[Request], Awaitable[Response]]

SEED_SVC = "/svc/v2.3"
REAL_SVC = "/strato/v2.3"
BLOC = "/bloc/v2.2"
SEED_ETH = "/svc-api/eth/v1.2"
REAL_ETH = "/strato-api/eth/v1.2"
LIST_CAP = 100
# larger request bodies are decoded, and longer JSON arrays encoded, on a worker thread in
# bounded pieces (a 5,000-transaction body is about 0.5 MB; one transaction about 100 bytes)
BODY_ON_LOOP_MAX = 64 * 1024
ANSWER_ON_LOOP_MAX = 200

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


async def json_answer(
    content: Any, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    """A JsonBody; a long list, or a large answer (a contract upload's holds its source and
    xabi), is encoded off the event loop, in pieces (the same bytes and headers)."""
    if isinstance(content, list) and len(content) > ANSWER_ON_LOOP_MAX:
        body = await asyncio.to_thread(compact_json_in_pieces, content)
        return Response(body, status, headers, media_type=JsonBody.media_type)
    if heavy(content):
        body = await asyncio.to_thread(compact_json_nested_in_pieces, content)
        return Response(body, status, headers, media_type=JsonBody.media_type)
    return JsonBody(content, status, headers=headers)


def decode_body(loads: Callable[[bytes], Any], raw: bytes) -> Any:
    """``loads(raw)``, its errors as the 400 answers of every JSON route. Text holding a lone
    UTF-16 surrogate is refused here, for every route: it is not Unicode, and no text the
    node stores (state, names, sources, metadata) may hold one (see app.node.text)."""
    try:
        value = loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise bad_request(f"Error in $: request body is not valid JSON ({exc})") from None
    except ValueError:  # an integer literal beyond Python's int max-str-digits limit
        raise bad_request(
            f"Error in $: a number in the request body has more than "
            f"{sys.get_int_max_str_digits()} digits"
        ) from None
    except RecursionError:
        raise bad_request("Error in $: request body nests too deeply") from None
    if may_hold_surrogate(raw):
        found = surrogate_path(value)
        if found is not None:
            raise bad_request(refusal(*found))
    return value


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


class ApiBase:
    """State and plumbing every route family shares (NodeApi mixes the families together)."""

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
        self.exact_decodes = asyncio.Semaphore(1)  # large bodies the piecewise reader refused

    # ------------------------------------------------------------ plumbing

    def endpoint(self, handler: Handler, public: bool = False) -> Handler:
        async def run(request: Request) -> Response:
            try:
                if not public:
                    request.state.user = self.authenticate(request)
                return await handler(request)
            except ApiError as exc:
                body = exc.body
                if isinstance(body, str) and exc.status == 400 and body.startswith("Need one"):
                    return PlainTextResponse(body, exc.status, headers=exc.headers)
                return JsonBody(body, exc.status, headers=exc.headers)
            except ClientDisconnect:  # nobody is left to answer: one log line, no traceback
                client_gone(request.scope)
                return Response(status_code=400)
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
        if len(raw) <= BODY_ON_LOOP_MAX:
            return decode_body(json.loads, raw)
        # json.loads holds the GIL throughout, even on a worker thread: read in pieces there
        with contextlib.suppress(NotDecoded):  # too deep for pieces: decoded exactly below
            return await asyncio.to_thread(decode_body, loads_in_pieces, raw)
        async with self.exact_decodes:  # seconds of CPU for megabytes: one at a time
            return await asyncio.to_thread(decode_body, loads_exactly, raw)

    def sender_of(self, name: str) -> str:
        addr = self.key_cache.get(name)
        if addr is None:
            key = self.ledger.key_of(name)
            if key is None:
                raise ApiError(400, f"User {name} doesn't exist")
            addr = key["address"]
            self.key_cache[name] = addr
        return addr
