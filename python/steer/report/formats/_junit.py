"""JUnit XML: a test suite per model; each error or warning is a failing test
case, and every model has one passing case for its grade."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from steer.report.formats._common import num
from steer.rubric import GradeResult


def render_junit(result: GradeResult) -> str:
    root = ET.Element("testsuites", name="steer grade")
    total = failures = 0
    groups: list[str | None] = [None, *(c.model for c in result.cards)]
    for model in groups:
        found = [d for d in result.diagnostics if d.model == model and d.severity != "info"]
        card = next((c for c in result.cards if c.model == model), None)
        if model is None and not found:
            continue
        suite = ET.SubElement(root, "testsuite", name=model or result.rubric_file)
        cases = 0
        if card is not None:
            ET.SubElement(
                suite,
                "testcase",
                classname=result.rubric_name,
                name=f"grade {card.letter} (score {num(card.score)}, GPA {num(card.gpa, 2)})",
            )
            cases += 1
        for d in found:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=result.rubric_name,
                name=f"{d.code} {d.element or ''}".strip(),
                file=d.location.file,
                line=str(d.location.line),
            )
            failure = ET.SubElement(case, "failure", message=d.message, type=d.severity)
            failure.text = d.line()
            cases += 1
        suite.set("tests", str(cases))
        suite.set("failures", str(len(found)))
        total += cases
        failures += len(found)
    root.set("tests", str(total))
    root.set("failures", str(failures))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
