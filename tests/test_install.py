"""A non-editable install into a fresh virtual environment, used from an
unrelated directory, finds every shipped data file and runs the demo: once
from a wheel built in the checkout, once from a wheel that pip builds out of
the source distribution (which must carry templates/ and rubrics/)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def sh(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, cwd=cwd, env=env, timeout=900
    )
    assert proc.returncode == 0, f"{args}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def shipped_files(root: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix()
        for folder in ("templates", "rubrics")
        for p in (root / folder).rglob("*")
        if p.is_file()
    )


def wheel_from_sdist(root: Path, work: Path) -> Path:
    """Build the sdist, check it carries the data folders, and let pip build a
    wheel out of it, as `pip install steer-*.tar.gz` does."""
    sdists = work / "sdist"
    sh(sys.executable, "-m", "maturin", "sdist", "--out", sdists, cwd=root)
    (sdist,) = sdists.glob("steer-*.tar.gz")
    with tarfile.open(sdist) as tar:
        top = sdist.name.removesuffix(".tar.gz")
        packed = {name.removeprefix(f"{top}/") for name in tar.getnames()}
    assert sorted(set(shipped_files(root)) - packed) == []
    # The build backend (maturin) comes from this environment instead of an
    # isolated one downloaded from the index, and the compiled dependencies
    # from the checkout's target/ (a cold release build takes minutes).
    env = {**os.environ, "CARGO_TARGET_DIR": str(root / "target")}
    wheels = work / "wheels"
    sh(
        sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
        "--disable-pip-version-check", "--wheel-dir", wheels, sdist, cwd=work, env=env,
    )  # fmt: skip
    (wheel,) = wheels.glob("steer-*.whl")
    return wheel


@pytest.fixture(scope="module", params=["checkout", "sdist"])
def installed(
    request: pytest.FixtureRequest, root: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A fresh venv with steer installed from a wheel built from this checkout
    or from its source distribution."""
    work = tmp_path_factory.mktemp(f"install-{request.param}")
    if request.param == "sdist":
        wheel = wheel_from_sdist(root, work)
    else:
        wheels = work / "wheels"
        sh(sys.executable, "-m", "maturin", "build", "--release", "--out", wheels, cwd=root)
        (wheel,) = wheels.glob("steer-*.whl")
    env_dir = work / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    python = env_dir / "bin" / "python"
    sh(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel)
    return env_dir


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STEER_", "PYTHON"))}
    return env


def test_installed_package_finds_its_data_from_anywhere(
    installed: Path, root: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "unrelated"
    elsewhere.mkdir()
    python = installed / "bin" / "python"
    shipped = shipped_files(root)
    probe = (
        "import json, sys, steer\n"
        "from importlib import resources\n"
        "from steer._resources import data_root\n"
        "data = resources.files('steer') / '_data'\n"
        "names = json.loads(sys.argv[1])\n"
        "missing = [n for n in names if not (data / n).is_file()]\n"
        "print(json.dumps({'file': steer.__file__, 'missing': missing,\n"
        "                  'root': str(data_root())}))\n"
    )
    out = json.loads(sh(python, "-c", probe, json.dumps(shipped), cwd=elsewhere, env=clean_env()))
    assert out["missing"] == []
    assert str(installed) in out["file"], "imported the checkout instead of the install"
    assert out["root"].endswith("steer/_data")

    steer = installed / "bin" / "steer"
    demo = sh(steer, "demo", cwd=elsewhere, env=clean_env())
    assert "steer.2.4.b Maximize Expected Utility" in demo
    taxonomy = json.loads(sh(steer, "taxonomy", "--json", cwd=elsewhere, env=clean_env()))
    assert taxonomy["count"] == 122
    rubrics = sh(steer, "rubric", "list", cwd=elsewhere, env=clean_env())
    for path in (root / "rubrics").glob("*.toml"):
        assert path.stem in rubrics
    checked = sh(
        steer, "templates", "check", "--renders", "1", "--language-only",
        cwd=elsewhere, env=clean_env(),
    )  # fmt: skip
    assert checked.startswith("ok: ")
    # The experiment grids and game files ship inside the package.
    played = tmp_path / "played"
    sh(steer, "play", "budget", "-m", "agent:garp", "-n", "1", "-o", played, "--no-progress",
       cwd=elsewhere, env=clean_env())  # fmt: skip
    assert "ccei" in sh(steer, "fit", played, "-b", "10", cwd=elsewhere, env=clean_env())
    games = "from steer.play._games import shipped_games; print(len(shipped_games()))"
    assert int(sh(python, "-c", games, cwd=elsewhere, env=clean_env())) >= 16
    assert list(elsewhere.iterdir()) == [], "the demo must not litter the working directory"
