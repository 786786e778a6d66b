"""Benchmarks: `python -m pytest benches --benchmark-enable -s` (they are off in
the plain test run). Each one times steer beside the tool a user would
otherwise reach for, in the same run, and prints the ratio; none asserts a
time."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
