"""What each written container held before the block being executed: the committed state that
readers on other threads see while a block runs.

A transaction writes the world in place and journals every write first (``runtime``). With a
:class:`History` attached to the world, the journal also records, for each (container, key)
written, its value before the first write of each block, tagged with the block's number. A
reader pinned at committed block ``V`` then reads a key as the first recorded value of a block
after ``V`` if there is one, else the live value: the state as of ``V``, whatever the running
block wrote meanwhile, however much of it is rolled back later. Rollbacks need nothing: they
only bring a key back to what the record already says.

Cost: one dict look-up per journaled write; lists copy themselves once per block at their
first change of length. Readers copy each container they read in one C-level call (atomic
under the GIL), so the writer can never change a dict's size under their iteration.
"""

from __future__ import annotations

from typing import Any

from .runtime import MISSING, POPPED, PUSHED, REPLACED

LENGTH = object()  # the key under which a list's contents before a change of length are kept


class History:
    """Per container: per key, ``[(block, value before that block's first write), ...]``."""

    __slots__ = ("block", "records")

    def __init__(self) -> None:
        self.block = 0  # the block being executed: new records are tagged with it
        # id(container) -> (container, {key: [(block, old), ...]}); the container is kept
        # alive so that its id is not reused while the record exists
        self.records: dict[int, tuple[Any, dict[Any, list[tuple[int, Any]]]]] = {}

    def note(self, c: Any, k: Any, old: Any) -> None:
        """``c[k]`` (``old``, or ``MISSING``) is about to be written."""
        rec = self.records.get(id(c))
        if rec is None:
            rec = self.records[id(c)] = (c, {})
        keys = rec[1]
        seen = keys.get(k)
        b = self.block
        if seen is None:
            keys[k] = [(b, old)]
        elif seen[-1][0] != b:
            seen.append((b, old))

    def before(self, c: Any, k: Any, pinned: int) -> Any:
        """What ``c[k]`` held at the end of block ``pinned`` if a later block wrote it, else
        ``NO_RECORD``."""
        rec = self.records.get(id(c))
        if rec is None or rec[0] is not c:
            return NO_RECORD
        seen = rec[1].get(k)
        if seen is not None:
            for b, old in tuple(seen):
                if b > pinned:
                    return old
        return NO_RECORD

    def keys_of(self, c: Any, pinned: int) -> list[tuple[Any, Any]]:
        """(key, value as of block ``pinned``) of every key of ``c`` a later block wrote."""
        rec = self.records.get(id(c))
        if rec is None or rec[0] is not c:
            return []
        out = []
        for k, seen in tuple(rec[1].items()):
            for b, old in tuple(seen):
                if b > pinned:
                    out.append((k, old))
                    break
        return out


NO_RECORD: Any = object()


class Journal(list[tuple[Any, Any, Any]]):
    """A transaction's undo journal that also keeps the :class:`History` of the block."""

    __slots__ = ("created", "dirty", "events", "history")

    def __init__(self, history: History, events: Any, created: Any, dirty: Any) -> None:
        super().__init__()
        self.history = history
        # the transaction's own containers: no reader sees them
        self.events, self.created, self.dirty = events, created, dirty

    def append(self, entry: tuple[Any, Any, Any]) -> None:
        # History.note_entry inlined: this runs for every write of every transaction
        c, k, old = entry
        if c is not self.dirty and c is not self.created and c is not self.events:
            h = self.history
            b = h.block
            rec = h.records.get(id(c))
            if rec is None:
                rec = h.records[id(c)] = (c, {})
            keys = rec[1]
            if k is PUSHED or k is POPPED or k is REPLACED:
                seen = keys.get(LENGTH)
                if seen is None or seen[-1][0] != b:  # copied once per block, not per push
                    snap = (b, tuple(old) if k is REPLACED else tuple(c))
                    if seen is None:
                        keys[LENGTH] = [snap]
                    else:
                        seen.append(snap)
            else:
                seen = keys.get(k)
                if seen is None:
                    keys[k] = [(b, old)]
                elif seen[-1][0] != b:
                    seen.append((b, old))
        list.append(self, entry)


__all__ = ["LENGTH", "MISSING", "NO_RECORD", "History", "Journal"]
