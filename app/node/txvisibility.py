"""Hides transaction results of private chains from callers who are not members.

A result names its chain and carries the returned values, so the results routes apply the same
membership rule as every other route. A hidden result is answered exactly as an unknown hash is
(status ``Pending``, null ``txResult`` and ``data``): a non-member cannot even tell that the hash
exists.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol


class _Rows(Protocol):
    def all(self, sql: str, *args: Any) -> list[Any]: ...


class _Ledger(Protocol):
    @property
    def store(self) -> _Rows: ...

    def visible_chains(self, username: str) -> set[str]: ...

    def queued_chains(self, hashes: Iterable[str]) -> dict[str, str]: ...


def unknown_result(tx_hash: str) -> dict[str, Any]:
    """What the node answers for a hash it has never seen."""
    return {"status": "Pending", "hash": tx_hash, "txResult": None, "data": None}


def hidden_hashes(ledger: _Ledger, username: str, hashes: list[str]) -> set[str]:
    """The transactions among ``hashes`` that belong to private chains ``username`` cannot
    see: ``resolve`` must not wait for them (the wait would tell that they exist). Those queued
    are looked up in the queue first (a ``resolve=false`` one has no row until its block),
    then the rows: one that leaves the queue meanwhile is committed already."""
    unique = list(dict.fromkeys(hashes))
    found = ledger.queued_chains(unique)
    for start in range(0, len(unique), 500):
        part = unique[start : start + 500]
        marks = ",".join("?" * len(part))
        for row in ledger.store.all(
            f"SELECT hash, chain FROM txs WHERE chain != '' AND hash IN ({marks})", *part
        ):
            found[row["hash"]] = row["chain"]
    if not found:
        return set()
    visible = ledger.visible_chains(username)
    return {h for h, chain in found.items() if chain not in visible}


def _chain_in(res: dict[str, Any]) -> str | None:
    """The chain a result belongs to. A private chain's genesis is listed on the main chain
    (no chain in its ``txResult``) but created the chain's governance contract: its upload's
    ``chainId`` names the chain, whose members alone see the constructor's state changes."""
    tr = res.get("txResult")
    if not isinstance(tr, dict) or "chainId" not in tr:
        return None
    data = res.get("data")
    contents = data.get("contents") if isinstance(data, dict) else None
    made_on = contents.get("chainId") if isinstance(contents, dict) else None
    return str(tr["chainId"] or made_on or "")


def visible_results(
    ledger: _Ledger, username: str, results: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """``results`` with those of private chains ``username`` cannot see replaced by the
    unknown-hash answer. A result that does not name its chain (a discarded transaction) is
    looked up in the transactions table; a Pending one already says nothing."""
    chains: dict[int, str] = {}
    lookup: list[str] = []
    for i, res in enumerate(results):
        if res.get("status") == "Pending" and res.get("txResult") is None:
            continue
        chain = _chain_in(res)
        if chain is None:
            lookup.append(str(res.get("hash", "")))
            chains[i] = ""
        elif chain:
            chains[i] = chain
    if lookup:
        found: dict[str, str] = {}
        for start in range(0, len(lookup), 500):
            part = lookup[start : start + 500]
            marks = ",".join("?" * len(part))
            for row in ledger.store.all(
                f"SELECT hash, chain FROM txs WHERE hash IN ({marks})", *part
            ):
                found[row["hash"]] = row["chain"] or ""
        for i in list(chains):
            if not chains[i]:
                chains[i] = found.get(str(results[i].get("hash", "")), "")
    private = {i: c for i, c in chains.items() if c}
    if not private:
        return results
    visible = ledger.visible_chains(username)
    out = list(results)
    for i, chain in private.items():
        if chain not in visible:
            out[i] = unknown_result(str(results[i].get("hash", "")))
    return out
