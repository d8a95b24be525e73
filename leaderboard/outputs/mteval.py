"""Metric developers' MT-evaluation tasks, one function per task for every view (CLI and app).

- :func:`read_annotations` — a WMT25 task TSV (gold or submission) as span annotations;
- :func:`campaign_gold` — the gold of a stored campaign: ESA (Appraise uploads or collected in the
  service), MQM (categories mapped to severities, missing content excluded from span scoring), or any
  other protocol stored as ratings with error spans (contrastive ESA), with a rule for items rated
  more than once (:mod:`metrics.gold`);
- :func:`span_eval` — error-span detection (:func:`metrics.spans.evaluate_spans`);
- :func:`error_free_eval` — error-free detection (:func:`metrics.errorfree.evaluate_error_free`).

Each returns :class:`metrics.spans.EvaluationResult`: ``to_json()`` is what ``mtlb`` prints, and its
``signature`` names the measure, the gold and its rule.
"""

from __future__ import annotations

import os
from typing import Any, Mapping

import numpy as np
import pandas as pd

from metrics.gold import choose_gold, gold_label, mqm_ratings
from metrics.spans import EvaluationResult, SpanAnnotations

from ..errors import InputError
from ..ingest.task_tsv import read_task_tsv

KINDS: tuple[str, ...] = ("spans", "score", "label")


def read_annotations(path: str | os.PathLike, *, kind: str | None = None, end_inclusive: bool = False,
                     name: str | None = None) -> SpanAnnotations:
    """A task TSV as annotations; ``kind`` (spans, score or label) says what a submission predicts
    (default: its label column; else its spans, unless the file marks no span at all and gives scores;
    else its scores)."""
    task = read_task_tsv(path, name=name, end_inclusive=end_inclusive)
    has = {"spans": task.has_spans, "score": task.has_score, "label": task.has_label}
    if kind is None:
        scores_only = task.has_score and task.spans.empty and task.items["score"].notna().any()
        kind = next(k for k in ("label", "spans", "score") if has[k] and not (k == "spans" and scores_only))
    elif kind not in KINDS:
        raise InputError(f"unknown prediction kind {kind!r} (choose from {', '.join(KINDS)})", column="kind")
    elif not has[kind]:
        raise InputError(f"the file gives no {kind} column" if kind != "spans" else
                         "the file gives no error spans (start_indices, end_indices, error_types)", file=task.source,
                         line=1)
    return SpanAnnotations(task.items, task.spans, source=task.source, kind=kind,
                           attrs={"has_score": task.has_score})


def read_gold(path: str | os.PathLike, *, rule: str = "first", lp: str | None = None, end_inclusive: bool = False,
              name: str | None = None) -> SpanAnnotations:
    """Gold from a file: the WMT25 human-evaluation JSON lines (``.jsonl``, with ``rule`` choosing among an
    item's ratings, ``lp`` keeping one pair) or a task TSV (one annotation per item)."""
    from ..ingest.humeval_jsonl import read_humeval_jsonl
    label = name or str(path)
    base = os.path.basename(label)
    if label.lower().endswith((".jsonl", ".jsonl.gz")):
        release = read_humeval_jsonl(path, name=name, lp=lp)
        gold = choose_gold(release.ratings, release.spans, rule, source=release.source)
        gold.attrs["label"] = gold_label(f"file={base}", rule)
        return gold
    gold = read_annotations(path, end_inclusive=end_inclusive, name=name)
    if lp is not None:
        gold.items = gold.items[gold.items["lp"] == lp].reset_index(drop=True)
        gold.spans = gold.spans[gold.spans["lp"] == lp].drop(columns="item").reset_index(drop=True)
        if gold.items.empty:
            raise InputError(f"the gold has no segment of {lp}", file=gold.source, column="lp")
    gold.attrs["label"] = gold_label(f"file={base}", "")
    return gold


def campaign_gold(store, campaign: str, lp: str, *, assessment: str | None = None,
                  rule: str = "first") -> SpanAnnotations:
    """The gold items and spans of a stored campaign's pair under ``rule`` (first, mean, wave:W).

    ``assessment``: which stored human evaluation (default: MQM when the pair has MQM annotations,
    else the judgments' assessment that carries error spans, else the only one there is).
    """
    from ..storage.expert import annotation_rows, expert_summary, mqm_errors
    summary = expert_summary(store)
    here = summary[(summary["campaign"] == campaign) & (summary["lp"] == lp)]
    judged = store.judgments(campaign, lp)
    with_scores = sorted(set(judged["assessment"].astype(str))) if len(judged) else []
    with_spans = sorted(set(here["assessment"].astype(str)))
    if assessment is None:
        if "mqm" in with_spans:
            assessment = "mqm"
        elif [a for a in with_spans if a in with_scores]:
            assessment = [a for a in with_spans if a in with_scores][0]
        elif len(with_scores) == 1:
            assessment = with_scores[0]
        else:
            raise InputError(f"campaign {campaign!r} holds no human evaluation of {lp}" if not with_scores else
                             f"campaign {campaign!r} holds several evaluations of {lp} ({', '.join(with_scores)}); "
                             "choose one", column="gold-assessment")
    label = gold_label(f"campaign={campaign}", rule, assessment)
    if assessment == "mqm":
        errors = mqm_errors(store, campaign, lp)
        if errors.empty:
            raise InputError(f"campaign {campaign!r} holds no MQM annotations of {lp}", column="lp")
        ratings, spans = mqm_ratings(errors.rename(columns={"_line": "line"}))
        ratings["doc"], spans["doc"] = "", ""
        gold = choose_gold(ratings, spans, rule, source=f"campaign {campaign}", errors_only=True)
    else:
        from ..human.selection import wmt24_selection
        # the organisers' selection: system outputs only, no tutorial systems, no unusable documents, and a
        # rater's latest rating of an output when they rated it twice
        part = wmt24_selection(judged[judged["assessment"].astype(str) == assessment])
        if part.empty:
            raise InputError(f"campaign {campaign!r} holds no {assessment} judgments of {lp} systems",
                             column="gold-assessment")
        ratings = pd.DataFrame({"lp": part["lp"].astype(str).to_numpy(), "system": part["system"].astype(str).to_numpy(),
                                "doc": "", "segment": part["segment"].astype(str).to_numpy(),
                                "rating": part["worker"].astype(str).to_numpy(), "order": np.arange(len(part)),
                                "score": pd.to_numeric(part["raw"], errors="coerce").to_numpy(dtype=float)})
        wave = part["hit"].astype(str).str.extract(r"^wave[-_ ]?(\w+)$", expand=False)
        if wave.notna().all():
            ratings["wave"] = wave.to_numpy()
        spans = _latest_line_spans(annotation_rows(store, campaign, lp, assessment))
        gold = choose_gold(ratings, spans, rule, source=f"campaign {campaign}")
        gold.attrs["marks_spans"] = assessment in with_spans
    gold.attrs["label"] = label
    return gold


def _latest_line_spans(rows: pd.DataFrame) -> pd.DataFrame:
    """Stored spans as a span frame; when a rater's spans of one item came from several upload lines (a
    repeated rating), those of the last line: the re-rating, whose score the selection keeps too."""
    if rows.empty:
        return pd.DataFrame(columns=["lp", "system", "doc", "segment", "rating", "start", "end", "severity"])
    last = rows.groupby(["lp", "system", "segment", "rater"], sort=False)["line"].transform("max")
    rows = rows[rows["line"] == last]
    return pd.DataFrame({"lp": rows["lp"].astype(str).to_numpy(), "system": rows["system"].astype(str).to_numpy(),
                         "doc": "", "segment": rows["segment"].astype(str).to_numpy(),
                         "rating": rows["rater"].astype(str).to_numpy(),
                         "start": pd.to_numeric(rows["span_start"], errors="coerce").to_numpy(dtype=float),
                         "end": pd.to_numeric(rows["span_end"], errors="coerce").to_numpy(dtype=float),
                         "severity": rows["severity"].astype(str).str.lower().to_numpy()})


def _label(gold: SpanAnnotations) -> str:
    return gold.attrs.get("label") or gold_label(f"file={os.path.basename(str(gold.source))}", "")


def span_eval(gold: SpanAnnotations, predictions: Mapping[str, SpanAnnotations], *, measure: str = "wmt25",
              average: str = "micro", draws: int = 0, seed: int = 12345, alpha: float = 0.05) -> EvaluationResult:
    """Error-span detection of every submission against ``gold`` (:func:`metrics.spans.evaluate_spans`)."""
    from metrics.spans import evaluate_spans
    if gold.attrs.get("marks_spans") is False:
        raise InputError(f"{gold.source}: this human evaluation marks no error spans; choose an ESA, MQM or "
                         "contrastive ESA evaluation", column="gold-assessment")
    return evaluate_spans(gold, predictions, measure=measure, average=average, draws=draws, seed=seed, alpha=alpha,
                          gold_label=_label(gold))


def error_free_eval(gold: SpanAnnotations, predictions: Mapping[str, SpanAnnotations], **options: Any
                    ) -> EvaluationResult:
    """Error-free detection of every submission against ``gold``
    (:func:`metrics.errorfree.evaluate_error_free`; ``options`` are its keyword arguments)."""
    from metrics.errorfree import evaluate_error_free
    if "score" not in gold.items.columns or (not gold.attrs.get("errors_only")
                                              and gold.items["score"].isna().all()):
        raise InputError("the gold gives no human score; error-free gold needs one (a score column beside the "
                         "spans)", file=gold.source, column="score")
    return evaluate_error_free(gold, predictions, gold_label=_label(gold), **options)
