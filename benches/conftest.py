"""Benchmarks run with `pytest benches --benchmark-enable` (disabled in the
plain test run). Each benchmark prints steer's time beside the tool a user
would otherwise reach for, as a ratio, measured in the same run."""
