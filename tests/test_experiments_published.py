"""The experiment designs reproduce the published grids' numbers (LLM
economicus, regenerated into ../shared/fixtures/llm_economicus/grids.json):
the seven sure amounts of every prospect, the mixed gambles' break-even gains
and gains as the paper coded them, and the waiting game's 217 choices."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from steer.experiments import ladder, load_grid, mixed_gains


@pytest.fixture(scope="module")
def grids(shared_fixtures: Path) -> dict[str, Any]:
    return json.loads((shared_fixtures / "llm_economicus" / "grids.json").read_text())


def test_tk1992_prospects_and_sure_amounts(grids: dict[str, Any]) -> None:
    ours = load_grid("gambling").rows
    published = grids["gambling_tk1992_56"]
    assert len(ours) == len(published) == 56
    for row, ref in zip(ours, published, strict=True):
        assert (row.x1, row.p1, row.x2, row.p2) == (ref["x1"], ref["p1"], ref["x2"], ref["p2"])
        assert sorted(ladder(row.x1, row.x2), reverse=row.x2 > 0) == pytest.approx(
            ref["sure_options_desc"] if row.x2 > 0 else sorted(ref["sure_options_desc"])
        )


def test_mixed_gambles_as_the_paper_coded_them(grids: dict[str, Any]) -> None:
    ours = load_grid("mixed-gamble").rows
    published = grids["mixed_gambles_code_20"]
    assert [(r.loss, r.p_loss) for r in ours] == [(m["loss"], m["p_loss"]) for m in published]
    for row, ref in zip(ours, published, strict=True):
        breakeven = -row.loss * row.p_loss / (1 - row.p_loss)
        assert breakeven == pytest.approx(ref["breakeven_gain"], abs=1e-4)
        # The paper's ladder (0.75 to 1.75 times break-even); steer ships a wider one.
        assert sorted(mixed_gains(row.loss, row.p_loss), reverse=True) == pytest.approx(
            ref["gains_as_coded"], abs=0.011
        )


def test_waiting_game_settings(grids: dict[str, Any]) -> None:
    published = {(w["delayed"], w["immediate"]) for w in grids["waiting_217"]}
    ours = {
        (f"${row.amount:.0f} in {row.delay}", now)
        for row in load_grid("waiting").rows
        for now in row.immediate
    }
    assert ours == published and len(ours) == 217


def test_ultimatum_pools(grids: dict[str, Any]) -> None:
    offers = [r.offer for r in load_grid("ultimatum-responder").rows]
    assert sorted(offers, reverse=True) == grids["ultimatum"]["responder_offers"]
    pools = {r.pool for r in load_grid("ultimatum-proposer").rows}
    assert pools <= set(grids["ultimatum"]["proposer_pools"])
