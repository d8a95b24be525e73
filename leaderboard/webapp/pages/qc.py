"""Quality control: the QC behind the published ranking first (for a WMT release the organisers' own),
then, on request, a re-test of the stored workers (docs/method/quality-control.md)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from leaderboard.webapp import charts, common, key_figures, snapshot_views, state
from leaderboard.webapp.markdown import md_escape
from leaderboard.webapp.key_figures import Figure

def qc_methods() -> list[str]:
    """The QC module's methods, its default first."""
    from leaderboard.human.qc import DEFAULT_METHOD, METHODS
    return [DEFAULT_METHOD] + [m for m in METHODS if m != DEFAULT_METHOD]


def summary_frame(summary: dict) -> pd.DataFrame:
    """Kept / removed counts of workers and judgments from a :func:`leaderboard.human.qc.qc_summary` dict."""
    rows = [{"what": what, "kept": summary[f"{what}_kept"],
             "removed": summary[f"{what}_total"] - summary[f"{what}_kept"]}
            for what in ("workers", "judgments") if f"{what}_kept" in summary]
    return pd.DataFrame(rows, columns=["what", "kept", "removed"])


def qc_label_text(label: str) -> str:
    """The spec's ``qc`` field in words (the phrase of the ranking's caption), then the field itself."""
    from leaderboard.publish.render import qc_phrase
    return f"{qc_phrase(label)} (qc:{label})"


def render() -> None:
    found = common.snapshot_header("Quality control")
    if found is None:
        return
    view, snap = found
    url = state.store_url()
    token = state.data_token(url, view.campaign)
    recorded = getattr(state.ranking_spec(*view.key), "qc_label", None)
    info = snapshot_views.qc_of_snapshot(url, *view.key[1:], token) if recorded else None
    st.markdown("### Behind the published ranking")
    if recorded is None:
        st.info("This snapshot's specification does not record a worker quality control; the view below re-tests "
                "the stored judgments.", icon=":material/info:")
    elif info is None:
        st.info(f"The ranking used {qc_label_text(recorded)}; the judgments behind it are not stored, so "
                "there is nothing more to show.", icon=":material/info:")
    else:
        _published_qc(view, info)
    published = snap["ranking"].get("qc")
    if published:
        with st.expander("Quality control recorded in the ranking"):
            st.json(published, expanded=False)
    _release_verdicts(view, recorded)
    _retest(view, token, recorded, info)


def _published_qc(view: common.View, info: dict) -> None:
    label, stored = info["label"], info["stored"]
    lps = ", ".join(stored["lps"])
    if label == "release":
        st.markdown(md_escape(
            f"The ranking used {qc_label_text(label)}, so nothing was filtered again: all "
            f"{stored['lp_workers']:,} workers and their {stored['lp_judgments']:,} judgments of "
            f"{view.lp} (every item type, quality-control items included) are kept."))
        key_figures.show([
            Figure("Workers in the ranking", f"{stored['lp_workers']:,}", help="all passed the organisers' QC"),
            Figure("Judgments kept (all item types)", f"{stored['lp_judgments']:,}",
                   help="the ranking scores the SYSTEM and REPEAT items among them"),
            Figure("Removed here", "none", help="the release is already filtered")])
    elif label == "none":
        st.markdown(md_escape(
            f"The ranking used {qc_label_text(label)}: every stored judgment of {view.lp} counts "
            f"({stored['lp_workers']:,} workers, {stored['lp_judgments']:,} judgments)."))
    else:
        summary = info["summary"] or {}
        report_payload = info.get("report")
        if summary and summary.get("lp") != view.lp and len(stored["lps"]) > 1 and info.get("method"):
            # published before the counts were per language pair: count this pair's workers again
            _, report, summary, _ = state.qc(state.store_url(), view.campaign, None, view.assessment,
                                             state.data_token(state.store_url(), view.campaign), info["method"],
                                             float(info["alpha"]), count_lp=view.lp)
            report_payload = report if isinstance(report, pd.DataFrame) else None
        st.markdown(md_escape(
            f"The ranking used {qc_label_text(label)}, one verdict per worker pooled over the campaign's "
            f"language pairs ({lps}; {view.assessment}), then ranked the judgments of the workers who passed. "
            f"Counted below: the workers who judged {view.lp} and their {view.lp} judgments."))
        counts = summary_frame(summary)
        if not counts.empty:
            _kept_metrics(counts)
            common.chart(charts.qc_figure(counts), f"qc-{view.lp}-published", "QC chart")
        if isinstance(report_payload, pd.DataFrame):
            _worker_table(report_payload, f"qc-workers-{view.campaign}-{view.lp}-published", "dl-qc-published")
        elif report_payload:
            from leaderboard.publish.artifacts import payload_frame
            _worker_table(payload_frame(report_payload), f"qc-workers-{view.campaign}-{view.lp}-published",
                          "dl-qc-published")


def _release_verdicts(view: common.View, recorded: str | None) -> None:
    """The release's own per-worker verdicts (stored with the snapshot when the release has them)."""
    if recorded != "release":
        return
    verdicts = state.artifact(*view.key, "release_qc")
    if not verdicts:
        st.caption("The release's per-worker QC verdicts are not stored with this snapshot.")
        return
    from leaderboard.publish.artifacts import payload_frame
    table = payload_frame(verdicts["report"])
    st.markdown("**The organisers' per-worker verdicts** " + md_escape(
        f"({verdicts['source']}): {verdicts['good']:,} of "
        f"{verdicts['with_verdict']:,} workers of this ranking are rated good by the paired bad-reference test "
        "over all of their HITs (every language pair they judged), p < 0.05."))
    common.table(table, {"worker": "Worker", "pairs": "Bad-reference pairs"},
                 {"p": "%.2g", "t": "%.2f", "pairs": "%d"}, height=280)
    common.csv_download(table, f"qc-release-workers-{view.campaign}-{view.lp}", "Download worker verdicts (CSV)", key="dl-qc-release")


def _worker_table(report: pd.DataFrame, name: str, key: str) -> None:
    st.markdown("**Per-worker report**")
    first = [c for c in ("worker", "lp", "passed", "p_value", "n", "n_pairs", "mean_ref", "mean_system",
                         "mean_bad_ref", "p_repeat", "flags", "reason") if c in report.columns]
    shown = report[first + [c for c in report.columns if c not in first]]
    fmt = {c: "%.2g" for c in shown.columns if c.startswith("p_")}
    fmt.update({c: "%.1f" for c in shown.columns if c.startswith("mean_") and pd.api.types.is_numeric_dtype(shown[c])})
    common.table(shown, formats=fmt, height=320)
    common.csv_download(report, name, "Download worker QC report (CSV)", key=key)


def _retest(view: common.View, token: str, recorded: str | None, info: dict | None) -> None:
    """Optional: run a worker test on the stored judgments (what-if; not what the ranking used)."""
    st.markdown("### Re-test the stored workers (optional)")
    if recorded == "release":
        st.caption("A what-if, not the published QC. Re-testing the released workers on the stored judgments "
                   "loses power: each worker's test sees only their judgments of the language pair(s) stored "
                   "here, not all their HITs, so workers who passed the organisers' test can fail it here.")
    else:
        st.caption("A what-if, not the published QC: another test or threshold on the stored judgments.")
    if not st.toggle("Show the re-test", value=recorded is None, key="qc_retest"):
        return
    common.method_link("quality-control", "How the tests work (Method: worker quality control)")
    methods = qc_methods()
    cols = st.columns(2)
    method = cols[0].selectbox("Test", methods, key="qc_method")
    alpha = cols[1].select_slider("Threshold p <", options=[0.01, 0.05, 0.1], value=0.05, key="qc_alpha")
    # one verdict per worker pooled over the campaign's language pairs, as WMT did
    kept, report, summary, _ = state.qc(state.store_url(), view.campaign, None, view.assessment, token,
                                        method, float(alpha), count_lp=view.lp)
    st.caption(md_escape(f"Re-test: workers are judged over all stored language pairs of {view.campaign} "
                                f"({view.assessment}); method {method}, p < {alpha}. Counted: the workers who "
                                f"judged {view.lp} and their {view.lp} judgments."))
    counts = summary_frame(summary)
    if not counts.empty:
        _kept_metrics(counts)
        common.chart(charts.qc_figure(counts, title="Re-test (what-if): what the test would keep"),
                     f"qc-{view.lp}-{method}", "re-test chart")
    if recorded == "release" and summary.get("workers_total"):
        lps = ", ".join(info["stored"]["lps"]) if info else view.lp
        st.caption(md_escape(
            f"Re-testing the released workers on the stored language pair(s) ({lps}) alone loses power: {summary['workers_kept']:,} of "
            f"{summary['workers_total']:,} kept. The published ranking keeps all of them, as the organisers' QC "
            "over all of their HITs passed them."))
    with st.expander("Summary (all fields)"):
        st.json(common.json_bytes(summary).decode("utf-8"))
    if isinstance(report, pd.DataFrame):
        _worker_table(report, f"qc-workers-{view.campaign}-{view.lp}-{method}", "dl-qc")


def _kept_metrics(counts) -> None:
    """One key figure per counted kind (workers, judgments): kept of total, with the share."""
    figures = []
    for row in counts.itertuples():
        total = row.kept + row.removed
        share = f"{100 * row.kept / total:.1f}% kept" if total else None
        figures.append(Figure(f"{row.what.capitalize()} kept", f"{row.kept:,} of {total:,}", note=share, help=share))
    key_figures.show(figures)


if __name__ == "__main__":
    render()
