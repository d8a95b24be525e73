"""Store a metric developer's scores: ``mtlb submit --campaign`` and the Metrics page's upload check them
against the campaign, then store every metric of the file under the campaign's system names."""

from __future__ import annotations

from typing import Any, Mapping

import pandas as pd

from ..errors import InputError


def store_metric_scores(store: Any, campaign: str, frame: pd.DataFrame, systems: Mapping[str, set[str]], *,
                        level: str, higher_is_better: bool, human: pd.DataFrame | None,
                        segments: Mapping[str, set[str]] | None = None, file: str | None = None,
                        earlier: list[InputError] | None = None,
                        owner: str | None = None) -> tuple[dict, list[int]]:
    """:func:`metrics.submissions.validate_submission` against ``systems`` (human translations: the
    organisers' marks), then one transaction stores every metric, private: the validation summary and
    the new submission ids. Nothing is stored when any check fails."""
    from metrics.submissions import validate_submission, with_campaign_names

    from ..storage.marks import human_marks
    summary = validate_submission(frame, systems, segments, higher_is_better, human, file=file,
                                  human_systems=human_marks(store, campaign), earlier=earlier)
    named = with_campaign_names(frame, summary["names"])
    ids = store.save_metric_submissions(campaign, named[["metric", "lp", "system", "segment", "score"]],
                                        level=level, higher_is_better=higher_is_better, owner=owner)
    return summary, ids
