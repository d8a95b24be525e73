"""Loaders of the Metrics page: the evaluation package, sacrebleu baselines, metric results, meta-evaluation.

Cached on their arguments (store URL, campaign, published version, submission ids), which change
whenever what they read changes. Kept out of the page script, which Streamlit executes afresh on
every visit: there each cache decorator would be rebuilt (and its function's source re-read) per run.
"""

from __future__ import annotations

import io
import zipfile

import pandas as pd
import streamlit as st

from ..errors import InputError
from . import common, expert_views, state
from ..publish import metric_eval as me


@st.cache_data(show_spinner="Building the evaluation package…", max_entries=8)
def evaluation_package(url: str, campaign: str, lps: tuple[str, ...], token: str) -> bytes:
    """A zip in the WMT metrics-task layout: sources/, references/, system-outputs/<lp>/, segment ids."""
    testset = common.slug(campaign)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for lp in lps:
            texts = state.texts(url, campaign, lp, token)
            if texts.empty:
                continue
            src, tgt = lp.split("-", 1)
            for (kind, name), part in texts.groupby(["kind", "name"], sort=True):
                body = "\n".join(part.sort_values("line")["text"]) + "\n"
                if kind == "source":
                    path = f"{testset}/sources/{testset}.{lp}.src.{src}"
                elif kind == "reference":
                    path = f"{testset}/references/{testset}.{lp}.ref.{name}.{tgt}"
                else:
                    path = f"{testset}/system-outputs/{lp}/{testset}.{lp}.hyp.{name}.{tgt}"
                zf.writestr(path, body)
            n = int(texts["line"].max())
            zf.writestr(f"{testset}/segment-ids/{testset}.{lp}.ids", "\n".join(map(str, range(1, n + 1))) + "\n")
        zf.writestr(f"{testset}/README.txt",
                    "Score every system output against the references; upload one line per system (system level)\n"
                    "or per system and segment id (segment level), e.g. a CSV with the header\n"
                    "metric,lp,system,score  or  metric,lp,system,segment,score\n")
    return buf.getvalue()


@st.cache_data(show_spinner="Scoring the baselines (BLEU, chrF) with sacrebleu…", max_entries=16)
def baselines(url: str, campaign: str, lp: str, token: str, judged: tuple[str, ...],
              segments: bool) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """System-level (and optionally segment-level) BLEU and chrF of the judged systems' stored outputs."""
    return me.baseline_scores(state.texts(url, campaign, lp, token), judged, segments=segments, lp=lp)


@st.cache_data(show_spinner="Scoring the baselines (BLEU, chrF) with sacrebleu…", max_entries=16)
def stored_baselines(url: str, campaign: str, lp: str, assessment: str, version: int, token: str) -> dict | None:
    """The metric_baselines artifact of a snapshot published without it (see :mod:`leaderboard.publish.artifacts`)."""
    from leaderboard.publish.artifacts import metric_baselines_artifact
    ranking = state.snapshot(url, campaign, lp, assessment, version)["ranking"]
    try:
        return metric_baselines_artifact(state.texts(url, campaign, lp, token), ranking)
    except InputError:
        return None  # evaluate() scores them itself and says why they are unavailable


def payload_frame(payload: dict) -> pd.DataFrame:
    from leaderboard.publish.artifacts import payload_frame as frame
    return frame(payload)


@st.cache_data(show_spinner="Correlating metrics with the human scores (1000 bootstrap resamples)…",
               max_entries=32)
def evaluate(url: str, campaign: str, lp: str, assessment: str, version: int, token: str,
             subs: tuple[tuple[int, str, bool, str], ...], segment_level: bool) -> dict:
    """Every metric (baselines and the given submissions) against one published human ranking.

    ``subs``: (id, label, higher_is_better, level) of the visible submissions (their scores never
    change, so the ids key the cache). ``segment_level``: the campaign's segment ids are line numbers,
    so segment-level scores can be paired with the human segment scores.
    """
    ranking = state.snapshot(url, campaign, lp, assessment, version)["ranking"]
    human = me.human_table(ranking)
    judged = tuple(human["system"])
    notes: list[str] = []
    system_parts, segment_parts = [], []
    want_segments = segment_level and any(level == "segment" for _, _, _, level in subs)
    stored = None if want_segments else state.artifact(
        url, campaign, lp, assessment, version, "metric_baselines",
        lambda: stored_baselines(url, campaign, lp, assessment, version, token))
    if stored is not None and not subs:
        # computed at publish time: BLEU, chrF and their correlations with 1000 bootstrap resamples
        return {"human": human, "long": payload_frame(stored["long"]), "signatures": stored["signatures"],
                "notes": list(stored["notes"]), "seg_subs": [], "result": stored["result"],
                "segment": pd.DataFrame(), "left_out": list(stored["left_out"])}
    from metrics.validation import N_RESAMPLES, SEED, correlate_with_ranking
    if stored is not None:
        base_sys, base_seg, signatures = payload_frame(stored["long"]), pd.DataFrame(), stored["signatures"]
        notes += [n for n in stored["notes"] if "left out of the correlations" not in n]
    else:
        try:
            base_sys, base_seg, signatures = baselines(url, campaign, lp, token, judged, want_segments)
        except InputError as exc:
            base_sys, base_seg, signatures = pd.DataFrame(columns=me.LONG_COLUMNS), pd.DataFrame(), {}
            notes.append(f"Baselines unavailable: {exc}")
        if not base_sys.empty:
            notes.append(me.baselines_note(judged, base_sys))
        elif not notes:
            notes.append("No system outputs and references are stored for this language pair, so the BLEU and "
                         "chrF baselines cannot be computed.")
    system_parts.append(base_sys)
    if not base_seg.empty:
        segment_parts.append(base_seg)
    seg_subs = []
    for sid, label, higher, level in subs:
        part = state.metric_scores(url, sid)
        part = part[part["lp"] == lp]
        if part.empty:
            continue
        sign = 1.0 if higher else -1.0  # correlations assume higher = better
        if part["segment"].notna().any():
            seg = part.assign(metric=label, score=sign * part["score"])[me.SEGMENT_COLUMNS]
            seg_subs.append(label)
            if segment_level:
                segment_parts.append(seg)
            part = part.groupby("system", as_index=False)["score"].mean()
            notes.append(f"{label} has segment-level scores; its system score is their mean.")
        system_parts.append(part.assign(metric=label, score=sign * part["score"])[me.LONG_COLUMNS])
    long = pd.concat([p for p in system_parts if not p.empty], ignore_index=True) if any(
        not p.empty for p in system_parts) else pd.DataFrame(columns=me.LONG_COLUMNS)
    out = {"human": human, "long": long, "signatures": signatures, "notes": notes, "seg_subs": seg_subs,
           "result": None, "segment": pd.DataFrame(), "left_out": []}
    if long.empty:
        return out
    # a human translation some metric cannot score is left out for all, so every metric sees the same systems
    left_out, human_notes = me.humans_left_out(judged, long, human["is_human"].tolist())
    notes += human_notes
    out["left_out"] = left_out
    out["result"] = correlate_with_ranking(human, long, lp, exclude=left_out)
    judged = tuple(s for s in judged if s not in left_out)
    if segment_parts:
        seg_all = pd.concat(segment_parts, ignore_index=True)
        # the human side: the published ranking's per-segment scores (its QC, selection and standardisation),
        # so raw-only campaigns (collected in the app) get the z the ranking used
        from .snapshot_views import segments_frame
        out["segment"] = me.segment_level(segments_frame(url, campaign, lp, assessment, int(version), token),
                                          seg_all, list(judged), n_resamples=N_RESAMPLES, seed=SEED)
    return out


@st.cache_data(show_spinner="Meta-evaluating (acc_eq, SPA, 1000 draws per metric pair)…", max_entries=16)
def meta_evaluation(url: str, campaign: str, lps: tuple[str, ...], assessment: str, token: str,
                    subs: tuple[tuple[int, str, bool, str], ...], include_human: bool = False) -> dict | None:
    """acc_eq, SPA, their significance clusters and the global ranking over ``lps`` (WMT24-25 tasks) of
    the segment-level submissions (None: none). Human translations marked by the organisers (or named
    so) are left out unless ``include_human``; a metric that misses rated cells is left out and listed."""
    from leaderboard.naming import is_human
    from leaderboard.storage.marks import human_marks
    from metrics.metaeval.evaluate import PairInput, evaluate
    from metrics.metaeval.inputs import build
    from metrics.metaeval.reference import metric_kind
    marks = human_marks(state.get_store(), campaign)
    pairs = []
    for lp in lps:
        parts = []
        for sid, label, higher, level in subs:
            part = state.metric_scores(url, sid)
            part = part[(part["lp"] == lp) & part["segment"].notna()]
            if not part.empty:
                parts.append(part.assign(metric=label, score=(1.0 if higher else -1.0) * part["score"]))
        if not parts:
            continue
        errors = state.mqm_errors(url, campaign, lp, token) if assessment == "mqm" else None
        judgments = state.judgments(url, campaign, lp, assessment, token) if assessment != "mqm" else None
        human = expert_views.human_segments(assessment, errors, judgments, lp)
        humans = [s for s in human["system"].unique() if marks.get(s, is_human(s))]
        try:
            data = build(human, pd.concat(parts, ignore_index=True), lp, human_translations=humans,
                         include_human=include_human, strict=False)
        except InputError:
            if len(lps) == 1:
                raise
            pairs.append(None)
            continue
        kinds = {label: metric_kind(label.rsplit(" #", 1)[0]) for label in data.metrics}
        pairs.append(PairInput(lp, data.human, data.metrics, kinds, extra={
            "systems": data.systems, "excluded_systems": data.excluded, "skipped_metrics": data.skipped}))
    pairs = [p for p in pairs if p is not None]
    if not pairs:
        return None
    return evaluate(pairs)


#: what the page shows of each metric-developer task (issue 40): task -> measures, the last one tested
MTEVAL_KEYS: dict[str, tuple[str, ...]] = {"spans": ("precision", "recall", "f1"),
                                           "error-free": ("precision", "recall", "f1", "mcc")}


@st.cache_data(show_spinner="Scoring the submissions against the campaign's gold (bootstrap over segments)…",
               max_entries=8)
def mteval(url: str, campaign: str, lp: str, token: str, task: str, files: tuple[tuple[str, bytes], ...],
           measure: str = "wmt25", threshold: float = 85.0) -> dict:
    """A metric developer's error-span or error-free submissions (WMT25 task TSV files, ``(name, bytes)``)
    against the stored human evaluation of (campaign, lp): ``{"rows", "signature", "notes"}``, the rows of
    :func:`mteval_rows` with 95% bootstrap intervals over segments. Nothing is stored."""
    import tempfile
    from pathlib import Path
    from metrics.validation import N_RESAMPLES, SEED
    from ..outputs.mteval import campaign_gold, error_free_eval, read_annotations, span_eval
    if task not in MTEVAL_KEYS:
        raise InputError(f"unknown task {task!r}", column="task")
    gold = campaign_gold(state.get_store(), campaign, lp)
    predictions = {}
    with tempfile.TemporaryDirectory(prefix="mtlb-mteval-") as folder:
        for i, (name, body) in enumerate(files):
            stem = Path(name).name.rsplit(".", 1)[0] or f"submission-{i + 1}"
            label = stem if stem not in predictions else f"{stem} ({i + 1})"
            path = Path(folder) / f"{i}.tsv"
            path.write_bytes(body)
            predictions[label] = read_annotations(path, kind="spans" if task == "spans" else None, name=name)
    if task == "spans":
        result = span_eval(gold, predictions, measure=measure, draws=N_RESAMPLES, seed=SEED)
    else:
        result = error_free_eval(gold, predictions, threshold=threshold, draws=N_RESAMPLES, seed=SEED)
    return {"rows": mteval_rows(result.values, MTEVAL_KEYS[task]), "signature": result.signature,
            "notes": result.notes}


def mteval_rows(values: dict, keys: tuple[str, ...]) -> pd.DataFrame:
    """One row per submission and pair (``all``: the mean over pairs) of an evaluation result's values:
    each measure with ``<key>_ci_lo`` / ``_hi``, the cluster of the last measure and the segments."""
    rows = []
    for name, scopes in values.items():
        for scope, row in scopes.items():
            out: dict = {"submission": name, "pair": scope}
            for key in keys:
                lo, hi = row.get(f"{key}_ci") or (None, None)
                out.update({key: row.get(key), f"{key}_ci_lo": lo, f"{key}_ci_hi": hi})
            out["cluster"] = row.get(f"{keys[-1]}_cluster")
            out["segments"] = row.get("segments")
            rows.append(out)
    columns = ["submission", "pair"] + [f"{k}{e}" for k in keys for e in ("", "_ci_lo", "_ci_hi")] + \
        ["cluster", "segments"]
    return pd.DataFrame(rows, columns=columns)


def cluster_sentence(chosen: str, cluster: int, n_clusters: int, against: pd.DataFrame,
                     alpha: float = 0.05) -> str:
    """What the system-level Williams tests say of ``chosen`` (plain text: the caller escapes it).

    ``against``: :func:`leaderboard.publish.metric_eval.williams_against` of ``chosen``. Names only the
    metrics whose own one-sided Williams test against ``chosen`` is significant (with its p), never a
    whole earlier cluster: a cluster opens when one metric of the previous one beats its first metric,
    so a metric of an earlier cluster need not beat this one. Says "Williams test" because the page
    also shows the meta-evaluation's permutation tests."""
    test = f"one-sided Williams test, p < {alpha:g}"
    better = against[pd.to_numeric(against["p_other_better"], errors="coerce") < alpha] \
        .sort_values("p_other_better")
    head = f"{chosen} is in Williams-test cluster {cluster} of {n_clusters}"
    if not better.empty:
        named = ", ".join(f"{r.compared_with} (p = {r.p_other_better:.3g})" for r in better.itertuples())
        return f"{head}; significantly outperformed ({test}) by {named}."
    if cluster > 1:
        return (f"{head}, yet no metric correlates significantly better than it ({test}): its cluster opened "
                "because a metric of the cluster before beats another metric of this one.")
    return f"{head}; no metric correlates significantly better ({test})."


#: headers and formats of :func:`meta_eval_rows`
META_COLUMNS = {"metric": ("Metric", None), "kind": ("Kind", None), "acc_eq": ("acc_eq", "{:.4f}"),
                "epsilon": ("ε", "{:.4g}"), "acc_eq_cluster": ("acc_eq cluster", "{:.0f}"),
                "spa": ("SPA", "{:.4f}"), "spa_cluster": ("SPA cluster", "{:.0f}"),
                "sys_accuracy": ("System accuracy", "{:.4f}")}
#: headers and formats of :func:`global_rows`
GLOBAL_COLUMNS = {"metric": ("Metric", None), "kind": ("Kind", None), "avg_score": ("Average", "{:.4f}"),
                  "global_cluster": ("Cluster", "{:.0f}"), "avg_rank": ("Average rank", "{:.2f}"),
                  "missing": ("Missing tasks", None)}


def meta_eval_rows(pair: dict) -> pd.DataFrame:
    """One pair's metrics, then its chance levels as reference rows (kind ``chance``)."""
    rows = pd.DataFrame(pair["metrics"]).reindex(columns=list(META_COLUMNS))
    chance = pair["reference_points"]["chance"]
    random = chance["random_metric"]
    extra = pd.DataFrame([
        {"metric": "random metric", "kind": "chance", "acc_eq": random["acc_eq"], "spa": random["spa"],
         "sys_accuracy": random["sys_accuracy"]},
        {"metric": "constant metric", "kind": "chance", "acc_eq": chance["constant_metric"]["acc_eq"]}])
    return pd.concat([rows, extra.reindex(columns=list(META_COLUMNS))], ignore_index=True)


def pvalue_rows(pair: dict, stat: str) -> pd.DataFrame:
    """p that the row metric (ranked above) beats the column metric; blank below the diagonal."""
    table = pair["pvalues"][stat]
    order = [c["metric"] for c in pair["clusters"][stat]]
    frame = pd.DataFrame([[table[a].get(b) for b in order[1:]] for a in order[:-1]], columns=order[1:])
    frame.insert(0, "better", order[:-1])
    return frame


def global_rows(result: dict) -> pd.DataFrame:
    """The global ranking (complete metrics, then the others with what they miss), then chance."""
    rows = pd.DataFrame(result["global_ranking"]).reindex(columns=list(GLOBAL_COLUMNS))
    rows["missing"] = rows["missing"].map(lambda m: ", ".join(m) if isinstance(m, list) else "")
    chance = result["global_reference_points"]["chance"]
    extra = pd.DataFrame([{"metric": "random metric", "kind": "chance", "avg_score": chance, "missing": ""}])
    return pd.concat([rows, extra.reindex(columns=list(GLOBAL_COLUMNS))], ignore_index=True)
