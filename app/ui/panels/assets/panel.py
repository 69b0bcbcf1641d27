"""Assets panel: the generated asset applications of the node (or one typed by URL).

The assets the current user can see are one table model, shown as a gallery of cards and as a
table that share a filter and a selection. The filter is the Cirrus query model's conditions
evaluated on the application's list (client-side: the gallery shows exactly what the
application serves to this user, a foreign application's Cirrus table may be unknown, and
typing filters without a request per key); the equivalent Cirrus query of the asset table
``<Org>-<App>-<Asset>`` is shown beside it. A selected asset shows its shard (chain ID and
members) and a timeline of its fields and owners from its audit history. Create, update and
transfer go through typed forms and the confirmation sheet; switching the user (or opening a
second window as another user) shows who sees what.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Coroutine
from typing import Any

import shiboken6
from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.client.assets import (
    SCHEME_ORDER_LABELS,
    SCHEME_ORDERS,
    AssetApp,
    AssetError,
    AssetRecord,
    AssetType,
    SchemeOrder,
    compile_filter,
    parse_filter,
    search_group,
)
from app.client.cirrus_query import CirrusQuery, CirrusQueryError, Condition, Group
from app.services.assets import AssetDetail, AssetList
from app.services.chains import Identity
from app.services.composer import Preview
from app.services.controller import AppController
from app.ui.panels.assets.detail import DetailPane
from app.ui.panels.assets.dialogs import (
    AssetForm,
    CreateAssetDialog,
    TransferAssetDialog,
    UpdateAssetDialog,
)
from app.ui.panels.assets.models import (
    AssetCardDelegate,
    AssetFilterProxy,
    AssetTableModel,
    CardGallery,
)
from app.ui.panels.assets.second_window import second_controller
from app.ui.widgets.common import ReadsWhenShown, name_widget, while_alive
from app.ui.widgets.confirm_dialog import ConfirmDialog


class AssetsPanel(ReadsWhenShown):
    """Signals: transaction_requested(str): open the transaction inspector on a hash."""

    title = "Assets"
    transaction_requested = Signal(str)

    def __init__(self, controller: AppController, parent: QWidget | None = None) -> None:
        super().__init__(self.reload, parent)
        self.setObjectName("assetsPanel")
        self.setAccessibleName("Asset applications")
        self.controller = controller
        self.service = controller.assets
        self.choices: list[tuple[AssetApp, AssetType]] = []
        self.foreign: list[AssetApp] = []
        self.listing: AssetList | None = None
        self.detail: AssetDetail | None = None
        self.identities: list[Identity] = []
        self.names: dict[str, str] = {}
        self.users: list[str] = []
        self.second_windows: list[QWidget] = []
        self.loaded = False  # a list has been shown
        self._apps_read = False
        self._gen = 0  # list loads: an older answer (another user's) is dropped
        self._detail_gen = 0
        self._detail_for: str | None = None  # the asset whose detail is shown or on its way
        self._select_after: str | None = None
        self._want_key = ""  # the app/asset to pick once the apps are read

        # -- application
        self.app_box = QComboBox(self)
        self.app_box.setMinimumContentsLength(16)  # longer names elide: the row fits 1024 px
        self.app_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        name_widget(self.app_box, "assetsApp", "Asset application")
        self.app_box.activated.connect(self._app_chosen)
        self.refresh_button = QToolButton(self)
        self.refresh_button.setText("⟳")
        self.refresh_button.setToolTip("Read the applications and the assets again")
        name_widget(self.refresh_button, "assetsRefresh", "Refresh the assets")
        self.refresh_button.clicked.connect(self.reload_apps)
        self.url = QLineEdit(self)
        self.url.setPlaceholderText("or an asset route: https://host:3030/api/v1/car")
        name_widget(self.url, "assetsAppUrl", "Application URL")
        self.url.returnPressed.connect(self.open_url)
        self.url_fields = QLineEdit(self)
        self.url_fields.setPlaceholderText("fields if it lists none: vin:string, weight:int")
        name_widget(self.url_fields, "assetsAppFields", "Fields of the application")
        self.open_button = QPushButton("Open", self)
        name_widget(self.open_button, "assetsOpenUrl", "Open the application URL")
        self.open_button.clicked.connect(self.open_url)
        self.order_box = QComboBox(self)
        for o in SCHEME_ORDERS:
            self.order_box.addItem(SCHEME_ORDER_LABELS[o], o)
        name_widget(self.order_box, "assetsSchemeOrder", "Update scheme bit order")
        self.order_box.setMinimumContentsLength(14)  # elides on a small screen, grows on a
        self.order_box.setSizeAdjustPolicy(  # wide one (the row's spare room) up to its text
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        longest = max(
            self.order_box.fontMetrics().horizontalAdvance(t) for t in SCHEME_ORDER_LABELS.values()
        )
        self.order_box.setMaximumWidth(longest + 48)  # the arrow and frame
        self.order_box.setToolTip(
            "How the application's contract numbers the update scheme's bits: the seed's "
            "generated contracts (the sandbox) read the first field as the leftmost bit, the "
            "STRATO asset framework's as the lowest bit. Kept per connection profile."
        )
        self.order_box.activated.connect(self._order_chosen)

        # -- filters
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search text fields and owners")
        name_widget(self.search, "assetsSearch", "Search the assets")
        self.search.textChanged.connect(self.apply_filter)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter, as in Tables: color=eq.red&weight=gt.1000")
        name_widget(self.filter, "assetsFilter", "Filter the assets")
        self.filter.textChanged.connect(self.apply_filter)
        self.mine = QCheckBox("Mine only", self)
        name_widget(self.mine, "assetsMine", "Only my assets")
        self.mine.toggled.connect(self.apply_filter)
        self.filter_status = QLabel("", self)
        self.filter_status.setWordWrap(True)
        name_widget(self.filter_status, "assetsFilterStatus", "Filter problems")
        self.cirrus_query = QLabel("", self)
        self.cirrus_query.setWordWrap(True)
        self.cirrus_query.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        name_widget(self.cirrus_query, "assetsCirrusQuery", "The same query in Cirrus")

        # -- actions
        self.create_button = QPushButton("New…", self)
        name_widget(self.create_button, "assetsCreate", "Create an asset")
        self.create_button.clicked.connect(self.new_asset)
        self.update_button = QPushButton("Update…", self)
        name_widget(self.update_button, "assetsUpdate", "Update the selected asset")
        self.update_button.clicked.connect(self.update_asset)
        self.transfer_button = QPushButton("Transfer…", self)
        name_widget(self.transfer_button, "assetsTransfer", "Transfer the selected asset")
        self.transfer_button.clicked.connect(self.transfer_asset)
        self.second_button = QPushButton("Second window as…", self)
        name_widget(self.second_button, "assetsSecondWindow", "Open a second window as a user")
        self.second_button.setToolTip(
            "Another window signed in as another user of the same node: watch an asset "
            "appear and disappear there as you transfer it here"
        )
        self.second_menu = QMenu(self)
        self.second_button.setMenu(self.second_menu)
        self.second_menu.aboutToShow.connect(self._fill_second_menu)
        self.create_reason = QLabel("", self)  # why New… is off, when the node says so
        self.create_reason.setWordWrap(True)
        self.create_reason.setVisible(False)
        name_widget(self.create_reason, "assetsCreateReason", "Why New is disabled")
        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        name_widget(self.status, "assetsStatus", "Assets status")
        self.last_action = QLabel("", self)
        self.last_action.setWordWrap(True)
        self.last_action.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        name_widget(self.last_action, "assetsLastAction", "What the last request did")

        # -- the assets: one model, two views, one selection
        self.model = AssetTableModel(self)
        self.proxy = AssetFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView(self)
        name_widget(self.table, "assetsTable", "Assets as a table")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # newest first until a click
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().setVisible(False)
        self.gallery = CardGallery(self)
        name_widget(self.gallery, "assetsGallery", "Assets as cards")
        self.gallery.setViewMode(QListView.ViewMode.IconMode)
        self.gallery.setResizeMode(QListView.ResizeMode.Adjust)
        self.gallery.setMovement(QListView.Movement.Static)
        self.gallery.setUniformItemSizes(True)
        self.gallery.setSpacing(4)
        self.gallery.setWrapping(True)
        self.gallery.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.gallery.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.delegate = AssetCardDelegate(self.gallery)
        self.gallery.setItemDelegate(self.delegate)
        self.gallery.setModel(self.proxy)
        self.selection = self.table.selectionModel()
        self.gallery.setSelectionModel(self.selection)
        # a click moves the current index before it selects the row: the detail follows both
        self.selection.currentRowChanged.connect(self._selection_moved)
        self.selection.selectionChanged.connect(self._selection_moved)
        self.views = QTabWidget(self)
        name_widget(self.views, "assetsViews", "Gallery or table")
        self.views.addTab(self.gallery, "Gallery")
        self.views.addTab(self.table, "Table")

        # -- the selected asset (the same names as before the pane had its own module)
        self.pane = DetailPane(self)
        self.pane.transaction_requested.connect(self.transaction_requested)
        pane = self.pane
        self.d_title, self.d_owner, self.d_fields = pane.title, pane.owner, pane.fields
        self.d_chain, self.d_shard, self.d_members = pane.chain, pane.shard, pane.members
        self.d_note, self.timeline = pane.note, pane.timeline

        top = QHBoxLayout()
        top.addWidget(QLabel("Application", self))
        top.addWidget(self.app_box, 1)
        top.addWidget(self.refresh_button)
        top.addWidget(self.url, 2)
        top.addWidget(self.url_fields, 1)
        top.addWidget(self.open_button)
        filters = QHBoxLayout()
        filters.addWidget(self.search, 1)
        filters.addWidget(self.filter, 2)
        filters.addWidget(self.mine)
        actions = QHBoxLayout()
        for w in (self.create_button, self.update_button, self.transfer_button):
            actions.addWidget(w)
        actions.addWidget(QLabel("Scheme bits", self))
        actions.addWidget(self.order_box, 1)
        actions.addStretch(0)
        actions.addWidget(self.second_button)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.views)
        split.addWidget(self.pane)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        self.split = split
        self._split_moved = False  # until the user drags it, the split stays 3:2
        split.splitterMoved.connect(self._split_dragged)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addLayout(filters)
        lay.addWidget(self.filter_status)
        lay.addWidget(self.cirrus_query)
        lay.addLayout(actions)
        lay.addWidget(self.create_reason)
        lay.addWidget(split, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.last_action, 1)
        lay.addLayout(bottom)

        controller.session.user_changed.connect(self._on_user)
        controller.session.state_changed.connect(self._on_session_state)
        controller.users_changed.connect(self._on_users)
        self.service.changed.connect(self._on_changed)
        self._update_buttons()

    def _split_dragged(self, *_args: Any) -> None:
        self._split_moved = True

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Cards and detail share the width 3:2 (two columns of cards at 1024 px), not by
        their size hints (the detail's long addresses would take the room)."""
        super().resizeEvent(event)
        total = sum(self.split.sizes())
        if not self._split_moved and total > 0:
            self.split.setSizes([total * 3 // 5, total - total * 3 // 5])

    # ------------------------------------------------------------ loading

    def _on_user(self, _name: str) -> None:
        # the previous user's last message is not the new user's (Act as)
        self.last_action.setText("")
        self.status.setText("")
        self.mark_stale()

    def _on_session_state(self, state: str) -> None:
        if state == "disconnected":  # this window closes: its second windows go with it
            for w in self.second_windows:
                if shiboken6.isValid(w):
                    w.close()

    def _on_users(self, names: list[str]) -> None:
        self.users = list(names)

    def _on_changed(self, chain_id: str) -> None:
        if chain_id:
            self._select_after = chain_id
        self.mark_stale()

    def reload_apps(self) -> None:
        """Read the node's applications again, then the current one's assets."""
        if self.controller.session.client is None:
            self._stale = True
            return
        self._apps_read = True
        self.status.setText("Reading the applications…")
        self.controller.tasks.start(
            "Listing asset applications",
            self.service.apps(),
            on_done=while_alive(self, self._apps_loaded),
            on_error=while_alive(self, self._failed),
        )

    def _apps_loaded(self, apps: list[AssetApp]) -> None:
        keep = self._want_key or self._current_key()
        self._want_key = ""
        self.choices = [(a, t) for a in [*apps, *self.foreign] for t in a.assets]
        self.app_box.clear()
        for app, asset in self.choices:
            where = f" — {app.base}" if app.foreign else ""
            self.app_box.addItem(f"{app.name} · {asset.name}{where}", f"{app.key}/{asset.name}")
        idx = self.app_box.findData(keep) if keep else -1
        self.app_box.setCurrentIndex(idx if idx >= 0 else (0 if self.choices else -1))
        if not self.choices:
            self.status.setText(
                "This node lists no asset application: type the URL of one's asset route above"
            )
            self._show_list(None)
            return
        self._sync_order()
        self.reload()

    def _current_key(self) -> str:
        data = self.app_box.currentData()
        return str(data) if data else ""

    def current(self) -> tuple[AssetApp, AssetType] | None:
        i = self.app_box.currentIndex()
        return self.choices[i] if 0 <= i < len(self.choices) else None

    def choose(self, key: str) -> None:
        """Show the application and asset ``<app key>/<asset>`` (e.g. ``CarDemo/car``)."""
        idx = self.app_box.findData(key)
        if idx < 0:
            raise KeyError(key)
        self.app_box.setCurrentIndex(idx)
        self._app_chosen()

    def _app_chosen(self, _index: int = 0) -> None:
        self._select_after = None
        self._sync_order()
        self._show_list(None)
        self.reload()

    def reload(self, select: str | None = None) -> None:
        """Read the current application's assets as the current user."""
        if self.controller.session.client is None:
            self._stale = True
            return
        if not self._apps_read:
            self.reload_apps()
            return
        self._stale = False
        if select is not None:
            self._select_after = select
        cur = self.current()
        if cur is None:
            return
        self._gen += 1
        gen = self._gen
        app, asset = cur
        if self._select_after is None:
            rec = self.selected()
            self._select_after = rec.chain_id if rec is not None else None
        self.status.setText(f"Reading the {asset.name}s of {app.name}…")
        self.controller.tasks.start(
            f"Listing {asset.name}s",
            self.service.list(app, asset),
            on_done=while_alive(self, lambda lst: self._listed(gen, lst)),
            on_error=while_alive(self, lambda text: self._list_failed(gen, text)),
        )

    def _listed(self, gen: int, listing: AssetList) -> None:
        if gen != self._gen:
            return  # a newer load (another user, another app) is on its way
        self._show_list(listing)
        self.loaded = True

    def _list_failed(self, gen: int, text: str) -> None:
        if gen == self._gen:
            self._show_list(None)
            self._failed(text)

    def _failed(self, text: str) -> None:
        self.status.setText(f"✘ {text}")

    def _show_list(self, listing: AssetList | None) -> None:
        keep = self._select_after
        self._select_after = None
        self._detail_for = None  # the same asset selected again is read again
        self.listing = listing
        if listing is not None:
            self.identities = listing.identities
            self.names = {i.address: i.common_name for i in listing.identities if i.address}
            self.delegate.me = listing.me
        self.model.set_records(
            listing.asset if listing else None, listing.records if listing else []
        )
        self.table.resizeColumnsToContents()
        self.apply_filter()
        self._update_buttons()  # New… follows what the node says of this user
        if keep and self.select(keep):
            return
        self._show_detail(None)

    def _update_status(self) -> None:
        lst = self.listing
        if lst is None:
            return
        user = self.controller.session.username
        shown, seen = self.proxy.rowCount(), len(lst.records)
        text = f"{seen} {lst.asset.name}(s) of {lst.app.name} visible to {user}"
        if shown != seen:
            text = f"{shown} shown of {text}"
        if lst.total > seen:
            text += f" (the application has {lst.total}; the first {seen} are listed)"
        self.status.setText(text)

    # ------------------------------------------------------------ filter

    def where(self) -> Group:
        """The search box, the filter line and *Mine only* as one AND of conditions."""
        cur = self.current()
        items: list[Condition | Group] = []
        if cur is not None:
            _, asset = cur
            found = search_group(self.search.text(), asset)
            if found.items:
                items.append(found)
        items += parse_filter(self.filter.text()).items
        if self.mine.isChecked() and self.listing is not None and self.listing.me:
            items.append(Condition("owner", "eq", self.listing.me))
        return Group("and", items)

    def apply_filter(self) -> bool:
        """Filter the gallery and the table; a filter that cannot work is explained and the
        previous one stays."""
        cur = self.current()
        try:
            where = self.where()
            predicate = (
                compile_filter(where, cur[1].column_types()) if cur and where.items else None
            )
        except (AssetError, CirrusQueryError) as exc:
            self.filter_status.setText(f"✘ {exc}")
            self.filter_status.setVisible(True)
            return False
        self.filter_status.setText("")
        self.filter_status.setVisible(False)  # an empty line takes no room
        self.proxy.set_predicate(predicate)
        self._show_cirrus(where)
        self._update_status()
        rec = self.selected()
        if rec is None and self.detail is not None:
            self._show_detail(None)
        return True

    def _show_cirrus(self, where: Group) -> None:
        cur = self.current()
        if cur is None:
            self.cirrus_query.setText("")
            return
        app, asset = cur
        table = app.table(asset)
        if not table:
            self.cirrus_query.setText(
                "Cirrus: this application's table is <Org>-<App>-<Asset>, named after its "
                "creator's organization, which a typed URL does not give."
            )
            return
        items: list[Condition | Group] = []
        if app.realm:
            items.append(Condition("appChainId", "eq", app.realm))
        items += where.items
        q = CirrusQuery(table, where=Group("and", items))
        self.cirrus_query.setText(f"Same in Cirrus: {q.url()}")
        self.cirrus_query.setToolTip(
            "The application's list with this filter, as a query of its Cirrus table "
            "(paste it in the Tables panel's query line)"
        )

    # ------------------------------------------------------------ selection and detail

    def selected(self) -> AssetRecord | None:
        index = self.selection.currentIndex()
        # the gallery selects a card (one cell), the table a whole row: either counts
        if not index.isValid() or not self.selection.rowIntersectsSelection(
            index.row(), index.parent()
        ):
            return None
        return self.proxy.record(index.row())

    def select(self, chain_id: str) -> bool:
        """Select the asset on shard ``chain_id`` (False when it is not shown)."""
        row = self.model.row_of(chain_id)
        if row < 0:
            return False
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if not index.isValid():
            return False
        self.selection.setCurrentIndex(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.table.scrollTo(index)
        self.gallery.scrollTo(index)
        return True

    def visible_chains(self) -> list[str]:
        return [r.chain_id for r in self.proxy.records()]

    def _selection_moved(self, *_args: Any) -> None:
        """The selected asset changed (a click, a key, the app's own choice): read it, once."""
        rec = self.selected()
        if rec is None or rec.chain_id != self._detail_for:
            self._load_detail()
        self._update_buttons()

    def _load_detail(self) -> None:
        rec = self.selected()
        cur = self.current()
        if rec is None or cur is None:
            self._show_detail(None)
            return
        self._detail_for = rec.chain_id
        app, asset = cur
        self._detail_gen += 1
        gen = self._detail_gen
        self.pane.reading(rec, asset)
        self.controller.tasks.start(
            f"Reading {asset.name} {rec.chain_id[:8]}",
            self.service.detail(app, asset, rec, dict(self.names)),
            on_done=while_alive(self, lambda d: self._detail_loaded(gen, d)),
            on_error=while_alive(self, lambda text: self._detail_failed(gen, text)),
        )

    def _detail_loaded(self, gen: int, detail: AssetDetail) -> None:
        if gen == self._detail_gen:
            self._show_detail(detail)

    def _detail_failed(self, gen: int, text: str) -> None:
        if gen == self._detail_gen:
            self.d_note.setText(f"✘ {text}")

    def _show_detail(self, detail: AssetDetail | None) -> None:
        self.detail = detail
        cur = self.current()
        if detail is None or cur is None:
            self._detail_gen += 1  # an answer still on its way is for nothing now
            self._detail_for = None
            self.pane.clear()
        else:
            self.pane.show_detail(detail, cur[1])
        self._update_buttons()

    def timeline_rows(self) -> list[tuple[str, str, str]]:
        """(block, owner, change) of each history entry, oldest first."""
        return self.pane.timeline_rows()

    def create_refusal(self) -> str:
        """Why the node would refuse the user a new asset of the shown type ("" = no reason)."""
        cur, lst = self.current(), self.listing
        if cur is None or lst is None or (lst.app.key, lst.asset.name) != (cur[0].key, cur[1].name):
            return ""
        return lst.create_refusal

    def _update_buttons(self) -> None:
        cur = self.current()
        rec = self.selected()
        refusal = self.create_refusal()
        self.create_button.setEnabled(cur is not None and bool(cur[1].fields) and not refusal)
        self.create_button.setToolTip(
            f"Disabled: {refusal}" if refusal else "Create an asset of this application"
        )
        self.create_reason.setText(f"New… is off: {refusal}" if refusal else "")
        self.create_reason.setVisible(bool(refusal))
        self.update_button.setEnabled(rec is not None)
        self.transfer_button.setEnabled(rec is not None)

    # ------------------------------------------------------------ foreign applications

    def open_url(self) -> None:
        text = self.url.text().strip()
        if not text or self.controller.session.client is None:
            return
        self.status.setText(f"Opening {text}…")
        self.controller.tasks.start(
            "Opening an asset application",
            self.service.open_url(text, self.url_fields.text()),
            on_done=while_alive(self, self._url_opened),
            on_error=while_alive(self, self._failed),
        )

    def _url_opened(self, app: AssetApp) -> None:
        self.add_foreign(app)
        self.reload_apps()

    def add_foreign(self, app: AssetApp) -> None:
        self.foreign = [a for a in self.foreign if a.key != app.key] + [app]
        self._want_key = f"{app.key}/{app.assets[0].name}"

    # ------------------------------------------------------------ scheme order

    def scheme_order(self) -> SchemeOrder:
        cur = self.current()
        return self.service.scheme_order(cur[0]) if cur else "seed"

    def _sync_order(self) -> None:
        self.order_box.setCurrentIndex(SCHEME_ORDERS.index(self.scheme_order()))

    def _order_chosen(self, _index: int = 0) -> None:
        self.set_scheme_order(SCHEME_ORDERS[max(self.order_box.currentIndex(), 0)])

    def set_scheme_order(self, order: str) -> None:
        cur = self.current()
        if cur is None or order not in SCHEME_ORDERS:
            return
        chosen: SchemeOrder = "seed" if order == "seed" else "platform"
        self.order_box.setCurrentIndex(SCHEME_ORDERS.index(chosen))
        self.controller.tasks.start(
            "Saving the scheme bit order",
            self.service.set_scheme_order(cur[0], chosen),
            on_error=while_alive(self, self._failed),
        )

    # ------------------------------------------------------------ writes

    def new_asset(self) -> CreateAssetDialog | None:
        cur = self.current()
        if cur is None:
            return None
        dialog = CreateAssetDialog(cur[1], self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.review_requested.connect(lambda: self.review_create(dialog))
        dialog.open()
        return dialog

    def review_create(self, form: CreateAssetDialog) -> ConfirmDialog | None:
        cur = self.current()
        if cur is None or form.check():
            return None
        app, asset = cur
        values = form.values()
        return self._confirm(
            form,
            lambda: self.service.create_preview(app, asset, values),
            form.describe(),
            lambda: self.service.create(app, asset, values),
            lambda chain: f"Created a {asset.name} on its shard {chain}",
        )

    def update_asset(self) -> UpdateAssetDialog | None:
        cur, rec = self.current(), self.selected()
        if cur is None or rec is None:
            return None
        dialog = UpdateAssetDialog(cur[1], rec, self.scheme_order(), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.order_changed.connect(self.set_scheme_order)
        dialog.review_requested.connect(lambda: self.review_update(dialog))
        dialog.open()
        return dialog

    def review_update(self, form: UpdateAssetDialog) -> ConfirmDialog | None:
        cur = self.current()
        if cur is None or form.check():
            return None
        app, asset = cur
        rec, plan = form.record, form.plan()
        return self._confirm(
            form,
            lambda: self.service.update_preview(app, asset, rec, plan),
            form.describe(),
            lambda: self.service.update(app, asset, rec, plan),
            lambda text: f"{rec.title(asset)}: {text}",
        )

    def transfer_asset(self) -> TransferAssetDialog | None:
        cur, rec = self.current(), self.selected()
        if cur is None or rec is None:
            return None
        dialog = TransferAssetDialog(cur[1], rec, self.identities, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.review_requested.connect(lambda: self.review_transfer(dialog))
        dialog.open()
        return dialog

    def review_transfer(self, form: TransferAssetDialog) -> ConfirmDialog | None:
        cur = self.current()
        if cur is None or form.check():
            return None
        app, asset = cur
        rec, owner = form.record, form.new_owner()
        what = form.describe()
        return self._confirm(
            form,
            lambda: self.service.transfer_preview(app, asset, rec, owner),
            what,
            lambda: self.service.transfer(app, asset, rec, owner),
            lambda _r: f"{rec.title(asset)}: {what}",
        )

    def _confirm(
        self,
        form: AssetForm,
        preview: Callable[[], Preview],
        what: str,
        send: Callable[[], Coroutine[Any, Any, Any]],
        done: Callable[[Any], str],
    ) -> ConfirmDialog | None:
        """The confirmation sheet over the form; Send runs the request, the form shows the
        node's refusal or closes on success."""
        try:
            shown = preview()
        except (AssetError, CirrusQueryError) as exc:
            form.show_error(str(exc))
            return None
        sheet = ConfirmDialog(shown, [what], form)
        sheet.setWindowTitle("Send this request?")
        if "resolve=" not in shown.url:
            mode = sheet.findChild(QLabel, "confirmResolve")
            if mode is not None:
                mode.setText("the application answers once its transaction has run")
        sheet.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def succeeded(result: Any) -> None:
            self.last_action.setText(f"✔ {done(result)}")
            if shiboken6.isValid(form):
                form.set_busy(False)
                form.accept()

        def finished(code: int) -> None:
            if code != QDialog.DialogCode.Accepted:
                return
            form.set_busy(True, "Sending…")
            self.controller.tasks.start(
                what,
                send(),
                on_done=while_alive(self, succeeded),
                on_error=while_alive(form, form.show_error),
            )

        sheet.finished.connect(finished)
        sheet.open()
        return sheet

    # ------------------------------------------------------------ second window

    def _fill_second_menu(self) -> None:
        self.second_menu.clear()
        me = self.controller.session.username
        for name in self.users or [me]:
            if name and name != me:
                act = self.second_menu.addAction(name)
                act.triggered.connect(lambda _c=False, n=name: self.open_second_window(n))

    def open_second_window(self, user: str) -> None:
        """A second main window, its own controller signed in as ``user`` to this node."""
        profile = self.controller.session.profile
        if profile is None:
            self._failed("not connected")
            return
        cur = self.current()
        self.status.setText(f"Opening a window as {user}…")
        self.controller.tasks.start(
            f"Signing in {user} in a second window",
            second_controller(self.controller, user),
            on_done=while_alive(self, lambda c: self._second_ready(c, cur)),
            on_error=while_alive(self, self._failed),
        )

    def _second_ready(
        self, second: AppController, cur: tuple[AssetApp, AssetType] | None
    ) -> QWidget:
        from app.ui.shell.main_window import MainWindow  # the main window imports this panel

        window = MainWindow(second)
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        config = str(second.property("configDir") or "")
        window.destroyed.connect(lambda *_: shutil.rmtree(config, ignore_errors=True))
        window.destroyed.connect(second.deleteLater)
        twin = next((p for p in window.panels if isinstance(p, AssetsPanel)), None)
        if twin is not None:
            if cur is not None:
                if cur[0].foreign:
                    twin.add_foreign(cur[0])
                twin._want_key = f"{cur[0].key}/{cur[1].name}"
            window.nav.setCurrentRow(window.panels.index(twin))
        window.show()
        self.second_windows = [w for w in self.second_windows if shiboken6.isValid(w)]
        self.second_windows.append(window)
        self.status.setText(f"A second window shows what {second.session.username} sees")
        return window
