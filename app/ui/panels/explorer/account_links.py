"""The Accounts view and account pages, wired into the Explorer panel: the view is a tab, a row
opens its account page in the panel's detail pane, and a page's links lead on (a transaction
to the inspector, a contract it created or holds in to that account's page)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.services.accounts import AccountsService
from app.services.controller import AppController
from app.ui.panels.explorer.account_page import AccountPage
from app.ui.panels.explorer.accounts_view import AccountsView
from app.ui.widgets.common import while_alive

if TYPE_CHECKING:
    from app.ui.panels.explorer.panel import ExplorerPanel


def add_accounts(panel: ExplorerPanel, controller: AppController) -> AccountsView:
    """Add the Accounts tab to ``panel``; ``panel.accounts_view`` and
    ``panel.open_account(address)`` are then available."""
    service = AccountsService(controller.session, panel)
    view = AccountsView(controller, service, panel._start, panel)
    panel.add_view("Accounts", view, "mdi6.account-multiple-outline")

    def open_account(address: str) -> AccountPage:
        page = AccountPage(controller, service, address, panel)
        page.tx_clicked.connect(panel.show_transaction)
        page.account_clicked.connect(open_account)
        known = controller.names.known(address)
        short = address.lower().removeprefix("0x")
        title = f"Account {known.text if known is not None else short[:10] + '…'}"
        panel.show_detail(page, title)
        return page

    view.account_chosen.connect(open_account)
    session = controller.session
    # another user or node: the list is read afresh (when it has been shown)
    session.user_changed.connect(while_alive(view, lambda _u: view.refresh()))
    session.state_changed.connect(
        while_alive(view, lambda s: view.refresh() if s == "connected" else None)
    )
    panel.accounts_view = view  # type: ignore[attr-defined]
    panel.open_account = open_account  # type: ignore[attr-defined]
    return view
