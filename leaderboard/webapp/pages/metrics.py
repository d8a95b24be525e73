"""Metrics: evaluation package download, metric score upload (private until published), and results."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from leaderboard.errors import InputError
from leaderboard.webapp import charts, common, key_figures, state
from leaderboard.webapp.markdown import md_escape
from leaderboard.webapp.key_figures import Figure
from leaderboard.webapp.pages.organiser import MAX_UPLOAD_MB, uploaded_path
from leaderboard.publish import metric_eval as me
from leaderboard.webapp import metrics_views as mv


def render() -> None:
    st.title("Metrics")
    view = common.require_view()
    if view is None:
        return
    user = common.current_user()
    url = state.store_url()
    token = state.data_token(url, view.campaign)
    st.subheader(md_escape(f"{view.campaign} · {view.lp} · {view.assessment}"))
    results_tab, spans_tab, package_tab, upload_tab = common.lazy_tabs(
        ["Results", SPANS_TAB, "Evaluation package", "Upload scores"])
    if spans_tab.open:
        with spans_tab:
            if common.require_role("metric-developer", "organiser", action="evaluate error spans"):
                _span_tasks(view, token)
    if package_tab.open:
        with package_tab:
            _package(view, token)
    if upload_tab.open:
        with upload_tab:
            if common.require_role("metric-developer", "organiser", action="upload metric scores"):
                _upload(view, user, token)
    if results_tab.open:
        with results_tab:
            _results(view, user, token)


def _package(view: common.View, token: str) -> None:
    if not common.require_role("metric-developer", "organiser", action="download the evaluation package"):
        return
    url = state.store_url()
    snaps = state.snapshots(url)
    lps = tuple(sorted(snaps.loc[snaps["campaign"] == view.campaign, "lp"].unique()))
    data = mv.evaluation_package(url, view.campaign, lps, token)
    st.download_button("Download the evaluation package (zip)", data,
                       file_name=f"{common.slug(view.campaign)}-evaluation-package.zip",
                       mime="application/zip", key="dl-package", on_click="ignore")
    st.caption("Sources, references and system outputs of every language pair, one segment per line, "
               "in the WMT metrics-task layout; segment ids are the line numbers.")


#: the tab of the metric developers' error-span and error-free tasks (issue 40)
SPANS_TAB = "Error spans and error-free"
#: headers and formats of :func:`metrics_views.mteval_rows` (intervals: :func:`interval_columns`)
MTEVAL_COLUMNS = {"submission": ("Submission", None), "pair": ("Pair", None), "precision": ("Precision", "{:.3f}"),
                  "precision_ci": ("Precision 95% CI", None), "recall": ("Recall", "{:.3f}"),
                  "recall_ci": ("Recall 95% CI", None), "f1": ("F1", "{:.3f}"), "f1_ci": ("F1 95% CI", None),
                  "mcc": ("MCC", "{:.3f}"), "mcc_ci": ("MCC 95% CI", None), "cluster": ("Cluster", "{:.0f}"),
                  "segments": ("Segments", "{:.0f}")}


def _span_tasks(view: common.View, token: str) -> None:
    """Error-span detection and error-free detection of uploaded WMT25 task TSV files against this
    campaign's stored human evaluation of the pair (its spans and scores): nothing is stored."""
    st.markdown("Score your **error spans** (WMT25 character-level measure, or partial overlap with partial "
                "credit) or your **error-free labels** against the human evaluation stored for "
                f"{md_escape(view.campaign)} · {md_escape(view.lp)} (first rating of each item). Files: the WMT25 "
                "task TSV (doc_id, segment_id, source_lang, target_lang, set_id, system_id, …, start_indices, "
                "end_indices, error_types; a label or score column for error-free detection). They are scored "
                "here and not stored.")
    files = st.file_uploader(f"Submissions (WMT25 task TSV, at most {MAX_UPLOAD_MB} MB each)",
                             accept_multiple_files=True, key="span_files", max_upload_size=MAX_UPLOAD_MB)
    task = st.radio("Task", ["Error-span detection", "Error-free detection"], horizontal=True, key="span_task")
    spans = task == "Error-span detection"
    if spans:
        measure = st.radio("Measure", ["wmt25", "mpp"], horizontal=True, key="span_measure",
                           format_func={"wmt25": "WMT25 character-level", "mpp": "partial overlap, partial credit"}.get)
        threshold = 85.0
    else:
        measure = "wmt25"
        threshold = float(st.number_input("Gold error-free threshold (human score at least)", 0.0, 100.0, 85.0,
                                          step=1.0, key="span_threshold"))
    errors = st.container()
    if st.button("Evaluate", key="span_go", disabled=not files):
        uploads = tuple((f.name, bytes(f.getbuffer())) for f in files)
        try:
            st.session_state["span_result"] = (view.key, task, mv.mteval(
                state.store_url(), view.campaign, view.lp, token, "spans" if spans else "error-free", uploads,
                measure, threshold))
        except InputError as exc:
            st.session_state.pop("span_result", None)
            common.show_input_error(exc, errors)
            return
    stored = st.session_state.get("span_result")
    if not stored or stored[0] != view.key:
        return
    _, done_task, data = stored
    keys = mv.MTEVAL_KEYS["spans" if done_task == "Error-span detection" else "error-free"]
    rows = data["rows"]
    shown = rows[rows["pair"] == view.lp] if (rows["pair"] == view.lp).any() else rows
    st.markdown(f"**{md_escape(done_task)}** against {md_escape(view.campaign)} · {md_escape(view.lp)}")
    columns = {k: v for k, v in MTEVAL_COLUMNS.items() if k.split("_ci")[0] in keys or k in
               ("submission", "pair", "cluster", "segments")}
    common.static_table(_ordered(interval_columns(shown, list(keys)), columns), columns)
    slug = f"{view.campaign}-{view.lp}"
    common.csv_download(rows, f"{'spans' if keys[-1] == 'f1' else 'error-free'}-{slug}",
                        f"Download {done_task.lower()} results (CSV)", key="dl-mteval")
    from metrics.validation import N_RESAMPLES
    st.caption(md_escape(f"95% CIs: percentiles of {N_RESAMPLES} bootstrap resamples of the segments; cluster: "
                         f"paired bootstrap test of {keys[-1].upper() if keys[-1] == 'mcc' else keys[-1]} between "
                         "submissions, one-sided, p < 0.05. Signature: ") + common.code(data["signature"]))
    common.chart(charts.measures_figure(shown, keys, f"{done_task}: each submission with its 95% CI"),
                 f"mteval-{slug}", f"{done_task.lower()} chart")


def _upload(view: common.View, user: dict, token: str) -> None:
    from leaderboard.usecases.metric_scores import campaign_systems, store_metric_scores, stored_segment_ids
    from metrics.submissions import read_submission
    upload = st.file_uploader(f"Metric scores (WMT TSV or CSV with metric,lp,system,[segment],score; at most "
                              f"{MAX_UPLOAD_MB} MB)", key="metric_file", max_upload_size=MAX_UPLOAD_MB)
    direction = st.radio("Higher scores mean", ["better translations", "worse translations"], horizontal=True,
                         key="metric_direction")
    errors = st.container()
    if not st.button("Validate and store (private)", key="metric_go", disabled=upload is None):
        return
    try:
        problems: list[InputError] = []  # bad rows are listed with the campaign check's problems
        with uploaded_path(upload) as path:
            frame = read_submission(path, name=upload.name, problems=problems)
        frame.attrs["file"] = upload.name
        higher = direction == "better translations"
        store = state.get_store()
        systems, human = campaign_systems(store, view.campaign)
        summary, ids = store_metric_scores(
            store, view.campaign, frame, systems, level=frame.attrs.get("level", "system"), higher_is_better=higher,
            human=human, segments=stored_segment_ids(store, view.campaign, frame), file=upload.name,
            earlier=problems, owner=user["name"])
    except InputError as exc:
        common.show_input_error(exc.with_file(upload.name), errors)
        return
    metrics = list(dict.fromkeys(frame["metric"].astype(str)))
    # the Results tab opens on the upload's first metric (labelled as _label labels it; see _results)
    if len(ids) == len(metrics):
        st.session_state[PICK_NEXT] = f"{me.metric_display_name(metrics[0])} #{ids[0]}"
    st.success(f"Stored {len(ids)} submission(s) (#{', #'.join(map(str, ids))}); they stay private until you or an "
               "organiser publish them.")
    for lp, renamed in summary["names"].items():
        if renamed:
            st.caption(md_escape(f"{lp}: {len(renamed)} system name(s) matched without their .N index ("
                                        + ", ".join(f"{a} → {b}" for a, b in sorted(renamed.items())) + ")."))
    for lp, humans in summary["humans_not_scored"].items():
        st.caption(md_escape(f"{lp}: human translation(s) {', '.join(humans)} not scored — not required; "
                                    "correlations leave them out."))


#: session-state key of the metric an upload asks the Results tab to show next
PICK_NEXT = "metric_pick_next"


def _pick_key(options: list[str], default: str) -> str:
    """The metric selector's key, its state set for this run when it must change (issue 42.4).

    The selection lives in session state only, and is written in the run that draws the selector:
    a selector given an index beside a state value, or a state value written in an earlier run (the
    upload's, while the Results tab was closed), shows one metric in the browser while the page
    computes another's numbers — the browser keeps its last choice unless told the value changed."""
    pick = st.session_state.pop(PICK_NEXT, None)
    if pick in options:
        st.session_state["metric_pick"] = pick
    elif st.session_state.get("metric_pick") not in options:
        st.session_state["metric_pick"] = default
    return "metric_pick"


def _label(sub) -> str:
    return f"{me.metric_display_name(sub.metric)} #{sub.id}"


def _visible_submissions(view: common.View, user: dict | None) -> pd.DataFrame:
    include_private = bool(user and user["role"] == "organiser")
    return state.get_store().metric_submissions(view.campaign, viewer=user["name"] if user else None,
                                                include_private=include_private)


def _results(view: common.View, user: dict | None, token: str) -> None:
    url = state.store_url()
    subs = _visible_submissions(view, user)
    snap = state.snapshot(url, view.campaign, view.lp, view.assessment, view.latest)
    from leaderboard.publish.render import describe
    from leaderboard.webapp.state import ranking_spec
    words = describe(ranking_spec(url, view.campaign, view.lp, view.assessment, view.latest))
    st.caption(f"Human scores: Ave z of the latest published ranking (v{view.latest}; "
               f"{md_escape(words['std'])}; {md_escape(words['qc'])}; signature "
               f"{common.code(snap.get('signature', ''))}). Submissions are private until their owner or an organiser "
               "publishes them; you see the public ones" + (" and your own." if user else "."))
    segments_are_lines = bool(state.campaign_info(url, view.campaign).get("segments_are_lines", True))
    keys = tuple((int(r.id), _label(r), bool(r.higher_is_better), str(r.level)) for r in subs.itertuples())
    if view.assessment == "mqm":
        _meta_eval(view, keys, token)
        _manage(subs, user)
        return
    data = mv.evaluate(url, view.campaign, view.lp, view.assessment, view.latest, token, keys, segments_are_lines)
    result = data["result"]
    if result is None or not result["metrics"]:
        if result is not None and result.get("skipped"):
            st.warning("No metric scores every ranked system: " + "; ".join(
                md_escape(f"{s['metric']} has no score for {', '.join(s['missing'])}")
                for s in result["skipped"]) + ".", icon=":material/warning:")
        else:
            st.info("No metric scores for this language pair yet. Metric developers upload them on the "
                    "**Upload scores** tab; submissions are private until published.")
        for note in data["notes"]:
            st.caption(common.lower_text(note))
        _manage(subs, user)
        return
    from metrics.validation import N_RESAMPLES, SEED
    table = me.correlation_table(result)
    names = table["metric"].tolist()
    submitted = [n for n in names if n not in me.BASELINES.values()]
    own = [_label(r) for r in subs.itertuples() if user and r.owner == user["name"] and _label(r) in names]
    default = own[-1] if own else (submitted[0] if submitted else names[0])
    options = submitted + [n for n in names if n not in submitted]
    chosen = st.selectbox("Metric", options, key=_pick_key(options, default))
    slug = f"{view.campaign}-{view.lp}"

    st.markdown(f"### System level: {md_escape(chosen)} against human Ave z")
    row = table.set_index("metric").loc[chosen]
    figures = []
    for stat, label in (("pearson", "Pearson r"), ("spearman", "Spearman ρ"), ("kendall", "Kendall τ")):
        interval = f"95% CI [{row[stat + '_ci_lo']:.3f}, {row[stat + '_ci_hi']:.3f}]"
        figures.append(Figure(label, f"{row[stat]:.3f}", note=interval,
                              help=f"95% bootstrap CI ({row['ci_resample']} resampled, {N_RESAMPLES} times)"))
    n_clusters = int(table["cluster"].max())
    figures.append(Figure("Significance cluster", f"{int(row['cluster'])} of {n_clusters}",
                          help="Metrics in one cluster are not significantly different (Williams test, p < 0.05)"))
    key_figures.show(figures)
    wide = data["long"].pivot_table(index="system", columns="metric", values="score").reset_index()
    wide = data["human"].rename(columns={"ave_z": "human"}).merge(wide, on="system", how="left")
    tables_tab, charts_tab = common.lazy_tabs(["Tables", "Charts"], key="view")
    if charts_tab.open:
        with charts_tab:
            _charts(view, data, table, wide, chosen, slug)
    if tables_tab.open:
        with tables_tab:
            st.markdown("**Correlation of every metric with human Ave z** (95% bootstrap CIs; clusters: Williams test)")
            common.static_table(_ordered(interval_columns(table, CORRELATION_STATS), CORRELATION_COLUMNS),
                                CORRELATION_COLUMNS)
            common.csv_download(table, f"correlations-{slug}", "Download correlations (CSV)", key="dl-corr")
            against = me.williams_against(result, chosen)
            st.caption(md_escape(mv.cluster_sentence(chosen, int(row["cluster"]), n_clusters, against)))
            for skipped in result.get("skipped", []):
                st.caption(md_escape(f"{skipped['metric']} is left out: no score for {', '.join(skipped['missing'])}."))

            st.markdown("**Williams test** (one-sided: does one metric correlate significantly better with the humans?)")
            if result["n_systems"] < 4:
                st.info("The Williams test needs at least 4 systems.")
            common.static_table(against, WILLIAMS_COLUMNS)
            common.csv_download(against, f"williams-{slug}-{chosen}", "Download Williams tests of this metric (CSV)", key="dl-williams-chosen")
            if len(result["williams"]) > 1:
                matrix = pd.DataFrame(result["williams"]).T.reindex(index=names, columns=names)
                common.csv_download(matrix.reset_index(names="metric"), f"williams-matrix-{slug}", "Download all Williams tests (CSV)", key="dl-williams")

            st.markdown("### Segment level")
            if chosen not in data["seg_subs"]:
                st.caption(f"{md_escape(chosen)} has system-level scores only.")
            elif not segments_are_lines:
                st.warning(f"The segment ids of {md_escape(view.campaign)}'s human judgments do not index the "
                           "stored test-set lines (segments_are_lines is false for this campaign), so segment-level "
                           "metric scores cannot be paired with human segment scores here; only system-level results "
                           "are shown.")
            elif data["segment"].empty:
                st.info("No segment-level results could be computed.")
            else:
                seg = data["segment"]
                common.static_table(_ordered(interval_columns(seg, SEGMENT_STATS), SEGMENT_COLUMNS), SEGMENT_COLUMNS)
                common.csv_download(seg, f"segment-level-{slug}", "Download segment-level correlations (CSV)", key="dl-seg")
                st.caption("DARR: WMT's Kendall-like tau over pairs of outputs of one segment whose raw DA scores differ by "
                           "at least 25 points (a metric tie counts as discordant). Pearson: all (system, segment) cells "
                           "against human segment z. Kendall (item): tau-b of the systems within each segment, averaged. "
                           f"CIs resample segments ({N_RESAMPLES} times, seed {SEED}). Human side: the per-segment scores of "
                           "the published ranking (its worker QC and standardisation). Baselines: sentence chrF and "
                           "sentence BLEU.")

            st.markdown("**Scores** (human Ave and Ave z of the published ranking, then every metric)")
            scores = wide.rename(columns={"ave": "human_ave", "human": "human_ave_z"})
            common.static_table(scores, {
                "system": ("System", None), "human_ave": ("Human Ave", "{:.1f}"), "human_ave_z": ("Human Ave z", "{:.3f}"),
                **{c: (c, "{:.2f}" if c in me.BASELINES.values() else "{:.4f}")
                   for c in scores.columns if c in set(data["long"]["metric"])}})
            common.csv_download(scores, f"metric-scores-{slug}", "Download metric scores (CSV)", key="dl-metric-scores")
            for note in data["notes"]:
                st.caption(common.lower_text(note))
            if data["signatures"]:
                st.caption("Baselines: " + " · ".join(common.code(v) for v in data["signatures"].values()))

    _meta_eval(view, keys, token)
    _manage(subs, user)


def _charts(view: common.View, data: dict, table: pd.DataFrame, wide: pd.DataFrame, chosen: str,
            slug: str) -> None:
    """The Metrics page's charts: the chosen metric against the humans, every metric's correlation with
    its interval and cluster, and the Williams tests between metrics."""
    from metrics.validation import N_RESAMPLES, SEED
    result = data["result"]
    common.chart(charts.metric_scatter(wide.dropna(subset=[chosen]), chosen, view.lp),
                 f"metric-scatter-{slug}-{chosen}", "scatter plot")
    left = f" ({', '.join(data['left_out'])} left out: a human translation without a metric score)" \
        if data.get("left_out") else ""
    st.caption(md_escape(
        f"Each point is a system (hover for its name; names are written where they fit); the orange-red line "
        f"is the least-squares fit. {result['n_systems']} systems{left}. Lower-is-better submissions are "
        f"negated so that higher is better everywhere. Correlations: 95% CIs from {N_RESAMPLES} bootstrap resamples "
        f"of the systems (seed {SEED}); clusters from one-sided Williams tests, p < 0.05."))
    common.chart(charts.correlation_figure(table, chosen), f"metric-clusters-{slug}", "correlation chart")
    names = table["metric"].tolist()
    if len(result["williams"]) > 1:
        common.chart(charts.williams_figure(result["williams"], names), f"williams-{slug}", "Williams test chart")


def _with_cis(columns: dict, stats: tuple[tuple[str, str], ...]) -> dict:
    """Headers and formats of each statistic (three decimals) and its interval, one column ``<key>_ci``
    (see :func:`interval_columns`). ``stats``: (column key, header)."""
    for key, name in stats:
        columns[key] = (name, "{:.3f}")
        columns[f"{key}_ci"] = (f"{name} 95% CI", None)
    return columns


def interval_columns(frame: pd.DataFrame, keys: list[str], digits: int = 3) -> pd.DataFrame:
    """``frame`` as the page shows it: each ``<key>_ci_lo`` / ``<key>_ci_hi`` pair as one text column
    ``<key>_ci`` ("lo – hi", "–" when absent), as the leaderboard shows its intervals; downloads keep
    the two numeric columns."""
    out = frame.drop(columns=[f"{k}_ci_{e}" for k in keys for e in ("lo", "hi") if f"{k}_ci_{e}" in frame])
    for key in keys:
        if f"{key}_ci_lo" not in frame or f"{key}_ci_hi" not in frame:
            continue
        lo = pd.to_numeric(frame[f"{key}_ci_lo"], errors="coerce")
        hi = pd.to_numeric(frame[f"{key}_ci_hi"], errors="coerce")
        out[f"{key}_ci"] = ["–" if pd.isna(a) or pd.isna(b) else f"{a:.{digits}f} – {b:.{digits}f}"
                            for a, b in zip(lo, hi)]
    return out


#: headers and formats of :func:`metric_eval.correlation_table` (intervals: :func:`interval_columns`)
CORRELATION_COLUMNS = _with_cis({"metric": ("Metric", None), "cluster": ("Cluster", "{:.0f}")},
                                (("pearson", "Pearson r"), ("spearman", "Spearman ρ"), ("kendall", "Kendall τ")))
CORRELATION_COLUMNS.update({"ci_resample": ("CI resamples", None), "n_systems": ("Systems", "{:.0f}")})
CORRELATION_STATS = ["pearson", "spearman", "kendall"]
#: headers and formats of :func:`metric_eval.segment_level` (intervals: :func:`interval_columns`)
SEGMENT_COLUMNS = _with_cis({"metric": ("Metric", None)},
                            (("darr_tau", "DARR τ"), ("pearson", "Pearson r"), ("kendall_item", "Kendall τ (item)")))
SEGMENT_COLUMNS.update({"darr_pairs": ("DARR pairs", "{:.0f}"), "cells": ("Cells", "{:.0f}")})
SEGMENT_STATS = ["darr_tau", "pearson", "kendall_item"]
def _ordered(frame: pd.DataFrame, columns: dict) -> pd.DataFrame:
    """The columns of ``columns`` first, in its order (each statistic beside its interval)."""
    return frame[[c for c in columns if c in frame] + [c for c in frame.columns if c not in columns]]


#: headers and formats of :func:`metric_eval.williams_against`
WILLIAMS_COLUMNS = {"compared_with": ("Compared with", None), "r_metric": ("Pearson r (chosen)", "{:.3f}"),
                    "r_other": ("Pearson r (other)", "{:.3f}"), "p_metric_better": ("p (chosen better)", "{:.3g}"),
                    "p_other_better": ("p (other better)", "{:.3g}"), "verdict": ("Verdict", None)}


def _meta_eval(view: common.View, keys: tuple, token: str) -> None:
    st.markdown("### Meta-evaluation against human segment scores (WMT23-25)")
    url = state.store_url()
    snaps = state.snapshots(url)
    lps = tuple(sorted(snaps.loc[(snaps["campaign"] == view.campaign) & (snaps["assessment"] == view.assessment),
                                 "lp"].unique()))
    include = st.checkbox("Compare human translations as systems", value=False, key="meta_include_human",
                          help="Human translations (marked by the organisers, or named Human-*/ref-*) are left out, "
                               "as in the WMT Metrics tasks, unless you ask for them")
    try:
        result = mv.meta_evaluation(url, view.campaign, lps or (view.lp,), view.assessment, token, keys, include)
    except InputError as exc:
        common.show_input_error(exc)
        return
    pair = next((p for p in (result or {}).get("lps", []) if p["lp"] == view.lp), None)
    if pair is None:
        st.info("No segment-level metric scores for this language pair yet: upload them (WMT segment TSV) on the "
                "**Upload scores** tab to see acc_eq, SPA and their significance clusters.")
        return
    slug = f"{view.campaign}-{view.lp}"
    table = mv.meta_eval_rows(pair)
    common.static_table(table, mv.META_COLUMNS)
    common.csv_download(table, f"meta-eval-{slug}", "Download meta-evaluation (CSV)", key="dl-meta-eval")
    human = "negated MQM" if view.assessment == "mqm" else "mean raw score per system and segment"
    st.caption(md_escape(
        f"{pair['n_systems']} systems, {pair['n_segments']} segments; human side: {human}. acc_eq: pairwise "
        "accuracy of the systems of each segment with ties, averaged over segments, at the metric tie threshold ε "
        "that maximises it (WMT23). SPA: 1 − mean |p_human − p_metric| over system pairs, p from 1000 fixed "
        "sign-flip permutations (WMT24). Clusters: a metric opens a new cluster when a metric of the current one "
        f"beats it with p ≤ {result['alpha']} ({result['draws']} draws per metric pair). Kinds: baseline and "
        "sentinel metrics are reference points, as are the chance rows (a seeded random metric; a constant "
        "metric, right exactly on the human ties)."))
    for skipped in pair.get("skipped_metrics", []):
        st.caption(md_escape(f"{skipped['metric']} is left out: it misses {skipped['missing_cells']} rated "
                             "(system, segment) cells."))
    excluded = [s for group in pair.get("excluded_systems", {}).values() for s in group]
    if excluded:
        st.caption(md_escape(f"Not compared as systems: {', '.join(excluded)} (human translations)."))
    for stat, label in (("acc_eq", "acc_eq"), ("spa", "SPA")):
        st.markdown(f"**p-values, {label}** (one-sided: does the row metric, ranked above, beat the column metric?)")
        frame = mv.pvalue_rows(pair, stat)
        common.static_table(frame, {"better": ("Ranked above", None),
                                    **{c: (c, "{:.3f}") for c in frame.columns if c != "better"}})
    st.markdown(f"**Global ranking over {len(result['lps'])} language pair(s)** (SPA and acc_eq of every pair, "
                "equal weights; clusters from the per-pair draws summed draw by draw)")
    ranking = mv.global_rows(result)
    common.static_table(ranking, mv.GLOBAL_COLUMNS)
    common.csv_download(ranking, f"meta-eval-global-{view.campaign}", "Download global meta-evaluation ranking (CSV)", key="dl-meta-eval-global")


def _manage(subs: pd.DataFrame, user: dict | None) -> None:
    """The user's own submissions (all of them for an organiser), with publish / hide."""
    if not user:
        return
    organiser = user["role"] == "organiser"
    mine = subs if organiser else subs[subs["owner"] == user["name"]]
    if mine.empty:
        return
    st.markdown("**All submissions**" if organiser else "**Your submissions**")
    common.table(mine)
    cols = st.columns(2)
    sid = cols[0].selectbox("Submission", mine["id"].tolist(), key="my_sub",
                            format_func=lambda i: f"#{i} {mine.set_index('id').loc[i, 'metric']}")
    public = bool(mine.set_index("id").loc[sid, "public"])
    if public:
        if cols[1].button("Make private", key="my_sub_toggle"):
            _set_public(int(sid), False, user)
        return
    # publishing cannot be taken back from those who already saw the scores: ask once more
    if cols[1].button("Publish…", key="my_sub_toggle"):
        st.session_state["metric_publish_pending"] = int(sid)
    if st.session_state.get("metric_publish_pending") != int(sid):
        return
    name = mine.set_index("id").loc[sid, "metric"]
    st.warning(md_escape(f"Publish #{sid} {name}? Every visitor of the Metrics page will see its scores and "
                         "correlations. You can make it private again later, but not unseen."))
    confirm, cancel = st.columns(2)
    if confirm.button("Yes, publish", key="my_sub_confirm", type="primary"):
        st.session_state.pop("metric_publish_pending", None)
        _set_public(int(sid), True, user)
    if cancel.button("Cancel", key="my_sub_cancel"):
        st.session_state.pop("metric_publish_pending", None)
        st.rerun()


def _set_public(sid: int, public: bool, user: dict) -> None:
    try:
        state.get_store().set_submission_public(sid, public, user["name"], user["role"])
    except PermissionError as exc:
        st.error(str(exc))
    else:
        st.rerun()

if __name__ == "__main__":
    render()
