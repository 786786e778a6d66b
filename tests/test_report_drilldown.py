"""The report's drill-down, driven in a real headless Chromium through
selenium (Debian's `chromium-driver`): from a diagnostic, one click reaches
a wrong answer's exact prompt and the reply the server sent; heatmap cells
link to the same answers. The run is a real `openai:` run against the
loopback server, so prompts and replies are the transcripts it stored."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from browser import chromium, needs_browser
from grade_helpers import steer as run_steer
from llm_fixtures import FAKE_KEY
from openai_server import FakeOpenAI, serving

pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
pytestmark = needs_browser


def steer(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_steer(*args, cwd=cwd, env={"OPENAI_API_KEY": FAKE_KEY})


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("drill")
    made = steer("generate", "--elements", "1.1.a,3.1.a", "--per-cell", "3", "-o", "bank.parquet",
                 cwd=folder)  # fmt: skip
    assert made.returncode == 0, made.stderr
    # Always "B" with 0.7 on it: wrong on most questions and miscalibrated
    # (RAT004, a finding about each element).
    with serving(FakeOpenAI(answer_letter="B")) as url:
        ran = steer("run", "bank.parquet", "--model", "openai:m", "--base-url", url, "-o",
                    "runs/m", cwd=folder)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    done = steer("report", "runs/m", "-r", "whole-benchmark", "-o", "r.html", cwd=folder)
    assert done.returncode == 0, done.stderr
    return folder / "r.html"


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium(1280, 1600) as driver:
        yield driver


def test_one_click_from_a_diagnostic_reaches_the_prompt_and_reply(
    report: Path, browser: object
) -> None:
    from selenium.webdriver.common.by import By

    driver: object = browser
    driver.get(report.as_uri())  # type: ignore[attr-defined]
    links = driver.find_elements(By.CSS_SELECTOR, '#diagnostics a[href^="#cell-"]')  # type: ignore[attr-defined]
    assert links, "no diagnostic links to the answers behind it"
    # Diagnostics of one rule start folded only for info: open the group if needed.
    link = links[0]
    clicks = 0
    group = link.find_element(By.XPATH, "ancestor::details[1]")
    if not group.get_attribute("open"):
        group.find_element(By.TAG_NAME, "summary").click()
        clicks += 1
    link.click()
    clicks += 1
    target = link.get_attribute("href").split("#", 1)[1]
    cell = driver.find_element(By.ID, target)  # type: ignore[attr-defined]
    assert cell.get_attribute("open") is not None
    answer = cell.find_element(By.CSS_SELECTOR, "details.answer")
    assert "wrong" in answer.get_attribute("class") and answer.get_attribute("open") is not None
    shown = [p.text for p in answer.find_elements(By.TAG_NAME, "pre") if p.is_displayed()]
    assert clicks <= 2
    # The exact prompt (the question's text, from the transcript) and the raw reply.
    transcript = json.loads(
        (report.parent / "runs/m/transcripts.jsonl").read_text().splitlines()[0]
    )
    assert transcript["exchanges"][0]["messages"][-1]["role"] == "user"
    assert any("Reply with the letter" in text for text in shown), shown
    assert any('"content"' in text or text.strip() == "B" for text in shown), shown


def test_heatmap_cells_link_to_their_answers(report: Path, browser: object) -> None:
    from selenium.webdriver.common.by import By

    driver: object = browser
    driver.get(report.as_uri())  # type: ignore[attr-defined]
    anchors = driver.find_elements(By.CSS_SELECTOR, "#heatmap svg a")  # type: ignore[attr-defined]
    assert len(anchors) == 2  # one model × two elements
    targets = [
        driver.execute_script("return arguments[0].getAttribute('xlink:href')", a)  # type: ignore[attr-defined]
        for a in anchors
    ]
    for target in targets:
        assert driver.find_element(By.ID, target[1:]).tag_name == "details"  # type: ignore[attr-defined]
    # Clicking a cell opens its answers.
    anchors[1].find_element(By.TAG_NAME, "path").click()
    cell = driver.find_element(By.ID, targets[1][1:])  # type: ignore[attr-defined]
    assert cell.get_attribute("open") is not None
    assert cell.find_element(By.CSS_SELECTOR, "details.answer").get_attribute("open") is not None
