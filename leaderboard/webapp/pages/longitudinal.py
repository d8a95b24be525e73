"""Across years: best-system scores per year and the calibrated gain per language pair (Graham et al. 2014)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from leaderboard.errors import InputError
from leaderboard.webapp import charts, common, snapshot_views, state
from leaderboard.webapp.markdown import md_escape


def default_selection(snaps: pd.DataFrame, url: str) -> tuple[list[str], str]:
    """What the page opens on: two campaigns of the same kind (real releases, or simulated ones) that
    published the same language pair and assessment, older first
    (:func:`leaderboard.human.longitudinal.default_campaign_pairs`), and a calibration system judged
    in both (MT, not a human translation: the one with the most segments judged in the year where it
    has fewer). ([], "") when no two campaigns share a pair."""
    from leaderboard.human.longitudinal import base_name, default_campaign_pairs
    from leaderboard.naming import is_human
    pairs = default_campaign_pairs(snaps)
    if not pairs:
        return [], ""
    first, second = pairs[0]["from"], pairs[0]["to"]
    lp, assessment = pairs[0]["shared"][0]
    latest = snaps.sort_values("version").groupby(["campaign", "lp", "assessment"], as_index=False).last()
    latest = latest.assign(assessment=latest["assessment"].astype(str)).set_index(["campaign", "lp", "assessment"])
    counts = []
    for campaign in (first, second):
        row = latest.loc[(campaign, lp, assessment)]
        ranking = state.snapshot(url, campaign, lp, assessment, int(row["version"]))["ranking"]
        counts.append({base_name(s["system"]): int(s.get("n") or 0) for s in ranking["systems"]
                       if not is_human(s["system"])})
    both = set(counts[0]) & set(counts[1])
    best = max(sorted(both), key=lambda s: min(counts[0][s], counts[1][s]), default="")
    return [first, second], best


#: headers and formats of :func:`comparison_table` and :func:`track_table` on the page
COMPARISON_COLUMNS = {"lp": ("Language pair", None), "assessment": ("Assessment", None), "from": ("From", None),
                      "to": ("To", None), "best_from": ("Best (from)", None), "best_to": ("Best (to)", None),
                      "best_difference": ("Best: difference", "{:+.2f}"), "best_difference_stars": ("Significance", None),
                      "calibration_system": ("Calibration (CURR)", None), "delta": ("Δ", "{:+.2f}"),
                      "delta_stars": ("Δ significance", None), "gain": ("Gain", "{:+.2f}")}
TRACK_COLUMNS = {"lp": ("Language pair", None), "assessment": ("Assessment", None), "year": ("Campaign", None),
                 "best_system": ("Best system", None), "ave": ("Ave", "{:.1f}"), "ave_z": ("Ave z", "{:.3f}")}


def comparison_table(result: dict) -> pd.DataFrame:
    """One row per language pair and pair of years: best systems, raw difference, Δ and calibrated gain."""
    rows = []
    for c in result["comparisons"]:
        best = c["best"]
        cal = (c.get("calibration") or {}).get("raw") or {}
        raw = best.get("raw") or {}
        rows.append({
            "lp": c["lp"], "assessment": c["assessment"], "from": c["from"], "to": c["to"],
            "best_from": (best.get("from") or {}).get("system"), "best_to": (best.get("to") or {}).get("system"),
            "best_difference": raw.get("difference"), "best_difference_stars": raw.get("stars", ""),
            "calibration_system": ((c.get("calibration") or {}).get("system") or {}).get("from", {}).get("system"),
            "delta": cal.get("delta"), "delta_stars": cal.get("delta_stars", ""), "gain": cal.get("gain"),
        })
    return pd.DataFrame(rows)


def track_table(result: dict) -> pd.DataFrame:
    rows = []
    for t in result["tracks"]:
        for y in t["years"]:
            best = y.get("best") or {}
            rows.append({"lp": t["lp"], "assessment": t["assessment"], "year": y["label"],
                         "best_system": best.get("system"), "ave": best.get("ave"), "ave_z": best.get("ave_z")})
    return pd.DataFrame(rows)


def render() -> None:
    st.title("Across years")
    st.caption("Test sets differ in difficulty between years, so the difference between two years' best systems "
               "is not a gain by itself. A benchmark system judged in both years calibrates it (Graham et al. 2014): "
               "Δ = score(CURR, earlier) − score(CURR, later); gain = (BEST later − BEST earlier) + Δ.")
    common.method_link("longitudinal", "Method: comparing years")
    url = state.store_url()
    snaps = state.snapshots(url)
    from leaderboard.human.longitudinal import campaigns_in_time_order
    names = campaigns_in_time_order(snaps)
    if len(names) < 2:
        st.info("A comparison across years needs published results of at least two campaigns.")
        return
    wanted = [c for c in st.query_params.get_all("year") if c in names]
    if "years" not in st.session_state:
        default, curr = default_selection(snaps, url)
        st.session_state["years"] = wanted or default or names[:2]
        if "calibration" not in st.session_state:
            st.session_state["calibration"] = st.query_params.get("calibration", curr if not wanted else "")
            st.session_state["calibration_auto"] = st.session_state["calibration"] if not wanted else ""
    chosen = st.multiselect("Campaigns in time order (earliest first)", names, key="years")
    st.query_params["year"] = list(chosen)
    cols = st.columns(3)
    calibration = cols[0].text_input("Calibration system (CURR), e.g. Online-B", key="calibration",
                                     help="a system judged in both years; base names match 'Online-B.0' and "
                                          "'Online-B.11'; the page opens on the shared system with the most "
                                          "judged segments").strip()
    st.query_params["calibration"] = calibration
    best_by = cols[1].selectbox("Best system by", ["z", "raw"], key="best_by",
                                format_func=lambda s: "Ave z" if s == "z" else "Ave (raw)")
    alternative = cols[2].selectbox("Test", ["one-sided", "two-sided"], key="alternative")
    if len(chosen) < 2:
        st.info("Choose at least two campaigns.")
        return
    pairs = snaps[snaps["campaign"].isin(chosen)].drop_duplicates(["campaign", "lp", "assessment"])
    if not (pairs.groupby(["lp", "assessment"])["campaign"].nunique() >= 2).any():
        held = "; ".join(f"{c}: {', '.join(sorted(pairs.loc[pairs['campaign'] == c, 'lp'].unique()))}" for c in chosen)
        st.info("The chosen campaigns have no language pair and assessment in common, and a comparison across "
                f"years needs the same pair published in at least two of them ({md_escape(held)}).")
        return
    latest = snaps[snaps["campaign"].isin(chosen)].sort_values("version").groupby(
        ["campaign", "lp", "assessment"], as_index=False).last()
    versions = tuple((r.campaign, r.lp, r.assessment, int(r.version)) for r in latest.itertuples())
    tokens = tuple(state.data_token(url, c) for c in chosen)
    try:
        result = snapshot_views.compare_years(url, tuple(chosen), versions, tokens, calibration, best_by, alternative)
    except InputError as exc:
        common.show_input_error(exc)
        return
    tracks = track_table(result)
    table = comparison_table(result)
    with_gain = table.dropna(subset=["gain"]) if "gain" in table else table.iloc[0:0]
    tables_tab, charts_tab = common.lazy_tabs(["Tables", "Charts"])
    if tables_tab.open:
        with tables_tab:
            st.markdown("**Year-to-year comparison** (raw Ave; stars: * p<0.05, ** p<0.01, *** p<0.001)")
            common.static_table(table, COMPARISON_COLUMNS)
            common.csv_download(table, "longitudinal-gains", "Download year-on-year gains (CSV)", key="dl-gains")
            st.markdown("**Best system per year**")
            common.static_table(tracks, TRACK_COLUMNS)
            common.csv_download(tracks, "longitudinal-best", "Download best systems per year (CSV)", key="dl-tracks")
    if charts_tab.open:
        with charts_tab:
            _charts(tracks, with_gain, best_by)
    _anchors(result, calibration)
    uncalibrated = [c for c in result["comparisons"] if c.get("calibration") is None]
    for statement in dict.fromkeys(c["statement"] for c in uncalibrated):
        pairs = ", ".join(f"{c['lp']} {c['from']}→{c['to']}" for c in uncalibrated if c["statement"] == statement)
        st.warning(common.lower_text(f"{pairs}: {statement}") + " Choose a system judged in both years under "
                   "**Calibration system (CURR)** above.", icon=":material/warning:")
    for note in result.get("notes", []):
        st.caption(common.lower_text(note))


def anchor_rows(result: dict) -> pd.DataFrame:
    """One row per comparison and possible anchor: the calibrated gain (raw Ave) it gives, and whether it is
    the anchor the comparison uses."""
    rows = []
    for c in result["comparisons"]:
        anchors = c.get("anchors") or {}
        for r in anchors.get("anchors", []):
            rows.append({"lp": c["lp"], "assessment": c["assessment"], "from": c["from"], "to": c["to"],
                         "anchor": r["anchor"], "used": "yes" if r["anchor"] == anchors.get("used") else "",
                         "delta": r["delta"], "gain": r["gain"]})
    return pd.DataFrame(rows, columns=["lp", "assessment", "from", "to", "anchor", "used", "delta", "gain"])


ANCHOR_COLUMNS = {"lp": ("Language pair", None), "assessment": ("Assessment", None), "from": ("From", None),
                  "to": ("To", None), "anchor": ("Anchor (assumed unchanged)", None), "used": ("Used here", None),
                  "delta": ("Δ", "{:+.2f}"), "gain": ("Gain", "{:+.2f}")}


def _anchors(result: dict, calibration: str) -> None:
    """Which anchor (calibration system) each comparison uses, how it was chosen, the gain with every other
    possible anchor, and a warning when the anchor decides whether the best system improved."""
    used = sorted({c["anchors"]["used"] for c in result["comparisons"] if (c.get("anchors") or {}).get("used")})
    if used:
        how = ("chosen by the page: the machine-translation system judged in both years with the most judged "
               "segments" if calibration and calibration == st.session_state.get("calibration_auto")
               else "typed in above")
        st.markdown(md_escape(f"Anchor (calibration system) used: {', '.join(used)} ({how})."))
    for c in result["comparisons"]:
        statement = (c.get("anchors") or {}).get("statement")
        if statement:
            st.warning(common.lower_text(f"{c['lp']} ({c['assessment']}): {statement}"), icon=":material/warning:")
    rows = anchor_rows(result)
    if not rows.empty:
        with st.expander("Gain with each possible anchor"):
            st.caption("Each system judged in both years taken in turn as the unchanged anchor, as if it had been "
                       "typed in as the calibration system (raw Ave; human translations left out).")
            common.static_table(rows, ANCHOR_COLUMNS)


def _charts(tracks: pd.DataFrame, with_gain: pd.DataFrame, best_by: str) -> None:
    """The best system's score per year, and the calibrated gain (Graham et al. 2014, Fig. 1) with its bars."""
    score = "ave_z" if best_by == "z" else "ave"
    st.markdown("**Best system per year**")
    common.chart(charts.year_lines_figure(tracks.assign(group=tracks["lp"] + " " + tracks["assessment"].astype(str)),
                                          "year", score, "group", "Best system's score per year",
                                          x_title="campaign (year)",
                                          y_title="best system's " + ("Ave z (standardised)" if best_by == "z"
                                                                       else "Ave (raw, 0–100 points)")),
                 "longitudinal-best", "best-system chart")
    if not with_gain.empty:
        st.markdown("**Calibrated gain per language pair** (Graham et al. 2014, Fig. 1: the best systems' "
                    "difference against the test set's extra difficulty Δ; points on one dotted diagonal have "
                    "the same gain)")
        common.chart(charts.gain_figure(with_gain), "longitudinal-gain", "calibrated gain chart")
        common.chart(charts.gain_bars(with_gain), "longitudinal-gain-bars", "gain bars chart")


if __name__ == "__main__":
    render()
