"""The async STRATO REST client: one ``httpx.AsyncClient`` per connection, no Qt.

Works against the sandbox node and real STRATO nodes alike: the account and explorer routes are
tried at the seed's spelling (``/svc``, ``/svc-api``) and, on a 404, at the platform's
(``/strato``, ``/strato-api``); the spelling that answered is kept for the connection. Every
request has a timeout; only idempotent reads are retried, once, after a network error.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any
from urllib.parse import quote

import httpx

from .errors import (
    NetworkError,
    RequestError,
    StratoError,
    TransactionFailed,
    error_for,
    network_reason,
)
from .files import (
    FILE_ROUTES,
    NO_STORAGE_STATUSES,
    FileEntry,
    FileVerification,
    UploadedFile,
    addresses,
    no_storage_error,
)
from .models import Account, AccountState, Block, Health, Transaction, TxRequest, TxResult
from .traces import NO_ROUTE, NO_TRACES_TEXT, TraceUnavailable, trace_error

TokenProvider = Callable[[], Awaitable[str]]

SPELLINGS = {
    "svc": ("/svc/v2.3", "/strato/v2.3"),
    "eth": ("/svc-api/eth/v1.2", "/strato-api/eth/v1.2"),
}
BLOC = "/bloc/v2.2"
READ_CALL = "/stratoscope/call"  # the sandbox's read-only call (no STRATO node serves it)


class StratoClient:
    """Typed calls of the STRATO API for one node and one identity."""

    def __init__(
        self,
        base_url: str,
        token: TokenProvider | None = None,
        *,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
        event_hooks: Mapping[str, list[Callable[..., Any]]] | None = None,
        error_hook: Callable[[httpx.Request, str], None] | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._token = token
        self._error_hook = error_hook  # told about requests that got no response
        self._prefix = {"svc": 0, "eth": 0}
        self.http = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            transport=transport,
            event_hooks={k: list(v) for k, v in (event_hooks or {}).items()},
            follow_redirects=False,
        )

    async def aclose(self) -> None:
        await self.http.aclose()

    def svc_prefix(self) -> str:
        """The account/transaction route prefix this node answers to (seed or platform)."""
        return SPELLINGS["svc"][self._prefix["svc"]]

    def set_token_provider(self, token: TokenProvider | None) -> None:
        """Act as another identity on the same connection (the next request uses it)."""
        self._token = token

    async def __aenter__(self) -> StratoClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # ------------------------------------------------------------ plumbing

    async def _headers(self, auth: bool) -> dict[str, str]:
        if not auth or self._token is None:
            return {}
        return {"Authorization": f"Bearer {await self._token()}"}

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Any = None,
        json_body: Any = None,
        headers: Mapping[str, str] | None = None,
        auth: bool = True,
        idempotent: bool | None = None,
    ) -> httpx.Response:
        """Send one request; 2xx responses come back, anything else raises a StratoError."""
        retry = (method == "GET") if idempotent is None else idempotent
        attempts = 2 if retry else 1
        for attempt in range(attempts):
            h = {**(await self._headers(auth)), **(headers or {})}
            try:
                resp = await self.http.request(
                    method, path, params=params, json=json_body, headers=h
                )
            except httpx.TimeoutException as exc:
                err: StratoError = NetworkError(
                    f"the node at {self.base_url} did not answer in time", method=method, url=path
                )
                self._report(exc, err)
            except httpx.TransportError as exc:
                err = NetworkError(
                    f"cannot reach the node at {self.base_url}: {network_reason(exc)}",
                    method=method,
                    url=path,
                )
                self._report(exc, err)
            else:
                if resp.status_code < 300:
                    return resp
                raise error_for(resp.status_code, resp.text, method, path)
            if attempt + 1 == attempts:
                raise err
            await asyncio.sleep(0.2)
        raise AssertionError("unreachable")

    def _report(self, exc: httpx.TransportError, err: StratoError) -> None:
        if self._error_hook is None:
            return
        try:
            request = exc.request
        except RuntimeError:  # raised before a request existed
            return
        self._error_hook(request, err.message)

    async def json(self, method: str, path: str, **kw: Any) -> Any:
        resp = await self.request(method, path, **kw)
        try:
            return resp.json()
        except ValueError:
            raise RequestError(
                "the node answered with something that is not JSON",
                status=resp.status_code,
                method=method,
                url=path,
                body=resp.text[:2000],
            ) from None

    async def _spelled(self, family: str, rest: str, method: str = "GET", **kw: Any) -> Any:
        """A route that exists at the seed's and at the platform's spelling."""
        options = SPELLINGS[family]
        first = self._prefix[family]
        order = [first, 1 - first]
        for i, idx in enumerate(order):
            try:
                result = await self.json(method, options[idx] + rest, **kw)
            except RequestError as exc:
                if exc.status == 404 and i == 0:
                    continue
                raise
            self._prefix[family] = idx
            return result
        raise AssertionError("unreachable")

    # ------------------------------------------------------------ node

    async def health(self) -> Health:
        data = await self.json("GET", "/health", auth=False)
        if not isinstance(data, dict):
            raise RequestError("unexpected /health answer", method="GET", url="/health")
        return Health.from_json(data)

    # ------------------------------------------------------------ keys

    async def get_key(self, username: str | None = None) -> Account | None:
        """The caller's (or ``username``'s) account; None when it has no key yet."""
        params = {"username": username} if username else None
        try:
            d = await self._spelled("svc", "/key", params=params)
        except RequestError as exc:
            if exc.status == 400 and "doesn't exist" in exc.message:
                return None
            raise
        return Account(str(d["address"]), str(d.get("pubkey", "")))

    async def create_key(self) -> Account:
        d = await self._spelled("svc", "/key", method="POST", idempotent=False)
        return Account(str(d["address"]), str(d.get("pubkey", "")))

    async def ensure_key(self) -> Account:
        return await self.get_key() or await self.create_key()

    # ------------------------------------------------------------ transactions

    async def submit(
        self,
        txs: Iterable[TxRequest],
        *,
        resolve: bool = True,
        chain_id: str | None = None,
        tx_params: Mapping[str, int] | None = None,
    ) -> list[TxResult]:
        """POST the transactions; a single failing one raises TransactionFailed."""
        body: dict[str, Any] = {"txs": [t.to_json() for t in txs]}
        if tx_params:
            body["txParams"] = dict(tx_params)
        params: dict[str, str] = {"resolve": "true" if resolve else "false"}
        if chain_id:
            params["chainid"] = chain_id
        data = await self._spelled(
            "svc",
            "/transaction",
            method="POST",
            params=params,
            json_body=body,
            idempotent=False,
        )
        if not isinstance(data, list):
            raise RequestError(
                "unexpected transaction answer",
                method="POST",
                url="/transaction",
                body=json.dumps(data)[:2000],
            )
        return [TxResult.from_json(d) for d in data]

    async def run(self, tx: TxRequest, *, chain_id: str | None = None) -> TxResult:
        """Submit one transaction with resolve=true; a Failure result raises too."""
        (res,) = await self.submit([tx], resolve=True, chain_id=chain_id)
        if res.status == "Failure":
            raise TransactionFailed(
                res.message or "the transaction failed", method="POST", url="/transaction"
            )
        return res

    async def read_call(
        self,
        address: str,
        method: str,
        args: Mapping[str, Any] | None = None,
        *,
        chain_id: str | None = None,
    ) -> TxResult | None:
        """Run a function read-only on the node's committed state (the sandbox's
        ``POST /stratoscope/call``): no transaction, no block, no gas. Its result (a
        ``Failure`` when the function failed, values in ``contents``); None when the node has
        no such route (a STRATO node: the caller falls back to a transaction)."""
        body: dict[str, Any] = {
            "contractAddress": address,
            "method": method,
            "args": dict(args or {}),
        }
        if chain_id:
            body["chainid"] = chain_id
        try:
            data = await self.json("POST", READ_CALL, json_body=body, idempotent=False)
        except RequestError as exc:
            if exc.status in (404, 405):
                return None
            raise
        return TxResult.from_json(data)

    async def result(self, tx_hash: str) -> TxResult:
        d = await self.json("GET", f"{BLOC}/transactions/{tx_hash}/result")
        return TxResult.from_json(d)

    async def results(self, hashes: list[str], *, resolve: bool = False) -> list[TxResult]:
        """The results of ``hashes`` in order; ``resolve`` asks the node to wait (a while) until
        they are no longer Pending."""
        if not hashes:
            return []
        data = await self.json(
            "POST",
            f"{BLOC}/transactions/results",
            params={"resolve": "true"} if resolve else None,
            json_body=hashes,
            idempotent=True,
        )
        return [TxResult.from_json(d) for d in data] if isinstance(data, list) else []

    async def fill(self, address: str, *, username: str = "user", resolve: bool = True) -> TxResult:
        d = await self.json(
            "POST",
            f"{BLOC}/users/{quote(username, safe='')}/{address}/fill",
            params={"resolve": "true" if resolve else "false"},
            idempotent=False,
        )
        return TxResult.from_json(d)

    # ------------------------------------------------------------ explorer

    async def account(self, address: str, chain_id: str | None = None) -> AccountState | None:
        params = {"address": address, **({"chainid": chain_id} if chain_id else {})}
        data = await self._spelled("eth", "/account", params=params)
        if isinstance(data, list) and data and isinstance(data[0], dict):
            return AccountState.from_json(data[0])
        return None

    async def last_blocks(self, n: int = 15) -> list[Block]:
        data = await self._spelled("eth", f"/block/last/{n}")
        return [Block.from_json(b) for b in data if isinstance(b, dict)]

    async def block(self, number: int) -> Block | None:
        data = await self._spelled("eth", "/block", params={"number": number})
        return Block.from_json(data[0]) if isinstance(data, list) and data else None

    async def block_by_hash(self, block_hash: str) -> Block | None:
        data = await self._spelled("eth", "/block", params={"hash": block_hash})
        return Block.from_json(data[0]) if isinstance(data, list) and data else None

    async def transactions(self, **filters: Any) -> list[Transaction]:
        data = await self._spelled("eth", "/transaction", params=filters)
        return [Transaction.from_json(t) for t in data if isinstance(t, dict)]

    async def last_transactions(self, n: int = 15) -> list[Transaction]:
        data = await self._spelled("eth", f"/transaction/last/{n}")
        return [Transaction.from_json(t) for t in data if isinstance(t, dict)]

    async def trace(self, tx_hash: str) -> dict[str, Any]:
        """The call trace the sandbox recorded for a transaction (a sandbox extension, see
        :mod:`app.client.traces`). Raises :class:`~app.client.traces.TraceUnavailable` when there
        is none to show: its ``reason`` says whether the node keeps no traces at all (a real
        STRATO node), does not know the transaction, or kept none for it."""
        h = tx_hash.lower().removeprefix("0x")
        try:
            data = await self._spelled("eth", "/transaction/trace", params={"hash": h})
        except RequestError as exc:
            missing = trace_error(exc)
            if missing is not None:
                raise missing from None
            raise
        if not isinstance(data, dict) or not isinstance(data.get("root"), dict):
            raise TraceUnavailable(NO_TRACES_TEXT, NO_ROUTE)
        return data

    # ------------------------------------------------------------ contracts

    async def contracts(self, chain_id: str | None = None) -> dict[str, list[dict[str, Any]]]:
        params = {"chainid": chain_id} if chain_id else None
        data = await self.json("GET", f"{BLOC}/contracts", params=params)
        return data if isinstance(data, dict) else {}

    async def _state(
        self, name: str, address: str, chain_id: str | None, params: dict[str, str]
    ) -> dict[str, Any]:
        if chain_id:
            params["chainid"] = chain_id
        data = await self.json(
            "GET", f"{BLOC}/contracts/{quote(name, safe='')}/{address}/state", params=params
        )
        return data if isinstance(data, dict) else {}

    async def state(self, name: str, address: str, chain_id: str | None = None) -> dict[str, Any]:
        return await self._state(name, address, chain_id, {})

    async def state_variable(
        self,
        name: str,
        address: str,
        variable: str,
        chain_id: str | None = None,
        *,
        offset: int | None = None,
        count: int | None = None,
    ) -> Any:
        """One state variable (``?name=``); a page of an array or mapping with ``offset`` and
        ``count`` (the platform pages arrays so; the sandbox mappings too, in stored order)."""
        params: dict[str, str] = {"name": variable}
        if offset is not None:
            params["offset"] = str(offset)
        if count is not None:
            params["count"] = str(count)
        return (await self._state(name, address, chain_id, params)).get(variable)

    async def state_length(
        self, name: str, address: str, variable: str, chain_id: str | None = None
    ) -> int | None:
        """How many entries an array (or, on the sandbox, a mapping) holds; None when the node
        answers with something else (a node that does not count mappings)."""
        params = {"name": variable, "length": "true"}
        value = (await self._state(name, address, chain_id, params)).get(variable)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and value.isdigit():
            return int(value)
        return None

    async def details(self, name: str, address: str, chain_id: str | None = None) -> dict[str, Any]:
        params = {"chainid": chain_id} if chain_id else None
        data = await self.json(
            "GET", f"{BLOC}/contracts/{quote(name, safe='')}/{address}", params=params
        )
        return data if isinstance(data, dict) else {}

    async def xabi(self, src: str, vm: str = "SolidVM") -> dict[str, Any]:
        data = await self.json(
            "POST", f"{BLOC}/contracts/xabi", json_body={"src": src, "vm": vm}, idempotent=True
        )
        return dict(data.get("src", {})) if isinstance(data, dict) else {}

    # ------------------------------------------------------------ chains

    async def chains(
        self, chain_ids: Iterable[str] = (), *, limit: int | None = None, offset: int = 0
    ) -> list[dict[str, Any]]:
        """Chains by ID, or every chain the caller can access (one page of ``limit``)."""
        params = [("chainid", c) for c in chain_ids]
        if limit is not None:
            params += [("limit", str(limit)), ("offset", str(offset))]
        data = await self._spelled("eth", "/chain", params=params or None)
        return [c for c in data if isinstance(c, dict)] if isinstance(data, list) else []

    async def create_chain(self, body: Mapping[str, Any]) -> str:
        data = await self.json("POST", f"{BLOC}/chain", json_body=dict(body), idempotent=False)
        return str(data)

    # ------------------------------------------------------------ cirrus

    async def cirrus_schema(self) -> dict[str, Any]:
        """PostgREST's root document (every table and its columns); {} when the node serves
        none (a proxy in front of Cirrus may not pass the root through)."""
        try:
            data = await self.json("GET", "/cirrus/search/")
        except RequestError:  # refused, missing, or not JSON: no schema to read
            return {}
        return data if isinstance(data, dict) else {}

    async def cirrus(
        self, table: str, params: list[tuple[str, str]] | None = None, *, count: bool = False
    ) -> tuple[list[dict[str, Any]], int | None]:
        """Rows of a Cirrus table, and the total when ``count`` (Prefer: count=exact)."""
        headers = {"Prefer": "count=exact"} if count else None
        resp = await self.request(
            "GET", f"/cirrus/search/{quote(table, safe='')}", params=params or None, headers=headers
        )
        rows = resp.json()
        total = None
        rng = resp.headers.get("content-range", "")
        if "/" in rng and rng.rsplit("/", 1)[1].isdigit():
            total = int(rng.rsplit("/", 1)[1])
        return (rows if isinstance(rows, list) else []), total

    # ---- dashboard

    async def blocks_between(self, first: int, last: int) -> list[Block]:
        """Blocks ``first``..``last`` (both included), oldest first. Nodes cap one answer at
        100 blocks (STRATO's fetch limit, the sandbox's too): ask for at most 100 at a time."""
        data = await self._spelled("eth", "/block", params={"minnumber": first, "maxnumber": last})
        if not isinstance(data, list):
            return []
        blocks = [Block.from_json(b) for b in data if isinstance(b, dict)]
        return sorted(blocks, key=lambda b: b.number)

    async def raw_blocks(self, first: int, last: int) -> list[dict[str, Any]]:
        """Blocks ``first``..``last`` as the node sends them (the Explorer measures their size);
        at most 100 per request, like :meth:`blocks_between`."""
        data = await self._spelled("eth", "/block", params={"minnumber": first, "maxnumber": last})
        return [b for b in data if isinstance(b, dict)] if isinstance(data, list) else []

    async def cirrus_count(self, table: str) -> int:
        """How many rows of a Cirrus table the caller can see: PostgREST's exact count header
        on a one-row page, else an aggregate ``select=count``."""
        rows, total = await self.cirrus(table, [("limit", "1")], count=True)
        if total is not None:
            return total
        rows, _ = await self.cirrus(table, [("select", "count")])
        if rows and isinstance(rows[0], dict) and "count" in rows[0]:
            return int(rows[0]["count"])
        raise RequestError(
            f"the node did not count the rows of {table}", method="GET", url="/cirrus/search"
        )

    # ---- asset apps

    async def _app_data(self, method: str, url: str, **kw: Any) -> Any:
        """One call of an asset application (``/apps/<App>/...`` on the node, or an absolute
        URL of an asset-framework server): its ``data`` out of ``{success, data}``; a refusal
        raises with the application's ``error`` and, when it sent them, its ``details``."""
        try:
            answer = await self.json(method, url, **kw)
        except StratoError as exc:
            try:
                body = json.loads(exc.body) if exc.body else None
            except ValueError:
                body = None
            if isinstance(body, dict) and isinstance(body.get("details"), str):
                exc.message = f"{exc.message}: {body['details']}"
            raise
        if isinstance(answer, dict) and "success" in answer:
            if answer.get("success") is False:
                raise RequestError(
                    str(answer.get("error") or "the application refused the request"),
                    method=method,
                    url=url,
                    body=json.dumps(answer)[:2000],
                )
            return answer.get("data")
        return answer

    async def asset_apps(self) -> list[dict[str, Any]]:
        """The node's asset applications (``GET /apps``: the sandbox lists them; a STRATO node
        has no such route and answers 404)."""
        data = await self._app_data("GET", "/apps")
        return [a for a in data if isinstance(a, dict)] if isinstance(data, list) else []

    async def assets(
        self, app_url: str, asset: str, params: list[tuple[str, str]] | None = None
    ) -> tuple[list[dict[str, Any]], int]:
        """``GET {app_url}/{asset}``: the assets the caller can see and the total."""
        data = await self._app_data("GET", f"{app_url}/{quote(asset, safe='')}", params=params)
        if isinstance(data, list):  # some versions send the bare rows
            return [r for r in data if isinstance(r, dict)], len(data)
        if not isinstance(data, dict):
            return [], 0
        rows = data.get(f"{asset}s")
        if not isinstance(rows, list):
            rows = next((v for v in data.values() if isinstance(v, list)), [])
        out = [r for r in rows if isinstance(r, dict)]
        total = data.get("total")
        return out, total if isinstance(total, int) else len(out)

    async def asset(self, app_url: str, asset: str, address: str, chain_id: str) -> dict[str, Any]:
        """``GET {app_url}/{asset}/{address}/{chainId}``: one asset."""
        data = await self._app_data(
            "GET", f"{app_url}/{quote(asset, safe='')}/{address}/{chain_id}"
        )
        return data if isinstance(data, dict) else {}

    async def asset_audit(
        self, app_url: str, asset: str, address: str, chain_id: str
    ) -> list[dict[str, Any]]:
        """``GET {app_url}/{asset}/{address}/{chainId}/audit``: the asset's history rows."""
        data = await self._app_data(
            "GET", f"{app_url}/{quote(asset, safe='')}/{address}/{chain_id}/audit"
        )
        return [r for r in data if isinstance(r, dict)] if isinstance(data, list) else []

    async def create_asset(self, app_url: str, asset: str, args: Mapping[str, Any]) -> Any:
        """``POST {app_url}/{asset}`` with ``{<asset>Args: {...}}``; the bound contract
        (``chainIds`` names the new shard)."""
        return await self._app_data(
            "POST",
            f"{app_url}/{quote(asset, safe='')}",
            json_body={f"{asset}Args": dict(args)},
            idempotent=False,
        )

    async def update_asset(
        self, app_url: str, asset: str, address: str, chain_id: str, updates: Mapping[str, Any]
    ) -> Any:
        """``PUT {app_url}/{asset}/update`` with ``{address, chainId, updates}``."""
        return await self._app_data(
            "PUT",
            f"{app_url}/{quote(asset, safe='')}/update",
            json_body={"address": address, "chainId": chain_id, "updates": dict(updates)},
            idempotent=False,
        )

    async def transfer_asset(
        self, app_url: str, asset: str, address: str, chain_id: str, new_owner: str
    ) -> Any:
        """``POST {app_url}/{asset}/transferOwnership`` with ``{address, chainId, newOwner}``."""
        return await self._app_data(
            "POST",
            f"{app_url}/{quote(asset, safe='')}/transferOwnership",
            json_body={"address": address, "chainId": chain_id, "newOwner": new_owner},
            idempotent=False,
        )

    # ---- files

    async def _file_json(self, method: str, rest: str, **kw: Any) -> Any:
        """A file storage route; 404, 405 and 410 mean the node has none."""
        try:
            return await self.json(method, FILE_ROUTES + rest, **kw)
        except RequestError as exc:
            if exc.status in NO_STORAGE_STATUSES:
                raise no_storage_error(exc) from None
            raise

    async def file_upload(
        self, name: str, content: bytes, *, metadata: str, provider: str = "s3"
    ) -> UploadedFile:
        """POST ``/upload`` as multipart/form-data: the file in ``content``, and the text
        fields ``provider`` and ``metadata``; the node creates the on-chain record."""
        path = FILE_ROUTES + "/upload"
        request = self.http.build_request(
            "POST",
            path,
            files={"content": (name, content, "application/octet-stream")},
            data={"provider": provider, "metadata": metadata},
            headers=await self._headers(True),
        )
        await request.aread()  # the body in one piece: the HTTP inspector can show its start
        try:
            resp = await self.http.send(request)
        except httpx.TimeoutException as exc:
            err: StratoError = NetworkError(
                "the node did not answer in time", method="POST", url=path
            )
            self._report(exc, err)
            raise err from None
        except httpx.TransportError as exc:
            err = NetworkError(
                f"cannot reach the node at {self.base_url}: {network_reason(exc)}",
                method="POST",
                url=path,
            )
            self._report(exc, err)
            raise err from None
        if resp.status_code >= 300:
            exc2 = error_for(resp.status_code, resp.text, "POST", path)
            if isinstance(exc2, RequestError) and exc2.status in NO_STORAGE_STATUSES:
                raise no_storage_error(exc2)
            raise exc2
        try:
            data = resp.json()
        except ValueError:
            data = None
        if not isinstance(data, dict) or not data.get("contractAddress"):
            raise RequestError(
                "the node's upload answer has no contract address",
                status=resp.status_code,
                method="POST",
                url=path,
                body=resp.text[:2000],
            )
        return UploadedFile.from_json(data)

    async def file_list(self, limit: int = 100, offset: int = 0) -> list[FileEntry]:
        """One page of the node's uploaded files (STRATO's default page is 100)."""
        data = await self._file_json("GET", "/list", params={"limit": limit, "offset": offset})
        rows = data.get("list") if isinstance(data, dict) else data
        return [FileEntry.from_json(r) for r in rows if isinstance(r, dict)] if rows else []

    async def file_download_url(self, address: str) -> str:
        """A link to the file's content (one-time on the sandbox, presigned S3 on STRATO)."""
        data = await self._file_json("GET", "/download", params={"contractAddress": address})
        url = data.get("url") if isinstance(data, dict) else data
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise RequestError(
                "the node's download answer has no link", method="GET", url="/download"
            )
        return url

    async def file_attest(self, address: str) -> list[str]:
        """Sign the record as the current user; the signers after signing."""
        data = await self._file_json(
            "POST", "/attest", json_body={"contractAddress": address}, idempotent=False
        )
        return addresses(data.get("signers") if isinstance(data, dict) else None)

    async def file_verify(self, address: str) -> FileVerification:
        data = await self._file_json("GET", "/verify", params={"contractAddress": address})
        return FileVerification.from_json(data if isinstance(data, dict) else {})

    async def file_download(
        self,
        url: str,
        sink: Callable[[bytes, int | None], Awaitable[None]],
        *,
        chunk_size: int = 1024 * 1024,
    ) -> int:
        """Fetch a download link, handing each chunk (and the announced size) to ``sink``;
        returns the number of bytes. The link is its own credential and may point at S3: it is
        fetched without the API token, outside the HTTP inspector, and never put in messages."""
        shown = "/".join(url.split("?", 1)[0].split("/")[:3]) + "/…"
        client = await asyncio.to_thread(
            httpx.AsyncClient, timeout=self.http.timeout, follow_redirects=True
        )
        try:
            async with client.stream("GET", url) as resp:
                if resp.status_code >= 300:
                    body = (await resp.aread())[:10_000].decode("utf-8", "replace")
                    raise error_for(resp.status_code, body, "GET", shown)
                length = resp.headers.get("content-length", "")
                total = int(length) if length.isdigit() else None
                received = 0
                async for chunk in resp.aiter_bytes(chunk_size):
                    received += len(chunk)
                    await sink(chunk, total)
                return received
        except httpx.TimeoutException:
            raise NetworkError(
                "the file's link did not answer in time", method="GET", url=shown
            ) from None
        except httpx.TransportError as exc:
            raise NetworkError(f"cannot fetch the file: {exc}", method="GET", url=shown) from None
        finally:
            await client.aclose()
