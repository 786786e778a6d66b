"""Shared fixtures: paths to the repository and to the shared test data."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from llm_fixtures import FAKE_KEY
from openai_server import FakeOpenAI, serving

# Property tests draw the same examples on every run, so a CI result depends
# on the code alone, never on the day's random seed; HYPOTHESIS_PROFILE=explore
# draws fresh examples (and keeps their failures in .hypothesis/) when hunting.
settings.register_profile("deterministic", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))

ROOT = Path(__file__).resolve().parents[1]
SHARED_FIXTURES = Path(os.environ.get("STEER_SHARED_FIXTURES", ROOT.parent / "shared" / "fixtures"))


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def shared_fixtures() -> Path:
    # The sample data sets are not part of the repository: a clone without them
    # still passes, skipping the tests that read them. A path given explicitly
    # must exist, so a typo cannot silently skip them.
    if not SHARED_FIXTURES.is_dir():
        if "STEER_SHARED_FIXTURES" in os.environ:
            pytest.fail(f"STEER_SHARED_FIXTURES={SHARED_FIXTURES} is not a directory")
        pytest.skip(
            f"shared fixtures not found at {SHARED_FIXTURES}: put them in ../shared/fixtures "
            "beside the checkout or point STEER_SHARED_FIXTURES at them"
        )
    return SHARED_FIXTURES


@pytest.fixture(scope="session")
def steer_samples(shared_fixtures: Path) -> list[Path]:
    return sorted((shared_fixtures / "steer_samples").glob("*.jsonl"))


# A loopback server speaking the OpenAI chat-completions protocol (one per test
# module) and a per-test reset of its scripted reply, faults and log, with a fake
# API key set. Modules with their own `server`/`fake` fixtures override these.
@pytest.fixture(scope="module")
def server() -> Iterator[tuple[FakeOpenAI, str]]:
    state = FakeOpenAI()
    with serving(state) as url:
        yield state, url


@pytest.fixture
def fake(server: tuple[FakeOpenAI, str], monkeypatch: pytest.MonkeyPatch) -> tuple[FakeOpenAI, str]:
    state, url = server
    state.faults.clear()
    state.log.clear()
    state.reply = None
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    return state, url
