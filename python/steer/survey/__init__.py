"""Questionnaires: instruments as data (`_instrument`), answered through
`steer.run` (`_survey`), scored by subscale and compared with published
per-item answers (`_score`)."""

from steer.survey._instrument import Instrument, load_instrument, shipped_instruments
from steer.survey._score import compare_published, read_published, subscale_scores
from steer.survey._survey import SURVEY_FILE, SurveyResult, read_survey, run_survey

__all__ = [
    "SURVEY_FILE",
    "Instrument",
    "SurveyResult",
    "compare_published",
    "load_instrument",
    "read_published",
    "read_survey",
    "run_survey",
    "shipped_instruments",
    "subscale_scores",
]
