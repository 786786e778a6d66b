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
