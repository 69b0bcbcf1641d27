"""The count and the Export ▾ of the Explorer's other lists (issue 29): the Contracts tree, a
block's own transactions, a token's holders and transfers, an account page's lists. Each
export writes the list as shown (its filter, its order) a page at a time through the reads the
list makes, or from the rows already held when the list is read whole (the contracts the node
listed, an account's holdings)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QBoxLayout, QWidget

from app.services.controller import AppController
from app.services.explorer import PAGE, ExplorerService
from app.services.export import PageReader
from app.services.tokens import HOLDERS_PAGE, TRANSFERS_PAGE
from app.ui.panels.explorer.list_tools import ListBar
from app.ui.panels.explorer.transactions_model import TransactionsModel

if TYPE_CHECKING:
    from app.ui.panels.explorer.account_page import AccountPage
    from app.ui.panels.explorer.contracts_view import ContractsView
    from app.ui.panels.explorer.detail import DetailPane
    from app.ui.panels.explorer.token_page import TokenPage

Source = tuple[PageReader, int, str, list[str]] | None
TX_COLUMNS = [
    "hash", "kind", "status", "sender", "to", "value", "chain", "block_number", "timestamp",
    "label",
]  # fmt: skip
CONTRACT_COLUMNS = ["name", "address", "chain_id", "created_ms", "created_block"]
HOLDER_COLUMNS = ["rank", "address", "balance", "share"]
TRANSFER_COLUMNS = ["block_number", "timestamp", "from", "to", "amount", "tx_hash"]
CREATED_COLUMNS = ["name", "address"]
HOLDING_COLUMNS = ["contract", "address", "variable", "table", "balance"]


def held_rows(rows: list[dict[str, Any]], name: str, columns: list[str]) -> Source:
    """A source of rows already held (a list read whole), a page at a time."""

    async def read(offset: int) -> list[dict[str, Any]]:
        return rows[offset : offset + PAGE]

    return read, PAGE, name, columns


def tx_source(service: ExplorerService, model: TransactionsModel, name: str) -> Source:
    """The transactions of a Transactions-like model as filtered now, newest first."""
    f, anchor = model.filter, model.anchor
    if anchor < 0:
        return None

    async def read(offset: int) -> list[dict[str, Any]]:
        rows = await service.transactions(f, anchor, offset)
        return [{k: v for k, v in asdict(r).items() if k in TX_COLUMNS} for r in rows]

    return read, PAGE, name, TX_COLUMNS


def rows_of(model: Any) -> list[Any]:
    """The row objects of a RowsTableModel."""
    return [model.row_object(r) for r in range(model.rowCount())]


def tx_count(model: TransactionsModel) -> str:
    n = model.rowCount()
    more = "+" if not model.at_end else ""
    return f"{n:,}{more} transaction{'s' * (n != 1 or bool(more))}" if model.anchor >= 0 else ""


def insert_bar(holder: QWidget, bar: ListBar, by: QWidget, below: bool = False) -> None:
    """``bar`` just above (``below``: under) ``by`` in ``holder``'s box layout."""
    lay = holder.layout()
    if isinstance(lay, QBoxLayout):
        lay.insertWidget(lay.indexOf(by) + below, bar)


def share_line(bar: ListBar, label: QWidget) -> None:
    """A list that has its own counting line (a status that also says what it is reading or
    what failed): that line takes the bar's count's place, the Export ▾ at its end."""
    bar.count.hide()
    lay = bar.layout()
    if isinstance(lay, QBoxLayout):
        lay.insertWidget(0, label, 1)


def contracts_bar(view: ContractsView) -> ListBar:
    """The Contracts tree's instances as filtered now (the view's status line counts)."""
    model = view.model

    def source() -> Source:
        rows = [
            {"name": name, **{k: getattr(i, k) for k in CONTRACT_COLUMNS[1:]}}
            for name in model.names()
            for i in model.kids(name)
        ]
        if not rows:
            return None
        return held_rows(rows, "contracts-filtered" if model.filtered else "contracts",
                         CONTRACT_COLUMNS)  # fmt: skip

    bar = ListBar(view.controller, "contracts", source, view)

    def count(_names: int = 0) -> None:
        names = model.names()
        n = sum(len(model.kids(x)) for x in names)
        bar.set_count(
            f"{len(names):,} contract{'s' * (len(names) != 1)}, {n:,} instance{'s' * (n != 1)}"
        )

    model.loaded.connect(count)
    share_line(bar, view.status)
    insert_bar(view, bar, view.tree)
    return bar


def block_bar(pane: DetailPane) -> ListBar:
    """A block's own transactions (the block's header line counts them)."""
    block = pane.block
    bar = ListBar(
        pane.controller,
        "blockTransactions",
        lambda: tx_source(pane.service, block.model, f"block-{block.number}-transactions"),
        block,
    )
    for signal in (block.model.modelReset, block.model.rowsInserted, block.model.loaded):
        signal.connect(lambda *_a: bar.set_count(tx_count(block.model)))
    share_line(bar, block.count_label)
    insert_bar(block, bar, block.table)
    return bar


def token_bars(
    page: TokenPage, holders_box: QWidget, transfers_box: QWidget
) -> tuple[ListBar, ListBar]:
    """The holders (largest first, with their share) and the transfers (newest first)."""
    controller: AppController = page.detail.controller
    service = page.service
    name = page.detail.instance.name

    def holders() -> Source:
        info = page.info
        if info is None or not page.holders_model.total:
            return None
        supply = page.supply

        async def read(offset: int) -> list[dict[str, Any]]:
            rows = await service.holders(info, offset, HOLDERS_PAGE)
            return [
                {"rank": offset + i + 1, "address": h.address, "balance": str(h.amount),
                 "share": h.amount / supply if supply else None}
                for i, h in enumerate(rows)
            ]  # fmt: skip

        return read, HOLDERS_PAGE, f"{name}-holders", HOLDER_COLUMNS

    def transfers() -> Source:
        info = page.info
        if info is None or not info.transfers_table:
            return None
        feed = service.transfers(info, TRANSFERS_PAGE)

        async def read(_offset: int) -> list[dict[str, Any]]:
            out = []
            for r in await feed.next(TRANSFERS_PAGE):
                sender, receiver, amount = service.transfer_of(info, r.args)
                out.append({
                    "block_number": r.block_number, "timestamp": r.timestamp, "from": sender,
                    "to": receiver, "amount": None if amount is None else str(amount),
                    "tx_hash": r.tx_hash,
                })  # fmt: skip
            return out

        return read, TRANSFERS_PAGE, f"{name}-transfers", TRANSFER_COLUMNS

    hbar = ListBar(controller, "tokenHolders", holders, holders_box)
    page.holders_model.counted.connect(
        lambda n: hbar.set_count(f"{n:,} holder{'s' * (n != 1)}, largest first")
    )
    insert_bar(holders_box, hbar, page.holders)
    tbar = ListBar(controller, "tokenTransfers", transfers, transfers_box)
    share_line(tbar, page.transfers_status)
    insert_bar(transfers_box, tbar, page.transfers)
    return hbar, tbar


def account_bar(page: AccountPage) -> ListBar:
    """The list of the account page's current tab: its transactions, the contracts it
    created, its holdings."""
    address = page.address

    def source() -> Source:
        tab = page.tabs.currentIndex()
        if tab == 0:
            return tx_source(page.explorer, page.txs_model, f"{address}-transactions")
        if tab == 1:
            created = [{"name": a.name, "address": a.address} for a in rows_of(page.created_model)]
            return held_rows(created, f"{address}-created", CREATED_COLUMNS) if created else None
        held = [{**asdict(h), "balance": str(h.balance)} for h in rows_of(page.holdings_model)]
        return held_rows(held, f"{address}-holdings", HOLDING_COLUMNS) if held else None

    bar = ListBar(page.controller, "accountPage", source, page)

    def count(*_args: object) -> None:
        tab = page.tabs.currentIndex()
        if tab == 0:
            bar.set_count(tx_count(page.txs_model))
            return
        n = (page.created_model if tab == 1 else page.holdings_model).rowCount()
        what = ("contract", "created") if tab == 1 else ("holding", "")
        bar.set_count(f"{n:,} {what[0]}{'s' * (n != 1)} {what[1]}".rstrip())

    signals: list[Callable[..., Any]] = []
    for model in (page.txs_model, page.created_model, page.holdings_model):
        signals += [model.modelReset.connect, model.rowsInserted.connect]
    signals += [page.txs_model.loaded.connect, page.tabs.currentChanged.connect]
    for connect in signals:
        connect(count)
    insert_bar(page, bar, page.tabs, below=True)
    return bar
