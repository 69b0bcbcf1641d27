"""``GET /strato-api/eth/v1.2/storage``: contract storage as STRATO 16 keeps it, one row per
stored leaf, searchable.

The platform stores SolidVM state as paths (``x``, ``s.f``, ``m[<key>]``, ``a.length``,
``a[0]``) to basic values and renders each value as SolidVM source would write it: ``123``,
``true``, ``"text"`` with its quotes, ``address(<hex>)``, ``Enum.Name.N``,
``Contract(<hex>)``, ``hex"…"`` for raw bytes. A leaf at its default value is not stored. The
sandbox keeps typed storage; this module flattens it into those rows (as committed) and applies
the route's filters: ``key``/``minkey``/``maxkey`` compare the path text, ``value``/
``minvalue``/``maxvalue`` the value text, ``search`` is a case-sensitive LIKE ``%term%`` (any of
the comma-separated terms) over the address, the contract's name, the path and the value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import bad_request
from .ledger.common import norm_address
from .ledger.readview import CommittedView
from .numbers import is_ascii_digits
from .solidvm.proxies import delegated_vars
from .solidvm.types import (
    AccountType,
    AddressType,
    ArrayType,
    BoolType,
    BytesType,
    ContractType,
    DecimalType,
    EnumType,
    IntType,
    MappingType,
    StringType,
    StructType,
    Type,
)
from .solidvm.values import Address, DecimalValue, Digest, TextBytes
from .solidvm.world import AccountState

FETCH_LIMIT = 1000  # the platform's appFetchLimit: the cap without ``address``
_FIELD = re.compile(r"[_a-zA-Z0-9]+")


# ------------------------------------------------------------ the platform's texts


def hs_show(s: str) -> str:
    """Haskell's ``show`` of a string: how the platform stores a string value (and compares it)."""
    out = ['"']
    names = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\", '"': '\\"', "\a": "\\a"}
    names |= {"\b": "\\b", "\f": "\\f", "\v": "\\v"}
    pending_digit_guard = False
    for ch in s:
        if pending_digit_guard and ch.isascii() and ch.isdigit():
            out.append("\\&")
        pending_digit_guard = False
        if ch in names:
            out.append(names[ch])
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.append(f"\\{ord(ch)}")
            pending_digit_guard = True
    out.append('"')
    return "".join(out)


@dataclass(frozen=True, slots=True)
class Leaf:
    """A stored value: ``kind`` (int, string, bytes, decimal, bool, address, enum, contract)
    and its parts; ``stored`` is the text the platform compares, ``shown`` the JSON one."""

    stored: str
    shown: str


def _leaf(kind: str, text: str) -> Leaf:
    if kind == "string":
        return Leaf(hs_show(text), f'"{text}"')
    if kind == "decimal":
        return Leaf(hs_show(text), hs_show(text))
    return Leaf(text, text)


def escape_key(k: str) -> str:
    """A mapping key inside ``[...]``: ``\\`` and ``]`` escaped, as the platform writes paths."""
    return k.replace("\\", "\\\\").replace("]", "\\]")


def parse_path(text: str, name: str) -> str:
    """A path parameter, checked against the platform's grammar; returns its stored text."""
    i, n = 0, len(text)
    m = _FIELD.match(text)
    if m is None:
        raise bad_request(_malformed(name, text, "a path begins with a variable name"))
    out = [m.group()]
    i = m.end()
    while i < n:
        if text[i] == ".":
            m = _FIELD.match(text, i + 1)
            if m is None:
                raise bad_request(_malformed(name, text, f"a field name must follow '.' at {i}"))
            out.append("." + m.group())
            i = m.end()
        elif text[i] == "[":
            j, key = i + 1, []
            while j < n and text[j] != "]":
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                key.append(text[j])
                j += 1
            if j >= n:
                raise bad_request(_malformed(name, text, f"'[' at {i} is not closed"))
            out.append("[" + escape_key("".join(key)) + "]")
            i = j + 1
        else:
            raise bad_request(_malformed(name, text, f"unexpected character at {i}"))
    return "".join(out)


_STRING_LIT = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_ADDRESS_LIT = re.compile(r"address\((?:0x)?([0-9a-fA-F]{1,40})\)")
_ENUM_LIT = re.compile(r"([a-zA-Z0-9_]+)\.([a-zA-Z0-9_]+)\.([0-9]+)")
_CONTRACT_LIT = re.compile(r"([a-zA-Z0-9_]+)\((?:0x)?([0-9a-fA-F]{1,40})\)")


def parse_value(text: str, name: str) -> str:
    """A value parameter (a SolidVM literal: ``123``, ``true``, ``"str"``, ``address(<hex>)``,
    ``E.V.2``, ``C(<hex>)``); returns the text the platform stores for it."""
    if _STRING_LIT.fullmatch(text):
        body = re.sub(r"\\(.)", r"\1", text[1:-1], flags=re.S)
        return hs_show(body)
    if text in ("true", "false"):
        return text
    if is_ascii_digits(text) and len(text) <= 1000:
        return str(int(text))
    m = _ADDRESS_LIT.fullmatch(text)
    if m:
        return f"address({int(m.group(1), 16):040x})"
    m = _ENUM_LIT.fullmatch(text)
    if m:
        return f"{m.group(1)}.{m.group(2)}.{int(m.group(3))}"
    m = _CONTRACT_LIT.fullmatch(text)
    if m:
        return f"{m.group(1)}({int(m.group(2), 16):040x})"
    raise bad_request(
        _malformed(name, text, 'expected 123, true, "text", address(<hex>), E.V.N or C(<hex>)')
    )


def _malformed(name: str, text: str, why: str) -> str:
    return f"Error parsing query parameter {name} failed: malformed value {text[:80]!r}: {why}"


def like(term: str, flags: int = 0) -> re.Pattern[str]:
    """SQL ``LIKE '%term%'`` (``re.I``: ``ILIKE``): ``%`` any run, ``_`` any one character."""
    parts = [".*" if c == "%" else "." if c == "_" else re.escape(c) for c in term]
    return re.compile("".join(parts), re.S | flags)


# ------------------------------------------------------------ the query


@dataclass
class StorageQuery:
    key: str | None = None
    minkey: str | None = None
    maxkey: str | None = None
    value: str | None = None
    minvalue: str | None = None
    maxvalue: str | None = None
    search: list[re.Pattern[str]] | None = None
    address: int | None = None
    offset: int = 0
    limit: int | None = None

    @classmethod
    def from_params(cls, q: Mapping[str, str]) -> StorageQuery:
        out = cls()
        for name in ("key", "minkey", "maxkey"):
            if q.get(name) is not None:
                setattr(out, name, parse_path(q[name], name))
        for name in ("value", "minvalue", "maxvalue"):
            if q.get(name) is not None:
                setattr(out, name, parse_value(q[name], name))
        if q.get("search") is not None:
            terms = [t.strip(" \n\t") for t in q["search"].split(",")]
            out.search = [like(t) for t in terms if t]
        if q.get("address"):
            out.address = int(norm_address(q["address"], "address"), 16)
        for name in ("offset", "limit"):
            v = q.get(name)
            if v is not None and v != "":
                if not is_ascii_digits(v) or len(v) > 18:
                    raise bad_request(f"query parameter {name} must be a non-negative integer")
                setattr(out, name, int(v))
        return out

    def cap(self) -> int | None:
        """Rows at most: with ``address`` only what ``limit`` says, else at most 1000."""
        if self.address is not None:
            return self.limit
        return FETCH_LIMIT if self.limit is None else min(self.limit, FETCH_LIMIT)

    def may_hold(self, var: str) -> bool:
        """Whether some path of variable ``var`` can pass the key filters (every path of
        ``var`` lies between ``var`` and ``var`` + a character above any path character)."""
        if self.key is not None and _FIELD.match(self.key).group() != var:  # type: ignore[union-attr]
            return False
        if self.minkey is not None and var + "\U0010ffff" < self.minkey:
            return False
        return not (self.maxkey is not None and var > self.maxkey)

    def keeps(self, path: str, leaf: Leaf, address: str, contract: str) -> bool:
        if self.key is not None and path != self.key:
            return False
        if self.minkey is not None and path < self.minkey:
            return False
        if self.maxkey is not None and path > self.maxkey:
            return False
        v = leaf.stored
        if self.value is not None and v != self.value:
            return False
        if self.minvalue is not None and v < self.minvalue:
            return False
        if self.maxvalue is not None and v > self.maxvalue:
            return False
        if self.search is not None:
            texts = (address, contract, path, v)
            return any(p.search(t) for p in self.search for t in texts)
        return True


# ------------------------------------------------------------ flattening typed storage


def _basic(v: Any, t: Type) -> Leaf | None:
    """A value-type value as the platform stores it (None: the default, not stored)."""
    if isinstance(t, BoolType):
        return Leaf("true", "true") if v is True else None
    if isinstance(t, EnumType):
        i = int(v)
        return _leaf("enum", f"{t.name}.{t.values[i]}.{i}") if i and i < len(t.values) else None
    if isinstance(t, IntType):
        return _leaf("int", str(v)) if v else None
    if isinstance(t, DecimalType):
        return _leaf("decimal", str(v)) if isinstance(v, DecimalValue) and v.m else None
    if isinstance(t, StringType):
        return _leaf("string", v) if v else None
    if isinstance(t, BytesType):
        if not isinstance(v, bytes) or not any(v):
            return None
        if type(v) is TextBytes:
            return _leaf("string", v.rstrip(b"\0").decode("utf-8", "replace"))
        if type(v) is Digest:
            return _leaf("string", v.hex())
        return _leaf("bytes", f'hex"{v.hex()}"')
    if isinstance(t, ContractType):
        a = v.value if isinstance(v, Address) else int(v or 0)
        return _leaf("contract", f"{t.name}({a:040x})") if a else None
    if isinstance(t, AddressType | AccountType):
        a = v.value if isinstance(v, Address) else int(v or 0)
        return _leaf("address", f"address({a:040x})") if a else None
    return None


def key_text(k: Any) -> str:
    """A mapping key as it appears in a path (before escaping)."""
    if isinstance(k, bool):
        return "true" if k else "false"
    if isinstance(k, Address):
        return k.hex
    if isinstance(k, TextBytes):
        return k.rstrip(b"\0").decode("utf-8", "replace")
    if isinstance(k, bytes):
        return k.decode("latin-1")
    return str(k)


def leaves(view: CommittedView, v: Any, t: Type, path: str) -> Iterator[tuple[str, Leaf]]:
    """Every stored leaf under ``path`` holding ``v`` of type ``t``, as committed."""
    if isinstance(t, StructType):
        if isinstance(v, dict):
            items = view.items(v)
            for fname, ft in t.fields:
                if fname in items:
                    yield from leaves(view, items[fname], ft, f"{path}.{fname}")
        return
    if isinstance(t, ArrayType):
        if not isinstance(v, list):
            return
        elems = view.elements(v)
        if t.length is None and elems:
            yield f"{path}.length", _leaf("int", str(len(elems)))
        for i, x in enumerate(elems):
            yield from leaves(view, x, t.elem, f"{path}[{i}]")
        return
    if isinstance(t, MappingType):
        if isinstance(v, dict):
            for k, x in view.items(v).items():
                yield from leaves(view, x, t.value, f"{path}[{escape_key(key_text(k))}]")
        return
    leaf = _basic(v, t)
    if leaf is not None:
        yield path, leaf


def account_rows(
    view: CommittedView, acct: AccountState, query: StorageQuery
) -> Iterator[tuple[str, str, Leaf]]:
    """(path, address, leaf) of one contract's storage that pass the query."""
    cdef = acct.cdef
    if cdef is None:
        return
    svs = [sv for sv in cdef.state_vars if not sv.constant]
    if acct.layouts:  # a proxy keeps its logic contract's variables
        svs += delegated_vars(acct, view.elements(acct.layouts))
    stored = view.items(acct.storage)
    address = acct.hex
    for sv in svs:
        if sv.name not in stored or not query.may_hold(sv.name):
            continue
        for path, leaf in leaves(view, stored[sv.name], sv.type, sv.name):
            if query.keeps(path, leaf, address, cdef.name):
                yield path, address, leaf


def search_storage(view: CommittedView, chain: str, query: StorageQuery) -> list[dict[str, str]]:
    """The route's answer: rows sorted by path (then address), paged by offset and limit."""
    if query.address is not None:
        acct = view.account(query.address, chain)
        accounts = [acct] if acct is not None else []
    else:
        accounts = [a for (c, _), a in view.accounts.items() if c == chain]
    rows = [r for a in accounts for r in account_rows(view, a, query)]
    rows.sort(key=lambda r: (r[0], r[1]))
    cap = query.cap()
    end = None if cap is None else query.offset + cap
    return [
        {"key": path, "value": leaf.shown, "address": address}
        for path, address, leaf in rows[query.offset : end]
    ]
