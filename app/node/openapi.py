"""``GET /openapi.json`` and ``OPTIONS``: both derived from the routes the node really serves.

The description is built by walking the application's route list (NodeApi's table, the asset
application and file routes, the OIDC issuer under ``/auth``) and looking each endpoint up in
:data:`app.node.openapi_ops.OPERATIONS` by its handler's name (see :func:`operation_key`), so a
route cannot be served without being described: an undescribed handler fails the build (and the
tests).
The same walk answers ``OPTIONS`` and the ``Allow`` header of a 405 with every method a path
serves, whichever of the path's routes the router happened to try first.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Sequence
from typing import Any

from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from .openapi_ops import OPERATIONS
from .openapi_shapes import AUTH_FAILED, COMPONENTS, JSON_BODY_ERRORS, NO_TOKEN, PATH_PARAMS

METHOD_ORDER = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
_PARAM = re.compile(r"\{([^}:]+)(?::[^}]+)?\}")


class UndescribedRoute(LookupError):
    """A served route has no entry in OPERATIONS (or names an undescribed path parameter)."""


def handler_of(endpoint: Any) -> Any:
    """The handler behind NodeApi.endpoint's wrapper (or the endpoint itself)."""
    return getattr(endpoint, "handler", endpoint)


def operation_key(endpoint: Any) -> str:
    """``Class.method`` of the handler, the class being the object's own: NodeApi's handlers
    live in route-family mixins (app/node/routes/) but are described as ``NodeApi.name``."""
    handler = handler_of(endpoint)
    owner = getattr(handler, "__self__", None)
    if owner is not None and hasattr(handler, "__name__"):
        return f"{type(owner).__name__}.{handler.__name__}"
    return str(getattr(handler, "__qualname__", repr(endpoint)))


def served(routes: Sequence[BaseRoute], prefix: str = "") -> Iterator[tuple[str, str, Any]]:
    """(OpenAPI path, method, endpoint) of every route, HEAD left out (it follows GET)."""
    for r in routes:
        if isinstance(r, Mount):
            yield from served(r.routes, prefix + r.path)
        elif isinstance(r, Route):
            path = _PARAM.sub(r"{\1}", prefix + r.path)
            for method in sorted(r.methods or {"GET"}):
                if method != "HEAD":
                    yield path, method, r.endpoint


def _operation(path: str, method: str, endpoint: Any) -> dict[str, Any]:
    key = operation_key(endpoint)
    spec = OPERATIONS.get(f"{key}:{method}") or OPERATIONS.get(key)
    if spec is None:
        raise UndescribedRoute(f"{method} {path}: handler {key} is not described in openapi_ops")
    op: dict[str, Any] = copy.deepcopy(spec)
    op["summary"] = getattr(endpoint, "summary", None) or op.get("summary", "")
    op["operationId"] = method.lower() + re.sub(r"[^A-Za-z0-9]", "_", path.replace("{", ""))
    params = []
    for name in _PARAM.findall(path):
        if name not in PATH_PARAMS:
            raise UndescribedRoute(f"{method} {path}: path parameter {name} is not described")
        params.append({"name": name, "in": "path", "required": True, **PATH_PARAMS[name]})
    params += op.get("parameters", [])
    if params:
        op["parameters"] = params
    responses: dict[str, Any] = op.setdefault("responses", {})
    body = op.get("requestBody", {}).get("content", {})
    if "application/json" in body:
        for status, response in JSON_BODY_ERRORS.items():
            responses.setdefault(status, copy.deepcopy(response))
    if not getattr(endpoint, "public", True):
        op["security"] = [{"bearer": []}]
        responses["401"] = copy.deepcopy(NO_TOKEN)
        denied = copy.deepcopy(AUTH_FAILED)
        if "403" in responses:  # the route's own refusal (not a member...) shares the status
            own = responses["403"]
            denied["description"] += "; or " + own["description"]
            for media, content in own.get("content", {}).items():
                mine = denied["content"].setdefault(media, {"schema": {"anyOf": []}})
                schema = mine["schema"]
                if "anyOf" not in schema:
                    mine["schema"] = schema = {"anyOf": [schema]}
                schema["anyOf"].append(content["schema"])
        responses["403"] = denied
    op["responses"] = dict(sorted(responses.items()))
    return op


def document(routes: Sequence[BaseRoute], version: str) -> dict[str, Any]:
    """The OpenAPI 3.0 document of ``routes``; raises UndescribedRoute for a gap."""
    paths: dict[str, dict[str, Any]] = {}
    for path, method, endpoint in served(routes):
        paths.setdefault(path, {})[method.lower()] = _operation(path, method, endpoint)
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "Stratoscope sandbox node",
            "version": version,
            "description": (
                "STRATO-compatible REST API of the sandbox node. Every path also answers "
                "OPTIONS (204, Allow lists its methods) and HEAD where it answers GET. "
                "Integers in paths and queries are ASCII digits; addresses are 40 hex digits "
                "and hashes and chain ids 64, with or without 0x."
            ),
        },
        "paths": paths,
        "components": copy.deepcopy(COMPONENTS),
    }


def allowed_methods(routes: Sequence[BaseRoute], scope: Scope) -> set[str]:
    """Every method some route serves at the scope's path (empty: no route has the path)."""
    found: set[str] = set()
    probe = {**scope, "method": "\0"}  # no route serves it: a path match is always PARTIAL
    for r in routes:
        match, child = r.matches(probe)
        if match is Match.NONE:
            continue
        if isinstance(r, Mount):
            found |= allowed_methods(r.routes, {**probe, **child})
        elif isinstance(r, Route):
            found |= r.methods or {"GET", "HEAD"}
    return found


def allow_header(methods: set[str]) -> str:
    rank = {m: i for i, m in enumerate(METHOD_ORDER)}
    return ", ".join(sorted(methods | {"OPTIONS"}, key=lambda m: (rank.get(m, len(rank)), m)))


class OptionsMiddleware:
    """Answers ``OPTIONS`` for every routed path: 204 with the full ``Allow`` header.

    Starlette alone answers a 405 naming the methods of the first route it tried, so a path
    served by two routes (GET and POST of ``/svc/v2.3/key``) seemed to lack one of them. Public:
    the answer only says what the public ``/openapi.json`` already says.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "OPTIONS":
            await self.app(scope, receive, send)
            return
        methods = allowed_methods(scope["app"].routes, scope)
        if not methods:
            await self.app(scope, receive, send)  # the router's own 404
            return
        await send(
            {
                "type": "http.response.start",
                "status": 204,
                "headers": [(b"allow", allow_header(methods).encode())],
            }
        )
        await send({"type": "http.response.body", "body": b""})
