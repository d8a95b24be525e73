"""Power analysis: share of significantly different system pairs vs judgments per system.

Graham et al. (2017, Table 6, Fig. 5) subsample the collected HITs in submission order and re-run
the pairwise tests. Here: HITs are taken in the order of their first row in the frame (the WMT
releases and Appraise exports list HITs in collection order; pass ``hit_order`` otherwise); for
each prefix, the system samples are the per-segment averages of the z-scores of SYSTEM and REPEAT
items (docs/method/protocols.md#wmt19-to-wmt22-crowd-da), every ordered pair is tested with the
one-sided Mann-Whitney U test ("greater"), and a pair of systems counts as significantly different
at level a when either direction has p < a. Shares are over all system pairs of the full data, so
the last point of the curve is the full-data share. z-scores are the frame's own (standardised on
all judgments, as published); when missing they are computed per (worker, lp, assessment) on the
whole frame.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from .agreement import standardise
from .significance import mwu_greater_matrix

ALPHAS: tuple[float, ...] = (0.05, 0.01, 0.001)


def segment_means(frame: pd.DataFrame, z: np.ndarray | None = None) -> pd.DataFrame:
    """Average z per (system, segment) over SYSTEM and REPEAT items: columns system, segment, z, n."""
    z = standardise(frame) if z is None else np.asarray(z, dtype=float)
    sel = np.isin(frame["item_type"].to_numpy(), ("SYSTEM", "REPEAT")) & np.isfinite(z)
    part = pd.DataFrame({"system": frame["system"].to_numpy()[sel],
                         "segment": frame["segment"].to_numpy()[sel], "z": z[sel]})
    return part.groupby(["system", "segment"], sort=False)["z"].agg(["mean", "size"]) \
        .rename(columns={"mean": "z", "size": "n"}).reset_index()


def system_samples(seg: pd.DataFrame, systems: Sequence[str]) -> list[np.ndarray]:
    """Per-segment score arrays of ``systems`` (empty array for a system without segments)."""
    groups = {s: g["z"].to_numpy() for s, g in seg.groupby("system", sort=False)}
    return [groups.get(s, np.empty(0)) for s in systems]


def significance_share(p: np.ndarray, alphas: Sequence[float] = ALPHAS) -> dict[float, float]:
    """Share of unordered system pairs significantly different (either direction) at each alpha."""
    k = p.shape[0]
    pairs = k * (k - 1) // 2
    best = np.fmin(p, p.T)  # min of the two directions; NaN only when both are NaN
    iu = np.triu_indices(k, 1)
    values = np.nan_to_num(best[iu], nan=1.0)
    return {a: (float(np.mean(values < a)) if pairs else float("nan")) for a in alphas}


def power_curve(
    frame: pd.DataFrame,
    steps: int = 10,
    *,
    hit_order: Sequence[str] | None = None,
    alphas: Sequence[float] = ALPHAS,
) -> pd.DataFrame:
    """Significant-pair shares for growing prefixes of the HITs, per (lp, assessment).

    Columns: lp, assessment, n_hits, judgments (SYSTEM + REPEAT items in the prefix),
    judgments_per_system, n_systems (of the full data), pairs, and ``share_<alpha>`` per alpha.
    """
    frame = frame.reset_index(drop=True)
    z_all = standardise(frame)
    rows = []
    for (lp, assessment), idx in frame.groupby(["lp", "assessment"], sort=True).indices.items():
        part = frame.iloc[idx].reset_index(drop=True)
        z = z_all[idx]
        hits = pd.unique(part["hit"]) if hit_order is None else \
            np.array([h for h in hit_order if h in set(part["hit"])])
        rank = pd.Series(np.arange(len(hits)), index=hits)
        hit_rank = part["hit"].map(rank).to_numpy(dtype=float)
        scored = np.isin(part["item_type"].to_numpy(), ("SYSTEM", "REPEAT"))
        systems = sorted(part.loc[scored, "system"].unique())
        cuts = np.unique(np.round(np.linspace(0, len(hits), steps + 1)[1:]).astype(int))
        for cut in cuts[cuts > 0]:
            sel = hit_rank < cut
            sub = part[sel]
            seg = segment_means(sub, z[sel])
            p = mwu_greater_matrix(system_samples(seg, systems))
            share = significance_share(p, alphas)
            judged = int((scored & sel).sum())
            row = {"lp": lp, "assessment": assessment, "n_hits": int(cut), "judgments": judged,
                   "judgments_per_system": judged / len(systems) if systems else float("nan"),
                   "n_systems": len(systems), "pairs": len(systems) * (len(systems) - 1) // 2}
            row.update({f"share_{a:g}": v for a, v in share.items()})
            rows.append(row)
    return pd.DataFrame(rows)
