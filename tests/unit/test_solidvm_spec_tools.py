"""tools/solidvm_spec_cases.py and tools/solidvm_coverage.py read the platform's hspec cases the
way its harness runs them: a few cases written in the suites' own form, through our engine."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import solidvm_coverage as cov
from solidvm_spec_cases import Case, extract_cases

import app.node.solidvm as sv


def one(suite: str, body: str) -> Case:
    (case,) = extract_cases(suite, body, lambda _: "")
    return case


def ran(suite: str, body: str) -> Case:
    case = one(suite, body)
    cov.run_case(sv, case)
    return case


def typechecker(name: str, src: str, count: str) -> str:
    return f"""
spec = describe "Typechecker tests" $ do
  it "{name}" $ do
    anns <-
      liftIO $
        runTypechecker
          [r|
{src}
|]
    length anns {count}
"""


def test_a_minimum_annotation_count_is_an_expected_error() -> None:
    src = 'contract A {\n  function f() {\n    assert(true, "assert");\n  }\n}'
    case = one("TypecheckerSpec", typechecker("bad assert", src, "`shouldSatisfy` (>= 3) -- x"))
    assert case.error == "Typechecker"
    assert case.error_msg == "at least 3 annotation(s)"
    assert (case.steps[0].anns, case.steps[0].at_least) == (3, True)


def test_a_parse_error_is_the_one_annotation_a_case_may_expect() -> None:
    # runTypechecker reports a source its parser rejects as exactly one annotation
    src = "contract A {\n  function f(string i) {\n    string x = return i;\n  }\n}"
    case = ran("TypecheckerSpec", typechecker("bad", src, "`shouldBe` 1"))
    assert (case.stage, case.outcome) == ("parse", "PASS-error")
    case = ran("TypecheckerSpec", typechecker("bad", src, "`shouldBe` 2"))
    assert case.outcome == "FAIL-parse"


def static_analysis(detector: str, src: str) -> str:
    return f"""
spec = describe "Static analysis detectors" $ do
    it "warns" $ do
      anns <-
        liftIO $
          {detector}
            `forContract` [r|
{src}
|]
      length anns `shouldBe` 1
"""


def test_detectors_the_compiler_runs_are_compile_expectations() -> None:
    src = "contract A {\n  uint x = 5;\n  function f() pure returns (uint) { return x; }\n}"
    case = ran("StaticAnalysisSpec", static_analysis("ConstantFunctions.detector", src))
    assert case.steps[0].op == "compile"
    assert case.error_msg == "1 annotation(s) from ConstantFunctions.detector"
    assert case.outcome == "PASS-error"
    case = ran("StaticAnalysisSpec", static_analysis("BooleanLiterals.detector", src))
    assert case.outcome == "NOT-EXPRESSIBLE"


def run_bs(name: str, src: str, selector: str) -> str:
    return f"""
spec = describe "SolidVM" $ do
  it "{name}" $
    runTest
      ( do
          runBS
            [r|
{src}
|]
      )
      `shouldThrow` {selector}
"""


@pytest.mark.parametrize(
    ("src", "stage"),
    [
        ("contract A {\n  uint account;\n}", "run"),  # the harness creates contract qq
        ('contract qq {\n  constructor() { create("B", "contract A {}", "()"); }\n}', "run"),
    ],
)
def test_missing_type_at_either_stage(src: str, stage: str) -> None:
    case = ran("SolidVMSpec", run_bs("missing", src, "anyMissingTypeError"))
    assert (case.stage, case.outcome) == (stage, "PASS-error")
    assert case.message.startswith("missing type: create'/contract: ")


def test_a_case_the_platform_no_longer_passes_is_stale() -> None:
    src = "contract qq {\n  modifier m() { return 7; _; }\n  constructor() m {}\n}"
    name = "can declare a custom modifier and use it in a contract"
    case = ran("SolidVMSpec", run_bs(name, src, "anyTypeError"))
    assert case.outcome == "STALE"
    assert "fc57c37c45" in case.message
    # the same title with another expectation is an ordinary case
    src = "contract qq {\n  modifier m() { require(false); _; }\n  constructor() m {}\n}"
    assert ran("SolidVMSpec", run_bs(name, src, "failedRequirementNoMsg")).outcome == "PASS-error"
