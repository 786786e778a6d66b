"""The module quality tests' shared check: audit a seeded bank of a module's
elements and list each listed element the audit fails (issue 20 §1)."""

from __future__ import annotations

import pyarrow as pa

from steer.audit import AuditReport, audit_bank


def audit_failures(
    bank: pa.Table, elements: list[str], *, source: str, seed: int, strict: bool = False
) -> tuple[AuditReport, list[str]]:
    """The audit of `bank` and one line per failing element. Every element in
    `elements` must be judged; `strict` also fails one too small to judge."""
    report = audit_bank(bank, source=source, seed=seed, rubric=None)
    judged = {e.element for e in report.elements}
    missing = [f"{e}: not in the bank" for e in elements if e not in judged]
    bad = [
        f"{e.element}: {e.status} "
        + (f"{e.worst.agent} {e.worst.accuracy:.2f} vs {e.worst.chance:.2f}" if e.worst else "")
        for e in report.elements
        if e.status == "fail" or (strict and e.status != "pass")
    ]
    return report, missing + bad
