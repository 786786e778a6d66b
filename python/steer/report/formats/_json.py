"""The report card as JSON (stable key order; NaN written as null)."""

from __future__ import annotations

import json
from typing import Any

from steer._json import json_safe
from steer.rubric import GradeResult, ModelCard, SectionScore
from steer.taxonomy import element_order


def _clean(x: float | None) -> float | None:
    return None if x is None or x != x else round(float(x), 6)


def _section(s: SectionScore) -> dict[str, Any]:
    return {
        "name": s.name,
        "weight": s.weight,
        "metric": s.metric,
        "score": _clean(s.score),
        "lo": _clean(s.lo),
        "hi": _clean(s.hi),
        "grade": s.letter,
        "elements_selected": len(s.selected),
        "elements_graded": s.present,
        "sections": [_section(c) for c in s.children],
    }


def _coverage(card: ModelCard) -> dict[str, Any] | None:
    cov = card.coverage
    if cov is None:
        return None
    return {
        "known": cov.known,
        "graded": cov.graded,
        "answered": cov.answered,
        "asked": cov.asked,
        "bank": cov.bank,
        "no_answer_rate": _clean(cov.no_answer_rate),
    }


def result_dict(result: GradeResult) -> dict[str, Any]:
    """Everything in the card as plain JSON-able values."""
    return {
        "rubric": {
            "name": result.rubric_name,
            "file": result.rubric_file,
            "description": result.description,
            "metric": result.metric,
            "scale": [{"letter": n, "min": m, "points": p} for n, m, p in result.letter_steps],
        },
        "runs": result.runs,
        "banks": result.banks,
        "models": [
            {
                "model": card.model,
                "adaptation": card.adaptation,
                "score": _clean(card.score),
                "grade": card.letter,
                "gpa": _clean(card.gpa),
                "coverage": _coverage(card),
                "sections": [_section(s) for s in card.sections],
                "elements": [
                    {
                        "element": es.element,
                        "name": es.name,
                        "n": es.n,
                        "metrics": {k: _clean(v) for k, v in sorted(es.metrics.items())},
                        "intervals": {
                            k: [_clean(lo), _clean(hi)] for k, (lo, hi) in sorted(es.bounds.items())
                        },
                        "worst_domain": es.worst_domain,
                        "worst_domain_value": _clean(es.worst_domain_value),
                    }
                    for _, es in sorted(card.elements.items(), key=lambda kv: element_order(kv[0]))
                ],
            }
            for card in result.cards
        ],
        "diagnostics": [d.to_dict() for d in result.diagnostics],
        "summary": result.counts(),
        "failed": result.failed(),
    }


def render_json(result: GradeResult) -> str:
    # json_safe: no NaN/Infinity (not JSON) and no -0.0 ever reach the output.
    return json.dumps(json_safe(result_dict(result)), indent=2, ensure_ascii=False) + "\n"
