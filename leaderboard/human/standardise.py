"""Per-worker standardisation of raw DA scores (docs/method/standardisation.md, docs/method/protocols.md).

z = (raw − mean) / sd, where mean and the sample sd (n − 1) are taken over one worker's
judgments of one language pair and assessment (the WMT19-22 practice: the release's
``ad-<lp>-trk-mean-sd.txt`` holds exactly these figures, over all item types). Options:

- ``exclude_ref`` / ``exclude_bad_ref``: leave ``REF`` / ``BAD_REF`` items out of the mean and
  sd; those items still get a z from the figures of the others. The release's
  ``ad-<lp>-trk-mean-sd-no-refs.txt`` is both together (mean and sd over SYSTEM and REPEAT
  items only; pinned in tests/test_rank_standardise.py).
- ``zero_sd``: a worker whose scores do not vary (sd = 0, or a single judgment so sd is
  undefined) has no z. ``"drop"`` (default, as WMT: such workers never appear in the released
  standardised files) leaves their z NaN so the caller removes them; ``"one"`` divides by 1
  (z = raw − mean; a lone judgment gets z = 0).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

ZERO_SD_OPTIONS: tuple[str, ...] = ("drop", "one")
GROUP_KEYS: tuple[str, ...] = ("worker", "lp", "assessment")


def group_codes(frame: pd.DataFrame, keys: Sequence[str]) -> tuple[np.ndarray, int]:
    """Dense integer codes of the distinct key combinations of ``frame`` (and how many)."""
    codes = np.zeros(len(frame), dtype=np.int64)
    size = 1
    for key in keys:
        c, uniques = pd.factorize(frame[key], use_na_sentinel=False)
        codes = codes * max(len(uniques), 1) + c
        size *= max(len(uniques), 1)
        if size > 2**40:  # keep the combined code compact
            codes, uniq = pd.factorize(codes)
            size = len(uniq)
    codes, uniq = pd.factorize(codes)
    return codes.astype(np.int64), len(uniq)


def worker_z(
    frame: pd.DataFrame,
    *,
    exclude_ref: bool = False,
    exclude_bad_ref: bool = False,
    zero_sd: str = "drop",
    keys: Sequence[str] = GROUP_KEYS,
) -> np.ndarray:
    """z-score of every row from ``raw``, standardised per (worker, lp, assessment).

    Rows with NaN raw get NaN z and do not count towards the mean / sd. See the module docstring
    for ``exclude_ref``, ``exclude_bad_ref`` and ``zero_sd``.
    """
    if zero_sd not in ZERO_SD_OPTIONS:
        raise ValueError(f"zero_sd must be one of {ZERO_SD_OPTIONS}, not {zero_sd!r}")
    raw = frame["raw"].to_numpy(dtype=float, na_value=np.nan)
    if len(frame) == 0:
        return np.empty(0)
    codes, n_groups = group_codes(frame, [k for k in keys if k in frame.columns])
    counted = ~np.isnan(raw) & _counted_items(frame, exclude_ref, exclude_bad_ref)
    w = counted.astype(float)
    x = np.where(counted, raw, 0.0)
    n = np.bincount(codes, weights=w, minlength=n_groups)
    total = np.bincount(codes, weights=x, minlength=n_groups)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = total / n
        dev = np.where(counted, raw - mean[codes], 0.0)
        ss = np.bincount(codes, weights=dev * dev, minlength=n_groups)
        sd = np.sqrt(ss / (n - 1))
    # a constant worker: floating sums can leave sd a hair above zero; treat tiny sd as zero
    scale = np.maximum(np.abs(mean), 1.0)
    flat = ~(sd > 1e-12 * scale)
    if zero_sd == "one":
        sd = np.where(flat & (n >= 1), 1.0, sd)
    else:
        sd = np.where(flat, np.nan, sd)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (raw - mean[codes]) / sd[codes]
    return z


def _counted_items(frame: pd.DataFrame, exclude_ref: bool, exclude_bad_ref: bool) -> np.ndarray:
    left_out = [t for t, flag in (("REF", exclude_ref), ("BAD_REF", exclude_bad_ref)) if flag]
    if not left_out:
        return np.ones(len(frame), dtype=bool)
    return ~frame["item_type"].isin(left_out).to_numpy(dtype=bool)


def worker_stats(frame: pd.DataFrame, *, exclude_ref: bool = False, exclude_bad_ref: bool = False,
                 keys: Sequence[str] = GROUP_KEYS) -> pd.DataFrame:
    """Per (worker, lp, assessment): n, mean and sample sd of raw (the release's mean/sd file)."""
    keys = [k for k in keys if k in frame.columns]
    part = frame[_counted_items(frame, exclude_ref, exclude_bad_ref)]
    g = part.groupby(keys, sort=True, observed=True)["raw"]
    return g.agg(n="count", mean="mean", sd=lambda s: s.std(ddof=1)).reset_index()
