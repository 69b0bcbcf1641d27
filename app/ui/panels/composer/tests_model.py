"""The Tests view's tree: files -> `Describe_*` contracts -> tests, with each test's status.

Discovery merges into the tree (nodes that stay keep their results; only what appeared or went
away is inserted or removed) and every result changes one row and its parents' counts, so a run
of hundreds of tests never resets the model: the selection, the scroll position and what is
expanded stay put while results stream in.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QIcon

from app.client.test_runner import CompileFailure, TestCase, TestOutcome
from app.ui.shell.icons import tinted

Index = QModelIndex | QPersistentModelIndex

NOT_RUN, QUEUED, RUNNING, PASSED, FAILED, ERROR = (
    "not run",
    "queued",
    "running",
    "passed",
    "failed",
    "compile error",
)
HEADERS = ("Test", "Status", "Time")
NODE_ROLE = Qt.ItemDataRole.UserRole + 1  # the TestNode of a row
STATUS_ROLE = Qt.ItemDataRole.UserRole + 2  # its status word (a parent's: the worst below)

_ICONS = {
    PASSED: ("mdi6.check-circle", "#2e7d32"),
    FAILED: ("mdi6.close-circle", "#c62828"),
    ERROR: ("mdi6.alert-circle", "#c62828"),
    RUNNING: ("mdi6.progress-clock", "#1565c0"),
    QUEUED: ("mdi6.clock-outline", "#808080"),
    NOT_RUN: ("mdi6.circle-outline", "#808080"),
}


@dataclass(eq=False)
class TestNode:
    """A row: a file (``key`` = its path), a contract (its name) or a test (its id)."""

    __test__ = False  # not a pytest test class

    kind: str  # "file", "contract" or "test"
    key: str
    file: str
    parent: TestNode | None = None
    children: list[TestNode] = field(default_factory=list)
    case: TestCase | None = None
    status: str = NOT_RUN  # a test's own status
    outcome: TestOutcome | None = None
    failure: CompileFailure | None = None  # a file's compile error
    uid: int = 0
    row: int = 0
    # a parent's counts and time, kept until something below it changes (rows paint often)
    _cache: tuple[dict[str, int], float | None] | None = field(default=None, repr=False)

    def tests(self) -> Iterator[TestNode]:
        """The tests at or below this node, in order."""
        if self.kind == "test":
            yield self
        for c in self.children:
            yield from c.tests()

    def counts(self) -> dict[str, int]:
        return self._summary()[0]

    def _summary(self) -> tuple[dict[str, int], float | None]:
        if self._cache is None:
            counts = dict.fromkeys(_ICONS, 0)
            times: list[float] = []
            for t in self.tests():
                counts[t.status] += 1
                if t.outcome is not None:
                    times.append(t.outcome.seconds)
            self._cache = (counts, sum(times) if times else None)
        return self._cache

    def forget(self) -> None:
        """Something at or below this node changed: its counts are computed again."""
        n: TestNode | None = self
        while n is not None:
            n._cache = None
            n = n.parent

    def summary_status(self) -> str:
        """A test's status; for a parent the one that matters most below it."""
        if self.kind == "test":
            return self.status
        if self.failure is not None:
            return ERROR
        c = self.counts()
        for status in (ERROR, FAILED, RUNNING, QUEUED):
            if c[status]:
                return status
        total = sum(c.values())
        return PASSED if total and c[PASSED] == total else NOT_RUN

    def seconds(self) -> float | None:
        return self._summary()[1]


class TestsModel(QAbstractItemModel):
    """Columns: test name, status (with counts on files and contracts), time."""

    __test__ = False

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.root_path: Path | None = None  # file rows are named relative to it
        self.root = TestNode("root", "", "")
        self._uids = itertools.count(1)
        self._nodes: dict[int, TestNode] = {}
        self._files: dict[str, TestNode] = {}
        self._tests: dict[tuple[str, str], TestNode] = {}  # (file, case id) -> node

    # ------------------------------------------------------------ lookups

    def node(self, index: Index) -> TestNode:
        if not index.isValid():
            return self.root
        return self._nodes[index.internalId()]

    def index_of(self, node: TestNode, column: int = 0) -> QModelIndex:
        if node is self.root or node.uid not in self._nodes:
            return QModelIndex()
        return self.createIndex(node.row, column, node.uid)

    def files(self) -> list[TestNode]:
        return list(self.root.children)

    def file_node(self, path: str) -> TestNode | None:
        """The row of the file ``path`` (spelled as the runner does: a normalised path)."""
        return self._files.get(path) or self._files.get(os.path.normpath(path))

    def test_node(self, case: TestCase) -> TestNode | None:
        return self._tests.get((case.file, case.id))

    def all_tests(self) -> list[TestNode]:
        return list(self.root.tests())

    def totals(self) -> dict[str, int]:
        return self.root.counts()

    # ------------------------------------------------------------ discovery

    def set_discovered(self, cases: Iterable[TestCase], failures: Iterable[CompileFailure]) -> None:
        """The project's tests as found now: new ones are added, gone ones removed, the rest
        keep their last result."""
        by_file: dict[str, list[TestCase]] = {}
        for c in cases:
            by_file.setdefault(c.file, []).append(c)
        broken = {f.file: f for f in failures}
        for path in broken:
            by_file.setdefault(path, [])
        self._sync(self.root, sorted(by_file), lambda path: self._new("file", path, path))
        for path, file_cases in by_file.items():
            fnode = self._files[path]
            self._set_failure(fnode, broken.get(path))
            self._sync_file(fnode, file_cases, remove=True)

    def add_cases(self, cases: Iterable[TestCase]) -> None:
        """Tests a run found: added where missing (nothing is removed: a run may cover only
        some files or tests)."""
        by_file: dict[str, list[TestCase]] = {}
        for c in cases:
            by_file.setdefault(c.file, []).append(c)
        for path, file_cases in by_file.items():
            fnode = self._files.get(path) or self._add_file(path)
            self._sync_file(fnode, file_cases, remove=False)

    def _add_file(self, path: str) -> TestNode:
        wanted = sorted([*self._files, path])
        self._sync(self.root, wanted, lambda p: self._new("file", p, p), remove=False)
        return self._files[path]

    def _sync_file(self, fnode: TestNode, cases: list[TestCase], *, remove: bool) -> None:
        contracts: dict[str, list[TestCase]] = {}
        for c in cases:
            contracts.setdefault(c.contract, []).append(c)
        path = fnode.key
        self._sync(fnode, list(contracts), lambda n: self._new("contract", n, path), remove=remove)
        for cnode in fnode.children:
            wanted = contracts.get(cnode.key)
            if wanted is None:
                continue
            by_id = {c.id: c for c in wanted}
            self._sync(cnode, list(by_id), self._test_maker(by_id, path), remove=remove)
            for t in cnode.children:
                if t.key in by_id:
                    t.case = by_id[t.key]  # its line may have moved

    def _new(self, kind: str, key: str, file: str) -> TestNode:
        return TestNode(kind, key, file)

    def _test_maker(self, by_id: dict[str, TestCase], path: str) -> Callable[[str], TestNode]:
        def make(test_id: str) -> TestNode:
            n = self._new("test", test_id, path)
            n.case = by_id[test_id]
            return n

        return make

    def _sync(
        self,
        parent: TestNode,
        wanted: list[str],
        make: Callable[[str], TestNode],
        *,
        remove: bool = True,
    ) -> None:
        """Make ``parent``'s children follow ``wanted`` (keys, in order) with row inserts and
        removals only; children that stay keep their state."""
        keep = set(wanted)
        if remove:
            for row in reversed(range(len(parent.children))):
                if parent.children[row].key not in keep:
                    self._remove(parent, row)
        present = {c.key for c in parent.children}
        order = [k for k in wanted if k in present]
        if remove and [c.key for c in parent.children] != order:
            # moved in the source: take them out and put them back in the new order
            moved = {c.key: c for c in parent.children}
            while parent.children:
                self._remove(parent, len(parent.children) - 1)
            for k in order:
                self._insert(parent, len(parent.children), moved[k])
        at = {c.key: i for i, c in enumerate(parent.children)}
        for i, key in enumerate(wanted):
            if key in at:
                continue
            if remove:
                row = i
            else:  # after the wanted key before it, when present
                before = [at[k] for k in wanted[:i] if k in at]
                row = max(before) + 1 if before else len(parent.children)
            self._insert(parent, min(row, len(parent.children)), make(key))
            at = {c.key: j for j, c in enumerate(parent.children)}

    def _insert(self, parent: TestNode, row: int, node: TestNode) -> None:
        self.beginInsertRows(self.index_of(parent), row, row)
        node.parent = parent
        parent.children.insert(row, node)
        self._renumber(parent)
        self._register(node)
        self.endInsertRows()
        self._changed(parent)  # its counts

    def _remove(self, parent: TestNode, row: int) -> None:
        self.beginRemoveRows(self.index_of(parent), row, row)
        node = parent.children.pop(row)
        self._unregister(node)
        self._renumber(parent)
        self.endRemoveRows()
        self._changed(parent)

    def _renumber(self, parent: TestNode) -> None:
        for i, c in enumerate(parent.children):
            c.row = i

    def _register(self, node: TestNode) -> None:
        node.uid = next(self._uids)
        self._nodes[node.uid] = node
        if node.kind == "file":
            self._files[node.key] = node
        elif node.kind == "test" and node.case is not None:
            self._tests[(node.file, node.key)] = node
        for c in node.children:
            self._register(c)

    def _unregister(self, node: TestNode) -> None:
        self._nodes.pop(node.uid, None)
        if node.kind == "file":
            self._files.pop(node.key, None)
        elif node.kind == "test":
            self._tests.pop((node.file, node.key), None)
        for c in node.children:
            self._unregister(c)

    # ------------------------------------------------------------ results

    def set_status(self, tests: Iterable[TestNode], status: str) -> None:
        """Put ``tests`` in ``status`` (queued before a run, back to not run after a stop);
        their results are cleared when they are queued."""
        changed = list(tests)
        for t in changed:
            if status == QUEUED:
                t.outcome = None
            t.status = status
        self._changed(*changed)

    def started(self, case: TestCase) -> None:
        node = self.test_node(case) or self._added(case)
        node.status = RUNNING
        self._changed(node)

    def finished(self, outcome: TestOutcome) -> TestNode:
        node = self.test_node(outcome.case) or self._added(outcome.case)
        node.outcome = outcome
        node.status = PASSED if outcome.passed else FAILED
        self._changed(node)
        return node

    def compile_failed(self, failure: CompileFailure) -> None:
        fnode = self._files.get(failure.file) or self._add_file(failure.file)
        self._set_failure(fnode, failure)

    def clear_failures(self, files: Iterable[str]) -> None:
        for path in files:
            fnode = self._files.get(path)
            if fnode is not None:
                self._set_failure(fnode, None)

    def run_ended(self) -> None:
        """Tests still queued or running did not run (the run stopped or failed)."""
        self.set_status([t for t in self.root.tests() if t.status in (QUEUED, RUNNING)], NOT_RUN)

    def _added(self, case: TestCase) -> TestNode:
        self.add_cases([case])
        node = self.test_node(case)
        assert node is not None
        return node

    def _set_failure(self, fnode: TestNode, failure: CompileFailure | None) -> None:
        if fnode.failure != failure:
            fnode.failure = failure
            self._changed(fnode)

    def _changed(self, *nodes: TestNode) -> None:
        """Rows changed, and so did their parents' rows (their counts): each row is told
        once."""
        rows: dict[int, TestNode] = {}
        for node in nodes:
            node.forget()
            if node is self.root:
                continue
            n: TestNode | None = node
            while n is not None and n is not self.root and n.uid not in rows:
                rows[n.uid] = n
                n = n.parent
        last = len(HEADERS) - 1
        for n in rows.values():
            self.dataChanged.emit(self.index_of(n, 0), self.index_of(n, last))

    # ------------------------------------------------------------ Qt model

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        p = self.node(parent)
        if row >= len(p.children):
            return QModelIndex()
        return self.createIndex(row, column, p.children[row].uid)

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid():
            return QModelIndex()
        up = self.node(index).parent
        return self.index_of(up) if up is not None else QModelIndex()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self.node(parent).children)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(HEADERS)
        ):
            return HEADERS[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node = self.node(index)
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(node, col)
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            return status_icon(node.summary_status())
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(node)
        if role == NODE_ROLE:
            return node
        if role == STATUS_ROLE:
            return node.summary_status()
        if role == Qt.ItemDataRole.TextAlignmentRole and col == 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _text(self, node: TestNode, col: int) -> str:
        if col == 0:
            if node.kind == "file":
                return self._file_name(node.key)
            if node.kind == "test" and node.case is not None:
                return node.case.name
            return node.key
        if col == 1:
            if node.kind == "test":
                return node.status
            if node.failure is not None:
                return ERROR
            return short_counts(node.counts())
        seconds = node.seconds()
        return f"{seconds:.2f} s" if seconds is not None else ""

    def _file_name(self, path: str) -> str:
        if self.root_path is not None:
            try:
                return Path(path).relative_to(self.root_path).as_posix()
            except ValueError:
                pass
        return Path(path).name

    def _tooltip(self, node: TestNode) -> str:
        if node.failure is not None:
            return f"{node.failure.message} (line {node.failure.line})"
        if node.outcome is not None and not node.outcome.passed:
            return node.outcome.message or "failed"
        if node.kind == "test":
            took = f" in {node.outcome.seconds:.2f} s" if node.outcome is not None else ""
            return f"{node.key}: {node.status}{took}"
        text = counts_text(node.counts())
        return f"{node.key}: {text}" if node.kind == "file" else text


def counts_text(counts: dict[str, int]) -> str:
    """A parent's status column: "3/5 passed, 1 failed" ("5 tests" before any ran)."""
    total = sum(counts.values())
    ran = counts[PASSED] + counts[FAILED]
    if not ran:
        busy = counts[RUNNING] + counts[QUEUED]
        return f"{busy}/{total} to run" if busy else f"{total} test{'s' if total != 1 else ''}"
    text = f"{counts[PASSED]}/{total} passed"
    return text + (f", {counts[FAILED]} failed" if counts[FAILED] else "")


def short_counts(counts: dict[str, int]) -> str:
    """The status column of a file or contract, narrow: "2 failed", "3/5 passed", "5 tests"."""
    return f"{counts[FAILED]} failed" if counts[FAILED] else counts_text(counts)


def status_icon(status: str) -> QIcon:
    name, colour = _ICONS.get(status, _ICONS[NOT_RUN])
    return tinted(name, colour)
