"""The accounts route keeps the tables of at most MAX_CHAIN_TABLES private chains beside the
main chain's: every chain a member lists would otherwise keep its rows and sorted orders for as
long as the node runs. A real ledger on a temporary data dir (tests/unit/ledger_parts.py)."""

from __future__ import annotations

from pathlib import Path

from app.node.oidc import OidcIssuer
from app.node.routes.account_list import MAX_CHAIN_TABLES, AccountListRoutes
from app.node.users import UserStore
from app.node.vault import Vault, load_node_secret
from tests.unit.ledger_parts import opened


def test_private_chain_tables_are_bounded_and_the_main_one_kept(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        users = UserStore(ledger.store, Vault(load_node_secret(tmp_path)))
        routes = AccountListRoutes(ledger, users, OidcIssuer(tmp_path, users), 1 << 20)
        main = routes._account_table("")
        assert main.rows  # the demo users
        chains = [format(i, "064x") for i in range(1, MAX_CHAIN_TABLES + 11)]
        for c in chains:
            routes._account_table(c)
        tables = routes._account_tables
        assert len(tables) == MAX_CHAIN_TABLES + 1
        assert tables[""] is main  # the main chain's table is never dropped
        # the most recent chains stay, the oldest went
        assert set(tables) - {""} == set(chains[-MAX_CHAIN_TABLES:])
        # asking again for a kept chain keeps it the newest: it is not the next dropped
        routes._account_table(chains[-MAX_CHAIN_TABLES])
        routes._account_table(chains[0])
        assert chains[-MAX_CHAIN_TABLES] in tables
        assert chains[-MAX_CHAIN_TABLES + 1] not in tables
