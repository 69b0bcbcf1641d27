"""The stored form of a transaction's result: what the row does not already say.

A token transfer's result is about 1.3 KB of JSON, of which most repeats the row (its hash,
twice, and its status), the block's row (the block hash), fixed texts (empty fields, the
``stateDiff`` preamble, ``"Success!"``) or pads (64 hex digits of gas). Stored whole, it made
``txs`` two thirds of the database. The packed form keeps only the rest; :func:`unpack_result`
rebuilds the exact result (same keys, same order, same texts) from it and the row. Rows written
before (full results) are read as they are.
"""

from __future__ import annotations

import json
from typing import Any

from ..state_diff import COVERS, SKIPS
from ..store import dumps

PACKED = "~"  # the key that marks a packed result (a full one starts with "status")
ZERO64 = "0" * 64

# txResult as the executor builds it, in its order; None: no default (always stored)
_ORDER: tuple[tuple[str, Any], ...] = (
    ("deletedStorage", ""),
    ("status", "success"),
    ("contractsDeleted", ""),
    ("gasUsed", None),
    ("stateDiff", ""),
    ("time", None),
    ("kind", "SolidVM"),
    ("chainId", None),
    ("response", ""),
    ("blockHash", None),
    ("transactionHash", None),
    ("etherUsed", ZERO64),
    ("newStorage", ""),
    ("message", "Success!"),
    ("trace", ""),
    ("contractsCreated", ""),
)
_KEYS = tuple(k for k, _ in _ORDER)
_NO_DEFAULT = {"gasUsed", "time"}


def pack_result(
    res: dict[str, Any], block_hash: str, diff: Any = None, diff_text: str | None = None
) -> str:
    """The text stored for ``res``, a result of a transaction sealed in block ``block_hash``
    (whole when it cannot be packed: a failure here must not stop the chain). ``diff``: the
    object its ``stateDiff`` text was dumped from, when the caller has it (not parsed again;
    the packed form is checked against the text, unless ``diff_text`` is that very text
    object: the string ``json.dumps(diff)`` returned, as the executor keeps it)."""
    try:
        return _pack(res, block_hash, diff, diff_text)
    except Exception:
        return dumps(res)


def _pack(
    res: dict[str, Any], block_hash: str, diff: Any = None, diff_text: str | None = None
) -> str:
    tr = res.get("txResult")
    if (
        not isinstance(tr, dict)
        or tuple(res) != ("status", "hash", "txResult", "data")
        or tuple(tr)[: len(_KEYS)] != _KEYS
        or tr["transactionHash"] != res["hash"]
        or tr["blockHash"] != block_hash
    ):
        return dumps(res)  # not the executor's shape: kept whole
    out: dict[str, Any] = {}
    for key, default in _ORDER:
        v = tr[key]
        if key in ("transactionHash", "blockHash"):
            continue
        if key not in _NO_DEFAULT and v == default and type(v) is type(default):
            continue
        if key == "gasUsed" and _hex64(v):
            v = int(v, 16)
        elif key == "stateDiff" and v:
            v = _pack_diff(v, diff, diff_text is v)
        elif key == "response" and v == _response_of(res["data"]):
            v = 1  # the hex of the returned values, which ``data`` holds
        out[key] = v
    extra = {k: v for k, v in tr.items() if k not in _KEYS}
    if extra:
        out["+"] = extra
    return dumps({PACKED: 1, "t": out, "d": res["data"]})


def unpack_result(text: str, tx_hash: str, status: str, block_hash: str) -> dict[str, Any]:
    """The result stored as ``text`` in the row of ``tx_hash`` (status ``status``, sealed in
    block ``block_hash``)."""
    obj: dict[str, Any] = json.loads(text)
    if PACKED not in obj:
        return obj
    packed: dict[str, Any] = obj["t"]
    tr: dict[str, Any] = {}
    for key, default in _ORDER:
        if key == "transactionHash":
            tr[key] = tx_hash
        elif key == "blockHash":
            tr[key] = block_hash
        elif key not in packed:
            tr[key] = default
        elif key == "gasUsed" and isinstance(packed[key], int):
            tr[key] = format(packed[key], "064x")
        elif key == "stateDiff" and isinstance(packed[key], dict):
            tr[key] = _unpack_diff(packed[key])
        elif key == "response" and packed[key] == 1:
            tr[key] = _response_of(obj["d"])
        else:
            tr[key] = packed[key]
    tr.update(packed.get("+", {}))
    return {"status": status, "hash": tx_hash, "txResult": tr, "data": obj["d"]}


def _hex64(v: Any) -> bool:
    return isinstance(v, str) and len(v) == 64 and v == format(int(v, 16), "064x")


def _response_of(data: Any) -> str:
    """``response`` of a call: the hex of its returned values as JSON."""
    if not isinstance(data, dict) or data.get("tag") != "Call":
        return ""
    values = data.get("contents")
    return dumps(values).encode().hex() if values else ""


_CHANGE = ("address", "chainId", "variable", "key", "before", "after")
_SCALAR_CHANGE = ("address", "chainId", "variable", "before", "after")


def _pack_diff(text: str, diff: Any = None, dumped: bool = False) -> Any:
    """``stateDiff`` as an object without its fixed preamble, each change a list (its
    contract an index into a table of contracts), when that gives the exact text back.
    ``diff``: the object ``text`` was dumped from, if known (else ``text`` is parsed);
    ``dumped``: ``text`` is known to be ``json.dumps(diff)``."""
    if diff is None:
        try:
            diff = json.loads(text)
        except ValueError:
            return text
    if not isinstance(diff, dict) or diff.get("covers") != COVERS or diff.get("skips") != SKIPS:
        return text
    # ``text`` is json.dumps(diff): when diff has exactly the shape _unpack_diff rebuilds
    # (covers and skips first, then the rest in order; each change with one of the two key
    # sequences; no "@"), the round trip is exact by construction, and checking it (one more
    # encoding of the diff: a third of packing a transfer's result) is left out
    trusted = dumped and tuple(diff)[:2] == ("covers", "skips") and "@" not in diff
    rest = {k: v for k, v in diff.items() if k not in ("covers", "skips")}
    changes = rest.get("changes")
    if isinstance(changes, list) and all(
        isinstance(c, dict) and tuple(c) in (_CHANGE, _SCALAR_CHANGE) for c in changes
    ):
        accounts: dict[tuple[str, str], int] = {}
        rows = []
        for c in changes:
            i = accounts.setdefault((c["address"], c["chainId"]), len(accounts))
            rows.append([i, *(c[k] for k in tuple(c)[2:])])
        rest["changes"] = rows
        rest["@"] = [list(a) for a in accounts]
    elif changes is not None:
        trusted = False
    if trusted:
        return rest
    return rest if _unpack_diff(rest) == text else text


def _unpack_diff(rest: dict[str, Any]) -> str:
    rest = dict(rest)
    accounts = rest.pop("@", None)
    if accounts is not None:
        changes = []
        for row in rest["changes"]:
            names = _CHANGE if len(row) == len(_CHANGE) - 1 else _SCALAR_CHANGE
            address, chain = accounts[row[0]]
            changes.append(dict(zip(names, [address, chain, *row[1:]], strict=True)))
        rest["changes"] = changes
    return json.dumps({"covers": COVERS, "skips": SKIPS, **rest})
