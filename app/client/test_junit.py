"""JUnit XML of a test run, the format CI systems read (Jenkins, GitLab, GitHub actions).

One ``<testsuite>`` per ``Describe_`` contract, one ``<testcase>`` per test with ``<failure>``
when it failed; files that did not compile become a ``compile`` suite of ``<error>`` cases.
:func:`write_junit` writes through a temporary file and a rename: a reader never sees half a file.
"""

from __future__ import annotations

import os
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from .test_runner import RunReport, TestOutcome

__all__ = ["junit_xml", "write_junit"]


def _suite(name: str, outcomes: list[TestOutcome]) -> ET.Element:
    failed = sum(1 for o in outcomes if not o.passed)
    seconds = sum(o.seconds for o in outcomes)
    suite = ET.Element(
        "testsuite",
        name=name,
        tests=str(len(outcomes)),
        failures=str(failed),
        errors="0",
        skipped="0",
        time=f"{seconds:.3f}",
    )
    if outcomes:
        suite.set("file", outcomes[0].case.file)
    for o in outcomes:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=o.case.contract,
            name=o.case.name,
            file=o.case.file,
            line=str(o.case.line),
            time=f"{o.seconds:.3f}",
        )
        if not o.passed:
            failure = ET.SubElement(case, "failure", message=o.message, type=o.case.kind)
            lines = [o.message]
            if o.location:
                lines.append(f"at {o.location}")
            if o.vector is not None:
                lines.append(f"arguments: {o.vector!r}")
            if o.tx_hashes:
                lines.append("transactions: " + " ".join(o.tx_hashes[-5:]))
            failure.text = "\n".join(lines)
    return suite


def junit_xml(report: RunReport, name: str = "stratoscope") -> bytes:
    """The report as a JUnit XML document (UTF-8, with its declaration)."""
    by_contract: dict[str, list[TestOutcome]] = {}
    for o in report.outcomes:
        by_contract.setdefault(o.case.contract, []).append(o)
    root = ET.Element(
        "testsuites",
        name=name,
        tests=str(len(report.outcomes) + len(report.failures)),
        failures=str(report.failed),
        errors=str(len(report.failures)),
        time=f"{sum(o.seconds for o in report.outcomes):.3f}",
    )
    for contract, outcomes in by_contract.items():
        root.append(_suite(contract, outcomes))
    if report.failures:
        suite = ET.SubElement(
            root,
            "testsuite",
            name="compile",
            tests=str(len(report.failures)),
            failures="0",
            errors=str(len(report.failures)),
            skipped="0",
            time="0.000",
        )
        for f in report.failures:
            case = ET.SubElement(
                suite, "testcase", classname="compile", name=f.file, file=f.file, line=str(f.line)
            )
            error = ET.SubElement(case, "error", message=f.message, type="compile")
            error.text = str(f)
    ET.indent(root)
    body: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return body + b"\n"


def write_junit(path: Path, report: RunReport) -> None:
    """Write :func:`junit_xml` to ``path`` atomically (a temporary file, then a rename)."""
    data = junit_xml(report)
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
