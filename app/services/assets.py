"""Generated asset applications for the Assets panel: list, read, create, update, transfer.

The node's ``/apps`` lists the sandbox's applications with their typed fields; an application
of a STRATO network is opened by the URL of an asset route (its fields are given or read from
the rows it lists). Every write has a preview (the exact request, for the confirmation sheet)
and is sent through the application's routes; an ``update`` can instead call the asset
contract's ``update(fields..., _scheme)`` directly on its shard, where the scheme's bit order
matters: the seed's (leftmost bit = first field) for the sandbox's apps, a choice kept per
connection profile (``Profile.extra["asset_scheme_order"]``) for foreign ones.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.client.assets import (
    GOVERNANCE_ADDRESS,
    AssetApp,
    AssetError,
    AssetRecord,
    AssetType,
    SchemeOrder,
    TimelineEntry,
    asset_timeline,
    infer_fields,
    parse_app_url,
    parse_field_spec,
    scheme_binary,
    scheme_value,
)
from app.client.errors import AuthError, RequestError, StratoError, TransactionFailed
from app.client.models import TxRequest, TxResult

from .chains import ChainInfo, ChainService, Identity
from .composer import Preview
from .profiles import ProfileStore
from .session import Session

SCHEME_ORDER_KEY = "asset_scheme_order"  # Profile.extra: {app key: "seed" | "platform"}
LIST_LIMIT = 1000


@dataclass
class AssetList:
    """What the panel shows for one asset type: the assets the user sees, and who is who."""

    app: AssetApp
    asset: AssetType
    records: list[AssetRecord]
    total: int
    identities: list[Identity] = field(default_factory=list)
    me: str = ""  # the signed-in user's address
    create_refusal: str = ""  # why the node would refuse this user a new asset ("" = it may not)


@dataclass
class AssetDetail:
    """One asset with its shard and its history."""

    record: AssetRecord
    chain: ChainInfo | None
    timeline: list[TimelineEntry]
    note: str = ""  # why something could not be read


@dataclass(frozen=True)
class UpdatePlan:
    """An update as the dialog builds it: the new values and how they are sent."""

    values: dict[str, Any]  # only the fields to change
    order: SchemeOrder
    via: str = "app"  # "app": PUT .../update; "contract": update(...) on the shard

    def scheme(self, asset: AssetType) -> int:
        return scheme_value(asset.field_names, self.values, self.order)

    def scheme_text(self, asset: AssetType) -> str:
        n = self.scheme(asset)
        return f"{scheme_binary(n, len(asset.fields))} = {n}"


class AssetService(QObject):
    """Signals: changed(str): an asset this app created or changed (its shard's ID)."""

    changed = Signal(str)

    def __init__(
        self,
        session: Session,
        parent: QObject | None = None,
        *,
        chains: ChainService | None = None,
        profiles: ProfileStore | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.chains = chains or ChainService(session, self)
        self.profiles = profiles
        self._orders: dict[str, SchemeOrder] = {}  # read from the stored profile

    def _client(self) -> Any:
        if self.session.client is None:
            raise AuthError("not connected")
        return self.session.client

    # ------------------------------------------------------------ applications

    async def apps(self) -> list[AssetApp]:
        """The applications the node lists (none on a node without ``/apps``)."""
        await self._load_orders()
        try:
            data = await self._client().asset_apps()
        except RequestError as exc:
            if exc.status in (404, 405):
                return []
            raise
        out = []
        for d in data:
            try:
                out.append(AssetApp.from_json(d))
            except AssetError:
                continue
        return out

    async def open_url(self, url: str, fields: str = "") -> AssetApp:
        """An application by the URL of one asset route; its fields as ``fields`` gives them
        (``vin:string, weight:int``), else read from the assets it lists."""
        client = self._client()
        base, name = parse_app_url(url, client.base_url)
        if fields.strip():
            typed = parse_field_spec(fields)
        else:
            rows, _ = await client.assets(base, name, [("limit", "20")])
            typed = infer_fields(rows)
            if not typed:
                raise AssetError(
                    f"{url} lists no {name} yet, so its fields are unknown: type them "
                    "(e.g. vin:string, weight:int), in the contract's order"
                )
        app_name = base.rstrip("/").rsplit("/", 1)[-1] or base
        await self._load_orders()
        return AssetApp(app_name, base, (AssetType(name, typed),), foreign=True)

    # ------------------------------------------------------------ scheme order

    def scheme_order(self, app: AssetApp) -> SchemeOrder:
        """The bit order chosen for ``app`` on this profile; by default the seed's for the
        node's own applications and the platform's for foreign ones."""
        profile = self.session.profile
        stored = (profile.extra.get(SCHEME_ORDER_KEY) if profile else None) or {}
        order = stored.get(app.key) if isinstance(stored, dict) else None
        order = order or self._orders.get(app.key)
        if order in ("seed", "platform"):
            return order
        return "platform" if app.foreign else "seed"

    async def set_scheme_order(self, app: AssetApp, order: SchemeOrder) -> None:
        """Remember the choice in the profile (``extra``), saved with the profiles."""
        profile = self.session.profile
        self._orders[app.key] = order
        if profile is None:
            return
        orders = dict(profile.extra.get(SCHEME_ORDER_KEY) or {})
        orders[app.key] = order
        profile.extra = {**profile.extra, SCHEME_ORDER_KEY: orders}
        store = self.profiles
        if store is None:
            return

        def save() -> None:
            saved = next((p for p in store.load() if p.name == profile.name), None)
            base = saved if saved is not None else profile
            merged = dict(base.extra.get(SCHEME_ORDER_KEY) or {})
            merged[app.key] = order
            store.upsert(replace(base, extra={**base.extra, SCHEME_ORDER_KEY: merged}))

        await asyncio.to_thread(save)

    async def _load_orders(self) -> None:
        """The stored profile's choices (the sandbox's profile is rebuilt at every start)."""
        profile, store = self.session.profile, self.profiles
        if profile is None or store is None:
            return
        try:
            saved = await asyncio.to_thread(store.load)
        except Exception:  # an unreadable profiles file: the controller reports it
            return
        stored = next((p for p in saved if p.name == profile.name), None)
        orders = stored.extra.get(SCHEME_ORDER_KEY) if stored is not None else None
        if isinstance(orders, dict):
            self._orders.update({str(k): v for k, v in orders.items() if v in ("seed", "platform")})

    # ------------------------------------------------------------ reads

    async def identities(self) -> list[Identity]:
        try:
            return await self.chains.identities()
        except StratoError:  # no identity registry: names are a nicety
            return []

    async def list(self, app: AssetApp, asset: AssetType) -> AssetList:
        """The assets of one type the signed-in user can see, newest first."""
        client = self._client()
        identities = await self.identities()
        names = {i.address: i.common_name for i in identities if i.address}
        rows, total = await client.assets(app.base, asset.name, [("limit", str(LIST_LIMIT))])
        records = [AssetRecord.from_row(r, asset, names) for r in rows]
        records.sort(key=lambda r: (-r.block_number, r.chain_id))
        try:
            acct = await client.get_key()
        except StratoError:  # no key readable: no asset is marked as the user's own
            acct = None
        me = acct.address if acct is not None else ""
        refusal = await self.create_refusal(app, asset, identities, me)
        return AssetList(app, asset, records, total, identities, me, refusal)

    async def create_refusal(
        self, app: AssetApp, asset: AssetType, identities: Sequence[Identity], me: str
    ) -> str:
        """Why the node would refuse this user a new asset, read from what it serves: an
        application creates a shard under its realm chain, for a user with a certificate whose
        organization is a member of that realm (the node lists a chain only to its members).
        "" when nothing says so (the node has the last word)."""
        user = self.session.username or "this user"
        mine = next((i for i in identities if me and i.address == me), None)
        if identities and mine is None:  # the registry is readable and does not name the user
            return (
                f"{user} has no registered identity (certificate) on this node, and an "
                f"application creates a {asset.name} only for a user with one"
            )
        if not app.realm or app.foreign:
            return ""
        try:
            realm = await self.chains.chain(app.realm)
        except StratoError as exc:
            if exc.status != 403:  # unknown: let the node answer the request
                return ""
            realm = None  # "not a member of chain …"
        if realm is None:
            org = mine.organization if mine is not None and mine.organization else user
            return (
                f"{org} is not a member of {app.name}: the node refuses {user} a new {asset.name}"
            )
        return ""

    async def detail(
        self, app: AssetApp, asset: AssetType, record: AssetRecord, names: dict[str, str]
    ) -> AssetDetail:
        """The asset as it is now, its shard (members), and its ownership and field history."""
        client = self._client()
        notes = []
        row = await client.asset(app.base, asset.name, record.address, record.chain_id)
        current = AssetRecord.from_row(row, asset, names) if row else record
        try:
            chain = await self.chains.chain(record.chain_id)
        except StratoError as exc:
            chain = None
            notes.append(f"its shard cannot be read: {exc}")
        try:
            rows = await client.asset_audit(app.base, asset.name, record.address, record.chain_id)
        except StratoError as exc:
            rows = []
            notes.append(f"its history cannot be read: {exc}")
        if not rows and not notes:
            notes.append("no history: the application keeps none for this asset")
        return AssetDetail(current, chain, asset_timeline(rows, asset, names), "; ".join(notes))

    # ------------------------------------------------------------ writes

    def _url(self, path: str) -> str:
        client = self._client()
        return path if path.startswith(("http://", "https://")) else f"{client.base_url}{path}"

    def create_preview(self, app: AssetApp, asset: AssetType, values: dict[str, Any]) -> Preview:
        realm = f"realm {app.realm[:12]}…" if app.realm else "the application's realm"
        return Preview(
            "POST",
            self._url(app.url(asset)),
            {f"{asset.name}Args": dict(values)},
            self.session.username,
            f"a new shard (private chain) under {realm}",
        )

    async def create(self, app: AssetApp, asset: AssetType, values: dict[str, Any]) -> str:
        """Create the asset; the ID of its new shard."""
        data = await self._client().create_asset(app.base, asset.name, values)
        chains = data.get("chainIds") if isinstance(data, dict) else None
        chain = str(chains[0]) if isinstance(chains, list) and chains else ""
        self.changed.emit(chain)
        return chain

    def _update_tx(self, asset: AssetType, record: AssetRecord, plan: UpdatePlan) -> TxRequest:
        args: dict[str, Any] = {
            f"_{f}": plan.values.get(f, record.values.get(f)) for f in asset.field_names
        }
        args["_scheme"] = plan.scheme(asset)
        return TxRequest.call(
            record.address or GOVERNANCE_ADDRESS,
            "update",
            args,
            contract_name=asset.contract_name,
        )

    def update_preview(
        self, app: AssetApp, asset: AssetType, record: AssetRecord, plan: UpdatePlan
    ) -> Preview:
        shard = f"the asset's shard {record.chain_id}"
        if plan.via == "contract":
            client = self._client()
            body = {"txs": [self._update_tx(asset, record, plan).to_json()]}
            url = (
                f"{client.base_url}{client.svc_prefix()}/transaction"
                f"?resolve=true&chainid={record.chain_id}"
            )
            return Preview("POST", url, body, self.session.username, shard)
        return Preview(
            "PUT",
            self._url(app.url(asset, "update")),
            {"address": record.address, "chainId": record.chain_id, "updates": dict(plan.values)},
            self.session.username,
            shard,
        )

    async def update(
        self, app: AssetApp, asset: AssetType, record: AssetRecord, plan: UpdatePlan
    ) -> str:
        """Change the plan's fields; a sentence saying what happened."""
        if not plan.values:
            raise AssetError("choose at least one field to change")
        client = self._client()
        if plan.via == "contract":
            (res,) = await client.submit(
                [self._update_tx(asset, record, plan)], resolve=True, chain_id=record.chain_id
            )
            _check_call(res, "update")
        else:
            await client.update_asset(
                app.base, asset.name, record.address, record.chain_id, plan.values
            )
        self.changed.emit(record.chain_id)
        return f"updated {', '.join(plan.values)} (scheme {plan.scheme_text(asset)})"

    def transfer_preview(
        self, app: AssetApp, asset: AssetType, record: AssetRecord, new_owner: str
    ) -> Preview:
        return Preview(
            "POST",
            self._url(app.url(asset, "transferOwnership")),
            {"address": record.address, "chainId": record.chain_id, "newOwner": new_owner},
            self.session.username,
            f"the asset's shard {record.chain_id}",
        )

    async def transfer(
        self, app: AssetApp, asset: AssetType, record: AssetRecord, new_owner: str
    ) -> None:
        await self._client().transfer_asset(
            app.base, asset.name, record.address, record.chain_id, new_owner
        )
        self.changed.emit(record.chain_id)


def _check_call(res: TxResult, method: str) -> None:
    """A contract call's result: a failure, or a generated contract's refusal code."""
    if res.status != "Success":
        raise TransactionFailed(
            res.message or f"{method} failed", method="POST", url="/transaction"
        )
    values = [str(v) for v in res.values]
    if values and values[0] not in ("200", ""):
        reasons = {"403": "only the asset's owner can change it", "404": "not found"}
        raise TransactionFailed(
            f"{method} answered {values[0]}: {reasons.get(values[0], 'refused')}",
            method="POST",
            url="/transaction",
        )
