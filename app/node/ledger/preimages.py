"""What each recent transaction overwrote: the state just before a transaction, for a re-run
in the debugger ("as transaction H", ``app/node/debug/rerun.py``).

The producer's worker hands over each transaction's undo journal once it ran
(:meth:`PreImages.note`); the first entry per written key holds the value the key had before
the transaction. A reader asking for the state before transaction H then reads a key as the
value noted by the first transaction at or after H that wrote it (only transactions of
committed blocks count), else as committed. Lists are kept as their length before the
transaction and the original values of the elements it overwrote or popped, so that noting a
push onto a long array costs the push, not a copy of the array.

Cost: one dict look-up per journal entry, on the producer's thread, after each transaction.
Kept: the notes of the last :data:`KEEP_TXS` transactions (fewer when they wrote more than
:data:`MAX_ENTRIES` keys), never those a running re-run reads (:meth:`pin`). Nothing is kept
across a restart: the transactions before it are no longer reconstructible.
"""

from __future__ import annotations

import itertools
import threading
from collections import deque
from typing import Any

from ..solidvm.runtime import MISSING, POPPED, PUSHED, REPLACED

KEEP_TXS = 5_000
OWN = ("events", "created", "dirty")  # a history Journal's containers of the transaction
MAX_ENTRIES = 500_000


class ListImage:
    """A list before one transaction: its length and the original values of the elements
    the transaction changed (the others are what the list holds after it)."""

    __slots__ = ("length", "orig")

    def __init__(self, length: int, orig: dict[int, Any]) -> None:
        self.length = length
        self.orig = orig

    def undo(self, after: list[Any]) -> list[Any]:
        """The list's contents before the transaction, from those after it."""
        o = self.orig
        return [o[i] if i in o else after[i] for i in range(self.length)]


LIST: Any = object()  # the key under which a list's ListImage is noted


def _list_image(c: list[Any], entries: list[tuple[Any, Any]]) -> ListImage:
    """``entries`` (key, old) are the transaction's writes to list ``c``, in order."""
    if any(k is REPLACED for k, _ in entries):  # rare (a whole array assigned): copy it
        before = list(c)
        for k, old in entries[::-1]:  # (mypyc cannot compile reversed() of a list[Any])
            if k is PUSHED:
                before.pop()
            elif k is POPPED:
                before.append(old)
            elif k is REPLACED:
                before[:] = old
            else:
                before[k] = old
        return ListImage(len(before), dict(enumerate(before)))
    length = len(c)
    for k, _ in entries[::-1]:
        if k is PUSHED:
            length -= 1
        elif k is POPPED:
            length += 1
    orig: dict[int, Any] = {}
    low = length  # indices below it still held their original values, unless written
    cur = length
    for k, old in entries:
        if k is PUSHED:
            cur += 1
        elif k is POPPED:
            cur -= 1
            if cur < low:
                if cur not in orig:
                    orig[cur] = old
                low = cur
        elif type(k) is int and 0 <= k < low and k not in orig:
            orig[k] = old
    return ListImage(length, orig)


class PreImages:
    """Per container: per key, ``[(seq, block, value before transaction seq), ...]``."""

    def __init__(self, keep_txs: int = KEEP_TXS, max_entries: int = MAX_ENTRIES) -> None:
        self.keep_txs = keep_txs
        self.max_entries = max_entries
        self.records: dict[int, tuple[Any, dict[Any, list[tuple[int, int, Any]]]]] = {}
        self.by_hash: dict[str, tuple[int, int]] = {}  # tx hash -> (seq, block)
        self._order: deque[tuple[int, str, list[tuple[int, Any]]]] = deque()
        self._entries = 0
        self._seq = 0
        self._pins: dict[int, int] = {}  # seq -> re-runs reading the state before it
        self._lock = threading.Lock()  # the pins and the pruning

    def note(
        self,
        tx_hash: str,
        block: int,
        journal: list[tuple[Any, Any, Any]],
        before: list[tuple[dict[Any, Any], Any, Any]],
    ) -> None:
        """Transaction ``tx_hash`` of block ``block`` ran: ``journal`` is its undo journal,
        ``before`` what it wrote outside the VM, as it was before it (they come first)."""
        self._seq += 1
        seq = self._seq
        records = self.records
        written: list[tuple[int, Any]] = []
        lists: dict[int, tuple[list[Any], list[tuple[Any, Any]]]] = {}
        # the transaction's own containers (its events, the contracts it created): no reader
        own = {id(x) for x in (getattr(journal, a, None) for a in OWN) if x is not None}
        for c, k, old in itertools.chain(before, journal):  # (one pass: this runs per write)
            cid = id(c)
            if cid in own:
                continue
            if isinstance(c, list):
                got = lists.get(cid)
                if got is None:
                    lists[cid] = (c, [(k, old)])
                else:
                    got[1].append((k, old))
                continue
            rec = records.get(cid)
            if rec is None or rec[0] is not c:
                rec = records[cid] = (c, {})
            if k is REPLACED:  # a whole dict replaced: every key it held or holds
                for kk in set(old) | set(c):
                    self._put(rec[1], cid, kk, old.get(kk, MISSING), seq, block, written)
                continue
            seen = rec[1].get(k)
            if seen is None:
                rec[1][k] = [(seq, block, old)]
                written.append((cid, k))
            elif seen[-1][0] != seq:
                seen.append((seq, block, old))
                written.append((cid, k))
        for cid, (lc, entries) in lists.items():
            rec = records.get(cid)
            if rec is None or rec[0] is not lc:
                rec = records[cid] = (lc, {})
            self._put(rec[1], cid, LIST, _list_image(lc, entries), seq, block, written)
        self.by_hash[tx_hash] = (seq, block)
        self._order.append((seq, tx_hash, written))
        self._entries += len(written)
        self._prune()

    @staticmethod
    def _put(
        have: dict[Any, list[tuple[int, int, Any]]],
        cid: int,
        k: Any,
        old: Any,
        seq: int,
        block: int,
        written: list[tuple[int, Any]],
    ) -> None:
        """Note ``old`` as key ``k``'s value before transaction ``seq`` (its first note)."""
        seen = have.get(k)
        if seen is None:
            have[k] = [(seq, block, old)]
        elif seen[-1][0] != seq:
            seen.append((seq, block, old))
        else:
            return
        written.append((cid, k))

    def _prune(self) -> None:
        with self._lock:
            floor = min(self._pins) if self._pins else None
            order = self._order
            while order and (len(order) > self.keep_txs or self._entries > self.max_entries):
                seq, h, written = order[0]
                if floor is not None and seq >= floor:
                    break
                order.popleft()
                self.by_hash.pop(h, None)
                self._entries -= len(written)
                for cid, k in written:
                    rec = self.records.get(cid)
                    if rec is None:
                        continue
                    seen = rec[1].get(k)
                    if seen and seen[0][0] == seq:
                        del seen[0]
                    if not seen:
                        rec[1].pop(k, None)
                        if not rec[1]:
                            del self.records[cid]

    def pin(self, tx_hash: str) -> tuple[int, int] | None:
        """(seq, block) of ``tx_hash`` if the state before it can be rebuilt, kept so until
        :meth:`unpin`; None if its notes are gone (or it never ran since the start)."""
        with self._lock:
            got = self.by_hash.get(tx_hash)
            if got is not None:
                self._pins[got[0]] = self._pins.get(got[0], 0) + 1
            return got

    def unpin(self, seq: int) -> None:
        with self._lock:
            left = self._pins.get(seq, 0) - 1
            if left > 0:
                self._pins[seq] = left
            else:
                self._pins.pop(seq, None)

    def first(self, c: Any, k: Any, seq: int, head: int) -> Any:
        """What ``c[k]`` held before transaction ``seq`` if a transaction from it on, in a
        block up to ``head``, wrote it; else ``MISSING_NOTE``."""
        rec = self.records.get(id(c))
        if rec is None or rec[0] is not c:
            return NO_NOTE
        seen = rec[1].get(k)
        if seen is not None:
            for s, b, old in tuple(seen):
                if s >= seq and b <= head:
                    return old
        return NO_NOTE

    def keys_of(self, c: Any, seq: int, head: int) -> list[tuple[Any, Any]]:
        """(key, value before transaction ``seq``) of each key of dict ``c`` noted."""
        rec = self.records.get(id(c))
        if rec is None or rec[0] is not c:
            return []
        out = []
        for k, seen in tuple(rec[1].items()):
            if k is LIST:
                continue
            for s, b, old in tuple(seen):
                if s >= seq and b <= head:
                    out.append((k, old))
                    break
        return out

    def list_images(self, c: Any, seq: int, head: int) -> list[ListImage]:
        """The images of list ``c`` noted from transaction ``seq`` on, oldest first."""
        rec = self.records.get(id(c))
        if rec is None or rec[0] is not c:
            return []
        seen = rec[1].get(LIST)
        if not seen:
            return []
        return [old for s, b, old in tuple(seen) if s >= seq and b <= head]


NO_NOTE: Any = object()
