"""Where the shipped data (taxonomy, templates, rubrics) lives.

Installed wheels carry the top-level `templates/` and `rubrics/` folders as
`steer/_data/…` (packed by maturin from build.rs's OUT_DIR copy). Running from
a checkout (an editable install), the folders at the repository root are used.
`STEER_DATA_DIR` overrides both.
"""

from __future__ import annotations

import os
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from steer.errors import InputError


def _checkout_root() -> Path | None:
    root = Path(__file__).resolve().parents[2]
    if (root / "templates").is_dir() and (root / "Cargo.toml").is_file():
        return root
    return None


def data_root() -> Traversable:
    """The folder holding `templates/` and `rubrics/`."""
    override = os.environ.get("STEER_DATA_DIR")
    if override:
        root = Path(override)
        if not root.is_dir():
            raise InputError(f"STEER_DATA_DIR={override}: not a directory")
        return root
    # A checkout wins over a packaged copy: `maturin develop` leaves a stale
    # copy in python/steer/_data, while templates/ is what developers edit.
    checkout = _checkout_root()
    if checkout is not None:
        return checkout
    packaged = resources.files("steer") / "_data"
    if packaged.is_dir():
        return packaged
    raise InputError(
        "steer's data files are missing from this installation (expected steer/_data); "
        "reinstall steer"
    )


def templates_dir() -> Traversable:
    return data_root() / "templates"


def rubrics_dir() -> Traversable:
    return data_root() / "rubrics"


def template_files(root: Path | Traversable | None = None) -> list[Traversable]:
    """All `*.toml` template files under `templates/` except the taxonomy."""
    root = root or templates_dir()
    found: list[Traversable] = []

    def walk(folder: Path | Traversable) -> None:
        for entry in folder.iterdir():
            if entry.is_dir():
                if entry.name != "taxonomy":
                    walk(entry)
            elif entry.name.endswith(".toml"):
                found.append(entry)

    walk(root)
    return sorted(found, key=lambda p: str(p))


def grade_tables(benchmark: str | None = None) -> int:
    """How many `[template.grade.N]` tables the shipped files of a benchmark
    (every benchmark: None) hold, counted on the text without parsing: an
    estimate of the template × grade cells, cheap enough (and light enough to
    import) to decide before loading, or importing the generator, whether a
    generation will be big enough for worker processes."""
    root = templates_dir()
    folder = root / benchmark if benchmark is not None else root
    if not folder.is_dir():
        folder = root
    return sum(
        line.startswith("[template.grade.")
        for path in template_files(folder)
        for line in path.read_text(encoding="utf-8").splitlines()
    )
