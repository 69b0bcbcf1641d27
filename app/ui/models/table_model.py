"""Base of the flat table models: fixed columns, rows in a Python list, read-only."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex


class RowsTableModel(QAbstractTableModel):
    """Subclasses set ``COLUMNS`` and fill ``self._rows``; they implement ``data``."""

    COLUMNS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[Any] = []
        self.names: dict[str, str] = {}  # address -> name to show beside it

    def set_rows(self, rows: Iterable[Any], names: Mapping[str, str] | None = None) -> None:
        """Replace every row (and the names shown beside addresses) in one model reset."""
        self.beginResetModel()
        self._rows = list(rows)
        if names is not None:
            self.names = dict(names)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            role == Qt.ItemDataRole.DisplayRole
            and orientation == Qt.Orientation.Horizontal
            and 0 <= section < len(self.COLUMNS)
        ):
            return self.COLUMNS[section]
        return None

    def row_object(self, row: int) -> Any:
        return self._rows[row] if 0 <= row < len(self._rows) else None
