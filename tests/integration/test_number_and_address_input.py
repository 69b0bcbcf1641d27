"""Issue 26 item 9 (numbers and addresses): non-numbers in Cirrus filters and lax address or
integer arguments answer a 400 that names the field, never a 500, a stall, or a transaction to
an address nobody owns (real node over loopback).

Decisions (README, "Where the sandbox differs"): an address argument is 40 hex digits, or ``0x``
and 1-40 hex digits; the platform also reads a bare short form as hex ("1e3" is 0x1e3, "10" is
0x10), the sandbox asks for the ``0x`` there. An integer argument given as a string is read as
the platform's reader does: surrounding spaces, an optional "-", decimal digits or ``0x`` hex;
no "+", no "_", no exponent. A Cirrus filter value is read as PostgreSQL 14 reads input of the
column's type (the platform's number columns are ``decimal``, which takes NaN and Infinity;
``jsonb`` does not; STRATO 16's serial columns are 32-bit ``integer``).
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import RunningNode, call_tx, deploy, submit, wait_for

SOURCE = """
contract Nums {
    mapping(uint => uint) public m;
    uint public x = 5;
    int public y = -3;
    decimal public d = 1.5;
    string public s = "NaN";
    address public who;
    account public acct;
    constructor() { m[1] = 5; }
    function give(address to, uint v) public { who = to; x = v; }
    function setY(int v) public { y = v; }
    function setAcct(account a) public { acct = a; }
    function echo(variadic args) public returns (variadic) { return args; }
}
"""


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.client("alice")


@pytest.fixture(scope="module")
def nums(alice: httpx.Client) -> str:
    address = deploy(alice, "Nums", SOURCE)

    def indexed() -> bool:
        r = alice.get("/cirrus/search/Nums-m", params={"key": "eq.1"})
        return r.status_code == 200 and len(r.json()) == 1

    wait_for(indexed, 30, "the Nums rows in Cirrus")
    return address


def pg_refusal(r: httpx.Response, message: str) -> dict[str, Any]:
    assert r.status_code == 400, f"{r.status_code}: {r.text[:300]}"
    body: dict[str, Any] = r.json()
    assert body["code"] == "22P02", body
    assert body["message"].startswith(message), body
    return body


# ---------------------------------------------------------------------------------- Cirrus


@pytest.mark.parametrize(
    "condition", ["eq.NaN", "gt.NaN", "eq.Infinity", "lt.-Infinity", "in.(1,NaN)", "neq.nan"]
)
@pytest.mark.parametrize("table", ["Nums-m", "mapping"])
def test_not_a_number_in_a_jsonb_filter(
    alice: httpx.Client, nums: str, table: str, condition: str
) -> None:
    """PostgreSQL's jsonb input refuses NaN and Infinity (22P02, as PostgREST passes it on)."""
    r = alice.get(f"/cirrus/search/{table}", params={"value": condition})
    body = pg_refusal(r, "invalid input syntax for type json")
    assert "is invalid" in body["details"], body


@pytest.mark.parametrize("value", ["[1.5]", '{"a": [2.25, 1]}', "[1e400, 0.5]"])
@pytest.mark.parametrize("table", ["Nums-m", "mapping"])
def test_a_fraction_inside_a_jsonb_filter(
    alice: httpx.Client, nums: str, table: str, value: str
) -> None:
    """A fraction inside an array or object was a 500 (the stored form could not encode it);
    stored containers hold no fractions, so it equals nothing."""
    r = alice.get(f"/cirrus/search/{table}", params={"value": f"eq.{value}"})
    assert r.status_code == 200, r.text
    assert r.json() == []


@pytest.mark.parametrize(
    ("condition", "matches"),
    [
        ("eq.NaN", False),
        ("neq.nan", True),
        ("lt.NaN", True),
        ("gt.NaN", False),
        ("lte.Infinity", True),
        ("gt.inf", False),
        ("gt.-Infinity", True),
        ("lt.-inf", False),
        ("in.(NaN,Infinity)", False),
        ("lt. 1e3 ", True),
        ("gt.-3.5", True),
        ("eq.+1e-1000", False),
    ],
)
@pytest.mark.parametrize("column", ["x", "y", "d", "block_number"])
def test_numeric_columns_read_numbers_as_postgresql(
    alice: httpx.Client, nums: str, column: str, condition: str, matches: bool
) -> None:
    """The platform's number columns are PostgreSQL 14 ``decimal``: NaN (above every number)
    and Infinity are numbers there, and so are "1e3" and " 7 " (issue 26 expected a 400; this
    is what PostgREST on the platform answers)."""
    r = alice.get(
        "/cirrus/search/Nums", params={column: condition, "address": f"eq.{nums}", "select": "x"}
    )
    assert r.status_code == 200, r.text
    assert r.json() == ([{"x": int(state(alice, nums)["x"])}] if matches else [])


@pytest.mark.parametrize("column", ["x", "d"])
@pytest.mark.parametrize("value", ["NaNx", "7_0", "0x10", "1e1001", "++1", "Inf inity", "\u0661"])
def test_numeric_columns_refuse_what_postgresql_refuses(
    alice: httpx.Client, nums: str, column: str, value: str
) -> None:
    r = alice.get("/cirrus/search/Nums", params={column: f"eq.{value}"})
    pg_refusal(r, "invalid input syntax for type numeric")


@pytest.mark.parametrize(
    ("value", "code", "message"),
    [
        ("99999999999999999999", "22003", 'value "99999999999999999999" is out of range'),
        ("-2147483649", "22003", 'value "-2147483649" is out of range for type integer'),
        ("NaN", "22P02", 'invalid input syntax for type integer: "NaN"'),
        ("1e3", "22P02", 'invalid input syntax for type integer: "1e3"'),
        ("1.5", "22P02", 'invalid input syntax for type integer: "1.5"'),
    ],
)
@pytest.mark.parametrize(("table", "column"), [("event", "id"), ("event", "event_index")])
def test_integer_columns_read_numbers_as_postgresql(
    alice: httpx.Client, nums: str, table: str, column: str, value: str, code: str, message: str
) -> None:
    """STRATO 16's serial columns are ``integer``: a 20-digit value was a 500 (SQLite's 64-bit
    bound); PostgreSQL answers 22003 past 32 bits."""
    r = alice.get(f"/cirrus/search/{table}", params={column: f"eq.{value}"})
    assert r.status_code == 400, r.text
    assert r.json()["code"] == code and r.json()["message"].startswith(message), r.json()
    r = alice.get(f"/cirrus/search/{table}", params={column: "lt. +2147483647 "})
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("table", ["Nums-m", "mapping"])
def test_a_huge_exponent_is_refused_at_once(alice: httpx.Client, nums: str, table: str) -> None:
    """1e999999999 once expanded into a billion-digit integer, holding the node for minutes;
    PostgreSQL's numeric input refuses a written exponent beyond 1000."""
    start = time.monotonic()
    r = alice.get(f"/cirrus/search/{table}", params={"value": "eq.1e999999999"}, timeout=10)
    pg_refusal(r, "invalid input syntax for type numeric")
    assert time.monotonic() - start < 5
    for column in ("x", "d"):
        r = alice.get("/cirrus/search/Nums", params={column: "gt.1e1001"})
        pg_refusal(r, "invalid input syntax for type numeric")
    # an exponent PostgreSQL takes still works
    r = alice.get(f"/cirrus/search/{table}", params={"value": "lt.1e1000", "select": "value"})
    assert r.status_code == 200, r.text
    assert {"value": 5} in r.json()


def test_casting_text_that_is_not_json(alice: httpx.Client, nums: str) -> None:
    """``'NaN'::jsonb`` is an error in PostgreSQL, not a float the response cannot encode."""
    r = alice.get("/cirrus/search/Nums", params={"select": "s::jsonb", "address": f"eq.{nums}"})
    pg_refusal(r, "invalid input syntax for type json")
    r = alice.get("/cirrus/search/Nums", params={"select": "s", "address": f"eq.{nums}"})
    assert r.json() == [{"s": "NaN"}]


# ------------------------------------------------------------------------------- arguments


def call(client: httpx.Client, address: str, method: str, args: dict[str, Any]) -> Any:
    return submit(client, call_tx(address, method, args))


def refused(
    client: httpx.Client, address: str, method: str, args: dict[str, Any], *fragments: str
) -> str:
    """The call is refused with a 400 whose message (a JSON string) holds ``fragments``."""
    r = client.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={
            "txs": [call_tx(address, method, args)],
            "txParams": {"gasLimit": 100_000_000, "gasPrice": 1},
        },
    )
    assert r.status_code == 400, f"{r.status_code}: {r.text[:300]}"
    message = r.json()
    assert isinstance(message, str), message
    for f in fragments:
        assert f in message, message
    return message


def state(client: httpx.Client, address: str) -> dict[str, Any]:
    r = client.get(f"/bloc/v2.2/contracts/Nums/{address}/state")
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


BAD_ADDRESSES = [
    "-1",
    "-0x5",
    "  7 ",
    "1e3",
    "7",
    "+5",
    "5_0",
    "0x-5",
    "0x 7",
    "0x",
    "0x" + "1" * 41,
    "1" * 39,
    " " + "a" * 40,
    "٣" * 40,
]


@pytest.mark.parametrize("to", BAD_ADDRESSES, ids=repr)
def test_lax_address_arguments_are_refused(alice: httpx.Client, nums: str, to: str) -> None:
    refused(alice, nums, "give", {"to": to, "v": 1}, "argument 'to'", "expects address", "hex")
    assert state(alice, nums)["who"] == "0" * 40


@pytest.mark.parametrize(
    ("to", "stored"),
    [
        ("0x5", "0" * 39 + "5"),
        ("0X1e3", "0" * 37 + "1e3"),
        ("AB" * 20, "ab" * 20),
        ("0x" + "cd" * 20, "cd" * 20),
    ],
)
def test_address_arguments_that_stay_accepted(
    alice: httpx.Client, nums: str, to: str, stored: str
) -> None:
    res = call(alice, nums, "give", {"to": to, "v": 2})
    assert res[0]["status"] == "Success", res
    assert state(alice, nums)["who"] == stored


@pytest.mark.parametrize("v", ["+3", "7_0", "1e3", "1.0", " ", "-1", "0x", "٣"], ids=repr)
def test_lax_uint_arguments_are_refused(alice: httpx.Client, nums: str, v: str) -> None:
    refused(alice, nums, "give", {"to": "0x1", "v": v}, "argument 'v'", "expects uint")


@pytest.mark.parametrize(
    ("v", "stored"), [(" 7 ", "7"), ("0x10", "16"), ("-0x10", "-16"), ("-12", "-12"), (9.0, "9")]
)
def test_int_arguments_read_like_the_platform(
    alice: httpx.Client, nums: str, v: Any, stored: str
) -> None:
    res = call(alice, nums, "setY", {"v": v})
    assert res[0]["status"] == "Success", res
    assert state(alice, nums)["y"] == stored


@pytest.mark.parametrize("a", ["0x5:-5", "0x5: 7", "0x5:1e3x", "-1:main", "0x5:" + "1" * 65])
def test_lax_account_arguments_are_refused(alice: httpx.Client, nums: str, a: str) -> None:
    refused(alice, nums, "setAcct", {"a": a}, "argument 'a'", "expects account")


def test_variadic_hex_with_a_sign_stays_text(alice: httpx.Client, nums: str) -> None:
    """A variadic value is typed from its JSON; "0x-5" is no number (no negative address)."""
    res = call(alice, nums, "echo", {"args": ["0x-5", "0x5", "0x" + "f" * 41]})
    assert res[0]["status"] == "Success", res
    assert res[0]["data"]["contents"] == [["0x-5", "0" * 39 + "5", str(16**41 - 1)]]
