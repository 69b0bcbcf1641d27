"""abi.encode/encodePacked/decode, string.concat, encoding casts, base64, modExp, identity, log,
msg.sig/msg.data and the names SolidVM does not have.

Platform facts: SolidVM.hs ``callBuiltin`` (string/bytes/bool casts, identity, log, base64*,
modExp, abiEncode/abiEncodePacked/abiDecode), Builtins.hs (``abiEncode``, ``abiEncodePacked``,
``modExp``), evm-solidity ABI/Codec.hs (words, padding, ``abiDecode``), SM.hs
``getVariableOfName`` and Lexer.hs (``sha3`` is a reserved word), Typechecker.hs
``typecheckMember`` (abi has encode, encodePacked and decode; msg.sig is a string).
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from app.node.solidvm import compile_source
from app.node.solidvm.errors import CompileError, ExecutionError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import c, values


def word(n: int) -> str:
    return format(n % (1 << 256), "064x")


def padded(text: bytes) -> str:
    return (text + bytes(-len(text) % 32)).hex()


ABI = c(
    """
    enum E { A, B }
    function enc() public pure returns (bytes) { return abi.encode(uint(1), "ab", true); }
    function encNeg() public pure returns (bytes) { return abi.encode(int(-1), E.B); }
    function encAddr() public pure returns (bytes) { return abi.encode(address(0x1234)); }
    function encBytes32() public pure returns (bytes) { return abi.encode(bytes32(uint(1))); }
    function encArray() public pure returns (bytes) {
        uint[] memory xs = new uint[](2);
        xs[0] = 7;
        xs[1] = 9;
        return abi.encode(xs);
    }
    function packed() public pure returns (bytes) {
        return abi.encodePacked(uint8(1), "ab", true, address(0x1234), hex"ff");
    }
    function roundTrip() public pure returns (uint, string, bool, uint[], address, bytes) {
        uint[] memory xs = new uint[](2);
        xs[0] = 7;
        xs[1] = 9;
        bytes memory d = abi.encode(uint(42), "hello", true, xs, address(0xbeef), hex"00ff");
        return abi.decode(d, (uint, string, bool, uint[], address, bytes));
    }
    function decodeOne() public pure returns (int) {
        return abi.decode(abi.encode(int(-5)), (int256));
    }
    function decodeStrings() public pure returns (uint, bool) {
        return abi.decode(abi.encode(uint(3), true), "uint", "bool");
    }
    function decodeShort() public pure returns (uint) { return abi.decode(hex"01", (uint)); }
    function decodeBytes4() public pure returns (bytes4) {
        return abi.decode(abi.encode(uint(0x61626364) << 224), (bytes4));
    }
    function hugeLength() public pure returns (uint[]) {
        bytes memory d = abi.encode(uint(32), uint(2) ** 200);
        return abi.decode(d, (uint[]));
    }
    function encodeMany(uint n) public pure returns (uint) {
        uint[] memory xs = new uint[](n);
        return abi.encode(xs).length;
    }
"""
)


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("enc", word(1) + word(0x60) + word(1) + word(2) + padded(b"ab")),
        ("encNeg", word(-1) + word(1)),
        ("encAddr", word(0x1234)),
        # bytes of any size are dynamic in SolidVM's abi.encode
        ("encBytes32", word(0x20) + word(32) + word(1)),
        ("encArray", word(0x20) + word(2) + word(7) + word(9)),
        ("packed", word(1) + b"ab".hex() + "01" + "0" * 36 + "1234" + "ff"),
    ],
)
def test_abi_encodings(method: str, expected: str, run: RunFn) -> None:
    assert run(ABI, method) == [expected]


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        (
            "roundTrip",
            ["42", "hello", "true", ["7", "9"], "000000000000000000000000000000000000beef", "00ff"],
        ),
        ("decodeOne", ["-5"]),
        ("decodeStrings", ["3", "true"]),
        ("decodeShort", ["1"]),  # reads past the end give zeros
        ("decodeBytes4", ["61626364"]),
    ],
)
def test_abi_decode(method: str, expected: list[Any], run: RunFn) -> None:
    assert run(ABI, method) == expected


def test_abi_decode_of_an_absurd_length_hits_the_memory_limit(run: RunFn) -> None:
    with pytest.raises(ExecutionError) as info:
        run(ABI, "hugeLength")
    assert info.value.kind == "memory limit"


def test_abi_encode_charges_for_big_arrays(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(ABI, "C")
    assert values(call(res.address, "encodeMany", {"n": 1000})) == [str(64 + 32 * 1000)]
    with pytest.raises(ExecutionError) as info:
        call(res.address, "encodeMany", {"n": 300_000}, max_steps=200_000)
    assert info.value.kind == "out of gas"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            'return abi.encodeWithSignature("f(uint)", 1);',
            "abi.encodeWithSignature is not available",
        ),
        ('return abi.encodeWithSelector(hex"01020304", 1);', "abi.encodeWithSelector is not"),
        ("S memory s; return abi.encode(s);", "abi.encode cannot encode S values in SolidVM"),
        ("return abi.encodePacked(this);", "cannot encode C values in SolidVM; convert it with"),
        ('return abi.decode(hex"00", (S));', "abi.decode cannot decode 'S'"),
        ('return abi.decode("x", (uint));', "abi.decode expects bytes, not string"),
        ('return abi.decode(hex"00");', "abi.decode takes the bytes and the types"),
        ('return bytes.concat(hex"01", hex"02");', "bytes.concat is not available in SolidVM"),
    ],
)
def test_encodings_solidvm_lacks_are_compile_errors(body: str, message: str) -> None:
    src = c(f"    struct S {{ uint a; }}\n    function f() public returns (bytes) {{ {body} }}")
    with pytest.raises(CompileError) as info:
        compile_source(src)
    assert info.value.message.startswith("line 3, column ")
    assert message in info.value.message


# ---------------------------------------------------------------- strings and casts

STRINGS = c(
    """
    function cc() public pure returns (string) { return string.concat("a", "b", "c"); }
    function ccNone() public pure returns (string) { return string.concat(); }
    function utf8() public pure returns (string) { return string(hex"c3a9", "utf-8"); }
    function raw() public pure returns (string) { return string(hex"e9", "raw"); }
    function badUtf8() public pure returns (string) { return string(hex"e9", "utf-8"); }
    function toBytesRaw() public pure returns (bytes) { return bytes("\\u00e9", "raw"); }
    function toBytesUtf8() public pure returns (bytes) { return bytes("\\u00e9", "utf-8"); }
    function plain() public pure returns (bytes, bytes, bytes4) {
        return (bytes("hi"), bytes(258), bytes4("abcdefgh"));
    }
    function zero() public pure returns (bytes) { return bytes(0); }
    function b(string s) public pure returns (bool) { return bool(s); }
    function id() public pure returns (uint, string) { return (identity(5), identity("x")); }
    function b64() public pure returns (string, string, bytes) {
        return (base64encode("hello?"), base64urlencode("hello?>"), base64encode(bytes("hi")));
    }
    function b64text() public pure returns (bytes) {
        bytes memory t = "hi";
        return base64encode(t);
    }
    function me(uint b, uint e, uint m) public pure returns (uint) { return modExp(b, e, m); }
"""
)


@pytest.mark.parametrize(
    ("method", "args", "expected"),
    [
        ("cc", {}, ["abc"]),
        ("ccNone", {}, [""]),
        ("utf8", {}, ["\u00e9"]),
        ("raw", {}, ["\u00e9"]),
        ("toBytesRaw", {}, ["e9"]),
        ("toBytesUtf8", {}, ["c3a9"]),
        ("plain", {}, ["6869", "0102", "61626364"]),
        ("zero", {}, [""]),
        ("b", {"s": "true"}, ["true"]),
        ("b", {"s": "false"}, ["false"]),
        ("id", {}, ["5", "x"]),
        ("b64", {}, ["aGVsbG8/", "aGVsbG8_Pg", b"aGk=".hex()]),
        ("b64text", {}, ["aGk="]),  # text in a bytes slot stays text
        ("me", {"b": 4, "e": 13, "m": 497}, ["445"]),
        ("me", {"b": 0, "e": 0, "m": 5}, ["0"]),
        ("me", {"b": 3, "e": 0, "m": 1}, ["1"]),
    ],
)
def test_string_builtins(
    method: str, args: dict[str, Any], expected: list[str], deploy: DeployFn, call: CallFn
) -> None:
    res = deploy(STRINGS, "C")
    assert values(call(res.address, method, args)) == expected


@pytest.mark.parametrize(
    ("method", "args", "message"),
    [
        ("badUtf8", {}, "Malformed data: bytestring is not UTF-8 encoded: e9"),
        ("b", {"s": "yes"}, "type error: bool cast: cannot convert 'yes' to bool"),
        ("me", {"b": 2, "e": 3, "m": 0}, "divide by zero error"),
    ],
)
def test_string_builtin_failures(
    method: str, args: dict[str, Any], message: str, deploy: DeployFn, call: CallFn
) -> None:
    res = deploy(STRINGS, "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, method, args)
    assert info.value.message == message


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            'return string.concat("a", 7);',
            "line 2, column 75: Type mismatch: string.concat takes strings, not",
        ),
        ("return string(bool(1));", 'bool(...) takes a bool or "true"/"false", not uint256'),
        ('return string(hex"00", "latin1");', "unknown encoding 'latin1'"),
        ('return string("x", "utf-8");', "string(x, encoding) takes bytes, not string"),
        ("return base64encode(5);", "base64encode takes a string or bytes, not uint256"),
        ('return string(sha3("x"));', "'sha3' is a reserved word in SolidVM; use keccak256"),
        ("return string(identity(1, 2));", "identity takes one value"),
    ],
)
def test_string_builtin_compile_errors(body: str, message: str) -> None:
    with pytest.raises(CompileError) as info:
        compile_source(c(f"    function f() public pure returns (string) {{ {body} }}"))
    assert message in info.value.message
    assert info.value.message.startswith("line 2, column ")


def test_modexp_is_charged_by_exponent_size(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(STRINGS, "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, "me", {"b": 3, "e": 2**5000, "m": 7}, max_steps=1000)
    assert info.value.kind == "out of gas"


# ---------------------------------------------------------------- msg, log

MSG = c(
    """
    enum E { A, B }
    struct P { uint x; string s; }
    uint[] xs;
    modifier named() { require(keccak256(msg.sig) == keccak256("guarded"), msg.sig); _; }
    function sig(uint x) public pure returns (string) { return msg.sig; }
    function guarded() public named returns (uint) { return 1; }
    function data(uint x, string s) public pure returns (uint, string) {
        return (msg.data[0], msg.data[1]);
    }
    function lg() public {
        xs.push(1);
        log("hi", 5, true, E.B, address(0xbeef), hex"00ff", xs, P(1, "a"));
    }
"""
)


def test_msg_sig_is_the_function_name(run: RunFn) -> None:
    assert run(MSG, "sig", {"x": 1}) == ["sig"]
    assert run(MSG, "guarded") == ["1"]


def test_msg_data_holds_the_arguments(run: RunFn) -> None:
    assert run(MSG, "data", {"x": 3, "s": "yo"}) == ["3", "yo"]


def test_msg_data_outside_a_function_is_a_compile_error() -> None:
    with pytest.raises(CompileError) as info:
        compile_source(c("    string s = msg.sig;"))
    assert "'msg.sig' is only available inside a function or modifier" in info.value.message


def test_log_prints_on_the_node_log_and_in_the_result(
    deploy: DeployFn, call: CallFn, caplog: pytest.LogCaptureFixture
) -> None:
    res = deploy(MSG, "C")
    with caplog.at_level(logging.INFO, logger="stratoscope.node.contracts"):
        out = call(res.address, "lg")
    expected = [
        "hi",
        "5",
        "True",
        "E.B (= 1)",
        "000000000000000000000000000000000000beef",
        "00ff",
        "[1]",
        "P{s: a, x: 1}",
    ]
    assert out.logs == expected
    lines = [r.getMessage() for r in caplog.records if r.name == "stratoscope.node.contracts"]
    assert lines == [f"log C {res.address}: {text}" for text in expected]


def test_a_contract_event_named_log_is_still_emitted(deploy: DeployFn, call: CallFn) -> None:
    src = c("    event log(uint v);\n    function f() public { log(5); }")
    res = deploy(src, "C")
    out = call(res.address, "f")
    assert [(e.name, e.values) for e in out.events] == [("log", {"v": "5"})]
    assert out.logs == []


def test_util_helpers_need_no_declaration(run: RunFn) -> None:
    src = c(
        "    function f() public pure returns (string, bytes32) {\n"
        '        bytes32 x = "Will the real ";\n'
        "        return (Util.bytes32ToString(x), Util.b32(x));\n"
        "    }"
    )
    assert run(src, "f") == ["Will the real ", "Will the real "]


def test_log_output_of_one_transaction_is_bounded(deploy: DeployFn, call: CallFn) -> None:
    """A loop could print ~200k lines within the step budget, each kept in the result, read
    calls and debug sessions: the first 1,000 lines are kept, then one line counts the rest."""
    from app.node.solidvm.runtime import LOG_KEEP_LINE_CHARS, LOG_KEEP_LINES

    src = c(
        "    function f() public { for (uint i = 0; i < 3000; i++) { log(i); } }\n"
        "    function g(string s) public { log(s); }"
    )
    res = deploy(src, "C")
    out = call(res.address, "f")
    assert len(out.logs) == LOG_KEEP_LINES + 1
    assert out.logs[:3] == ["0", "1", "2"]
    assert out.logs[LOG_KEEP_LINES - 1] == str(LOG_KEEP_LINES - 1)
    assert out.logs[-1] == f"… log output cut: 2000 more lines not kept (at most {LOG_KEEP_LINES})"
    long = call(res.address, "g", {"s": "x" * (LOG_KEEP_LINE_CHARS + 10)})
    assert long.logs == ["x" * LOG_KEEP_LINE_CHARS + f"… ({LOG_KEEP_LINE_CHARS + 10} characters)"]
