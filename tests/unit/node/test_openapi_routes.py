"""The OpenAPI description and the node's route list cannot drift apart (app/node/openapi.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from app.node.config import NodeConfig
from app.node.openapi import (
    UndescribedRoute,
    allow_header,
    allowed_methods,
    document,
    operation_key,
    served,
)
from app.node.openapi_ops import OPERATIONS
from app.node.server import Node


def _app_routes(data_dir: Path, *, file_storage: bool) -> list[BaseRoute]:
    node = Node(NodeConfig(data_dir, file_storage=file_storage))
    try:
        return list(node.app().routes)
    finally:
        node.close()


@pytest.fixture(scope="module")
def route_sets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[list[BaseRoute]]]:
    base = tmp_path_factory.mktemp("routes")
    yield [
        _app_routes(base / "files", file_storage=True),
        _app_routes(base / "nofiles", file_storage=False),
    ]


def test_every_served_route_is_described_and_nothing_else(
    route_sets: list[list[BaseRoute]],
) -> None:
    for routes in route_sets:
        doc = document(routes, "test")
        described = {(p, m.upper()) for p, item in doc["paths"].items() for m in item}
        assert described == {(p, m) for p, m, _ in served(routes)}
        assert len(described) > 90


def test_no_description_is_left_without_a_route(route_sets: list[list[BaseRoute]]) -> None:
    used: set[str] = set()
    for routes in route_sets:
        for _, method, endpoint in served(routes):
            key = operation_key(endpoint)
            used.add(f"{key}:{method}" if f"{key}:{method}" in OPERATIONS else key)
    assert set(OPERATIONS) - used == set(), "descriptions of handlers no route serves"


async def _handler(request: Request) -> Response:
    return PlainTextResponse("")


def test_a_route_without_a_description_fails_the_build() -> None:
    with pytest.raises(UndescribedRoute, match="_handler"):
        document([Route("/new", _handler, methods=["GET"])], "test")


def test_a_path_parameter_without_a_description_fails_the_build(
    route_sets: list[list[BaseRoute]],
) -> None:
    health = next(r for r in route_sets[0] if isinstance(r, Route) and r.path == "/health")
    with pytest.raises(UndescribedRoute, match="surprise"):
        document([Route("/health/{surprise}", health.endpoint, methods=["GET"])], "test")


def test_allowed_methods_joins_every_route_of_a_path_and_mounts() -> None:
    routes: list[BaseRoute] = [
        Route("/k", _handler, methods=["GET"]),
        Route("/k", _handler, methods=["POST"]),
        Route("/a/{x}", _handler, methods=["PUT"]),
        Mount("/m", routes=[Route("/t", _handler, methods=["POST"])]),
    ]

    def scope(path: str) -> dict[str, object]:
        return {"type": "http", "path": path, "root_path": "", "method": "GET"}

    assert allowed_methods(routes, scope("/k")) == {"GET", "HEAD", "POST"}
    assert allow_header(allowed_methods(routes, scope("/k"))) == "GET, HEAD, POST, OPTIONS"
    assert allowed_methods(routes, scope("/a/1")) == {"PUT"}
    assert allowed_methods(routes, scope("/m/t")) == {"POST"}
    assert allowed_methods(routes, scope("/nothing")) == set()
