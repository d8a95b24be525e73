"""MQM scores from error annotations (lower is better).

- a rater's score of a segment = the sum of the weights of the errors they marked in it
  (a ``No-error`` row weighs 0 and still says the rater saw the segment);
- a segment's score = the mean over the ratings of that (system, segment): one per rater, or, in
  side-by-side files, one per rater and partner system (``context``: the same output rated beside two
  partners is two ratings);
- a system's score = the mean over its rated segments; ``n`` = the number of rated segments.

This is the rule published with google/wmt-mqm-human-evaluation (Freitag et al. 2021), whose
``*.avg_seg_scores.tsv`` files hold the negated segment scores.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .weights import DEFAULT_SCHEME, WeightScheme, get_scheme


def error_weights(errors: pd.DataFrame, scheme: WeightScheme | str = DEFAULT_SCHEME) -> np.ndarray:
    """The weight of every annotation row under ``scheme``."""
    scheme = get_scheme(scheme) if isinstance(scheme, str) else scheme
    return scheme.weights(errors["category"], errors["severity"])


def segment_scores(errors: pd.DataFrame, scheme: WeightScheme | str = DEFAULT_SCHEME) -> pd.DataFrame:
    """Per (lp, system, segment): ``mqm`` (mean over raters of each rater's summed weights),
    ``raters`` and ``errors`` (annotation rows that are not No-error)."""
    w = error_weights(errors, scheme)
    is_error = (errors["severity"].to_numpy(dtype=object) != "no-error") & (w > 0)
    keys = ["lp", "system", "segment"]
    rating = ["rater", "context"] if "context" in errors.columns else ["rater"]
    per_rater = (errors.assign(_w=w, _e=is_error.astype(int))
                 .groupby(keys + rating, sort=False, observed=True)[["_w", "_e"]].sum())
    per_seg = per_rater.groupby(level=keys, sort=False, observed=True).agg(
        mqm=("_w", "mean"), raters=("_w", "size"), errors=("_e", "sum")).reset_index()
    return per_seg


def system_scores(seg: pd.DataFrame) -> pd.DataFrame:
    """Per (lp, system): ``mqm`` (mean over rated segments) and ``n`` (rated segments)."""
    return (seg.groupby(["lp", "system"], sort=True, observed=True)
            .agg(mqm=("mqm", "mean"), n=("mqm", "size")).reset_index())


def breakdown(errors: pd.DataFrame, scheme: WeightScheme | str = DEFAULT_SCHEME) -> pd.DataFrame:
    """Errors per (lp, system, top-level category, severity): count and weight per rated segment.

    ``per_segment`` divides the summed weights by the system's rated (segment, rater) pairs, so
    the rows of a system add up to its MQM score when every segment has one rater.
    """
    w = error_weights(errors, scheme)
    frame = errors.assign(weight=w, top=errors["category"].str.split("/").str[0].str.strip())
    rating = ["rater", "context"] if "context" in frame.columns else ["rater"]
    rated = (frame.drop_duplicates(["lp", "system", "segment", *rating])
             .groupby(["lp", "system"], observed=True).size().rename("rated"))
    errs = frame[(frame["severity"] != "no-error") & (frame["weight"] > 0)]
    out = (errs.groupby(["lp", "system", "top", "severity"], observed=True)
           .agg(count=("weight", "size"), weight=("weight", "sum")).reset_index()
           .rename(columns={"top": "category"}))
    out = out.merge(rated.reset_index(), on=["lp", "system"], how="left")
    out["per_segment"] = out["weight"] / out["rated"]
    return out.drop(columns="rated")
