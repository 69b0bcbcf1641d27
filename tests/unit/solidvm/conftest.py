"""Fixtures for the SolidVM corpus: a world with three registered users and deploy/call helpers.

``deploy`` compiles a source and deploys one of its contracts; ``call`` calls a deployed contract;
``run`` does both for contracts whose constructor takes no arguments and returns the decoded
return values. Senders default to alice.
"""

from __future__ import annotations

from typing import Any, Protocol

import pytest

from .helpers import ALICE, BLOCK_NUMBER, IDENTITIES, TIMESTAMP, compile_src, make_env, values


class DeployFn(Protocol):
    def __call__(
        self,
        src: str | dict[str, str],
        contract: str,
        args: dict[str, Any] | None = None,
        sender: str = ALICE,
        vm: str = "SolidVM",
        *,
        timestamp: int = TIMESTAMP,
        block_number: int = BLOCK_NUMBER,
    ) -> Any: ...


class CallFn(Protocol):
    def __call__(
        self,
        addr: str,
        method: str,
        args: dict[str, Any] | None = None,
        sender: str = ALICE,
        *,
        timestamp: int = TIMESTAMP,
        block_number: int = BLOCK_NUMBER,
        max_steps: int | None = None,
    ) -> Any: ...


class RunFn(Protocol):
    def __call__(
        self,
        src: str,
        method: str,
        args: dict[str, Any] | None = None,
        contract: str = "C",
        vm: str = "SolidVM",
        sender: str = ALICE,
    ) -> list[Any]: ...


@pytest.fixture
def world() -> Any:
    from app.node.solidvm import World

    w = World()
    for addr, identity in IDENTITIES.items():
        w.register_identity(addr, dict(identity))
    return w


@pytest.fixture
def deploy(world: Any) -> DeployFn:
    def _deploy(
        src: str | dict[str, str],
        contract: str,
        args: dict[str, Any] | None = None,
        sender: str = ALICE,
        vm: str = "SolidVM",
        *,
        timestamp: int = TIMESTAMP,
        block_number: int = BLOCK_NUMBER,
    ) -> Any:
        unit = compile_src(src, vm=vm)
        env = make_env(sender, block_number, timestamp)
        return world.deploy(unit.contracts[contract], args or {}, env)

    return _deploy


@pytest.fixture
def call(world: Any) -> CallFn:
    def _call(
        addr: str,
        method: str,
        args: dict[str, Any] | None = None,
        sender: str = ALICE,
        *,
        timestamp: int = TIMESTAMP,
        block_number: int = BLOCK_NUMBER,
        max_steps: int | None = None,
    ) -> Any:
        env = make_env(sender, block_number, timestamp)
        if max_steps is None:
            return world.call(addr, method, args or {}, env)
        return world.call(addr, method, args or {}, env, max_steps=max_steps)

    return _call


@pytest.fixture
def run(deploy: DeployFn, call: CallFn) -> RunFn:
    def _run(
        src: str,
        method: str,
        args: dict[str, Any] | None = None,
        contract: str = "C",
        vm: str = "SolidVM",
        sender: str = ALICE,
    ) -> list[Any]:
        res = deploy(src, contract, vm=vm, sender=sender)
        return values(call(res.address, method, args, sender=sender))

    return _run
