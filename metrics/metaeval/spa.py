"""Soft pairwise accuracy (SPA; Thompson et al. 2024), exactly as the WMT24-25 Metrics tasks compute it.

For systems i < j (in system order), p(i, j) is the p-value of a paired sign-flip permutation test
on the per-system sums of segment scores: each permutation gives every segment a sign σ = ±1, the
null statistic is Σ_s σ_s x_is − Σ_s σ_s x_js and p is the share of permutations whose null is at
least the observed Σ_s x_is − Σ_s x_js (one-sided, no +1, no tolerance).
SPA = 1 − mean over i < j of |p_human(i, j) − p_metric(i, j)|.

The published numbers are reproducible only with the reference implementation's fixed permutations:
1,000 sign vectors from ``numpy.random.default_rng(4).random(..., dtype=float32)`` rounded to 0/1
(``rint``) and mapped to ±1, scores cast to float32, per-system signed sums as one float32 matrix
product, observed sums as numpy's float32 sums of C-ordered rows (other summation orders round
differently and move a few p-values by 1/1000). The same signs serve the human and every metric, so SPA
is a deterministic function of the scores. :func:`batch_pvalues` evaluates many score matrices at
once (the hybrids of the significance test, :mod:`.perm`).

Inputs are systems × segments arrays without missing cells (:func:`complete_segments` picks the
segments every system has).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

SIGN_SEED = 4
PERMUTATIONS = 1000


@lru_cache(maxsize=8)
def _signs(n_segments: int, permutations: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    m = np.rint(rng.random((permutations, n_segments), dtype=np.float32))
    out = (m * 2 - 1).astype(np.float32)
    out.setflags(write=False)
    return out


def sign_matrix(n_segments: int, permutations: int = PERMUTATIONS, seed: int = SIGN_SEED) -> np.ndarray:
    """permutations × segments float32 signs (±1), the fixed inner permutations of SPA."""
    return _signs(int(n_segments), int(permutations), int(seed))


def complete_segments(human: np.ndarray) -> np.ndarray:
    """Boolean mask of the segments that have a human score for every system."""
    return ~np.isnan(np.asarray(human, dtype=float)).any(axis=0)


def pair_pvalues(scores: np.ndarray, signs: np.ndarray | None = None) -> np.ndarray:
    """p(i, j) for every i < j (``np.triu_indices`` order) of a systems × segments matrix."""
    x = np.asarray(scores, dtype=np.float32)
    return batch_pvalues(x[None], signs)[0]


def batch_pvalues(stack: np.ndarray, signs: np.ndarray | None = None) -> np.ndarray:
    """p(i, j) of each matrix of a draws × systems × segments stack: draws × pairs (i < j)."""
    x = np.ascontiguousarray(stack, dtype=np.float32)
    c, n, s = x.shape
    if signs is None:
        signs = sign_matrix(s)
    null = (signs @ x.reshape(c * n, s).T).reshape(len(signs), c, n)   # float32 per-system signed sums
    observed = x.sum(axis=2)                              # c × n: numpy's pairwise sums of C-ordered rows
    i, j = np.triu_indices(n, k=1)
    return (null[:, :, i] - null[:, :, j] >= observed[:, i] - observed[:, j]).mean(axis=0)


def spa_from_pvalues(human_p: np.ndarray, metric_p: np.ndarray) -> np.ndarray | float:
    """1 − mean |p_human − p_metric| over the last axis (pairs)."""
    if np.shape(metric_p)[-1] == 0:
        return float("nan")
    out = 1.0 - np.abs(np.asarray(metric_p) - np.asarray(human_p)).mean(axis=-1)
    return float(out) if np.ndim(out) == 0 else out


def spa(human: np.ndarray, metric: np.ndarray, *, human_p: np.ndarray | None = None) -> float:
    """SPA of one metric: systems × segments arrays (higher = better on both sides).

    Segments without a human score for every system are left out (as the metric's cells there).
    """
    h = np.asarray(human, dtype=float)
    keep = complete_segments(h)
    m = np.asarray(metric, dtype=float)[:, keep]
    if np.isnan(m).any():
        raise ValueError("SPA needs a metric score for every rated (system, segment)")
    signs = sign_matrix(int(keep.sum()))
    if human_p is None:
        human_p = pair_pvalues(h[:, keep], signs)
    return spa_from_pvalues(human_p, pair_pvalues(m, signs))

