"""The compiles of a start are held to ``--compile-time-limit`` (issue 26).

A start compiles the code of the saved contracts (after a clean stop, from the snapshot) and
the uploads it replays (after a kill, the blocks since the last snapshot: the executor's
compile, which also runs whenever the compile cache dropped a checked upload's unit before it
ran). Neither was bounded: a huge stored source held the start for as long as it took. Now a
start whose stored code does not compile within the bound ends at once with a message that
names the flag, and a start with a larger bound loads the contract as before.
"""

from __future__ import annotations

import time

import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import NodeStartError, RunningNode, call_tx, deploy, submit

LIMIT_S = 0.2


def many_functions(n: int) -> str:
    """About 60 bytes a function: 8,000 take seconds to compile."""
    body = "".join(
        f"    function f{i}(uint a) public returns (uint) {{ x = a + {i}; return x; }}\n"
        for i in range(n)
    )
    return f"contract Many {{\n    uint public x;\n{body}}}\n"


def refused_start(node: RunningNode) -> tuple[str, float]:
    """Start ``node`` with the low bound: (what it said, how long it took to give up)."""
    node.flags = ["--compile-time-limit", str(LIMIT_S)]
    t0 = time.monotonic()
    with pytest.raises(NodeStartError) as info:
        node.start(node.port)
    return str(info.value), time.monotonic() - t0


@pytest.mark.parametrize("stop", ["clean", "kill"])
def test_a_start_stops_at_the_bound_on_slow_stored_code(
    tmp_path_factory: pytest.TempPathFactory, stop: str
) -> None:
    node = make_node(tmp_path_factory, "--compile-time-limit", "0", name=f"startbound-{stop}")
    try:
        alice = node.new_client("alice", timeout=120.0)
        address = deploy(alice, "Many", many_functions(8000))
        if stop == "clean":
            node.stop()  # a snapshot: the start compiles the saved contract's code
        else:
            node.kill9()  # no snapshot since: the start replays the upload
        said, took = refused_start(node)
        assert "did not compile within the compile time limit of 0.2 s" in said, said
        assert "--compile-time-limit" in said, said
        assert took < 4.0, f"the start gave up after {took:.1f} s"
        node.flags = ["--compile-time-limit", "0"]
        node.restart()
        alice = node.new_client("alice", timeout=60.0)
        res = submit(alice, call_tx(address, "f7", {"a": 1}))
        assert res[0]["data"]["contents"] == ["8"], res
        assert "replay of" not in node.log_tail(400)
    finally:
        node.stop()
