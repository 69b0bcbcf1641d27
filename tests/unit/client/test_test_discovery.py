"""Finding Describe_ tests without a node, generating and shrinking property arguments, and the
JUnit XML of a report (app/client/test_discovery.py, test_values.py, test_junit.py)."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from pathlib import Path

from app.client.test_discovery import scan_file, sol_files
from app.client.test_junit import junit_xml, write_junit
from app.client.test_runner import (
    CompileFailure,
    RunReport,
    TestCase,
    TestOutcome,
    discover,
)
from app.client.test_values import arg_specs, generate, render, shrink

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "corpus" / "describe"

SOURCE = """pragma solidvm 12.0;
// contract Describe_InAComment { function it_no() public {} }
contract Helper { function it_not_a_test() public {} }

contract Describe_Order {
    string s = "function it_in_a_string() public {}";
    struct S { uint a; }
    constructor() {}
    function beforeEach() public {}
    function it_second_in_the_alphabet_but_first() public {
        if (true) { uint x = 1; }
    }
    /* function it_commented_out() public {} */
    function property_takes(uint a, string b) public returns (bool) { return true; }
    function it_again() public {}
    function helper() internal {}
}

abstract contract Describe_Abstract { function it_no() public {} }

contract Describe_WithArgs {
    constructor(uint a, uint b) {}
    function it_no() public {}
}
"""


def test_scan_finds_tests_in_source_order_with_their_lines() -> None:
    contracts = scan_file("x.sol", SOURCE)
    names = [c.name for c in contracts]
    assert names == ["Describe_Order", "Describe_Abstract", "Describe_WithArgs"]
    order = contracts[0]
    assert [(t.name, t.kind, t.line) for t in order.cases] == [
        ("it_second_in_the_alphabet_but_first", "unit", 10),
        ("property_takes", "property", 14),
        ("it_again", "unit", 15),
    ]
    assert order.constructor_params == 0
    assert all(t.file == "x.sol" and t.contract == "Describe_Order" for t in order.cases)
    assert order.cases[0].id == "Describe_Order.it_second_in_the_alphabet_but_first"
    assert contracts[1].abstract
    assert contracts[2].constructor_params == 2


def test_discover_skips_abstract_and_constructor_arguments(tmp_path: Path) -> None:
    f = tmp_path / "x.sol"
    f.write_text(SOURCE, encoding="utf-8")
    cases, failures = discover([f])
    assert failures == []
    assert {c.contract for c in cases} == {"Describe_Order"}
    assert len(cases) == 3


def test_discover_folders_recursively_in_sorted_order() -> None:
    cases, failures = discover([CORPUS / "imports", CORPUS / "state"])
    assert failures == []
    assert [c.id for c in cases] == [
        "Describe_BracedImport.it_deploys_the_imported_contract",
        "Describe_ImportedCounter.it_increments",
        "Describe_ImportedCounter.it_adds",
        "Describe_SharedState.it_starts_from_the_constructor",
        "Describe_SharedState.it_sees_the_previous_test",
        "Describe_SharedState.it_sees_both",
        "Describe_FreshState.it_is_not_shared_with_other_contracts",
    ]
    assert cases[1].file.endswith("imports/counter_test.sol")
    assert cases[1].line == 12
    # the whole corpus: lib/ holds no Describe_ contract, so no file of it is listed
    files = list(sol_files([CORPUS]))
    assert files and not any("/lib/" in f for f in files)


def test_a_file_given_twice_is_listed_once() -> None:
    f = CORPUS / "state" / "shared.sol"
    assert len(list(sol_files([f, CORPUS / "state", f]))) == 1


def test_unsaved_sources_override_the_disk(tmp_path: Path) -> None:
    f = tmp_path / "t.sol"
    f.write_text("contract Describe_Disk { function it_a() public {} }", encoding="utf-8")
    edited = (
        "contract Describe_Buffer {\n  function it_b() public {}\n  function it_c() public {}\n}"
    )
    cases, failures = discover([f], {str(f.resolve()): edited})
    assert failures == []
    assert [c.id for c in cases] == ["Describe_Buffer.it_b", "Describe_Buffer.it_c"]
    assert [c.line for c in cases] == [2, 3]


def test_missing_import_is_a_compile_failure_at_the_import(tmp_path: Path) -> None:
    f = tmp_path / "t.sol"
    f.write_text(
        'pragma solidvm 12.0;\nimport "../nowhere/Lib.sol";\n'
        "contract Describe_T { function it_a() public {} }\n",
        encoding="utf-8",
    )
    cases, failures = discover([f])
    assert [c.id for c in cases] == ["Describe_T.it_a"]  # still listed, for the GUI's tree
    assert len(failures) == 1
    failure = failures[0]
    assert failure.file == str(f) and failure.line == 2 and failure.column == 8
    assert "missing import file '../nowhere/Lib.sol'" in failure.message
    assert str(failure).startswith(f"{f}:2:8: ")


def test_missing_path_is_reported(tmp_path: Path) -> None:
    cases, failures = discover([tmp_path / "nope.sol"])
    assert cases == []
    assert failures == [CompileFailure(str(tmp_path / "nope.sol"), 0, 0, "no such file or folder")]


# ---------------------------------------------------------------- property arguments

FUNC = {
    "args": {
        "flag": {"tag": "Bool", "index": 2},
        "n": {"tag": "Int", "signed": False, "bytes": 1, "index": 0},
        "s": {"tag": "String", "dynamic": True, "index": 1},
        "xs": {"tag": "Array", "entry": {"tag": "Int", "signed": True, "bytes": 32}, "index": 3},
        "who": {"tag": "Address", "index": 4},
        "e": {"tag": "Enum", "names": ["A", "B"], "typedef": "E", "index": 5},
    }
}


def test_generation_is_deterministic_and_within_the_types() -> None:
    specs = arg_specs(FUNC)
    assert [name for name, _ in specs] == ["n", "s", "flag", "xs", "who", "e"]
    one = [generate(specs, random.Random(7), i) for i in range(50)]
    two = [generate(specs, random.Random(7), i) for i in range(50)]
    assert one == two
    for n, s, flag, xs, who, e in one:
        assert 0 <= n <= 255
        assert isinstance(s, str) and isinstance(flag, bool) and isinstance(xs, list)
        assert len(who) == 40 and int(who, 16) >= 0
        assert e in (0, 1)
    assert generate(specs, random.Random(7), 0)[1] == ""  # run 0 has size 0


def test_shrinking_an_int_is_a_binary_search() -> None:
    specs = arg_specs({"args": {"x": {"tag": "Int", "signed": False, "bytes": 32, "index": 0}}})
    vector: list[object] = [10**30]
    rounds = 0
    while True:  # the property fails for x >= 50: take the first failing candidate each round
        nxt = next((c for c in shrink(specs, vector) if int(str(c[0])) >= 50), None)
        if nxt is None:
            break
        vector, rounds = nxt, rounds + 1
    assert vector == [50]
    assert rounds < 30
    assert render(specs, vector) == "(50)"


def test_shrinking_strings_bools_and_arrays() -> None:
    specs = arg_specs(FUNC)
    vector = [3, "hello", True, [5, -2], "ab" * 20, 1]
    candidates = list(shrink(specs, vector))
    assert candidates[0] == [0, "hello", True, [5, -2], "ab" * 20, 1]
    assert [3, "", True, [5, -2], "ab" * 20, 1] in candidates
    assert [3, "hello", False, [5, -2], "ab" * 20, 1] in candidates
    assert [3, "hello", True, [], "ab" * 20, 1] in candidates
    assert [3, "hello", True, [5, -2], "0" * 40, 1] in candidates
    assert [3, "hello", True, [5, -2], "ab" * 20, 0] in candidates
    assert vector not in candidates
    assert render(specs, vector) == f'(3, "hello", true, [5, -2], 0x{"ab" * 20}, E.B)'


# ---------------------------------------------------------------- JUnit


def _case(name: str) -> TestCase:
    return TestCase("t/a.sol", "Describe_A", name, "unit", 3)


def test_junit_xml(tmp_path: Path) -> None:
    report = RunReport(
        [
            TestOutcome(_case("it_ok"), True, seconds=0.5),
            TestOutcome(_case("it_bad"), False, 'revert: <no> & "yes"', "t/a.sol:3"),
        ],
        [CompileFailure("t/lib/B.sol", 4, 9, "undeclared identifier 'x'")],
    )
    root = ET.fromstring(junit_xml(report))
    assert root.tag == "testsuites"
    assert root.get("tests") == "3" and root.get("failures") == "1" and root.get("errors") == "1"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["Describe_A", "compile"]
    cases = suites[0].findall("testcase")
    assert [c.get("name") for c in cases] == ["it_ok", "it_bad"]
    assert cases[0].find("failure") is None
    failure = cases[1].find("failure")
    assert failure is not None and failure.get("message") == 'revert: <no> & "yes"'
    error = suites[1].find("testcase/error")
    assert error is not None and error.text == "t/lib/B.sol:4:9: undeclared identifier 'x'"
    target = tmp_path / "out.xml"
    write_junit(target, report)
    assert ET.parse(target).getroot().get("tests") == "3"
    assert [p.name for p in tmp_path.iterdir()] == ["out.xml"]  # no temporary file left
