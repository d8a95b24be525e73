"""Store a metric developer's scores: ``mtlb submit --campaign`` and the Metrics page's upload check them
against the campaign (the same systems, human scores and segment ids on both), then store every metric of
the file under the campaign's system names."""

from __future__ import annotations

from typing import Any, Mapping

import pandas as pd

from ..errors import InputError


def campaign_systems(store: Any, campaign: str, lp: str | None = None) -> tuple[dict[str, set[str]], pd.DataFrame | None]:
    """What a campaign's metric scores must cover, per language pair, and the human scores they are compared
    with: the systems of its stored human judgments and MQM annotations; a pair nobody has judged yet takes
    the systems of its automatic leaderboard (so that scores for AutoRank can come first). Refused (code
    ``no_systems``) when the campaign has none of these."""
    from metrics.submissions import human_system_scores

    from ..outputs.autorank import board_systems
    from ..storage.expert import mqm_errors
    judgments = store.judgments(campaign, lp)
    judged = judgments.loc[judgments["item_type"] == "SYSTEM"]
    systems = {str(pair): set(map(str, names)) for pair, names in judged.groupby("lp", observed=True)["system"].unique().items()}
    for pair, names in mqm_errors(store, campaign, lp).groupby("lp")["system"]:
        systems.setdefault(str(pair), set()).update(map(str, names))
    for pair, names in board_systems(store, campaign, lp).items():
        systems.setdefault(pair, names)
    if not systems:
        raise InputError(f"campaign {campaign!r} has no stored judgments and no test set submissions"
                         + (f" for {lp}" if lp else ""), code="no_systems", value=campaign)
    human = human_system_scores(judgments)
    return systems, (human if len(human) else None)


def stored_segment_ids(store: Any, campaign: str, frame: pd.DataFrame) -> dict[str, set[str]] | None:
    """The line numbers of the stored test set per language pair of a segment-level upload; None for a
    system-level one, or when a pair has no stored test set (every system must then score the same ids)."""
    if not frame["segment"].notna().any():
        return None
    out = {}
    for lp in frame["lp"].astype(str).unique():
        texts = store.texts(campaign, lp)
        if texts.empty:
            return None
        out[lp] = {str(i) for i in texts["line"].unique()}
    return out


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
