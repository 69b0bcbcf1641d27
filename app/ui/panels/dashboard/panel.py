"""The dashboard: number cards and live plots of the latest blocks and of the app's own traffic.

pyqtgraph (~0.35 s to import) and numpy are loaded only when the panel is first shown, in a worker
thread, so neither start-up nor the first show stalls the window. Plots are redrawn by a 200 ms
single-shot timer, never per event: a burst of blocks or requests costs one redraw. While the
panel is hidden it reads no blocks and draws nothing; showing it again catches up.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QFont, QHideEvent, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.services.controller import AppController
from app.services.dashboard import TX_TYPES, WINDOWS, Cards
from app.ui.widgets.common import name_widget, while_alive
from app.ui.widgets.scroll import scrolling_panel

REDRAW_MS = 200
CARDS_EVERY_S = 10.0  # number cards re-read at most this often while blocks arrive
SYMBOLS_UP_TO = 100  # draw a marker per block in windows up to this size
LIVE_SPAN_S = 300.0  # the pending and latency plots show the last five minutes
TYPE_LABELS = {"Contract": "Contract", "FunctionCall": "Function call", "Transfer": "Transfer"}
TYPE_COLOURS = ("#3182ce", "#38a169", "#dd6b20")
SERIES_COLOUR = "#3182ce"
PLOT_MIN_WIDTH = 200  # three plots side by side still fit a 1024x640 window
PLOT_MIN_HEIGHT = 160


def _load_plotting() -> None:
    """Import numpy and pyqtgraph (~0.45 s together) in a worker thread: widgets are built
    on the GUI's."""
    import numpy  # noqa: F401
    import pyqtgraph  # type: ignore[import-untyped]  # noqa: F401


def _nice_top(values: Any) -> float:
    """A round top for a y axis from 0 (1, 2 or 5 times a power of ten) above the largest
    finite value, at least 1: it changes seldom, so the axis is seldom laid out again."""
    import numpy as np

    arr = np.asarray(values, dtype=np.float64)
    finite = arr[np.isfinite(arr)]
    top = float(finite.max()) * 1.05 if finite.size else 0.0
    if top <= 1.0:
        return 1.0
    scale = 10.0 ** math.floor(math.log10(top))
    return next(m * scale for m in (1.0, 2.0, 5.0, 10.0) if top <= m * scale)


class NumberCard(QFrame):
    """A caption over a big number; the tooltip explains where it comes from (or what failed)."""

    def __init__(self, object_name: str, caption: str, source: str, parent: QWidget) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.source = source
        self.caption = QLabel(caption, self)
        self.value = QLabel("—", self)
        font = QFont(self.value.font())
        font.setPointSizeF(font.pointSizeF() * 1.8)
        font.setBold(True)
        self.value.setFont(font)
        self.value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        name_widget(self.value, object_name, caption)
        self.setToolTip(source)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 6, 10, 6)
        lay.addWidget(self.caption)
        lay.addWidget(self.value)

    def set_value(self, value: int | None, error: str = "") -> None:
        self.value.setText("—" if value is None else f"{value:,}")
        self.setToolTip(self.source + (f"\n\nNot available: {error}" if error else ""))


class DashboardPanel(QWidget):
    """Number cards (latest block, users with an identity, contracts, chains, pending) and plots:
    transactions per block, block interval, transaction types over the chosen window of blocks,
    pending transactions and the latency of the app's requests over time."""

    title = "Dashboard"

    def __init__(self, controller: AppController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dashboardPanel")
        self.setAccessibleName("Dashboard")
        self.controller = controller
        self.service = controller.dashboard
        self.started = False  # first shown: the service collects, the plots are loading
        self.plots_ready = False
        self.redraws = 0
        self.last_redraw_ms = 0.0
        self._stale = False  # blocks arrived while hidden
        self._cards_at = -CARDS_EVERY_S
        self._pg: Any = None
        self._pen: Any = None
        self._steps: list[Callable[[], None]] = []
        self._blocks_dirty = self._activity_dirty = True
        self._tops: dict[str, float] = {}  # each plot's y axis top, by object name
        self._symbols = False

        self.card_block = NumberCard(
            "dashboardLatestBlock", "Latest block", "The node's latest block (/health)", self
        )
        self.card_accounts = NumberCard(
            "dashboardAccounts",
            "Users",
            "Users with a registered identity: rows of the Certificate table (Cirrus count)",
            self,
        )
        self.card_contracts = NumberCard(
            "dashboardContracts",
            "Contracts",
            "Contracts on the main chain (/bloc/v2.2/contracts)",
            self,
        )
        self.card_chains = NumberCard(
            "dashboardChains", "Private chains", "Private chains you can access (/chain)", self
        )
        self.card_pending = NumberCard(
            "dashboardPending",
            "Pending",
            "Transactions this app sent that have no result yet",
            self,
        )
        cards = QHBoxLayout()
        for card in (
            self.card_block,
            self.card_accounts,
            self.card_contracts,
            self.card_chains,
            self.card_pending,
        ):
            cards.addWidget(card)

        self.window_box = QComboBox(self)
        for n in WINDOWS:
            self.window_box.addItem(f"Last {n:,} blocks", n)
        name_widget(self.window_box, "dashboardWindow", "Blocks shown")
        self.window_box.currentIndexChanged.connect(self._window_chosen)
        self.refresh_button = QPushButton("Refresh", self)
        name_widget(self.refresh_button, "dashboardRefresh", "Read the number cards again")
        self.refresh_button.clicked.connect(self.refresh)
        self.status = QLabel(self)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        name_widget(self.status, "dashboardStatus", "Dashboard status")
        bar = QHBoxLayout()
        bar.addWidget(self.window_box)
        bar.addWidget(self.refresh_button)
        bar.addWidget(self.status, 1)

        self.plot_area = QWidget(self)
        self.plot_grid = QGridLayout(self.plot_area)
        self.plot_grid.setContentsMargins(0, 0, 0, 0)
        self.placeholder = QLabel("Loading plots…", self.plot_area)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.plot_grid.addWidget(self.placeholder, 0, 0)

        # a small window scrolls the panel instead of squashing the plots to slivers
        content = QWidget(self)
        lay = QVBoxLayout(content)
        lay.addLayout(cards)
        lay.addLayout(bar)
        lay.addWidget(self.plot_area, 1)
        self.scroller = scrolling_panel(self, content, "dashboardScroll")

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self.redraw)

        session = controller.session
        session.block_changed.connect(self._on_block)
        session.user_changed.connect(self._on_user)
        controller.pending.count_changed.connect(self._on_pending)
        self.service.blocks_changed.connect(self._blocks_changed)
        self.service.activity_changed.connect(self._activity_changed)

    # ------------------------------------------------------------ showing

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self.started:
            self.started = True
            self.controller.tasks.start(
                "Loading the plots",
                asyncio.to_thread(_load_plotting),
                on_done=while_alive(self, self._loaded),
                on_error=while_alive(self, self._failed),
            )
            self.refresh_cards()
        elif self._stale:
            self.sync()
        self.schedule_redraw()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self._timer.stop()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.plots_ready:
            self._apply_colours()

    # ------------------------------------------------------------ plots

    def _loaded(self, _result: object = None) -> None:
        """numpy and pyqtgraph are there: collect (the service's buffers are numpy arrays),
        read the blocks and build the plots."""
        self.service.activate(self.controller.pending)
        self._on_pending(len(self.controller.pending.hashes))
        self.sync()
        self._build_plots()

    def _build_plots(self) -> None:
        """Build the plots one per turn of the event loop (each takes ~10-20 ms), so the first
        show never holds the loop for long."""
        import pyqtgraph as pg

        self._pg = pg
        pg.setConfigOptions(antialias=False)
        self._pen = pg.mkPen(SERIES_COLOUR, width=1)  # wider lines cost 4x the paint time
        self._steps = [
            self._build_tx_plot,
            self._build_interval_plot,
            self._build_types_plot,
            self._build_pending_plot,
            self._build_latency_plot,
            self._plots_built,
        ]
        self._build_next()

    def _build_next(self) -> None:
        self._steps.pop(0)()
        if self._steps:
            QTimer.singleShot(0, self, self._build_next)

    def _plot(self, name: str, title: str, left: str, bottom: str) -> Any:
        widget = self._pg.PlotWidget(self.plot_area)
        widget.setObjectName(name)
        widget.setAccessibleName(title)
        widget.hide()  # shown all at once when every plot is built
        item = widget.getPlotItem()
        item.setTitle(title)
        item.setLabel("left", left)
        item.setLabel("bottom", bottom)
        # grid lines at major ticks only: minor ones tripled the paint time
        item.showGrid(x=False, y=True, alpha=0.15)
        item.getAxis("left").setStyle(maxTickLevel=0)
        item.setDownsampling(auto=True, mode="peak")
        item.setClipToView(True)
        item.setMenuEnabled(False)
        item.setMouseEnabled(x=True, y=False)  # y starts at 0, its top is set by redraw
        for side in ("left", "bottom"):
            item.getAxis(side).enableAutoSIPrefix(False)  # counts, not "x0.001"
        widget.setMinimumSize(PLOT_MIN_WIDTH, PLOT_MIN_HEIGHT)
        return widget

    def _build_tx_plot(self) -> None:
        self.tx_plot = self._plot(
            "dashboardTxPlot", "Transactions per block", "transactions", "block"
        )
        # peak downsampling to one min/max pair per pixel: the same picture, 5x fewer points
        self.tx_curve = self.tx_plot.plot(pen=self._pen, autoDownsampleFactor=1.0)

    def _build_interval_plot(self) -> None:
        self.interval_plot = self._plot(
            "dashboardIntervalPlot", "Block interval", "seconds", "block"
        )
        self.interval_curve = self.interval_plot.plot(
            pen=self._pen, connect="finite", autoDownsampleFactor=1.0
        )

    def _build_types_plot(self) -> None:
        pg = self._pg
        self.types_plot = self._plot(
            "dashboardTypesPlot", "Transaction types (window)", "transactions", ""
        )
        self.type_bars = pg.BarGraphItem(
            x=list(range(len(TX_TYPES))),
            height=[0] * len(TX_TYPES),
            width=0.6,
            brushes=[pg.mkBrush(c) for c in TYPE_COLOURS],
        )
        self.types_plot.addItem(self.type_bars)
        self.types_plot.getAxis("bottom").setTicks(
            [[(i, TYPE_LABELS[k]) for i, k in enumerate(TX_TYPES)]]
        )
        self.types_plot.setXRange(-0.6, len(TX_TYPES) - 0.4, padding=0)
        self.types_plot.getPlotItem().setMouseEnabled(x=False, y=False)

    def _build_pending_plot(self) -> None:
        self.pending_plot = self._plot(
            "dashboardPendingPlot", "Pending transactions", "pending", "seconds (0 = now)"
        )
        self.pending_curve = self.pending_plot.plot(pen=self._pen, stepMode="left")
        self.pending_plot.setXRange(-LIVE_SPAN_S, 0, padding=0)

    def _build_latency_plot(self) -> None:
        self.latency_plot = self._plot(
            "dashboardLatencyPlot", "Request latency (this app)", "ms", "seconds (0 = now)"
        )
        self.latency_curve = self.latency_plot.plot(
            pen=None, symbol="o", symbolSize=4, symbolPen=None, symbolBrush=SERIES_COLOUR
        )
        # a fixed time axis: the axis is not laid out again on every redraw, and clipping to
        # the view drops older points before they are drawn
        self.latency_plot.setXRange(-LIVE_SPAN_S, 0, padding=0)

    def _plots_built(self) -> None:
        grid = self.plot_grid
        self.placeholder.hide()
        grid.addWidget(self.tx_plot, 0, 0)
        grid.addWidget(self.interval_plot, 0, 1)
        grid.addWidget(self.types_plot, 0, 2)
        grid.addWidget(self.pending_plot, 1, 0)
        grid.addWidget(self.latency_plot, 1, 1, 1, 2)
        for column in range(3):
            grid.setColumnStretch(column, 1)
        self._apply_colours()
        for widget in self._plots():
            widget.show()
        self.plots_ready = True
        self.redraw()

    def _plots(self) -> list[Any]:
        return [
            self.tx_plot,
            self.interval_plot,
            self.types_plot,
            self.pending_plot,
            self.latency_plot,
        ]

    def _apply_colours(self) -> None:
        pal = self.palette()
        background = pal.color(QPalette.ColorRole.Base)
        text = pal.color(QPalette.ColorRole.WindowText)
        for widget in self._plots():
            widget.setBackground(background)
            item = widget.getPlotItem()
            for side in ("left", "bottom"):
                axis = item.getAxis(side)
                axis.setPen(text)
                axis.setTextPen(text)
            item.titleLabel.setText(item.titleLabel.text, color=text)

    def schedule_redraw(self) -> None:
        """Redraw within ``REDRAW_MS`` (once, however many changes come meanwhile)."""
        if self.plots_ready and self.isVisible() and not self._timer.isActive():
            self._timer.start()

    def _blocks_changed(self) -> None:
        self._blocks_dirty = True
        self.schedule_redraw()

    def _activity_changed(self) -> None:
        self._activity_dirty = True
        self.schedule_redraw()

    def _set_top(self, widget: Any, values: Any) -> None:
        """Scale the y axis from 0 to a round value above ``values`` (only when it changes:
        laying an axis out again is a good part of a redraw's cost)."""
        top = _nice_top(values)
        if self._tops.get(widget.objectName()) != top:
            self._tops[widget.objectName()] = top
            widget.setYRange(0, top, padding=0)

    def redraw(self) -> None:
        """Give the plots what changed since the last redraw (arrays are views: no copies)."""
        if not self.plots_ready or not self.service.active:
            return
        t0 = time.perf_counter()
        if self._blocks_dirty:
            self._blocks_dirty = False
            self._draw_blocks()
        if self._activity_dirty:
            self._activity_dirty = False
            now = time.perf_counter()
            pending = self.service.pending_points(now, LIVE_SPAN_S)
            self.pending_curve.setData(*pending)
            self._set_top(self.pending_plot, pending[1])
            latency = self.service.latency_points(now, LIVE_SPAN_S)
            self.latency_curve.setData(*latency)
            self._set_top(self.latency_plot, latency[1])
        self.redraws += 1
        self.last_redraw_ms = (time.perf_counter() - t0) * 1000

    def _draw_blocks(self) -> None:
        data = self.service.window_data()
        self.tx_curve.setData(data.numbers, data.txs)
        small = data.size <= SYMBOLS_UP_TO
        if small != self._symbols:
            self._symbols = small
            self.tx_curve.setSymbol("o" if small else None)
            self.tx_curve.setSymbolSize(6)
            self.tx_curve.setSymbolBrush(SERIES_COLOUR)
        self.interval_curve.setData(data.interval_numbers, data.intervals)
        heights = [data.type_counts[k] for k in TX_TYPES]
        self.type_bars.setOpts(height=heights)
        self._set_top(self.tx_plot, data.txs)
        self._set_top(self.interval_plot, data.intervals)
        self._set_top(self.types_plot, heights)
        if data.size:
            # every transaction of the blocks, as the per-block plot counts them: chain (shard)
            # creations too, which have no bar of their own among the types
            total = int(data.txs.sum())
            other = total - sum(data.type_counts.values())
            first, last = int(data.numbers[0]), int(data.numbers[-1])
            text = f"Blocks {first:,} to {last:,}: {total:,} transactions"
            if other:
                text += f" ({other:,} of them chain creations, not among the types)"
            self.status.setText(text)

    # ------------------------------------------------------------ data

    def _on_block(self, number: int) -> None:
        if not self.started:
            return
        self.card_block.set_value(number)
        if not self.isVisible():
            self._stale = True
            return
        self.sync()
        if time.monotonic() - self._cards_at >= CARDS_EVERY_S:
            self.refresh_cards()

    def _on_user(self, _name: str) -> None:
        if self.started and self.isVisible():
            self.refresh()
        elif self.started:
            self._stale = True

    def _on_pending(self, count: int) -> None:
        self.card_pending.set_value(count)

    def sync(self) -> None:
        """Read the blocks the series lacks (new ones; a wider window's older ones)."""
        self._stale = False
        tasks = self.controller.tasks
        tasks.start(
            "Reading new blocks",
            self.service.sync(),
            on_done=while_alive(self, self._read),
            on_error=while_alive(self, self._failed),
        )
        if self.service.window > self.service.held and self.service.held:
            tasks.start(
                "Reading older blocks",
                self.service.backfill(),
                on_done=while_alive(self, self._read),
                on_error=while_alive(self, self._failed),
            )

    def refresh(self) -> None:
        """Blocks and number cards, read again (F5-like)."""
        self.sync()
        self.refresh_cards()

    def refresh_cards(self) -> None:
        self._cards_at = time.monotonic()
        self.controller.tasks.start(
            "Reading the dashboard's numbers",
            self.service.cards(),
            on_done=while_alive(self, self.show_cards),
            on_error=while_alive(self, self._failed),
        )

    def show_cards(self, cards: Cards) -> None:
        self.card_block.set_value(cards.latest_block)
        self.card_accounts.set_value(cards.accounts, cards.errors.get("accounts", ""))
        self.card_contracts.set_value(cards.contracts, cards.errors.get("contracts", ""))
        self.card_chains.set_value(cards.chains, cards.errors.get("chains", ""))

    def _read(self, _added: int) -> None:
        self.schedule_redraw()

    def _window_chosen(self, index: int) -> None:
        n = self.window_box.itemData(index)
        self.service.set_window(int(n))
        if self.started and self.isVisible():
            self.sync()

    def _failed(self, text: str) -> None:
        self.status.setText(f"Could not read the node: {text}")
