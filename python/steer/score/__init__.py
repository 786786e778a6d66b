"""Scoring response tables: grouped metrics computed in steer-core."""

from steer.score._accuracy import score
from steer.score._groups import group_codes

__all__ = ["group_codes", "score"]
