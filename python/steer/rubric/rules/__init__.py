"""Built-in rules: the code table is `_codes.py`, one rule per module, run
order in `_registry.py`."""
