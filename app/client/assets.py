"""Generated asset applications, as the desktop client sees them: pure Python, no Qt, no HTTP.

* :class:`AssetApp` / :class:`AssetType` / :class:`AssetField`: an application (the sandbox's
  ``/apps`` listing, or an application URL typed by the user), its asset types and typed fields;
* the ``update`` **scheme**: which bit stands for which field. The seed reads the scheme as a
  binary string in field order, leftmost bit = first field (``"seed"``); the real platform's
  generated contract tests ``1 << i`` for field ``i``, first field = least significant bit
  (``"platform"``). See DESIGN.md's decision table;
* :class:`AssetRecord`: one row of an application's list (or of its Cirrus table);
* :func:`compile_filter`: the Cirrus query model's conditions (``app.client.cirrus_query``)
  evaluated on rows with PostgREST's semantics (typed comparisons, ``like``/``ilike`` patterns,
  ``in``, ``is``, ``not``, nested groups and SQL's three-valued logic for NULLs), so a filter
  line means on the client what it means on ``/cirrus/search/<Org>-<App>-<Asset>``;
* :func:`asset_timeline`: ownership and field changes from an asset's audit (history) rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from .cirrus_query import STANDARD_COLUMNS, CirrusQuery, CirrusQueryError, Condition, Group
from .errors import StratoError

SchemeOrder = Literal["seed", "platform"]
SCHEME_ORDERS: tuple[SchemeOrder, ...] = ("seed", "platform")
SCHEME_ORDER_LABELS: dict[SchemeOrder, str] = {
    "seed": "first field = leftmost bit (seed, sandbox apps)",
    "platform": "first field = lowest bit (STRATO asset framework)",
}

GOVERNANCE_ADDRESS = "0000000000000000000000000000000000000100"  # every asset's address
#: Ownership columns of every generated asset contract (seed 001, reference 5).
OWNERSHIP_FIELDS: tuple[str, ...] = (
    "owner",
    "appChainId",
    "ownerOrganization",
    "ownerOrganizationalUnit",
    "ownerCommonName",
)
#: Field type spellings of application definitions, by the value type they hold.
FIELD_TYPES: dict[str, str] = {
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
_INT_RE = re.compile(r"[+-]?[0-9][0-9_]*")
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class AssetError(StratoError):
    """Input about an asset application that cannot be used; the message says why."""


# ---------------------------------------------------------------------------- scheme


def scheme_bit(index: int, count: int, order: SchemeOrder) -> int:
    """The bit that selects field ``index`` (0-based, declaration order) of ``count`` fields."""
    if not 0 <= index < count:
        raise AssetError(f"field {index} of {count} does not exist")
    return 1 << (count - 1 - index) if order == "seed" else 1 << index


def scheme_value(fields: Sequence[str], selected: Iterable[str], order: SchemeOrder) -> int:
    """The ``_scheme`` argument of ``update`` that changes exactly the ``selected`` fields."""
    chosen = set(selected)
    unknown = chosen - set(fields)
    if unknown:
        raise AssetError(f"no such field: {', '.join(sorted(unknown))}")
    n = len(fields)
    value = 0
    for i, f in enumerate(fields):
        if f in chosen:
            value |= scheme_bit(i, n, order)
    return value


def scheme_fields(fields: Sequence[str], value: int, order: SchemeOrder) -> list[str]:
    """The fields a ``_scheme`` value selects (the inverse of :func:`scheme_value`)."""
    n = len(fields)
    if value < 0 or value >= 1 << n:
        raise AssetError(f"a scheme for {n} fields is between 0 and {(1 << n) - 1}")
    return [f for i, f in enumerate(fields) if value & scheme_bit(i, n, order)]


def scheme_binary(value: int, count: int) -> str:
    """The scheme as a binary string of ``count`` digits, most significant first."""
    return format(value, f"0{count}b") if count else ""


# ---------------------------------------------------------------------------- applications


@dataclass(frozen=True)
class AssetField:
    name: str
    type: str  # "string", "int", "uint" or "bool"

    @property
    def numeric(self) -> bool:
        return self.type in ("int", "uint")


@dataclass(frozen=True)
class AssetType:
    """One asset type of an application: route name (``car``), contract (``Car``), fields."""

    name: str
    fields: tuple[AssetField, ...]
    contract: str = ""

    @property
    def contract_name(self) -> str:
        return self.contract or (self.name[:1].upper() + self.name[1:])

    @property
    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]

    def field(self, name: str) -> AssetField | None:
        return next((f for f in self.fields if f.name == name), None)

    def column_types(self) -> dict[str, str]:
        """Every column a row of this asset has, with its type (``string``/``int``/``bool``)."""
        types = dict.fromkeys((*STANDARD_COLUMNS, *OWNERSHIP_FIELDS), "string")
        types["block_number"] = "int"
        types.update({f.name: "int" if f.numeric else f.type for f in self.fields})
        return types


@dataclass(frozen=True)
class AssetApp:
    """An asset application: where its routes are (``base``: ``/apps/CarDemo`` on the node, or
    an absolute URL such as ``https://host:3030/api/v1``) and its asset types.

    ``foreign`` marks an application typed by the user rather than listed by the node's
    ``/apps``: its contract may number the scheme bits the platform's way.
    """

    name: str
    base: str
    assets: tuple[AssetType, ...]
    organization: str = ""
    realm: str = ""
    creator: str = ""
    address: str = ""
    foreign: bool = False

    @classmethod
    def from_json(cls, d: Mapping[str, Any], base: str = "") -> AssetApp:
        """An entry of the node's ``/apps`` list."""
        name = str(d.get("name") or "")
        if not _IDENT_RE.fullmatch(name):
            raise AssetError(f"an application needs a name, not {name!r}")
        assets = []
        raw_assets = d.get("assets")
        for a in raw_assets if isinstance(raw_assets, list) else []:
            if not isinstance(a, dict) or not isinstance(a.get("name"), str):
                continue
            raw_fields = a.get("fields")
            fields = tuple(
                AssetField(str(k), FIELD_TYPES.get(str(t).lower(), "string"))
                for k, t in (raw_fields.items() if isinstance(raw_fields, dict) else ())
            )
            assets.append(AssetType(a["name"], fields, str(a.get("contract") or "")))
        return cls(
            name,
            base or f"/apps/{name}",
            tuple(assets),
            organization=str(d.get("organization") or ""),
            realm=str(d.get("realmChainId") or ""),
            creator=str(d.get("creator") or ""),
            address=str(d.get("address") or ""),
        )

    @property
    def key(self) -> str:
        """What per-profile choices about this application are stored under."""
        return self.base if self.foreign else self.name

    def asset(self, name: str) -> AssetType | None:
        return next((a for a in self.assets if a.name == name), None)

    def table(self, asset: AssetType) -> str:
        """The asset's Cirrus table ``<Org>-<App>-<Asset>``; "" when the org is unknown."""
        if not self.organization:
            return ""
        return f"{self.organization}-{self.name}-{asset.contract_name}"

    def url(self, asset: AssetType, *rest: str) -> str:
        return "/".join([self.base.rstrip("/"), asset.name, *rest])


def parse_app_url(text: str, node_url: str = "") -> tuple[str, str]:
    """``(base, asset)`` of an asset route typed by the user: ``https://h/api/v1/car``,
    ``/apps/CarDemo/car`` or the node's own ``http://node/apps/CarDemo/car``. A URL on the
    connected node becomes a path, so it is sent with the node's base URL."""
    raw = text.strip().rstrip("/")
    if not raw:
        raise AssetError("type the URL of an asset route, e.g. https://host:3030/api/v1/car")
    parts = urlsplit(raw)
    if parts.scheme and parts.scheme not in ("http", "https"):
        raise AssetError("an application URL starts with http://, https:// or /")
    if not parts.scheme and not raw.startswith("/"):
        raise AssetError("an application URL starts with http://, https:// or /")
    if parts.query or parts.fragment:
        raise AssetError("leave out the query string: the URL of the asset route is enough")
    base, _, asset = raw.rpartition("/")
    if not _IDENT_RE.fullmatch(asset) or not base or (parts.scheme and not parts.path.strip("/")):
        raise AssetError(
            "the URL must end with the asset's name, as in .../api/v1/car or /apps/CarDemo/car"
        )
    node = node_url.rstrip("/")
    if node and base.startswith(node + "/"):
        base = base[len(node) :]
    return base, asset


def parse_field_spec(text: str) -> tuple[AssetField, ...]:
    """``vin:string, weight:int`` -> fields in the order given (that order numbers the bits)."""
    out: list[AssetField] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, colon, typ = (s.strip() for s in part.partition(":"))
        if not _IDENT_RE.fullmatch(name):
            raise AssetError(f"{name!r} is not a field name")
        kind = FIELD_TYPES.get((typ if colon else "string").lower())
        if kind is None:
            raise AssetError(f"field {name}: unknown type {typ!r} (string, int, uint or bool)")
        if any(f.name == name for f in out):
            raise AssetError(f"field {name} is named twice")
        out.append(AssetField(name, kind))
    if not out:
        raise AssetError("name the fields, e.g. vin:string, color:string, weight:int")
    return tuple(out)


def infer_fields(rows: Iterable[Mapping[str, Any]]) -> tuple[AssetField, ...]:
    """An asset's fields read from rows of its list: the columns that are neither Cirrus's row
    columns nor ownership fields, in the order the rows have them, typed by their values."""
    skip = set(STANDARD_COLUMNS) | set(OWNERSHIP_FIELDS) | {"id"}
    fields: dict[str, str] = {}
    for row in rows:
        for k, v in row.items():
            if k in skip or not _IDENT_RE.fullmatch(k):
                continue
            if isinstance(v, bool):
                kind = "bool"
            elif isinstance(v, int):
                kind = "int"
            elif isinstance(v, (str, type(None))):
                kind = "string"
            else:
                continue  # arrays, joined rows: not a settable field
            if fields.get(k) in (None, "string") and v is not None:
                fields[k] = kind
            fields.setdefault(k, kind)
    return tuple(AssetField(k, t) for k, t in fields.items())


def parse_value(f: AssetField, text: str | bool) -> str | int | bool:
    """A form's entry for field ``f`` as the JSON value the application wants."""
    if f.type == "bool":
        if isinstance(text, bool):
            return text
        low = str(text).strip().lower()
        if low in ("true", "yes", "1"):
            return True
        if low in ("false", "no", "0"):
            return False
        raise AssetError(f"{f.name} is true or false, not {text!r}")
    if isinstance(text, bool):
        raise AssetError(f"{f.name} is not a true/false field")
    if f.type == "string":
        return text
    s = text.strip()
    if not _INT_RE.fullmatch(s):
        what = "a whole number of 0 or more" if f.type == "uint" else "a whole number"
        raise AssetError(f"{f.name} must be {what}, not {text!r}" if s else f"enter {f.name}")
    n = int(s.replace("_", ""))
    if f.type == "uint" and n < 0:
        raise AssetError(f"{f.name} cannot be negative")
    return n


# ---------------------------------------------------------------------------- records


def _text(v: Any) -> str:
    return "" if v is None else str(v)


def _hex(v: Any) -> str:
    return _text(v).strip().lower().removeprefix("0x")


@dataclass(frozen=True)
class AssetRecord:
    """One asset as its application lists it (``row`` keeps every column)."""

    chain_id: str
    address: str
    owner: str
    owner_name: str
    organization: str
    unit: str
    values: dict[str, Any]
    block_number: int = -1
    row: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def from_row(
        cls, row: Mapping[str, Any], asset: AssetType, names: Mapping[str, str] | None = None
    ) -> AssetRecord:
        owner = _hex(row.get("owner"))
        chain = _hex(row.get("chainId"))
        address = _hex(row.get("address")) or GOVERNANCE_ADDRESS
        record = _text(row.get("record_id"))
        if not chain and ":" in record:
            address, _, chain = (_hex(p) for p in record.partition(":"))
        name = (names or {}).get(owner) or _text(row.get("ownerCommonName"))
        block = _text(row.get("block_number"))
        return cls(
            chain,
            address,
            owner,
            name,
            _text(row.get("ownerOrganization")),
            _text(row.get("ownerOrganizationalUnit")),
            {f.name: row.get(f.name) for f in asset.fields},
            int(block) if block.isdigit() else -1,
            dict(row),
        )

    @property
    def owner_label(self) -> str:
        """``bob`` or a shortened address when no identity names the owner."""
        if self.owner_name:
            return self.owner_name
        return f"{self.owner[:8]}…" if self.owner else "?"

    def title(self, asset: AssetType) -> str:
        """A card's heading: the first string field's value, else the shard's ID."""
        for f in asset.fields:
            v = self.values.get(f.name)
            if f.type == "string" and v:
                return str(v)
        return f"{asset.name} {self.chain_id[:10]}…"


# ---------------------------------------------------------------------------- filters


class FilterError(AssetError):
    """A filter that cannot be evaluated on the asset's columns; the message says why."""


Truth = bool | None  # SQL's three values: true, false, unknown (a NULL took part)


def parse_filter(text: str, table: str = "asset") -> Group:
    """The conditions of a Cirrus query string (``color=eq.red&or=(weight.gt.10,...)``, the
    Tables panel's syntax); ``select``/``order``/``limit`` have no meaning here and are refused."""
    text = text.strip().lstrip("?")
    if not text:
        return Group("and", [])
    if text.startswith(("http://", "https://", "/cirrus/")):
        q = CirrusQuery.from_url(text)
    else:
        q = CirrusQuery.from_query_string(table, text)
    if q.select or q.embeds or q.count or q.order or q.limit is not None or q.offset is not None:
        raise FilterError("only conditions filter the assets (no select, order, limit, offset)")
    return q.where


def search_group(text: str, asset: AssetType) -> Group:
    """Free text: ``ilike *text*`` on every string field and on the owner's name and org."""
    words = text.strip()
    if not words:
        return Group("and", [])
    cols = [f.name for f in asset.fields if f.type == "string"]
    cols += ["ownerCommonName", "ownerOrganization"]
    return Group("or", [Condition(c, "ilike", f"*{words}*") for c in cols])


def like_regex(pattern: str, ignore_case: bool) -> re.Pattern[str]:
    """PostgREST's like pattern (``*`` or ``%`` any run, ``_`` one character) as a regex."""
    out = []
    for ch in pattern:
        if ch in ("*", "%"):
            out.append(".*")
        elif ch == "_":
            out.append(".")
        else:
            out.append(re.escape(ch))
    return re.compile("".join(out), re.DOTALL | (re.IGNORECASE if ignore_case else 0))


def _typed(value: str, kind: str, column: str) -> Any:
    if kind == "int":
        v = value.strip()
        if not _INT_RE.fullmatch(v) or "_" in v:
            raise FilterError(f"{column} is a number: {value!r} is not one")
        return int(v)
    if kind == "bool":
        low = value.strip().lower()
        if low in ("true", "t", "1", "yes"):
            return True
        if low in ("false", "f", "0", "no"):
            return False
        raise FilterError(f"{column} is true or false: {value!r} is neither")
    return value


def _row_value(v: Any, kind: str) -> Any:
    """A row's value as the column's type (rows may carry numbers as strings)."""
    if v is None:
        return None
    if kind == "int" and not isinstance(v, bool):
        if isinstance(v, int):
            return v
        s = str(v).strip()
        return int(s) if _INT_RE.fullmatch(s) and "_" not in s else None
    if kind == "bool":
        if isinstance(v, bool):
            return v
        return str(v).strip().lower() in ("true", "1")
    return v if isinstance(v, str) else str(v)


Matcher = Callable[[Mapping[str, Any]], Truth]


def _condition(c: Condition, types: Mapping[str, str]) -> Matcher:
    kind = types.get(c.column)
    if kind is None:
        raise FilterError(f"there is no column {c.column!r} (columns: {', '.join(types)})")
    col = c.column
    op = c.op
    if op == "is":
        want = c.value
        if want not in ("null", "true", "false"):
            raise FilterError(f"{col}=is. takes null, true or false")
        if want != "null" and kind != "bool":
            raise FilterError(f"{col} is not a true/false column: use is.null")

        def is_test(v: Any) -> Truth:
            if want == "null":
                return v is None
            return v is (want == "true")  # NULL is neither true nor false: false, not unknown

        return _negated(col, kind, is_test, c.negate, null_aware=True)
    if op in ("like", "ilike"):
        if kind != "string":
            raise FilterError(
                f"{op} compares text; {col} is a {'number' if kind == 'int' else kind}"
            )
        rx = like_regex(str(c.value or ""), op == "ilike")

        def like_test(v: Any) -> Truth:
            return rx.fullmatch(v) is not None

        return _negated(col, kind, like_test, c.negate)
    if op == "in":
        values = c.value if isinstance(c.value, list) else [str(c.value or "")]
        members = {_typed(v, kind, col) for v in values}

        def in_test(v: Any) -> Truth:
            return v in members

        return _negated(col, kind, in_test, c.negate)
    compare: dict[str, Callable[[Any, Any], bool]] = {
        "eq": lambda a, b: bool(a == b),
        "neq": lambda a, b: bool(a != b),
        "lt": lambda a, b: bool(a < b),
        "lte": lambda a, b: bool(a <= b),
        "gt": lambda a, b: bool(a > b),
        "gte": lambda a, b: bool(a >= b),
    }
    fn = compare.get(op)
    if fn is None:
        raise FilterError(f"unknown operator {op!r}")
    target = _typed(str(c.value if c.value is not None else ""), kind, col)

    def cmp_test(v: Any) -> Truth:
        return fn(v, target)

    return _negated(col, kind, cmp_test, c.negate)


def _negated(
    col: str, kind: str, test: Callable[[Any], Truth], negate: bool, *, null_aware: bool = False
) -> Matcher:
    def match(row: Mapping[str, Any]) -> Truth:
        v = _row_value(row.get(col), kind)
        if v is None and not null_aware:
            return None  # NULL compared with anything is unknown, and so is its negation
        out = test(v)
        return (not out if out is not None else None) if negate else out

    return match


def _group(g: Group, types: Mapping[str, str]) -> Matcher:
    parts = [
        _group(item, types) if isinstance(item, Group) else _condition(item, types)
        for item in g.items
    ]

    def match(row: Mapping[str, Any]) -> Truth:
        values = [p(row) for p in parts]
        out: Truth
        if g.op == "and":
            out = False if False in values else (None if None in values else True)
        else:
            out = True if True in values else (None if None in values else False)
        if g.negate and out is not None:
            out = not out
        return out

    return match


def compile_filter(where: Group, types: Mapping[str, str]) -> Callable[[Mapping[str, Any]], bool]:
    """A predicate keeping the rows for which ``where`` is true (not false, not unknown)."""
    try:
        match = _group(where, types)
    except CirrusQueryError as exc:
        raise FilterError(str(exc)) from None
    return lambda row: match(row) is True


# ---------------------------------------------------------------------------- timeline


@dataclass(frozen=True)
class TimelineEntry:
    """One change of an asset: its creation, a field update or an ownership transfer."""

    kind: str  # "created", "updated", "transferred" (a transfer may change fields too)
    block_number: int
    timestamp: str
    tx_hash: str
    owner: str
    owner_name: str
    organization: str
    values: dict[str, Any]
    changes: tuple[tuple[str, Any, Any], ...] = ()  # (field, before, after)
    previous_owner_name: str = ""
    previous_organization: str = ""

    def describe(self) -> str:
        """The change in words, e.g. ``color: red → blue`` or ``owner alice → bob``."""
        parts: list[str] = []
        if self.kind == "created":
            vals = ", ".join(f"{k} = {_show(v)}" for k, v in self.values.items())
            return f"created by {self.owner_name or self.owner} ({self.organization}): {vals}"
        if self.kind == "transferred":
            moved = (
                f"; the shard moves from {self.previous_organization} to {self.organization}"
                if self.previous_organization != self.organization
                else f"; the shard stays with {self.organization}"
            )
            parts.append(f"owner {self.previous_owner_name} → {self.owner_name}{moved}")
        parts += [f"{k}: {_show(a)} → {_show(b)}" for k, a, b in self.changes]
        return "; ".join(parts) or "no visible change"

    def lines(self) -> list[str]:
        """The change as short lines (one per field), for a list that does not wrap."""
        if self.kind == "created":
            head = f"created by {self.owner_name or self.owner} ({self.organization})"
            return [head, *(f"{k} = {_show(v)}" for k, v in self.values.items())]
        out = []
        if self.kind == "transferred":
            out.append(f"owner {self.previous_owner_name} → {self.owner_name}")
            out.append(
                f"the shard moves from {self.previous_organization} to {self.organization}"
                if self.previous_organization != self.organization
                else f"the shard stays with {self.organization}"
            )
        out += [f"{k}: {_show(a)} → {_show(b)}" for k, a, b in self.changes]
        return out or ["no visible change"]


def _show(v: Any) -> str:
    return "∅" if v is None else str(v)


def asset_timeline(
    rows: Iterable[Mapping[str, Any]], asset: AssetType, names: Mapping[str, str] | None = None
) -> list[TimelineEntry]:
    """The audit (``history@``) rows of one asset, oldest first, as changes in words."""
    ordered = sorted(
        rows, key=lambda r: (_row_value(r.get("block_number"), "int") or 0, _text(r.get("id")))
    )
    out: list[TimelineEntry] = []
    before: AssetRecord | None = None
    for row in ordered:
        rec = AssetRecord.from_row(row, asset, names)
        kind = "created"
        changes: tuple[tuple[str, Any, Any], ...] = ()
        if before is not None:
            changes = tuple(
                (f, before.values.get(f), rec.values.get(f))
                for f in asset.field_names
                if before.values.get(f) != rec.values.get(f)
            )
            kind = "transferred" if before.owner != rec.owner else "updated"
        out.append(
            TimelineEntry(
                kind,
                rec.block_number,
                _text(row.get("block_timestamp")),
                _hex(row.get("transaction_hash")),
                rec.owner,
                rec.owner_label,
                rec.organization,
                dict(rec.values),
                changes,
                before.owner_label if before is not None else "",
                before.organization if before is not None else "",
            )
        )
        before = rec
    return out
