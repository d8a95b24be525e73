"""Annotator agreement on continuous DA scores (Graham et al. 2013; docs/method/agreement.md)
and kappa coefficients.

Continuous 0-100 scores are mapped to k categories (k = 5, 4, 2: equal-width bins, so k = 4 cuts
at the slider's marks 25/50/75), and agreement is measured over pairs of judgments of the same
translation:

* intra-annotator: the two showings of a ``REPEAT`` item (same worker, same HIT);
* inter-annotator: the same (lp, assessment, system, segment) judged by two different workers
  (``SYSTEM`` items, every unordered pair of workers, each worker's first judgment of the item).

Kappa = (Pr(a) - Pr(e)) / (1 - Pr(e)). The tables of Graham et al. (2013) use the chance agreement of k equally
likely categories, Pr(e) = 1/k (every published Pr(a) / kappa pair there satisfies it), and seed
004 uses Pr(e) = 1/3 for the three outcomes {<, =, >}; that is ``kappa`` here. Cohen's kappa with
the two raters' marginal distributions is reported alongside (``kappa_cohen``).
The standardised variant maps worker z-scores to k categories by percentiles of all pooled
z-scores (bottom 20% -> category 0 for k = 5, ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from .qc import qc_pairs

CATEGORIES: tuple[int, ...] = (5, 4, 2)


@dataclass(frozen=True)
class Kappa:
    """A kappa coefficient with its ingredients."""

    n: int
    p_agree: float
    p_chance: float
    kappa: float


def kappa_from_agreement(p_agree: float, p_chance: float) -> float:
    """kappa = (Pr(a) - Pr(e)) / (1 - Pr(e))."""
    return (p_agree - p_chance) / (1.0 - p_chance)


def cohen_kappa(a: Sequence[int], b: Sequence[int], n_categories: int | None = None,
                chance: str = "marginal") -> Kappa:
    """Agreement of two parallel label sequences (labels 0..k-1).

    ``chance``: "marginal" = Cohen (product of each rater's label distribution), "pooled" =
    Scott's pi / two-rater Fleiss (squared pooled distribution), "uniform" = 1/k.
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if a.shape != b.shape:
        raise ValueError("the two label sequences differ in length")
    n = a.size
    if n == 0:
        return Kappa(0, float("nan"), float("nan"), float("nan"))
    k = int(n_categories if n_categories is not None else max(a.max(), b.max()) + 1)
    p_agree = float(np.mean(a == b))
    pa = np.bincount(a, minlength=k) / n
    pb = np.bincount(b, minlength=k) / n
    if chance == "marginal":
        p_chance = float(pa @ pb)
    elif chance == "pooled":
        p_chance = float((((pa + pb) / 2) ** 2).sum())
    elif chance == "uniform":
        p_chance = 1.0 / k
    else:
        raise ValueError(f"unknown chance model {chance!r}")
    kappa = kappa_from_agreement(p_agree, p_chance) if p_chance < 1 else float("nan")
    return Kappa(n, p_agree, p_chance, kappa)


def fleiss_kappa(counts: np.ndarray, p_chance: float | None = None) -> Kappa:
    """Fleiss' kappa from an items x categories table of rater counts (equal raters per item).

    Pr(a) is the mean over items of the share of agreeing rater pairs; Pr(e) is the sum of the
    squared category shares (Fleiss 1971) unless ``p_chance`` fixes it (Bentivogli et al. 2011: 1/3).
    """
    counts = np.asarray(counts, dtype=float)
    raters = counts.sum(axis=1)
    if counts.ndim != 2 or counts.shape[0] == 0:
        raise ValueError("expected a non-empty items x categories table")
    if not np.all(raters == raters[0]) or raters[0] < 2:
        raise ValueError("every item needs the same number (>= 2) of ratings")
    m = raters[0]
    p_item = ((counts * (counts - 1)).sum(axis=1)) / (m * (m - 1))
    p_agree = float(p_item.mean())
    if p_chance is None:
        share = counts.sum(axis=0) / counts.sum()
        p_chance = float((share ** 2).sum())
    kappa = kappa_from_agreement(p_agree, p_chance) if p_chance < 1 else float("nan")
    return Kappa(int(counts.shape[0]), p_agree, float(p_chance), kappa)


def to_categories(scores: np.ndarray, k: int, low: float = 0.0, high: float = 100.0) -> np.ndarray:
    """Equal-width bins of [low, high] numbered 0..k-1 (the top edge belongs to the last bin)."""
    x = (np.asarray(scores, dtype=float) - low) / (high - low)
    return np.clip(np.floor(x * k), 0, k - 1).astype(np.int64)


def to_percentile_categories(z: np.ndarray, k: int, pooled: np.ndarray | None = None) -> np.ndarray:
    """Categories 0..k-1 by the k-quantiles of ``pooled`` (default: ``z`` itself)."""
    z = np.asarray(z, dtype=float)
    ref = z if pooled is None else np.asarray(pooled, dtype=float)
    ref = ref[np.isfinite(ref)]
    cuts = np.quantile(ref, np.arange(1, k) / k)
    return np.searchsorted(cuts, z, side="right").astype(np.int64)


def standardise(frame: pd.DataFrame) -> np.ndarray:
    """Worker z-scores: the frame's z where given, else (raw - mean) / sd per (worker, lp, assessment)."""
    z = frame["z"].to_numpy(dtype=float) if "z" in frame.columns else np.full(len(frame), np.nan)
    if np.isfinite(z).all():
        return z
    keys = [frame[c] for c in ("worker", "lp", "assessment")]
    raw = frame["raw"].astype(float)
    grp = raw.groupby(keys, sort=False)
    computed = ((raw - grp.transform("mean")) / grp.transform("std", ddof=1)).to_numpy()
    return np.where(np.isfinite(z), z, computed)


def intra_pairs(frame: pd.DataFrame) -> pd.DataFrame:
    """REPEAT pairs (same worker): columns raw_a, raw_b, z_a, z_b (first and second showing)."""
    frame = frame.reset_index(drop=True)
    z = standardise(frame)
    pairs = qc_pairs(frame)
    pairs = pairs[pairs["kind"] == "REPEAT"]
    raw = frame["raw"].to_numpy(dtype=float)
    a = pairs["row_first"].to_numpy()
    b = pairs["row_second"].to_numpy()
    return pd.DataFrame({"raw_a": raw[a], "raw_b": raw[b], "z_a": z[a], "z_b": z[b]})


def inter_pairs(frame: pd.DataFrame) -> pd.DataFrame:
    """Pairs of different workers' SYSTEM judgments of the same translation (columns as intra)."""
    frame = frame.reset_index(drop=True)
    z = standardise(frame)
    key = ["lp", "assessment", "system", "segment"]
    sel = frame["item_type"].to_numpy() == "SYSTEM"
    base = frame.loc[sel, key + ["worker"]].copy()
    base["_row"] = np.flatnonzero(sel)
    base = base.drop_duplicates(key + ["worker"], keep="first")
    both = base.merge(base, on=key, suffixes=("_a", "_b"))
    both = both[both["worker_a"] < both["worker_b"]]
    raw = frame["raw"].to_numpy(dtype=float)
    a = both["_row_a"].to_numpy()
    b = both["_row_b"].to_numpy()
    return pd.DataFrame({"raw_a": raw[a], "raw_b": raw[b], "z_a": z[a], "z_b": z[b]})


def agreement_table(frame: pd.DataFrame, categories: Sequence[int] = CATEGORIES) -> pd.DataFrame:
    """Tables 2/3 of Graham et al. (2013) for a judgment frame: one row per scope x variant x k.

    Columns: scope (intra | inter), variant (raw | standardised), k, n_pairs, p_agree, kappa
    (chance 1/k), kappa_cohen (marginal chance).
    """
    frame = frame.reset_index(drop=True)
    pooled_z = standardise(frame)
    rows = []
    for scope, pairs in (("intra", intra_pairs(frame)), ("inter", inter_pairs(frame))):
        for variant in ("raw", "standardised"):
            if variant == "raw":
                ok = np.isfinite(pairs["raw_a"]) & np.isfinite(pairs["raw_b"])
                a_s, b_s = pairs.loc[ok, "raw_a"].to_numpy(), pairs.loc[ok, "raw_b"].to_numpy()
            else:
                ok = np.isfinite(pairs["z_a"]) & np.isfinite(pairs["z_b"])
                a_s, b_s = pairs.loc[ok, "z_a"].to_numpy(), pairs.loc[ok, "z_b"].to_numpy()
            for k in categories:
                if variant == "raw":
                    a, b = to_categories(a_s, k), to_categories(b_s, k)
                else:
                    a = to_percentile_categories(a_s, k, pooled_z)
                    b = to_percentile_categories(b_s, k, pooled_z)
                uni = cohen_kappa(a, b, k, chance="uniform")
                coh = cohen_kappa(a, b, k, chance="marginal")
                rows.append({"scope": scope, "variant": variant, "k": k, "n_pairs": uni.n,
                             "p_agree": uni.p_agree, "kappa": uni.kappa, "kappa_cohen": coh.kappa})
    return pd.DataFrame(rows)


def difference_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 1 of Graham et al. (2013): mean and sd of absolute score differences over intra / inter pairs.

    Columns: scope, n_pairs, mean_abs_diff / sd_abs_diff (raw points), mean_abs_diff_z /
    sd_abs_diff_z (z units); sd with n - 1.
    """
    rows = []
    for scope, pairs in (("intra", intra_pairs(frame)), ("inter", inter_pairs(frame))):
        d = np.abs(pairs["raw_a"] - pairs["raw_b"]).dropna().to_numpy()
        dz = np.abs(pairs["z_a"] - pairs["z_b"]).dropna().to_numpy()
        rows.append({"scope": scope, "n_pairs": int(len(pairs)),
                     "mean_abs_diff": float(d.mean()) if d.size else np.nan,
                     "sd_abs_diff": float(d.std(ddof=1)) if d.size > 1 else np.nan,
                     "mean_abs_diff_z": float(dz.mean()) if dz.size else np.nan,
                     "sd_abs_diff_z": float(dz.std(ddof=1)) if dz.size > 1 else np.nan})
    return pd.DataFrame(rows)
