"""The element dependency graph (`steer plot dependency-graph`): the layered
layout's properties on random DAGs, labels inside their boxes and nothing
clipped at 3 elements and the whole taxonomy, colours by score (grey: not
graded), graphviz `dot` used when present, deterministic files, and the
command end to end."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib import colormaps
from matplotlib.colors import Normalize, to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch

from figure_checks import assert_laid_out
from steer.bank import write_bank
from steer.cli.plot_cmd import _dependency_graph
from steer.generate import generate_bank
from steer.run import run_bank
from steer.taxonomy import element_order, load_taxonomy
from steer.view import dependency_graph_figure, layered_layout, save_figure

MODEL = "openai:gpt-4o-2024-08-06 · mc;shots=0;cot=none;prob=conditioning;order=shuffle:3/2"


@st.composite
def dags(draw: st.DrawFn) -> tuple[list[str], list[tuple[str, str]]]:
    """A random DAG: edges only from a lower to a higher rank, nodes listed in
    a shuffled order (so the input is not already topological)."""
    n = draw(st.integers(1, 18))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    chosen = draw(st.lists(st.sampled_from(pairs), max_size=40, unique=True)) if pairs else []
    names = [f"e{i}" for i in range(n)]
    order = draw(st.permutations(names))
    return list(order), [(names[i], names[j]) for i, j in chosen]


def _count_crossings(routes: dict[tuple[str, str], tuple[tuple[int, float], ...]]) -> int:
    """Crossings between consecutive layers, from the routes alone."""
    segments = [seg for route in routes.values() for seg in itertools.pairwise(route)]
    total = 0
    for ((la, a0), (_, a1)), ((lb, b0), (_, b1)) in itertools.combinations(segments, 2):
        if la == lb and (a0 - b0) * (a1 - b1) < 0:
            total += 1
    return total


@settings(max_examples=150, deadline=None)
@given(dags())
def test_layering_properties(dag: tuple[list[str], list[tuple[str, str]]]) -> None:
    nodes, edges = dag
    lay = layered_layout(nodes, edges)
    assert set(lay.layer) == set(nodes) == set(lay.position)
    preds = {n: [s for s, t in edges if t == n] for n in nodes}
    for s, t in edges:
        assert lay.layer[s] < lay.layer[t]  # every edge points to a higher layer
    for n in nodes:  # longest-path layering: right after the furthest prerequisite
        assert lay.layer[n] == 1 + max((lay.layer[p] for p in preds[n]), default=-1)
    by_layer: dict[int, list[float]] = {}
    for n in nodes:
        by_layer.setdefault(lay.layer[n], []).append(lay.position[n])
    for places in by_layer.values():  # no two nodes of a layer overlap
        places.sort()
        assert all(b - a >= 1 - 1e-9 for a, b in itertools.pairwise(places))
    assert set(lay.routes) == set(edges)
    for (s, t), route in lay.routes.items():
        assert route[0] == (lay.layer[s], lay.position[s])
        assert route[-1] == (lay.layer[t], lay.position[t])
        assert [li for li, _ in route] == list(range(lay.layer[s], lay.layer[t] + 1))
        for li, p in route[1:-1]:  # a long edge's waypoints clear every node
            assert all(abs(p - q) >= 0.5 - 1e-9 for q in by_layer[li])
    assert lay.crossings == _count_crossings(lay.routes)


def test_barycentre_ordering_removes_an_avoidable_crossing() -> None:
    # In input order a→d and b→c cross; swapping c and d removes it.
    lay = layered_layout(["a", "b", "c", "d"], [("a", "d"), ("b", "c")])
    assert lay.crossings == 0
    assert (lay.position["a"] < lay.position["b"]) == (lay.position["d"] < lay.position["c"])


def test_the_taxonomy_lays_out_with_few_crossings() -> None:
    taxonomy = load_taxonomy()
    nodes = sorted(taxonomy.elements, key=element_order)
    edges = [(r, e.id) for e in taxonomy for r in e.requires]
    unordered = layered_layout(nodes, edges, sweeps=0)
    ordered = layered_layout(nodes, edges)
    assert ordered.crossings < unordered.crossings / 3


def test_bad_graphs_are_refused() -> None:
    with pytest.raises(ValueError, match="cycle: a → b → a"):
        layered_layout(["a", "b"], [("a", "b"), ("b", "a")])
    with pytest.raises(ValueError, match="'z' is not a node"):
        layered_layout(["a"], [("a", "z")])


def _taxonomy_graph(
    size: int | None,
) -> tuple[list[str], list[tuple[str, str]], dict[str, float | None]]:
    """The whole taxonomy (size None) or the first `size` elements of
    steer.3.1.b's prerequisite graph, with seeded scores (some missing)."""
    taxonomy = load_taxonomy()
    if size is None:
        nodes = sorted(taxonomy.elements, key=element_order)
    else:
        nodes = list(taxonomy.prerequisites("steer.3.1.b").nodes)[:size]
    edges = [(r, n) for n in nodes for r in taxonomy.elements[n].requires if r in nodes]
    rng = np.random.default_rng(2)
    values = {n: float(rng.uniform(-0.3, 1)) if rng.random() > 0.2 else None for n in nodes}
    values[nodes[0]], values[nodes[-1]] = 0.5, None  # one graded, one not, at least
    return nodes, edges, values


def _nodes(fig: Figure) -> dict[str, FancyBboxPatch]:
    (ax, *_) = fig.axes
    return {
        str(p.get_gid()).removeprefix("node-"): p
        for p in ax.patches
        if isinstance(p, FancyBboxPatch) and str(p.get_gid()).startswith("node-")
    }


@pytest.mark.parametrize("size", [3, None])
def test_laid_out_labels_inside_boxes_and_coloured_by_score(size: int | None) -> None:
    nodes, edges, values = _taxonomy_graph(size)
    assert len(nodes) == (size or 122)
    fig = dependency_graph_figure(nodes, edges, values, title=MODEL, engine="layered")
    assert_laid_out(fig)
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    boxes = _nodes(fig)
    assert set(boxes) == set(nodes)
    ax = fig.axes[0]
    labels = {str(t.get_gid()).removeprefix("label-"): t for t in ax.texts}
    canvas = fig.bbox
    extents = {n: b.get_window_extent(renderer) for n, b in boxes.items()}
    for n in nodes:
        text = labels[n].get_window_extent(renderer)
        box = extents[n]
        assert box.x0 <= text.x0 and text.x1 <= box.x1 and box.y0 <= text.y0 and text.y1 <= box.y1
        assert canvas.x0 <= box.x0 and box.x1 <= canvas.x1 and canvas.y0 <= box.y0
        assert box.y1 <= canvas.y1
        short = n.split(".", 1)[1]
        v = values[n]
        assert labels[n].get_text() == f"{short}\n{'–' if v is None else f'{v:.2f}'}"
    for a, b in itertools.combinations(nodes, 2):  # no two boxes overlap
        assert not extents[a].overlaps(extents[b]), (a, b)
    # cividis on the heatmap's scale; grey for not graded.
    finite = [v for v in values.values() if v is not None]
    norm = Normalize(min(0.0, *finite), 1.0)
    for n in nodes:
        v = values[n]
        want = to_rgba("#dddddd") if v is None else colormaps["cividis"](norm(v))
        np.testing.assert_allclose(np.asarray(boxes[n].get_facecolor()), np.asarray(want))
    assert len([p for p in ax.patches if (p.get_gid() or "").startswith("edge-")]) == len(edges)
    assert "normalized accuracy" in fig.axes[1].get_xlabel()
    assert any("layered layout" in t.get_text() for t in fig.texts)


def test_files_are_deterministic(tmp_path: Path) -> None:
    nodes, edges, values = _taxonomy_graph(3)
    for suffix in ("svg", "pdf"):
        first, second = tmp_path / f"1.{suffix}", tmp_path / f"2.{suffix}"
        save_figure(dependency_graph_figure(nodes, edges, values, engine="layered"), first)
        save_figure(dependency_graph_figure(nodes, edges, values, engine="layered"), second)
        assert first.read_bytes() == second.read_bytes()


# `dot -Tplain` of the three-node graph n0 → n1 → n2, n0 → n2 (graphviz 2.42).
PLAIN = """graph 1 2.5 0.70833
node n0 0.25 0.20139 0.5 0.40278 "" solid box black lightgrey
node n1 1.25 0.50694 0.5 0.40278 "" solid box black lightgrey
node n2 2.25 0.20139 0.5 0.40278 "" solid box black lightgrey
edge n0 n1 4 0.50421 0.27692 0.61253 0.31096 0.74294 0.35195 0.86348 0.38983 solid black
edge n0 n2 4 0.50256 0.19575 0.64661 0.19262 0.83384 0.18907 1.8556 0.19284 solid black
edge n1 n2 4 1.5042 0.43141 1.6125 0.39737 1.7429 0.35639 1.8635 0.3185 solid black
stop
"""


def _fake_dot(folder: Path, body: str) -> None:
    folder.mkdir()
    dot = folder / "dot"
    dot.write_text(f"#!/bin/sh\ncat > /dev/null\n{body}\n")
    dot.chmod(0o755)


def test_graphviz_dot_places_the_nodes_when_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nodes, edges = ["a", "b", "c"], [("a", "b"), ("b", "c"), ("a", "c")]
    _fake_dot(tmp_path / "good", f"cat <<'EOF'\n{PLAIN}EOF")
    monkeypatch.setenv("PATH", f"{tmp_path / 'good'}{os.pathsep}{os.environ['PATH']}")
    fig = dependency_graph_figure(nodes, edges, {"a": 0.2})
    assert any("graphviz dot" in t.get_text() for t in fig.texts)
    centres = {n: (b.get_x() + b.get_width() / 2, b.get_y() + b.get_height() / 2)
               for n, b in _nodes(fig).items()}  # fmt: skip
    margin = 0.15
    assert centres["b"] == pytest.approx((1.25 + margin, 0.50694 + margin))
    assert centres["c"] == pytest.approx((2.25 + margin, 0.20139 + margin))
    assert_laid_out(fig)
    # engine="layered" never asks dot; a failing dot falls back to the layered layout.
    layered = dependency_graph_figure(nodes, edges, {}, engine="layered")
    assert any("layered layout" in t.get_text() for t in layered.texts)
    _fake_dot(tmp_path / "bad", "exit 3")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bad'}{os.pathsep}{os.environ['PATH']}")
    fallback = dependency_graph_figure(nodes, edges, {}, engine="dot")
    assert any("layered layout" in t.get_text() for t in fallback.texts)


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz dot is not installed")
def test_real_dot_lays_out_the_whole_taxonomy() -> None:
    nodes, edges, values = _taxonomy_graph(None)
    fig = dependency_graph_figure(nodes, edges, values, engine="dot")
    assert any("graphviz dot" in t.get_text() for t in fig.texts)
    assert_laid_out(fig)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("dependency_graph")
    bank = root / "bank.parquet"
    write_bank(generate_bank(["1.1.c", "3.1.b"], per_cell=3, seed=7), bank)
    out = {}
    for agent in ("oracle", "random"):
        out[agent] = root / agent
        run_bank(bank, f"agent:{agent}", out[agent])
    return out


def test_the_command_draws_a_models_graded_elements_and_their_prerequisites(
    runs: dict[str, Path],
) -> None:
    from steer.cli._grade_options import setup
    from steer.rubric import grade

    both = [runs["oracle"], runs["random"]]
    fig = _dependency_graph(both, None, None, None, "agent:random")
    assert fig.texts[0].get_text().startswith("agent:random")
    taxonomy = load_taxonomy()
    want = {"steer.1.1.c", "steer.3.1.b"}
    for e in ("steer.1.1.c", "steer.3.1.b"):
        want |= set(taxonomy.prerequisites(e).nodes)
    assert set(_nodes(fig)) == want
    result = grade(both, setup(None, [], []).loaded)  # the rubric the command grades with
    card = next(c for c in result.cards if c.model == "agent:random")
    labels = {str(t.get_gid()).removeprefix("label-"): t.get_text() for t in fig.axes[0].texts}
    for e in want:
        v = card.elements[e].value(result.metric) if e in card.elements else None
        assert labels[e].split("\n")[1] == ("–" if v is None else f"{round(v, 2) + 0.0:.2f}")
    # Without --model: the first card, as `steer grade` lists them.
    first = _dependency_graph(both, None, None, None, None)
    assert first.texts[0].get_text().startswith("agent:oracle")


def _steer(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "steer", *args], capture_output=True,
                          text=True, timeout=120)  # fmt: skip


def test_steer_plot_dependency_graph_end_to_end(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "g.svg"
    done = _steer("plot", "dependency-graph", str(runs["random"]), "-o", str(out))
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert text.startswith("<?xml") and 'id="node-steer.3.1.b"' in text
    not_a_run = tmp_path / "empty"
    not_a_run.mkdir()
    cases = [
        (["plot", "dependency-graph", str(not_a_run), "-o", str(tmp_path / "x.svg")],
         f"{not_a_run}: not a run directory"),
        (["plot", "dependency-graph", str(runs["oracle"]), str(runs["random"]), "--model",
          "agent", "-o", str(tmp_path / "x.svg")], "the dependency graph draws one"),
    ]  # fmt: skip
    for args, message in cases:
        bad = _steer(*args)
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.svg").exists()
