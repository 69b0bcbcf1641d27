"""Generated asset applications, served at ``{base}/apps/<AppName>/...``.

Creating an application deploys its code collection (the application contract and one contract
per asset type) on the main chain and creates the application's realm chain. Each asset is the
governance contract of its own shard (a private chain whose parent is the realm), so only members
of that shard see it; ``transferOwnership`` moves the shard to the new owner's organization.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from .appgen import AppDef, AssetDef, DefinitionError, app_source, parse_definition
from .cirrus.query import Filter, Order, Query, QueryError
from .cirrus.stream import RowStream
from .errors import ApiError
from .genesis import FAUCET_AMOUNT
from .jsonenc import compact_json
from .ledger import GOVERNANCE_HEX, Ledger, Sub, norm_address, norm_chain
from .numbers import is_ascii_digits

if TYPE_CHECKING:
    from .api import NodeApi

# a shard creator's balance on it when the node charges gas (else 1: STRATO wants one non-zero)
SHARD_BALANCE = FAUCET_AMOUNT

APPS_SCHEMA = """
CREATE TABLE IF NOT EXISTS apps (
    name TEXT PRIMARY KEY,
    definition TEXT NOT NULL,
    creator TEXT NOT NULL,
    address TEXT NOT NULL,
    realm TEXT NOT NULL,
    org TEXT NOT NULL,
    created_at REAL NOT NULL
)
"""


@dataclass
class App:
    definition: AppDef
    creator: str
    address: str
    realm: str
    org: str

    @property
    def name(self) -> str:
        return self.definition.name

    def table(self, asset: AssetDef) -> str:
        return f"{self.org}-{self.name}-{asset.contract}"

    def seed_table(self, asset: AssetDef) -> str:
        """The seed's spelling ``<Org>-<App>-<AssetName>`` (``Acme-CarDemo-car``), served as an
        alias of :meth:`table` (named after the contract, ``Car``)."""
        return f"{self.org}-{self.name}-{asset.name}"

    def to_json(self) -> dict[str, Any]:
        return {
            **self.definition.to_json(),
            "creator": self.creator,
            "address": self.address,
            "realmChainId": self.realm,
            "organization": self.org,
        }


def fail(status: int, message: str, details: str | None = None) -> ApiError:
    body: dict[str, Any] = {"success": False, "error": message}
    if details:
        body["details"] = details
    return ApiError(status, body)


class AppManager:
    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.store = ledger.store
        self.store.execute(APPS_SCHEMA)
        self.apps: dict[str, App] = {}
        self._creating: set[str] = set()  # names of applications being created
        for row in self.store.all("SELECT * FROM apps"):
            self.apps[row["name"]] = App(
                parse_definition(json.loads(row["definition"])),
                row["creator"],
                row["address"],
                row["realm"],
                row["org"],
            )
            self.add_aliases(self.apps[row["name"]])

    # ------------------------------------------------------------ creation

    def create(self, username: str, data: Any, *, internal: bool = False) -> App:
        """Deploy an application now, running its blocks on this thread (start-up and the
        offline CLI: no block producer runs); raises DefinitionError/ApiError.

        ``internal`` marks the node's own demo set-up: its transactions pay no gas.
        """
        steps = self._creation(username, data, internal)
        sub = next(steps)
        while True:
            self.ledger.record([sub])
            self.ledger.run_block([sub])
            try:
                sub = steps.send(self.ledger.result(sub.hash))
            except StopIteration as done:
                app: App = done.value
                return app

    async def create_live(self, username: str, data: Any) -> App:
        """Deploy an application while the node serves: its transactions run on the block
        producer's thread like any other (never on the event loop)."""
        steps = self._creation(username, data, False)
        sub = next(steps)
        while True:
            res = await self.ledger.run_now(sub)
            try:
                sub = steps.send(res)
            except StopIteration as done:
                app: App = done.value
                return app

    def _creation(
        self, username: str, data: Any, internal: bool
    ) -> Generator[Sub, dict[str, Any], App]:
        """The steps of creating an application: yields each transaction to run, receives its
        result; returns the application."""
        definition = parse_definition(data)
        if definition.name in self.apps or definition.name in self._creating:
            raise DefinitionError(f"an application named {definition.name} already exists")
        self._creating.add(definition.name)  # another request may create it meanwhile
        try:
            return (yield from self._create_steps(username, definition, internal))
        finally:
            self._creating.discard(definition.name)

    def _create_steps(
        self, username: str, definition: AppDef, internal: bool
    ) -> Generator[Sub, dict[str, Any], App]:
        led = self.ledger
        key = led.key_of(username)
        cert = led.cert_of_user(username)
        if key is None or cert is None:
            raise DefinitionError(f"user {username} needs a key and a registered identity")
        sender = key["address"]
        src = app_source(definition)
        payload = led.check_upload(
            {"src": src, "contract": definition.name, "args": {}, "metadata": {"VM": "SolidVM"}},
            "app",
        )
        upload = led.new_sub(username, sender, "CONTRACT", payload, "", None, internal=internal)
        res = yield upload
        if res["status"] != "Success":
            raise DefinitionError(
                f"deploying {definition.name} failed: {res['txResult']['message']}"
            )
        address = res["data"]["contents"]["address"]
        realm_body = {
            "label": f"{definition.name}-realm",
            "codePtr": {"account": address, "name": definition.name},
            "args": {},
            "members": [{"orgName": cert["organization"], "access": True}],
            "balances": [{"address": sender, "balance": 1}],
            "metadata": {"VM": "SolidVM"},
        }
        genesis = led.new_sub(
            username,
            sender,
            "GENESIS",
            led.validate_chain(username, realm_body),
            "",
            None,
            internal=internal,
        )
        res = yield genesis
        if res["status"] != "Success":
            raise DefinitionError(
                f"creating the realm of {definition.name} failed: {res['txResult']['message']}"
            )
        app = App(definition, username, address, genesis.payload["chainId"], cert["organization"])
        self.store.execute(
            "INSERT INTO apps (name, definition, creator, address, realm, org, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            app.name,
            json.dumps(definition.to_json()),
            username,
            address,
            app.realm,
            app.org,
            time.time(),
        )
        self.apps[app.name] = app
        self.add_aliases(app)
        return app

    def add_aliases(self, app: App) -> None:
        """Serve each asset's table (and its history) under the seed's name as well."""
        aliases = self.ledger.indexer.backend.aliases
        for asset in app.definition.assets:
            seed, own = app.seed_table(asset), app.table(asset)
            if seed != own:
                aliases[seed] = own
                aliases[f"history@{seed}"] = f"history@{own}"

    # ------------------------------------------------------------ HTTP

    def routes(self, api: NodeApi) -> list[BaseRoute]:
        h = AppHandlers(self, api)
        e = api.endpoint
        return [
            Route("/apps", e(h.list_apps), methods=["GET"]),
            Route("/apps", e(h.create_app), methods=["POST"]),
            Route("/apps/{app}/user/me", e(h.user_me), methods=["GET"]),
            Route("/apps/{app}/user", e(h.users), methods=["GET"]),
            Route("/apps/{app}/user/{address}", e(h.user_by_address), methods=["GET"]),
            Route("/apps/{app}/{asset}", e(h.list_assets), methods=["GET"]),
            Route("/apps/{app}/{asset}", e(h.create_asset), methods=["POST"]),
            Route("/apps/{app}/{asset}/update", e(h.update_asset), methods=["PUT"]),
            Route("/apps/{app}/{asset}/transferOwnership", e(h.transfer), methods=["POST"]),
            Route("/apps/{app}/{asset}/{id}", e(h.get_asset), methods=["GET"]),
            Route("/apps/{app}/{asset}/{id}/audit", e(h.audit), methods=["GET"]),
            Route("/apps/{app}/{asset}/{address}/{chain}", e(h.get_asset2), methods=["GET"]),
            Route("/apps/{app}/{asset}/{address}/{chain}/audit", e(h.audit2), methods=["GET"]),
        ]


def ok(data: Any) -> Response:
    from .api import JsonBody

    return JsonBody({"success": True, "data": data})


async def _enclosed(head: bytes, rows: RowStream, tail: bytes) -> AsyncIterator[bytes]:
    """``head``, the stream's JSON array, ``tail``: the bytes of ok({...}) sent as read."""
    body = rows.body()
    try:
        yield head
        async for chunk in body:
            yield chunk
        yield tail
    finally:
        await body.aclose()  # a client that left: the stream ends its snapshot now


class AppHandlers:
    def __init__(self, manager: AppManager, api: NodeApi) -> None:
        self.m = manager
        self.api = api
        self.ledger = manager.ledger

    def app_of(self, request: Request) -> App:
        name = request.path_params["app"]
        app = self.m.apps.get(name)
        if app is None:
            raise fail(404, f"no application named {name}")
        return app

    def asset_of(self, request: Request) -> tuple[App, AssetDef]:
        app = self.app_of(request)
        asset = app.definition.asset(request.path_params["asset"])
        if asset is None:
            raise fail(
                404, f"application {app.name} has no asset type {request.path_params['asset']}"
            )
        return app, asset

    # ------------------------------------------------------------ applications

    async def list_apps(self, request: Request) -> Response:
        return ok([a.to_json() for a in self.m.apps.values()])

    async def create_app(self, request: Request) -> Response:
        body = await self.api.json_body(request)
        try:
            app = await self.m.create_live(request.state.user, body)
        except DefinitionError as exc:
            raise fail(400, "Create Application Argument Validation Error", str(exc)) from None
        return ok(app.to_json())

    # ------------------------------------------------------------ identities

    async def _cert_rows(self, request: Request, address: str | None) -> list[dict[str, Any]]:
        q = Query()
        if address is not None:
            q.where.items.append(Filter("userAddress", "eq", address))
        rows, _ = await self.api.cirrus_rows("Certificate", q, request.state.user)
        return rows

    async def user_me(self, request: Request) -> Response:
        self.app_of(request)
        name = request.state.user
        key = self.ledger.key_of(name)
        rows = await self._cert_rows(request, key["address"]) if key else []
        if not rows:
            raise fail(400, f"user {name} has no registered identity")
        return ok({**rows[0], "preferred_username": name})

    async def users(self, request: Request) -> Response:
        self.app_of(request)
        return ok(await self._cert_rows(request, None))

    async def user_by_address(self, request: Request) -> Response:
        self.app_of(request)
        address = norm_address(request.path_params["address"], "address")
        rows = await self._cert_rows(request, address)
        if not rows:
            raise fail(404, f"no identity registered for {address}")
        return ok(rows[0])

    # ------------------------------------------------------------ assets

    def _query(self, app: App, asset: AssetDef, request: Request | None) -> Query:
        q = Query()
        q.where.items.append(Filter("appChainId", "eq", app.realm))
        if request is None:
            return q
        params = request.query_params
        fields = {f for f, _ in asset.fields} | {
            "owner",
            "ownerOrganization",
            "ownerCommonName",
            "address",
            "chainId",
        }
        for k, v in params.multi_items():
            if k in ("limit", "offset"):
                if not is_ascii_digits(v) or len(v) > 9:
                    raise fail(400, f"{k} must be a non-negative integer")
                if k == "limit":
                    q.limit = int(v)
                else:
                    q.offset = int(v)
            elif k == "sort":
                col = v.lstrip("+-")
                if col not in fields:
                    raise fail(400, f"cannot sort by {col!r}")
                q.order.append(Order(col, desc=v.startswith("-")))
            elif k == "queryValue":
                cols = params.get("queryFields", "")
                group_cols = [c for c in cols.split(",") if c] or [
                    f for f, t in asset.fields if t == "string"
                ]
                from .cirrus.query import Group

                g = Group("or")
                for c in group_cols:
                    if c not in fields:
                        raise fail(400, f"cannot search field {c!r}")
                    g.items.append(Filter(c, "ilike", f"*{v}*"))
                if g.items:
                    q.where.items.append(g)
            elif k == "queryFields":
                continue
            elif k in fields:
                op, dot, rest = v.partition(".")
                if dot and op in ("eq", "neq", "lt", "lte", "gt", "gte", "like", "ilike"):
                    q.where.items.append(Filter(k, op, rest))
                else:
                    q.where.items.append(Filter(k, "eq", v))
            else:
                raise fail(400, f"unknown query parameter {k!r}")
        return q

    async def _rows(self, app: App, asset: AssetDef, q: Query, user: str) -> tuple[list[Any], int]:
        try:
            rows, total = await self.api.cirrus_rows(app.table(asset), q, user, want_total=True)
        except ApiError as exc:
            if exc.status == 404:  # no asset indexed yet
                return [], 0
            raise
        return rows, total or 0

    async def list_assets(self, request: Request) -> Response:
        """All matching assets (``limit``/``offset`` page them), read on a worker thread; more
        than a thousand are streamed in chunks, as Cirrus answers are."""
        app, asset = self.asset_of(request)
        q = self._query(app, asset, request)
        key = f"{asset.name}s"
        try:
            rows, total = await self.api.cirrus_rows_off_loop(
                app.table(asset), q, request.state.user
            )
        except ApiError as exc:
            if exc.status != 404:
                raise
            rows, total = [], 0  # no asset indexed yet
        if isinstance(rows, RowStream):
            head = b'{"success":true,"data":{' + compact_json(key) + b":"
            tail = b',"total":' + compact_json(total) + b"}}"
            return StreamingResponse(_enclosed(head, rows, tail), media_type="application/json")
        return ok({key: rows, "total": total})

    async def _one(self, app: App, asset: AssetDef, chain: str, user: str) -> dict[str, Any]:
        q = self._query(app, asset, None)
        q.where.items.append(Filter("chainId", "eq", chain))
        rows, _ = await self._rows(app, asset, q, user)
        if not rows:
            raise fail(404, f"no {asset.name} {chain} (or you are not a member of its shard)")
        return dict(rows[0])

    @staticmethod
    def _parse_id(text: str) -> str:
        _, colon, chain = text.partition(":")
        return norm_chain(chain if colon else text, "id")

    async def get_asset(self, request: Request) -> Response:
        app, asset = self.asset_of(request)
        chain = self._parse_id(request.path_params["id"])
        return ok(await self._one(app, asset, chain, request.state.user))

    async def get_asset2(self, request: Request) -> Response:
        app, asset = self.asset_of(request)
        norm_address(request.path_params["address"], "address")
        chain = norm_chain(request.path_params["chain"], "chainId")
        return ok(await self._one(app, asset, chain, request.state.user))

    async def _audit(self, app: App, asset: AssetDef, chain: str, user: str) -> list[Any]:
        await self._one(app, asset, chain, user)  # 404 unless visible
        q = Query()
        q.where.items.append(Filter("chainId", "eq", chain))
        q.order.append(Order("block_number"))
        try:
            rows, _ = await self.api.cirrus_rows(f"history@{app.table(asset)}", q, user)
        except ApiError:
            return []
        return rows

    async def audit(self, request: Request) -> Response:
        app, asset = self.asset_of(request)
        chain = self._parse_id(request.path_params["id"])
        return ok(await self._audit(app, asset, chain, request.state.user))

    async def audit2(self, request: Request) -> Response:
        app, asset = self.asset_of(request)
        chain = norm_chain(request.path_params["chain"], "chainId")
        return ok(await self._audit(app, asset, chain, request.state.user))

    def _field_values(
        self, asset: AssetDef, given: dict[str, Any], action: str, require_all: bool
    ) -> dict[str, Any]:
        problems = []
        out: dict[str, Any] = {}
        for f, t in asset.fields:
            if f not in given:
                if require_all:
                    problems.append(f"missing {f}")
                continue
            v = given[f]
            ok_type = (
                (t == "string" and isinstance(v, str))
                or (t in ("int", "uint") and isinstance(v, int) and not isinstance(v, bool))
                or (t == "bool" and isinstance(v, bool))
            )
            if t == "uint" and ok_type and v < 0:
                ok_type = False
            if not ok_type:
                problems.append(f"{f} must be {'a string' if t == 'string' else 'an ' + t}")
            else:
                out[f] = v
        unknown = [k for k in given if k not in dict(asset.fields)]
        if unknown:
            problems.append("unknown " + ", ".join(sorted(unknown)))
        if problems:
            raise fail(
                400,
                f"{action} {asset.contract} Argument Validation Error",
                "Missing args or bad format: " + "; ".join(problems),
            )
        return out

    async def create_asset(self, request: Request) -> Response:
        app, asset = self.asset_of(request)
        body = await self.api.json_body(request)
        if not isinstance(body, dict):
            raise fail(
                400,
                f"Create {asset.contract} Argument Validation Error",
                "Missing args or bad format: the body must be an object",
            )
        given = body.get(f"{asset.name}Args", body)
        if not isinstance(given, dict):
            raise fail(
                400,
                f"Create {asset.contract} Argument Validation Error",
                f"Missing args or bad format: {asset.name}Args must be an object",
            )
        given = {k: v for k, v in given.items() if k != "isPublic"}
        values = self._field_values(asset, given, "Create", require_all=True)
        user = request.state.user
        sender = self.api.sender_of(user)
        cert = self.ledger.cert_of_user(user)
        if cert is None:
            raise fail(400, f"user {user} has no registered identity")
        body_chain = {
            "label": f"{asset.name}-{int(time.time() * 1000)}-chain",
            "codePtr": {"account": app.address, "name": asset.contract},
            "parentChain": app.realm,
            "args": {"_appChainId": app.realm, **{f"_{k}": v for k, v in values.items()}},
            "members": [{"orgName": cert["organization"], "access": True}],
            # with --gas the owner pays for updates on the shard: give it the faucet's amount
            "balances": [
                {"address": sender, "balance": SHARD_BALANCE if self.ledger.config.gas else 1}
            ],
            "metadata": {"VM": "SolidVM", "history": asset.contract},
        }
        try:
            chain = await self.ledger.create_chain(user, sender, body_chain)
        except ApiError as exc:
            if exc.status == 403:
                raise fail(403, f"user {user} is not a member of application {app.name}") from None
            raise
        return ok(
            {
                "name": asset.contract,
                "address": GOVERNANCE_HEX,
                "chainIds": [chain],
                "id": f"{GOVERNANCE_HEX}:{chain}",
            }
        )

    async def _call(self, request: Request, chain: str, method: str, args: dict[str, Any]) -> Any:
        user = request.state.user
        sender = self.api.sender_of(user)
        tx = {
            "type": "FUNCTION",
            "payload": {
                "contractAddress": GOVERNANCE_HEX,
                "method": method,
                "args": args,
                "chainid": chain,
            },
        }
        results = await self.ledger.submit(user, sender, [tx], None, "", True)
        res = results[0]
        if res["status"] != "Success":
            raise fail(422, f"{method} failed: {res['txResult']['message']}")
        return res["data"]["contents"]

    def _target(self, body: dict[str, Any], asset: AssetDef, action: str) -> str:
        raw = body.get("chainId") or body.get("id")
        if not isinstance(raw, str):
            raise fail(
                400,
                f"{action} {asset.contract} Argument Validation Error",
                "Missing args or bad format: chainId (or id) is required",
            )
        try:
            return self._parse_id(raw)
        except ApiError:
            raise fail(
                400,
                f"{action} {asset.contract} Argument Validation Error",
                "Missing args or bad format: chainId must be 64 hex digits",
            ) from None

    async def update_asset(self, request: Request) -> Response:
        app, asset = self.asset_of(request)
        body = await self.api.json_body(request)
        if not isinstance(body, dict):
            raise fail(
                400,
                f"Update {asset.contract} Argument Validation Error",
                "Missing args or bad format: the body must be an object",
            )
        chain = self._target(body, asset, "Update")
        updates = body.get("updates")
        if updates is None:
            updates = {k: v for k, v in body.items() if k not in ("address", "chainId", "id")}
        if not isinstance(updates, dict) or not updates:
            raise fail(
                400,
                f"Update {asset.contract} Argument Validation Error",
                "Missing args or bad format: updates must name at least one field",
            )
        values = self._field_values(asset, updates, "Update", require_all=False)
        current = await self._one(app, asset, chain, request.state.user)
        n = len(asset.fields)
        scheme = 0
        args: dict[str, Any] = {}
        for i, (f, _) in enumerate(asset.fields):
            if f in values:
                scheme |= 1 << (n - 1 - i)
                args[f"_{f}"] = values[f]
            else:
                args[f"_{f}"] = current.get(f)
        args["_scheme"] = scheme
        contents = await self._call(request, chain, "update", args)
        if contents and contents[0] == "403":
            raise fail(403, f"only the owner of this {asset.name} can update it")
        return ok(contents)

    async def transfer(self, request: Request) -> Response:
        app, asset = self.asset_of(request)
        body = await self.api.json_body(request)
        if not isinstance(body, dict):
            raise fail(
                400,
                f"Transfer Ownership {asset.contract} Argument Validation Error",
                "Missing args or bad format: the body must be an object",
            )
        chain = self._target(body, asset, "Transfer Ownership")
        new_owner = body.get("newOwner")
        if isinstance(new_owner, str) and self.ledger.key_of(new_owner) is not None:
            key = self.ledger.key_of(new_owner)
            assert key is not None
            new_owner = key["address"]
        try:
            owner_addr = norm_address(new_owner, "newOwner")
        except ApiError:
            raise fail(
                400,
                f"Transfer Ownership {asset.contract} Argument Validation Error",
                "Missing args or bad format: newOwner must be an address or a user name",
            ) from None
        await self._one(app, asset, chain, request.state.user)
        contents = await self._call(request, chain, "transferOwnership", {"_addr": owner_addr})
        if contents and contents[0] != "200":
            raise fail(
                int(contents[0]) if contents[0] in ("403", "404") else 400,
                {
                    "403": "only the owner can transfer this asset",
                    "404": "the new owner has no registered identity",
                }.get(contents[0], f"transfer refused ({contents[0]})"),
            )
        if self.ledger.chain_balance(chain, owner_addr) < SHARD_BALANCE // 2:
            self.ledger.fund_on_chain(chain, owner_addr)  # only with --gas
        return ok(contents)


__all__ = ["App", "AppManager", "QueryError"]
