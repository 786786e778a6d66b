"""Peak memory of scoring 10M responses, against the size of the numeric
columns it reads. Measured in a child process from the kernel's high-water
mark (VmHWM), reset just before scoring, so the table's own memory is the
baseline and everything the scorer allocates on top is counted.

    python -m pytest benches/bench_memory.py --benchmark-enable -s
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CHILD = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, {benches!r})
    from synthetic import numeric_nbytes, response_table
    from steer.score import score

    def status(key):
        for line in open("/proc/self/status"):
            if line.startswith(key):
                return int(line.split()[1]) * 1024
        raise KeyError(key)

    table = response_table(10_000_000, seed=1)
    score(table.slice(0, 1000), by=["model"])  # import and warm up everything
    numeric = numeric_nbytes(table)
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")  # reset the high-water mark to the current RSS
    before = status("VmRSS:")
    score(table, by=["model", "element", "domain"],
          metrics=["exact_match", "normalized_accuracy", "ece", "brier", "epa"], ci=None)
    peak = status("VmHWM:")
    print(json.dumps({{"numeric": numeric, "before": before, "peak": peak}}))
    """
)


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux /proc")
def test_peak_memory_of_scoring() -> None:
    code = CHILD.format(benches=str(Path(__file__).parent))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600
    )
    m = json.loads(out.stdout.strip().splitlines()[-1])
    extra = m["peak"] - m["before"]
    print(
        f"\nscoring 10M rows: numeric columns {m['numeric'] / 2**20:.0f} MiB, "
        f"extra peak during scoring {extra / 2**20:.0f} MiB; "
        f"(numeric + extra) / numeric = {(m['numeric'] + extra) / m['numeric']:.2f} "
        f"(target < 2)"
    )
