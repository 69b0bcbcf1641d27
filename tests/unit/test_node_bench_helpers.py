"""The pure parts of benchmarks/node_bench.py: the statistics of its rounds, the order it
measures in, and the ABI encoding its EVM peers receive (no network, no peers)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from benchstats import fmt_ratio, interleave, latency_summary, median_of, percentile_ms, ratio
from evm_token import (
    address_word,
    call_data,
    constructor_args,
    load_artifact,
    to_int,
    transfer_data,
    word,
)


def test_percentiles_are_nearest_rank_in_ms() -> None:
    lat = [i / 1000 for i in range(1, 101)]  # 1..100 ms
    assert percentile_ms(lat, 50) == pytest.approx(50.0)
    assert percentile_ms(lat, 99) == pytest.approx(99.0)
    assert percentile_ms(list(reversed(lat)), 100) == pytest.approx(100.0)
    assert percentile_ms([0.002], 99) == pytest.approx(2.0)
    assert math.isnan(percentile_ms([], 50))
    s = latency_summary([0.001, 0.003, 0.002])
    assert s == {"p50_ms": pytest.approx(2.0), "p99_ms": pytest.approx(3.0)}


def test_median_of_rounds_skips_missing_fields() -> None:
    rounds: list[dict[str, float]] = [{"rate": 10.0}, {"rate": 30.0}, {"rate": 20.0}, {"x": 1}]
    assert median_of(rounds, "rate") == 20.0
    assert median_of([{"rate": 1}, {"rate": 4}], "rate") == 2.5
    assert math.isnan(median_of(rounds, "p50_ms"))


def test_ratio_is_none_without_a_positive_divisor() -> None:
    assert ratio(1600.0, 800.0) == 2.0
    assert ratio(1.0, 0.0) is None
    assert ratio(math.nan, 5.0) is None
    assert ratio(5.0, math.nan) is None
    assert fmt_ratio(ratio(781.0, 802.0)) == "0.97x"
    assert fmt_ratio(None) == "n/a"


def test_rounds_interleave_the_systems() -> None:
    order = interleave(["sandbox", "anvil", "ganache"], 3)
    assert order[:4] == [(0, "sandbox"), (0, "anvil"), (0, "ganache"), (1, "sandbox")]
    assert len(order) == 9
    assert [s for r, s in order if r == 2] == ["sandbox", "anvil", "ganache"]


def test_transfer_calldata_is_the_abi_encoding() -> None:
    to = "b0b0b0b0" + f"{7:032x}"
    data = transfer_data("a9059cbb", to, 1)
    assert data == "0xa9059cbb" + "0" * 24 + to + "0" * 63 + "1"
    assert len(data) == 2 + 8 + 2 * 64
    assert call_data("0x70a08231", "0x" + to.upper()) == "0x70a08231" + "0" * 24 + to
    with pytest.raises(ValueError):
        address_word("0x1234")
    with pytest.raises(ValueError):
        address_word("zz" * 20)
    with pytest.raises(ValueError):
        word(-1)
    assert to_int("0x") == 0 and to_int("0x" + word(10**30)) == 10**30


def test_constructor_args_encode_two_strings_and_a_uint() -> None:
    enc = constructor_args("Bench", "BNC", 10**30)
    words = [enc[i : i + 64] for i in range(0, len(enc), 64)]
    assert int(words[0], 16) == 0x60  # offset of name
    assert int(words[1], 16) == 0xA0  # offset of symbol: after name's length and one word
    assert int(words[2], 16) == 10**30
    assert int(words[3], 16) == 5 and bytes.fromhex(words[4]).rstrip(b"\0") == b"Bench"
    assert int(words[5], 16) == 3 and bytes.fromhex(words[6]).rstrip(b"\0") == b"BNC"
    assert len(words) == 7
    long = constructor_args("x" * 33, "", 0)  # a name longer than one word
    assert int(long[64:128], 16) == 0x60 + 32 + 64


def test_checked_in_token_bytecode_matches_its_source() -> None:
    art = load_artifact()  # raises when Token.sol changed without regenerating Token.json
    assert art["method_identifiers"]["transfer(address,uint256)"] == "a9059cbb"
    assert art["method_identifiers"]["balanceOf(address)"] == "70a08231"
    assert art["evm_version"] == "paris"
    assert len(art["bytecode"]) > 1000


RAW = """\
thread (0x1F): MainThread;<module> (app/node/__main__.py:501);Runner.run (asyncio/runners.py:118) 40
thread (0x2A): block-producer;Ledger._produce (p.py:306);Condition.wait (threading.py:327) 30
thread (0x2A): block-producer;Ledger._produce (p.py:312);Store.commit (s.py:9) 20
thread (0x2A): block-producer;Ledger._produce (p.py:312);Store.commit (s.py:11) 5
thread (0x3B): tx-watchdog;Event.wait (threading.py:629);Condition.wait (threading.py:331) 9
not a sample line
"""


def test_py_spy_raw_stacks_group_by_thread() -> None:
    from write_profile import by_group, minus, own_time, parse_raw, waiting_sites

    stacks = parse_raw(RAW.splitlines())
    assert len(stacks) == 5
    assert stacks[1].thread == "block-producer" and stacks[1].count == 30
    assert stacks[0].frames[-1] == "Runner.run (asyncio/runners.py:118)"
    groups = by_group(stacks)
    assert groups == {"event loop": 40, "producer": 55, "others": 9}
    own = own_time(stacks, "producer")  # line numbers dropped: one function
    assert own == {"Condition.wait (threading.py)": 30, "Store.commit (s.py)": 25}
    running = [s for s in stacks if not s.frames[-1].startswith("Condition.wait")]
    idle = minus(waiting_sites(stacks, "producer"), waiting_sites(running, "producer"))
    assert idle == {"Condition.wait (threading.py:327) <- Ledger._produce (p.py:306)": 30}
    assert by_group(running)["others"] == 0


def test_rate_of_first_answers_counts_only_the_first_n() -> None:
    from benchstats import rate_of_first

    stamps = [0.001 * (i + 1) for i in range(1000)] + [5.0]  # 1,000 in 1 s, then a slow one
    assert rate_of_first(stamps, 1000) == pytest.approx(1000.0)
    assert rate_of_first(stamps, 500) == pytest.approx(1000.0)
    assert rate_of_first(stamps[:10], 1000) is None  # fewer answers than asked for
    assert rate_of_first([], 0) is None


def test_anvil_runs_without_disk_history_or_per_block_system_writes() -> None:
    from evm_peer import ANVIL, GANACHE

    cmd = ANVIL.command(8545)
    assert "--prune-history" in cmd  # no whole-state JSON written per block after 500 blocks
    assert cmd[cmd.index("--hardfork") + 1] == "cancun"  # no EIP-2935 slot per block
    assert "--quiet" in cmd and cmd[cmd.index("--port") + 1] == "8545"
    assert "--prune-history" not in GANACHE.command(8545)


def test_tail_spans_parse_sorted_and_skip_malformed_lines() -> None:
    from write_tail import Span, parse_spans

    spans = parse_spans(["10.5 2.000 Behind16.step", "garbage", "9.0 0.5 gc0:block-producer\n"])
    assert spans == [Span(9.0, 0.5, "gc0:block-producer"), Span(10.5, 2.0, "Behind16.step")]
    assert spans[1].end == pytest.approx(10.502)
    assert parse_spans(["x y z", ""]) == []


def test_tail_overlap_skips_a_requests_own_seal_but_counts_others() -> None:
    from write_tail import Span, overlapping

    spans = [
        Span(100.0000, 0.4, "BlockSealer.seal"),  # request 1's own block
        Span(100.0005, 1.5, "Behind16.step"),  # in request 2
        Span(100.0030, 0.5, "BlockSealer.seal"),  # request 2's own block
        Span(100.0100, 5.0, "Checkpointer.step"),  # long: reaches into request 3
        Span(100.0140, 0.4, "BlockSealer.seal"),  # request 3's own block
    ]
    requests = [(99.9999, 0.55), (100.00045, 3.2), (100.0138, 0.7), (100.1, 1.0)]
    got = overlapping(requests, spans)
    assert got == {"Behind16.step": 1, "Checkpointer.step": 1, "(none)": 2}
    # a seal that ends after the request does is another block's (still running)
    assert overlapping([(100.0029, 0.2)], spans) == {"BlockSealer.seal": 1}


def test_tail_table_counts_per_thousand_and_share_of_the_run() -> None:
    from write_tail import Span, span_table

    spans = [Span(0.0, 1.0, "a"), Span(1.0, 3.0, "a"), Span(2.0, 10.0, "b")]
    rows = span_table(spans, seconds=1.0, transfers=500)
    assert [r["kind"] for r in rows] == ["b", "a"]  # by total time
    a = rows[1]
    assert a["per_1000"] == pytest.approx(4.0)
    assert a["p50_ms"] == pytest.approx(1.0) and a["p99_ms"] == pytest.approx(3.0)
    assert a["share"] == pytest.approx(0.004)


def test_tail_hooks_time_the_named_methods_and_the_collector(tmp_path: Path) -> None:
    import os
    import subprocess

    from write_tail import SPANS_ENV, parse_spans, timing_hooks

    hooks = tmp_path / "hooks"
    hooks.mkdir()
    timed = {"tailprobe": [("Probe", "work")]}
    (hooks / "sitecustomize.py").write_text(timing_hooks(timed))
    probe = "import time\nclass Probe:\n    def work(self):\n        time.sleep(0.003)\n"
    (tmp_path / "tailprobe.py").write_text(probe + "        return 7\n")
    script = "import gc, tailprobe\nassert tailprobe.Probe().work() == 7\ngc.collect()\n"
    script += "import time; time.sleep(0.7)\n"  # (the hooks flush every half second)
    env = {**os.environ, "PYTHONPATH": f"{hooks}{os.pathsep}{tmp_path}"}
    env[SPANS_ENV] = str(tmp_path / "spans")
    subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=60)
    files = list(tmp_path.glob("spans.*"))
    assert len(files) == 1
    spans = parse_spans(files[0].read_text().splitlines())
    work = [s for s in spans if s.kind == "Probe.work"]
    assert len(work) == 1 and work[0].ms >= 3.0
    assert any(s.kind == "gc2:MainThread" for s in spans)


def test_every_bound_variant_names_methods_the_node_has() -> None:
    """write_bound.py's switches replace these (a rename in the node must fail here)."""
    import importlib

    from write_bound import VARIANTS

    named = 0
    for _flags, switched in VARIANTS.values():
        for module, methods in switched.items():
            mod = importlib.import_module(module)
            for cls, meth, _replacement in methods:
                assert callable(getattr(getattr(mod, cls), meth)), (module, cls, meth)
                named += 1
    assert named == 4


def test_bound_hooks_switch_the_named_methods_off_in_the_nodes_interpreter(
    tmp_path: Path,
) -> None:
    import os
    import subprocess

    from write_bound import VARIANTS, switches

    repo = Path(__file__).resolve().parents[2]
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(switches(VARIANTS["no Cirrus/traces/diffs"][1]))
    script = (
        "from app.node.ledger.executor import Executor\n"
        "from app.node.ledger.reindex import Reindexer\n"
        "assert Reindexer.index_block.__name__ == '_nothing_indexed'\n"
        "class Bare: pass\n"
        "e = Bare()\n"
        "assert Executor._state_diff(e, object()) == '' and e.last_diff is None\n"
        "class Pending:\n"
        "    dropped = 0\n"
        "    def forget_pending(self): self.dropped += 1\n"
        "p = Pending(); Reindexer.index_block(p, 1, 'h', 0); assert p.dropped == 1\n"
    )
    env = {**os.environ, "PYTHONPATH": f"{hooks}{os.pathsep}{repo}"}
    subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=60)
    # a method the node no longer has: the interpreter fails on loading the module
    (hooks / "sitecustomize.py").write_text(
        switches({"app.node.ledger.reindex": [("Reindexer", "gone", "_nothing_indexed")]})
    )
    run = subprocess.run(
        [sys.executable, "-c", "import app.node.ledger.reindex"],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0 and "AttributeError" in run.stderr and "gone" in run.stderr
