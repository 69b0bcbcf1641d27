"""STRATO 16's collection views against the seed family's collection tables, side by side.

A Token-like contract (``_name``, ``_totalSupply``, ``mapping(address => uint) _balances``) gets
``entries`` balances, written in ``batch``-entry blocks through the node's own collection path:
``CollectionIndexer.flush`` writes the seed family's ``Token-_balances`` rows and hands the same
entries to ``Indexer16.write_entries`` (its sink, as the node's ledger wires it), which writes
STRATO 16's ``mapping`` rows behind the view ``BlockApps-Token-_balances``. Both writers are timed
apart (entries/s of each).

Then the same queries run on both, through ``CirrusBackend.run`` in this process (parse, SQL,
rows: what the node does under its lock, without HTTP), interleaved so both see the same machine:

  eq      key=eq.<address>                       (rotates over 16 sampled holders)
  eq_tok  address=eq.<token>&key=eq.<address>    (the seed table's key index needs the address)
  order   order=value.desc&limit=50
  count   select=count()
  embed   select=key,value,t:<token>(_name)&key=eq.<address>   (the entry embedding its token)
  embed2  <token>?select=_name,b:<balances>(key,value)&b.key=eq.<address>  (token embedding it)
  offset  offset=<90% of the entries>&limit=50

Ratio = STRATO 16 p50 / seed p50; the issue's criterion is <= 2.
"""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from benchlib import ROOT, machine, utc_now, write_results

from app.node.cirrus.backend import CirrusBackend
from app.node.cirrus.collections import CollectionIndexer, CollectionVar
from app.node.cirrus.indexer import Indexer, cirrus_timestamp
from app.node.cirrus.indexer16 import Indexer16, data_json, indexed_vars
from app.node.cirrus.query import parse_query
from app.node.cirrus.strato16 import Strato16
from app.node.cirrus.write16 import STAMP, UPSERT_STORAGE
from app.node.solidvm import World, compile_source
from app.node.solidvm.values import Address, MappingValue
from app.node.solidvm.world import AccountState
from app.node.store import Store

TOKEN_SOL = """
contract Token {
    string public _name;
    uint public _totalSupply;
    mapping(address => uint) public _balances;
}
"""
CREATOR = "BlockApps"
SEED_TOKEN, SEED_TABLE = "Token", "Token-_balances"
VIEW_TOKEN, VIEW_TABLE = f"{CREATOR}-Token", f"{CREATOR}-Token-_balances"
SAMPLES = 16
RNG_SEED = 20_261_129
LIMIT_RATIO = 2.0


@dataclass
class Built16:
    entries: int
    seed_seconds: float  # CollectionIndexer.flush minus the STRATO 16 sink, commits included
    view_seconds: float  # Indexer16.write_entries (the sink)
    holders: list[str]  # SAMPLES addresses with a balance
    token: str  # the token's address


def build(data_dir: Path, entries: int, batch: int) -> Built16:
    """One token with ``entries`` balances, ``batch`` new holders per block."""
    cdef = compile_source(TOKEN_SOL).contracts["Token"]
    store = Store(data_dir)
    backend = CirrusBackend(store.db)
    world = World()
    ix = Indexer(backend, world, index_evm=False)
    schema = Strato16(backend)
    ix16 = Indexer16(schema, world)
    coll = CollectionIndexer(backend, world)
    sink_time = [0.0]

    def timed_sink(*args: Any) -> None:
        t0 = time.perf_counter()
        ix16.write_entries(*args)
        sink_time[0] += time.perf_counter() - t0

    coll.sinks.append(timed_sink)
    rng = random.Random(RNG_SEED)
    acct = AccountState(rng.getrandbits(160), "", cdef)
    world.accounts[(acct.chain, acct.address)] = acct
    svar = next(v for v in cdef.state_vars if v.name == "_balances")
    balances = MappingValue(svar.type)  # type: ignore[arg-type]
    acct.storage.update({"_name": "Gold", "_totalSupply": 0, "_balances": balances})
    cv = coll.var_named(acct, "_balances")
    assert isinstance(cv, CollectionVar)
    ts0 = 1_700_000_000
    with store.transaction():
        ix.contract_table(SEED_TOKEN, cdef)
        schema.register(CREATOR, cdef)
        row = ix.row(acct, 1, "00" * 32, ts0, "11" * 32, "22" * 20)
        ix.write_rows(SEED_TOKEN, cdef, [row])
        store.db.execute(STAMP, (acct.hex, CREATOR, "Token", ""))
        data = data_json(acct, indexed_vars(acct))
        store.db.execute(UPSERT_STORAGE, (acct.hex, "00" * 32, cirrus_timestamp(ts0), 1, data, ""))
    sample_at = {entries * k // SAMPLES + 3 for k in range(SAMPLES)}
    holders: list[str] = []
    total = 0.0
    seq = 0
    for block, start in enumerate(range(0, entries, batch), start=2):
        tx = (format(rng.getrandbits(256), "064x"), "22" * 20)
        ch = coll._change(acct, "_balances")  # what the transaction tracer marks, per key
        for i in range(start, min(start + batch, entries)):
            holder = Address(rng.getrandbits(160))
            balances[holder] = 1 + rng.randrange(10**9)
            seq += 1
            ch.keys[(holder,)] = ch.last = (seq, tx)
            if i in sample_at:
                holders.append(holder.hex)
        t0 = time.perf_counter()
        with store.transaction():
            coll.flush((block, format(block, "064x"), ts0 + block), lambda _k: SEED_TOKEN)
        total += time.perf_counter() - t0
        if block % 20 == 0:
            print(f"  wrote {min(start + batch, entries):,} balances", flush=True)
    store.close()
    return Built16(entries, total - sink_time[0], sink_time[0], holders, acct.hex)


@dataclass
class Pair:
    key: str
    label: str
    seed: tuple[str, list[str]]  # table, query strings (rotated over)
    view: tuple[str, list[str]]


def pairs(b: Built16) -> list[Pair]:
    eq = [f"key=eq.{h}" for h in b.holders]
    both = [f"address=eq.{b.token}&{q}" for q in eq]
    offset = b.entries * 9 // 10
    return [
        Pair("eq", "key=eq.<address>", (SEED_TABLE, eq), (VIEW_TABLE, eq)),
        Pair(
            "eq_tok",
            "address=eq.<token>&key=eq.<address>",
            (SEED_TABLE, both),
            (VIEW_TABLE, both),
        ),
        Pair(
            "order",
            "order=value.desc&limit=50",
            (SEED_TABLE, ["order=value.desc&limit=50"]),
            (VIEW_TABLE, ["order=value.desc&limit=50"]),
        ),
        Pair(
            "count",
            "select=count()",
            (SEED_TABLE, ["select=count()"]),
            (VIEW_TABLE, ["select=count()"]),
        ),
        Pair(
            "embed",
            "select=key,value,t:<token>(_name)&key=eq.<address>",
            (SEED_TABLE, [f"select=key,value,t:{SEED_TOKEN}(_name)&{q}" for q in eq]),
            (VIEW_TABLE, [f"select=key,value,t:{VIEW_TOKEN}(_name)&{q}" for q in eq]),
        ),
        Pair(
            "embed2",
            "<token>?select=_name,b:<balances>(key,value)&b.key=eq.<address>",
            (SEED_TOKEN, [f"select=_name,b:{SEED_TABLE}(key,value)&b.{q}" for q in eq]),
            (VIEW_TOKEN, [f"select=_name,b:{VIEW_TABLE}(key,value)&b.{q}" for q in eq]),
        ),
        Pair(
            "offset",
            f"offset={offset}&limit=50",
            (SEED_TABLE, [f"offset={offset}&limit=50"]),
            (VIEW_TABLE, [f"offset={offset}&limit=50"]),
        ),
    ]


def p50_ms(xs: list[float]) -> float:
    return statistics.median(xs) * 1000


@dataclass
class Timed:
    key: str
    label: str
    seed_ms: float
    view_ms: float
    seed_n: int
    view_n: int
    same: bool  # both answered the same values (keys and values as text)

    @property
    def ratio(self) -> float:
        return self.view_ms / self.seed_ms


def comparable(rows: list[dict[str, Any]]) -> list[str]:
    """What both families answer alike (the seed rows have more columns: chainId, the
    transaction): keys, values, counts and embedded rows."""
    return [str([r.get(c) for c in ("key", "value", "count", "_name", "t", "b")]) for r in rows]


def measure(data_dir: Path, b: Built16, seconds: float) -> list[Timed]:
    store = Store(data_dir)
    backend = CirrusBackend(store.db)
    Strato16(backend)
    out: list[Timed] = []
    try:
        for p in pairs(b):

            def runner(side: tuple[str, list[str]]) -> Callable[[int], list[dict[str, Any]]]:
                table, qs = side
                parsed = [parse_qsl(q, keep_blank_values=True) for q in qs]

                def run(n: int) -> list[dict[str, Any]]:
                    rows, _ = backend.run(table, parse_query(parsed[n % len(parsed)]), set(), False)
                    return rows

                return run

            fs, fv = runner(p.seed), runner(p.view)
            a, v = fs(0), fv(0)  # warm-up, and the answers compared
            ts: list[float] = []
            tv: list[float] = []
            k = 0
            while (sum(ts) + sum(tv) < 2 * seconds or len(ts) < 3) and len(ts) < 5_000:
                for f, acc in ((fs, ts), (fv, tv)):
                    t0 = time.perf_counter()
                    f(k)
                    acc.append(time.perf_counter() - t0)
                k += 1
            same = comparable(a) == comparable(v)
            out.append(Timed(p.key, p.label, p50_ms(ts), p50_ms(tv), len(a), len(v), same))
            print(
                f"  {p.key}: seed {out[-1].seed_ms:.2f} ms, STRATO 16 {out[-1].view_ms:.2f} ms",
                flush=True,
            )
    finally:
        store.close()
    return out


def run(data_dir: Path, entries: int, batch: int, seconds: float) -> dict[str, Any]:
    """Build, measure, print; the figures as a dict for the results file."""
    print(f"STRATO 16 scenario: a token with {entries:,} balances ...", flush=True)
    b = build(data_dir, entries, batch)
    timed = measure(data_dir, b, seconds)
    print()
    print(
        f"STRATO 16 collection view vs seed collection table, {entries:,} balances "
        f"({batch:,} per block)"
    )
    print(
        f"  writing: seed rows {entries / b.seed_seconds:,.0f} entries/s ({b.seed_seconds:.1f} s), "
        f"STRATO 16 rows {entries / b.view_seconds:,.0f} entries/s ({b.view_seconds:.1f} s)"
    )
    print(f"  {'query':<8} {'':<60} {'seed p50':>9} {'16 p50':>9} {'ratio':>6} rows same")
    for t in timed:
        flag = "  > 2x" if t.ratio > LIMIT_RATIO else ""
        print(
            f"  {t.key:<8} {t.label:<60} {t.seed_ms:>7.2f}ms {t.view_ms:>7.2f}ms "
            f"{t.ratio:>6.2f} {t.seed_n:>2}/{t.view_n:<2} {'yes' if t.same else 'no'}{flag}"
        )
    return {
        "entries": entries,
        "batch": batch,
        "seed_write_entries_per_s": round(entries / b.seed_seconds, 1),
        "strato16_write_entries_per_s": round(entries / b.view_seconds, 1),
        "queries": {
            t.key: {
                "query": t.label,
                "seed_p50_ms": round(t.seed_ms, 3),
                "strato16_p50_ms": round(t.view_ms, 3),
                "ratio": round(t.ratio, 3),
                "within_2x": t.ratio <= LIMIT_RATIO,
                "rows": [t.seed_n, t.view_n],
                "same_answers": t.same,
            }
            for t in timed
        },
    }


def main(entries: int, batch: int) -> None:
    """``cirrus_bench.py --strato16 N``: build, measure, print, write the results file."""
    if entries < 1_000 or batch < 1:
        raise SystemExit("--strato16 must be at least 1,000 and --batch at least 1")
    t0 = time.perf_counter()
    load_start = os.getloadavg()[0]
    tmp = Path(tempfile.mkdtemp(prefix="cirrus16-bench-"))
    try:
        figures = run(tmp / "node", entries, batch, 1.0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    m = machine(sqlite=sqlite3.sqlite_version)
    m["load_1min_at_start"] = round(load_start, 2)
    m["load_1min_at_end"] = round(os.getloadavg()[0], 2)
    total = time.perf_counter() - t0
    print(
        f"  whole run: {total:.0f} s (1-min load {load_start:.1f} -> {m['load_1min_at_end']:.1f})"
    )
    result = {"date": utc_now(), "machine": m, **figures, "run_seconds": round(total, 1)}
    print(f"written to {write_results('cirrus16', result).relative_to(ROOT)}")
