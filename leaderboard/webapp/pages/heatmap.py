"""Significance: the pairwise significance heat map of the selected snapshot (its own test and threshold)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from leaderboard.webapp import charts, common, state


def pvalue_table(ranking: dict) -> pd.DataFrame:
    """Long table of the published one-sided p-values (row system better than column system)."""
    names, mat = charts.significance_matrix(ranking)
    i, j = np.nonzero(np.isfinite(mat))
    labels = [lab for _, lab, _ in charts.P_LEVELS] + [charts.NOT_SIGNIFICANT[0]]
    return pd.DataFrame({"better": [names[a] for a in i], "worse": [names[b] for b in j],
                         "p_value": mat[i, j],
                         "significance": [labels[charts.significance_level(p)] for p in mat[i, j]]})


def render() -> None:
    found = common.snapshot_header("Pairwise significance")
    if found is None:
        return
    view, snap = found
    ranking = snap["ranking"]
    if not ranking.get("pvalues"):
        st.info("This snapshot has no pairwise p-values.")
        return
    from leaderboard.webapp.signature_text import describe
    words = describe(snap.get("signature") or ranking.get("signature"))
    st.caption(common.md_escape(
        f"A cell is shaded when the row system's scores are significantly higher than the column system's: "
        f"{words['test']}; darker = smaller p (three levels below 0.05). Systems are in leaderboard order "
        f"({words['sort']}). This ranking counts a win at {words['p_below']} and draws clusters with "
        f"{words['clusters']}; scores: {words['std']}; {words['qc']}."))
    name = f"significance-{view.campaign}-{view.lp}-{view.assessment}-v{view.version}"
    common.chart(state.figure("heatmap", *view.key), name)
    table = pvalue_table(ranking)
    with st.expander(f"All p-values ({len(table)} tests)"):
        st.dataframe(table, hide_index=True, column_config={"p_value": st.column_config.NumberColumn(format="%.3g")})
        common.csv_download(table, name, key="dl-pvalues")


if __name__ == "__main__":
    render()
