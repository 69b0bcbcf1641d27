"""The count and the Export ▾ of the Explorer's Blocks and Transactions views (the Accounts
view has its own): added to the views from outside, so that the views stay as they are.

An export writes the list as filtered now: the transactions of the view's filter under its
anchor block (newest first, as shown), the blocks from the head down; a page at a time,
through the same reads the views make."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QBoxLayout

from app.services.explorer import PAGE
from app.ui.panels.explorer.list_tools import ListBar

if TYPE_CHECKING:
    from app.ui.panels.explorer.panel import ExplorerPanel

TX_COLUMNS = [
    "hash", "kind", "status", "sender", "to", "value", "chain", "block_number", "timestamp",
    "label",
]  # fmt: skip
BLOCK_COLUMNS = ["number", "hash", "timestamp", "tx_count", "gas_used", "size"]


def add_list_bars(panel: ExplorerPanel) -> tuple[ListBar, ListBar]:
    """A ListBar above the Blocks and the Transactions tables (``panel.blocks_bar``,
    ``panel.txs_bar``)."""
    controller, service = panel.controller, panel.service
    blocks, txs = panel.blocks_model, panel.txs_model

    def tx_source() -> Any:
        f, anchor = txs.filter, txs.anchor
        if anchor < 0:
            return None

        async def read(offset: int) -> list[dict[str, Any]]:
            rows = await service.transactions(f, anchor, offset)
            return [{k: v for k, v in asdict(r).items() if k in TX_COLUMNS} for r in rows]

        name = "transactions" if f.empty else "transactions-filtered"
        return read, PAGE, name, TX_COLUMNS

    def block_source() -> Any:
        head = blocks.head
        if head < 0:
            return None

        state = {"top": head}  # the next block down (a gap in the numbers is skipped)

        async def read(_offset: int) -> list[dict[str, Any]]:
            out: list[dict[str, Any]] = []
            while len(out) < PAGE and state["top"] >= 0:
                top = state["top"]
                low = max(top - (PAGE - len(out)) + 1, 0)
                rows = await service.blocks(low, top)
                out += [{k: asdict(r)[k] for k in BLOCK_COLUMNS} for r in rows]
                state["top"] = low - 1
            return out

        return read, PAGE, "blocks", BLOCK_COLUMNS

    txs_bar = ListBar(controller, "transactions", tx_source, panel.txs_view)
    blocks_bar = ListBar(controller, "blocks", block_source, panel.blocks_view)
    # room for what a transaction did ("Contract created: Token", "Asset created: Car …")
    panel.txs_view.table.setColumnWidth(0, 190)
    panel.detail.block.table.setColumnWidth(0, 170)
    for view, bar in ((panel.txs_view, txs_bar), (panel.blocks_view, blocks_bar)):
        lay = view.layout()
        if isinstance(lay, QBoxLayout):
            lay.insertWidget(lay.count() - 1, bar)  # just above the table

    def count_txs(*_args: object) -> None:
        n = txs.rowCount()
        more = "+" if not txs.at_end else ""
        txs_bar.set_count(f"{n:,}{more} transaction{'s' * (n != 1)}" if txs.anchor >= 0 else "")

    def count_blocks(*_args: object) -> None:
        head = blocks.head
        blocks_bar.set_count(f"{head + 1:,} blocks" if head >= 0 else "no blocks yet")

    for signal in (txs.modelReset, txs.rowsInserted, txs.loaded):
        signal.connect(count_txs)
    for signal in (blocks.modelReset, blocks.rowsInserted):
        signal.connect(count_blocks)
    panel.events_bar = _events_bar(panel)  # type: ignore[attr-defined]
    panel.txs_bar = txs_bar  # type: ignore[attr-defined]
    panel.blocks_bar = blocks_bar  # type: ignore[attr-defined]
    return blocks_bar, txs_bar


EVENT_COLUMNS = ["block_number", "timestamp", "contract", "event", "args", "address", "tx_hash"]


def _events_bar(panel: ExplorerPanel) -> ListBar:
    """Export ▾ of the Events view: its contract and event as chosen, newest first, read
    through a new feed over the same tables (the view's own keeps its place)."""
    view = panel.events_view
    model = view.model

    def source() -> Any:
        tables, address = model.source
        if not tables:
            return None
        feed = model.service.feed(tables, address)

        async def read(_offset: int) -> list[dict[str, Any]]:
            rows = await feed.next(PAGE)
            return [{k: getattr(r, k) for k in EVENT_COLUMNS} for r in rows]

        return read, PAGE, "events", EVENT_COLUMNS

    bar = ListBar(panel.controller, "events", source, view)
    bar.count.hide()  # the view's status line counts already
    lay = view.layout()
    if isinstance(lay, QBoxLayout):
        lay.insertWidget(lay.count() - 1, bar)
    return bar
