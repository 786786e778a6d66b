"""The report's layout at both ends of its range, measured in headless
Chromium (selenium + Debian's chromium-driver): 1 model × 3 elements and
20 models × 122 elements. Nothing may widen the page beyond the window
(wide figures scroll inside their own box), no box may clip its text, and
no table cell's text may spill into its neighbour. The figures' own labels
are checked by matplotlib's text extents in the tests of `steer.view`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from browser import chromium, needs_browser
from grade_helpers import steer

pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
pytestmark = needs_browser

MODEL = "openai:gpt-4o-2024-08-06-with-a-long-deployment-name"
PER_ELEMENT = 4
ADAPTATION = {"format": "mc", "shots": 0, "cot": "none", "prob_mode": "conditioning",
              "order": None, "collective": None}  # fmt: skip
ADAPTATION_TYPE = pa.struct(
    [("format", pa.string()), ("shots", pa.int8()), ("cot", pa.string()),
     ("prob_mode", pa.string()), ("order", pa.string()), ("collective", pa.string())]
)  # fmt: skip

MEASURE = """
const out = [];
const doc = document.documentElement;
if (doc.scrollWidth > window.innerWidth + 1) {
  // Name the outermost boxes that stick out (not those inside a scrolling box).
  const wide = [...document.querySelectorAll('body *')].filter(el => {
    if (el.getBoundingClientRect().right <= window.innerWidth + 1) return false;
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      if (['auto', 'scroll'].includes(getComputedStyle(a).overflowX)) return false;
    }
    return el.parentElement.getBoundingClientRect().right <= window.innerWidth + 1;
  }).map(el => el.tagName.toLowerCase() + '.' + el.className + ' in #' +
                (el.closest('section') || {}).id);
  out.push('page is ' + doc.scrollWidth + 'px wide in a ' + window.innerWidth +
           'px window: ' + wide.slice(0, 5).join(', '));
}
for (const el of document.querySelectorAll('body *')) {
  const style = getComputedStyle(el);
  if (style.display === 'none' || el.closest('details:not([open]) > :not(summary)')) continue;
  const hides = v => ['hidden', 'clip'].includes(v);
  const clips = hides(style.overflowX) || hides(style.overflowY);
  if (clips && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)) {
    out.push('clipped: <' + el.tagName.toLowerCase() + '> ' + el.textContent.slice(0, 60));
  }
  if ((el.tagName === 'TD' || el.tagName === 'TH') && el.scrollWidth > el.clientWidth + 1) {
    out.push('spills out of its cell: ' + el.textContent.slice(0, 60));
  }
}
return out;
"""


def write_runs(folder: Path, n_models: int, elements: list[str]) -> list[str]:
    """A run directory per model: PER_ELEMENT answered questions per element,
    each model right with its own probability (built column-wise)."""
    runs = []
    n = len(elements) * PER_ELEMENT
    element = np.repeat(np.array(elements, dtype=object), PER_ELEMENT)
    index = np.tile(np.arange(PER_ELEMENT), len(elements))
    base = np.char.add(np.char.add(element.astype(str), "/q"), index.astype(str))
    for m in range(n_models):
        rng = np.random.default_rng(m)
        correct = rng.integers(0, 4, n).astype(np.int32)
        right = rng.random(n) < (0.3 + 0.7 * m / max(n_models - 1, 1))
        chosen = np.where(right, correct, (correct + 1) % 4).astype(np.int32)
        probs = np.full((n, 4), 0.1)
        probs[np.arange(n), chosen] = 0.7
        name = f"{MODEL}#{m}"
        table = pa.table(
            {
                "run_id": [f"run-{m}"] * n, "model": [name] * n, "backend": ["openai"] * n,
                "adaptation": pa.array([ADAPTATION] * n, type=ADAPTATION_TYPE),
                "question_id": np.char.add(base, "/0"), "base_id": base,
                "part": pa.array(np.zeros(n, dtype=np.int32)), "element": element,
                "domain": np.array(["finance", "medicine", "sports"])[index % 3],
                "type": ["positive"] * n, "perspective": ["first"] * n,
                "grade": pa.array((index % 5).astype(np.int32)),
                "n_options": pa.array(np.full(n, 4, dtype=np.int32)),
                "chosen_index": pa.array(chosen), "correct_index": pa.array(correct),
                "option_probs": pa.array(list(probs)),
            }
        )  # fmt: skip
        run = folder / "runs" / f"m{m}"
        run.mkdir(parents=True)
        pq.write_table(table, run / "responses.parquet")
        manifest = {"run_id": f"run-{m}", "model": name, "bank_sha256": "b" * 64}
        (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        runs.append(f"runs/m{m}")
    return runs


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium(1280, 1000) as driver:
        yield driver


@pytest.mark.parametrize(("n_models", "n_elements"), [(1, 3), (20, 122)])
def test_nothing_overflows_or_is_clipped(
    n_models: int, n_elements: int, tmp_path: Path, browser: object
) -> None:
    from steer.taxonomy import load_taxonomy

    ids = list(load_taxonomy().elements)
    elements = ids[:: max(1, len(ids) // n_elements)][:n_elements]
    assert len(elements) == n_elements
    runs = write_runs(tmp_path, n_models, elements)
    done = steer("report", *runs, "-r", "whole-benchmark", "-o", "r.html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    driver: object = browser
    driver.set_script_timeout(600)  # type: ignore[attr-defined]
    driver.get((tmp_path / "r.html").as_uri())  # type: ignore[attr-defined]
    problems = driver.execute_script(MEASURE)  # type: ignore[attr-defined]
    assert problems == [], problems[:10]
    # Opening every cell of the answers and every rule's findings changes nothing.
    driver.execute_script(  # type: ignore[attr-defined]
        "document.querySelectorAll('details').forEach(d => d.open = true)"
    )
    problems = driver.execute_script(MEASURE)  # type: ignore[attr-defined]
    assert problems == [], problems[:10]
