"""Error-span detection scored against human error spans (the MT-evaluation task since WMT25).

A submission gives, per translated segment (an *item*: language pair, system, document, segment),
error spans as character offsets ``[start, end)`` into the translation with a severity. Two measures:

* ``wmt25`` — the character-level measure the WMT25 task scored with. Per character: how many gold
  and how many predicted spans of each severity cover it. A predicted count meets a gold count of the
  same severity for full credit; what is left over on both sides meets across severities for half
  credit. Precision = credit / predicted span characters, recall = credit / gold span characters (each
  1.0 when its denominator is 0), F1 their harmonic mean; sums are pooled over all items of a pair
  (micro), and the value over pairs is the plain mean of the pairs' values.
* ``mpp`` — partial overlap, partial credit, span by span. A predicted span earns the share of its
  characters that gold marks (a character under a gold span of the same severity counts 1, under
  gold of the other severity only 0.5); a gold span earns the share of its characters the prediction
  marks, the same way. Precision is the mean credit of the predicted spans, recall that of the gold
  spans; ``micro`` pools the spans of all items of a pair, ``macro`` averages per-item values (an
  item without predicted spans has precision 1, without gold spans recall 1).

Only spans with a location and a severity of minor or major take part (``critical`` counts as
major; ``undecided``, ``neutral`` and spans of missing content, which have no location, are left
out); empty spans cover no character and are left out too. Gold spans may carry a ``weight``: the
gold chosen as the mean of several ratings weighs each rating's spans by 1/(ratings of the item).

Everything is vectorised: all items lie end to end on one character axis, coverage counts come
from cumulative sums over span starts and ends, and each measure reduces to a few sums per item.
Confidence intervals resample items within each pair (the same draws for every submission); the
paired test between two submissions counts the draws in which the better one is not better
(:func:`metrics.bootstrap.paired_pvalues`); clusters follow :func:`metrics.clusters.metric_clusters`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pandas as pd

from leaderboard.errors import InputError

from .bootstrap import DEFAULT_SEED, draw_indices, index_counts, paired_pvalues, percentile_interval
from .clusters import metric_clusters

ITEM_KEYS: tuple[str, ...] = ("lp", "system", "doc", "segment")
MEASURES: tuple[str, ...] = ("wmt25", "mpp")
AVERAGES: tuple[str, ...] = ("micro", "macro")
VALUES: tuple[str, ...] = ("precision", "recall", "f1")
#: severities as the measures count them; anything else (undecided, neutral, …) is left out
SEVERITY_CODE: dict[str, int] = {"minor": 0, "major": 1, "critical": 1}


@dataclass
class SpanAnnotations:
    """One side of an evaluation: the items it covers and the spans it marks in them.

    ``items``: one row per item, columns :data:`ITEM_KEYS` (``doc`` may be empty), optionally
    ``score`` (a human or metric score), ``label`` (0/1: error-free) and ``line`` (file line).
    ``spans``: one row per span, the item keys plus ``start``, ``end`` (NaN for missing content),
    ``severity`` (lower case) and optionally ``weight``, ``line`` and ``item`` (the row of ``items`` the
    span belongs to, when the reader knows it). ``source`` names the file (or
    the stored campaign) for messages.
    """
    items: pd.DataFrame
    spans: pd.DataFrame
    source: str | None = None
    kind: str = "spans"            # spans | score | label: what a submission predicts
    attrs: dict = field(default_factory=dict)


def item_key(frame: pd.DataFrame, use_doc: bool = True) -> pd.Series:
    """One text key per row from the item columns (``doc`` only when ``use_doc``)."""
    cols = [c for c in ITEM_KEYS if use_doc or c != "doc"]
    parts = [frame[c].astype(str).fillna("").to_numpy(dtype=object) for c in cols]
    key = parts[0]
    for part in parts[1:]:
        key = key + "\x1f" + part
    return pd.Series(key, index=frame.index, dtype=object)


def key_codes(*frames: pd.DataFrame, use_doc: bool = True) -> list[np.ndarray]:
    """One integer per row of each frame, equal exactly when the rows' item keys are equal."""
    cols = [c for c in ITEM_KEYS if use_doc or c != "doc"]
    sizes = [len(f) for f in frames]
    code = np.zeros(sum(sizes), dtype=np.int64)
    if not sum(sizes):
        return [np.zeros(0, dtype=np.int64) for _ in frames]
    for c in cols:
        values = pd.concat([f[c] for f in frames], ignore_index=True)
        codes, uniques = pd.factorize(values.astype(str).fillna(""), use_na_sentinel=False)
        code = code * (len(uniques) + 1) + codes
        code = pd.factorize(code)[0].astype(np.int64)       # keep the combined code small
    return np.split(code, np.cumsum(sizes)[:-1])


def loose_pair(lp: str) -> str:
    """A language pair reduced to its two base languages in two-letter codes where there is one:
    ``eng_Latn-ces_Latn``, ``eng-ces`` and ``en-cs_CZ`` all become ``en-cs``."""
    from leaderboard.ingest.appraise import ISO3_TO_2
    parts = []
    for code in str(lp).split("-", 1):
        base = code.strip().lower().split("_", 1)[0]
        parts.append(ISO3_TO_2.get(base, base))
    return "-".join(parts)


def shares_documents(gold: SpanAnnotations, other: SpanAnnotations) -> bool:
    """Items are matched with their document id only when both sides give one for every item."""
    def full(frame: pd.DataFrame) -> bool:
        return "doc" in frame.columns and bool(len(frame)) and bool((frame["doc"].astype(str).fillna("") != "").all())
    return full(gold.items) and full(other.items)


def align(gold: SpanAnnotations, other: SpanAnnotations, what: str = "submission") -> tuple[np.ndarray, dict]:
    """For every gold item, its row in ``other.items``; an :class:`InputError` when any is missing.

    Returns the row indices and notes (``extra_items``: items of ``other`` that gold does not rate).
    """
    use_doc = shares_documents(gold, other)
    cols = [c for c in ITEM_KEYS if use_doc or c != "doc"]
    if len(gold.items) == len(other.items) and all(
            gold.items[c].astype(str).reset_index(drop=True).equals(other.items[c].astype(str).reset_index(drop=True))
            for c in cols):
        return np.arange(len(gold.items), dtype=np.int64), {"extra_items": 0, "matched_by_document": use_doc}
    g_items, o_items = gold.items, other.items
    if not set(g_items["lp"].astype(str)) & set(o_items["lp"].astype(str)):
        # the same pairs written with other codes (eng-jpn for en-ja, en-cs_CZ for en-cs)
        g_items = g_items.assign(lp=g_items["lp"].astype(str).map(loose_pair))
        o_items = o_items.assign(lp=o_items["lp"].astype(str).map(loose_pair))
    gkey, okey = (pd.Series(c) for c in key_codes(g_items, o_items, use_doc=use_doc))
    dup = okey.duplicated(keep="first").to_numpy()
    if dup.any():
        row = other.items.iloc[int(np.flatnonzero(dup)[0])]
        raise InputError(f"{what}: the segment {row['segment']!r} of system {row['system']!r} ({row['lp']}) "
                         "appears twice", file=other.source,
                         line=int(row["line"]) if "line" in other.items.columns and pd.notna(row.get("line")) else None,
                         column="segment_id")
    found = pd.Series(pd.Index(okey.to_numpy()).get_indexer(gkey.to_numpy()).astype(float))
    found[found < 0] = np.nan
    missing = found.isna().to_numpy()
    if missing.any():
        first = gold.items.iloc[int(np.flatnonzero(missing)[0])]
        raise InputError(f"{what} has nothing for {int(missing.sum())} of the {len(gkey)} gold segments (first: "
                         f"{first['lp']}, system {first['system']!r}, segment {first['segment']!r}"
                         + (f", document {first['doc']!r}" if use_doc else "")
                         + (f"; gold line {int(first['line'])}" if pd.notna(first.get("line")) else "")
                         + "); every gold segment needs a "
                         "row, with no-error where nothing is wrong", file=other.source, column="segment_id")
    extra = int(len(okey) - (~missing).sum())
    return found.to_numpy().astype(np.int64), {"extra_items": extra, "matched_by_document": use_doc}


# ---------------------------------------------------------------------------------------------
# spans on one character axis
# ---------------------------------------------------------------------------------------------

@dataclass
class _Spans:
    """Scored spans as arrays: item index, [start, end) on the item's own offsets, severity code, weight."""
    item: np.ndarray
    start: np.ndarray
    end: np.ndarray
    severity: np.ndarray
    weight: np.ndarray


def scored_spans(ann: SpanAnnotations, rows: np.ndarray | None = None, use_doc: bool = True) -> _Spans:
    """The spans that the measures count, with the index of their item.

    ``rows`` maps each of ``ann.items`` to the gold item it stands for (None: ``ann`` is the gold).
    """
    spans = ann.spans
    low = spans["severity"].astype(str).str.lower()
    sev = pd.Series(np.select([low.isin([k for k, v in SEVERITY_CODE.items() if v == code]).to_numpy(dtype=bool)
                               for code in (0, 1)], [0.0, 1.0], np.nan), index=spans.index)
    start = pd.to_numeric(spans["start"], errors="coerce").to_numpy(dtype=float) if len(spans) else np.empty(0)
    end = pd.to_numeric(spans["end"], errors="coerce").to_numpy(dtype=float) if len(spans) else np.empty(0)
    keep = sev.notna().to_numpy() & np.isfinite(start) & np.isfinite(end) & (end > start)
    part = spans[keep]
    if "item" in part.columns:                      # the reader's own row of the span's item
        index = pd.to_numeric(part["item"], errors="coerce").to_numpy(dtype=float)
        index[(index < 0) | (index >= len(ann.items))] = np.nan
    else:
        own, theirs = key_codes(ann.items, part, use_doc=use_doc)
        index = pd.Index(own).get_indexer(theirs).astype(float)
        index[index < 0] = np.nan
    if np.isnan(index).any():
        row = part.iloc[int(np.flatnonzero(np.isnan(index))[0])]
        raise InputError(f"a span of segment {row['segment']!r} (system {row['system']!r}) has no item row",
                         file=ann.source)
    index = index.astype(np.int64)
    if rows is not None:
        # ann's items → gold items; items that gold does not rate are dropped
        back = np.full(len(ann.items), -1, dtype=np.int64)
        back[rows] = np.arange(len(rows))
        index = back[index]
    ok = index >= 0
    weight = (pd.to_numeric(part["weight"], errors="coerce").to_numpy(dtype=float) if "weight" in part.columns
              else np.ones(len(part)))
    return _Spans(index[ok], start[keep][ok].astype(np.int64), end[keep][ok].astype(np.int64),
                  sev[keep].to_numpy(dtype=np.int64)[ok], weight[ok])


def _stretches(n_items: int, *sides: _Spans) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """The items' characters cut at every span boundary of ``sides`` into stretches over which every
    coverage count is constant: each stretch's global start, its length and item, and per side the
    ``(2, n_stretches)`` weighted counts (minor, major) of its spans covering the stretch.

    A position is ``item · width + offset`` (width: past the longest span end), so items never share a
    stretch that any span covers. Counts are cumulative sums of +weight at span starts and −weight at
    span ends, in position order: no loop over characters, segments or spans.
    """
    width = max([int(x.end.max()) + 1 for x in sides if len(x.end)] + [1])
    bounds = [x.item * width + x.start for x in sides] + [x.item * width + x.end for x in sides]
    points = np.sort(np.concatenate(bounds)) if any(len(b) for b in bounds) else np.zeros(0, dtype=np.int64)
    points = points[np.r_[True, points[1:] != points[:-1]]] if len(points) else points
    n = max(len(points) - 1, 0)
    counts = []
    size = len(points) + 1
    for x in sides:
        delta = np.zeros(2 * size)
        if len(x.item):
            a = np.searchsorted(points, x.item * width + x.start) + x.severity * size
            b = np.searchsorted(points, x.item * width + x.end) + x.severity * size
            delta = (np.bincount(a, weights=x.weight, minlength=2 * size)
                     - np.bincount(b, weights=x.weight, minlength=2 * size))
        counts.append(np.cumsum(delta.reshape(2, size), axis=1)[:, :n])
    length = np.diff(points).astype(float) if n else np.zeros(0)
    item = (points[:-1] // width) if n else np.zeros(0, dtype=np.int64)
    return points, length, [item] + counts


def _per_item(values: np.ndarray, item: np.ndarray, n_items: int) -> np.ndarray:
    return np.bincount(item, weights=values, minlength=n_items)


def _span_sums(density: np.ndarray, length: np.ndarray, points: np.ndarray, s: _Spans, width: int) -> np.ndarray:
    """Sum over each span of a per-character value that is constant on each stretch (``density``)."""
    cum = np.concatenate([[0.0], np.cumsum(density * length)])
    a = np.searchsorted(points, s.item * width + s.start)
    b = np.searchsorted(points, s.item * width + s.end)
    return cum[b] - cum[a]


def wmt25_sums(gold: _Spans, pred: _Spans, n_items: int) -> np.ndarray:
    """Per item: ``(3, n_items)`` credit, predicted span characters, gold span characters."""
    _, length, (item, g, p) = _stretches(n_items, gold, pred)
    same = np.minimum(g, p)                        # matched counts, per severity
    g_left, p_left = g - same, p - same
    cross = np.minimum(g_left[0], p_left[1]) + np.minimum(g_left[1], p_left[0])
    credit = same.sum(axis=0) + 0.5 * cross
    return np.stack([_per_item(credit * length, item, n_items), _per_item(p.sum(axis=0) * length, item, n_items),
                     _per_item(g.sum(axis=0) * length, item, n_items)])


def _credit_under(cover: np.ndarray) -> np.ndarray:
    """Per character and severity of a span lying on it: 1 under the other side's same severity,
    0.5 under only the other severity (coverage weights capped at 1)."""
    minor, major = np.minimum(cover[0], 1.0), np.minimum(cover[1], 1.0)
    anything = np.minimum(cover[0] + cover[1], 1.0)
    return np.stack([minor + 0.5 * (anything - minor), major + 0.5 * (anything - major)])


def mpp_sums(gold: _Spans, pred: _Spans, n_items: int) -> np.ndarray:
    """Per item: ``(4, n_items)`` summed credit of predicted spans, number of predicted spans, summed
    (weighted) credit of gold spans, (weighted) number of gold spans."""
    points, length, (_, g, p) = _stretches(n_items, gold, pred)
    width = max([int(x.end.max()) + 1 for x in (gold, pred) if len(x.end)] + [1])
    under_gold, under_pred = _credit_under(g), _credit_under(p)
    out = np.zeros((4, n_items))
    for row, s, under in ((0, pred, under_gold), (2, gold, under_pred)):
        if not len(s.item):
            continue
        span_length = (s.end - s.start).astype(float)
        got = np.where(s.severity == 1, _span_sums(under[1], length, points, s, width),
                       _span_sums(under[0], length, points, s, width))
        out[row] = np.bincount(s.item, weights=s.weight * got / span_length, minlength=n_items)
        out[row + 1] = np.bincount(s.item, weights=s.weight, minlength=n_items)
    return out


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 1.0)


def f1(precision: np.ndarray, recall: np.ndarray) -> np.ndarray:
    """Harmonic mean, 0 where both are 0."""
    total = precision + recall
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, 2 * precision * recall / np.where(total > 0, total, 1.0), 0.0)


def item_sums(measure: str, gold: _Spans, pred: _Spans, n_items: int, average: str = "micro") -> np.ndarray:
    """The per-item sums a measure adds up (resampling adds them up again)."""
    if measure == "wmt25":
        return wmt25_sums(gold, pred, n_items)
    sums = mpp_sums(gold, pred, n_items)
    if average == "micro":
        return sums
    p = _ratio(sums[0], sums[1])
    r = _ratio(sums[2], sums[3])
    return np.stack([p, r, f1(p, r), np.ones(n_items)])


def values_from_sums(measure: str, sums: np.ndarray, average: str = "micro") -> dict[str, np.ndarray]:
    """Precision, recall and F1 from summed item sums (``sums``: ``(k, ...)``, summed over items)."""
    if measure == "wmt25":
        p, r = _ratio(sums[0], sums[1]), _ratio(sums[0], sums[2])
        return {"precision": p, "recall": r, "f1": f1(p, r)}
    if average == "micro":
        p, r = _ratio(sums[0], sums[1]), _ratio(sums[2], sums[3])
        return {"precision": p, "recall": r, "f1": f1(p, r)}
    n = np.where(sums[3] > 0, sums[3], np.nan)
    return {"precision": sums[0] / n, "recall": sums[1] / n, "f1": sums[2] / n}


# ---------------------------------------------------------------------------------------------
# evaluation of several submissions
# ---------------------------------------------------------------------------------------------

@dataclass
class EvaluationResult:
    """Per submission and pair (and ``"all"``: the mean over pairs) the values, their intervals, the
    paired p-values and clusters; ``to_json()`` is what ``mtlb`` prints."""
    values: dict[str, dict[str, dict[str, Any]]]
    pvalues: dict[str, dict[str, dict[str, dict[str, float | None]]]]   # scope → stat → a → b → p
    settings: dict[str, Any]
    signature: str
    notes: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return self.values


def _f(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return None if not np.isfinite(value) else value


def bootstrap_draws(groups: list[np.ndarray], draws: int, seed: int | None) -> list[np.ndarray]:
    """Per group (a pair's items), ``(draws, n)`` counts of each item in each resample; one generator,
    groups in order, so every submission is resampled the same way."""
    rng = np.random.default_rng(seed)
    return [index_counts(draw_indices(len(g), draws, rng), len(g)) for g in groups]


def summarise(per_item: Mapping[str, np.ndarray], groups: Mapping[str, np.ndarray], value_fn,
              keys: tuple[str, ...], draws: int = 0, seed: int | None = DEFAULT_SEED, alpha: float = 0.05,
              test_keys: tuple[str, ...] = ("f1",)) -> tuple[dict, dict, dict]:
    """Values per submission and group (and ``"all"``, the mean over groups), with bootstrap CIs,
    paired p-values and clusters.

    ``per_item[name]``: ``(k, n_items)`` sums per item; ``groups``: group name → item indices;
    ``value_fn(sums)``: ``{key: value}`` from ``(k, ...)`` sums added over items. Returns
    ``(values, pvalues, samples)``.
    """
    names = list(per_item)
    group_names = list(groups)
    stack = np.stack([per_item[n] for n in names]) if names else np.zeros((0, 0, 0))   # (S, k, N)
    point = {g: value_fn(stack[:, :, idx].sum(axis=-1).T) for g, idx in groups.items()}    # key → (S,)
    values: dict[str, dict[str, dict[str, Any]]] = {n: {} for n in names}
    samples: dict[str, dict[str, np.ndarray]] = {}
    if draws:
        counts = bootstrap_draws([groups[g] for g in group_names], draws, seed)
        for g, c in zip(group_names, counts):
            sub = stack[:, :, groups[g]]                                        # (S, k, n)
            s, k, m = sub.shape
            summed = (c @ sub.reshape(s * k, m).T).T.reshape(s, k, -1).transpose(1, 0, 2)   # (k, S, B)
            samples[g] = value_fn(summed)                                       # key → (S, B)
        samples["all"] = {k: np.mean([samples[g][k] for g in group_names], axis=0) for k in keys}
    point["all"] = {k: np.mean([point[g][k] for g in group_names], axis=0) for k in keys}
    for scope in group_names + ["all"]:
        # every submission's interval of one value in one call: (B, S) samples, percentiles along the draws
        bounds = {k: percentile_interval(samples[scope][k].T, alpha) for k in keys} if draws else {}
        for i, name in enumerate(names):
            row: dict[str, Any] = {k: _f(point[scope][k][i]) for k in keys}
            for k, (lo, hi) in bounds.items():
                row[f"{k}_ci"] = [_f(lo[i]), _f(hi[i])]
            values[name][scope] = row
    pvalues: dict[str, dict[str, dict[str, dict[str, float | None]]]] = {}
    if draws and len(names) > 1:
        for scope in group_names + ["all"]:
            pvalues[scope] = {}
            for key in test_keys:
                p = paired_pvalues(samples[scope][key])
                same = _identical(stack, groups.get(scope))
                p[same] = np.nan
                table = pd.DataFrame(p, index=names, columns=names)
                listed = [[_f(v) for v in row] for row in p.tolist()]
                pvalues[scope][key] = {a: {b: listed[i][j] for j, b in enumerate(names) if j != i}
                                       for i, a in enumerate(names)}
                scores = {n: float(point[scope][key][i]) for i, n in enumerate(names)}
                for r in metric_clusters(scores, table, alpha):
                    values[r["metric"]][scope][f"{key}_cluster"] = r["cluster"]
                for a in names:
                    values[a][scope][f"{key}_p_better"] = pvalues[scope][key][a]
    return values, pvalues, samples


def _identical(stack: np.ndarray, idx: np.ndarray | None) -> np.ndarray:
    """``(S, S)``: submissions whose per-item sums are equal (their difference is no test)."""
    part = stack if idx is None else stack[:, :, idx]
    flat = np.ascontiguousarray(part.reshape(part.shape[0], -1))
    first: dict[bytes, int] = {}
    group = np.array([first.setdefault(row.tobytes(), i) for i, row in enumerate(flat)])   # one per submission
    return group[:, None] == group[None, :]


def evaluate_spans(gold: SpanAnnotations, predictions: Mapping[str, SpanAnnotations], *, measure: str = "wmt25",
                   average: str = "micro", draws: int = 0, seed: int | None = DEFAULT_SEED, alpha: float = 0.05,
                   gold_label: str = "file") -> EvaluationResult:
    """Score every submission's spans against the gold spans (module docstring).

    Every gold item must have a row in each submission (``no-error`` rows included); submission rows
    that gold does not rate are not scored (counted in ``notes``). ``draws`` > 0 adds percentile
    intervals (``<key>_ci``), paired one-sided p-values (``f1_p_better``: a better than b) and
    clusters (``f1_cluster``), per pair and for ``"all"`` (the mean over pairs).
    """
    from leaderboard.signature import make_signature
    if measure not in MEASURES:
        raise InputError(f"unknown span measure {measure!r} (choose from {', '.join(MEASURES)})", column="measure")
    if average not in AVERAGES:
        raise InputError(f"unknown averaging {average!r} (choose from {', '.join(AVERAGES)})", column="average")
    if draws < 0:
        raise InputError("the number of bootstrap draws must be 0 or more", column="draws")
    if not predictions:
        raise InputError("no submission to evaluate", column="predictions")
    if gold.items.empty:
        raise InputError("the gold has no segment", file=gold.source)
    n = len(gold.items)
    gold_spans = scored_spans(gold, use_doc=True)
    per_item, notes = {}, {}
    for name, pred in predictions.items():
        if pred.kind != "spans":
            raise InputError(f"submission {name!r} gives {pred.kind}s, not error spans", file=pred.source)
        rows, note = align(gold, pred, f"submission {name!r}")
        ps = scored_spans(pred, rows=rows, use_doc=note["matched_by_document"])
        per_item[name] = item_sums(measure, gold_spans, ps, n, average)
        notes[name] = {**note, "predicted_spans": int(len(ps.item))}
    lps = gold.items["lp"].astype(str).to_numpy()
    groups = {lp: np.flatnonzero(lps == lp) for lp in dict.fromkeys(lps)}
    values, pvalues, _ = summarise(per_item, groups, lambda s: values_from_sums(measure, s, average), VALUES,
                                   draws=draws, seed=seed, alpha=alpha)
    counts = {lp: {"segments": int(len(idx)),
                   "gold_spans": int(np.isin(gold_spans.item, idx).sum())} for lp, idx in groups.items()}
    counts["all"] = {"segments": n, "gold_spans": int(len(gold_spans.item))}
    label = measure if measure == "wmt25" else f"mpp-{average}"
    signature = make_signature({"measure": label, "gold": gold_label, "segments": n, "pairs": len(groups),
                                "ci": f"bootstrap-segments@{1 - alpha:g}" if draws else "none",
                                "resamples": draws, "seed": seed if draws else None}, kind="spans")
    for name in values:
        for scope, row in values[name].items():
            row.update(counts[scope])
            row["signature"] = signature
    settings = {"measure": measure, "average": average, "draws": draws, "seed": seed, "alpha": alpha,
                "gold": gold_label}
    return EvaluationResult(values, pvalues, settings, signature, notes)
