"""Combined adequacy + fluency significance (Graham et al. 2017, §5.2;
docs/method/significance-and-clusters.md#combined-adequacy-and-fluency).

X beats Y when X's adequacy is significantly higher than Y's. When the adequacy test is not
significant in either direction (an adequacy tie), the fluency test decides the pair. Fluency
never overrides a significant adequacy result, so fluency alone never ranks two systems that
adequacy separates.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from .power import segment_means, system_samples
from .significance import mwu_greater_matrix


def combined_p(p_adequacy: np.ndarray, p_fluency: np.ndarray, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Combine two k x k one-sided p-value matrices ([i, j] = p that i beats j).

    Returns (p, source): p[i, j] is the adequacy p-value when adequacy separates i and j in
    either direction at ``alpha``, else the fluency p-value; source[i, j] is "adequacy" or
    "fluency" ("" on the diagonal).
    """
    pa = np.asarray(p_adequacy, dtype=float)
    pf = np.asarray(p_fluency, dtype=float)
    if pa.shape != pf.shape or pa.ndim != 2 or pa.shape[0] != pa.shape[1]:
        raise ValueError("expected two square matrices of the same shape")
    separated = np.nan_to_num(pa, nan=1.0) < alpha
    separated = separated | separated.T
    p = np.where(separated, pa, pf)
    source = np.where(separated, "adequacy", "fluency").astype(object)
    np.fill_diagonal(p, np.nan)
    np.fill_diagonal(source, "")
    return p, source


def combined_ranking(adequacy: pd.DataFrame, fluency: pd.DataFrame, alpha: float = 0.05,
                     systems: Sequence[str] | None = None) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Rank the systems of one language pair from an adequacy and a fluency judgment frame.

    Each frame's system samples are per-segment average z (SYSTEM + REPEAT items); pairwise
    one-sided Mann-Whitney tests per assessment, combined by :func:`combined_p`. Systems are
    ordered by mean adequacy z, with mean fluency z breaking ties at two decimals (Graham et al.
    2017, Table 4). Returns (table, p, source) where table has system, adequacy_z, fluency_z,
    wins, losses (combined rule), and p / source follow the table's order.
    """
    seg_a = segment_means(adequacy)
    seg_f = segment_means(fluency)
    if systems is None:
        systems = sorted(set(seg_a["system"]) & set(seg_f["system"]))
    mean_a = seg_a.groupby("system")["z"].mean().reindex(systems)
    mean_f = seg_f.groupby("system")["z"].mean().reindex(systems)
    table = pd.DataFrame({"system": list(systems), "adequacy_z": mean_a.to_numpy(),
                          "fluency_z": mean_f.to_numpy()})
    table["_key"] = table["adequacy_z"].round(2)
    table = table.sort_values(["_key", "fluency_z"], ascending=False, kind="stable").drop(columns="_key")
    order = table["system"].tolist()
    pa = mwu_greater_matrix(system_samples(seg_a, order))
    pf = mwu_greater_matrix(system_samples(seg_f, order))
    p, source = combined_p(pa, pf, alpha)
    wins = np.nan_to_num(p, nan=1.0) < alpha
    table["wins"] = wins.sum(axis=1)
    table["losses"] = wins.sum(axis=0)
    return table.reset_index(drop=True), p, source
