"""Quality control: how many workers and judgments the worker filter keeps (METHOD.md §3)."""

from __future__ import annotations

import numbers

import pandas as pd
import streamlit as st

from leaderboard.webapp import charts, common, state

DEFAULT_METHODS = ("paired-t",)


def qc_methods() -> list[str]:
    from leaderboard import qc
    methods = list(getattr(qc, "METHODS", None) or DEFAULT_METHODS)
    default = getattr(qc, "DEFAULT_METHOD", methods[0])
    return [default] + [m for m in methods if m != default]


def summary_frame(summary: dict) -> pd.DataFrame:
    """Kept / removed counts of workers and judgments from a qc_summary dict (whatever names it uses)."""
    rows = []
    for what in ("workers", "judgments", "hits"):
        kept = next((summary[k] for k in (f"{what}_kept", f"kept_{what}") if k in summary), None)
        total = next((summary[k] for k in (f"{what}_total", f"total_{what}", f"{what}_all", what)
                      if k in summary and isinstance(summary[k], numbers.Number)), None)
        removed = next((summary[k] for k in (f"{what}_removed", f"removed_{what}") if k in summary), None)
        if kept is None:
            continue
        if removed is None and total is not None:
            removed = total - kept
        rows.append({"what": what, "kept": kept, "removed": removed if removed is not None else 0})
    return pd.DataFrame(rows, columns=["what", "kept", "removed"])


def render() -> None:
    found = common.snapshot_header("Quality control")
    if found is None:
        return
    view, snap = found
    published = snap["ranking"].get("qc")
    if published:
        st.markdown("**Quality control recorded with this snapshot**")
        st.json(published, expanded=False)
    if not state.has_module("leaderboard.qc"):
        st.info("The worker filter (leaderboard.qc) is not available in this installation.")
        return
    methods = qc_methods()
    cols = st.columns(2)
    method = cols[0].selectbox("Test (METHOD.md §3)", methods, key="qc_method")
    alpha = cols[1].select_slider("Threshold p <", options=[0.01, 0.05, 0.1], value=0.05, key="qc_alpha")
    token = state.data_token(state.store_url(), view.campaign)
    # one verdict per worker pooled over the campaign's language pairs, as WMT did
    kept, report, summary, _ = state.qc(state.store_url(), view.campaign, None, view.assessment, token,
                                        method, float(alpha))
    st.caption(common.md_escape(f"Workers are judged over all language pairs of {view.campaign} "
                                f"({view.assessment}); method {method}, p < {alpha}."))
    counts = summary_frame(summary)
    if not counts.empty:
        cols = st.columns(len(counts))
        for col, row in zip(cols, counts.itertuples()):
            total = row.kept + row.removed
            col.metric(f"{row.what.capitalize()} kept", f"{row.kept:,} of {total:,}",
                       help=f"{100 * row.kept / total:.1f}% kept" if total else None)
        common.chart(charts.qc_figure(counts), f"qc-{view.lp}-{method}")
    with st.expander("Summary (all fields)"):
        st.json(common.json_bytes(summary).decode("utf-8"))
    if isinstance(report, pd.DataFrame):
        st.markdown("**Per-worker report**")
        first = [c for c in ("worker", "lp", "passed", "p_value", "n", "n_pairs", "mean_ref", "mean_system",
                             "mean_bad_ref", "p_repeat", "flags", "reason") if c in report.columns]
        shown = report[first + [c for c in report.columns if c not in first]]
        fmt = {c: st.column_config.NumberColumn(format="%.2g") for c in shown.columns if c.startswith("p_")}
        fmt.update({c: st.column_config.NumberColumn(format="%.1f") for c in shown.columns
                    if c.startswith("mean_") and pd.api.types.is_numeric_dtype(shown[c])})
        st.dataframe(shown, hide_index=True, height=320, column_config=fmt)
        common.csv_download(report, f"qc-workers-{view.campaign}-{view.lp}-{method}", key="dl-qc")
    st.caption("The stored data may already be filtered (the WMT releases contain only the judgments of "
               "workers who passed); then the filter keeps nearly everything.")


if __name__ == "__main__":
    render()
