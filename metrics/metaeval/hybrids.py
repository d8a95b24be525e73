"""The resampling of each statistic's metric-vs-metric test: how two metrics are mixed into two hybrids.

Every class gives ``deltas(a, b, n, rng)``: n draws of Δ* = statistic(hybrid 1) − statistic(hybrid 2),
where hybrid 1 holds metric a's part of every resampling unit unless the draw swaps that unit, and
hybrid 2 the rest. All draws of a pair are computed together (in chunks that bound the memory).

- :class:`AccEqHybrids` — acc_eq ("pairs" test): the unit is one (segment, system pair) comparison;
  each metric keeps its own tie threshold ε, so a unit carries that metric's verdict (agrees with the
  humans or not). Only the comparisons where the two verdicts differ move Δ*, and Δ* depends on a draw
  only through how many of them are swapped in each class of equal weight (segments with the same
  number of pairs), separately for the comparisons that favour a and those that favour b. Those
  counts are binomial (each comparison is swapped with probability 1/2), so the draws are sampled
  exactly from two binomials per class instead of one coin per comparison: the same null
  distribution, at a cost independent of the number of comparisons.
- :class:`SpaHybrids` — SPA ("scores" test): both metrics are z-scored (over all their cells,
  ddof 0); the unit is one (system, segment) cell; SPA of each hybrid is recomputed in full with the
  fixed permutations of :mod:`.spa` (the inner test), many hybrids per matrix product.
- :class:`PearsonHybrids` — Pearson over flattened cells ("scores" test, z-scored, cell swaps):
  the sums that Pearson needs are linear in the swap mask, so every draw is a few dot products.
- :class:`PooledAccuracyHybrids` — system-level pairwise accuracy pooled over language pairs
  (WMT23's global task): system scores z-scored over the concatenation of all pairs, one swap per
  (language pair, system).
"""

from __future__ import annotations

import numpy as np

from .acc_eq import item_pairs
from .spa import pair_pvalues, sign_matrix, spa_from_pvalues

#: cap on the elements of one chunk of hybrids (a few MB: the comparisons stay in cache)
CHUNK_ELEMENTS = 1_000_000


def zscore(x: np.ndarray) -> np.ndarray:
    """(x − mean) / std over every element, ddof 0 (a constant vector stays 0)."""
    x = np.asarray(x, dtype=float)
    sd = x.std()
    return (x - x.mean()) / (sd if sd > 0 else 1.0)


def coin_flips(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Fair 0/1 coins (bool) of the given shape, eight per random byte."""
    count = int(np.prod(shape))
    bits = np.unpackbits(np.frombuffer(rng.bytes((count + 7) // 8), dtype=np.uint8), count=count)
    return bits.view(bool).reshape(shape)


def _chunks(n: int, per_draw: int):
    size = max(1, CHUNK_ELEMENTS // max(per_draw, 1))
    for start in range(0, n, size):
        yield min(size, n - start)


class AccEqHybrids:
    """acc_eq hybrids; ``metrics``: metrics × systems × segments, ``epsilons``: each metric's own ε."""

    def __init__(self, human: np.ndarray, metrics: np.ndarray, epsilons: np.ndarray):
        verdicts = []
        item = None
        for m, eps in zip(metrics, epsilons):
            p = item_pairs(human, m)
            if item is not None and not np.array_equal(item, p.item):
                raise ValueError("acc_eq test: the metrics must score the same (segment, system pair)s")
            item = p.item
            verdicts.append((p.human_tie & (p.dist <= eps)) | (p.concordant & (p.dist > eps)))
        self.verdicts = np.array(verdicts, dtype=np.int8)               # metrics × comparisons
        per_item = np.bincount(item, minlength=human.shape[1])
        n_items = int((per_item > 0).sum())
        sizes = per_item[item]                                          # pairs of each comparison's segment
        self.classes = np.unique(sizes)
        self.class_of = np.searchsorted(self.classes, sizes)
        self.unit = 1.0 / (self.classes.astype(float) * max(n_items, 1))   # weight of one comparison

    def deltas(self, a: int, b: int, n: int, rng: np.random.Generator) -> np.ndarray:
        d = self.verdicts[a] - self.verdicts[b]
        k = len(self.classes)
        plus = np.bincount(self.class_of[d > 0], minlength=k)
        minus = np.bincount(self.class_of[d < 0], minlength=k)
        observed = float(((plus - minus) * self.unit).sum())
        swapped = rng.binomial(plus, 0.5, size=(n, k)) - rng.binomial(minus, 0.5, size=(n, k))
        return observed - 2.0 * (swapped * self.unit).sum(axis=1)


def _count_true(flags: np.ndarray) -> np.ndarray:
    """Number of True along the last axis (bytes summed eight at a time when the axis allows it)."""
    n = flags.shape[-1]
    if n % 8 or n // 8 > 255 or not flags.flags.c_contiguous:
        return np.count_nonzero(flags, axis=-1)
    words = flags.view(np.uint64).sum(axis=-1, dtype=np.uint64)   # each byte lane counts ≤ 255 ones
    return words[..., None].view(np.uint8).sum(axis=-1, dtype=np.int64)


class SpaHybrids:
    """SPA hybrids; ``human``: systems × segments, ``metrics``: metrics × systems × segments (complete).

    Per hybrid h and permutation p, R_pr = σ_p·h_r − Σ_s h_rs = Σ_s (σ_ps − 1) h_rs (one matrix product
    with the 0/−2 matrix σ − 1); p(i, j) counts R_pi ≥ R_pj, which is the test's Σσ(h_i − h_j) ≥
    Σ(h_i − h_j). Each hybrid's R is its own matrix product over a stack of the same shape: a float32
    product may round a row's last bit differently at another position of a differently shaped stack
    (the BLAS kernel's edge tiles), so deriving hybrid 2 as R(a) + R(b) − R(hybrid 1) would make two
    identical metrics differ by a tie counted once and not the other time; with equal shapes they get
    equal rows, and Δ* = 0 exactly.
    """

    def __init__(self, human: np.ndarray, metrics: np.ndarray):
        self.signs = sign_matrix(human.shape[1])
        self.shifted = np.ascontiguousarray((self.signs - 1).T)          # segments × permutations, 0 / −2
        self.human_p = pair_pvalues(human, self.signs)
        self.z = np.stack([zscore(m) for m in metrics]).astype(np.float32)

    def _residuals(self, h: np.ndarray) -> np.ndarray:
        """R of a stack of c hybrids (c × systems × segments) → c × systems × permutations."""
        c, n, s = h.shape
        return (h.reshape(c * n, s) @ self.shifted).reshape(c, n, -1)

    def _spa(self, r: np.ndarray) -> np.ndarray:
        n = r.shape[1]
        counts = [_count_true(r[:, i:i + 1, :] >= r[:, i + 1:, :]) for i in range(n - 1)]
        p = np.concatenate(counts, axis=1) / r.shape[2]                 # c × pairs, np.triu_indices order
        return spa_from_pvalues(self.human_p, p)

    def deltas(self, a: int, b: int, n: int, rng: np.random.Generator) -> np.ndarray:
        za, zb = self.z[a], self.z[b]
        out = []
        n_sys = za.shape[0]
        for c in _chunks(n, len(self.signs) * n_sys * 2):
            swap = coin_flips(rng, (c, *za.shape))
            # hybrid 1 takes b's cells where swapped, hybrid 2 a's: cells copied, not computed
            r1 = self._residuals(np.where(swap, zb, za))
            r2 = self._residuals(np.where(swap, za, zb))
            out.append(self._spa(r1) - self._spa(r2))
        return np.concatenate(out) if out else np.empty(0)


def _r(n: float, sg: float, sgg: float, sh: np.ndarray, shh: np.ndarray, sgh: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return (n * sgh - sg * sh) / np.sqrt((n * sgg - sg * sg) * (n * shh - sh * sh))


class PearsonHybrids:
    """Pearson hybrids over flattened cells; ``gold``: (N,), ``metrics``: metrics × N."""

    def __init__(self, gold: np.ndarray, metrics: np.ndarray):
        self.g = np.asarray(gold, dtype=float)
        self.z = np.stack([zscore(m) for m in metrics])

    def deltas(self, a: int, b: int, n: int, rng: np.random.Generator) -> np.ndarray:
        g, za, zb = self.g, self.z[a], self.z[b]
        N = float(len(g))
        sg, sgg = g.sum(), (g * g).sum()
        d = zb - za
        base = np.array([za.sum(), (za * za).sum(), (g * za).sum()])
        full = np.array([za.sum() + zb.sum(), (za * za).sum() + (zb * zb).sum(), (g * za).sum() + (g * zb).sum()])
        cols = np.stack([d, zb * zb - za * za, g * d], axis=1)          # N × 3
        out = []
        for c in _chunks(n, len(g)):
            swap = coin_flips(rng, (c, len(g))).astype(float)
            s1 = base + swap @ cols                                     # c × 3: Σh, Σh², Σgh of hybrid 1
            s2 = full - s1
            out.append(_r(N, sg, sgg, *s1.T) - _r(N, sg, sgg, *s2.T))
        return np.concatenate(out) if out else np.empty(0)


class PooledAccuracyHybrids:
    """Pooled system-level accuracy; ``gold``: per language pair (systems,), ``metrics``: per pair metrics × systems."""

    def __init__(self, gold: list[np.ndarray], metrics: list[np.ndarray]):
        self.sizes = [len(g) for g in gold]
        self.z = np.stack([zscore(row) for row in np.concatenate(metrics, axis=1)])   # metrics × Σ systems
        self.gold_signs = []
        for g in gold:
            i, j = np.triu_indices(len(g), k=1)
            self.gold_signs.append(np.sign(np.asarray(g, dtype=float)[i] - np.asarray(g, dtype=float)[j]))
        self.n_pairs = sum(len(s) for s in self.gold_signs)

    def _accuracy(self, h: np.ndarray) -> np.ndarray:
        agree = np.zeros(h.shape[0])
        start = 0
        for size, gs in zip(self.sizes, self.gold_signs):
            part = h[:, start:start + size]
            i, j = np.triu_indices(size, k=1)
            agree += (np.sign(part[:, i] - part[:, j]) == gs).sum(axis=1)
            start += size
        return agree / self.n_pairs

    def deltas(self, a: int, b: int, n: int, rng: np.random.Generator) -> np.ndarray:
        za, zb = self.z[a], self.z[b]
        swap = coin_flips(rng, (n, len(za)))
        return self._accuracy(np.where(swap, zb, za)) - self._accuracy(np.where(swap, za, zb))


def pooled_accuracy(gold: list[np.ndarray], metric: list[np.ndarray]) -> float:
    """Σ agreeing system pairs / Σ system pairs over language pairs (sign equality, ties included)."""
    agree = total = 0
    for g, m in zip(gold, metric):
        i, j = np.triu_indices(len(g), k=1)
        agree += int((np.sign(g[i] - g[j]) == np.sign(m[i] - m[j])).sum())
        total += len(i)
    return agree / total if total else float("nan")

