"""Pairwise significance tests between systems, every ordered pair at once.

All functions return a k x k matrix ``p`` where ``p[i, j]`` is the one-sided p-value for
"system i is better than system j" (diagonal NaN), so both directions of every pair are there:

- :func:`mwu_greater_matrix` — Mann-Whitney U (Wilcoxon rank-sum) on two independent samples,
  the WMT19-22 DA protocol (docs/method/significance-and-clusters.md,
  docs/method/protocols.md). Normal approximation with tie and continuity
  correction, identical to ``scipy.stats.mannwhitneyu(x, y, alternative="greater",
  method="asymptotic")``; no loop over pairs, one sorted search per system.
- :func:`signed_rank_greater_matrix` — Wilcoxon signed-rank on the segments both systems share
  (paired; WMT24/25 style), normal approximation with tie correction, zeros dropped; identical to
  ``scipy.stats.wilcoxon(x, y, alternative="greater", method="asymptotic")``.
- :func:`approximate_randomisation_matrix` — paired approximate randomisation on shared
  segments: the two systems' scores of a segment are swapped with probability 1/2; the statistic
  is the mean difference; p = (#{Δ* ≥ Δ} + 1) / (trials + 1).
- :func:`stouffer_signed_rank_matrix` — the WMT24 ESA test: two-sided Wilcoxon signed-rank per domain
  on shared segments, the domains combined with Stouffer's Z; symmetric, made directional by the
  scores (:func:`directional`).
- :func:`mwu_greater_shared_matrix` — the WMT23 test: Mann-Whitney U on the segments both systems have.
- :func:`wave_signed_rank_matrix` — the WMT25 test on two ratings per item (a+a against b+swap(b)).

Paired tests take a k x m score matrix (systems x segments) with NaN where a system has no
score for a segment; :func:`score_matrix` builds it from per-segment scores.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

DEFAULT_TRIALS = 1000
DEFAULT_SEED = 12345
#: paired differences are rounded to this many decimals before ranking, so that differences of
#: segment means that are equal on paper (e.g. 70/3 − 40/3 and 10) tie and zeros are exact
DIFF_DECIMALS = 9


def _clean(samples: Sequence[np.ndarray]) -> list[np.ndarray]:
    out = []
    for s in samples:
        a = np.asarray(s, dtype=float).ravel()
        out.append(a[~np.isnan(a)])
    return out


def mwu_greater_matrix(samples: Sequence[np.ndarray]) -> np.ndarray:
    """k x k one-sided Mann-Whitney U p-values: ``[i, j]`` = p that sample i is greater than j.

    Asymptotic normal with tie correction and continuity correction (scipy's ``mannwhitneyu``,
    ``alternative="greater"``, ``method="asymptotic"``). NaN values are dropped; a pair with an
    empty sample gets NaN; the diagonal is NaN.

    How: with c_i(v) = how often sample i holds the value v (over the distinct pooled values),
    U_ij = Σ_v c_i(v)·(#{y in j: y < v} + ½ c_j(v)) and the pooled tie term of i and j,
    Σ_v (c_i + c_j)³ − (c_i + c_j) = T_i + T_j + 3·Σ_v c_i²c_j + 3·Σ_v c_i c_j², so every pair
    follows from a few k x V matrix products (exact in float64 for counts < 2**17).
    """
    clean = _clean(samples)
    k = len(clean)
    p = np.full((k, k), np.nan)
    if k < 2:
        return p
    sizes = np.array([len(s) for s in clean], dtype=float)
    if sizes.sum() == 0:
        return p
    values = np.concatenate(clean)
    owner = np.repeat(np.arange(k), sizes.astype(int))
    uniq, inverse = np.unique(values, return_inverse=True)
    v = len(uniq)
    if k * v <= _DENSE_LIMIT:
        counts = np.bincount(owner * v + inverse, minlength=k * v).reshape(k, v).astype(float)
        below = np.cumsum(counts, axis=1) - counts          # #{y in j: y < v}
        less = counts @ (below + 0.5 * counts).T
        sq = counts * counts
        cross = sq @ counts.T                                # Σ_v c_i² c_j
        tie = (sq * counts).sum(axis=1) - sizes              # Σ_v c_i³ − c_i
        tie = tie[:, None] + tie[None, :] + 3 * cross + 3 * cross.T
    else:
        less, tie = _mwu_sums_sparse(uniq, inverse, owner, k, sizes)
    n1 = sizes[:, None]
    n2 = sizes[None, :]
    n = n1 + n2
    with np.errstate(divide="ignore", invalid="ignore"):
        sigma = np.sqrt(n1 * n2 / 12.0 * ((n + 1) - tie / (n * (n - 1))))
        z = (less - n1 * n2 / 2.0 - 0.5) / sigma
    p = ndtr(-z)
    p[(n1 == 0) | (n2 == 0) | np.eye(k, dtype=bool)] = np.nan
    return p


_erfc = np.frompyfunc(math.erfc, 1, 1)


def ndtr(x) -> np.ndarray:
    """The standard normal CDF, elementwise (``scipy.special.ndtr``; libm's erfc keeps the far tails
    exact). Local so that ranking does not import scipy, half a second of every ``mtlb rank``."""
    return 0.5 * np.asarray(_erfc(-np.asarray(x, dtype=float) / math.sqrt(2.0)), dtype=float)


_DENSE_LIMIT = 20_000_000  # k x V cells above which the per-sample loop is used


def _mwu_sums_sparse(uniq: np.ndarray, inverse: np.ndarray, owner: np.ndarray, k: int,
                     sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """U statistics and pooled tie terms without a k x V matrix (one pass per sample)."""
    v = len(uniq)
    _, where, own_counts = np.unique(owner.astype(np.int64) * v + inverse, return_inverse=True,
                                     return_counts=True)
    own = own_counts[where].astype(float)  # c_i(x) for the sample i holding x
    less = np.empty((k, k))
    cross = np.empty((k, k))  # cross[i, j] = Σ_{x in i} c_i(x) c_j(x) = Σ_v c_i² c_j
    for j in range(k):
        cj = np.bincount(inverse[owner == j], minlength=v).astype(float)
        less[:, j] = np.bincount(owner, weights=(np.cumsum(cj) - 0.5 * cj)[inverse], minlength=k)
        cross[:, j] = np.bincount(owner, weights=own * cj[inverse], minlength=k)
    tie = np.bincount(owner, weights=own * own, minlength=k) - sizes  # Σ_v c_i³ − c_i
    return less, tie[:, None] + tie[None, :] + 3 * cross + 3 * cross.T


def score_matrix(segments: pd.DataFrame, systems: Sequence[str], column: str = "z") -> np.ndarray:
    """Systems x segments matrix of ``column`` from per-segment scores (NaN where not judged)."""
    seg_codes, seg_names = pd.factorize(segments["segment"].astype(str), sort=True)
    index = {s: i for i, s in enumerate(systems)}
    rows = segments["system"].astype(str).map(index)
    keep = rows.notna().to_numpy()
    out = np.full((len(systems), len(seg_names)), np.nan)
    out[rows.to_numpy()[keep].astype(int), seg_codes[keep]] = segments[column].to_numpy(dtype=float)[keep]
    return out


def _rank_abs_with_ties(d: np.ndarray) -> tuple[np.ndarray, float]:
    """Average ranks of |d| and the tie term Σ(t³ − t)."""
    a = np.abs(d)
    order = np.argsort(a, kind="mergesort")
    sa = a[order]
    starts = np.flatnonzero(np.r_[True, sa[1:] != sa[:-1]])
    counts = np.diff(np.r_[starts, len(sa)])
    avg = starts + (counts + 1) / 2.0
    ranks = np.empty(len(a))
    ranks[order] = np.repeat(avg, counts)
    return ranks, float(np.sum(counts.astype(float) ** 3 - counts))


def signed_rank_greater_matrix(scores: np.ndarray, correction: bool = False) -> np.ndarray:
    """k x k one-sided Wilcoxon signed-rank p-values on shared segments (row i better than j).

    ``scores`` is systems x segments with NaN for missing; each pair uses the segments both
    systems have. Differences are rounded to :data:`DIFF_DECIMALS` decimals (float noise must not
    break ties), zero differences are dropped (Wilcoxon's method), ties get average ranks and
    the variance is tie-corrected; p from the normal approximation (scipy ``wilcoxon`` with
    ``method="asymptotic"``; ``correction`` adds its continuity correction). Fewer than one
    non-zero difference gives NaN.
    """
    scores = np.asarray(scores, dtype=float)
    k = scores.shape[0]
    p = np.full((k, k), np.nan)
    have = ~np.isnan(scores)
    for i in range(k):
        for j in range(i + 1, k):
            shared = have[i] & have[j]
            d = np.round(scores[i, shared] - scores[j, shared], DIFF_DECIMALS)
            d = d[d != 0]
            n = len(d)
            if n == 0:
                continue
            ranks, tie = _rank_abs_with_ties(d)
            r_plus = ranks[d > 0].sum()
            mean = n * (n + 1) / 4.0
            se = np.sqrt((n * (n + 1) * (2 * n + 1) - tie / 2.0) / 24.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                z = (r_plus - mean) / se
                shift = 0.5 / se if correction else 0.0
            p[i, j] = ndtr(-(z - shift))
            p[j, i] = ndtr(-(-z - shift))
    return p


def randomisation_draws(seed: int, i: int, j: int, trials: int, n: int) -> np.ndarray:
    """The swap decisions (trials x n booleans) used for the pair (i, j), i < j.

    Each pair has its own generator seeded by (seed, i, j), so a pair's p-value does not depend
    on the other systems; exposed so tests can recompute the p-values independently.
    """
    rng = np.random.default_rng([int(seed), int(i), int(j)])
    return rng.random((trials, n)) < 0.5


def approximate_randomisation_matrix(scores: np.ndarray, trials: int = DEFAULT_TRIALS,
                                     seed: int = DEFAULT_SEED) -> np.ndarray:
    """k x k one-sided paired approximate-randomisation p-values on shared segments.

    For pair (i, j) with differences d over shared segments, Δ = mean(d); each trial flips the
    sign of every d independently with probability 1/2 (a swap of the two systems' scores);
    p[i, j] = (#{Δ* ≥ Δ} + 1) / (trials + 1), p[j, i] = (#{Δ* ≤ Δ} + 1) / (trials + 1).
    """
    scores = np.asarray(scores, dtype=float)
    k = scores.shape[0]
    p = np.full((k, k), np.nan)
    have = ~np.isnan(scores)
    eps = 1e-12
    for i in range(k):
        for j in range(i + 1, k):
            shared = have[i] & have[j]
            d = scores[i, shared] - scores[j, shared]
            n = len(d)
            if n == 0:
                continue
            delta = d.mean()
            swap = randomisation_draws(seed, i, j, trials, n)
            star = (d * np.where(swap, -1.0, 1.0)).mean(axis=1)
            tol = eps * max(1.0, abs(delta))  # float noise must not decide ties with Δ
            p[i, j] = (np.count_nonzero(star >= delta - tol) + 1) / (trials + 1)
            p[j, i] = (np.count_nonzero(star <= delta + tol) + 1) / (trials + 1)
    return p


#: scipy's ``method="auto"`` limits, written out so the choice does not move with scipy versions
EXACT_MAX_N = 50
PERMUTATION_MAX_N = 13


def _sign_flip_pvalue(d: np.ndarray, alternative: str) -> float:
    """Signed-rank p of ``d`` over all 2^n sign flips, as scipy's ``PermutationMethod`` computes it for n ≤ 13.

    The statistic is R+ (sum of the average ranks of |d| over the positive differences, zeros left out
    and ranked with nothing); ranks of |d| do not change when signs flip, so R+ of every one of the 2^n
    patterns (zeros included, they add nothing) is one matrix product. The p-value follows scipy's
    rule for a complete enumeration: the share of patterns at most (``less``) or at least (``greater``)
    the observed R+, counted with a relative tolerance of 100 machine epsilons of the observed value;
    two-sided is twice the smaller share, capped at 1. No loop over patterns: 2^13 × 13 at most.
    """
    n = len(d)
    ranks = np.zeros(n)
    nonzero = d != 0
    ranks[nonzero] = _rank_abs_with_ties(d[nonzero])[0]
    flips = ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1).astype(bool)
    positive = (d > 0) ^ flips  # sign of d after the flip; zeros stay out through their rank 0
    null = positive.astype(float) @ ranks
    observed = float(ranks[d > 0].sum())
    gamma = abs(np.finfo(float).eps * 100 * observed)
    total = float(2 ** n)
    p_less = np.count_nonzero(null <= observed + gamma) / total
    p_greater = np.count_nonzero(null >= observed - gamma) / total
    if alternative == "greater":
        p = p_greater
    elif alternative == "less":
        p = p_less
    else:
        p = 2 * min(p_less, p_greater)
    return float(min(max(p, 0.0), 1.0))


def wilcoxon_pvalue(d: np.ndarray, alternative: str = "two-sided") -> float:
    """Wilcoxon signed-rank p of the paired differences ``d`` as ``scipy.stats.wilcoxon(x, y)`` gives it by default.

    The defaults the WMT24/25 organisers called (zero_method "wilcox", no continuity correction, method
    "auto"), with the choice of method made here: the exact null distribution when n ≤ 50 (n counts the
    zero differences) and no difference is zero or tied in absolute value; all 2^n sign flips when there
    are zeros or ties and n ≤ 13 (:func:`_sign_flip_pvalue`, the same p as scipy's ``PermutationMethod``
    without its one Python call per sign pattern); the normal approximation (tie-corrected) otherwise.
    No difference at all gives NaN; differences that are all zero give 1 (scipy: 1 for n ≤ 13, NaN
    above; no evidence either way, so a pair that never differs is never significant).
    """
    d = np.asarray(d, dtype=float)
    d = d[~np.isnan(d)]
    n = len(d)
    if n == 0:
        return float("nan")
    nonzero = np.abs(d[d != 0])
    if len(nonzero) == 0:
        return 1.0
    ties = len(np.unique(nonzero)) < len(nonzero)
    if n <= EXACT_MAX_N and not ties and len(nonzero) == n:
        method = "exact"
    elif n <= PERMUTATION_MAX_N:
        return _sign_flip_pvalue(d, alternative)
    else:
        method = "asymptotic"
    from scipy import stats  # lazily: plain DA rankings never need scipy
    return float(stats.wilcoxon(d, alternative=alternative, method=method, correction=False,
                                zero_method="wilcox").pvalue)


def stouffer_signed_rank_matrix(scores: np.ndarray, domains: Sequence[str]) -> np.ndarray:
    """k × k symmetric p-values of the WMT24 ESA test: per domain a two-sided Wilcoxon signed-rank test.

    For each pair and each domain, the two-sided p_d of :func:`wilcoxon_pvalue` on the segments of that
    domain both systems have; the domains are combined with Stouffer's method as the organisers did,
    Z = Σ_d Φ⁻¹(1 − p_d) / √D and p = 1 − Φ(Z), D = the domains where the pair shares a segment. The
    p-value has no direction (p[i, j] = p[j, i]): a win also needs the higher score
    (:func:`directional`). NaN when the pair shares no segment; diagonal NaN.
    """
    from scipy.special import ndtr, ndtri  # lazily: plain DA rankings never need scipy
    scores = np.asarray(scores, dtype=float)
    doms = np.asarray(domains, dtype=object)
    k = scores.shape[0]
    out = np.full((k, k), np.nan)
    have = ~np.isnan(scores)
    parts = [doms == d for d in pd.unique(doms)]
    for i in range(k):
        for j in range(i + 1, k):
            total, count = 0.0, 0
            for part in parts:
                shared = part & have[i] & have[j]
                if not shared.any():
                    continue
                p_d = wilcoxon_pvalue(scores[i, shared] - scores[j, shared])
                total += float(ndtri(1.0 - p_d))
                count += 1
            if count:
                out[i, j] = out[j, i] = 1.0 - float(ndtr(total / math.sqrt(count)))
    return out


def directional(p: np.ndarray, scores: Sequence[float]) -> np.ndarray:
    """A p-value matrix without direction made directional: ``p[i, j]`` where system i has the higher
    score, 1 where it has not (a test that ignores direction says nothing about the lower system winning)."""
    p = np.asarray(p, dtype=float)
    s = np.asarray(scores, dtype=float)
    out = np.where(s[:, None] > s[None, :], p, np.where(np.isnan(p), np.nan, 1.0))
    np.fill_diagonal(out, np.nan)
    return out


def mwu_greater_shared_matrix(scores: np.ndarray) -> np.ndarray:
    """k x k one-sided Mann-Whitney U p-values on the segments both systems have (WMT23).

    ``scores`` is systems x segments (NaN: not judged). For each pair, the two systems' scores of their
    shared segments are compared as independent samples (:func:`mwu_greater_matrix`, identical to
    ``scipy.stats.mannwhitneyu(x, y, alternative="greater")`` with the asymptotic method).
    """
    scores = np.asarray(scores, dtype=float)
    k = scores.shape[0]
    p = np.full((k, k), np.nan)
    have = ~np.isnan(scores)
    for i in range(k):
        for j in range(i + 1, k):
            shared = have[i] & have[j]
            if shared.any():
                pair = mwu_greater_matrix([scores[i, shared], scores[j, shared]])
                p[i, j], p[j, i] = pair[0, 1], pair[1, 0]
    return p


def wave_signed_rank_matrix(wave1: np.ndarray, wave2: np.ndarray) -> np.ndarray:
    """k x k one-sided p-values of the WMT25 test on two ratings per item (row better than column).

    ``wave1`` / ``wave2``: systems x items, each system's first and second rating of every item (NaN:
    missing). System a's scores are wave 1 then wave 2; the pair (a, b) compares a+a with b+swap(b) —
    a1 a2 a1 a2 against b1 b2 b2 b1, so every same-wave and every cross-wave pairing of the two systems'
    ratings of an item is one paired difference — with the one-sided Wilcoxon signed-rank test
    "greater" (:func:`wilcoxon_pvalue`); pairs with a missing rating are left out.
    """
    w1 = np.asarray(wave1, dtype=float)
    w2 = np.asarray(wave2, dtype=float)
    k = w1.shape[0]
    p = np.full((k, k), np.nan)
    for i in range(k):
        a = np.concatenate([w1[i], w2[i], w1[i], w2[i]])
        for j in range(k):
            if i != j:
                b = np.concatenate([w1[j], w2[j], w2[j], w1[j]])
                p[i, j] = wilcoxon_pvalue(a - b, "greater")
    return p
