"""What the pages of a published snapshot show, computed once at publish time and stored with it.

A snapshot never changes, so everything derived from it and from the data it was computed from can be
computed when it is published (in the snapshot's transaction, see :func:`leaderboard.publish.publish_rankings`)
instead of on a participant's first visit:

- ``spec`` — the ranking specification (:class:`leaderboard.human.spec.RankingSpec`) that made it and
  renders its signature;
- ``segment_scores`` — per (system, segment) raw, z and n exactly as the ranking computed them (the
  System page's distribution, per-segment table and head-to-head);
- ``qc`` — the quality control that produced the ranking: its label, what it kept, and the per-worker
  report when the ranking filtered workers itself (the Quality control page);
- ``metric_baselines`` — sacrebleu BLEU and chrF of the judged systems' stored outputs, their
  signatures, and their system-level correlations with the human Ave z with 1,000 seeded bootstrap
  resamples, Williams tests and clusters (the Metrics page).

Plain functions: frames in, JSON-able dicts out. Snapshots published before artifacts existed get
them computed by the same functions on first view (the app then stores them).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd


def frame_payload(frame: pd.DataFrame) -> dict:
    """A frame as compact JSON: ``{"columns": [...], "data": {column: [values]}}`` (NaN → null)."""
    data = {}
    for col in frame.columns:
        values = frame[col]
        if pd.api.types.is_float_dtype(values):
            arr = values.to_numpy(dtype=float)
            data[str(col)] = [None if not np.isfinite(v) else float(v) for v in arr]
        elif pd.api.types.is_bool_dtype(values):
            data[str(col)] = [bool(v) for v in values]
        elif pd.api.types.is_integer_dtype(values):
            data[str(col)] = [int(v) for v in values]
        else:
            data[str(col)] = [None if v is None or (isinstance(v, float) and np.isnan(v)) else
                              (v if isinstance(v, (str, int, float, bool)) else str(v)) for v in values]
    return {"columns": [str(c) for c in frame.columns], "data": data}


def payload_frame(payload: Mapping) -> pd.DataFrame:
    """The frame of :func:`frame_payload` (null → NaN in numeric columns)."""
    frame = pd.DataFrame({c: payload["data"][c] for c in payload["columns"]}, columns=payload["columns"])
    for col in frame.columns:
        if frame[col].dtype == object and frame[col].map(lambda v: v is None or isinstance(v, (int, float))
                                                         and not isinstance(v, bool)).all():
            frame[col] = pd.to_numeric(frame[col], errors="coerce")
    return frame


def segment_scores_artifact(frame: pd.DataFrame, ranking: Mapping, spec: Any, kept: pd.DataFrame | None = None) -> dict:
    """Per (system, segment) raw, z, n of the ranking's language pair as the ranking had them.

    ``frame``: the judgments the ranking started from (all language pairs of the assessment: worker QC
    pools them); ``spec``: its :class:`leaderboard.human.spec.RankingSpec`; ``kept``: the judgments its QC
    kept, when already known (then QC is not run again)."""
    from ..human.ranking import segment_scores
    seg = segment_scores(frame if kept is None else kept, spec, str(ranking["lp"]), str(ranking["assessment"]),
                         filtered=kept is not None)
    return frame_payload(seg)


def qc_artifact(frame: pd.DataFrame, ranking: Mapping, qc: Any = None, spec: Any = None) -> dict:
    """The QC behind a ranking: ``{"label", "method", "alpha", "filtered_here", "summary", "report", "stored"}``.

    ``qc``: the :class:`leaderboard.human.ranking.QualityControl` the ranking ran (its label, verdicts and
    kept judgments); without it (a snapshot published before artifacts existed) the QC its ``spec``
    names is run again (:func:`spec_of`). ``release``: the data are a WMT release, which holds only the workers
    who passed the organisers' QC, so nothing was filtered here (``report`` is null); ``none``: no
    worker QC; ``<method>@<alpha>``: the ranking ran that test itself and ``report`` is its per-worker
    verdict, pooled over the language pairs, for the workers of the ranking's pair (``summary``:
    :func:`leaderboard.human.qc.qc_summary_for_lp`, counts of this pair only).
    """
    part = frame[frame["assessment"].astype(str) == str(ranking["assessment"])]
    if qc is None:
        qc = _qc_of(part, spec or spec_of(ranking))
    lp_part = part[part["lp"].astype(str) == str(ranking["lp"])]
    out: dict[str, Any] = {"label": qc.label, "method": None, "alpha": None, "filtered_here": False,
                           "summary": None, "report": None,
                           "stored": {"workers": int(part["worker"].nunique()), "judgments": int(len(part)),
                                      "lp_workers": int(lp_part["worker"].nunique()),
                                      "lp_judgments": int(len(lp_part)),
                                      "lps": sorted(part["lp"].astype(str).unique())}}
    if qc.method is None:
        return out
    from ..human.qc import lp_report, qc_summary_for_lp
    report = qc.report
    # the verdicts pool the language pairs; the counts are of this ranking's pair: its workers, their judgments
    lp = str(ranking["lp"])
    out.update(method=qc.method, alpha=qc.alpha, filtered_here=True, summary=qc_summary_for_lp(report, part, lp),
               report=frame_payload(lp_report(report, part, lp)) if isinstance(report, pd.DataFrame) else None)
    return out


def spec_of(ranking: Mapping, stored: Mapping | None = None) -> Any:
    """The :class:`leaderboard.human.spec.RankingSpec` that says how to recompute a published ranking's
    per-segment scores: its ``stored`` spec artifact, else (a snapshot stored before specs were) the
    legacy reader's (:func:`leaderboard.human.spec.snapshot_spec`); a ranking of another kind: the
    stored z without QC."""
    from ..human.spec import GIVEN_Z, RankingSpec, snapshot_spec
    spec = snapshot_spec(stored, ranking)
    return spec if isinstance(spec, RankingSpec) else GIVEN_Z


def _qc_of(frame: pd.DataFrame, spec: Any) -> Any:
    """The worker QC ``spec`` names, run on ``frame`` (rankings published before their spec and
    artifacts were stored with them)."""
    from ..human.ranking import run_qc
    return run_qc(frame, spec.qc, spec.qc_alpha or 0.05)


def metric_baselines_artifact(texts: pd.DataFrame, ranking: Mapping) -> dict | None:
    """BLEU and chrF of the judged systems and their correlations with the human Ave z (None: no texts).

    ``{"long": frame (metric, system, score), "signatures", "notes", "left_out", "result"}``; ``result``
    is :func:`metrics.validation.correlate_lp` over the baselines (None when no system was scored).
    """
    from . import metric_eval as me
    if texts is None or texts.empty:
        return None
    lp = str(ranking["lp"])
    human = me.human_table(ranking)
    judged = tuple(human["system"])
    long, _, signatures = me.baseline_scores(texts, judged, lp=lp)
    if long.empty:
        return None
    left_out, human_notes = me.humans_left_out(judged, long, human["is_human"].tolist())
    from metrics.validation import correlate_with_ranking
    result = correlate_with_ranking(human, long, lp, exclude=left_out)
    return {"long": frame_payload(long), "signatures": signatures,
            "notes": [me.baselines_note(judged, long)] + human_notes,
            "left_out": left_out, "result": result}


def compute_artifacts(ranking: Mapping, frame: pd.DataFrame | None, texts: pd.DataFrame | None,
                      qc: Any = None, spec: Any = None) -> dict[str, Any]:
    """Every artifact of a DA-style ranking that can be computed from ``frame`` (its judgments, all
    language pairs of the assessment), ``texts`` (the language pair's stored texts), ``qc`` (the
    :class:`leaderboard.human.ranking.QualityControl` the ranking ran: QC is not run again) and ``spec``
    (its :class:`leaderboard.human.spec.RankingSpec`, stored as the ``spec`` artifact).

    An artifact that cannot be computed is left out (the page then computes what it can on view)."""
    out: dict[str, Any] = {}
    if frame is None or frame.empty or "mqm" in (ranking.get("systems") or [{}])[0]:
        return out
    part = frame[frame["assessment"].astype(str) == str(ranking["assessment"])]
    if spec is not None:  # the spec the ranking was made with (never one read back from a signature)
        out["spec"] = spec.to_dict()
    spec = spec or spec_of(ranking)
    if qc is None:
        qc = _qc_of(part, spec)
    out["qc"] = qc_artifact(frame, ranking, qc)
    out["segment_scores"] = segment_scores_artifact(frame, ranking, spec, qc.kept)
    if ranking.get("assessment") != "mqm":
        from ..errors import InputError
        try:
            baselines = metric_baselines_artifact(texts, ranking)
        except (InputError, ValueError):  # e.g. outputs of another length: the page says why on view
            baselines = None
        if baselines is not None:
            out["metric_baselines"] = baselines
    return out


def release_qc_artifact(trk_stats: pd.DataFrame, verdicts: pd.DataFrame | None, workers: set[str],
                        source: str) -> dict:
    """The organisers' per-worker QC verdicts of a WMT release, for the workers of a snapshot.

    ``trk_stats``: the release's ``ad-trk-stats.csv`` (worker, p, t, pairs: the paired bad-reference
    test over all of the worker's HITs, all language pairs); ``verdicts``: its ``ad-trk-stats.class``
    (worker, good/bad) when the release has one, else the verdict is p < 0.05; ``source``: where they
    come from (shown on the page)."""
    frame = trk_stats[trk_stats["worker"].astype(str).isin(workers)].copy()
    frame["worker"] = frame["worker"].astype(str)
    if verdicts is not None:
        frame = frame.merge(verdicts[["worker", "verdict"]].astype({"worker": str}), on="worker", how="left")
    else:
        frame["verdict"] = np.where(frame["p"] < 0.05, "good", "bad")
    frame = frame.sort_values("p", kind="stable").reset_index(drop=True)
    return {"source": source, "workers": len(workers), "with_verdict": int(len(frame)),
            "good": int((frame["verdict"] == "good").sum()), "report": frame_payload(frame)}
