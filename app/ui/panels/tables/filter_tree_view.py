"""The filter builder's tree view and its structural edits, so that any tree can be built with
the mouse or the keyboard alone.

Where new items go is always said and can be chosen: a condition goes into the selected group
(or next to the selected condition), a group goes next to the selection; both can go to the top
level, and a group inside the selected group. A click on the empty area below the rows, or
Escape, clears the selection (new items then go to the top level). Items move up and down, into
the group above, out of their group, or into a new group of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from PySide6.QtCore import QModelIndex, QPoint, QSize, Qt, Signal
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence, QMouseEvent
from PySide6.QtWidgets import QMenu, QTreeView, QWidget

from app.client.cirrus_query import Condition, Group
from app.ui.panels.tables.filter_tree_model import FilterTreeModel, Node, describe_group

Place = Literal["next", "top", "inside"]


def other_op(g: Group) -> Literal["and", "or"]:
    """The useful operator of a group inside ``g``: an OR inside an AND, an AND inside an OR."""
    return "or" if g.op == "and" else "and"


class FilterTreeView(QTreeView):
    """Signals: edited(): items were added, removed or moved (the draft changed)."""

    edited = Signal()

    def __init__(
        self,
        model: FilterTreeModel,
        new_condition: Callable[[], Condition],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.filters = model
        self.new_condition = new_condition
        self.setModel(model)
        self.setUniformRowHeights(True)
        self.setSelectionMode(QTreeView.SelectionMode.SingleSelection)
        model.rowsInserted.connect(lambda *_: self.expandAll())
        model.rowsMoved.connect(lambda *_: self.expandAll())
        model.modelReset.connect(self.expandAll)

        def action(text: str, name: str, slot: Callable[[], object], key: str = "") -> QAction:
            act = QAction(text, self)
            act.setObjectName(name)
            act.triggered.connect(lambda _=False: slot())
            if key:
                act.setShortcut(QKeySequence(key))
                act.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
                self.addAction(act)  # the shortcut works while the tree has the focus
            return act

        self.condition_here = action("Condition here", "filterConditionHere", self.add_condition)
        self.condition_top = action(
            "Condition at the top level", "filterConditionTop", lambda: self.add_condition("top")
        )
        self.group_actions: dict[tuple[str, Place], QAction] = {}
        places: tuple[tuple[Place, str], ...] = (
            ("next", "next to the selection"),
            ("top", "at the top level"),
            ("inside", "inside the selected group"),
        )
        for place, where in places:
            for op, word in (("or", "OR group (any of)"), ("and", "AND group (all of)")):
                self.group_actions[(op, place)] = action(
                    f"{word} {where}",
                    f"filterGroup{op.upper()}{place.capitalize()}",
                    self._group_adder(op, place),
                )
        self.remove_action = action("Remove", "filterRemoveItem", self.remove_selected, "Del")
        self.up_action = action("Move up", "filterMoveUp", self.move_up, "Ctrl+Shift+Up")
        self.down_action = action("Move down", "filterMoveDown", self.move_down, "Ctrl+Shift+Down")
        self.indent_action = action(
            "Into the group above", "filterIndent", self.indent, "Ctrl+Shift+Right"
        )
        self.outdent_action = action(
            "Out of its group", "filterOutdent", self.outdent, "Ctrl+Shift+Left"
        )
        self.wrap_action = action("Into a new group", "filterWrap", self.wrap)
        self.clear_action = action("Clear the selection (Esc)", "filterDeselect", self.deselect)
        self.move_actions = [
            self.up_action,
            self.down_action,
            self.indent_action,
            self.outdent_action,
            self.wrap_action,
        ]
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._context_menu)
        self.selectionModel().currentChanged.connect(lambda *_: self.update_actions())
        model.rowsInserted.connect(lambda *_: self.update_actions())
        model.rowsMoved.connect(lambda *_: self.update_actions())
        model.rowsRemoved.connect(lambda *_: self.update_actions())
        model.modelReset.connect(self.update_actions)
        self.update_actions()

    def sizeHint(self) -> QSize:
        """About five rows: the tree grows with the space it gets, but does not ask for more
        (the builder scrolls on a small screen and this keeps it short)."""
        hint = super().sizeHint()
        rows = self.fontMetrics().height() + 4
        return QSize(
            hint.width(), self.header().sizeHint().height() + 5 * rows + 2 * self.frameWidth()
        )

    # ------------------------------------------------------------ selection

    def selected(self) -> Node | None:
        index = self.currentIndex()
        return self.filters.node(index) if index.isValid() else None

    def deselect(self) -> None:
        """No selection: new conditions and groups go to the top level."""
        self.selectionModel().clear()  # current index too: currentChanged follows

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if not self.indexAt(event.position().toPoint()).isValid():
            self.deselect()
            event.accept()
            return
        super().mousePressEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and self.currentIndex().isValid():
            self.deselect()
            event.accept()
            return
        super().keyPressEvent(event)

    def target(self, place: Place) -> Group:
        """The group a new item goes into."""
        node = self.selected()
        root = self.filters.root
        if node is None or place == "top":
            return root
        if place == "inside" and isinstance(node, Group):
            return node
        return self.filters.parent_group(node) or root

    def condition_target(self, place: Place = "next") -> Group:
        """Conditions go into the selected group, or next to the selected condition."""
        node = self.selected()
        if place != "top" and isinstance(node, Group):
            return node
        return self.target(place)

    def _where(self, g: Group) -> str:
        if g is self.filters.root:
            return "the top level (all must hold)"
        return f"the group “{describe_group(g)}”"

    def update_actions(self) -> None:
        """Enable what applies to the selection and say where new items go."""
        node = self.selected()
        parent = self.filters.parent_group(node) if node is not None else None
        row = parent.items.index(node) if parent is not None and node is not None else -1
        above = parent.items[row - 1] if parent is not None and row > 0 else None
        self.remove_action.setEnabled(node is not None)
        self.up_action.setEnabled(row > 0)
        self.down_action.setEnabled(parent is not None and 0 <= row < len(parent.items) - 1)
        self.indent_action.setEnabled(isinstance(above, Group))
        self.outdent_action.setEnabled(parent is not None and parent is not self.filters.root)
        self.wrap_action.setEnabled(node is not None)
        self.clear_action.setEnabled(node is not None)
        for (_op, place), act in self.group_actions.items():
            act.setEnabled(place != "inside" or isinstance(node, Group))
        self.condition_here.setText(f"Condition in {self._where(self.condition_target())}")

    def tips(self) -> tuple[str, str]:
        """What "+ Condition" and "+ Group" do with the current selection, in words."""
        group = self.target("next")
        return (
            f"Add a condition to {self._where(self.condition_target())} "
            "(the menu offers the top level)",
            f"Add an {other_op(group).upper()} group to {self._where(group)} (the menu offers "
            "AND or OR, the top level and the inside of the selected group)",
        )

    # ------------------------------------------------------------ edits

    def _added(self, index: QModelIndex) -> None:
        self.setCurrentIndex(index)
        self.update_actions()
        self.edited.emit()

    def add_condition(self, place: Place = "next", condition: Condition | None = None) -> Condition:
        """Add a condition (a new one by default) where ``place`` says; it becomes selected."""
        c = condition if condition is not None else self.new_condition()
        self._added(self.filters.insert(self.condition_target(place), c))
        return c

    def add_group(self, op: str | None = None, place: Place = "next") -> Group:
        """Add a group with one condition to start from; that condition becomes selected.
        Without ``op``: an OR in an AND, an AND in an OR."""
        target = self.target(place)
        group = Group(("and" if op == "and" else "or") if op else other_op(target), [])
        self.filters.insert(target, group)
        self._added(self.filters.insert(group, self.new_condition()))
        return group

    def _group_adder(self, op: str, place: Place) -> Callable[[], Group]:
        return lambda: self.add_group(op, place)

    def remove_selected(self) -> None:
        index = self.currentIndex()
        if index.isValid():
            self.filters.remove(index)
            self.update_actions()
            self.edited.emit()

    def _move(self, group: Group, row: int) -> None:
        node = self.selected()
        if node is not None:
            self._added(self.filters.move(node, group, row))

    def _position(self) -> tuple[Node, Group, int] | None:
        node = self.selected()
        parent = self.filters.parent_group(node) if node is not None else None
        if node is None or parent is None:
            return None
        return node, parent, parent.items.index(node)

    def move_up(self) -> None:
        if (pos := self._position()) and pos[2] > 0:
            self._move(pos[1], pos[2] - 1)

    def move_down(self) -> None:
        if (pos := self._position()) and pos[2] < len(pos[1].items) - 1:
            self._move(pos[1], pos[2] + 2)

    def indent(self) -> None:
        """Into the group just above, as its last item."""
        if (pos := self._position()) and pos[2] > 0:
            above = pos[1].items[pos[2] - 1]
            if isinstance(above, Group):
                self._move(above, len(above.items))

    def outdent(self) -> None:
        """Out of its group, just after it."""
        pos = self._position()
        outer = self.filters.parent_group(pos[1]) if pos else None
        if pos and outer is not None:
            self._move(outer, outer.items.index(pos[1]) + 1)

    def wrap(self) -> None:
        """Into a new group of its own, in its place (then add to it, or negate it)."""
        if pos := self._position():
            group = Group(other_op(pos[1]), [])
            self.filters.insert(pos[1], group, pos[2])
            self._move(group, 0)

    def _context_menu(self, pos: QPoint) -> QMenu:
        self.update_actions()
        menu = QMenu(self)
        menu.setObjectName("filterTreeMenu")
        menu.addAction(self.condition_here)
        menu.addAction(self.condition_top)
        menu.addSeparator()
        for act in self.group_actions.values():
            menu.addAction(act)
        menu.addSeparator()
        for act in self.move_actions:
            menu.addAction(act)
        menu.addSeparator()
        menu.addAction(self.remove_action)
        menu.addAction(self.clear_action)
        menu.popup(self.viewport().mapToGlobal(pos))
        return menu
