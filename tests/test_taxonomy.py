"""The shipped STEER / STEER-ME taxonomy, its lookups, and the checks on taxonomy files."""

from __future__ import annotations

import graphlib
import itertools
import re
import tomllib
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.errors import FileFormatError, InputError, UnknownNameError
from steer.taxonomy import Element, Taxonomy, load_taxonomy, load_taxonomy_files
from steer.taxonomy._graph import ancestors, find_cycle
from steer.taxonomy._model import Benchmark

# --- reference data, transcribed from /work/shared (REFERENCES.md, TAXONOMY.md) ---------

# REFERENCES.md "STEER taxonomy": grade levels from the authors' element list, keyed by
# the element's short id, with the slug TAXONOMY.md gives it.
PAPER_GRADES: dict[str, tuple[str, tuple[int, int]]] = {
    "1.1.a": ("add_sub", (0, 2)),
    "1.1.b": ("mult_div", (1, 3)),
    "1.1.c": ("compute_expectations", (3, 4)),
    "1.2.a": ("micro_utility", (0, 1)),  # optimize over discrete set
    "1.2.b": ("optimize_continuous", (2, 3)),
    "1.2.c": ("constrained_optimization", (3, 4)),
    "1.3.a": ("prob_basic", (1, 3)),  # probabilities
    "1.3.b": ("complement_rule", (1, 2)),
    "1.3.c": ("bayes_rule", (5, 6)),
    "1.4.a": ("categorical_syllogism", (2, 2)),  # logic
    "1.4.b": ("conditional_syllogism", (2, 2)),
    "1.4.c": ("equiv_contrapositive", (2, 2)),
    "1.5.a": ("first_order_false_belief", (3, 3)),
    "1.5.b": ("second_order_false_belief", (4, 4)),
    "2.1.a": ("completeness", (1, 2)),
    "2.1.b": ("transitivity", (2, 3)),
    "2.1.c": ("independence", (4, 4)),
    "2.2.a": ("sunk_cost", (7, 7)),
    "2.2.b": ("endowment_effect", (6, 6)),
    "2.2.c": ("time_inconsistency", (5, 5)),
    "2.3.a": ("completeness_risk", (1, 2)),  # lottery completeness
    "2.3.b": ("transitivity_risk", (2, 3)),
    "2.3.c": ("independence_risk", (4, 4)),
    "2.4.a": ("compute_expected_utility", (3, 5)),
    "2.4.b": ("maximize_expected_utility", (3, 5)),
    "2.4.c": ("risk_averse", (6, 6)),
    "2.4.d": ("risk_seeking", (6, 6)),
    "2.4.e": ("loss_aversion", (6, 6)),
    "2.5.a": ("gamblers_fallacy", (4, 4)),
    "2.5.b": ("certainty_effect", (6, 6)),
    "2.5.c": ("reflection_effect", (6, 6)),
    "2.5.d": ("ambiguity_aversion", (7, 7)),
    "3.1.a": ("interpret_games", (2, 4)),
    "3.1.b": ("best_response", (3, 4)),
    "3.1.c": ("dominant_strategies", (3, 4)),
    "3.1.d": ("dominated_strategies", (3, 4)),
    "3.1.e": ("iterated_removal", (5, 5)),  # IRDS
    "3.1.f": ("pure_nash", (9, 11)),
    "3.1.g": ("level_k", (6, 6)),
    "3.2.a": ("backward_induction", (10, 11)),
    "3.2.b": ("subgame_nash", (10, 11)),  # SPNE
    "3.3.a": ("sequential_equilibrium", (13, 13)),
    "3.4.a": ("feasibility", (10, 10)),
    "3.4.b": ("enforceability", (10, 10)),
    "3.4.c": ("trigger", (11, 11)),
    "3.5.a": ("bayes_nash", (13, 13)),
    "3.5.b": ("subgame_bayes_nash", (14, 14)),
    "4.1.a": ("pareto_sc", (3, 3)),  # social-choice axioms
    "4.1.b": ("sc_monotonicity_rules", (3, 3)),
    "4.1.c": ("sc_transitivity_rules", (3, 3)),
    "4.1.d": ("sc_nondictatorship", (3, 3)),
    "4.2.a": ("plurality_voting", (6, 6)),
    "4.2.b": ("borda_count", (8, 8)),
    "4.2.c": ("copeland_method", (9, 9)),
    "4.2.d": ("fair_division", (10, 10)),
    "4.3.a": ("dsic_mechanism", (13, 13)),
    "4.3.b": ("bic_mechanism", (14, 14)),
    "4.3.c": ("ir_mechanism", (9, 9)),
    "4.3.d": ("budget_balance", (10, 10)),
    "4.4.a": ("top_trading", (13, 13)),
    "4.4.b": ("auctions_risk", (11, 11)),
    "4.4.c": ("auctions_affiliated", (12, 12)),
}
# STEER elements without published grade levels: Condorcet winner (in TAXONOMY.md without
# grades) and steer's own 64th element, mixed Nash equilibria.
STEER_OWN_GRADES = {"4.2.e": "condorcet_criterion", "3.1.h": "mixed_nash"}

# STEER modules per setting (REFERENCES.md) and STEER-ME elements per module (TAXONOMY.md).
STEER_MODULES = {
    "steer.1": ["1.1", "1.2", "1.3", "1.4", "1.5"],
    "steer.2": ["2.1", "2.2", "2.3", "2.4", "2.5"],
    "steer.3": ["3.1", "3.2", "3.3", "3.4", "3.5"],
    "steer.4": ["4.1", "4.2", "4.3", "4.4"],
}
STEER_ME_MODULES: dict[str, range] = {
    "steer-me.1.1": range(1, 6),
    "steer-me.1.2": range(6, 9),
    "steer-me.1.3": range(9, 14),
    "steer-me.1.4": range(14, 17),
    "steer-me.1.5": range(17, 23),
    "steer-me.2.1": range(23, 30),
    "steer-me.2.2": range(30, 33),
    "steer-me.2.3": range(33, 37),
    "steer-me.2.4": range(37, 39),
    "steer-me.3.1": range(39, 41),
    "steer-me.3.2": range(41, 45),
    "steer-me.3.3": range(45, 47),
    "steer-me.3.4": range(47, 49),
    "steer-me.4.1": range(49, 55),
    "steer-me.4.2": range(55, 59),
}


@pytest.fixture(scope="module")
def tax() -> Taxonomy:
    return load_taxonomy()


def reference_closure(adjacency: Mapping[str, Sequence[str]], start: str) -> set[str]:
    """Plain BFS: every node reachable from `start` (excluding `start`)."""
    seen: set[str] = set()
    queue = deque(adjacency.get(start, ()))
    while queue:
        node = queue.popleft()
        if node not in seen:
            seen.add(node)
            queue.extend(adjacency.get(node, ()))
    return seen


def reverse_of(tax: Taxonomy) -> dict[str, list[str]]:
    reverse: dict[str, list[str]] = {e.id: [] for e in tax}
    for e in tax:
        for r in e.requires:
            reverse[r].append(e.id)
    return reverse


# --- the shipped taxonomy -------------------------------------------------------------


def test_element_counts(tax: Taxonomy) -> None:
    assert len(tax) == 122
    assert len([e for e in tax if e.benchmark == "steer"]) == 64
    assert len([e for e in tax if e.benchmark == "steer-me"]) == 58
    assert {s for s in tax.settings} == {
        *(f"steer.{i}" for i in range(1, 5)),
        *(f"steer-me.{i}" for i in range(1, 5)),
    }


def test_raw_files_have_unique_ids_and_slugs(root: Path) -> None:
    """Parse the shipped TOML independently: a dict would hide repeated ids."""
    files = sorted((root / "templates" / "taxonomy").glob("*.toml"))
    assert [f.name for f in files] == ["steer-me.toml", "steer.toml"]
    ids: list[str] = []
    names: list[str] = []
    n_elements = 0
    for f in files:
        data = tomllib.loads(f.read_text(encoding="utf-8"))
        for kind in ("setting", "module", "element"):
            ids += [r["id"] for r in data[kind]]
        n_elements += len(data["element"])
        for e in data["element"]:
            names += [e["slug"], *e.get("aliases", [])]
    assert n_elements == 122
    assert len(ids) == len(set(ids)) == 8 + 34 + 122
    assert len(names) == len(set(names))


def test_steer_ids_and_slugs_match_the_papers(tax: Taxonomy) -> None:
    steer = {e.label: e.slug for e in tax if e.benchmark == "steer"}
    expected = {label: slug for label, (slug, _) in PAPER_GRADES.items()} | STEER_OWN_GRADES
    assert steer == expected


def test_steer_me_ids_are_a1_to_a58(tax: Taxonomy) -> None:
    labels = sorted((e.label for e in tax if e.benchmark == "steer-me"), key=lambda s: int(s[2:]))
    assert labels == [f"A.{i}" for i in range(1, 59)]


def test_every_element_module_and_setting_exist(tax: Taxonomy) -> None:
    for e in tax:
        assert e.module in tax.modules, e.id
        assert e.setting in tax.settings, e.id
        module = tax.modules[e.module]
        assert module.setting == e.setting, e.id
        assert module.benchmark == e.benchmark == tax.settings[e.setting].benchmark
        assert e.id.startswith(f"{e.benchmark}.")
        if e.benchmark == "steer":
            assert e.module == e.id.rsplit(".", 1)[0]


def test_module_layout(tax: Taxonomy) -> None:
    for setting, labels in STEER_MODULES.items():
        got = sorted(m.label for m in tax.modules.values() if m.setting == setting)
        assert got == labels
    assert len([m for m in tax.modules.values() if m.benchmark == "steer"]) == 19
    for module, numbers in STEER_ME_MODULES.items():
        got = sorted(int(e.label[2:]) for e in tax.elements_of(module))
        assert got == list(numbers), module
    assert {m.id for m in tax.modules.values() if m.benchmark == "steer-me"} == set(
        STEER_ME_MODULES
    )


def test_dependency_graph_is_acyclic_and_resolves(tax: Taxonomy) -> None:
    graph = {e.id: list(e.requires) for e in tax}
    for e in tax:
        for r in e.requires:
            assert r in tax, f"{e.id} requires unknown {r}"
        assert len(set(e.requires)) == len(e.requires), e.id
    order = list(graphlib.TopologicalSorter(graph).static_order())  # raises on a cycle
    assert sorted(order) == sorted(graph)
    assert find_cycle(graph) is None


def test_paper_grades_match_references(tax: Taxonomy) -> None:
    paper = {e.label: (e.slug, e.grades) for e in tax if e.grade_source == "paper"}
    assert paper == PAPER_GRADES
    for e in tax:
        lo, hi = e.grades
        assert 0 <= lo <= hi <= 14, e.id
        if e.benchmark == "steer-me":
            assert e.grade_source == "steer"  # no published STEER-ME grade levels


def test_mandatory_chain(tax: Taxonomy) -> None:
    requires = {e.id: set(e.requires) for e in tax}
    assert "steer.3.1.e" in requires["steer.3.1.f"]
    assert "steer.3.1.d" in requires["steer.3.1.e"]
    assert "steer.3.1.b" in requires["steer.3.1.d"]
    assert {"steer.3.1.a", "steer.1.2.a"} <= requires["steer.3.1.b"]
    chain = set(tax.prerequisites("pure_nash").nodes)
    assert {"steer.3.1.e", "steer.3.1.d", "steer.3.1.b", "steer.3.1.a", "steer.1.2.a"} <= chain


# --- lookup ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("steer.3.1.b", "steer.3.1.b"),
        ("3.1.b", "steer.3.1.b"),
        ("best_response", "steer.3.1.b"),
        ("steer-me.A.12", "steer-me.A.12"),
        ("A.12", "steer-me.A.12"),
        ("1.2.a", "steer.1.2.a"),
        ("micro_utility", "steer.1.2.a"),
    ],
)
def test_find_and_element_accept_ids_short_ids_and_slugs(
    tax: Taxonomy, name: str, expected: str
) -> None:
    found = tax.find(name)
    assert found is not None
    assert found.id == expected
    assert tax.element(name).id == expected


def test_every_element_is_found_by_each_of_its_names(tax: Taxonomy) -> None:
    for e in tax:
        for name in (e.id, e.label, e.slug, *e.aliases):
            assert tax.element(name) is e


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [
        ("best_respnse", "best_response"),
        ("steer.3.1.bb", "steer.3.1.b"),
        ("compute_expectation", "compute_expectations"),
    ],
)
def test_unknown_name_suggests(tax: Taxonomy, name: str, suggestion: str) -> None:
    assert tax.find(name) is None
    with pytest.raises(UnknownNameError) as info:
        tax.element(name)
    err = info.value
    assert isinstance(err, InputError)
    assert isinstance(err, KeyError)
    assert err.name == name
    assert suggestion in err.suggestions
    assert f"unknown element {name!r}" in str(err)
    assert "did you mean" in str(err)
    assert repr(suggestion) in str(err)


def test_unknown_name_without_any_close_match(tax: Taxonomy) -> None:
    with pytest.raises(UnknownNameError) as info:
        tax.element("zzzzzzzzzzzz")
    assert str(info.value) == "unknown element 'zzzzzzzzzzzz'"


# --- selection and filters ------------------------------------------------------------


def ids(elements: list[Element]) -> list[str]:
    return [e.id for e in elements]


def test_select_prefix(tax: Taxonomy) -> None:
    got = ids(tax.select("steer.3.1"))
    assert got == [f"steer.3.1.{c}" for c in "abcdefgh"]
    assert ids(tax.select("steer.3")) == [e.id for e in tax if e.setting == "steer.3"]
    # "steer." is not a prefix of "steer-me." ids
    assert ids(tax.select("steer")) == [e.id for e in tax if e.benchmark == "steer"]


def test_select_globs(tax: Taxonomy) -> None:
    assert set(ids(tax.select("steer.2.*.a"))) == {f"steer.2.{m}.a" for m in range(1, 6)}
    expected = {"steer-me.A.1", *(f"steer-me.A.{i}" for i in range(10, 20))}
    assert set(ids(tax.select("steer-me.A.1*"))) == expected
    assert set(ids(tax.select("steer.3.1.?"))) == {f"steer.3.1.{c}" for c in "abcdefgh"}
    assert set(ids(tax.select("steer.4.[12].a"))) == {"steer.4.1.a", "steer.4.2.a"}


def test_prefixes_and_globs_may_leave_out_the_benchmark(tax: Taxonomy) -> None:
    """`steer generate --elements 3.1.*` reads like the short ids it selects."""
    assert ids(tax.select("3.1.*")) == ids(tax.select("steer.3.1.*"))
    assert ids(tax.select("3.1")) == ids(tax.select("steer.3.1"))
    assert ids(tax.select("A.1?")) == [f"steer-me.A.{i}" for i in range(10, 20)]
    assert ids(tax.select("9.*")) == []


def test_select_single_element_beats_prefix(tax: Taxonomy) -> None:
    assert ids(tax.select("steer-me.A.1")) == ["steer-me.A.1"]
    assert ids(tax.select("A.1")) == ["steer-me.A.1"]
    assert ids(tax.select("best_response")) == ["steer.3.1.b"]
    assert ids(tax.select("3.1.b")) == ["steer.3.1.b"]


def test_select_module_and_setting_ids(tax: Taxonomy) -> None:
    # STEER-ME ids do not encode their module, so these are not id prefixes.
    assert ids(tax.select("steer-me.1.2")) == ["steer-me.A.6", "steer-me.A.7", "steer-me.A.8"]
    assert ids(tax.select("steer-me.4")) == [f"steer-me.A.{i}" for i in range(49, 59)]
    for group in tax.modules:
        assert ids(tax.select(group)) == ids(tax.elements_of(group)), group
    for group in tax.settings:
        assert ids(tax.select(group)) == ids(tax.elements_of(group)), group


def test_elements_of_unknown_group(tax: Taxonomy) -> None:
    with pytest.raises(UnknownNameError, match=r"did you mean 'steer\.3\.1'"):
        tax.elements_of("steer.3.1x")


def test_filter_by_benchmark_and_setting(tax: Taxonomy) -> None:
    assert len(tax.filter(benchmark="steer")) == 64
    assert len(tax.filter(benchmark="steer-me")) == 58
    setting_3 = [e for e in tax if e.setting == "steer.3"]
    assert tax.filter(setting="steer.3") == setting_3
    assert tax.filter(setting="3") == setting_3
    assert ids(tax.filter(setting="steer-me.2")) == [f"steer-me.A.{i}" for i in range(23, 39)]
    assert ids(tax.filter(benchmark="steer", grades=(0, 0))) == ["steer.1.1.a", "steer.1.2.a"]
    assert tax.filter() == list(tax)
    with pytest.raises(UnknownNameError, match="unknown setting '9'"):
        tax.filter(setting="9")


@settings(max_examples=60, deadline=None, database=None)
@given(
    bounds=st.tuples(st.integers(0, 14), st.integers(0, 14)).map(sorted),
    benchmark=st.sampled_from([None, "steer", "steer-me"]),
    setting=st.sampled_from([None, "steer.1", "steer.3", "steer-me.2"]),
)
def test_filter_matches_reference(
    bounds: list[int], benchmark: Benchmark | None, setting: str | None
) -> None:
    tax = load_taxonomy()
    lo, hi = bounds
    expected = [
        e.id
        for e in tax
        if (benchmark is None or e.benchmark == benchmark)
        and (setting is None or e.setting == setting)
        and e.grades[0] <= hi
        and e.grades[1] >= lo
    ]
    got = tax.filter(benchmark=benchmark, setting=setting, grades=(lo, hi))
    assert ids(got) == expected


# --- the dependency graph -------------------------------------------------------------


def test_prerequisites_match_reference_bfs(tax: Taxonomy) -> None:
    requires = {e.id: list(e.requires) for e in tax}
    for e in tax:
        sub = tax.prerequisites(e.id)
        assert sub.root == e.id
        assert sub.nodes[0] == e.id
        assert len(set(sub.nodes)) == len(sub.nodes)
        assert set(sub.nodes) == {e.id} | reference_closure(requires, e.id)
        assert set(sub.edges) == {(n, r) for n in sub.nodes for r in requires[n]}
        assert len(set(sub.edges)) == len(sub.edges)


def test_dependents_match_reference_bfs(tax: Taxonomy) -> None:
    reverse = reverse_of(tax)
    for e in tax:
        sub = tax.dependents(e.id)
        assert sub.root == e.id
        assert sub.nodes[0] == e.id
        assert len(set(sub.nodes)) == len(sub.nodes)
        assert set(sub.nodes) == {e.id} | reference_closure(reverse, e.id)
        # edges keep the (element, prerequisite) direction
        assert set(sub.edges) == {(d, n) for n in sub.nodes for d in reverse[n]}
        for dependent, prerequisite in sub.edges:
            assert prerequisite in tax.elements[dependent].requires


def test_subgraphs_by_short_name(tax: Taxonomy) -> None:
    assert tax.prerequisites("3.1.f") == tax.prerequisites("pure_nash")
    assert tax.prerequisites("add_sub").nodes == ("steer.1.1.a",)
    assert "steer.3.1.f" in tax.dependents("micro_utility").nodes
    with pytest.raises(UnknownNameError):
        tax.prerequisites("no_such_element")


def test_topological_order_puts_prerequisites_first(tax: Taxonomy) -> None:
    order = tax.topological_order()
    assert sorted(order) == sorted(tax.elements)
    position = {node: i for i, node in enumerate(order)}
    for e in tax:
        for r in e.requires:
            assert position[r] < position[e.id], (r, e.id)


# --- find_cycle / ancestors against graphlib and a reference BFS ----------------------

NODES = list("abcdefgh")
graphs = st.dictionaries(
    st.sampled_from(NODES), st.lists(st.sampled_from(NODES), max_size=4), max_size=8
)


@settings(max_examples=300, deadline=None, database=None)
@given(graphs)
def test_find_cycle_agrees_with_graphlib(graph: dict[str, list[str]]) -> None:
    try:
        list(graphlib.TopologicalSorter(graph).static_order())
        acyclic = True
    except graphlib.CycleError:
        acyclic = False
    cycle = find_cycle(graph)
    assert (cycle is None) == acyclic
    if cycle is not None:
        assert len(cycle) >= 2
        assert cycle[0] == cycle[-1]
        assert len(set(cycle[:-1])) == len(cycle) - 1  # a simple cycle
        for a, b in itertools.pairwise(cycle):
            assert b in graph.get(a, []), (a, b)


@settings(max_examples=200, deadline=None, database=None)
@given(graphs, st.sampled_from(NODES))
def test_ancestors_match_reference_bfs(graph: dict[str, list[str]], start: str) -> None:
    got = ancestors(graph, start)
    assert len(got) == len(set(got))
    assert set(got) == reference_closure(graph, start)


# --- bad taxonomy files ---------------------------------------------------------------

HEAD = """\
benchmark = "steer"
title = "Test"

[[setting]]
id = "steer.1"
name = "One"

[[module]]
id = "steer.1.1"
name = "First"
"""


def element(
    id_: str,
    slug: str,
    *,
    grades: str = "[1, 2]",
    requires: str = "[]",
    extra: str = "",
) -> str:
    return f"""
[[element]]
id = "{id_}"
slug = "{slug}"
name = "Element {slug}"
definition = "Does {slug}."
grades = {grades}
grade_source = "paper"
requires = {requires}
{extra}"""


def write(tmp_path: Path, text: str, name: str = "tax.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def line_of(text: str, line: str, nth: int = 1) -> int:
    """1-based number of the `nth` line equal to `line` (reference for error locations)."""
    numbers = [i for i, got in enumerate(text.splitlines(), start=1) if got == line]
    return numbers[nth - 1]


def load_error(*paths: Path) -> FileFormatError:
    with pytest.raises(FileFormatError) as info:
        load_taxonomy_files(list(paths))
    err = info.value
    assert isinstance(err, InputError)
    assert "\n" not in str(err)
    return err


def test_valid_small_file_loads(tmp_path: Path) -> None:
    text = (
        HEAD + element("steer.1.1.a", "a") + element("steer.1.1.b", "b", requires='["steer.1.1.a"]')
    )
    tax = load_taxonomy_files([write(tmp_path, text)])
    assert len(tax) == 2
    assert tax.element("b").requires == ("steer.1.1.a",)
    assert tax.topological_order() == ["steer.1.1.a", "steer.1.1.b"]


def test_toml_syntax_error(tmp_path: Path) -> None:
    text = HEAD + element("steer.1.1.a", "a") + "\n[[element]\nid = 3\n"
    path = write(tmp_path, text)
    err = load_error(path)
    assert err.source == str(path)
    bad_line = line_of(text, "[[element]")
    assert str(err).startswith(f"{path}:{bad_line}:")  # file:line:column, like a compiler
    assert "invalid TOML" in str(err)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (HEAD + element("steer.1.1.a", "a", extra='colour = "red"'), "element.0.colour"),
        (HEAD.replace('title = "Test"', 'title = "Test"\nversion = 2'), "version"),
        (HEAD.replace('name = "First"', 'name = "First"\nnote = "x"'), "module.0.note"),
    ],
)
def test_unknown_key(tmp_path: Path, text: str, field: str) -> None:
    if "[[element]]" not in text:
        text += element("steer.1.1.a", "a")
    path = write(tmp_path, text)
    err = load_error(path)
    assert err.source == str(path)
    assert err.field == field
    assert str(err).startswith(f"{path}: field {field!r}: ")
    assert "Extra inputs are not permitted" in str(err)


def test_duplicate_id_in_one_file_points_at_the_repeat(tmp_path: Path) -> None:
    text = (
        HEAD
        + element("steer.1.1.a", "a")
        + element("steer.1.1.b", "b", requires='["steer.1.1.a"]')
        + element("steer.1.1.a", "c")
    )
    path = write(tmp_path, text)
    err = load_error(path)
    line = line_of(text, 'id = "steer.1.1.a"', nth=2)
    assert str(err).startswith(f"{path}:{line}: field 'id': duplicate id 'steer.1.1.a'")


def test_duplicate_id_across_files(tmp_path: Path) -> None:
    first = write(tmp_path, HEAD + element("steer.1.1.a", "a"), "one.toml")
    second_text = (
        HEAD.replace("steer.1", "steer.2")
        + element("steer.2.1.a", "x", requires='["steer.1.1.a"]')
        + element("steer.1.1.a", "y")
    )
    second = write(tmp_path, second_text, "two.toml")
    err = load_error(first, second)
    line = line_of(second_text, 'id = "steer.1.1.a"')
    assert str(err).startswith(f"{second}:{line}: field 'id': duplicate id 'steer.1.1.a'")
    assert f"first defined in {first}" in str(err)


def test_duplicate_setting_across_files(tmp_path: Path) -> None:
    first = write(tmp_path, HEAD + element("steer.1.1.a", "a"), "one.toml")
    second = write(tmp_path, HEAD + element("steer.1.1.b", "b"), "two.toml")
    err = load_error(first, second)
    line = line_of(HEAD, 'id = "steer.1"')
    assert str(err).startswith(f"{second}:{line}: field 'id': duplicate id 'steer.1'")


def test_requires_unknown_element(tmp_path: Path) -> None:
    text = (
        HEAD
        + element("steer.1.1.a", "a")
        + element("steer.1.1.b", "b", requires='["steer.1.1.aa"]')
    )
    path = write(tmp_path, text)
    err = load_error(path)
    line = line_of(text, 'id = "steer.1.1.b"')
    assert str(err).startswith(f"{path}:{line}: field 'requires': ")
    assert "requires unknown element 'steer.1.1.aa'" in str(err)
    assert "did you mean 'steer.1.1.a'?" in str(err)


def test_cycle_shows_the_path(tmp_path: Path) -> None:
    text = (
        HEAD
        + element("steer.1.1.a", "a", requires='["steer.1.1.c"]')
        + element("steer.1.1.b", "b", requires='["steer.1.1.a"]')
        + element("steer.1.1.c", "c", requires='["steer.1.1.b"]')
        + element("steer.1.1.d", "d", requires='["steer.1.1.a"]')
    )
    path = write(tmp_path, text)
    err = load_error(path)
    match = re.search(r"prerequisites form a cycle: (.*)$", str(err))
    assert match is not None, str(err)
    cycle = match.group(1).split(" -> ")
    requires = {"steer.1.1.a": "steer.1.1.c", "steer.1.1.b": "steer.1.1.a"}
    requires["steer.1.1.c"] = "steer.1.1.b"
    assert cycle[0] == cycle[-1]
    assert sorted(cycle[:-1]) == ["steer.1.1.a", "steer.1.1.b", "steer.1.1.c"]
    for a, b in itertools.pairwise(cycle):
        assert requires[a] == b
    line = line_of(text, f'id = "{cycle[0]}"')
    assert str(err).startswith(f"{path}:{line}: field 'requires': ")


def test_self_loop(tmp_path: Path) -> None:
    text = HEAD + element("steer.1.1.a", "a", requires='["steer.1.1.a"]')
    path = write(tmp_path, text)
    err = load_error(path)
    line = line_of(text, 'id = "steer.1.1.a"')
    assert str(err).startswith(f"{path}:{line}: ")
    assert "steer.1.1.a lists itself in requires" in str(err)


@pytest.mark.parametrize("grades", ["[3, 15]", "[-1, 2]", "[5, 2]"])
def test_bad_grades(tmp_path: Path, grades: str) -> None:
    # The bad element is named in an earlier element's `requires`: the error must
    # still point at the bad element's own definition.
    text = (
        HEAD
        + element("steer.1.1.a", "a", requires='["steer.1.1.b"]')
        + element("steer.1.1.b", "b", grades=grades)
    )
    path = write(tmp_path, text)
    err = load_error(path)
    line = line_of(text, 'id = "steer.1.1.b"')
    assert str(err).startswith(f"{path}:{line}: field 'grades': ")
    lo, hi = (int(x) for x in grades.strip("[]").split(","))
    assert f"got [{lo}, {hi}]" in str(err)


def test_grades_need_two_values(tmp_path: Path) -> None:
    path = write(tmp_path, HEAD + element("steer.1.1.a", "a", grades="[1, 2, 3]"))
    err = load_error(path)
    assert str(err).startswith(f"{path}: field 'element.0.grades'")


def test_module_without_setting(tmp_path: Path) -> None:
    text = HEAD + '\n[[module]]\nid = "steer.2.1"\nname = "Orphan"\n' + element("steer.1.1.a", "a")
    path = write(tmp_path, text)
    err = load_error(path)
    line = line_of(text, 'id = "steer.2.1"')
    assert str(err).startswith(f"{path}:{line}: field 'id': ")
    assert "module 'steer.2.1' belongs to no known setting ('steer.2')" in str(err)


def test_element_of_unknown_module(tmp_path: Path) -> None:
    text = HEAD + element("steer.1.2.a", "a")
    path = write(tmp_path, text)
    err = load_error(path)
    line = line_of(text, 'id = "steer.1.2.a"')
    assert str(err).startswith(f"{path}:{line}: field 'module': ")
    assert "did you mean 'steer.1.1'?" in str(err)


def test_id_of_another_benchmark(tmp_path: Path) -> None:
    text = HEAD + element("steer-me.A.1", "a", extra='module = "steer.1.1"')
    path = write(tmp_path, text)
    err = load_error(path)
    line = line_of(text, 'id = "steer-me.A.1"')
    assert str(err).startswith(f"{path}:{line}: field 'id': ")


def test_duplicate_slug(tmp_path: Path) -> None:
    text = HEAD + element("steer.1.1.a", "same") + element("steer.1.1.b", "same")
    path = write(tmp_path, text)
    err = load_error(path)
    line = line_of(text, 'id = "steer.1.1.b"')
    assert str(err).startswith(f"{path}:{line}: field 'slug': ")
    assert "already used by 'steer.1.1.a'" in str(err)


def test_multi_line_definition(tmp_path: Path) -> None:
    text = HEAD + element("steer.1.1.a", "a").replace(
        'definition = "Does a."', 'definition = """Does\na."""'
    )
    path = write(tmp_path, text)
    err = load_error(path)
    assert err.field == "element.0.definition"
    assert "single line" in str(err)
