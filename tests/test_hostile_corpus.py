"""The hostile corpus through every command that loads a file (issue 19 §3).

Each hostile file (tests/hostile/ plus the ones tests/hostile_corpus.py writes,
10,000-deep nesting included) goes through every command that reads its kind.
Every command must end with exit status 0, 1 or 2 — never a signal, an
"internal error" or a traceback — and a refused command writes nothing.

One subprocess per file runs all of that file's commands through the real
console entry point (`steer.cli.main`), so a crash shows up as a signal of
that file's process while the suite stays fast.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import hostile_corpus as corpus

DRIVER = r"""
import contextlib, io, json, sys
from steer.cli import main
results = []
for argv in json.loads(sys.argv[1]):
    sys.argv = ["steer", *argv]
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    results.append([argv, code, err.getvalue()[-1500:]])
print(json.dumps(results))
"""

TABLE_FILES = [
    "binary_garbage.jsonl", "not_parquet.parquet", "empty.jsonl", "array_lines.jsonl",
    "mixed_types.jsonl", "truncated.jsonl",
]  # fmt: skip
RUBRIC_FILES = sorted(p.name for p in corpus.HOSTILE_DIR.glob("*.toml"))
GENERATED = {
    **{name: ("table", name) for name in corpus.BUILDERS},
    **{name: ("responses", name) for name in corpus.RESPONSE_BUILDERS},
    "rubric_deep_array": ("rubric", "rubric_deep_array"),
    "rubric_deep_table": ("rubric", "rubric_deep_table"),
    "rubric_bad_utf8": ("rubric", "rubric_bad_utf8"),
    **{f"template_{name}": ("template", name) for name in corpus.TEMPLATE_CASES},
}
CASES = (
    [("table", name) for name in TABLE_FILES]
    + [("rubric", name) for name in RUBRIC_FILES]
    + [("generated", name) for name in sorted(GENERATED)]
)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("corpus")
    bank, run = folder / "bank.parquet", folder / "run"
    for argv in (
        ["generate", "--elements", "1.1.a", "--per-cell", "1", "-o", str(bank)],
        ["run", str(bank), "-m", "agent:oracle", "-o", str(run)],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "steer", *argv], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    pricing = folder / "deep_pricing.json"
    pricing.write_text('{"m": ' + corpus.deep_json() + "}", encoding="utf-8")
    return {"folder": folder, "bank": bank, "run": run, "pricing": pricing}


def _materialise(kind: str, name: str, base: dict[str, Path], work: Path) -> tuple[str, Path]:
    """(kind of file, path) for a corpus entry."""
    if kind != "generated":
        return kind, corpus.HOSTILE_DIR / name
    what, key = GENERATED[name]
    if what == "table":
        return "table", corpus.BUILDERS[key](work, base["bank"])
    if what == "responses":
        return "table", corpus.RESPONSE_BUILDERS[key](work, base["run"] / "responses.parquet")
    if what == "rubric":
        return "rubric", getattr(corpus, key)(work)
    expr, low = corpus.TEMPLATE_CASES[key]
    return "template", corpus.template(work, f"{key}.toml", expr, low)


def _commands(kind: str, path: Path, base: dict[str, Path], out: Path) -> list[list[str]]:
    p, run = str(path), str(base["run"])
    if kind == "table":
        return [
            ["bank", "info", p],
            ["bank", "import", p, "-o", str(out / "imported.parquet")],
            ["run", p, "-m", "agent:oracle", "-o", str(out / "run")],
            ["score", p, "--format", "json"],
            ["grade", p],
            ["report", p, "-o", str(out / "report.html")],
            ["compare", run, p],
            ["score", run, "--bank", p],  # the file as the bank that defines coverage
            ["grade", run, "--bank", p, "--format", "json"],
        ]
    if kind == "rubric":
        return [
            ["rubric", "check", p],
            ["grade", run, "--rubric", p, "--format", "json"],
            ["report", run, "--rubric", p, "-o", str(out / "report.html")],
        ]
    return [
        ["templates", "check", p, "--renders", "5"],
        ["generate", "--templates", p, "--per-cell", "2", "-o", str(out / "gen.parquet")],
    ]


@pytest.mark.parametrize(("kind", "name"), CASES)
def test_hostile_file_never_crashes(
    kind: str, name: str, base: dict[str, Path], tmp_path: Path
) -> None:
    kind, path = _materialise(kind, name, base, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    commands = _commands(kind, path, base, out)
    env = {k: v for k, v in os.environ.items() if k != "STEER_DEBUG"}
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps(commands)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=240,
    )
    assert done.returncode == 0, (
        f"{name}: driver died with {done.returncode}\n{done.stderr[-3000:]}"
    )
    for argv, code, stderr in json.loads(done.stdout.splitlines()[-1]):
        assert code in (0, 1, 2), (argv, code, stderr)
        assert "internal error" not in stderr and "Traceback" not in stderr, (argv, stderr)
        assert "panicked" not in stderr and "<table>" not in stderr, (argv, stderr)
        if code == 2 and "-o" in argv:
            target = Path(argv[argv.index("-o") + 1])
            assert not target.is_file(), (argv, "wrote output after refusing")


def test_deep_pricing_file_is_refused(base: dict[str, Path], tmp_path: Path) -> None:
    # A loopback address nothing listens on: the pricing file is read first.
    argv = ["run", str(base["bank"]), "-m", "openai:m", "--base-url", "http://127.0.0.1:9/v1",
            "-o", str(tmp_path / "r"), "--pricing", str(base["pricing"])]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps([argv])], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    ((_, code, stderr),) = json.loads(done.stdout.splitlines()[-1])
    assert code == 2 and "deep_pricing.json" in stderr and "internal error" not in stderr
