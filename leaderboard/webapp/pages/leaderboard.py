"""Leaderboard: the published ranking of the selected campaign / language pair / version."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from leaderboard.webapp import common, state

COLUMNS = {"rank": "Rank", "system": "System", "mqm": "MQM", "ave": "Ave.", "ave_z": "Ave. z", "n": "N",
           "n_all": "N (all)"}


CAPTIONS = {
    "da": "Systems are ordered by Ave. z (the mean of per-segment worker-standardised scores). Rules separate "
          "clusters: systems inside a cluster are not significantly different under the one-sided Wilcoxon "
          "rank-sum test (p < 0.05); Rank gives each system's rank range.",
    "mqm": "Expert MQM: systems are ordered by MQM (mean over rated segments of the error weights, averaged over "
           "raters; lower is better; the weight scheme is in the signature). Clusters and rank ranges come from "
           "one-sided paired Wilcoxon signed-rank tests on the segments both systems have (p < 0.05); N = rated "
           "segments.",
    "esa": "ESA (error span annotation): systems are ordered by the protocol's score (raw 0-100 for wmt24-esa); "
           "clusters and rank ranges follow the protocol named in the signature (wmt24-esa: two-sided signed-rank "
           "tests per domain, combined with Stouffer's Z). Marked error spans are on the System page.",
}


def styled_table(table: pd.DataFrame):
    """The ranking as WMT Findings print it: a rule above the first system of every new cluster."""
    shown = common.plain_cells(table[[c for c in COLUMNS if c in table.columns]]).rename(columns=COLUMNS)
    clusters = table["cluster"].to_numpy() if "cluster" in table else None
    band = []
    k = 0
    for i in range(len(table)):
        if clusters is not None and i and clusters[i] != clusters[i - 1]:
            k += 1
        band.append(k)

    def row_style(row: pd.Series) -> list[str]:
        i = row.name
        css = "background-color: #f3f6fb;" if band[i] % 2 else ""
        if i and band[i] != band[i - 1]:
            css += "border-top: 3px solid #1f4e99;"
        return [css] * len(row)

    fmt = {"MQM": "{:.3f}", "Ave.": "{:.1f}", "Ave. z": "{:.3f}", "N": "{:,.0f}", "N (all)": "{:,.0f}"}
    return shown.style.apply(row_style, axis=1).format({k: v for k, v in fmt.items() if k in shown.columns},
                                                       na_rep="–").hide(axis="index")


def render() -> None:
    found = common.snapshot_header("Leaderboard")
    if found is None:
        return
    view, snap = found
    table = state.ranking_table(*view.key)
    st.table(styled_table(table))
    st.caption(CAPTIONS.get(view.assessment, CAPTIONS["da"]))
    name = f"ranking-{view.campaign}-{view.lp}-{view.assessment}-v{view.version}"
    files = state.exports(*view.key)
    cols = st.columns(3)
    cols[0].download_button("Table as CSV", files["csv"], file_name=f"{common.slug(name)}.csv", mime="text/csv",
                            key="dl-ranking-csv", on_click="ignore")
    cols[1].download_button("Ranking as JSON", files["json"], file_name=f"{common.slug(name)}.json",
                            mime="application/json", key="dl-ranking-json", on_click="ignore")
    cols[2].download_button("LaTeX table", files["tex"], file_name=f"{common.slug(name)}.tex", mime="text/x-tex",
                            key="dl-ranking-tex", on_click="ignore")
    common.chart(state.figure("ranking", *view.key), name)
    _versions(view)


def _versions(view: common.View) -> None:
    snaps = state.snapshots(state.store_url())
    mine = snaps[(snaps["campaign"] == view.campaign) & (snaps["lp"] == view.lp)
                 & (snaps["assessment"] == view.assessment)]
    with st.expander(f"All published versions ({len(mine)})"):
        shown = mine[["version", "published_at", "published_by", "signature", "data_hash", "note"]] \
            .sort_values("version", ascending=False)
        st.dataframe(shown, hide_index=True)
        st.caption("Published versions are immutable; a correction is published as a new version. "
                   "Choose a version in the sidebar to open it; the link in the address bar keeps it.")


if __name__ == "__main__":
    render()
