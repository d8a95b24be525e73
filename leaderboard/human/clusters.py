"""Wins, rank ranges and clusters from a pairwise p-value matrix (METHOD.md §5, §9).

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
"""

from __future__ import annotations

import numpy as np

CLUSTER_RULES: tuple[str, ...] = ("organisers", "strict")


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
