"""The ledger: accepts transactions, runs them in blocks, keeps results, state and durability.

Life of a transaction: ``submit`` validates the whole request up front (nothing is queued when
anything is wrong), signs each transaction with the sender's vault key, writes it to the database
as ``Pending`` and only then hands out its hash. The block producer runs the queue in order, seals
a block and commits the block, the results and the events in one SQLite transaction.

Contract storage is written in snapshots (every few hundred blocks, every few seconds and at
shutdown), each writing only what changed since the last: the contract rows of changed
contracts, and of their top-level mappings only the changed entries (``entries``, one row per
entry). On start the node loads the last snapshot and re-runs the blocks committed after it:
execution is deterministic (each block records its timestamp), so the state comes back exactly,
and transactions still ``Pending`` run in new blocks. Nothing whose hash was returned is lost.

The ledger is a set of collaborating parts, each owning its state behind a small interface
(docs/ledger.md): ``state`` (the chain state and its committed view), ``codebook`` (compiled
units, deployed code), ``keys`` (signing), ``txqueue`` (the queue and the txs rows),
``results``, ``identities``, ``validation``, ``executor``, ``journal`` (what a block leaves for
others), ``snapshots``, ``reindex`` (Cirrus rows), ``blocks`` (sealing and replay),
``producer`` (the thread) and ``submit`` (the intake). :class:`Ledger` (``ledger``) builds and
wires them in one place and is what the routes hold.

Blocks execute on the producer's own thread, never on the event loop, however small; the
routes on the loop read through ``readview`` (the state as of the last committed block, never
a running or rolled-back transaction's writes).
"""

from __future__ import annotations

from ..native import use_compiled

use_compiled(__name__, __path__)  # before any module of the package is imported (native.py)

from ..solidvm.values import Address  # noqa: E402
from .common import (  # noqa: E402
    GOVERNANCE_HEX,
    HEX,
    MAX_TXS_PER_REQUEST,
    NODE_MAX_STEPS,
    ZERO_HASH,
    ContractMeta,
    Head,
    Sub,
    discarded_result,
    norm_address,
    norm_chain,
    parse_amount,
    pending_result,
)
from .ledger import Ledger  # noqa: E402

__all__ = [
    "GOVERNANCE_HEX",
    "HEX",
    "MAX_TXS_PER_REQUEST",
    "NODE_MAX_STEPS",
    "ZERO_HASH",
    "Address",
    "ContractMeta",
    "Head",
    "Ledger",
    "Sub",
    "discarded_result",
    "norm_address",
    "norm_chain",
    "parse_amount",
    "pending_result",
]
