"""Which human rating is gold, when a campaign holds several of one segment, and MQM errors as spans.

The gold of an item (language pair, system, document, segment) comes from a frame of *ratings* —
one row per rating: the item keys, ``rating`` (an id: the rater, or rater and wave), ``order`` (the
order ratings arrived in), optionally ``wave`` and ``score`` — and a frame of *spans* — the item keys,
``rating``, ``start``, ``end`` (NaN: no location) and ``severity``. Any protocol that stores error
spans with a score (ESA, contrastive ESA, MQM) gives these two frames; :func:`choose_gold` makes the
gold of one rule:

- ``first``: the rating that came first (lowest ``order``) — what mt-metrics-eval calls
  ``esa-human1`` when every item has two;
- ``mean``: every rating: the mean score, and every rating's spans, each weighted by 1/(ratings of the
  item) so that the spans of two raters count as one annotation;
- ``wave:W``: the first rating of wave ``W`` (items without one are left out).

The rule goes into the result's signature (``gold:…``) through :func:`gold_label`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from leaderboard.errors import InputError

from .spans import ITEM_KEYS, SpanAnnotations

RULES: tuple[str, ...] = ("first", "mean", "wave:W")
#: MQM severities that mark an error of the output (neutral, no-error and attention checks do not)
MQM_SEVERITY = {"major": "major", "minor": "minor", "critical": "major"}


def parse_rule(rule: str) -> tuple[str, str | None]:
    """``"first"`` → ("first", None), ``"wave:2"`` → ("wave", "2"); an InputError for anything else."""
    text = str(rule).strip()
    if text in ("first", "mean"):
        return text, None
    if text.startswith("wave:") and text[5:].strip():
        return "wave", text[5:].strip()
    raise InputError(f"unknown gold rule {rule!r} (choose first, mean or wave:W)", column="gold-rating")


def gold_label(source: str, rule: str, assessment: str | None = None) -> str:
    """The signature's description of the gold: ``campaign=C/esa/first``."""
    return "/".join(x for x in (source, assessment, rule) if x)


def _keys(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    if "doc" not in out.columns:
        out["doc"] = ""
    out["doc"] = out["doc"].fillna("").astype(str)
    for col in ("lp", "system", "segment"):
        out[col] = out[col].astype(str)
    return out


def choose_gold(ratings: pd.DataFrame, spans: pd.DataFrame, rule: str = "first", *, source: str | None = None,
                errors_only: bool = False) -> SpanAnnotations:
    """The gold items and spans of ``rule`` (module docstring). ``errors_only``: the human scores are
    not on the 0–100 scale (MQM): error-free gold then depends on the spans alone."""
    kind, wave = parse_rule(rule)
    ratings = _keys(ratings)
    spans = _keys(spans)
    if "score" not in ratings.columns:
        ratings["score"] = np.nan
    if kind == "wave":
        if "wave" not in ratings.columns:
            raise InputError("these ratings carry no wave; choose first or mean", file=source, column="gold-rating")
        ratings = ratings[ratings["wave"].astype(str) == wave]
        if ratings.empty:
            raise InputError(f"no rating of wave {wave!r}", file=source, column="gold-rating")
    if ratings.empty:
        raise InputError("no human rating to take the gold from", file=source)
    keys = list(ITEM_KEYS)
    ratings = ratings.sort_values("order", kind="stable")
    if kind in ("first", "wave"):
        chosen = ratings.drop_duplicates(keys, keep="first")
        items = chosen[keys + ["score"]].reset_index(drop=True)
        picked = spans.merge(chosen[keys + ["rating"]], on=keys + ["rating"], how="inner")
        picked["weight"] = 1.0
    else:
        per_item = ratings.groupby(keys, sort=False)
        items = per_item["score"].mean().reset_index()
        n = per_item.size().rename("_n").reset_index()
        known = ratings[keys + ["rating"]].drop_duplicates()
        picked = spans.merge(known, on=keys + ["rating"], how="inner").merge(n, on=keys, how="left")
        picked["weight"] = 1.0 / picked["_n"]
        picked = picked.drop(columns="_n")
    items["ratings"] = ratings.groupby(keys, sort=False).size().reindex(
        pd.MultiIndex.from_frame(items[keys])).to_numpy()
    cols = keys + ["start", "end", "severity", "weight"]
    return SpanAnnotations(items, picked[cols].reset_index(drop=True), source=source, kind="spans",
                           attrs={"rule": rule, "errors_only": errors_only})


def mqm_ratings(errors: pd.DataFrame, weights: str = "google-mqm") -> tuple[pd.DataFrame, pd.DataFrame]:
    """(ratings, spans) from MQM annotation rows (``lp, system, doc, segment, rater, category, severity,
    span_start, span_end`` and optionally ``context``).

    A rating is one rater's (and, side by side, one partner's) annotation of a segment; its score is
    minus its MQM weight sum. Severity Major and Minor (Critical as Major) become spans; a Non-translation
    is Major whatever its severity; Neutral, No-error and attention checks are no error; an error of
    category omission, or one without a location in the translation, is missing content (it counts as
    an error for error-free gold but not in span scoring).
    """
    from leaderboard.expert.scoring import error_weights
    frame = _keys(errors.rename(columns={"span_start": "start", "span_end": "end"}))
    context = frame["context"].fillna("").astype(str) if "context" in frame.columns else ""
    frame["rating"] = frame["rater"].fillna("").astype(str) + np.where(context != "", "|" + context, "")
    frame["order"] = np.arange(len(frame))
    frame["_w"] = error_weights(errors.reset_index(drop=True), weights)
    keys = list(ITEM_KEYS)
    ratings = (frame.groupby(keys + ["rating"], sort=False)
               .agg(order=("order", "min"), score=("_w", "sum")).reset_index())
    ratings["score"] = -ratings["score"]
    severity = frame["severity"].astype(str).str.lower().map(MQM_SEVERITY)
    category = frame["category"].fillna("").astype(str).str.strip().str.lower()
    severity = severity.where(~category.str.startswith("non-translation") | severity.isna(), "major")
    start = pd.to_numeric(frame["start"], errors="coerce")
    end = pd.to_numeric(frame["end"], errors="coerce")
    located = start.notna() & end.notna() & (start >= 0) & (end > start)
    omission = category.str.contains("omission")
    is_error = severity.notna()
    spans = frame[is_error].assign(severity=np.where((omission | ~located)[is_error], "missing", severity[is_error]),
                                   start=start.where(located & ~omission)[is_error],
                                   end=end.where(located & ~omission)[is_error])
    return ratings, spans[keys + ["rating", "start", "end", "severity"]].reset_index(drop=True)
