"""What the Contracts and Events views need of the Explorer panel that holds them."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtWidgets import QWidget


class ExplorerLinks(Protocol):
    """The Explorer panel's navigation: open another view's item, or show a detail widget in
    the panel's shared detail pane."""

    def show_transaction(self, tx_hash: str) -> None: ...

    def show_block(self, number: int) -> None: ...

    def show_detail(self, widget: QWidget, title: str) -> None: ...

    def show_address(self, address: str) -> None: ...
