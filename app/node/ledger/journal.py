"""What executing transactions leaves for others: the current block's outputs (for its
commit and its Cirrus rows), the changes since the last snapshot, and the Cirrus writers.

Plain records: the executor appends, the block sealer, the reindexer and the snapshots take
and clear. Only the producer's worker (or, with no producer, the one thread that seals) uses
them, so they need no lock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..cirrus.backend import CirrusBackend
from ..cirrus.collections import CollectionIndexer
from ..cirrus.indexer import Indexer
from ..cirrus.indexer16 import Indexer16
from ..cirrus.strato16 import Strato16
from ..config import NodeConfig
from ..solidvm import ContractDef, World
from ..solidvm.world import AccountState
from .entries import EntryTracker

Key = tuple[str, int]  # (chain, address), as World.accounts is keyed
Event = tuple[str, str, str, str, str, str]  # tx hash, chain, address, contract, name, args


@dataclass
class BlockJournal:
    """The block being executed: its events, the contracts it touched, its history rows and
    the private chains it changed (written with the block, then cleared)."""

    events: list[Event] = field(default_factory=list)
    senders: dict[str, str] = field(default_factory=dict)  # tx hash -> sender, for event rows
    touched: dict[Key, tuple[str, str]] = field(default_factory=dict)  # -> (tx hash, sender)
    history: list[tuple[str, ContractDef, dict[str, Any]]] = field(default_factory=list)
    dirty_chains: set[str] = field(default_factory=set)


@dataclass
class Changes:
    """What changed since the last snapshot: the snapshot writes exactly this."""

    contracts: dict[Key, AccountState] = field(default_factory=dict)
    balances: set[Key] = field(default_factory=set)
    entries: EntryTracker = field(default_factory=EntryTracker)  # which mapping entries

    def forget(self) -> None:
        """A snapshot wrote them."""
        self.contracts.clear()
        self.entries.forget()
        self.balances.clear()


class CirrusWriters:
    """The Cirrus indexers a block's changes feed: the seed's tables, the collection tables
    and (unless ``--cirrus-names seed``) STRATO 16's names beside them."""

    def __init__(self, backend: CirrusBackend, world: World, config: NodeConfig) -> None:
        self.indexer = Indexer(backend, world, config.index_evm)
        self.collections = CollectionIndexer(backend, world)
        # STRATO 16's names beside the seed's (cirrus/strato16.py)
        # ("seed": none of them: no STRATO 16 rows are written, a later start rebuilds them)
        self.indexer16: Indexer16 | None = None
        if config.cirrus_names != "seed":
            schema16 = Strato16(backend, only=config.cirrus_names == "strato16")
            self.indexer16 = Indexer16(schema16, world)
            self.collections.sinks.append(self.indexer16.write_entries)

    @property
    def backend(self) -> CirrusBackend:
        return self.indexer.backend
