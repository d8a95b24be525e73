"""Automatic scores: the test sets' automatic leaderboards (BLEU, chrF, intervals, clusters)."""

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
    table_tab, stability_tab, pvalue_tab = common.lazy_tabs(["Table", "Rank stability", "Pairwise p-values"])
    if table_tab.open:
        with table_tab:
            _table(board, campaign, lp)
    if stability_tab.open:
        with stability_tab:
            _stability(board, campaign, lp)
    if pvalue_tab.open:
        with pvalue_tab:
            p = pd.DataFrame(board["pvalues"].get("chrf", {})).T
            order = [s["system"] for s in board["systems"] if s["chrf"] is not None]
            st.caption("Two-sided p-values of sacrebleu's paired bootstrap on chrF (1000 resamples, seed 12345).")
            st.dataframe(p.reindex(index=order, columns=order), height=min(600, 40 + 35 * len(order)))


def _table(board: dict, campaign: str, lp: str) -> None:
    st.html(ov.board_markup(board))
    st.caption("One entry per team: its primary submission, else its best. Sorted by chrF. Rules separate "
               "clusters: sacrebleu's paired bootstrap (1000 resamples, seed 12345) finds no significant chrF "
               "difference (p < 0.05) inside a cluster; intervals are 95% bootstrap intervals.")
    st.caption(f"Signature: `{board['signature']}`")
    files = ov.board_exports(board)
    name = common.slug(f"automatic-{campaign}-{lp}")
    cols = st.columns(3)
    cols[0].download_button("Table as CSV", files["csv"], file_name=f"{name}.csv", mime="text/csv",
                            key="dl-auto-csv", on_click="ignore")
    cols[1].download_button("Leaderboard as JSON", files["json"], file_name=f"{name}.json",
                            mime="application/json", key="dl-auto-json", on_click="ignore")
    cols[2].download_button("LaTeX table", files["tex"], file_name=f"{name}.tex", mime="text/x-tex",
                            key="dl-auto-tex", on_click="ignore")


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
    common.chart(fig, common.slug(f"automatic-rank-stability-{campaign}-{lp}"))


if __name__ == "__main__":
    render()
