"""`steer view`: the report's pages from a real HTTP server on loopback,
over a real `openai:` run (prompts and replies are its transcripts) and a
reference agent's run. Counts under every filter equal a plain count over
the rows; a question's page has its exact prompt and raw reply; bad queries
are 400 with the reason; nothing a model wrote can run in the page."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pyarrow.parquet as pq
import pytest

from grade_helpers import steer as run_steer
from llm_fixtures import FAKE_KEY
from openai_server import FakeOpenAI, serving
from steer.report.viewer import ViewerData, serve_in_thread


def steer(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_steer(*args, cwd=cwd, env={"OPENAI_API_KEY": FAKE_KEY})


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("view")
    made = steer("generate", "--elements", "1.1.a,3.1.a", "--per-cell", "3", "-o", "bank.parquet",
                 cwd=folder)  # fmt: skip
    assert made.returncode == 0, made.stderr
    state = FakeOpenAI(answer_letter="B")
    # A reply that tries to run in the page: shown as text, never as markup.
    state.reply = lambda messages: "<script>alert(1)</script> B"
    with serving(state) as url:
        ran = steer("run", "bank.parquet", "--model", "openai:m", "--base-url", url, "-o",
                    "runs/m", cwd=folder)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    ran = steer("run", "bank.parquet", "--model", "agent:random", "-o", "runs/random", cwd=folder)
    assert ran.returncode == 0, ran.stderr
    return folder


@pytest.fixture(scope="module")
def url(folder: Path) -> Iterator[str]:
    data = ViewerData([folder / "runs/m", folder / "runs/random"])
    server, base = serve_in_thread(data)
    assert server.server_address[0] == "127.0.0.1"
    yield base
    server.shutdown()
    server.server_close()


def get(url: str, path: str, **params: object) -> tuple[int, str, dict[str, str]]:
    full = f"{url}{path}?{urlencode(params)}" if params else f"{url}{path}"
    try:
        with urllib.request.urlopen(full, timeout=30) as r:
            return r.status, r.read().decode(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), dict(e.headers)


def count(html: str) -> int:
    text = html.split('id="count">', 1)[1]
    return int(text.split(" answers", 1)[0].replace(",", ""))


def rows(folder: Path) -> list[dict[str, object]]:
    out = []
    for run in ("m", "random"):
        out += pq.read_table(folder / "runs" / run / "responses.parquet").to_pylist()
    return out


def test_filters_count_what_a_plain_count_counts(folder: Path, url: str) -> None:
    every = rows(folder)
    status, html, headers = get(url, "/questions")
    assert status == 200 and count(html) == len(every)
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    wrong = [r for r in every if r["chosen_index"] not in (r["correct_index"], -1)]
    unanswered = [r for r in every if r["chosen_index"] == -1 and r.get("error") is None]
    assert wrong and unanswered
    assert count(get(url, "/questions", outcome="wrong")[1]) == len(wrong)
    assert count(get(url, "/questions", outcome="no answer")[1]) == len(unanswered)
    for element in ("steer.1.1.a", "steer.3.1.a"):
        mine = [r for r in wrong if r["element"] == element and r["grade"] == 2]
        html = get(url, "/questions", outcome="wrong", element=element, grade=2)[1]
        assert count(html) == len(mine)
    card = "agent:random · mc;shots=0;cot=none;prob=conditioning"
    mine = [r for r in every if r["model"] == "agent:random" and r["domain"] == "retail"]
    assert count(get(url, "/questions", card=card, domain="retail")[1]) == len(mine)


def test_search_finds_the_question_text(folder: Path, url: str) -> None:
    bank = pq.read_table(folder / "bank.parquet").to_pylist()
    ids = {q["question_id"] for q in bank if "jars of honey" in q["question_text"].lower()}
    expected = [r for r in rows(folder) if r["question_id"] in ids]
    assert expected
    assert count(get(url, "/questions", text="JARS OF HONEY")[1]) == len(expected)


def test_pages_through_long_lists(url: str) -> None:
    first = get(url, "/questions", page=0)[1]
    second = get(url, "/questions", page=1)[1]
    assert "next →" in first and "← previous" in second
    assert first.count("<tr>") == 51  # the header and 50 answers


def test_a_question_shows_its_prompt_and_raw_reply(folder: Path, url: str) -> None:
    line = (folder / "runs/m/transcripts.jsonl").read_text().splitlines()[0]
    transcript = json.loads(line)
    qid = transcript["question_ids"][0]
    status, html, _ = get(url, "/question", run="m", id=qid, sample=0)
    assert status == 200
    prompt = transcript["exchanges"][0]["messages"][-1]["content"]
    assert prompt.splitlines()[0].replace("'", "&#x27;") in html
    # The reply is there as text; no model-written markup reaches the page.
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>" not in html


def test_bad_queries_are_400_with_the_reason_and_unknown_pages_404(url: str) -> None:
    status, html, _ = get(url, "/questions", grade="two")
    assert status == 400 and "grade must be a whole number" in html
    status, html, _ = get(url, "/questions", colour="red")
    assert status == 400 and "unknown filter &#x27;colour&#x27;" in html
    assert get(url, "/questions", page=-1)[0] == 400
    assert get(url, "/question")[0] == 400
    assert get(url, "/question", id="no/such/0")[0] == 404
    status, html, _ = get(url, "/<script>")
    assert status == 404 and "<script>" not in html


def test_the_command_serves_and_a_missing_run_is_one_line(folder: Path) -> None:
    bad = steer("view", "runs/nope", cwd=folder)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
    assert "runs/nope" in bad.stderr
    with subprocess.Popen(
        [sys.executable, "-m", "steer", "view", "runs/m", "--port", "0"], cwd=folder,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    ) as proc:  # fmt: skip
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline()
            assert first.startswith("steer view: http://127.0.0.1:"), first
            base = first.split()[2].rstrip("/")
            status, html, _ = get(base, "/")
            assert status == 200 and "openai:m" in html
        finally:
            proc.terminate()
            proc.wait(timeout=30)
