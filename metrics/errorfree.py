"""Error-free detection (the MT-evaluation task since WMT26): is a translated segment free of errors?

Gold: an item is error-free (label 1) when its human score is at least the threshold (default 85)
and its rating marks no error span at all — every marked span counts here, missing content and spans
of undecided severity included. With MQM gold (no 0–100 score) the spans alone decide. Gold items
without a human score are left out (counted).

Submissions give a label (0/1), error spans (no span: error-free) or a score. A score becomes a label
with a threshold (score ≥ t: error-free) chosen on a *dev split* of the items — never on the items
the result is reported on: the threshold that maximises the F1 of the error-free class on the dev
items (the lowest such score), unless a fixed threshold is given; such a submission is reported on the
items outside the dev split. Every other submission is reported on every scored gold item, so that its
values never depend on what else is evaluated with it. Paired tests and clusters compare all submissions
on the items common to all of them (``compared_on_segments`` when that is fewer than a submission's own).
The default dev split takes the documents whose hashed id
falls in the first ``fraction`` of the hash range (stable across runs and machines); documents are
never split between dev and test.

Values: precision, recall and F1 of the error-free class (0 when their denominator is 0) and the
Matthews correlation (0 when a margin is empty), per pair and as the mean over pairs (``"all"``),
with bootstrap intervals over items, paired p-values and clusters as for spans
(:func:`metrics.spans.summarise`).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from leaderboard.errors import InputError

from .bootstrap import DEFAULT_SEED
from .spans import EvaluationResult, SpanAnnotations, align, item_key, summarise

VALUES: tuple[str, ...] = ("precision", "recall", "f1", "mcc")
DEFAULT_THRESHOLD = 85.0
DEFAULT_DEV_FRACTION = 0.2


def gold_labels(gold: SpanAnnotations, threshold: float = DEFAULT_THRESHOLD) -> np.ndarray:
    """Per gold item: 1.0 error-free, 0.0 not, NaN without a human score (module docstring)."""
    items = gold.items
    marked = np.zeros(len(items), dtype=bool)
    if len(gold.spans):
        own = pd.Series(np.arange(len(items)), index=item_key(items).to_numpy())
        idx = own.reindex(item_key(gold.spans).to_numpy()).dropna().to_numpy(dtype=np.int64)
        marked[idx] = True
    if gold.attrs.get("errors_only"):
        return np.where(marked, 0.0, 1.0)
    score = pd.to_numeric(items["score"], errors="coerce").to_numpy(dtype=float) if "score" in items.columns \
        else np.full(len(items), np.nan)
    return np.where(np.isnan(score), np.nan, ((score >= threshold) & ~marked).astype(float))


def predicted(pred: SpanAnnotations, rows: np.ndarray, use_doc: bool) -> np.ndarray:
    """Per gold item the submission's label (kind ``label``), its score (``score``) or 1.0 when it
    marks no span (``spans``)."""
    items = pred.items.iloc[rows]
    if pred.kind == "label":
        return pd.to_numeric(items["label"], errors="coerce").to_numpy(dtype=float)
    if pred.kind == "score":
        return pd.to_numeric(items["score"], errors="coerce").to_numpy(dtype=float)
    marked = np.zeros(len(pred.items), dtype=bool)
    if len(pred.spans):
        own = pd.Series(np.arange(len(pred.items)), index=item_key(pred.items, use_doc).to_numpy())
        marked[own.reindex(item_key(pred.spans, use_doc).to_numpy()).dropna().to_numpy(dtype=np.int64)] = True
    return np.where(marked[rows], 0.0, 1.0)


def confusion(gold: np.ndarray, label: np.ndarray) -> np.ndarray:
    """``(4, n)`` per-item indicators: true positive, false positive, false negative, true negative."""
    g, p = gold.astype(bool), label.astype(bool)
    return np.stack([g & p, ~g & p, g & ~p, ~g & ~p]).astype(float)


def values_from_counts(c: np.ndarray) -> dict[str, np.ndarray]:
    """Precision, recall, F1 (error-free class) and MCC from ``(4, ...)`` summed confusion counts."""
    tp, fp, fn, tn = c[0], c[1], c[2], c[3]
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / np.where(tp + fp > 0, tp + fp, 1), 0.0)
        recall = np.where(tp + fn > 0, tp / np.where(tp + fn > 0, tp + fn, 1), 0.0)
        total = precision + recall
        f1 = np.where(total > 0, 2 * precision * recall / np.where(total > 0, total, 1), 0.0)
        den = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
        mcc = np.where(den > 0, (tp * tn - fp * fn) / np.where(den > 0, den, 1), 0.0)
    return {"precision": precision, "recall": recall, "f1": f1, "mcc": mcc}


def best_threshold(scores: np.ndarray, gold: np.ndarray) -> float:
    """The score t maximising the F1 of the error-free class when ``score ≥ t`` predicts it (the lowest
    such t); vectorised over every candidate (each observed score)."""
    ok = ~np.isnan(scores) & ~np.isnan(gold)
    s, g = scores[ok], gold[ok].astype(bool)
    if not len(s):
        raise InputError("the dev split has no scored segment to choose a score threshold on", column="dev")
    order = np.argsort(-s, kind="stable")
    s, g = s[order], g[order]
    last = np.r_[s[1:] != s[:-1], True]            # the last of each run of equal scores
    tp = np.cumsum(g)[last]
    fp = np.cumsum(~g)[last]
    fn = g.sum() - tp
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(tp > 0, 2 * tp / (2 * tp + fp + fn), 0.0)
    best = np.flatnonzero(f1 == f1.max())
    return float(s[last][best].min())


def dev_split(items: pd.DataFrame, fraction: float = DEFAULT_DEV_FRACTION, documents: Iterable[str] | None = None
              ) -> np.ndarray:
    """True for the items of the dev split: the named ``documents``, or the documents whose hashed
    (pair, document) falls below ``fraction`` of the hash range (items without a document: hashed alone)."""
    doc = items["doc"].fillna("").astype(str) if "doc" in items.columns else pd.Series("", index=items.index)
    if documents is not None:
        wanted = set(map(str, documents))
        return doc.isin(wanted).to_numpy()
    if not 0 < fraction < 1:
        raise InputError("the dev fraction must lie strictly between 0 and 1", column="dev-fraction")
    unit = pd.Series(np.where(doc != "", items["lp"].astype(str) + "\x1f" + doc, item_key(items)))
    # pandas' hash has a fixed key: the same split on every run and machine
    hashed = pd.util.hash_pandas_object(unit, index=False).to_numpy(dtype=np.uint64)
    return (hashed / float(2**64)) < fraction


def evaluate_error_free(gold: SpanAnnotations, predictions: Mapping[str, SpanAnnotations], *,
                        threshold: float = DEFAULT_THRESHOLD, dev_fraction: float = DEFAULT_DEV_FRACTION,
                        dev_documents: Iterable[str] | None = None, score_thresholds: Mapping[str, float] | None = None,
                        lower_is_better: Iterable[str] = (), draws: int = 0, seed: int | None = DEFAULT_SEED,
                        alpha: float = 0.05, gold_label: str = "file") -> EvaluationResult:
    """Every submission's error-free labels against the gold labels (module docstring).

    ``score_thresholds[name]``: a fixed threshold for a score submission (no dev split needed for it);
    ``lower_is_better``: score submissions whose lower scores mean better translations.
    """
    from leaderboard.signature import make_signature
    if not predictions:
        raise InputError("no submission to evaluate", column="predictions")
    if draws < 0:
        raise InputError("the number of bootstrap draws must be 0 or more", column="draws")
    labels = gold_labels(gold, threshold)
    fixed = dict(score_thresholds or {})
    flip = set(lower_is_better)
    aligned: dict[str, tuple[np.ndarray, dict]] = {}
    outputs: dict[str, np.ndarray] = {}
    for name, pred in predictions.items():
        rows, note = align(gold, pred, f"submission {name!r}")
        out = predicted(pred, rows, note["matched_by_document"])
        if pred.kind == "score":
            out = -out if name in flip else out
            if np.isnan(out[~np.isnan(labels)]).any():
                first = int(np.flatnonzero(np.isnan(out) & ~np.isnan(labels))[0])
                raise InputError(f"submission {name!r} has no score for segment {gold.items['segment'].iat[first]!r}"
                                 f" (system {gold.items['system'].iat[first]!r})", file=pred.source, column="score")
        aligned[name], outputs[name] = (rows, note), out
    needs_dev = any(p.kind == "score" and n not in fixed for n, p in predictions.items())
    dev = dev_split(gold.items, dev_fraction, dev_documents) if needs_dev else np.zeros(len(labels), dtype=bool)
    rated = ~np.isnan(labels)
    binary, masks, notes = {}, {}, {}
    for name, pred in predictions.items():
        out = outputs[name]
        note = dict(aligned[name][1])
        masks[name] = rated
        if pred.kind == "score":
            t = float(fixed[name]) if name in fixed else best_threshold(out[dev & rated], labels[dev & rated])
            note["score_threshold"] = -t if name in flip else t
            note["threshold_from"] = "given" if name in fixed else "dev split"
            out = (out >= t).astype(float)
            if name not in fixed:
                masks[name] = rated & ~dev          # never reported on the items its threshold came from
        binary[name], notes[name] = out, note
    common = np.logical_and.reduce(list(masks.values()))
    if not common.any():
        raise InputError("no gold segment with a human score is left to evaluate on", file=gold.source)

    def run(names: list[str], mask: np.ndarray) -> tuple[dict, dict, dict]:
        lps = gold.items["lp"].astype(str).to_numpy()[mask]
        groups = {lp: np.flatnonzero(lps == lp) for lp in dict.fromkeys(lps)}
        per_item = {n: confusion(labels[mask], binary[n][mask]) for n in names}
        values, pvalues, _ = summarise(per_item, groups, values_from_counts, VALUES, draws=draws, seed=seed,
                                       alpha=alpha, test_keys=("f1", "mcc"))
        counts = {lp: (len(idx), int(labels[mask][idx].sum())) for lp, idx in groups.items()}
        counts["all"] = (int(mask.sum()), int(labels[mask].sum()))
        for name in names:
            for scope, row in values[name].items():
                row["segments"], row["gold_error_free"] = counts[scope]
        return values, pvalues, counts

    # paired tests and clusters compare every submission on the items all of them are reported on
    values, pvalues, common_counts = run(list(predictions), common)
    own = [n for n in predictions if not np.array_equal(masks[n], common)]
    if own:
        # a submission's values do not depend on the others: those without a dev split are reported on
        # every scored gold item
        mine, _, _ = run(own, rated)
        for name in own:
            for scope, row in mine[name].items():
                kept = {k: v for k, v in values[name].get(scope, {}).items() if k.endswith(("_cluster", "_p_better"))}
                if kept:
                    kept["compared_on_segments"] = common_counts[scope][0]
                values[name][scope] = {k: v for k, v in row.items() if not k.endswith(("_cluster", "_p_better"))}
                values[name][scope].update(kept)
    dev_rule = ("none" if not needs_dev else "documents-given" if dev_documents is not None
                else f"hashed-documents@{dev_fraction:g}")
    signature = make_signature({"gold": gold_label, "threshold": threshold, "dev": dev_rule,
                                "segments": int(rated.sum()), "pairs": len(values[next(iter(values))]) - 1,
                                "ci": f"bootstrap-segments@{1 - alpha:g}" if draws else "none",
                                "resamples": draws, "seed": seed if draws else None}, kind="error-free")
    for name in values:
        for row in values[name].values():
            row["signature"] = signature
            if "score_threshold" in notes[name]:
                row["score_threshold"] = notes[name]["score_threshold"]
    settings: dict[str, Any] = {"threshold": threshold, "dev": dev_rule, "dev_segments": int((dev & rated).sum()),
                                "test_segments": int((rated & ~dev).sum()), "compared_segments": int(common.sum()),
                                "unscored_gold": int((~rated).sum()),
                                "draws": draws, "seed": seed, "alpha": alpha, "gold": gold_label}
    return EvaluationResult(values, pvalues, settings, signature, notes)
