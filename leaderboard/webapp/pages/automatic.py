"""Automatic scores: the test sets' automatic leaderboards (BLEU, chrF, intervals, clusters) and, when
the metric scores it needs are stored, WMT's AutoRank with the selection for human evaluation."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from leaderboard.webapp import common, outputs_views as ov, state
from leaderboard.webapp.markdown import md_escape


def render() -> None:
    st.title("Automatic scores")
    sets = ov.testsets()
    if sets.empty:
        st.info("No test set has been released yet.")
        return
    labels = [ov.testset_label(c, lp) for c, lp in zip(sets["campaign"], sets["lp"])]
    wanted = ov.testset_label(st.query_params.get("campaign", ""), st.query_params.get("lp", ""))
    if st.session_state.get("auto_testset") not in labels:
        st.session_state["auto_testset"] = wanted if wanted in labels else labels[0]
    choice = st.selectbox("Test set", labels, key="auto_testset")
    row = sets.iloc[labels.index(choice)]
    campaign, lp = str(row["campaign"]), str(row["lp"])
    st.query_params["campaign"], st.query_params["lp"] = campaign, lp
    from leaderboard.outputs.service import leaderboard_hidden
    ts = ov.outputs_store().testset(campaign, lp)
    user = common.current_user()
    organiser = bool(user and user.get("role") == "organiser")
    if leaderboard_hidden(ts):
        if not organiser:
            st.info(f"The automatic leaderboard of {md_escape(choice)} is hidden until the deadline "
                    f"({ts['deadline']:%Y-%m-%d %H:%M} UTC).")
            return
        st.warning("Hidden from participants until the deadline; you see it as an organiser.")
    board = ov.board(state.store_url(), campaign, lp, ov.revision(campaign))
    if not board["systems"]:
        st.info("No submissions yet.")
        return
    viewer = user["name"] if user else None
    protocol = st.session_state.get("auto_protocol")
    ranked = ov.autorank(state.store_url(), campaign, lp, ov.autorank_revision(campaign), viewer, organiser,
                         protocol if protocol in ("wmt24", "wmt25") else None)
    if ranked["systems"] is None and protocol:  # the chosen protocol lost its scores: fall back
        ranked = ov.autorank(state.store_url(), campaign, lp, ov.autorank_revision(campaign), viewer, organiser)
    table_tab, autorank_tab, stability_tab, pvalue_tab = common.lazy_tabs(
        ["Table", "AutoRank", "Rank stability", "Pairwise p-values"])
    if table_tab.open:
        with table_tab:
            _table(board, campaign, lp, ranked)
    if autorank_tab.open:
        with autorank_tab:
            _autorank(ranked, campaign, lp, organiser)
    if stability_tab.open:
        with stability_tab:
            _stability(board, campaign, lp)
    if pvalue_tab.open:
        with pvalue_tab:
            p = pd.DataFrame(board["pvalues"].get("chrf", {})).T
            order = [s["system"] for s in board["systems"] if s["chrf"] is not None]
            if len(order) < 2:
                st.info(pvalue_absence(board))
                return
            st.caption("Two-sided p-values of sacrebleu's paired bootstrap on chrF (1000 resamples, seed 12345).")
            common.table(p.reindex(index=order, columns=order).rename_axis("System"),
                         formats={s: "%.3g" for s in order}, hide_index=False,
                         height=min(600, 40 + 35 * len(order)))


def pvalue_absence(board: dict) -> str:
    """Why the pairwise p-values tab has nothing to show (fewer than two scored entries)."""
    scored = [s for s in board["systems"] if s["chrf"] is not None]
    if not scored:
        return ("No pairwise p-values yet: the entries are scored when the test set's references are released, "
                "and p-values compare two scored entries.")
    name = f"{scored[0].get('team') or ''}/{scored[0]['system']}".lstrip("/")
    return md_escape(f"No pairwise p-values: a p-value compares two entries, and this leaderboard has one scored "
                     f"entry ({name}; one per team: its primary submission, else its best). They appear once a "
                     "second team submits.")


def _table(board: dict, campaign: str, lp: str, ranked: dict) -> None:
    st.html(ov.board_markup(board, ranked if ranked["systems"] else None))
    st.caption("One entry per team: its primary submission, else its best. Sorted by chrF. Rules separate "
               "clusters: sacrebleu's paired bootstrap (1000 resamples, seed 12345) finds no significant chrF "
               "difference (p < 0.05) inside a cluster; intervals are 95% bootstrap intervals."
               + (f" AutoRank: {ranked['protocol'].upper()} (1 = best; see the AutoRank tab)."
                  if ranked["systems"] else ""))
    st.caption(f"Signature: `{board['signature']}`")
    common.export_downloads(ov.board_exports(board), f"automatic-{campaign}-{lp}", "leaderboard", key="dl-auto")


PROTOCOL_TEXT = {
    "wmt24": "WMT24 AutoRank: each metric rescaled to 1 + N·(x − best)/(worst − best) over the N systems, then "
             "averaged (1 = best, N + 1 = worst).",
    "wmt25": "WMT25 AutoRank: per metric the mean over the pair's segments, robust-scaled (x − median)/(max − P25), "
             "averaged over the metrics and mapped linearly onto 1 (best) … N.",
}
SELECTION_TEXT = {
    "wmt24": "Selection for human evaluation (WMT24): closed systems outside the first third and open ones outside "
             "the first two thirds of the AutoRank order are left out, and so is everything past the first gap of "
             "more than 1.5 AutoRank points.",
    "wmt25": "Selection for human evaluation (WMT25): the 8 best constrained systems, then the best of the rest, "
             "18 in all.",
}


def _autorank(ranked: dict, campaign: str, lp: str, organiser: bool) -> None:
    """AutoRank with its metrics, the selection for human evaluation and, for organisers, the human rank."""
    if len(ranked["available"]) > 1:
        st.radio("Protocol", ranked["available"], index=ranked["available"].index(ranked["protocol"]),
                 horizontal=True, key="auto_protocol", format_func=str.upper)
    if ranked["systems"] is None:
        st.info("AutoRank appears once the metric scores it needs are stored for every system of this test set "
                "(system- or segment-level, uploaded by metric developers or organisers on the **Metrics** page, "
                "tab **Upload scores**): WMT24 needs MetricX-23-XL and CometKiwi-DA-XL; WMT25 needs GEMBA-ESA-CMDA, "
                "GEMBA-ESA-GPT4.1, MetricX-24-Hybrid-XL, XCOMET-XL and, with a reference, CometKiwi-XL.")
        st.caption(md_escape(ranked["missing"] or ""))
        return
    human = organiser and bool(ranked.get("human"))
    st.html(ov.autorank_markup(ranked, human))
    st.caption(PROTOCOL_TEXT[ranked["protocol"]] + " " + SELECTION_TEXT[ranked["protocol"]])
    sources = ", ".join(f"{src['name']} (#{src['submission']}, {src['level']} level)"
                        for src in ranked["sources"].values())
    st.caption(md_escape(f"Metric scores: {sources}." + ("" if ranked["reference"] else
                                                          " The test set has no reference.")))
    for note in ranked["notes"]:
        st.warning(common.lower_text(note))
    if any(row["category"] is None for row in ranked["selection"] or []):
        st.caption("Systems whose submission does not say whether it is constrained or open count as closed "
                   "(WMT24) or unconstrained (WMT25).")
    if human:
        src = ranked["human_source"]
        st.caption(md_escape(f"Human rank: the published {src['assessment']} ranking of {campaign} {lp} "
                             f"(version {src['version']}); shown to organisers only."))
    elif organiser:
        st.caption("No human ranking of this pair is published yet; once one is, its ranks appear here beside "
                   "AutoRank.")
    common.export_downloads(ov.autorank_exports(ranked, human), f"autorank-{campaign}-{lp}", "AutoRank and selection",
                            key="dl-autorank")


def _stability(board: dict, campaign: str, lp: str) -> None:
    """How often each entry takes each rank across sacrebleu's bootstrap resamples (chrF)."""
    from leaderboard.webapp import charts
    scored = [s for s in board["systems"] if s["chrf"] is not None]
    fig = charts.rank_shares_figure({"systems": scored, "lp": lp})
    if fig is None:
        st.caption("Rank stability: — (this leaderboard was computed before rank shares were recorded).")
        return
    st.caption("The share of sacrebleu's bootstrap resamples of the test set (1000, seed 12345) in which each "
               "entry takes each rank by chrF; the rank ranges in the table come from the significance tests.")
    common.chart(fig, common.slug(f"automatic-rank-stability-{campaign}-{lp}"), "rank stability chart")


if __name__ == "__main__":
    render()
