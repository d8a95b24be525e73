"""Checks of a stored campaign that both views offer: whether its segment ids are line numbers of its
stored texts (``mtlb campaigns check-lines`` and the Organiser page's "Verify from the data")."""

from __future__ import annotations

from typing import Any

from ..errors import InputError


def check_segments_are_lines(store: Any, campaign: str, lp: str | None = None) -> list[dict]:
    """:func:`metrics.alignment.line_alignment` for every language pair of a stored campaign that has
    stored texts: one ``{"lp", **line_alignment(...)}`` per pair; refuses a campaign without judgments
    or texts."""
    from metrics.alignment import line_alignment

    from ..human.scores import segment_scores
    store.campaign_info(campaign)  # refuses an unknown campaign
    judgments = store.judgments(campaign, lp)
    if judgments.empty:
        raise InputError(f"campaign {campaign!r} has no stored judgments" + (f" for {lp}" if lp else ""),
                         code="no_judgments", value=campaign)
    results = []
    for pair in sorted(judgments["lp"].astype(str).unique()):
        texts = store.texts(campaign, pair)
        if texts.empty:
            continue
        part = judgments[judgments["lp"].astype(str) == pair]
        results.append({"lp": pair, **line_alignment(segment_scores(part), texts)})
    if not results:
        raise InputError(f"campaign {campaign!r} has no stored texts" + (f" for {lp}" if lp else ""),
                         code="no_texts", value=campaign)
    return results
