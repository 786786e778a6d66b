"""`steer taxonomy`: browse the elements and their dependency graph."""

from __future__ import annotations

import click

from steer._json import dumps
from steer.cli._app import SteerGroup, grades_option, json_option
from steer.taxonomy import Element, Subgraph, Taxonomy, load_taxonomy


def _element_dict(e: Element) -> dict[str, object]:
    return {
        "id": e.id,
        "slug": e.slug,
        "name": e.name,
        "definition": e.definition,
        "benchmark": e.benchmark,
        "setting": e.setting,
        "module": e.module,
        "grades": list(e.grades),
        "grade_source": e.grade_source,
        "requires": list(e.requires),
    }


def _tree_text(taxonomy: Taxonomy, elements: list[Element]) -> str:
    lines: list[str] = []
    wanted = {e.id for e in elements}
    for bench, title in (("steer", "STEER"), ("steer-me", "STEER-ME")):
        chosen = [e for e in elements if e.benchmark == bench]
        if not chosen:
            continue
        lines.append(f"{title} ({len(chosen)} elements)")
        for setting in (s for s in taxonomy.settings.values() if s.benchmark == bench):
            in_setting = [e for e in chosen if e.setting == setting.id]
            if not in_setting:
                continue
            lines.append(f"  {setting.label} {setting.name}")
            for module in (m for m in taxonomy.modules.values() if m.setting == setting.id):
                members = [e for e in taxonomy.elements_of(module.id) if e.id in wanted]
                if not members:
                    continue
                lines.append(f"    {module.label} {module.name}")
                width = max(len(e.label) for e in members)
                for e in members:
                    lo, hi = e.grades
                    grade = f"grade {lo}" if lo == hi else f"grades {lo}-{hi}"
                    lines.append(f"      {e.label.ljust(width)}  {e.name}  [{grade}]")
    return "\n".join(lines) if lines else "no elements match"


def _deps_text(taxonomy: Taxonomy, graph: Subgraph, reverse: bool) -> str:
    children: dict[str, list[str]] = {n: [] for n in graph.nodes}
    for a, b in graph.edges:
        if reverse:
            children[b].append(a)
        else:
            children[a].append(b)

    def label(node: str) -> str:
        e = taxonomy.elements[node]
        return f"{e.id}  {e.name} [{e.grades[0]}-{e.grades[1]}]"

    lines = [label(graph.root)]
    shown: set[str] = {graph.root}

    def walk(node: str, prefix: str) -> None:
        kids = children[node]
        for i, kid in enumerate(kids):
            last = i == len(kids) - 1
            branch = "└─ " if last else "├─ "
            repeat = kid in shown and children[kid]
            lines.append(prefix + branch + label(kid) + ("  (see above)" if repeat else ""))
            if not repeat:
                shown.add(kid)
                walk(kid, prefix + ("   " if last else "│  "))

    walk(graph.root, "")
    return "\n".join(lines)


@click.group("taxonomy", cls=SteerGroup, invoke_without_command=True)
@click.option("--setting", help="Only this setting (e.g. 3, steer.3, steer-me.1).")
@grades_option()
@click.option(
    "--benchmark", type=click.Choice(["steer", "steer-me"]), help="Only one benchmark's elements."
)
@json_option()
@click.pass_context
def taxonomy_cmd(
    ctx: click.Context,
    setting: str | None,
    grades: tuple[int, int] | None,
    benchmark: str | None,
    as_json: bool,
) -> None:
    """Print the taxonomy of elements of rationality as a tree."""
    if ctx.invoked_subcommand is not None:
        return
    taxonomy = load_taxonomy()
    elements = taxonomy.filter(
        benchmark=benchmark,
        setting=setting,  # type: ignore[arg-type]
        grades=grades,
    )
    if as_json:
        click.echo(
            dumps(
                {"count": len(elements), "elements": [_element_dict(e) for e in elements]}, indent=2
            )
        )
    else:
        click.echo(_tree_text(taxonomy, elements))


@taxonomy_cmd.command("deps")
@click.argument("element")
@click.option("--reverse", is_flag=True, help="Show what depends on ELEMENT instead.")
@json_option()
def deps_cmd(element: str, reverse: bool, as_json: bool) -> None:
    """Print ELEMENT's prerequisites (transitively) as a tree.

    ELEMENT is an id (steer.3.1.f), a short id (3.1.f, A.12) or a slug (pure_nash).
    """
    taxonomy = load_taxonomy()
    graph = taxonomy.dependents(element) if reverse else taxonomy.prerequisites(element)
    if as_json:
        click.echo(
            dumps(
                {
                    "root": graph.root,
                    "direction": "dependents" if reverse else "prerequisites",
                    "nodes": [_element_dict(taxonomy.elements[n]) for n in graph.nodes],
                    "edges": [list(e) for e in graph.edges],
                },
                indent=2,
            )
        )
    else:
        click.echo(_deps_text(taxonomy, graph, reverse))
