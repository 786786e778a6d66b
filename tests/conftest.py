"""Shared fixtures: paths to the repository and to the shared test data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_FIXTURES = Path(os.environ.get("STEER_SHARED_FIXTURES", ROOT.parent / "shared" / "fixtures"))


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def shared_fixtures() -> Path:
    if not SHARED_FIXTURES.is_dir():
        pytest.fail(f"shared fixtures not found at {SHARED_FIXTURES} (set STEER_SHARED_FIXTURES)")
    return SHARED_FIXTURES


@pytest.fixture(scope="session")
def steer_samples(shared_fixtures: Path) -> list[Path]:
    return sorted((shared_fixtures / "steer_samples").glob("*.jsonl"))
