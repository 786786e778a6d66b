"""What explains a model's correctness: Type II ANOVA and logistic
likelihood-ratio tests over domain, perspective, type, element and
adaptation, and the error types of its wrong answers (`steer analyze`)."""

from steer.analyze._analyze import FACTORS, Analysis, ModelAnalysis, analyze
from steer.analyze._anova import Anova, Term, type2_anova
from steer.analyze._cells import Cells, collapse, design
from steer.analyze._errors import ErrorCount, chosen_tags, error_counts
from steer.analyze._logit import Logit, LrTerm, fit_logit, logit_lr_tests

__all__ = [
    "FACTORS",
    "Analysis",
    "Anova",
    "Cells",
    "ErrorCount",
    "Logit",
    "LrTerm",
    "ModelAnalysis",
    "Term",
    "analyze",
    "chosen_tags",
    "collapse",
    "design",
    "error_counts",
    "fit_logit",
    "logit_lr_tests",
    "type2_anova",
]
