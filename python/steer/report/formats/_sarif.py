"""SARIF 2.1.0: one run of the `steer` tool; a result per diagnostic located
in the rubric file, and a rule descriptor per code used."""

from __future__ import annotations

import json
from typing import Any

from steer._json import json_safe
from steer.rubric import GradeResult
from steer.rubric.rules._codes import CODES

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def sarif_dict(result: GradeResult, version: str) -> dict[str, Any]:
    codes = sorted({d.code for d in result.diagnostics})
    rules = []
    for code in codes:
        info = CODES.get(code)
        rules.append(
            {
                "id": code,
                "name": info.name if info else "rubric-check",
                "shortDescription": {
                    "text": info.summary if info else f"check {code} of the rubric"
                },
                "defaultConfiguration": {"level": _LEVEL[info.severity] if info else "error"},
            }
        )
    index = {code: i for i, code in enumerate(codes)}
    results = []
    for d in result.diagnostics:
        who = f"[{d.who}] " if d.model else ""
        entry: dict[str, Any] = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": _LEVEL[d.severity],
            "message": {"text": f"{who}{d.message}" + (f" — {d.hint}" if d.hint else "")},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": d.location.file},
                        "region": {
                            "startLine": d.location.line,
                            "startColumn": d.location.column,
                        },
                    }
                }
            ],
        }
        props = {
            k: v
            for k, v in (("model", d.model), ("adaptation", d.adaptation), ("element", d.element))
            if v
        }
        if props:
            entry["properties"] = props
        results.append(entry)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "steer",
                        "version": version,
                        "informationUri": "https://github.com/steer-bench/steer",
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }


def render_sarif(result: GradeResult, version: str) -> str:
    doc = json_safe(sarif_dict(result, version))  # no NaN/Infinity, which JSON lacks
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
