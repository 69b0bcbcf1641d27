"""The ledger's composition root: builds its parts, wires them together, opens the data dir,
and offers the route modules the narrow operations they use."""

from __future__ import annotations

from ..chains import Chain
from ..cirrus.backend import CirrusBackend
from ..cirrus.behind16 import Behind16
from ..cirrus.indexer import Indexer
from ..config import NodeConfig
from ..genesis import (
    DEMO_BALANCE,
    DEMO_USERS,
    REGISTRY_ADDRESS,
    REGISTRY_SOURCE,
    ROOT_USER,
)
from ..solidvm import World
from ..store import Store
from ..traces import TraceKeeper
from ..vault import Vault
from .blocks import BlockSealer
from .codebook import CodeBook
from .common import Head
from .executor import Executor
from .identities import Identities
from .intakelog import IntakeLog
from .journal import BlockJournal, Changes, CirrusWriters
from .keys import KeyRing, sub_from_row
from .preimages import PreImages
from .producer import Producer
from .reindex import Reindexer
from .results import Results
from .snapshots import Snapshots
from .state import ChainState
from .submit import Intake
from .txqueue import TxQueue
from .validation import Validator


class Ledger:
    """All chain state of the node and the block producer that advances it: the parts, wired.

    Each part owns its state (see docs/ledger.md); this class only builds them, opens the
    data dir (:meth:`open`) and forwards the operations the routes use.
    """

    def __init__(self, config: NodeConfig, store: Store, vault: Vault) -> None:
        self.config = config
        self.store = store
        self.vault = vault
        world = World()
        self.codes = CodeBook(config)
        # compiled at run time by create()/create2(): bounded like a request's compile (on
        # the producer's thread, never the event loop)
        world.compile_hook = lambda src, vm: self.codes.unit(vm, src, bounded=True)[1]
        world.test_clock = config.test_clock
        self.cirrus = CirrusWriters(CirrusBackend(store.db, store.path), world, config)
        self.state = ChainState(world, store, self.cirrus.backend.publish)
        self.keys = KeyRing(store, vault)
        self.queue = TxQueue(store)
        self.results = Results(store, self.queue)
        self.identities = Identities(
            config, store, vault, self.state, self.keys, self.codes, self.queue
        )
        self.validator = Validator(self.state, self.codes, self.identities)
        self.journal = BlockJournal()
        self.changes = Changes()
        self.executor = Executor(
            config,
            self.state,
            self.codes,
            self.identities,
            self.journal,
            self.changes,
            self.cirrus,
        )
        # call traces of recent transactions (traces.py)
        self.traces = TraceKeeper(store, config.trace_keep if config.traces else 0)
        world.trace_items = self.traces.max_items if self.traces.enabled else 0
        self.executor.traces = self.traces
        # what recent transactions overwrote: the debugger re-runs one on the state before it
        self.preimages = PreImages()
        self.executor.preimages = self.preimages
        self.snapshots = Snapshots(store, self.state, self.codes, self.changes)
        self.reindexer = Reindexer(store, self.state, self.cirrus, self.journal)
        self.sealer = BlockSealer(
            store,
            self.state,
            self.codes,
            self.executor,
            self.journal,
            self.reindexer,
            self.snapshots,
            self.results,
        )
        self.producer = Producer(
            config, store, self.state, self.queue, self.sealer, self.results, self.snapshots
        )
        # STRATO 16's rows, written behind the chain (cirrus/behind16.py)
        self.behind16: Behind16 | None = None
        ix16 = self.cirrus.indexer16
        if ix16 is not None:
            backend = self.cirrus.backend

            def forget() -> None:  # after a rolled-back write, as the reindexer's
                ix16.layouts.clear()
                backend.reload()

            self.behind16 = Behind16(
                ix16,
                store,
                self.sealer._sealing,
                forget,
                # its views (the seed's tables are defined, and published, with the blocks)
                lambda: ix16.schema.publish(force=True),
                seed=backend.writes,  # the seed's rows behind the chain too (deferred.py)
                missed=self.reindexer.note_missed,
            )
            self.reindexer.behind16 = self.sealer.behind16 = self.behind16
            self.producer.behind16 = self.behind16
        # resolve=false transactions, durable before their rows are written (intakelog.py)
        self.intake_log = IntakeLog(store.path.parent)
        store.before_close(self.intake_log.close)
        self.sealer.intake_log = self.intake_log
        self.intake = Intake(
            config,
            self.keys,
            self.validator,
            self.queue,
            self.results,
            self.producer,
            self.intake_log,
        )
        # the operations route modules use, straight from the part that owns them
        self.committed = self.state.committed
        self.pinned_view = self.state.pinned_view
        self.read_state = self.state.read_state
        self.block_times = self.state.block_times
        self.key_of = self.keys.key_of
        self.name_of_address = self.keys.name_of_address
        self.unit = self.codes.unit
        self.result = self.results.result
        self.results_of = self.results.results_of
        self.queued_of = self.results.queued_of
        self.wait_results = self.results.wait_results
        self.has_pending = self.queue.has_pending
        self.queued_chains = self.queue.chains_among
        self.is_queued = self.queue.is_queued
        self.record = self.queue.record
        self.run_block = self.sealer.run_block
        self.snapshot = self.snapshots.snapshot
        self.start = self.producer.start
        self.stop = self.producer.stop
        self.run_pending = self.producer.run_pending
        self.submit = self.intake.submit
        self.faucet = self.intake.faucet
        self.run_now = self.intake.run_now
        self.create_chain = self.intake.create_chain
        self.validate_chain = self.validator.validate_chain
        self.check_upload = self.validator.check_upload
        self.new_sub = self.keys.new_sub
        self.create_key = self.identities.create_key
        self.register_identity_later = self.identities.register_identity_later
        self.fund_on_chain = self.identities.fund_on_chain
        self.chain_balance = self.identities.chain_balance
        self.cert_of_user = self.identities.cert_of_user
        self.is_member = self.identities.is_member
        self.require_member = self.identities.require_member
        self.accessible_chains = self.identities.accessible_chains
        self.visible_chains = self.identities.visible_chains
        self.chain_json = self.identities.chain_json

    # ------------------------------------------------------------ read-only views

    @property
    def head(self) -> Head:
        """The last committed block."""
        return self.state.head

    @property
    def halted(self) -> str | None:
        """Why block production stopped, if it did."""
        return self.producer.halted

    @property
    def root_address(self) -> str:
        return self.keys.root_address

    @property
    def world(self) -> World:
        """The live state (the producer's worker writes it: readers use :meth:`committed`)."""
        return self.state.world

    @property
    def chains(self) -> dict[str, Chain]:
        return self.state.chains

    @property
    def indexer(self) -> Indexer:
        return self.cirrus.indexer

    # ------------------------------------------------------------ opening

    def open(self) -> None:
        """Load state from the database (creating the genesis on a fresh data dir)."""
        fresh = self.store.one("SELECT 1 FROM blocks LIMIT 1") is None and (
            self.store.one("SELECT 1 FROM txs LIMIT 1") is None
        )
        if fresh:
            self._create_users()
        self.snapshots.load()
        self.identities.sync()
        # (before the keys' last transaction number is read: logged ones may be the last)
        self.intake_log.recover(self.store)
        self.keys.load()
        self.sealer.replay()
        self.reindexer.catch_up_seed(self.head.number)  # (before cirrus16_through moves)
        self.reindexer.index_collections_once()
        self.reindexer.index_strato16_once()
        self.reindexer.catch_up16(self.head.number)
        self.reindexer.rebuild_missed()
        if fresh:
            self._genesis()
        self.queue.put(
            [
                sub_from_row(row)
                for row in self.store.all(
                    "SELECT * FROM txs WHERE status='Pending' AND block_number IS NULL ORDER BY seq"
                )
            ]
        )

    def _create_users(self) -> None:
        from ..users import UserStore

        users = UserStore(self.store, self.vault)
        with self.store.transaction():
            for u in DEMO_USERS:
                if users.get(u.name) is None:
                    users.add(u.name, u.org, u.unit, None, identity=u.identity, demo=True)
                if self.keys.key_of(u.name) is None:
                    self.keys.insert_key(u.name)
            users.ensure_clients()

    def _genesis(self) -> None:
        """Block 0: the identity registry and the demo users' identities and balances."""
        keys = self.keys
        root = keys.key_of(ROOT_USER)
        assert root is not None
        subs = [
            keys.internal_sub(
                "CONTRACT",
                {
                    "contract": "CertificateRegistry",
                    "src": REGISTRY_SOURCE,
                    "args": {},
                    "metadata": {"VM": "SolidVM"},
                    "address": REGISTRY_ADDRESS,
                },
            )
        ]
        for u in DEMO_USERS:
            key = keys.key_of(u.name)
            if u.identity and key is not None:
                subs.append(self.identities.identity_sub(u.name, key["address"], u.org, u.unit))
        if not self.config.gas:
            for u in DEMO_USERS:
                key = keys.key_of(u.name)
                if key is not None:
                    subs.append(
                        keys.internal_sub(
                            "TRANSFER",
                            {"faucet": True, "toAddress": key["address"], "value": DEMO_BALANCE},
                        )
                    )
        self.queue.record(subs)
        self.sealer.run_block(subs)
        self.snapshots.snapshot()
