"""Named MQM weight schemes: how much one error of a category and severity costs.

Non-translation weighs 25 only as a Major error, as mt-metrics-eval scores Google's MQM files (a Minor
Non-translation is an ordinary Minor error); attention checks (severity HOTW-test) are not errors and
weigh 0 in every scheme.

A scheme is recorded in every MQM signature (``weights:<name>``), so two scores are comparable
only when they name the same scheme. Severities and categories are matched after the reader
normalised their spelling (:mod:`leaderboard.ingest.mqm`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..ingest.mqm import normal_category


@dataclass(frozen=True)
class WeightScheme:
    """Weights per severity, with the two category exceptions of the published Google scheme."""
    name: str
    major: float
    minor: float
    minor_punctuation: float   # a Minor error of category Fluency/Punctuation
    non_translation: float     # a Major error of category Non-translation (other severities weigh as usual)
    neutral: float = 0.0
    no_error: float = 0.0
    description: str = ""

    def weights(self, category: pd.Series, severity: pd.Series) -> np.ndarray:
        """Weight of each error row (``severity`` already normalised with :func:`leaderboard.ingest.mqm.normal_severity`)."""
        cat = category.map(normal_category).to_numpy(dtype=object)
        sev = severity.to_numpy(dtype=object)
        out = np.select(
            [sev == "major", sev == "minor", sev == "neutral", sev == "no-error", sev == "hotw-test"],
            [self.major, self.minor, self.neutral, self.no_error, 0.0], default=np.nan)
        out = np.where((sev == "minor") & (cat == "fluency/punctuation"), self.minor_punctuation, out)
        out = np.where((cat == "no-error") & (sev != "hotw-test"), self.no_error, out)
        out = np.where((sev == "major") & (cat == "non-translation"), self.non_translation, out)
        return out.astype(float)


SCHEMES: dict[str, WeightScheme] = {
    "google-mqm": WeightScheme(
        "google-mqm", major=5.0, minor=1.0, minor_punctuation=0.1, non_translation=25.0,
        description="Freitag et al. 2021 / WMT21-22, as mt-metrics-eval scores it: Major 5, Minor 1, Minor "
                    "Fluency/Punctuation 0.1, Major Non-translation 25 (a Minor one weighs 1), Neutral, No-error "
                    "and attention checks (HOTW-test) 0"),
    "major-minor": WeightScheme(
        "major-minor", major=5.0, minor=1.0, minor_punctuation=1.0, non_translation=5.0,
        description="Major 5, Minor 1 with no category exceptions (Non-translation counts as Major)"),
}
DEFAULT_SCHEME = "google-mqm"

def get_scheme(name: str) -> WeightScheme:
    from ..errors import InputError
    if name not in SCHEMES:
        raise InputError(f"unknown MQM weight scheme {name!r} (choose from {', '.join(SCHEMES)})",
                         column="weights")
    return SCHEMES[name]
