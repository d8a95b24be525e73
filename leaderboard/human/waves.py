"""The WMT25 human ranking: two ESA ratings per item, as the organisers ranked them.

Per language pair (the rules of the WMT25 organisers' script):

1. each system's scores are its wave-1 ratings followed by its wave-2 ratings, item by item;
2. systems are sorted by the mean of those scores (Ave);
3. a pair (a, b) is tested with the one-sided Wilcoxon signed-rank test "greater" on a+a against
   b+swap(b), so every same-wave and cross-wave pairing of the two systems' ratings of an item is a
   paired difference (:func:`leaderboard.human.significance.wave_signed_rank_matrix`); a beats b when
   p < 0.025;
4. rank_start walks up from each system to the nearest system above that beats it, rank_end down to
   the nearest below that it beats (:func:`leaderboard.human.clusters.rank_walks`);
5. a cluster ends after position i when every system at 1..i has rank_end ≤ i and every system below
   has rank_start > i (cluster rule ``wmt25``).

Input: :func:`leaderboard.ingest.waves.read_waves` (system, segment, wave, score, optional domain).
Pure: frames in, :class:`leaderboard.human.ranking.Ranking` objects out.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from ..errors import InputError
from .clusters import CLUSTER_RULES, cluster_ends, cluster_numbers, cluster_spans, rank_walks, wins_losses
from .ranking import Ranking, human_flags
from .significance import wave_signed_rank_matrix
from .spec import WavesSpec

ALPHA = 0.025


def rank_waves(frame: pd.DataFrame, *, alpha: float | None = None, cluster_rule: str | None = None,
               lp: str | None = None, human_systems: Mapping[str, bool] | None = None,
               documents: Mapping[str, Mapping[str, str]] | None = None,
               documents_source: str | None = None) -> list[Ranking]:
    """Rank every language pair of a two-wave rating frame (see the module docstring).

    ``alpha`` (default 0.025) and ``cluster_rule`` (default ``wmt25``) are recorded in the signature.
    Per-domain means come from the frame's ``domain`` column, else from ``documents`` (per lp, document
    id → domain) and the ``doc`` column.
    """
    alpha = ALPHA if alpha is None else alpha
    cluster_rule = cluster_rule or "wmt25"
    if not 0 < alpha < 1:
        raise InputError("alpha must lie strictly between 0 and 1", column="alpha")
    if cluster_rule not in CLUSTER_RULES:
        raise InputError(f"cluster rule must be one of {', '.join(CLUSTER_RULES)}", column="cluster-rule")
    if lp is not None:
        frame = frame[frame["lp"].astype(str) == lp]
        if frame.empty:
            raise InputError(f"no ratings for language pair {lp!r}", column="lp")
    out = []
    for pair, part in frame.groupby("lp", sort=True):
        out.append(_rank_pair(part, str(pair), alpha, cluster_rule, human_systems,
                              _domains(part, str(pair), documents, documents_source)))
    return out


def _domains(part: pd.DataFrame, lp: str, documents, source) -> pd.Series | None:
    """The domain of each row: the frame's own column, else the documents list, else none."""
    if "domain" in part.columns and (part["domain"].astype(str) != "").any():
        return part["domain"].astype(str).replace("", "all")
    if documents is None:
        return None
    from .domains import segment_domains
    table = segment_domains(part.assign(lp=lp), documents, source)
    return pd.Series([table[(lp, str(s))] for s in part["segment"]], index=part.index)


def _rank_pair(part: pd.DataFrame, lp: str, alpha: float, cluster_rule: str,
               human_systems: Mapping[str, bool] | None, domains: pd.Series | None) -> Ranking:
    systems_all, sys_codes = np.unique(part["system"].astype(str).to_numpy(), return_inverse=True)
    items, item_codes = np.unique(part["segment"].astype(str).to_numpy(), return_inverse=True)
    waves = np.full((2, len(systems_all), len(items)), np.nan)
    waves[part["wave"].to_numpy(dtype=int) - 1, sys_codes, item_codes] = part["score"].to_numpy(dtype=float)
    both = np.concatenate([waves[0], waves[1]], axis=1)  # wave 1 then wave 2
    with np.errstate(invalid="ignore"):
        ave = np.nanmean(both, axis=1)
    order = np.lexsort((systems_all, -ave))
    names = [str(s) for s in systems_all[order]]
    w1, w2 = waves[0][order], waves[1][order]
    p = wave_signed_rank_matrix(w1, w2)
    wins, losses = wins_losses(p, alpha)
    start, end = rank_walks(p, alpha)
    numbers = cluster_numbers(cluster_ends(p, alpha, cluster_rule))
    c_start, c_end = cluster_spans(numbers)
    rated = ~np.isnan(w1) | ~np.isnan(w2)
    table = pd.DataFrame({
        "system": names, "ave": ave[order], "ave_z": np.nan, "n": rated.sum(axis=1),
        "n_all": (~np.isnan(w1)).sum(axis=1) + (~np.isnan(w2)).sum(axis=1),
        "wins": wins, "losses": losses, "rank_lo": start, "rank_hi": end, "cluster": numbers,
        "cluster_start": c_start, "cluster_end": c_end, "human": human_flags(names, human_systems)})
    extra: dict = {"protocol": "wmt25", "alpha": alpha, "cluster_rule": cluster_rule}
    if domains is not None:
        means = (pd.DataFrame({"system": part["system"].astype(str).to_numpy(), "domain": domains.to_numpy(),
                               "score": part["score"].to_numpy(dtype=float)})
                 .groupby(["system", "domain"], sort=True)["score"].mean().unstack("domain").reindex(index=names))
        extra["domain_score"] = "ave"
        extra["_domain_means"] = means
    domains_from = None
    if domains is not None:
        domains_from = "column" if "domain" in part.columns and (part["domain"].astype(str) != "").any() \
            else "documents"
    spec = WavesSpec(alpha=alpha, cluster_rule=cluster_rule, domains=domains_from)
    signature = spec.signature(systems=len(names), segments=len(items), judgments=int(table["n_all"].sum()))
    return Ranking(lp=lp, assessment="esa", signature=signature, systems=table, pvalues=p, extra=extra, spec=spec)
