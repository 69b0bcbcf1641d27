"""The ``decimal`` type: literals, the platform's places and rounding rules, conversions, errors,
rendering (results, state, events), JSON arguments, persistence and the xabi.

Expected values come from the platform's own SolidVM tests and from Data.Decimal's rules (the
Haskell library SolidVM's decimals are): ``+`` keeps the larger number of places; ``-`` ``*`` ``/``
``%`` round the exact result half to even to the larger number of places; unary minus drops
trailing zeros.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import ArgumentError, CompileError, ExecutionError, ParseError
from app.node.solidvm.persist import dump_value, load_value
from app.node.solidvm.types import DECIMAL, ArrayType, MappingType
from app.node.solidvm.values import ArrayValue, DecimalValue, MappingValue

from .conftest import CallFn, DeployFn, RunFn
from .helpers import c, compile_src, event_args, values


def fn(returns: str, body: str, params: str = "") -> str:
    return c(f"    function f({params}) public returns ({returns}) {{\n        {body}\n    }}")


def expr(e: str, returns: str = "decimal", pre: str = "") -> str:
    return fn(returns, f"{pre} return {e};")


# ---------------------------------------------------------------- literals and arithmetic


@pytest.mark.parametrize(
    ("e", "expected"),
    [
        pytest.param("1.50", "1.50", id="literal-keeps-places"),
        pytest.param("0.0000003", "0.0000003", id="small-literal"),
        pytest.param("1_000.5", "1000.5", id="underscores"),
        pytest.param("-1.123123", "-1.123123", id="negative-literal"),
        pytest.param("-2.0", "-2", id="unary-minus-drops-trailing-zeros"),
        pytest.param("-(0.00)", "0", id="minus-zero"),
        pytest.param("1.123123 + 2.0", "3.123123", id="add"),
        pytest.param("1.123123 - 2.0", "-0.876877", id="sub"),
        pytest.param("1.123123 * 2.0", "2.246246", id="mul"),
        pytest.param("1.123123 / 2.0", "0.561562", id="div"),
        pytest.param("3.2 + 6 + 6.2", "15.4", id="int-literal-mixes"),
        pytest.param("1 + 1.0", "2.0", id="int-plus-decimal"),
        pytest.param("1 - 0.1", "0.9", id="int-minus-decimal"),
        pytest.param("1 - 0.10", "0.90", id="places-of-the-decimal"),
        pytest.param("1 * 2.00", "2.00", id="mul-keeps-places"),
        pytest.param("3.14159 * 2.5", "7.85398", id="mul-rounds-half-even"),
        pytest.param("1.5 * 1.5", "2.2", id="mul-2.25-to-even"),
        pytest.param("2.5 * 1.5", "3.8", id="mul-3.75-to-even"),
        pytest.param("1.0 / 3", "0.3", id="div-one-place"),
        pytest.param("1.00 / 3", "0.33", id="div-two-places"),
        pytest.param("2.00 / 3", "0.67", id="div-rounds"),
        pytest.param("3.3 / 2.0", "1.6", id="div-1.65-to-even"),
        pytest.param("-1.2 * 2.3", "-2.8", id="negative-product"),
        pytest.param("4.6 / 2.3", "2.0", id="exact-quotient"),
        pytest.param("2.0 / 0.32", "6.25", id="quotient-takes-larger-places"),
        pytest.param("1.123123 % 2.0", "1.123123", id="mod"),
        pytest.param("5.75 % 1.5", "1.25", id="mod-places"),
        pytest.param("-5.5 % 2", "0.5", id="mod-sign-of-divisor"),
        pytest.param("5.5 % -2", "-0.5", id="mod-negative-divisor"),
        pytest.param("0.00 + 0.0", "0", id="zero-plus-zero"),
        pytest.param("1.5 + 0.00", "1.5", id="zero-lends-no-places"),
        pytest.param("0.00 - 0.0", "0.00", id="sub-keeps-places"),
        pytest.param("(1.5)", "1.5", id="parenthesised"),
        pytest.param("true ? 1.5 : 2", "1.5", id="ternary"),
        pytest.param("false ? 1.5 : 2", "2", id="ternary-int-branch"),
    ],
)
def test_decimal_arithmetic(e: str, expected: str, run: RunFn) -> None:
    assert run(expr(e), "f") == [expected]


def test_compound_assignments(run: RunFn) -> None:
    body = """
        decimal x = 2.0;
        decimal s = 3.3; decimal d = 3.3; decimal p = 3.3; decimal q = 3.3; decimal m = 5.75;
        decimal z;
        s += x; d -= x; p *= x; q /= x; m %= 1.5; z += 2.8;
        return (s, d, p, q, m, z);
    """
    src = fn("decimal, decimal, decimal, decimal, decimal, decimal", body)
    assert run(src, "f") == ["5.3", "1.3", "6.6", "1.6", "1.25", "2.8"]


def test_comparisons(run: RunFn) -> None:
    body = """
        decimal x = 2.1; decimal y = 3.2;
        return (x <= y, x < y, x == y, x != y, x >= y, x > y, 1.5 == 1.50, y == 3.20, x != 2);
    """
    src = fn("bool, bool, bool, bool, bool, bool, bool, bool, bool", body)
    assert run(src, "f") == ["true", "true", "false", "true", "false", "false"] + ["true"] * 3


def test_decimal_equals_an_integer_literal(run: RunFn) -> None:
    src = fn("bool, bool, bool", "decimal d = 2.00; return (d == 2, 2 == d, d == 3);")
    assert run(src, "f") == ["true", "true", "false"]


# ---------------------------------------------------------------- conversions


@pytest.mark.parametrize(
    ("returns", "body", "expected"),
    [
        pytest.param("decimal", "uint y = 6; return 5.2 + decimal(y);", "11.2", id="decimal(uint)"),
        pytest.param("decimal", 'return decimal("3.5");', "3.5", id="decimal(string)"),
        pytest.param("decimal", 'return decimal(" -1.5E-2 ");', "-0.015", id="string-exponent"),
        pytest.param("decimal", 'return decimal("2e3");', "2000", id="string-positive-exp"),
        pytest.param("decimal", "return decimal(1.25);", "1.25", id="decimal(decimal)"),
        pytest.param("decimal", "int n = -7; return decimal(n);", "-7", id="decimal(int)"),
        pytest.param("uint", "return uint(5.2);", "5", id="uint-rounds-down"),
        pytest.param("uint", "return uint(5.5);", "6", id="uint-half-to-even-up"),
        pytest.param("uint", "return uint(4.5);", "4", id="uint-half-to-even-down"),
        pytest.param("int", "return int(-2.5);", "-2", id="int-negative-half"),
        pytest.param("int", "return int(-2.7);", "-3", id="int-negative"),
        pytest.param("decimal", "decimal a = 5.2825; return a.truncate(3);", "5.282", id="trunc"),
        pytest.param("decimal", "uint g = 1; return (5.2825).truncate(g);", "5.2", id="trunc-var"),
        pytest.param("decimal", "return decimal(3.256).truncate(2);", "3.25", id="trunc-cast"),
        pytest.param("decimal", "return (-3.256).truncate(2);", "-3.25", id="trunc-toward-zero"),
        pytest.param("decimal", "return (3.24).truncate(5);", "3.24000", id="trunc-pads"),
        pytest.param(
            "decimal", "return (3.24).truncate(300);", "3.24" + "0" * 42, id="trunc-8-bit-count"
        ),
        pytest.param(
            "decimal",
            "uint n = 18; return decimal(n * 3).truncate(18);",
            "54." + "0" * 18,
            id="pool-style",
        ),
    ],
)
def test_conversions(returns: str, body: str, expected: str, run: RunFn) -> None:
    assert run(fn(returns, body), "f") == [expected]


def test_a_bad_string_is_a_runtime_type_error(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(fn("decimal", "return decimal(s);", "string s"), "C")
    assert values(call(res.address, "f", {"s": "12.5"})) == ["12.5"]
    for bad in ("hey", "1.", ".5", "1e-300", "1 2"):
        with pytest.raises(ExecutionError) as info:
            call(res.address, "f", {"s": bad})
        assert info.value.kind == "type error"
        assert "cannot convert string" in info.value.message


# ---------------------------------------------------------------- run-time errors


@pytest.mark.parametrize(
    "body",
    [
        "decimal x = 3.0; return x / 0.0;",
        "decimal x = 3.0; return x / 0;",
        "decimal x = 3.0; return x % 0.00;",
        "decimal x = 3.0; x /= 0.0; return x;",
        "uint z = 0; return 3.0 / decimal(z);",
    ],
)
def test_division_by_zero(body: str, run: RunFn) -> None:
    with pytest.raises(ExecutionError) as info:
        run(fn("decimal", body), "f")
    assert info.value.kind == "divide by zero"
    assert info.value.message == "divide by zero error"


def test_growth_is_bounded(deploy: DeployFn, call: CallFn) -> None:
    body = "decimal x = 10.5; for (uint i = 0; i < 100000; i++) { x = x * x; } return x;"
    res = deploy(fn("decimal", body), "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, "f")
    assert info.value.kind == "integer overflow"


def test_huge_exponents_in_strings_are_refused(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(fn("decimal", "return decimal(s);", "string s"), "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, "f", {"s": "1e1000000000"})
    assert "more than" in info.value.message


# ---------------------------------------------------------------- compile and parse errors


def at(src: str, needle: str, occurrence: int = 0) -> tuple[int, int]:
    """(line, column) of the ``occurrence``-th ``needle`` in ``src``."""
    pos = -1
    for _ in range(occurrence + 1):
        pos = src.index(needle, pos + 1)
    line = src.count("\n", 0, pos) + 1
    return line, pos - (src.rfind("\n", 0, pos) + 1) + 1


@pytest.mark.parametrize(
    ("body", "needle", "message"),
    [
        pytest.param('return 1.5 + "a";', "1.5", "cannot combine decimal and string", id="str"),
        pytest.param("uint y = 6; return 5.2 + y;", "5.2", "cannot mix decimal and uint", id="u"),
        pytest.param("uint y = 6; return y * 2.5;", "y *", "convert with decimal(...)", id="u2"),
        pytest.param("return 1.5 ** 2;", "1.5", "'**' is not defined for decimal", id="pow"),
        pytest.param("return 1.5 & 1.0;", "1.5", "'&' is not defined for decimal", id="and"),
        pytest.param("decimal d = 1.5; d++; return d;", "d++", "integer operand", id="incr"),
        pytest.param("return true ? 1.5 < 1 : false;", "1.5 <", "integer literal", id="cmp"),
        pytest.param("uint u = 1; return 1.5 == u;", "1.5 ==", "cannot mix", id="eq-uint"),
        pytest.param('return 1.5 != "x";', "1.5", "cannot combine decimal and string", id="eq-s"),
    ],
)
def test_type_errors_point_at_the_expression(body: str, needle: str, message: str) -> None:
    returns = "bool" if any(op in body for op in ("<", "==", "!=")) else "decimal"
    src = fn(returns, body)
    with pytest.raises(CompileError) as info:
        compile_src(src)
    assert message in info.value.detail
    assert (info.value.line, info.value.column) == at(src, needle)


@pytest.mark.parametrize(
    ("src", "needle", "message"),
    [
        pytest.param(
            fn("uint", "uint x = 1.5; return x;"), "1.5", "decimal is not implicitly", id="to-uint"
        ),
        pytest.param(
            fn("int", "int d = 5.5 + 5; return d;"), "5.5", "not implicitly", id="sum-to-int"
        ),
        pytest.param(
            fn("decimal", "uint n = 3; decimal d = n; return d;"), "n;", "decimal(...)", id="uint"
        ),
        pytest.param(fn("decimal", "return decimal(true);"), "true", "bool to decimal", id="b"),
        pytest.param(fn("string", "return string(1.5);"), "1.5", "decimal to string", id="str"),
        pytest.param(fn("uint", "return (1.5).floor();"), "1.5", "no function", id="method"),
        pytest.param(
            c("function g(decimal d) public {}\nfunction f() public { uint n = 1; g(n); }"),
            "n)",
            "convert with decimal(...)",
            id="uint-argument",
        ),
        pytest.param(
            fn("string", 'return (1.5).truncate("2");'), '"2"', "integer number", id="trunc-arg"
        ),
    ],
)
def test_compile_errors(src: str, needle: str, message: str) -> None:
    with pytest.raises(CompileError) as info:
        compile_src(src)
    assert message in info.value.detail
    assert (info.value.line, info.value.column) == at(src, needle)


@pytest.mark.parametrize(
    ("literal", "message"),
    [
        pytest.param(".25", "write 0.25", id="leading-point"),
        pytest.param("2e-3", "cannot have an exponent", id="negative-exponent"),
        pytest.param("1.5e-1", "cannot have an exponent", id="fraction-exponent"),
        pytest.param("0." + "1" * 256, "at most 255 decimal places", id="too-many-places"),
    ],
)
def test_bad_literals(literal: str, message: str) -> None:
    src = fn("decimal", f"return {literal};")
    with pytest.raises(ParseError) as info:
        compile_src(src)
    assert message in info.value.detail
    assert (info.value.line, info.value.column) == at(src, literal)


def test_whole_numbers_with_a_point_and_units_stay_integers(run: RunFn) -> None:
    expected = [str(25 * 10**17), str(5 * 10**17)]
    assert run(fn("uint, uint", "return (2.5e18, 0.5 ether);"), "f") == expected


def test_decimal_is_a_solidvm_type() -> None:
    src = c("decimal public d;")
    with pytest.raises(CompileError) as info:
        compile_src(src, vm="EVM")
    assert "SolidVM" in info.value.detail
    assert (info.value.line, info.value.column) == at(src, "decimal")
    with pytest.raises(CompileError):
        compile_src(fn("uint", "return uint(1.5);"), vm="EVM")


# ---------------------------------------------------------------- rendering

STORE = c(
    """
    struct Quote { decimal price; uint qty; }
    decimal public x = 1.123123;
    decimal public neg = -1.50;
    decimal public unset;
    decimal[] public list;
    mapping(uint => decimal) public prices;
    mapping(decimal => string) public names;
    Quote public quote;
    event Priced(decimal price, uint qty, decimal[] all);

    constructor() {
        list.push(3.20);
        list.push(2);
        prices[1] = 1.25;
        names[1.5] = "one and a half";
        quote = Quote(0.50, 3);
    }

    function set(decimal p, uint q) public returns (decimal, decimal) {
        prices[q] = p;
        emit Priced(p, q, list);
        return (p * 2, p / 3);
    }

    function name(decimal k) public view returns (string) {
        return names[k];
    }
    """
)


def test_state_results_and_events(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(STORE, "C")
    state = world.state(res.address)
    assert state["x"] == "1.123123"
    assert state["neg"] == "-1.5"
    assert state["unset"] == "0"
    assert state["list"] == ["3.20", "2"]
    assert state["prices"] == {"1": "1.25"}
    assert state["names"] == {"1.5": "one and a half"}
    assert state["quote"] == {"price": "0.50", "qty": "3"}
    out = call(res.address, "set", {"p": "2.50", "q": 7})
    assert values(out) == ["5.00", "0.83"]
    (ev,) = out.events
    assert ev.name == "Priced"
    assert event_args(ev) == ["2.50", "7", "[3.20, 2]"]
    assert world.state(res.address)["prices"] == {"1": "1.25", "7": "2.50"}


def test_decimal_mapping_keys_compare_by_value(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(STORE, "C")
    assert values(call(res.address, "name", {"k": "1.50"})) == ["one and a half"]
    assert values(call(res.address, "name", {"k": "1.51"})) == [""]


def test_getters_return_decimals(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(STORE, "C")
    assert values(call(res.address, "x")) == ["1.123123"]
    assert values(call(res.address, "list", {"index": 0})) == ["3.20"]
    assert values(call(res.address, "prices", {"key": 1})) == ["1.25"]
    assert values(call(res.address, "names", {"key": "1.50"})) == ["one and a half"]
    assert values(call(res.address, "quote")) == ["0.50", "3"]


def test_xabi() -> None:
    xabi = compile_src(STORE).contracts["C"].xabi
    assert xabi["vars"]["x"]["tag"] == "Decimal"
    assert xabi["vars"]["x"]["initialValue"] == "1.123123"
    assert xabi["vars"]["list"]["entry"] == {"tag": "Decimal"}
    assert xabi["vars"]["prices"]["value"] == {"tag": "Decimal"}
    assert xabi["vars"]["names"]["key"] == {"tag": "Decimal"}
    assert xabi["funcs"]["set"]["args"]["p"] == {"tag": "Decimal", "index": 0}
    assert xabi["funcs"]["set"]["vals"]["#0"] == {"tag": "Decimal", "index": 0}
    assert xabi["types"]["Quote"]["fields"][0][1]["tag"] == "Decimal"
    assert xabi["events"]["Priced"]["logs"][0][1]["tag"] == "Decimal"


# ---------------------------------------------------------------- JSON arguments

ECHO = fn("decimal", "return d;", "decimal d")


@pytest.mark.parametrize(
    ("arg", "expected"),
    [
        pytest.param("1.50", "1.50", id="string-keeps-places"),
        pytest.param("-0.000001", "-0.000001", id="negative-string"),
        pytest.param(" 7 ", "7", id="spaces"),
        pytest.param("1e2", "100", id="exponent"),
        pytest.param("0." + "1" * 40, "0." + "1" * 40, id="beyond-double-precision"),
        pytest.param(3, "3", id="integer"),
        pytest.param(0.25, "0.25", id="json-number"),
        pytest.param(1.5e-7, "0.00000015", id="json-number-exponent"),
    ],
)
def test_decimal_arguments(arg: Any, expected: str, deploy: DeployFn, call: CallFn) -> None:
    res = deploy(ECHO, "C")
    assert values(call(res.address, "f", {"d": arg})) == [expected]


@pytest.mark.parametrize(
    ("arg", "why"),
    [
        pytest.param("abc", "not a decimal number", id="text"),
        pytest.param("1.5.2", "not a decimal number", id="two-points"),
        pytest.param("1e-300", "255 decimal places", id="too-precise"),
        pytest.param(True, "expected a decimal", id="bool"),
        pytest.param([1], "expected a decimal", id="list"),
        pytest.param(0.12345678901234568, "send the decimal as a string", id="lossy-float"),
    ],
)
def test_bad_decimal_arguments(arg: Any, why: str, deploy: DeployFn, call: CallFn) -> None:
    res = deploy(ECHO, "C")
    with pytest.raises(ArgumentError) as info:
        call(res.address, "f", {"d": arg})
    assert "argument 'd' expects decimal" in info.value.message
    assert why in info.value.message


def test_decimal_array_and_struct_arguments(deploy: DeployFn, call: CallFn) -> None:
    src = c(
        """
        struct P { decimal price; string what; }
        function total(decimal[] xs, P p) public pure returns (decimal, string) {
            decimal s = 0.00;
            for (uint i = 0; i < xs.length; i++) { s = s + xs[i]; }
            return (s + p.price, p.what);
        }
        """
    )
    res = deploy(src, "C")
    out = call(res.address, "total", {"xs": ["1.10", 2, "0.005"], "p": {"price": 1, "what": "w"}})
    assert values(out) == ["4.105", "w"]


# ---------------------------------------------------------------- persistence


def test_persistence_keeps_places() -> None:
    v = DecimalValue(150, 2)
    assert dump_value(v, DECIMAL) == "1.50"
    back = load_value(dump_value(v, DECIMAL), DECIMAL)
    assert isinstance(back, DecimalValue) and (back.m, back.p) == (150, 2)
    at_ = ArrayType(DECIMAL, None)
    arr = ArrayValue(at_, [DecimalValue(-5, 3), DecimalValue(0, 0)])
    assert load_value(dump_value(arr, at_), at_) == arr
    mt = MappingType(DECIMAL, DECIMAL)
    m = MappingValue(mt, {DecimalValue(15, 1): DecimalValue(2500, 3)})
    dumped = dump_value(m, mt)
    assert dumped == [["1.5", "2.500"]]
    loaded = load_value(dumped, mt)
    assert str(loaded[DecimalValue(150, 2)]) == "2.500"


def test_user_defined_value_type_over_decimal(deploy: DeployFn, call: CallFn, world: Any) -> None:
    src = "type Price is decimal;\n" + c(
        "    Price public p = Price.wrap(1.50);\n"
        "    function f(Price q) public returns (decimal, Price) {\n"
        "        return (Price.unwrap(q) * 2, q);\n"
        "    }"
    )
    res = deploy(src, "C")
    assert world.state(res.address) == {"p": "1.50"}
    assert values(call(res.address, "f", {"q": "2.25"})) == ["4.50", "2.25"]
    xabi = compile_src(src).contracts["C"].xabi
    assert xabi["vars"]["p"]["actual"] == {"tag": "Decimal"}
