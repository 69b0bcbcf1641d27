"""The filter builder: a Cirrus query edited as a tree, previewed as it will be sent.

Conditions (column, an operator offered by the column's type, a value) sit in nested AND/OR
groups, any of which can be negated; a chain shortcut adds the ``chainId`` condition for the
main chain or one private chain. Edits change a *draft*: the exact query string is shown live,
problems are listed, and nothing is sent until *Apply* (Ctrl+Return). Pasting a
``/cirrus/search/...`` URL or a query string into the query line rebuilds the tree from it.
Columns to show and joins (``Foreign(*)``) for contract-typed columns are chosen from a menu
and take effect at once, like a header click that sorts.
"""

from __future__ import annotations

import copy
import csv
import re
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QModelIndex, Signal
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSpinBox,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.client.cirrus_query import (
    IS_VALUES,
    OPERATORS,
    STANDARD_COLUMNS,
    CirrusQuery,
    CirrusQueryError,
    Condition,
    Embed,
    Group,
    Order,
)
from app.client.cirrus_schema import ColumnInfo, TableInfo, operators_for
from app.ui.panels.tables.filter_tree_model import FilterTreeModel
from app.ui.panels.tables.filter_tree_view import FilterTreeView, Place
from app.ui.widgets.common import name_widget
from app.ui.widgets.keep_open_menu import KeepOpenMenu, SteadyHeight, make_searchable

OP_LABELS = {
    "eq": "= equals",
    "neq": "≠ not equal",
    "lt": "< less than",
    "lte": "≤ at most",
    "gt": "> greater than",
    "gte": "≥ at least",
    "like": "like (case-sensitive, * wildcard)",
    "ilike": "ilike (any case, * wildcard)",
    "in": "in (one of a list)",
    "is": "is (null, true, false)",
}
_NUMBER_RE = re.compile(r"-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
CHAIN_COLUMN = "chainId"
MAIN_CHAIN = ""  # value of the chainId condition selecting the main chain


def split_list(text: str) -> list[str]:
    """``a, "b,c", d`` -> ["a", "b,c", "d"]: the members of an ``in`` list as typed."""
    if not text.strip():
        return []
    (row,) = csv.reader([text], skipinitialspace=True)
    return [v.strip() for v in row]


def join_list(values: list[str]) -> str:
    out = []
    for v in values:
        needs = not v or any(c in v for c in ',"') or v != v.strip()
        out.append('"' + v.replace('"', '""') + '"' if needs else v)
    return ", ".join(out)


class FilterBuilder(QWidget):
    """Signals:
    applied(object): a ``CirrusQuery`` to run (a copy: later edits do not touch it).
    table_requested(str): a pasted URL names another table.
    """

    applied = Signal(object)
    table_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("filterBuilder")
        self.info = TableInfo("")
        self.draft = CirrusQuery("")
        self.current: CirrusQuery | None = None  # the applied query
        self._syncing = False

        self.model = FilterTreeModel(self)
        self.tree = FilterTreeView(self.model, self._new_condition, self)
        name_widget(self.tree, "filterTree", "Filter conditions")
        self.tree.setMinimumHeight(110)
        self.tree.setColumnWidth(0, 240)
        self.tree.setColumnWidth(1, 110)
        self.tree.selectionModel().currentChanged.connect(lambda cur, _prev: self._on_current(cur))
        self.tree.edited.connect(self._on_structure)

        self.add_condition_button = QToolButton(self)
        self.add_condition_button.setText("+ Condition")
        self.add_condition_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        name_widget(self.add_condition_button, "filterAddCondition", "Add a condition")
        self.add_condition_button.clicked.connect(self._add_clicked)
        condition_menu = QMenu(self.add_condition_button)
        condition_menu.addActions([self.tree.condition_here, self.tree.condition_top])
        self.add_condition_button.setMenu(condition_menu)
        self.add_group_button = QToolButton(self)
        self.add_group_button.setText("+ Group")
        self.add_group_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        name_widget(self.add_group_button, "filterAddGroup", "Add an AND or OR group")
        self.add_group_button.clicked.connect(self._add_group_clicked)
        self.group_menu = QMenu(self.add_group_button)
        self.group_menu.setObjectName("filterGroupMenu")
        for i, act in enumerate(self.tree.group_actions.values()):
            if i and i % 2 == 0:
                self.group_menu.addSeparator()
            self.group_menu.addAction(act)
        self.add_group_button.setMenu(self.group_menu)
        self.move_button = QToolButton(self)
        self.move_button.setText("Move")
        self.move_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        name_widget(self.move_button, "filterMove", "Move the selected condition or group")
        self.move_button.setToolTip("Up, down, into the group above, out of its group")
        move_menu = QMenu(self.move_button)
        move_menu.setObjectName("filterMoveMenu")
        move_menu.addActions(self.tree.move_actions)
        move_menu.addSeparator()
        move_menu.addAction(self.tree.clear_action)
        self.move_button.setMenu(move_menu)
        self.remove_button = QPushButton("Remove", self)
        name_widget(self.remove_button, "filterRemove", "Remove the selected condition or group")
        self.remove_button.setToolTip("Remove the selected condition or group (Delete)")
        self.remove_button.clicked.connect(self.remove_selected)

        self.chain_scope = QComboBox(self)
        name_widget(self.chain_scope, "filterChainScope", "Chains")
        self.chain_scope.setToolTip("Rows of all chains you can see, the main chain, or one chain")
        self.chain_scope.addItem("All chains I can see", None)
        self.chain_scope.addItem("Main chain only", MAIN_CHAIN)
        self.chain_scope.activated.connect(self._on_chain_scope)

        self.columns_button = QToolButton(self)
        self.columns_button.setText("Columns && joins")
        self.columns_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        name_widget(self.columns_button, "filterColumns", "Columns to show and joins")
        self.columns_menu = KeepOpenMenu(self.columns_button)
        self.columns_button.setMenu(self.columns_menu)

        # -- editor of the selected item
        self.editor = QStackedWidget(self)
        hint = QLabel(
            "Nothing selected: “+ Condition” and “+ Group” add at the top level. Select a "
            "condition or group to edit it; a click below the rows or Esc clears the selection.",
            self,
        )
        hint.setWordWrap(True)
        self.editor.addWidget(hint)
        cond = QWidget(self)
        self.column = QComboBox(cond)
        self.column.setEditable(True)
        self.column.setMinimumContentsLength(14)
        make_searchable(self.column)  # 40 columns: any part of a name finds it
        self.column.setToolTip("The column: type part of its name to find it")
        name_widget(self.column, "filterColumn", "Column")
        self.column.currentTextChanged.connect(self._on_column)
        self.negate = QCheckBox("not", cond)
        name_widget(self.negate, "filterNegate", "Negate the condition")
        self.negate.toggled.connect(self._on_condition_edit)
        self.op = QComboBox(cond)
        name_widget(self.op, "filterOperator", "Operator")
        self.op.currentIndexChanged.connect(self._on_op)
        self.value = QLineEdit(cond)
        name_widget(self.value, "filterValue", "Value")
        self.value.textEdited.connect(self._on_condition_edit)
        self.value_choice = QComboBox(cond)
        name_widget(self.value_choice, "filterValueChoice", "Value")
        self.value_choice.activated.connect(self._on_condition_edit)
        crow = QHBoxLayout(cond)
        crow.setContentsMargins(0, 0, 0, 0)
        for w in (self.column, self.negate, self.op):
            crow.addWidget(w)
        crow.addWidget(self.value, 1)
        crow.addWidget(self.value_choice, 1)
        self.editor.addWidget(cond)
        grp = QWidget(self)
        self.group_op = QComboBox(grp)
        self.group_op.addItem("AND: all of", "and")
        self.group_op.addItem("OR: any of", "or")
        name_widget(self.group_op, "filterGroupOp", "Group operator")
        self.group_op.activated.connect(self._on_group_edit)
        self.group_negate = QCheckBox("not (negate the whole group)", grp)
        name_widget(self.group_negate, "filterGroupNegate", "Negate the group")
        self.group_negate.toggled.connect(self._on_group_edit)
        grow = QHBoxLayout(grp)
        grow.setContentsMargins(0, 0, 0, 0)
        grow.addWidget(self.group_op)
        grow.addWidget(self.group_negate)
        grow.addStretch(1)
        self.editor.addWidget(grp)
        self.steady_editor = SteadyHeight(self.editor)  # Apply below stays put

        # -- order and window
        self.order = QLineEdit(self)
        self.order.setPlaceholderText("e.g. weight.desc,vin — or click a column header")
        name_widget(self.order, "filterOrder", "Order")
        self.order.textEdited.connect(self._on_order_edit)
        self.limit = QSpinBox(self)
        self.limit.setRange(0, 1_000_000_000)
        self.limit.setSpecialValueText("no limit")
        name_widget(self.limit, "filterLimit", "Limit")
        self.limit.valueChanged.connect(self._on_window)
        self.offset = QSpinBox(self)
        self.offset.setRange(0, 1_000_000_000)
        name_widget(self.offset, "filterOffset", "Offset")
        self.offset.valueChanged.connect(self._on_window)

        # -- the query as text, preview, apply
        self.query_text = QLineEdit(self)
        self.query_text.setPlaceholderText(
            "the query string — edit it, or paste a /cirrus/search/... URL, then Enter"
        )
        name_widget(self.query_text, "filterQueryText", "Query string")
        self.query_text.returnPressed.connect(self.apply_text)
        # one read-only line that scrolls inside itself: a label of a long URL (no spaces to
        # wrap at) made the whole panel as wide as the URL on a small screen
        self.preview = QLineEdit(self)
        self.preview.setReadOnly(True)
        self.preview.setFrame(False)
        name_widget(self.preview, "filterPreview", "The request as it will be sent")
        self.problems = QLabel(self)
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet("color: #c0392b")
        name_widget(self.problems, "filterProblems", "Problems of the draft")
        self.apply_button = QPushButton("Apply", self)
        self.apply_button.setToolTip("Run the draft query (Ctrl+Return)")
        name_widget(self.apply_button, "filterApply", "Apply the filters")
        self.apply_button.clicked.connect(self.apply)
        self.revert_button = QPushButton("Revert", self)
        name_widget(self.revert_button, "filterRevert", "Back to the applied query")
        self.revert_button.clicked.connect(self.revert)
        QShortcut(QKeySequence("Ctrl+Return"), self, self.apply)

        tools = QHBoxLayout()
        tools.addWidget(self.add_condition_button)
        tools.addWidget(self.add_group_button)
        tools.addWidget(self.move_button)
        tools.addWidget(self.remove_button)
        tools.addStretch(1)
        tools.addWidget(self.chain_scope)
        tools.addWidget(self.columns_button)
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        window = QHBoxLayout()
        window.addWidget(self.order, 1)
        window.addWidget(QLabel("limit", self))
        window.addWidget(self.limit)
        window.addWidget(QLabel("offset", self))
        window.addWidget(self.offset)
        form.addRow("Order", window)
        form.addRow("Query", self.query_text)
        buttons = QHBoxLayout()
        buttons.addWidget(self.problems, 1)
        buttons.addWidget(self.revert_button)
        buttons.addWidget(self.apply_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(tools)
        lay.addWidget(self.tree, 1)
        lay.addWidget(self.editor)
        lay.addLayout(form)
        lay.addWidget(self.preview)
        lay.addLayout(buttons)
        self._refresh()

    def focus_order(self) -> list[QWidget]:
        """The builder's widgets in the order of its layout (the panel sets Tab's order)."""
        return [
            self.add_condition_button,
            self.add_group_button,
            self.move_button,
            self.remove_button,
            self.chain_scope,
            self.columns_button,
            self.tree,
            self.column,
            self.negate,
            self.op,
            self.value,
            self.value_choice,
            self.group_op,
            self.group_negate,
            self.order,
            self.limit,
            self.offset,
            self.query_text,
            self.revert_button,
            self.apply_button,
        ]

    # ------------------------------------------------------------ table and query

    def set_table(self, info: TableInfo) -> None:
        """Start a new draft on ``info``'s table (its columns drive the operators)."""
        self.info = info
        self.current = None
        self.set_draft(CirrusQuery(info.name))

    def set_table_info(self, info: TableInfo) -> None:
        """Column types arrived for the draft's table: keep the draft, refresh the choices."""
        self.info = info
        self._fill_columns()
        self._on_current(self.tree.currentIndex())
        self._refresh()

    def set_draft(self, query: CirrusQuery) -> None:
        """Edit a copy of ``query`` (tree, order, window and text follow it)."""
        self.draft = copy.deepcopy(query)
        self.model.set_where(self.draft.where)
        self._fill_columns()
        self._sync_fields()
        self.editor.setCurrentIndex(0)
        self._refresh()

    def set_chains(self, chains: list[tuple[str, str]]) -> None:
        """Private chains offered by the chain shortcut: (chain id, label)."""
        while self.chain_scope.count() > 2:
            self.chain_scope.removeItem(2)
        for cid, label in chains:
            self.chain_scope.addItem(f"{label or 'chain'} ({cid[:8]}…)", cid)
        self._sync_chain_scope()

    def _fill_columns(self) -> None:
        self._syncing = True
        text = self.column.currentText()
        self.column.clear()
        self.column.addItems([c.name for c in self.info.columns])
        self.column.setEditText(text)
        self._syncing = False
        self._fill_columns_menu()
        has_chain = not self.info.columns or self.info.column(CHAIN_COLUMN) is not None
        self.chain_scope.setEnabled(has_chain)

    def _sync_fields(self) -> None:
        self._syncing = True
        self.order.setText(",".join(_order_text(o) for o in self.draft.order))
        self.limit.setValue(self.draft.limit or 0)
        self.offset.setValue(self.draft.offset or 0)
        self._syncing = False
        self._sync_chain_scope()

    def _refresh(self) -> None:
        """Preview, problems, query text and the Apply button after any edit."""
        problems = self.draft_problems()
        try:
            qs = self.draft.to_query_string()
        except CirrusQueryError as exc:
            qs = ""
            problems = problems or [str(exc)]
        path = self.draft.path() if self.draft.table else "/cirrus/search/…"
        self.preview.setText(f"GET {path}" + (f"?{qs}" if qs else ""))
        self.preview.setCursorPosition(0)
        self.preview.setToolTip(self.preview.text())
        self.problems.setText("; ".join(problems))
        if not self.query_text.hasFocus():
            self.query_text.setText(qs)
        dirty = self.current is None or self.draft != self.current
        self.apply_button.setEnabled(bool(self.draft.table) and not problems and dirty)
        self.revert_button.setEnabled(self.current is not None and dirty)
        self.remove_button.setEnabled(self.tree.currentIndex().isValid())
        self.move_button.setEnabled(self.tree.currentIndex().isValid())
        condition_tip, group_tip = self.tree.tips()
        self.add_condition_button.setToolTip(condition_tip)
        self.add_group_button.setToolTip(group_tip)
        filters = _count_conditions(self.draft.where)
        self.setToolTip(f"Filtered by {filters} condition(s)" if filters else "No filters")

    def draft_problems(self) -> list[str]:
        """The query's own problems plus values that do not fit their column's type."""
        problems = [] if not self.draft.table else self.draft.validate()
        for c in _conditions(self.draft.where):
            info = self.info.column(c.column)
            if info is None or info.type != "number" or c.op == "is":
                continue
            values = c.value if isinstance(c.value, list) else [c.value or ""]
            bad = [v for v in values if not _NUMBER_RE.fullmatch(v.strip())]
            if bad:
                problems.append(f"{c.column} is a number column: {bad[0]!r} is not a number")
        return problems

    # ------------------------------------------------------------ apply / revert / text

    def apply(self) -> None:
        if not self.apply_button.isEnabled():
            return
        self.current = copy.deepcopy(self.draft)
        self._refresh()
        self.applied.emit(copy.deepcopy(self.current))

    def revert(self) -> None:
        if self.current is not None:
            current = self.current
            self.set_draft(current)
            self.current = current
            self._refresh()

    def mark_applied(self, query: CirrusQuery) -> None:
        """The panel ran ``query`` (e.g. a saved one): it is the new applied and draft query."""
        self.set_draft(query)
        self.current = copy.deepcopy(query)
        self._refresh()

    def apply_text(self) -> None:
        """Rebuild the tree from the query line (a query string or a whole URL), then apply."""
        text = self.query_text.text().strip()
        try:
            if "/cirrus/search/" in text:
                q = CirrusQuery.from_url(text)
            else:
                q = CirrusQuery.from_query_string(self.draft.table, text)
        except CirrusQueryError as exc:
            self.problems.setText(f"cannot read the query: {exc}")
            return
        if q.table != self.draft.table:
            self.table_requested.emit(q.table)
        self.set_draft(q)
        self.query_text.clearFocus()
        self._refresh()
        self.apply()

    # ------------------------------------------------------------ tree edits

    def _new_condition(self) -> Condition:
        col = self._default_column()
        ops = operators_for(col.type) if col else OPERATORS
        return Condition(col.name if col else "", ops[0], _default_value(ops[0]))

    def add_condition(self, condition: Condition | None = None, place: Place = "next") -> Condition:
        """Add a condition to the selected group (or next to the selected condition); "top":
        to the top level."""
        return self.tree.add_condition(place, condition)

    def _add_clicked(self) -> None:
        self.add_condition()

    def _add_group_clicked(self) -> None:
        self.add_group()

    def add_group(self, op: str | None = None, place: Place = "next") -> Group:
        """Add an AND/OR group, with one condition to start from, next to the selection ("top":
        at the top level, "inside": inside the selected group). Without ``op`` an OR goes into
        an AND and an AND into an OR."""
        return self.tree.add_group(op, place)

    def remove_selected(self) -> None:
        self.tree.remove_selected()

    def _on_structure(self) -> None:
        self._sync_chain_scope()
        self._refresh()

    def _default_column(self) -> ColumnInfo | None:
        standard = {*STANDARD_COLUMNS, "id"}
        own = [c for c in self.info.columns if c.name not in standard]
        columns = own or self.info.columns
        return columns[0] if columns else None

    def _on_current(self, index: QModelIndex) -> None:
        node = self.model.node(index) if index.isValid() else None
        self._syncing = True
        if isinstance(node, Condition):
            self.column.setEditText(node.column)
            self.negate.setChecked(node.negate)
            self._fill_ops(node.column, node.op)
            self._show_value(node)
            self.editor.setCurrentIndex(1)
        elif isinstance(node, Group):
            self.group_op.setCurrentIndex(0 if node.op == "and" else 1)
            self.group_negate.setChecked(node.negate)
            self.editor.setCurrentIndex(2)
        else:
            self.editor.setCurrentIndex(0)
        self._syncing = False
        self.remove_button.setEnabled(index.isValid())
        self.move_button.setEnabled(index.isValid())
        condition_tip, group_tip = self.tree.tips()
        self.add_condition_button.setToolTip(condition_tip)
        self.add_group_button.setToolTip(group_tip)

    def _selected_condition(self) -> Condition | None:
        index = self.tree.currentIndex()
        node = self.model.node(index) if index.isValid() else None
        return node if isinstance(node, Condition) else None

    def _fill_ops(self, column: str, current: str) -> None:
        info = self.info.column(column)
        ops = operators_for(info.type) if info else OPERATORS
        if current not in ops:
            ops = (*ops, current) if current in OPERATORS else ops
        self.op.clear()
        for op in ops:
            self.op.addItem(OP_LABELS[op], op)
        self.op.setCurrentIndex(max(0, self.op.findData(current)))

    def _value_choices(self, c: Condition) -> list[str] | None:
        """Fixed values for ``is`` and for boolean columns; None: free text."""
        if c.op == "is":
            return list(IS_VALUES)
        info = self.info.column(c.column)
        if info is not None and info.type == "boolean" and c.op in ("eq", "neq"):
            return ["true", "false"]
        return None

    def _show_value(self, c: Condition) -> None:
        choices = self._value_choices(c)
        self.value.setVisible(choices is None)
        self.value_choice.setVisible(choices is not None)
        if choices is not None:
            self.value_choice.clear()
            self.value_choice.addItems(choices)
            self.value_choice.setCurrentIndex(max(0, self.value_choice.findText(str(c.value))))
        elif isinstance(c.value, list):
            self.value.setText(join_list(c.value))
            self.value.setPlaceholderText('values separated by commas; "quote, if needed"')
        else:
            self.value.setText(c.value or "")
            info = self.info.column(c.column)
            hint = "text; * is a wildcard" if c.op in ("like", "ilike") else "value"
            if info is not None and info.type == "number":
                hint = "a number"
            elif c.column == CHAIN_COLUMN:
                hint = "chain ID; empty = main chain"
            self.value.setPlaceholderText(hint)

    def _on_column(self, text: str) -> None:
        c = self._selected_condition()
        if self._syncing or c is None:
            return
        c.column = text.strip()
        info = self.info.column(c.column)
        ops = operators_for(info.type) if info else OPERATORS
        self._syncing = True
        self._fill_ops(c.column, c.op if c.op in ops else ops[0])
        self._syncing = False
        self._on_op()

    def _on_op(self, _i: int = 0) -> None:
        c = self._selected_condition()
        if self._syncing or c is None:
            return
        op = str(self.op.currentData() or c.op)
        if op != c.op:
            c.op = op
            if op == "in" and isinstance(c.value, str):
                c.value = split_list(c.value) if c.value else []
            elif op != "in" and isinstance(c.value, list):
                c.value = ", ".join(c.value or [])
            choices = self._value_choices(c)
            if choices is not None and c.value not in choices:
                c.value = choices[0]
        self._syncing = True
        self._show_value(c)
        self._syncing = False
        self._on_condition_edit()

    def _on_condition_edit(self, *_: Any) -> None:
        c = self._selected_condition()
        if self._syncing or c is None:
            return
        c.negate = self.negate.isChecked()
        if self._value_choices(c) is not None:
            c.value = self.value_choice.currentText()
        elif c.op == "in":
            try:
                c.value = split_list(self.value.text())
            except csv.Error:
                c.value = [self.value.text()]
        else:
            c.value = self.value.text()
        self.model.node_changed(c)
        self._sync_chain_scope()
        self._refresh()

    def _on_group_edit(self, *_: Any) -> None:
        index = self.tree.currentIndex()
        g = self.model.node(index) if index.isValid() else None
        if self._syncing or not isinstance(g, Group):
            return
        g.op = "and" if self.group_op.currentData() == "and" else "or"
        g.negate = self.group_negate.isChecked()
        self.model.node_changed(g)
        self._refresh()

    # ------------------------------------------------------------ chain shortcut

    def _chain_condition(self) -> Condition | None:
        for item in self.draft.where.items:
            if (
                isinstance(item, Condition)
                and item.column == CHAIN_COLUMN
                and item.op == "eq"
                and not item.negate
            ):
                return item
        return None

    def _on_chain_scope(self, _i: int) -> None:
        wanted = self.chain_scope.currentData()
        existing = self._chain_condition()
        if wanted is None:
            if existing is not None:
                self.model.remove(self.model.index_of(existing))
        elif existing is not None:
            existing.value = str(wanted)
            self.model.node_changed(existing)
        else:
            self.model.insert(self.draft.where, Condition(CHAIN_COLUMN, "eq", str(wanted)), 0)
        self._on_current(self.tree.currentIndex())
        self._refresh()

    def _sync_chain_scope(self) -> None:
        c = self._chain_condition()
        value = None if c is None else c.value
        i = self.chain_scope.findData(value) if value is not None else 0
        if i < 0 and isinstance(value, str):
            self.chain_scope.addItem(f"chain {value[:8]}…", value)
            i = self.chain_scope.count() - 1
        self.chain_scope.setCurrentIndex(max(i, 0))

    # ------------------------------------------------------------ columns, joins, order

    def _fill_columns_menu(self) -> None:
        menu = self.columns_menu
        menu.clear()
        all_action = menu.addAction("All columns")
        all_action.setCheckable(True)
        all_action.setChecked(not self.draft.select)
        all_action.setObjectName("columnsAll")
        all_action.triggered.connect(lambda: self.set_columns([], self.draft.embeds))
        menu.addSeparator()
        shown = set(self.draft.select)
        for c in self.info.columns:
            act = menu.addAction(c.name + (f"  → {c.ref}" if c.ref else ""))
            act.setCheckable(True)
            act.setChecked(bool(shown) and c.name in shown)
            act.setObjectName(f"column:{c.name}")
            act.setData(c.name)
            act.toggled.connect(self._on_column_toggled)
        joins = self.info.joins
        if joins:
            menu.addSeparator()
            refs = [c.ref for c in joins]
            joined = {(e.table, e.via) for e in self.draft.embeds}
            for c in joins:
                assert c.ref is not None
                via = c.name if refs.count(c.ref) > 1 else ""
                act = menu.addAction(f"Join {c.ref} through {c.name}")
                act.setCheckable(True)
                act.setChecked((c.ref, via) in joined)
                act.setObjectName(f"join:{c.name}")
                act.setData((c.ref, via))
                act.toggled.connect(self._on_join_toggled)
        menu.addSeparator()
        if not self.info.columns:
            menu.addAction("(columns appear once the table is read)").setEnabled(False)

    def _on_column_toggled(self, on: bool) -> None:
        act = self.sender()
        if not isinstance(act, QAction):
            return
        name = str(act.data())
        cols = list(self.draft.select) or []
        if on and name not in cols:
            cols.append(name)
        elif not on and name in cols:
            cols.remove(name)
        order = [c.name for c in self.info.columns]
        cols.sort(key=lambda n: order.index(n) if n in order else len(order))
        self.set_columns(cols, self.draft.embeds)

    def _on_join_toggled(self, on: bool) -> None:
        act = self.sender()
        if not isinstance(act, QAction):
            return
        table, via = act.data()
        embeds = [e for e in self.draft.embeds if (e.table, e.via) != (table, via)]
        if on:
            embeds.append(Embed(str(table), ["*"], str(via)))
        self.set_columns(list(self.draft.select), embeds)

    def set_columns(self, select: list[str], embeds: list[Embed]) -> None:
        """Show these columns and joins; applied at once (the filters stay a draft)."""
        self.draft.select = list(select)
        self.draft.embeds = copy.deepcopy(embeds)
        self._check_columns_menu()
        self._apply_shape()

    def _check_columns_menu(self) -> None:
        """The open menu's ticks after a change (its actions kept: it stays open)."""
        shown, joined = set(self.draft.select), {(e.table, e.via) for e in self.draft.embeds}
        ticks = {"columnsAll": not shown}
        for act in self.columns_menu.actions():
            if act.objectName().startswith("column:"):
                ticks[act.objectName()] = bool(shown) and act.data() in shown
            elif act.objectName().startswith("join:"):
                ticks[act.objectName()] = tuple(act.data()) in joined
        self.columns_menu.set_ticks(ticks)

    def set_order(self, order: list[Order]) -> None:
        """Sort by ``order`` (a header click); applied at once (the filters stay a draft)."""
        self.draft.order = list(order)
        self._sync_fields()
        self._apply_shape()

    def _apply_shape(self) -> None:
        """Run the applied query with the draft's columns, joins and order."""
        if self.current is None:
            self._refresh()
            return
        self.current = replace(
            self.current,
            select=list(self.draft.select),
            embeds=copy.deepcopy(self.draft.embeds),
            order=list(self.draft.order),
        )
        self._refresh()
        if not self.current.validate():
            self.applied.emit(copy.deepcopy(self.current))

    def _on_order_edit(self, text: str) -> None:
        if self._syncing:
            return
        try:
            probe = CirrusQuery.from_params(self.draft.table or "t", [("order", text)])
            self.draft.order = probe.order
        except CirrusQueryError as exc:
            if text.strip():
                self.problems.setText(f"order: {exc.message}")
                self.apply_button.setEnabled(False)
                return
            self.draft.order = []
        self._refresh()

    def _on_window(self, _v: int = 0) -> None:
        if self._syncing:
            return
        self.draft.limit = self.limit.value() or None
        self.draft.offset = self.offset.value() or None
        self._refresh()


def _order_text(o: Order) -> str:
    text = o.column + (".desc" if o.desc else "")
    if o.nulls_first is not None:
        text += ".nullsfirst" if o.nulls_first else ".nullslast"
    return text


def _conditions(g: Group) -> list[Condition]:
    out: list[Condition] = []
    for item in g.items:
        if isinstance(item, Condition):
            out.append(item)
        else:
            out.extend(_conditions(item))
    return out


def _count_conditions(g: Group) -> int:
    return len(_conditions(g))


def _default_value(op: str) -> str | list[str]:
    if op == "in":
        return []
    if op == "is":
        return "null"
    return ""
