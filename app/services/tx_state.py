"""The transaction inspector's state diff: what a transaction changed, and what was compared.

The sandbox's transaction result carries old -> new values (``stateDiff``). Real STRATO nodes
leave that empty; then scalar variables come from the contract's Cirrus history table (one row
per transaction, when history was enabled) and mapping and array entries from its collection
tables (latest value of each entry, so only new values, of the entries this transaction changed
last). Whatever a node lacks (no history, no collection tables) is said, never read as "no
change".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.client.cirrus_names import names_of
from app.client.cirrus_query import STANDARD_COLUMNS
from app.client.errors import RequestError
from app.client.http import StratoClient
from app.client.state_diff import (
    NOT_KEPT,
    Change,
    collection_changes,
    collection_vars,
    node_state_diff,
)

HISTORY_META = set(STANDARD_COLUMNS)


@dataclass
class StateReport:
    changes: list[Change] | None  # None: nothing could be compared
    note: str  # why there are no changes (or none could be compared)
    scope: str  # what was compared and what was not


async def transaction_state(
    client: StratoClient,
    contract: str,
    address: str,
    chain_id: str | None,
    tx_hash: str,
    tx_result: Any,
    xabi: Any = None,
) -> StateReport:
    """What transaction ``tx_hash`` changed in ``contract`` at ``address``; ``xabi`` is the
    contract's interface when the caller has it (fetched when needed)."""
    from_node = node_state_diff(tx_result, address)
    if from_node is not None:
        changes, scope = from_node
        note = "" if changes else "nothing that was compared changed"
        return StateReport(changes, note, scope)
    block_hash = str(tx_result.get("blockHash") or "") if isinstance(tx_result, dict) else ""
    scalars, scalar_scope = await _history_diff(client, contract, address, tx_hash, block_hash)
    entries, entry_scope = await _collection_diff(
        client, contract, address, chain_id, tx_hash, xabi, block_hash
    )
    scope = f"{scalar_scope} {entry_scope}"
    if scalars is None and entries is None:
        return StateReport(None, f"no state diff: {scope}", "")
    found = (scalars or []) + (entries or [])
    note = "" if found else "nothing that was compared changed"
    return StateReport(found, note, scope)


async def _history_diff(
    client: StratoClient, contract: str, address: str, tx_hash: str, block_hash: str = ""
) -> tuple[list[Change] | None, str]:
    """Scalar variables from the contract's history table (``history@<table>``, the row of this
    transaction and the one before it), or STRATO 16's ``history@storage`` (one row per block
    that wrote the contract: this transaction's block and the one before)."""
    no_history = (
        f"Scalar state variables: not compared, this {contract} keeps no history (deploy it "
        "with history enabled to see them)."
    )
    names = await names_of(client).names(client, want=contract, after=block_hash)
    tables = names.history_tables(contract)
    if not tables and not names.listed:
        tables = [f"history@{contract}"]
    if not tables and "history@storage" in names and block_hash:
        return await _storage_history_diff(client, address, block_hash, no_history)
    for table in tables:
        try:
            rows, _ = await client.cirrus(
                table,
                [("address", f"eq.{address}"), ("order", "block_number.desc"), ("limit", "200")],
            )
        except RequestError as exc:
            if exc.status in (400, 404):
                continue
            raise
        index = next((i for i, r in enumerate(rows) if r.get("transaction_hash") == tx_hash), None)
        if index is None:
            continue
        after = rows[index]
        before = rows[index + 1] if index + 1 < len(rows) else {}
        diff = [
            (k, before.get(k), v)
            for k, v in after.items()
            if k not in HISTORY_META and before.get(k) != v
        ]
        return diff, f"Scalar state variables: compared, from {table}."
    return None, no_history


async def _storage_history_diff(
    client: StratoClient, address: str, block_hash: str, no_history: str
) -> tuple[list[Change] | None, str]:
    """STRATO 16's ``history@storage``: the contract's ``data`` after the transaction's block
    and before it (values as the node keeps them, text)."""
    try:
        rows, _ = await client.cirrus(
            "history@storage",
            [("address", f"eq.{address}"), ("order", "valid_from.desc"), ("limit", "200")],
        )
    except RequestError as exc:
        if exc.status in (400, 404):
            return None, no_history
        raise
    # newest first; rows of one second (valid_from) ordered by their block
    rows.sort(key=lambda r: (str(r.get("valid_from") or ""), _number(r)), reverse=True)
    index = next((i for i, r in enumerate(rows) if r.get("block_hash") == block_hash), None)
    scope = (
        "Scalar state variables: compared, from history@storage (one row per block: changes "
        "by other transactions of the same block are included)."
    )
    if index is None:
        # the contract's history is kept, but its block has no row: that block wrote only its
        # mappings and arrays (a STRATO 16 node may add a row holding the same data, the
        # sandbox none), so no scalar changed; unless the block is older than what was read
        return ([], scope) if rows and len(rows) < 200 else (None, no_history)
    after = rows[index].get("data")
    before = rows[index + 1].get("data") if index + 1 < len(rows) else {}
    if not isinstance(after, dict):
        return None, no_history
    before = before if isinstance(before, dict) else {}
    diff = [(k, before.get(k), v) for k, v in after.items() if before.get(k) != v]
    return diff, scope


async def _collection_diff(
    client: StratoClient,
    contract: str,
    address: str,
    chain_id: str | None,
    tx_hash: str,
    xabi: Any,
    block_hash: str = "",
) -> tuple[list[Change] | None, str]:
    """Mapping and array entries from the collection tables the node lists for the contract
    (``<table>-<variable>``, either family: the seed's rows carry the transaction, STRATO 16's
    views only the block)."""
    if xabi is None:
        try:
            xabi = (await client.details(contract, address, chain_id)).get("xabi")
        except RequestError:
            xabi = None
    variables = collection_vars(xabi)
    if not variables:
        return None, "It has no mappings or arrays."
    names = await names_of(client).names(client, want=contract, after=block_hash)
    found: list[Change] = []
    missing: list[str] = []
    for name in variables:
        tables = names.collection_tables(contract, name)
        if not tables and not names.listed:
            tables = [f"{contract}-{name}"]
        rows = None
        for table in tables:
            columns = names.infos[table].columns if table in names.infos else []
            by_block = bool(columns) and not any(c.name == "transaction_hash" for c in columns)
            if by_block and not block_hash:
                continue
            where = (
                ("block_hash", f"eq.{block_hash}")
                if by_block
                else ("transaction_hash", f"eq.{tx_hash}")
            )
            try:
                rows, _ = await client.cirrus(table, [("address", f"eq.{address}"), where])
            except RequestError as exc:
                if exc.status in (400, 404):
                    continue  # no collection tables on this node (before STRATO 16)
                raise
            break
        if rows is None:
            missing.append(name)
            continue
        found += collection_changes(name, rows)
    if len(missing) == len(variables):
        return None, (
            f"Mappings and arrays ({', '.join(variables)}): not compared, this node has no Cirrus "
            "collection tables for them."
        )
    scope = (
        "Mapping and array entries: new values of the entries this transaction changed last, "
        "from Cirrus collection tables (which keep no earlier values; entries emptied or "
        "changed again since are not shown)."
    )
    if missing:
        scope += f" Not compared (no collection table): {', '.join(missing)}."
    return found, scope


def _number(row: dict[str, Any]) -> int:
    n = str(row.get("block_number") or "")
    return int(n) if n.isdigit() else -1


__all__ = ["NOT_KEPT", "StateReport", "transaction_state"]
