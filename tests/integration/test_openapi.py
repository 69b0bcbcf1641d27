"""``/openapi.json`` against the node that serves it: complete, valid, and matched by OPTIONS.

The description is built from the routes themselves (app/node/openapi.py), so these tests check
the other direction black-box: every described path and method is answered, and OPTIONS on each
described path lists exactly the methods the description gives for the paths that match it.
"""

from __future__ import annotations

import re
from typing import Any

import jsonschema_rs
import pytest
from schemathesis.specs.openapi.definitions import OPENAPI_30

from tests.integration.node_fixture import RunningNode

METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def spec(node: RunningNode) -> dict[str, Any]:
    r = node.client().get("/openapi.json")
    assert r.status_code == 200
    doc: dict[str, Any] = r.json()
    return doc


def _operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if method in METHODS
    ]


def _template(path: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "$")


def _concrete(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "x1", path)


def test_the_description_is_valid_openapi_3_0(spec: dict[str, Any]) -> None:
    jsonschema_rs.Draft4Validator(OPENAPI_30).validate(spec)
    ids = [op["operationId"] for _, _, op in _operations(spec)]
    assert len(ids) == len(set(ids)), "operationIds are not unique"


def test_every_operation_has_parameters_statuses_and_bodies(spec: dict[str, Any]) -> None:
    problems = []
    for path, method, op in _operations(spec):
        where = f"{method.upper()} {path}"
        declared = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
        if declared != set(re.findall(r"\{([^}]+)\}", path)):
            problems.append(f"{where}: path parameters {sorted(declared)}")
        statuses = set(op["responses"])
        read_only = path.startswith("/cirrus/search/") and method != "get"  # 403 by design
        if not statuses & {"200", "204", "302", "405"} and not read_only:
            problems.append(f"{where}: no success status")
        if "security" in op:
            if not {"401", "403"} <= statuses:
                problems.append(f"{where}: bearer route without 401/403")
            elif "invalid jwt" not in op["responses"]["403"]["description"]:
                problems.append(f"{where}: 403 does not name the invalid jwt answer")
        for status, response in op["responses"].items():
            storage_failure = status == "500" and path.endswith("/upload")
            if status.startswith("5") and status not in ("503", "504") and not storage_failure:
                problems.append(f"{where}: documents {status}")
            if status not in ("302", "303") and not response.get("content"):
                problems.append(f"{where}: {status} has no body schema")
        if (
            method in ("post", "put")
            and "requestBody" not in op
            and path.endswith(
                ("/transaction", "/results", "/chain", "/chains", "/xabi", "/compile")
            )
        ):
            problems.append(f"{where}: no request body")
    assert not problems, "\n".join(problems)


def test_the_transaction_route_is_described_in_full(spec: dict[str, Any]) -> None:
    op = spec["paths"]["/strato/v2.3/transaction"]["post"]
    params = {p["name"]: p for p in op["parameters"]}
    assert params["resolve"]["in"] == "query"
    assert params["resolve"]["schema"]["type"] == "boolean"
    assert re.fullmatch(params["chainid"]["schema"]["pattern"], "ab" * 32)
    assert op["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/TransactionRequest"
    }
    assert {"200", "400", "401", "403", "413", "422", "504"} <= set(op["responses"])
    tx = spec["components"]["schemas"]["Tx"]
    assert tx["properties"]["type"]["enum"] == ["CONTRACT", "FUNCTION", "TRANSFER"]
    result = spec["paths"]["/bloc/v2.2/transactions/{hash}/result"]["get"]
    hash_param = next(p for p in result["parameters"] if p["name"] == "hash")
    pattern = hash_param["schema"]["pattern"]
    assert re.fullmatch(pattern, "0x" + "ab" * 32) and not re.fullmatch(pattern, "ab" * 31)
    blocks = spec["paths"]["/svc-api/eth/v1.2/block"]["get"]
    number = next(p for p in blocks["parameters"] if p["name"] == "number")
    assert number["schema"]["type"] == "integer" and number["schema"]["minimum"] == 0
    assert "text/plain" in blocks["responses"]["400"]["content"]  # "Need one of: ..."
    cirrus = spec["paths"]["/cirrus/search/{table}"]
    assert {"404", "416"} <= set(cirrus["get"]["responses"])
    assert "403" in cirrus["post"]["responses"]
    token = spec["paths"]["/auth/token"]["post"]
    assert "application/x-www-form-urlencoded" in token["requestBody"]["content"]
    assert "429" in token["responses"]


def test_every_described_operation_is_routed(node: RunningNode, spec: dict[str, Any]) -> None:
    anonymous = node.client()
    problems = []
    for path, method, op in _operations(spec):
        r = anonymous.request(method.upper(), _concrete(path))
        if "no such route" in r.text or (r.status_code == 405 and "405" not in op["responses"]):
            problems.append(f"{method.upper()} {path}: not routed ({r.status_code})")
        elif "security" in op and r.status_code != 401:
            problems.append(f"{method.upper()} {path}: answers {r.status_code} without a token")
    assert not problems, "\n".join(problems)


def test_options_lists_every_method_the_description_gives(
    node: RunningNode, spec: dict[str, Any]
) -> None:
    """The served routes and the description agree, path by path (OPTIONS is public)."""
    templates = {path: _template(path) for path in spec["paths"]}
    client = node.client()
    problems = []
    for path in spec["paths"]:
        concrete = _concrete(path)
        r = client.options(concrete)
        if r.status_code != 204:
            problems.append(f"OPTIONS {path}: {r.status_code}")
            continue
        allowed = {m.strip() for m in r.headers["allow"].split(",")}
        expected = {"OPTIONS"}
        for other, pattern in templates.items():
            if pattern.match(concrete):
                expected |= {m.upper() for m in spec["paths"][other] if m in METHODS}
        if "GET" in expected:
            expected.add("HEAD")
        if allowed != expected:
            problems.append(
                f"OPTIONS {path}: Allow {sorted(allowed)}, described {sorted(expected)}"
            )
    assert not problems, "\n".join(problems)


def test_options_and_405_name_all_methods_of_a_path_served_by_several_routes(
    node: RunningNode,
) -> None:
    client = node.client()
    r = client.options("/svc/v2.3/key")
    assert r.status_code == 204
    assert r.headers["allow"] == "GET, HEAD, POST, OPTIONS"
    r = client.delete("/svc/v2.3/key")
    assert r.status_code == 405
    assert r.headers["allow"] == "GET, HEAD, POST, OPTIONS"
    assert "DELETE" in r.json()["error"]
    r = client.options("/bloc/v2.2/transactions/results")
    assert r.headers["allow"] == "POST, OPTIONS"
    assert client.options("/no/such/route").status_code == 404
