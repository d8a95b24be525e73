"""Significance: the pairwise significance heat map of the selected snapshot (its own test and threshold)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from leaderboard.webapp import charts, common, html_table, state
from leaderboard.webapp.markdown import md_escape


def pvalue_table(ranking: dict) -> pd.DataFrame:
    """Long table of the published one-sided p-values (row system better than column system)."""
    names, mat = charts.significance_matrix(ranking)
    i, j = np.nonzero(np.isfinite(mat))
    labels = [lab for _, lab, _ in charts.P_LEVELS] + [charts.NOT_SIGNIFICANT[0]]
    return pd.DataFrame({"better": [names[a] for a in i], "worse": [names[b] for b in j],
                         "p_value": mat[i, j],
                         "significance": [labels[charts.significance_level(p)] for p in mat[i, j]]})


STARS = ", ".join(f"{'*' * (len(charts.P_LEVELS) - k)} {label}" for k, (_, label, _) in enumerate(charts.P_LEVELS))


def matrix_table(ranking: dict) -> str:
    """The head-to-head table as the WMT Findings print it (HTML): row system against column system, each
    cell the significance level of "row better than column" in stars (``***`` for the smallest p level,
    blank when not significant), shaded like the heat map."""
    names, mat = charts.significance_matrix(ranking)
    n = len(names)
    levels = charts.significance_levels(mat)
    marks = ["*" * (len(charts.P_LEVELS) - k) for k in range(len(charts.P_LEVELS))] + [""]
    # human translations marked as on the Leaderboard: a dagger, the name in grey
    labels = charts.system_labels(ranking)
    human = [charts.is_human_entry(s) for s in ranking["systems"]]
    cells = [[f"{i + 1}. {label}"] + ["—" if i == j else marks[levels[i, j]] for j in range(n)]
             for i, label in enumerate(labels)]
    # columns by number, so the table fits
    shown = pd.DataFrame(cells, columns=["better ↓ than →"] + [str(i + 1) for i in range(n)])
    colours = [c for _, _, c in charts.P_LEVELS] + [charts.NOT_SIGNIFICANT[1]]
    css = [["color: #6b6b6b;" if human[i] else ""] + ["text-align: center; " + (f"background-color: {charts.SAME[1]};" if i == j else
                   f"background-color: {colours[levels[i, j]]};" + (" color: white;" if levels[i, j] < 2 else ""))
                   for j in range(n)] for i in range(n)]
    return html_table.table_html(shown, cell_css=css)


def render() -> None:
    found = common.snapshot_header("Pairwise significance")
    if found is None:
        return
    view, snap = found
    ranking = snap["ranking"]
    if not ranking.get("pvalues"):
        st.info("This snapshot has no pairwise p-values.")
        return
    from leaderboard.publish.render import describe
    from leaderboard.webapp.state import ranking_spec
    words = describe(ranking_spec(*view.key))
    st.caption(md_escape(
        f"A cell is shaded when the row system's scores are significantly higher than the column system's: "
        f"{words['test']}; darker = smaller p (three levels below 0.05). Systems are in leaderboard order "
        f"({words['sort']}); in the table, columns are numbered like the rows and {STARS}. This ranking counts a win at {words['p_below']} and draws clusters with "
        f"{words['clusters']}; scores: {words['std']}; {words['qc']}."
        + (" † human translation (grey)." if any(charts.is_human_entry(s) for s in ranking["systems"]) else "")))
    name = f"significance-{view.campaign}-{view.lp}-{view.assessment}-v{view.version}"
    table_tab, map_tab, list_tab = common.lazy_tabs(["Table", "Heat map", "All p-values"])
    if table_tab.open:
        with table_tab:
            st.html(matrix_table(ranking))
    if map_tab.open:
        with map_tab:
            common.chart(state.figure("heatmap", *view.key), name, "heat map")
    if list_tab.open:
        with list_tab:
            table = pvalue_table(ranking)
            st.caption(f"{len(table)} tests: every ordered pair of systems.")
            common.table(table, formats={"p_value": "%.3g"})
            common.csv_download(table, name, "Download p-values (CSV)", key="dl-pvalues")


if __name__ == "__main__":
    render()
