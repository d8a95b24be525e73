"""The WMT26 ranking rule (contrastive ESA in Pearmut), as pure functions on arrays and frames.

Per language pair:

1. every annotation of one item × model counts, and the annotations of one item × model are
   averaged (several annotators, or one annotator twice): the *item score*;
2. a model's score is the mean of its item scores over the items it has (models may have different
   item sets); models are sorted by it, highest first;
3. with a, b the item-score vectors of models A and B over all items (NaN where a model lacks an
   item), A above B is *significantly better* when a two-sided paired t-test on the items both have
   (``scipy.stats.ttest_rel(a, b, nan_policy="omit")``) **or** a two-sided Student t-test of the two
   samples (``scipy.stats.ttest_ind(a, b, nan_policy="omit")``, pooled variance) gives p < α (0.05);
   a model below is never significantly better than one above (the tests are two-sided; the order
   comes from the means);
4. a cluster line falls after position i when every model at positions ≤ i is significantly better
   than every model below it; clusters are numbered from 1.

Across pairs, :func:`cross_language_table` lays out each model's mean per pair. The t statistics
are computed here for all pairs at once (numpy, one row of models at a time) and match scipy's to
rounding; ``tests/test_wmt26_ranking.py`` checks them against scipy directly, including the edge
cases (fewer than two common items: no test; identical differences: p = 0, or no test when they
are all zero).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd
from scipy import stats

ALPHA = 0.05


def item_matrix(annotations: pd.DataFrame, score: str = "raw") -> tuple[list[str], list[str], np.ndarray]:
    """Models × items of item scores (the mean of each item × model's annotations; NaN: not annotated).

    ``annotations``: one row per annotation with ``system``, ``segment`` and ``score`` columns.
    Returns (models, items, matrix), models and items sorted by name.
    """
    values = annotations[score].to_numpy(dtype=float, na_value=np.nan)
    keep = ~np.isnan(values)
    rows, models = pd.factorize(annotations["system"].astype(str).to_numpy()[keep], sort=True)
    cols, items = pd.factorize(annotations["segment"].astype(str).to_numpy()[keep], sort=True)
    shape = (len(models), len(items))
    total = np.zeros(shape)
    count = np.zeros(shape)
    np.add.at(total, (rows, cols), values[keep])
    np.add.at(count, (rows, cols), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        matrix = total / count
    return [str(m) for m in models], [str(i) for i in items], matrix


def model_means(matrix: np.ndarray) -> np.ndarray:
    """Each row's mean over the items it has (NaN for a row without any), summed over those values
    only, so the result is the plain mean of the model's item scores to the last bit."""
    rows = np.asarray(matrix, dtype=float)
    return np.array([np.mean(row[~np.isnan(row)]) if (~np.isnan(row)).any() else np.nan for row in rows])


@dataclass(frozen=True)
class PairTests:
    """Two-sided p-values of every ordered pair of rows of an item matrix (``[i, j]`` = row i against row j;
    symmetric; NaN on the diagonal and where a test is undefined) and the number of common items."""
    paired: np.ndarray
    unpaired: np.ndarray
    common: np.ndarray

    def either(self) -> np.ndarray:
        """Per pair the smaller of the two p-values (NaN only when neither test is defined): a pair is
        significant at α exactly when this is below α."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.fmin(self.paired, self.unpaired)


def pair_tests(matrix: np.ndarray) -> PairTests:
    """Paired and unpaired two-sided t-tests between every two rows of ``matrix`` (models × items, NaN
    where a model lacks an item), with scipy's ``nan_policy="omit"`` semantics."""
    m = np.asarray(matrix, dtype=float)
    k = m.shape[0]
    present = ~np.isnan(m)
    paired = np.full((k, k), np.nan)
    common = present.astype(np.int64) @ present.T.astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for i in range(k):  # one row of models at a time: memory k × items, not k × k × items
            diff = m[i][None, :] - m  # NaN where either lacks the item
            n = common[i].astype(float)
            mean = np.nansum(diff, axis=1) / n
            var = np.nansum((diff - mean[:, None]) ** 2, axis=1) / (n - 1)
            t = mean / np.sqrt(var / n)
            p = 2.0 * stats.t.sf(np.abs(t), n - 1)
            p[n < 2] = np.nan
            paired[i] = p
        n = present.sum(axis=1).astype(float)
        mean = np.nansum(m, axis=1) / n
        var = np.nansum((m - mean[:, None]) ** 2, axis=1) / (n - 1)
        var[n < 2] = np.nan
        df = n[:, None] + n[None, :] - 2.0
        pooled = ((n[:, None] - 1) * var[:, None] + (n[None, :] - 1) * var[None, :]) / df
        t = (mean[:, None] - mean[None, :]) / np.sqrt(pooled * (1.0 / n[:, None] + 1.0 / n[None, :]))
        unpaired = 2.0 * stats.t.sf(np.abs(t), df)
        unpaired[(n[:, None] < 1) | (n[None, :] < 1) | (df < 1)] = np.nan
    np.fill_diagonal(paired, np.nan)
    np.fill_diagonal(unpaired, np.nan)
    return PairTests(paired, unpaired, common)


def significance(tests: PairTests, alpha: float = ALPHA) -> np.ndarray:
    """``[i, j]`` True when row i, placed above row j (i < j, rows in ranking order), is significantly
    better: either p-value below ``alpha``. Never True below the diagonal."""
    with np.errstate(invalid="ignore"):
        either = np.nan_to_num(tests.either(), nan=np.inf) < alpha
    return np.triu(either, k=1)


def cluster_lines(significant: np.ndarray) -> np.ndarray:
    """Boolean per position (ranking order): a cluster line falls after it, i.e. every model at this
    position or above is significantly better than every model below (False after the last)."""
    sig = np.asarray(significant, dtype=bool)
    k = sig.shape[0]
    if k == 0:
        return np.zeros(0, dtype=bool)
    missing = (~sig).astype(np.int64).cumsum(axis=0)  # missing[r, c]: pairs (0..r, c) not significant
    lines = np.array([missing[i, i + 1:].sum() == 0 for i in range(k - 1)] + [False])
    return lines


def cluster_numbers(lines: np.ndarray) -> np.ndarray:
    """1-based cluster of each position from :func:`cluster_lines`."""
    lines = np.asarray(lines, dtype=bool)
    return 1 + np.concatenate([[0], np.cumsum(lines[:-1])]).astype(int) if len(lines) else np.zeros(0, int)


@dataclass
class PairRanking:
    """The WMT26 ranking of one language pair; :meth:`to_dict` gives its JSON."""
    lp: str | None
    systems: pd.DataFrame   # ranking order: system, mean, items, annotations, cluster
    tests: PairTests        # rows and columns in ranking order
    significant: np.ndarray  # [i, j]: i significantly better than j
    alpha: float

    def pairs(self) -> list[dict[str, Any]]:
        """Every pair (a above b): a, b, significant, both p-values, common items."""
        return comparisons(self.systems["system"].tolist(), self.tests, self.significant)["pairs"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "lp": self.lp, "protocol": "wmt26", "alpha": self.alpha,
            "systems": [{"system": str(r.system), "mean": float(r.mean), "items": int(r.items),
                         "annotations": int(r.annotations), "cluster": int(r.cluster)}
                        for r in self.systems.itertuples()],
            **comparisons(self.systems["system"].tolist(), self.tests, self.significant),
        }


def comparisons(names: list[str], tests: PairTests, significant: np.ndarray) -> dict[str, Any]:
    """The pairwise part of a ranking's JSON (``names`` in ranking order): ``pairs`` (every a above b with
    ``significant``, ``p_paired``, ``p_unpaired``, ``common_items``), ``significantly_better[a][b]`` for
    every ordered pair, and ``cluster_lines_after`` (the models a cluster line follows)."""
    pairs = [{"a": names[i], "b": names[j], "significant": bool(significant[i, j]),
              "p_paired": _float(tests.paired[i, j]), "p_unpaired": _float(tests.unpaired[i, j]),
              "common_items": int(tests.common[i, j])}
             for i in range(len(names)) for j in range(i + 1, len(names))]
    return {"pairs": pairs,
            "significantly_better": {a: {b: bool(significant[i, j]) for j, b in enumerate(names) if j != i}
                                     for i, a in enumerate(names)},
            "cluster_lines_after": [names[i] for i in np.flatnonzero(cluster_lines(significant))]}


def _float(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def rank_pair(annotations: pd.DataFrame, *, lp: str | None = None, score: str = "raw",
              alpha: float = ALPHA) -> PairRanking:
    """The WMT26 ranking of one language pair from its annotations (system, segment, ``score``)."""
    models, _items, matrix = item_matrix(annotations, score)
    means = model_means(matrix)
    counts = (~np.isnan(matrix)).sum(axis=1)
    values = annotations[score].to_numpy(dtype=float, na_value=np.nan)
    annotated = pd.Series(annotations["system"].astype(str).to_numpy()[~np.isnan(values)]).value_counts()
    order = np.lexsort((np.asarray(models, dtype=object), -means))  # by mean, ties by name
    matrix = matrix[order]
    tests = pair_tests(matrix)
    sig = significance(tests, alpha)
    names = [models[i] for i in order]
    table = pd.DataFrame({"system": names, "mean": means[order], "items": counts[order],
                          "annotations": annotated.reindex(names).fillna(0).astype(int).to_numpy(),
                          "cluster": cluster_numbers(cluster_lines(sig))})
    return PairRanking(lp, table, tests, sig, alpha)


def cross_language_table(means: Mapping[str, Mapping[str, float]]) -> pd.DataFrame:
    """Models × language pairs: each model's mean in each pair (NaN where it was not evaluated).

    Pairs (columns) are ordered by their mean over the models they have, highest first; models (rows)
    by their mean over the pairs they have, highest first (ties by name).
    """
    table = pd.DataFrame({lp: pd.Series(dict(values), dtype=float) for lp, values in means.items()})
    if table.empty:
        return table
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        pair_means = table.mean(axis=0, skipna=True)
        model_means = table.mean(axis=1, skipna=True)
    columns = sorted(table.columns, key=lambda c: (-pair_means[c], str(c)))
    rows = sorted(table.index, key=lambda r: (-model_means[r], str(r)))
    out = table.loc[rows, columns]
    out.index.name = "system"
    return out


def cross_language_dict(table: pd.DataFrame) -> dict[str, Any]:
    """:func:`cross_language_table` as JSON: the pair order and per model its mean in each pair (null: none)."""
    return {"lps": [str(c) for c in table.columns],
            "systems": [{"system": str(name), "means": {str(lp): _float(float(v)) for lp, v in row.items()}}
                        for name, row in table.iterrows()]}

