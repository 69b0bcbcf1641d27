"""A guided run of the sandbox node's contract engine over the sample contracts.

This is what ``make run`` shows until the desktop GUI lands: it compiles every sample contract,
then plays a short story with the demo users (alice at Acme, bob at Globex) so that a newcomer
sees what a STRATO contract does: an asset that changes owner and shard membership, and a token
whose failed transfer leaves no trace.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from .solidvm import ExecutionError, TxEnv, World, compile_source

CONTRACTS = Path(__file__).resolve().parents[2] / "resources" / "contracts"

ALICE = "a11ce" + "0" * 35
BOB = "b0b" + "0" * 37


def run_tour(out: Callable[[str], object] = print) -> int:
    """Print the tour; returns a process exit status."""
    files = sorted(CONTRACTS.glob("*.sol"))
    if not files:
        out(f"No sample contracts found under {CONTRACTS}.")
        return 1
    out("1. Compiling the sample contracts with SolidVM")
    units = {}
    for f in files:
        t0 = time.perf_counter()
        unit = compile_source(f.read_text(encoding="utf-8"))
        ms = (time.perf_counter() - t0) * 1000
        units[f.stem] = unit
        names = ", ".join(unit.names)
        out(f"   {f.name:<22} {names:<28} {ms:5.1f} ms")

    world = World()
    world.register_identity(
        ALICE, {"commonName": "alice", "organization": "Acme", "organizationalUnit": "Engineering"}
    )
    world.register_identity(
        BOB, {"commonName": "bob", "organization": "Globex", "organizationalUnit": "Logistics"}
    )
    as_alice = TxEnv(sender=ALICE, block_number=1, timestamp=int(time.time()))
    as_bob = TxEnv(sender=BOB, block_number=2, timestamp=int(time.time()))

    out("\n2. alice (Acme) registers a car asset")
    car = world.deploy(
        units["CarAsset"].contracts["Car"],
        {
            "_appChainId": "0" * 64,
            "_vin": "1HGCM82633A004352",
            "_color": "red",
            "_model": "Accord",
            "_weight": 1400,
        },
        as_alice,
    )
    assert car.address is not None
    state = world.state(car.address)
    out(
        f"   Car at {car.address}: {state['model']}, {state['color']}, owner organization "
        f"{state['ownerOrganization']}"
    )

    out("\n3. alice repaints it: update(..., scheme 0100) changes only the second field, color")
    res = world.call(
        car.address,
        "update",
        {"_vin": "", "_color": "blue", "_model": "", "_weight": 0, "_scheme": 0b0100},
        as_alice,
    )
    out(f"   returned {res.values[0]}; color is now {world.state(car.address)['color']}")
    res = world.call(
        car.address,
        "update",
        {"_vin": "", "_color": "green", "_model": "", "_weight": 0, "_scheme": 4},
        as_bob,
    )
    out(f"   bob tries the same: returned {res.values[0]} (forbidden, he is not the owner)")

    out("\n4. alice transfers the car to bob; the shard membership events follow")
    res = world.call(car.address, "transferOwnership", {"_addr": BOB}, as_alice)
    for ev in res.events:
        out(f"   event {ev.name}({', '.join(v for _, v in ev.args)})")
    out(f"   owner organization is now {world.state(car.address)['ownerOrganization']}")

    out("\n5. A token: alice sends bob 250, then bob tries to send a million back")
    token = world.deploy(
        units["Token"].contracts["Token"],
        {"_name": "Demo", "_symbol": "DMO", "_supply": 1000},
        as_alice,
    )
    assert token.address is not None
    world.call(token.address, "transfer", {"to": BOB, "amount": 250}, as_alice)
    try:
        world.call(token.address, "transfer", {"to": ALICE, "amount": 10**6}, as_bob)
    except ExecutionError as exc:
        out(f"   rejected: {exc.message}")
    balances = world.state(token.address)["balances"]
    out(f"   balances unchanged by the failure: alice {balances[ALICE]}, bob {balances[BOB]}")
    return 0
