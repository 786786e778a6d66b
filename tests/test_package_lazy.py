"""`import steer` loads its public names on first use: a command line start
does not pay for pyarrow, pandas and the scorer before it knows what it runs,
and `steer generate` can start its workers' fork server before them."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("pyarrow", "pandas", "steer.score", "steer.bank", "steer.generate")


def loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return set(out.split())


def test_import_steer_and_the_cli_load_nothing_heavy() -> None:
    for code in ("import steer", "import steer.cli", "import steer.cli.generate_cmd"):
        assert not loaded_after(code) & set(HEAVY), code


def test_public_names_load_on_first_use() -> None:
    import steer

    assert callable(steer.read_bank) and callable(steer.load_taxonomy)
    assert set(steer.__all__) <= set(dir(steer))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = steer.nope  # type: ignore[attr-defined]


def test_steer_score_stays_the_function_whichever_import_comes_first() -> None:
    # The subpackage imported first (as a module) must not replace the function.
    code = (
        "from steer.score import merge_cells\nimport steer\n"
        "import types\nassert not isinstance(steer.score, types.ModuleType)\n"
        "assert steer.score.__name__ == 'score'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    code = "import steer\nf = steer.score\nimport steer.score\nassert steer.score is f"
    subprocess.run([sys.executable, "-c", code], check=True)
