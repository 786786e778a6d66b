"""Preference fits from experiment choices.

Revealed preference over budget choices (`garp`, `ccei`, `houtman_maks`,
`money_pump`): the work runs in steer-core, in parallel over subjects.
"""

from steer.fit._revealed import Panel, ccei, garp, houtman_maks, money_pump, panel

__all__ = ["Panel", "ccei", "garp", "houtman_maks", "money_pump", "panel"]
