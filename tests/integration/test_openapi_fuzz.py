"""Schema-driven fuzzing of a real node with schemathesis: no 5xx, every answer as described.

Every operation of ``/openapi.json`` gets its documented examples, a few generated requests that
fit the description (positive) and, where it takes parameters or a body, a few that do not
(negative), all as the demo user alice. Each response must not be a 5xx and must have a
documented status, content type and body schema. Derandomized, so a failure reproduces; bounded
(about 20 s here) by the example counts below.

The operations that create things (chains, applications, assets, file records) are fuzzed like
the others: their generated bodies almost never pass validation, and the few that do (their
documented examples) create one small chain or application each.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.integration.node_fixture import RunningNode

POSITIVE = 8
NEGATIVE = 4
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def _can_be_wrong(operation: Any) -> bool:
    """Whether a request can break the description (any text fits a free-form string).

    Negative generation for an operation of free-form strings only (the OAuth form posts) cannot
    succeed, and Hypothesis spends seconds finding that out.
    """
    definition = operation.definition.raw
    if "application/json" in definition.get("requestBody", {}).get("content", {}):
        return True
    return any(p.get("schema") != {"type": "string"} for p in definition.get("parameters", []))


def _operations(schema: Any) -> list[Any]:
    """Every operation; an operation schemathesis cannot read fails the test."""
    results = list(schema.get_all_operations())
    unreadable = [str(r.err()) for r in results if not isinstance(r, Ok)]
    assert not unreadable, unreadable
    return [r.ok() for r in results if isinstance(r, Ok)]


def _run(strategy: st.SearchStrategy[Any], examples: int, send: Callable[[Any], None]) -> None:
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: report the first failure
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def run(case: Any) -> None:
        send(case)

    run()


def test_no_operation_answers_5xx_or_off_its_description(node: RunningNode) -> None:
    doc = node.client().get("/openapi.json").json()
    schema = schemathesis.openapi.from_dict(doc)
    headers = {"Authorization": f"Bearer {node.token('alice')}"}
    failures: list[str] = []
    sent = 0

    def send(case: Any) -> None:
        nonlocal sent
        sent += 1
        response = case.call(base_url=node.url, headers=headers, timeout=30)
        case.validate_response(response, checks=CHECKS, headers=headers)

    operations = _operations(schema)
    assert len(operations) > 90
    for op in operations:
        runs = [
            (f"example {i}", s, 1) for i, s in enumerate(schema.get_strategies_from_examples(op))
        ]
        runs.append(("positive", op.as_strategy(), POSITIVE))
        if _can_be_wrong(op):
            runs.append(("negative", op.as_strategy(GenerationMode.NEGATIVE), NEGATIVE))
        for mode, strategy, count in runs:
            try:
                _run(strategy, count, send)
            except Unsatisfiable:
                continue  # nothing of that kind can be generated for this operation
            except (AssertionError, BaseExceptionGroup) as exc:  # schemathesis: FailureGroup
                failures.append(f"{op.label} ({mode}):\n{exc}"[:3000])
    assert sent > 400
    assert not failures, f"{len(failures)} operations failed:\n\n" + "\n\n".join(failures)
    assert "unexpected error" not in node.log_tail(400)


@pytest.mark.parametrize("path", ["/svc/v2.3/key", "/bloc/v2.2/transactions/results"])
def test_the_fuzzer_sees_a_broken_answer(node: RunningNode, path: str) -> None:
    """The checks are live: a response that contradicts the description is reported."""
    doc = node.client().get("/openapi.json").json()
    for op in doc["paths"][path].values():
        op["responses"] = {"418": {"description": "never"}}
    schema = schemathesis.openapi.from_dict(doc)
    headers = {"Authorization": f"Bearer {node.token('alice')}"}
    op = next(o for o in _operations(schema) if o.path == path)

    def send(case: Any) -> None:
        response = case.call(base_url=node.url, headers=headers, timeout=30)
        case.validate_response(response, checks=CHECKS, headers=headers)

    with pytest.raises(BaseExceptionGroup) as caught:
        _run(op.as_strategy(), 1, send)
    assert "Undocumented status code" in str(caught.value)


NON_ASCII_DIGITS = (
    "\u00b9",
    "\u0663",
)  # superscript one, Arabic-Indic three: str.isdigit() is true


def _concrete(path: str, params: list[dict[str, Any]], name: str, value: str) -> str:
    """The path with ``name`` set to ``value`` and the other parameters to their examples."""
    examples = {p["name"]: str(p.get("example", "x1")) for p in params if p["in"] == "path"}
    examples[name] = value
    return re.sub(r"\{([^}]+)\}", lambda m: quote(examples[m.group(1)], safe=""), path)


def test_integer_parameters_and_bodies_refuse_what_is_not_ascii_digits(node: RunningNode) -> None:
    """Every integer parameter of the description, and every JSON body, as a careless user sends.

    Schemathesis generates ASCII integers for them, so these inputs are sent here, from the same
    description: each must be refused with a 4xx, never taken as a number nor answered 500.
    """
    doc = node.client().get("/openapi.json").json()
    client = node.client("alice")
    problems = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            params = op.get("parameters", [])
            for p in params:
                if p.get("schema", {}).get("type") != "integer":
                    continue
                for digit in NON_ASCII_DIGITS:
                    if p["in"] == "path":
                        r = client.request(method, _concrete(path, params, p["name"], digit))
                    else:
                        url = _concrete(path, params, "", "")
                        r = client.request(method, url, params={p["name"]: digit})
                    if not 400 <= r.status_code < 500:  # "\u0663" was read as 3
                        problems.append(
                            f"{method.upper()} {path} {p['name']}={digit}: {r.status_code}"
                        )
            if "application/json" in op.get("requestBody", {}).get("content", {}):
                huge = "[" + "1" * 5000 + "]"
                r = client.request(
                    method,
                    _concrete(path, params, "", ""),
                    content=huge,
                    headers={"Content-Type": "application/json"},
                )
                if r.status_code >= 500:
                    problems.append(f"{method.upper()} {path}: a 5,000-digit JSON integer")
    transfer = {
        "txs": [{"type": "TRANSFER", "payload": {"toAddress": "1" * 40, "value": "\u00b9"}}]
    }
    r = client.post("/strato/v2.3/transaction", json=transfer)
    if r.status_code >= 500:
        problems.append('POST /strato/v2.3/transaction: TRANSFER "value": "\u00b9"')
    assert not problems, f"{len(problems)} answers were not 4xx:\n" + "\n".join(problems)
