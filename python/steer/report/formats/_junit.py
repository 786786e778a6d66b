"""JUnit XML: a test suite per report card (model · adaptation).

Only error-severity diagnostics are failures, as CI consumers of JUnit (and
ruff's junit output) expect: a warning or note must not turn the build red.
They are kept as passing test cases whose `system-out` carries the message,
so a report viewer still shows them. Every card has one passing case for its
grade; findings about the rubric itself form a suite named after the file.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from steer.report.formats._common import num
from steer.rubric import GradeResult, ModelCard
from steer.rubric._diagnostic import Diagnostic


def _belongs(d: Diagnostic, card: ModelCard | None) -> bool:
    if card is None:
        return d.model is None
    # A finding names its adaptation only when its model has several cards.
    return d.model == card.model and d.adaptation in (None, card.adaptation)


def render_junit(result: GradeResult) -> str:
    root = ET.Element("testsuites", name="steer grade")
    total = failures = 0
    groups: list[ModelCard | None] = [None, *result.cards]
    for card in groups:
        found = [d for d in result.diagnostics if _belongs(d, card)]
        if card is None and not found:
            continue
        suite = ET.SubElement(root, "testsuite", name=card.title if card else result.rubric_file)
        cases = failed = 0
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
            if d.severity == "error":
                failure = ET.SubElement(case, "failure", message=d.message, type=d.severity)
                failure.text = d.line()
                failed += 1
            else:
                out = ET.SubElement(case, "system-out")
                out.text = f"{d.severity}: {d.line()}"
            cases += 1
        suite.set("tests", str(cases))
        suite.set("failures", str(failed))
        total += cases
        failures += failed
    root.set("tests", str(total))
    root.set("failures", str(failures))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
