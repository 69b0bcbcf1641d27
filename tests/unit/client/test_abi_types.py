"""Typed argument values: xabi reading, validation messages and the raw-JSON round trip."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.client.abi_types import (
    AbiType,
    AbiTypeError,
    ContractSpec,
    FunctionSpec,
    Param,
    Unparsed,
    decimal_parts,
    decimal_text,
    parse_int,
)

UINT = AbiType("int", bits=256)
INT8 = AbiType("int", signed=True, bits=8)
COLOR = AbiType("enum", name="Color", names=("Red", "Blue"))
DECIMAL = AbiType("decimal")
PRICE = AbiType("udvt", name="Price", actual=UINT)
LABEL = AbiType("udvt", name="Label", actual=AbiType("string"))
VARIADIC = AbiType("variadic")

# ---------------------------------------------------------------- strategies

scalar_types = st.sampled_from(
    [
        UINT,
        INT8,
        AbiType("int", bits=8),
        AbiType("bool"),
        AbiType("address"),
        AbiType("account"),
        AbiType("string"),
        AbiType("bytes"),
        AbiType("bytes", size=4),
        COLOR,
        DECIMAL,
        PRICE,
        LABEL,
        AbiType("udvt", name="Rate", actual=DECIMAL),
        VARIADIC,
    ]
)
key_types = st.sampled_from([UINT, AbiType("string"), AbiType("bool"), COLOR, PRICE, LABEL])
names = st.from_regex(r"[a-z][a-zA-Z0-9_]{0,8}", fullmatch=True)


def composite(children: st.SearchStrategy[AbiType]) -> st.SearchStrategy[AbiType]:
    return st.one_of(
        st.builds(lambda e: AbiType("array", entry=e), children),
        st.builds(lambda e, n: AbiType("array", entry=e, length=n), children, st.integers(0, 3)),
        st.builds(
            lambda fs: AbiType("struct", name="S", fields=tuple(fs)),
            st.lists(st.tuples(names, children), min_size=1, max_size=3, unique_by=lambda f: f[0]),
        ),
        st.builds(lambda k, v: AbiType("mapping", key=k, value=v), key_types, children),
    )


abi_types = st.recursive(scalar_types, composite, max_leaves=8)
hex_text = st.text("0123456789abcdef", max_size=40)
# canonical decimal text: the platform's own rendering (no "+", no leading zeros, no "-0")
decimal_texts = st.from_regex(r"-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,8})?", fullmatch=True).filter(
    lambda s: not (s.startswith("-") and set(s) <= set("-0."))
)
# what a variadic holds once read back: any JSON but null (fractions travel as text)
json_values = st.recursive(
    st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
    max_leaves=6,
)


@st.composite
def values(draw: st.DrawFn, t: AbiType, vm: str = "SolidVM") -> Any:
    """A valid editor value of ``t`` in canonical form."""
    k = t.kind
    if k == "int":
        low, high = t.int_range(vm)
        if t.bits == 8:
            low, high = (-128, 127) if t.signed else (0, 255)
        return draw(st.integers(min_value=low, max_value=high))
    if k == "bool":
        return draw(st.booleans())
    if k in ("address", "contract"):
        return draw(st.from_regex(r"[0-9a-f]{40}", fullmatch=True))
    if k == "account":
        return draw(st.from_regex(r"[0-9a-f]{40}(:main|:[0-9a-f]{64})?", fullmatch=True))
    if k == "string":
        return draw(st.text(max_size=12))
    if k == "bytes":
        if t.size is not None:
            return draw(st.from_regex(rf"[0-9a-f]{{{2 * t.size}}}", fullmatch=True))
        return draw(st.from_regex(r"([0-9a-f]{2}){0,6}", fullmatch=True))
    if k == "enum":
        return draw(st.sampled_from(t.names))
    if k == "decimal":
        return draw(decimal_texts)
    if k == "udvt":
        assert t.actual is not None
        return draw(values(t.actual, vm))
    if k == "variadic":
        return draw(st.lists(json_values, max_size=4))
    if k == "array":
        assert t.entry is not None
        n = t.length if t.length is not None else draw(st.integers(0, 3))
        return [draw(values(t.entry, vm)) for _ in range(n)]
    if k == "struct":
        return {n: draw(values(ft, vm)) for n, ft in t.fields}
    if k == "mapping":
        assert t.key is not None and t.value is not None
        keys = draw(st.lists(values(t.key, vm), max_size=3, unique_by=str))
        return [(key, draw(values(t.value, vm))) for key in keys]
    raise AssertionError(k)


# ---------------------------------------------------------------- properties


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_raw_json_round_trips_with_the_editor_values(data: st.DataObject) -> None:
    t = data.draw(abi_types)
    v = data.draw(values(t))
    assert t.problems(v) == []
    wire = t.to_wire(v)
    assert t.from_wire(wire) == v
    assert t.to_wire(t.from_wire(wire)) == wire


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_function_args_round_trip(data: st.DataObject) -> None:
    params = data.draw(st.lists(st.tuples(names, abi_types), max_size=4, unique_by=lambda p: p[0]))
    fn = FunctionSpec("f", tuple(Param(n, t) for n, t in params), ())
    vals = {n: data.draw(values(t)) for n, t in params}
    assert fn.problems(vals) == []
    assert fn.from_wire(fn.to_wire(vals)) == vals


# ---------------------------------------------------------------- examples


def test_from_xabi_reads_every_kind() -> None:
    x = {
        "funcs": {
            "f": {
                "args": {
                    "a": {"tag": "Array", "entry": {"tag": "Int", "bytes": 32}, "index": 0},
                    "n": {
                        "tag": "Array",
                        "entry": {
                            "tag": "Array",
                            "entry": {"tag": "Int", "bytes": 32},
                            "length": 2,
                        },
                        "index": 1,
                    },
                    "p": {"tag": "Struct", "typedef": "P", "index": 2},
                    "c": {"tag": "Enum", "typedef": "Color", "names": ["Red", "Blue"], "index": 3},
                    "h": {"tag": "Bytes", "bytes": 32, "index": 4},
                    "m": {
                        "tag": "Mapping",
                        "key": {"tag": "String", "dynamic": True},
                        "value": {"tag": "Bool"},
                        "index": 5,
                    },
                },
                "vals": {"#0": {"tag": "Int", "signed": True, "bytes": 8, "index": 0}},
                "stateMutability": "view",
            }
        },
        "constr": {"args": {"x": {"tag": "Int", "bytes": 32, "index": 0}}},
        "types": {
            "P": {
                "tag": "Struct",
                "fields": [["a", {"tag": "Int", "bytes": 32}], ["b", {"tag": "String"}]],
            }
        },
    }
    spec = ContractSpec.from_xabi("C", x)
    f = spec.function("f")
    assert f is not None and f.is_view
    assert f.signature() == (
        "f(uint256[] a, uint256[2][] n, P p, Color c, bytes32 h, mapping(string => bool) m)"
    )
    assert [p.name for p in f.returns] == ["#0"] and f.returns[0].type.describe() == "int64"
    p = f.params[2].type
    assert [n for n, _ in p.fields] == ["a", "b"]
    assert spec.constructor.signature() == "constructor(uint256 x)"
    assert f.defaults()["n"] == [] and f.defaults()["p"] == {"a": 0, "b": ""}


def test_mapping_string_keys_are_single_quoted() -> None:
    m = AbiType("mapping", key=AbiType("string"), value=UINT)
    assert m.to_wire([("alice", 1), ("bob", 2)]) == {"'alice'": 1, "'bob'": 2}
    assert m.from_wire({"'x'": "3"}) == [("x", 3)]
    with pytest.raises(ValueError, match="single quotes"):
        m.from_wire({"x": 3})


@pytest.mark.parametrize(
    ("t", "value", "message"),
    [
        (UINT, "12x", "needs a whole number"),
        (UINT, -1, "cannot be below 0"),
        (AbiType("int", bits=8), 256, None),  # fine under SolidVM
        (AbiType("bool"), "yes", "true or false"),
        (AbiType("address"), "0xzz", "40 hex digits"),
        (AbiType("account"), "ab:nope", "chain"),
        (AbiType("bytes", size=2), "abc", "even number"),
        (AbiType("bytes", size=2), "abcdef", "exactly 4 digits"),
        (COLOR, "Green", "one of Red, Blue"),
        (AbiType("array", entry=UINT, length=2), [1], "exactly 2 elements"),
        (AbiType("struct", name="P", fields=(("a", UINT),)), {}, "missing"),
        (
            AbiType("mapping", key=AbiType("string"), value=UINT),
            [("k", 1), ("k", 2)],
            "duplicate key",
        ),
        (AbiType("mapping", key=AbiType("address"), value=UINT), [], "address keys"),
    ],
)
def test_problems_name_the_field_and_say_why(t: AbiType, value: Any, message: str | None) -> None:
    found = t.problems(value, "SolidVM", "arg")
    if message is None:
        assert found == []
    else:
        assert found and message in str(found[0]) and str(found[0]).startswith("arg")


def test_evm_bounds() -> None:
    u8 = AbiType("int", bits=8)
    assert u8.problems(255, "EVM") == []
    assert "cannot exceed 255" in str(u8.problems(256, "EVM")[0])
    assert "cannot be below -128" in str(INT8.problems(-129, "EVM")[0])


def test_parse_int_forms() -> None:
    assert parse_int("1e18") == 10**18
    assert parse_int("0x10") == 16
    assert parse_int("1_000") == 1000
    assert parse_int(" 42 ") == 42
    assert parse_int("4.5") is None and parse_int(True) is None and parse_int("") is None
    assert UINT.to_wire(10**30) == str(10**30) and UINT.to_wire(5) == 5


# ---------------------------------------------------------------- decimal, udvt, variadic


def test_from_xabi_reads_decimal_udvt_and_variadic() -> None:
    x = {
        "funcs": {
            "quote": {
                "args": {
                    "rate": {"tag": "Decimal", "index": 0},
                    "price": {
                        "tag": "UserDefined",
                        "alias": "Price",
                        "actual": {"tag": "Int", "bytes": 32},
                        "index": 1,
                    },
                    "rest": {"tag": "Variadic", "index": 2},
                },
                "vals": {"#0": {"index": 0, "type": {"tag": "Decimal"}}},  # SolidVM's nesting
            }
        }
    }
    f = ContractSpec.from_xabi("C", x).function("quote")
    assert f is not None
    assert f.signature() == "quote(decimal rate, Price price, variadic rest)"
    price = f.params[1].type
    assert price.kind == "udvt" and price.actual == UINT and price.unwrapped == UINT
    assert f.returns[0].type == DECIMAL
    assert f.defaults() == {"rate": "0", "price": 0, "rest": []}
    assert VARIADIC.is_composite and not PRICE.is_composite


@pytest.mark.parametrize(
    ("text", "shown", "parts"),
    [
        ("1.25", "1.25", (125, 2)),
        ("12.000", "12.000", (12000, 3)),  # the places are kept, as the platform shows them
        ("+3", "3", (3, 0)),
        ("-0.50", "-0.50", (-50, 2)),
        ("-0.0", "0.0", (0, 1)),
        ("1.5e3", "1500", (1500, 0)),
        ("1.50E1", "15.0", (150, 1)),
        ("2e-3", "0.002", (2, 3)),
        (" .5 ", "0.5", (5, 1)),
        ("7.", "7", (7, 0)),
        (Decimal("1.50"), "1.50", (150, 2)),  # a JSON number read exactly
        (Decimal("1E+2"), "100", (100, 0)),
        (42, "42", (42, 0)),
        (0.1, "0.1", (1, 1)),
    ],
)
def test_decimal_forms(text: Any, shown: str, parts: tuple[int, int]) -> None:
    assert decimal_text(text) == shown and decimal_parts(text) == parts
    assert DECIMAL.problems(text) == []
    assert DECIMAL.to_wire(text) == shown  # exact text on the wire, never a float
    assert DECIMAL.from_wire(text) == shown


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("abc", "written like 12.5"),
        ("1.2.3", "written like 12.5"),
        ("", "written like 12.5"),
        ("-", "written like 12.5"),
        ("0x10", "written like 12.5"),
        ("1,5", "written like 12.5"),
        ("1e", "written like 12.5"),
        (True, "written like 12.5"),
        (None, "written like 12.5"),
        (Decimal("NaN"), "finite"),
        (float("inf"), "finite"),
        ("0." + "1" * 256, "at most 255 decimal places"),
        ("1e999999", "too large"),
        ("9" * 3000, "too large"),
    ],
)
def test_decimal_problems_name_the_field(value: Any, message: str) -> None:
    found = DECIMAL.problems(value, "SolidVM", "order.rate")
    assert len(found) == 1 and str(found[0]).startswith("order.rate: ") and message in str(found[0])
    with pytest.raises(AbiTypeError, match=message):
        DECIMAL.from_wire(value, "order.rate")


def test_udvt_delegates_to_its_actual_type() -> None:
    assert PRICE.describe() == "Price" and PRICE.default() == 0
    assert "needs a whole number" in str(PRICE.problems("1.5", "SolidVM", "p")[0])
    assert PRICE.to_wire("0x10") == 16 and PRICE.from_wire("16") == 16
    m = AbiType("mapping", key=LABEL, value=PRICE)
    assert m.to_wire([("gold", 5)]) == {"'gold'": 5}
    assert m.from_wire({"'gold'": "5"}) == [("gold", 5)]
    wallet = AbiType("udvt", name="Wallet", actual=AbiType("address"))
    keyed = AbiType("mapping", key=wallet, value=UINT)
    assert "address keys" in str(keyed.problems([], "SolidVM", "m")[0])
    nameless = AbiType.from_xabi({"tag": "UserDefined", "actual": {"tag": "Bool"}})
    assert nameless.describe() == "bool"


def test_variadic_holds_any_json_but_null() -> None:
    items = [1, "two", True, [3, {"k": "v"}], Decimal("1.50")]
    assert VARIADIC.problems(items) == []
    assert VARIADIC.to_wire(items) == [1, "two", True, [3, {"k": "v"}], "1.50"]
    found = [
        str(p)
        for p in VARIADIC.problems([1, None, Unparsed("{x", "not valid JSON")], "SolidVM", "xs")
    ]
    assert found == [
        "xs[1]: null is not a value (the platform refuses null arguments)",
        "xs[2]: not valid JSON",
    ]
    assert "list of values" in str(VARIADIC.problems("1, 2")[0])
    assert "xs[0].a" in str(VARIADIC.problems([{"a": [None]}], "SolidVM", "xs")[0])
    assert "not a JSON value" in str(VARIADIC.problems([object()])[0])
    assert "too large" in str(VARIADIC.problems([10**3000])[0])
    # read back: one value stands for a list of one; floats from other readers become exact
    assert VARIADIC.from_wire(5) == [5]
    assert VARIADIC.from_wire([0.5, "x"]) == [Decimal("0.5"), "x"]
    with pytest.raises(AbiTypeError, match=r"xs\[1\]: null"):
        VARIADIC.from_wire([1, None], "xs")


def test_parse_int_takes_exact_json_numbers() -> None:
    assert parse_int(Decimal("12")) == 12 and parse_int(Decimal("1E+2")) == 100
    assert parse_int(Decimal("1.5")) is None and parse_int(Decimal("NaN")) is None
    assert UINT.from_wire(Decimal("7")) == 7
    assert parse_int("1e99999999") is None  # refused at once, not built


def test_short_addresses_go_out_as_40_hex_digits() -> None:
    """The node refuses a bare short address ("1e3" would read as hex): always send 40 digits."""
    assert AbiType("address").to_wire("0x1E3") == "0" * 37 + "1e3"
    assert AbiType("contract", name="C").to_wire(" 5 ") == "0" * 39 + "5"
    assert AbiType("address").to_wire("ab" * 20) == "ab" * 20
    assert AbiType("account").to_wire("0x509:main") == "0" * 37 + "509:main"
    assert AbiType("account").to_wire("0x509") == "0" * 37 + "509"
