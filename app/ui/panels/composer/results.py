"""The composer's result area as HTML: one transaction's outcome with its hash (a link to the
inspector), the failing statement (a link into the editor), gas, block, and the returned values
typed by the function that was called."""

from __future__ import annotations

import json
from html import escape

from app.client.abi_types import ContractSpec, FunctionSpec
from app.client.models import TxResult
from app.ui.panels.composer.build import Build, Problem, failure_place
from app.ui.widgets.tx_render import returned_items, status_colour


def result_html(
    r: TxResult,
    fn: FunctionSpec | None,
    *,
    block: int | None,
    build: Build | None,
    specs: dict[str, ContractSpec],
    places: list[Problem],
) -> str:
    """``fn``: the called function (its returns label the values); ``block``: the block
    number when known; a failure's place in the sources is appended to ``places`` and linked
    as ``loc:<index>``."""
    rows = [f'<b style="color:{status_colour(r.status)}">{r.status}</b>']
    if r.hash:
        rows.append(f'hash <a href="tx:{r.hash}"><code>{r.hash}</code></a>')
    if r.message and r.status != "Success":
        rows.append(f'<span style="color:#c0392b"><b>{escape(r.message)}</b></span>')
    pos = r.source_position if r.status == "Failure" else None
    place = failure_place(pos, build, specs) if pos is not None else None
    if place is not None:
        places.append(place)
        rows.append(f'failed at <a href="loc:{len(places) - 1}">{escape(place.where())}</a>')
    elif pos is not None:
        rows.append(f"failed in {escape(pos.name)} at line {pos.line}, column {pos.column}")
    if r.gas_used:
        rows.append(f"gas used {r.gas_used:,}")
    if block is not None:
        rows.append(f"in block {block}")
    elif r.block_hash and r.status == "Failure":
        rows.append(f"in block <code>{escape(r.block_hash[:16])}…</code>")
    if r.tag == "Upload" and isinstance(r.contents, dict):
        name = escape(str(r.contents.get("name", "")))
        rows.append(f"created <b>{name}</b> at <code>{r.contents.get('address')}</code>")
    elif r.tag == "Call":
        rows.append("returned " + (", ".join(returned_items(r.values, fn)) or "nothing"))
    elif r.tag:
        rows.append(f"{r.tag}: {escape(json.dumps(r.contents))}")
    return "<br>".join(rows)
