"""Leaderboard: the published ranking of the selected campaign / language pair / version."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from leaderboard.webapp import common, html_table, state

COLUMNS = {"rank": "Rank", "system": "System", "mqm": "MQM", "mqm_ci": "MQM 95% CI", "ave": "Ave.",
           "ave_ci": "Ave. 95% CI", "ave_z": "Ave. z", "ave_z_ci": "Ave. z 95% CI", "h": "H", "n": "N",
           "n_all": "N (all)"}
NO_VALUE = "—"
DOMAIN_FORMATS = {"ave": "{:.1f}", "ave_z": "{:.3f}"}
# fallback for rankings whose signature names no test (hand-made or foreign snapshots)
CAPTIONS = {
    "mqm": "Expert MQM: lower is better; N = rated segments.",
    "esa": "ESA (error span annotation): marked error spans are on the System page.",
}


def _interval_text(lo, hi, digits: int) -> str:
    if lo is None or hi is None or pd.isna(lo) or pd.isna(hi):
        return NO_VALUE
    return f"{lo:.{digits}f} – {hi:.{digits}f}"


def display_table(table: pd.DataFrame) -> pd.DataFrame:
    """The columns the page shows (``ranking_table`` names): intervals as text ("—" when the snapshot
    has none) and a dagger after each human translation."""
    out = table.copy()
    human = out["human"].fillna(False).astype(bool) if "human" in out else pd.Series(False, index=out.index)
    out["system"] = [f"{s} †" if h else str(s) for s, h in zip(out["system"], human)]
    for key, digits in (("ave", 1), ("ave_z", 3), ("mqm", 3)):
        if key in out:
            lo = out[f"{key}_lo"] if f"{key}_lo" in out else pd.Series(None, index=out.index)
            hi = out[f"{key}_hi"] if f"{key}_hi" in out else pd.Series(None, index=out.index)
            out[f"{key}_ci"] = [_interval_text(a, b, digits) for a, b in zip(lo, hi)]
    return out


def table_markup(table: pd.DataFrame) -> str:
    """The ranking as WMT Findings print it (HTML): a rule above the first system of every new cluster,
    alternate clusters shaded, human translations in grey with a dagger, each score with its 95%
    interval."""
    shown_all = display_table(table)
    names = domain_columns(table)
    order = [c for c in COLUMNS if c in shown_all.columns]
    at = order.index("n") if "n" in order else len(order)
    shown = shown_all[order[:at] + list(names) + order[at:]].rename(columns={**COLUMNS, **names})
    starts = html_table.cluster_starts(table["cluster"].tolist()) if "cluster" in table else [False] * len(table)
    human = table["human"].fillna(False).astype(bool).to_numpy() if "human" in table else [False] * len(table)
    rows, band = [], 0
    for start, is_human in zip(starts, human):
        band += start
        rows.append(("background-color: #f3f6fb;" if band % 2 else "") + (html_table.CLUSTER_RULE if start else "")
                    + ("color: #6b6b6b;" if is_human else ""))
    fmt = {"MQM": "{:.3f}", "Ave.": "{:.1f}", "Ave. z": "{:.3f}", "H": "{:.3f}", "N": "{:,.0f}", "N (all)": "{:,.0f}",
           **{header: DOMAIN_FORMATS.get(table.attrs.get("domain_score", "ave"), "{:.1f}") for header in names.values()}}
    intervals = [v for k, v in COLUMNS.items() if k.endswith("_ci") and v in shown.columns]
    return html_table.table_html(shown, fmt, row_css=rows, number_columns=intervals)


def domain_columns(table: pd.DataFrame) -> dict[str, str]:
    """The table's per-domain columns (``domain:news``) → their headers (``news``)."""
    from leaderboard.publish.render import DOMAIN_PREFIX
    return {c: c[len(DOMAIN_PREFIX):] for c in table.columns if str(c).startswith(DOMAIN_PREFIX)}


def domain_caption(ranking: dict, spec) -> str:
    """What the per-domain columns hold (empty when the ranking has none)."""
    from leaderboard.publish.render import domain_names
    names = domain_names(ranking)
    if not names:
        return ""
    score = {"ave": "Ave.", "ave_z": "Ave. z"}.get(str(ranking.get("domain_score", "ave")), "score")
    sort = getattr(spec, "sort", None) or ""
    text = (f"Per domain ({', '.join(names)}): the system's {score} over its segments of that domain")
    if sort.endswith("-domain-mean"):
        text += f"; {score} is the mean of these per-domain scores"
    return text + "."


def caption(ranking: dict, assessment: str, spec) -> str:
    """The caption: derived from the ranking's spec (:func:`leaderboard.publish.render.ranking_caption`)."""
    from leaderboard.publish.render import ranking_caption
    text = ranking_caption(ranking, spec)
    extra = CAPTIONS.get(assessment)
    domains = domain_caption(ranking, spec)
    return text + (" " + extra if extra else "") + (" " + domains if domains else "")


def render() -> None:
    found = common.snapshot_header("Leaderboard")
    if found is None:
        return
    view, snap = found
    table_tab, chart_tab, stability_tab, versions_tab = common.lazy_tabs(
        ["Table", "Chart", "Rank stability", "Versions"])
    name = f"ranking-{view.campaign}-{view.lp}-{view.assessment}-v{view.version}"
    if table_tab.open:
        with table_tab:
            _table(view, snap, name)
    if chart_tab.open:
        with chart_tab:
            common.chart(state.figure("ranking", *view.key), name, "ranking chart")
            st.caption(caption(snap["ranking"], view.assessment, state.ranking_spec(*view.key)))
    if stability_tab.open:
        with stability_tab:
            _stability(view)
    if versions_tab.open:
        with versions_tab:
            _versions(view)


def _table(view: common.View, snap: dict, name: str) -> None:
    table = state.ranking_table(*view.key)
    st.html(table_markup(table))
    st.caption(caption(snap["ranking"], view.assessment, state.ranking_spec(*view.key)))
    common.export_downloads(state.exports(*view.key), name, "ranking", key="dl-ranking")


def _stability(view: common.View) -> None:
    shares = state.figure("rank_shares", *view.key)
    if shares is None:
        st.caption(f"Rank stability: {NO_VALUE} (this version was published without bootstrap resamples).")
        return
    st.caption("How sure each position is: the share of the bootstrap resamples of the test set's segments "
               "in which each system takes each rank (the rank ranges in the table come from the significance "
               "tests).")
    common.chart(shares, f"rank-stability-{view.campaign}-{view.lp}-{view.assessment}-v{view.version}",
                 "rank stability chart")


def _versions(view: common.View) -> None:
    snaps = state.snapshots(state.store_url())
    mine = snaps[(snaps["campaign"] == view.campaign) & (snaps["lp"] == view.lp)
                 & (snaps["assessment"] == view.assessment)]
    st.markdown(f"**All published versions** ({len(mine)})")
    shown = mine[["version", "published_at", "published_by", "signature", "data_hash", "note"]] \
        .sort_values("version", ascending=False)
    common.table(shown, {"version": "Version", "published_at": "Published (UTC)", "data_hash": "Data hash"})
    st.caption("Published versions are immutable; a correction is published as a new version. "
               "Choose a version in the sidebar to open it; the link in the address bar keeps it.")


if __name__ == "__main__":
    render()
