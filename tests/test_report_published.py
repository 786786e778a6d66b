"""`steer report GAME_RUNS --published game_results.csv`: the games section
shows each game's players beside the human baseline and the published
models (min · median · max of the game's headline metric, the published
models nearest each player), and the runs' Rationality Check domain scores
beside theirs — the same numbers `steer score --published` prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from browser import needs_browser
from grade_helpers import steer
from steer.play import play_game

# A table in the published layout (game_results.csv), three models and humans.
SYNTHETIC = (
    "Game,ver,Metric,m1,m2,m3,Human,Max_score,Min_score,Reverse,Show\n"
    "OnePD,v1,Dev↓,0.5,0.3,0.1,-,,0,1,0\n"
    ",,%NE,0.1,0.5,0.9,-,1.0,0,0,0\n"
    ",v2,%NE,0.3,0.7,1.0,-,1.0,0,0,0\n"
    ",fin,%NE,,,0.95,0.8,1.0,0,0,1\n"
    "FinRepPD,fin,%NE,0.3,0.5,0.9,0.6,1.0,0,0,1\n"
    "FinRepME,fin,Eff↑,0.7,0.2,0.4,0.3,1.0,0,0,1\n"
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("published")
    play_game("prisoners-dilemma", "agent:always-defect*2", out / "pd", samples=2)
    play_game("repeated-prisoners-dilemma", "agent:tit-for-tat,agent:always-defect", out / "rpd",
              samples=2, rounds=4)  # fmt: skip
    (out / "published.csv").write_text(SYNTHETIC, encoding="utf-8")
    return out


def _section(html: str) -> str:
    games = html[html.index('<section id="games">') :]
    return games[: games.index("</section>")]


def _rows(html: str) -> list[list[str]]:
    return [re.findall(r"<t[dh]>(.*?)</t[dh]>", row) for row in re.findall(r"<tr.*?</tr>", html)]


def test_html_shows_published_models_beside_players_and_humans(folder: Path) -> None:
    done = steer("report", "pd", "rpd", "-r", "rationality-check", "--published",
                 "published.csv", "-o", "r.html", cwd=folder)  # fmt: skip
    assert done.returncode == 0, done.stderr
    games = _section((folder / "r.html").read_text(encoding="utf-8"))
    pd = games[games.index("<h3>prisoners-dilemma</h3>") : games.index("<h3>repeated-")]
    rows = _rows(pd)
    header = rows[0]
    assert header[-1] == "nearest published (%NE)"
    ne = header.index("%NE")
    player = next(r for r in rows if r[0] == "agent:always-defect")
    assert player[ne].startswith("1.000 [")
    # m1 and m2's fin cells are blank: the mean of v1 and v2 (0.2, 0.6); m3's 0.95 is given.
    assert player[-1] == "m3 0.950 · m2 0.600"
    human = next(r for r in rows if r[0] == "humans (Rationality Check)")
    assert human[ne] == "0.800"
    published = next(r for r in rows if r[0].startswith("published models (3)"))
    assert published[ne] == "0.200 · 0.600 · 0.950"
    assert published[header.index("Dev")] == "—"  # not the published Dev↓ (not 1 − %NE)
    assert '<tr class="published">' in pd
    # Domain scores: always-defect defects in both dilemmas (normalised 1).
    domains = games[games.index('id="game-domains"') :]
    table = _rows(domains)
    assert table[0][-2:] == ["humans (Rationality Check)",
                             "published models (3): min · median · max"]  # fmt: skip
    practical = next(r for r in table if r[:2] == ["Game theory", "Practical"])
    defect = table[0].index("agent:always-defect")
    # m1 (0.2 + 0.3) / 2, m2 (0.6 + 0.5) / 2, m3 (0.95 + 0.9) / 2; humans (0.8 + 0.6) / 2
    assert practical[defect] == "1.000 (nearest m3 0.925)"
    assert practical[-2:] == ["0.700", "0.250 · 0.550 · 0.925"]
    crowd = next(r for r in table if r[:2] == ["Society", "Wisdom of crowd"])
    assert crowd[defect] == "—" and crowd[-1] == "—"


def test_markdown_has_the_same_rows(folder: Path) -> None:
    done = steer("report", "pd", "rpd", "-r", "rationality-check", "--published",
                 "published.csv", "-o", "r.md", cwd=folder)  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = (folder / "r.md").read_text(encoding="utf-8")
    games = text[text.index("## Games") :]
    assert "| published models (3): min · median · max | fin |" in games
    assert "| m3 0.950 · m2 0.600 |" in games
    assert "### Rationality Check domain scores" in games
    line = next(x for x in games.splitlines() if x.startswith("| Game theory | Practical |"))
    assert "1.000 (nearest m3 0.925)" in line and line.endswith("| 0.700 | 0.250 · 0.550 · 0.925 |")


def test_without_published_the_section_is_as_before(folder: Path) -> None:
    done = steer("report", "pd", "-r", "rationality-check", "-o", "plain.md", cwd=folder)
    assert done.returncode == 0, done.stderr
    text = (folder / "plain.md").read_text(encoding="utf-8")
    assert "| humans (Rationality Check) |" in text
    assert "published models" not in text and "domain scores" not in text


def test_bad_published_tables_are_one_line_exit_2(folder: Path) -> None:
    bad = SYNTHETIC.replace("FinRepPD,fin,%NE,0.3,0.5", "FinRepPD,fin,%NE,0.3,abc")
    (folder / "bad.csv").write_text(bad, encoding="utf-8")
    done = steer("report", "pd", "-r", "rationality-check", "--published", "bad.csv",
                 "-o", "bad.html", cwd=folder)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip() == "error: bad.csv: row 4: field 'm2': is 'abc', expected a " \
        "number, blank or '-'"  # fmt: skip
    assert not (folder / "bad.html").exists()
    missing = steer("report", "pd", "-r", "rationality-check", "--published", "nope.csv",
                    "-o", "bad.html", cwd=folder)  # fmt: skip
    assert missing.returncode == 2 and "nope.csv" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1


def test_published_needs_a_game_run(folder: Path) -> None:
    made = steer("generate", "--elements", "1.1.a", "--per-cell", "1", "-o", "bank.parquet",
                 cwd=folder)  # fmt: skip
    assert made.returncode == 0, made.stderr
    ran = steer("run", "bank.parquet", "--model", "agent:random", "-o", "q", cwd=folder)
    assert ran.returncode == 0, ran.stderr
    done = steer("report", "q", "-r", "rationality-check", "--published", "published.csv",
                 "-o", "q.html", cwd=folder)  # fmt: skip
    assert done.returncode == 2 and "compares game runs" in done.stderr
    assert not (folder / "q.html").exists()


def test_the_report_agrees_with_score_on_the_published_table(
    shared_fixtures: Path, folder: Path
) -> None:
    csv = shared_fixtures / "rationality_check" / "game_results.csv"
    done = steer("report", "pd", "rpd", "-r", "rationality-check", "--published", str(csv),
                 "-o", "real.md", cwd=folder)  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = (folder / "real.md").read_text(encoding="utf-8")
    assert "published models (19): min · median · max" in text
    line = next(x for x in text.splitlines() if x.startswith("| Game theory | Practical |"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    scored = steer("score", "pd", "rpd", "--published", str(csv), cwd=folder)
    assert scored.returncode == 0, scored.stderr
    after = scored.stdout.split("Rationality Check domain scores")[1]
    ref = next(x for x in after.splitlines() if x.startswith("Game theory") and "Practical" in x)
    # score: domain type models… Human min–max; report: models (nearest …) humans spread
    ref_cells = ref.split()
    lo, hi = ref_cells[-1].split("–")
    spread = cells[-1].split(" · ")
    assert (spread[0], spread[2]) == (lo, hi) and cells[-2] == ref_cells[-2] == "0.720"
    mine = [c.split(" ")[0] for c in cells[2:-2]]
    assert mine == ref_cells[3:-2]


@needs_browser
def test_the_games_section_fits_the_window(folder: Path) -> None:
    pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    from browser import chromium
    from test_report_layout import MEASURE

    done = steer("report", "pd", "rpd", "-r", "rationality-check", "--published",
                 "published.csv", "-o", "layout.html", cwd=folder)  # fmt: skip
    assert done.returncode == 0, done.stderr
    with chromium(1280, 1000) as driver:
        driver.get((folder / "layout.html").as_uri())
        problems = driver.execute_script(MEASURE)
        assert problems == [], problems[:10]
        driver.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
        assert driver.execute_script(MEASURE) == []
