"""Cached loaders of what a published snapshot stores beside its ranking, for the System, Quality
control and Across years pages: per-segment scores, the QC behind the ranking, the comparison of years.

Kept out of the page scripts, which Streamlit executes afresh on every visit (each cache decorator
there would be rebuilt, and its function's source re-read, per run).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from . import state


@st.cache_data(show_spinner=False, max_entries=32)
def segments_frame(url: str, campaign: str, lp: str, assessment: str, version: int, token: str) -> pd.DataFrame:
    """The snapshot's per-segment scores: stored with it at publish time (older snapshots: computed
    from the stored judgments once, exactly as the ranking did, then stored)."""
    from leaderboard.publish.artifacts import payload_frame, segment_scores_artifact, spec_of

    def compute():
        frame = state.judgments(url, campaign, None, assessment, token)
        if frame.empty:
            return None
        ranking = state.snapshot(url, campaign, lp, assessment, int(version))["ranking"]
        with st.spinner("Computing segment scores as the ranking did…"):
            return segment_scores_artifact(frame, ranking, spec_of(
                ranking, state.artifact(url, campaign, lp, assessment, int(version), "spec")))

    payload = state.artifact(url, campaign, lp, assessment, version, "segment_scores", compute)
    if payload is None:
        return pd.DataFrame(columns=["system", "segment", "raw", "z", "n"])
    return payload_frame(payload).astype({"system": str, "segment": str})


@st.cache_data(show_spinner="Reading the quality control behind this ranking…", max_entries=32)
def qc_of_snapshot(url: str, campaign: str, lp: str, assessment: str, version: int, token: str) -> dict | None:
    """The ``qc`` artifact of a snapshot (published with it; older snapshots: computed once, then stored)."""
    from leaderboard.publish.artifacts import qc_artifact, spec_of

    def compute():
        frame = state.judgments(url, campaign, None, assessment, token)
        if frame.empty:
            return None
        ranking = state.snapshot(url, campaign, lp, assessment, version)["ranking"]
        spec = spec_of(ranking, state.artifact(url, campaign, lp, assessment, int(version), "spec"))
        return qc_artifact(frame, ranking, spec=spec)

    return state.artifact(url, campaign, lp, assessment, version, "qc", compute)


@st.cache_data(show_spinner="Comparing years…", max_entries=32)
def compare_years(url: str, campaigns: tuple[str, ...], versions: tuple[tuple, ...], tokens: tuple[str, ...],
                  calibration: str | None, best_by: str, alternative: str) -> dict:
    """``longitudinal`` over the latest snapshots of the chosen campaigns (cached on their versions)."""
    from leaderboard.human import longitudinal as lg
    years = []
    for campaign, token in zip(campaigns, tokens):
        rankings = []
        for c, lp, assessment, version in versions:
            if c == campaign:
                rankings.append({**state.snapshot(url, c, lp, assessment, version)["ranking"], "campaign": c,
                                 "lp": lp, "assessment": assessment})
        data = lg.years_from_rankings(campaign, rankings)
        for (lp, assessment), year in data.items():
            version = next(v for c, l, a, v in versions if (c, l, a) == (campaign, lp, assessment))
            year.segments = _year_segments(url, campaign, lp, assessment, version, token)
        years.append((campaign, data))
    return lg.longitudinal(years, calibration=calibration or None, best_by=best_by, alternative=alternative)


def _year_segments(url: str, campaign: str, lp: str, assessment: str, version: int, token: str) -> pd.DataFrame | None:
    """Per-segment scores of a published ranking for the year-to-year tests: stored with the snapshot at
    publish time (as the ranking had them, after its QC); for older snapshots computed from the stored
    judgments."""
    from leaderboard.human import longitudinal as lg
    from leaderboard.publish.artifacts import payload_frame
    payload = state.artifact(url, campaign, lp, assessment, version, "segment_scores")
    if payload is not None:
        return payload_frame(payload).astype({"system": str, "segment": str})
    frame = state.judgments(url, campaign, lp, assessment, token) if token != "empty" else None
    return lg.segment_table(frame) if frame is not None and len(frame) else None
