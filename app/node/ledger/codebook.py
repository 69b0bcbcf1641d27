"""The code of deployed contracts (the ``codes`` table) and the compiled units of sources."""

from __future__ import annotations

import threading

from ..config import NodeConfig
from ..solidvm import CompiledUnit, ContractDef, compile_source
from ..solidvm.ops import keccak256
from ..store import Store
from ..timebox import TimeLimitError, call_bounded
from .codecache import UnitCache, collector_paused


class SlowStoredCode(Exception):
    """Stored code did not compile within ``--compile-time-limit`` while the node started.

    A start compiles the code of the saved contracts (and of the uploads it replays) with the
    same bound as a request's compile, so that a huge stored source cannot hold the start for
    ever; past the bound the node does not start, and the message says how to start it.
    """

    def __init__(self, what: str, limit: float) -> None:
        super().__init__(
            f"{what} did not compile within the compile time limit of "
            f"{limit:g} s while the node started; start it with a larger --compile-time-limit "
            "(0: no bound)"
        )


class CodeBook:
    """Compiles sources (cached by code hash) and keeps the code deployed contracts run.

    Code joins the book when a contract is deployed with it (:meth:`keep`, on the producer's
    worker) and is written with the next block (:meth:`take_new`); compiling stores nothing.
    """

    def __init__(self, config: NodeConfig) -> None:
        self.config = config
        self.units = UnitCache()
        # code hash -> (vm, source) of the code deployed contracts run (the ``codes`` table)
        self._codes: dict[str, tuple[str, str]] = {}
        self._new: set[str] = set()  # added since the last block: written with the next
        self._lock = threading.Lock()  # ``_codes`` and ``_new``

    @staticmethod
    def code_hash(vm: str, source: str) -> str:
        """A SolidVM code collection's hash is the keccak256 of its source, as on the platform
        (salted addresses are derived from it); EVM code is keyed apart from SolidVM's."""
        if vm == "SolidVM":
            return keccak256(source.encode()).hex()
        return keccak256(f"{vm}\0{source}".encode()).hex()

    def unit(
        self, vm: str, source: str, stored: bool = False, bounded: bool = False
    ) -> tuple[str, CompiledUnit]:
        """The compiled unit of a source (cached by code hash, see ``codecache``).

        ``stored`` code was accepted once already, maybe by this node started with
        ``--test-clock``: it compiles with ``fastForward`` declared, which then refuses to run
        unless the node allows it. A ``bounded`` compile (a request's, on a worker thread) stops
        with a 400 after ``--compile-time-limit`` seconds. Compiling stores nothing: code joins
        the ``codes`` table when a contract is deployed with it (:meth:`keep`).
        """
        h = self.code_hash(vm, source)
        unit = self.units.get(h)
        if unit is None:
            limit = self.config.compile_time_limit if bounded else 0.0
            with collector_paused():
                unit = call_bounded(
                    limit,
                    "the source",
                    lambda: compile_source(
                        source,
                        vm=vm,
                        test_clock=stored or self.config.test_clock,
                        checks=not stored,  # stored code loads as accepted, whatever came since
                    ),
                )
            unit = self.units.put(h, unit)
        return h, unit

    def keep(self, cdef: ContractDef) -> str:
        """A contract was deployed with ``cdef``'s code: the code joins the ``codes`` table
        (with the block being sealed) so that the contract loads again after a restart."""
        h = self.code_of(cdef)
        with self._lock:
            if h not in self._codes:
                self._codes[h] = (cdef.vm, cdef.source)
                self._new.add(h)
        return h

    def cdef(self, code_hash: str, name: str) -> ContractDef:
        """Contract ``name`` of the stored code ``code_hash`` (KeyError when unknown)."""
        vm, source = self._codes[code_hash]
        try:  # at start (snapshots.load), in the main thread: bounded like a request's
            _, unit = self.unit(vm, source, stored=True, bounded=True)
        except TimeLimitError:
            raise SlowStoredCode(
                f"stored code {code_hash}", self.config.compile_time_limit
            ) from None
        return unit.contracts[name]

    def code_of(self, cdef: ContractDef) -> str:
        return self.code_hash(cdef.vm, cdef.source)

    def source(self, code_hash: str) -> str:
        """The stored source of ``code_hash``, "" when none."""
        return self._codes.get(code_hash, ("", ""))[1]

    def load(self, store: Store) -> None:
        """The ``codes`` table, at start."""
        for row in store.all("SELECT code_hash, vm, source FROM codes"):
            self._codes[row["code_hash"]] = (row["vm"], row["source"])

    def take_new(self) -> list[tuple[str, str, str]]:
        """(code hash, vm, source) of the code kept since the last call: the block writes it."""
        with self._lock:  # (``keep`` adds under it)
            new_codes = [(h, *self._codes[h]) for h in self._new]
            self._new.clear()
        return new_codes
