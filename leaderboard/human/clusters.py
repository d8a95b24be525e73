"""Wins, rank ranges and clusters from a pairwise p-value matrix
(docs/method/significance-and-clusters.md, docs/method/protocols.md).

The matrix must be in ranking order (position 0 = the best Ave z); ``p[i, j]`` is the one-sided
p-value that system i is better than system j. A system *wins* over another when that p is below
``alpha``; wins and losses are counted over ALL other systems (a lower-placed system can win over
a higher one: the test compares distributions, not means).

- Rank range: top = 1 + losses, bottom = N − wins.
- Cluster rules:
  ``organisers`` (default; the rule behind every published WMT21/22 DA table): a cluster ends
  after position i (1-based) iff wins(system at i) = N − i.
  ``strict`` (the Findings text read literally): a cluster ends after position i iff every
  system at positions 1..i significantly beats every system at positions i+1..N.
  ``wmt24`` (the WMT24 organisers' script): a cluster ends after position i unless some system at
  j ≤ i and some at k > i have p(j, k) > alpha (an untested pair, NaN, counts as not significant);
  the same as ``strict`` except at p = alpha.
  ``wmt25`` (the WMT25 organisers' script): from the rank walks of :func:`rank_walks`, a cluster ends
  after position i when every system at 1..i has rank_end ≤ i and every system below has
  rank_start > i.
"""

from __future__ import annotations

import numpy as np

CLUSTER_RULES: tuple[str, ...] = ("organisers", "strict", "wmt24", "wmt25")


def significant(p: np.ndarray, alpha: float) -> np.ndarray:
    """Boolean matrix: row beats column (p < alpha; NaN never counts)."""
    p = np.asarray(p, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.nan_to_num(p, nan=np.inf) < alpha


def wins_losses(p: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Number of systems each system beats, and by how many it is beaten."""
    beats = significant(p, alpha)
    np.fill_diagonal(beats, False)
    return beats.sum(axis=1), beats.sum(axis=0)


def rank_ranges(p: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """(top, bottom) rank of every system: 1 + losses and N − wins."""
    wins, losses = wins_losses(p, alpha)
    n = len(wins)
    return 1 + losses, n - wins


def cluster_ends(p: np.ndarray, alpha: float, rule: str = "organisers") -> np.ndarray:
    """Boolean per position: a cluster ends after this position (always true for the last)."""
    if rule not in CLUSTER_RULES:
        raise ValueError(f"cluster rule must be one of {CLUSTER_RULES}, not {rule!r}")
    beats = significant(p, alpha)
    np.fill_diagonal(beats, False)
    n = beats.shape[0]
    if n == 0:
        return np.zeros(0, dtype=bool)
    if rule == "organisers":
        wins = beats.sum(axis=1)
        ends = wins == n - np.arange(1, n + 1)
    elif rule == "wmt24":
        with np.errstate(invalid="ignore"):
            loose = ~(np.asarray(p, dtype=float) <= alpha)  # p > alpha, or untested
        ends = np.array([not loose[:i + 1, i + 1:].any() for i in range(n)])
    elif rule == "wmt25":
        start, end = rank_walks(p, alpha)
        pos = np.arange(1, n + 1)
        ends = np.array([(end[:i] <= i).all() and (start[i:] > i).all() for i in pos])
    else:
        # block [0..i] x [i+1..n) all True  <=>  no False in that block; count False per block
        # with a 2-D cumulative sum over the complement
        miss = (~beats).astype(np.int64)
        cum = miss.cumsum(axis=0).cumsum(axis=1)  # cum[r, c] = misses in rows 0..r, cols 0..c
        ends = np.zeros(n, dtype=bool)
        for i in range(n - 1):
            block = cum[i, n - 1] - cum[i, i]  # rows 0..i, cols i+1..n-1
            ends[i] = block == 0
    ends[-1] = True
    return ends


def rank_walks(p: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """WMT25 rank ranges (1-based), the matrix in ranking order: rank_start walks up from each system
    to the nearest system above that significantly beats it (rank_start = its position + 1; 1 when
    none does), rank_end walks down to the nearest system below that it significantly beats
    (rank_end = that position − 1; N when none)."""
    beats = significant(p, alpha)
    np.fill_diagonal(beats, False)
    n = beats.shape[0]
    start = np.ones(n, dtype=int)
    end = np.full(n, n, dtype=int)
    for i in range(n):
        above = np.flatnonzero(beats[:i, i])
        if above.size:
            start[i] = above[-1] + 2
        below = np.flatnonzero(beats[i, i + 1:])
        if below.size:
            end[i] = i + below[0] + 1
    return start, end


def cluster_numbers(ends: np.ndarray) -> np.ndarray:
    """1-based cluster number per position from :func:`cluster_ends`."""
    ends = np.asarray(ends, dtype=bool)
    return 1 + np.concatenate([[0], np.cumsum(ends[:-1])]).astype(int) if len(ends) else np.zeros(0, int)


def cluster_spans(numbers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First and last position (1-based) of each system's cluster (clusters.csv CLUSTER_START/END)."""
    numbers = np.asarray(numbers)
    pos = np.arange(1, len(numbers) + 1)
    start = np.array([pos[numbers == c].min() for c in numbers], dtype=int)
    end = np.array([pos[numbers == c].max() for c in numbers], dtype=int)
    return start, end
