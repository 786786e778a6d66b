"""`steer demo --experiments`: every experiment, played, fitted, graded, reported."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import click
import pyarrow.parquet as pq

from steer._atomic import atomic_path, atomic_text
from steer._json import json_safe

#: A simulated human panel, and a textbook chooser (expected value, no
#: discounting, selfish) with a little response noise.
DEMO_PLAYERS = (
    "agent:human-panel",
    "agent:pt(alpha=1,beta=1,lambda=1,gamma=1,delta=1,noise=0.02)",
)


def demo_experiments(out: Path | None, *, seed: int, samples: int, as_json: bool) -> None:
    from steer.cli.fit_cmd import render_table
    from steer.experiments import EXPERIMENTS
    from steer.fit import fit_runs
    from steer.fit._report import fit_report_html, write_figures
    from steer.play import play_experiment
    from steer.rubric import grade, load_rubric, read_fits
    from steer.rubric._selection import Selection

    with tempfile.TemporaryDirectory(prefix="steer-demo-") as tmp:
        root = out or Path(tmp)
        runs = []
        for i, player in enumerate(DEMO_PLAYERS):
            for experiment in EXPERIMENTS:
                directory = root / "runs" / f"player{i}" / experiment
                play_experiment(experiment, player, directory, samples=samples, seed=seed)
                runs.append(directory)
        fits = fit_runs(runs, bootstrap=500, seed=seed)
        fits_json = root / "fits.json"
        with atomic_text(fits_json) as fh:
            fh.write(json.dumps({"fits_version": 1, "fits": fits.to_pylist()}, indent=2) + "\n")
        with atomic_path(root / "fits.parquet") as tmp_parquet:
            pq.write_table(fits, tmp_parquet)
        loaded = load_rubric("preferences")
        result = grade(
            runs, loaded, selection=Selection(select=loaded.rubric.select or []),
            fits=read_fits(fits_json),
        )  # fmt: skip
        notes = [
            f"{d.code} {d.severity} [{d.model}] {d.message}"
            for d in result.diagnostics
            if d.code.startswith("PR")
        ]
        report = fit_report_html(
            fits, root / "report.html",
            title=f"steer demo --experiments: {len(EXPERIMENTS)} experiments, "
            f"{len(DEMO_PLAYERS)} players, {samples} samples, seed {seed}",
            notes=notes or ["every check of the 'preferences' rubric passed"],
        )  # fmt: skip
        figures = write_figures(fits, root / "figures", formats=("png", "svg"))
        if as_json:
            click.echo(json.dumps(json_safe({"fits": fits.to_pylist(), "diagnostics": notes}),
                                  indent=2, allow_nan=False))  # fmt: skip
        else:
            click.echo(render_table(fits))
            click.echo("")
            click.echo("\n".join(notes) if notes else "preferences rubric: every check passed")
            where = (
                f"report {report}, {len(figures)} figures in {root / 'figures'}, fits in "
                f"{fits_json}"
                if out
                else "pass --out DIR to keep the runs, the fits and the report with its figures"
            )
            click.echo(f"\n({where})")
