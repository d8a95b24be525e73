"""Significance for campaigns collected with adaptive allocation: the WMT26 rule, fast, and a test
that stays valid whatever the allocation (docs/method/allocation.md#significance-under-adaptive-allocation).

* :func:`wmt26_pair_tests` / :func:`wmt26_better` — WMT26's rule on item x model score matrices (NaN
  where a model has no score for an item; several annotations already averaged per item): model a
  is significantly better than b when a's mean item score is higher and the paired t-test on the
  items both have (``scipy.stats.ttest_rel(..., nan_policy="omit")``) *or* Student's unpaired
  t-test (``ttest_ind``) gives a two-sided p below alpha. Vectorised over pairs and over a leading
  runs axis; p-values equal scipy's.
* :func:`clusters_from_better` — the WMT26 cluster lines: below sorted position i when every model
  above is significantly better than every model below.
* **Anytime-valid paired test** (``anytime-paired``): for each pair (a, b), a page (one annotator,
  one item, several models side by side) gives one observation x = mean over the page's segments of
  score(a) − score(b) when both translations were scored there for the first time (if a and b are
  truly equal, x is then symmetric around 0 given everything before it, whatever rule chose the
  page), or when the page's item was drawn uniformly at random (x then has mean 0 given the past
  when a and b are equal on average over the test set's items). One signed e-process per pair bets
  on the sign of x: K = Π (1 + λ ψ(x)), ψ(x) = x / c clipped to [−1, 1] on a fresh page and x / 100
  on a random item, the scale c (2 × the pair's root mean square difference so far) and the signed
  bet λ ∈ [−0.9, 0.9] fixed from earlier observations only: the Kelly fraction mean / mean square of
  ψ for the difference that the least-squares strengths of all earlier observations of all pairs
  put on the pair. Every factor has mean 1 under the null given the past and is positive, so K is
  a non-negative martingale under the null whatever the allocation, and by Ville's inequality the
  chance that it ever reaches 1/alpha is at most alpha: a pair is declared different when
  sup K ≥ 1/alpha, a false claim about a truly equal pair has probability at most alpha, under any
  allocation rule and when the data are looked at after every page. The claim's direction is the
  side whose bets had won more when K was highest (K = K⁺ K⁻, the product of the factors of the
  bets on "a better" and on "b better"), as a two-sided t-test takes the sign of the mean
  difference; the simulator counts claims in the wrong direction separately.
  :class:`PairEvidence` updates it page by page for many runs at once (the simulator);
  :func:`paired_evidence_from_pages` computes it from a collected log (vectorised);
  :func:`anytime_paired_ranking` ranks a judgment frame with it, models ordered by their paired
  strengths (:func:`pair_strengths`), cluster lines by WMT26's rule.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import stdtr

ALPHA = 0.05
TEST_WMT26 = "wmt26"
TEST_ANYTIME = "anytime-paired"
TESTS = (TEST_WMT26, TEST_ANYTIME)

# betting constants of the anytime test (any values keep it valid; these give it its power)
SCALE_PRIOR = 10.0        # prior sd of a page difference (score points) ...
SCALE_PRIOR_PAGES = 2.0   # ... worth this many pages
SCALE_CLIP = 2.0          # psi(x) = x / (SCALE_CLIP * sd), clipped to [-1, 1]
BET_PRIOR_VAR = 0.25      # prior variance of psi, worth one page (keeps early bets small)
BET_MAX = 0.9             # largest bet
SCORE_RANGE = 100.0       # scores lie in [0, 100], so a page difference in [-100, 100]


# --- WMT26 t-tests -------------------------------------------------------------------------------

def _two_sided_p(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        p = 2.0 * stdtr(df, -np.abs(t))
    return np.where((df > 0) & ~np.isnan(t), p, np.nan)


def t_tests_from_sums(n_a, sum_a, sumsq_a, n_b, sum_b, sumsq_b, n_pair, sum_d, sumsq_d
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided p-values of Student's unpaired t-test (from each model's item count, sum and sum of
    squares of item means) and of the paired t-test (from the count, sum and sum of squares of the
    differences on the items both have); elementwise, NaN where a test is undefined."""
    n_a, n_b, n_pair = (np.asarray(v, float) for v in (n_a, n_b, n_pair))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_a, mean_b = sum_a / n_a, sum_b / n_b
        ss = np.maximum(sumsq_a - n_a * mean_a ** 2, 0.0) + np.maximum(sumsq_b - n_b * mean_b ** 2, 0.0)
        df_u = n_a + n_b - 2
        t_u = (mean_a - mean_b) / np.sqrt(ss / df_u * (1.0 / n_a + 1.0 / n_b))
        d_mean = sum_d / n_pair
        d_ss = np.maximum(sumsq_d - n_pair * d_mean ** 2, 0.0)
        t_p = d_mean / np.sqrt(d_ss / (n_pair - 1) / n_pair)
    return _two_sided_p(t_p, n_pair - 1.0), _two_sided_p(t_u, df_u)


def wmt26_pair_tests(scores: np.ndarray, pairs: np.ndarray) -> dict[str, np.ndarray]:
    """Paired and unpaired two-sided t-tests for the listed model pairs.

    ``scores``: (items, models) or (runs, items, models), NaN = no score. ``pairs``: (P, 2) model
    indices. Returns arrays (P,) or (runs, P): ``p_paired``, ``p_unpaired``, ``mean_a``, ``mean_b``
    (each model's mean over its own items) and ``n_paired`` (items both have).
    """
    x = np.asarray(scores, float)
    single = x.ndim == 2
    if single:
        x = x[None]
    pairs = np.asarray(pairs, int).reshape(-1, 2)
    have = ~np.isnan(x)
    x0 = np.where(have, x, 0.0)
    n = have.sum(axis=1)                                      # (runs, models)
    s1 = x0.sum(axis=1)
    s2 = (x0 ** 2).sum(axis=1)
    a, b = pairs[:, 0], pairs[:, 1]
    both = have[:, :, a] & have[:, :, b]                      # (runs, items, P)
    d = np.where(both, x0[:, :, a] - x0[:, :, b], 0.0)
    n_p = both.sum(axis=1)
    p_paired, p_unpaired = t_tests_from_sums(n[:, a], s1[:, a], s2[:, a], n[:, b], s1[:, b], s2[:, b],
                                             n_p, d.sum(axis=1), (d ** 2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s1 / n
    mean_a, mean_b = mean[:, a], mean[:, b]
    out = {"p_paired": p_paired, "p_unpaired": p_unpaired, "mean_a": mean_a, "mean_b": mean_b, "n_paired": n_p}
    return {k: v[0] for k, v in out.items()} if single else out


def wmt26_better(scores: np.ndarray, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Each model's mean item score and the (models, models) matrix "row significantly better than
    column" of the WMT26 rule, for an (items, models) matrix."""
    x = np.asarray(scores, float)
    m = x.shape[1]
    i, j = np.triu_indices(m, 1)
    res = wmt26_pair_tests(x, np.stack([i, j], axis=1))
    sig = (res["p_paired"] < alpha) | (res["p_unpaired"] < alpha)
    better = np.zeros((m, m), bool)
    better[i, j] = sig & (res["mean_a"] > res["mean_b"])
    better[j, i] = sig & (res["mean_b"] > res["mean_a"])
    with np.errstate(invalid="ignore"):
        means = np.nanmean(np.where(np.isnan(x).all(axis=0, keepdims=True), 0.0, x), axis=0)
    means[np.isnan(x).all(axis=0)] = np.nan
    return means, better


def clusters_from_better(means: np.ndarray, better: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted order (best first, by mean) and each model's cluster number (1 = top) under the WMT26
    line rule: a line below position i when every model above is better than every model below."""
    means = np.asarray(means, float)
    order = np.argsort(-np.nan_to_num(means, nan=-np.inf), kind="stable")
    b = np.asarray(better, bool)[np.ix_(order, order)]
    m = len(order)
    # line after i: all of b[:i+1, i+1:] true
    lines = np.array([b[: i + 1, i + 1:].all() for i in range(m - 1)], bool)
    cluster_sorted = np.concatenate([[1], 1 + np.cumsum(lines)])
    clusters = np.empty(m, int)
    clusters[order] = cluster_sorted
    return order, clusters


# --- the anytime-valid paired test ---------------------------------------------------------------

def _bet(x, n, sum_x2, sum_psi, sum_psi2, linear=False, hint=None):
    """psi(x) and the bet for one observation from what was known before it (elementwise).

    ``linear``: psi = x / 100 (a page from a random item: its mean is 0 under the null, it need not
    be symmetric); otherwise x over a scale learnt from the pair's earlier pages, clipped (a fresh
    page: symmetric under the null). The bet is the growth-optimal fraction for the expected psi:
    from ``hint`` (the pair's difference estimated from every earlier observation of every pair,
    :func:`pair_strengths`) when given, else from the pair's own earlier psi values."""
    rms = np.sqrt((sum_x2 + SCALE_PRIOR_PAGES * SCALE_PRIOR ** 2) / (n + SCALE_PRIOR_PAGES))
    scale = SCALE_CLIP * rms
    psi = np.where(linear, x / SCORE_RANGE, np.clip(x / scale, -1.0, 1.0))
    if hint is None:
        mean = sum_psi / (n + 1.0)
        var = (sum_psi2 + BET_PRIOR_VAR) / (n + 1.0)
    else:
        unit = np.where(linear, SCORE_RANGE, scale)
        mean = np.asarray(hint, float) / unit
        # variance of psi: the pair's mean square difference less the expected mean's square
        # (floored at a quarter of it, so that a large hint cannot make the bet explode)
        msq = (rms / unit) ** 2
        var = np.maximum(msq - mean ** 2, 0.25 * msq)
    lam = np.clip(mean / (var + mean ** 2), -BET_MAX, BET_MAX)
    return psi, lam


def threshold(alpha: float = ALPHA) -> float:
    """log e-value the pair's signed e-process must reach for a claim at level alpha (Ville: 1/alpha)."""
    return float(np.log(1.0 / alpha))


@dataclass
class PairEvidence:
    """Running state of the anytime paired test for every pair, for many runs at once.

    Arrays are (runs, models, models), indexed [a, b] with a < b; x = score(a) − score(b). The
    pair's e-process is K = K⁺ · K⁻ (bets on "a better" multiply K⁺, bets on "b better" K⁻; each page
    bets one way); ``max_log`` is sup log K so far and ``a_ahead`` whether, at that sup, the bets on
    "a better" had won more (log K⁺ ≥ log K⁻): the direction of the claim.
    """

    n: np.ndarray
    sum_x: np.ndarray
    sum_x2: np.ndarray
    sum_psi: np.ndarray
    sum_psi2: np.ndarray
    log_up: np.ndarray      # log K+ (bets on a better than b)
    log_down: np.ndarray    # log K- (bets on b better than a)
    max_log: np.ndarray     # sup over time of log K+ + log K-
    a_ahead: np.ndarray     # bool: direction at that sup

    @classmethod
    def empty(cls, runs: int, models: int) -> "PairEvidence":
        z = lambda: np.zeros((runs, models, models))  # noqa: E731
        return cls(z(), z(), z(), z(), z(), z(), z(), z(), np.zeros((runs, models, models), bool))

    def copy(self) -> "PairEvidence":
        """An independent copy (e.g. provisional evidence that also counts pages of open sessions)."""
        return PairEvidence(*(np.array(getattr(self, f)) for f in (
            "n", "sum_x", "sum_x2", "sum_psi", "sum_psi2", "log_up", "log_down", "max_log", "a_ahead")))

    def hints(self) -> np.ndarray:
        """(runs, models, models): every pair's difference (row − column) as the least-squares
        strengths of all observations so far put it; the bets of the next page follow it."""
        theta = self.strengths(np.zeros(self.n.shape[:2]))
        return theta[:, :, None] - theta[:, None, :]

    def add(self, a: np.ndarray, b: np.ndarray, x: np.ndarray, mask: np.ndarray,
            linear: np.ndarray | bool = False, hint: np.ndarray | None = None) -> None:
        """One observation per run (runs where ``mask`` is False are skipped): pair (a, b), a < b;
        ``linear`` where the page's item was drawn at random and a slot was annotated before;
        ``hint``: the expected a − b before this page (:meth:`hints`), else the pair's own history."""
        r = np.flatnonzero(mask)
        a, b, x = a[r], b[r], x[r]
        linear = np.broadcast_to(linear, mask.shape)[r]
        hint = None if hint is None else np.asarray(hint)[r]
        n = self.n[r, a, b]
        psi, lam = _bet(x, n, self.sum_x2[r, a, b], self.sum_psi[r, a, b], self.sum_psi2[r, a, b], linear,
                        hint)
        up = self.log_up[r, a, b] + np.log1p(np.maximum(lam, 0.0) * psi)
        down = self.log_down[r, a, b] + np.log1p(np.minimum(lam, 0.0) * psi)
        self.log_up[r, a, b], self.log_down[r, a, b] = up, down
        higher = up + down > self.max_log[r, a, b]
        self.max_log[r, a, b] = np.where(higher, up + down, self.max_log[r, a, b])
        self.a_ahead[r, a, b] = np.where(higher, up >= down, self.a_ahead[r, a, b])
        self.n[r, a, b] = n + 1
        self.sum_x[r, a, b] += x
        self.sum_x2[r, a, b] += x * x
        self.sum_psi[r, a, b] += psi
        self.sum_psi2[r, a, b] += psi * psi

    def strengths(self, anchor: np.ndarray) -> np.ndarray:
        """(runs, models) least-squares strengths from the pairs' observations (see
        :func:`pair_strengths`), anchored to ``anchor`` (e.g. the models' means)."""
        n = self.n + np.swapaxes(self.n, 1, 2)
        sums = self.sum_x - np.swapaxes(self.sum_x, 1, 2)
        return pair_strengths(n, sums, anchor)

    def better(self, alpha: float = ALPHA) -> np.ndarray:
        """(runs, models, models) bool: row significantly better than column."""
        hit = self.max_log >= threshold(alpha)
        up = hit & self.a_ahead
        down = hit & ~self.a_ahead
        return up | np.swapaxes(down, 1, 2)

    def decided(self, alpha: float = ALPHA) -> np.ndarray:
        """(runs, models, models) bool, symmetric: the pair is separated (either direction)."""
        b = self.better(alpha)
        return b | np.swapaxes(b, 1, 2)


def pair_strengths(n: np.ndarray, sums: np.ndarray, anchor: np.ndarray, weight: float = 0.01) -> np.ndarray:
    """Least-squares strengths theta with theta_a - theta_b fitting every observed page difference.

    ``n`` (..., models, models): observations per pair (symmetric); ``sums``: their sum of a − b
    (antisymmetric); ``anchor`` (..., models): values each theta is pulled towards with ``weight``
    (per model, as if that many observations), so models without observations keep a place and the
    fit has a unique solution. The order used by the anytime protocol: differences on one page are
    free of the annotator's leniency, which the models' means are not.
    """
    n = np.asarray(n, float)
    lap = -n.copy()
    idx = np.arange(n.shape[-1])
    lap[..., idx, idx] = n.sum(axis=-1) + weight
    anchor = np.nan_to_num(np.asarray(anchor, float))
    rhs = np.asarray(sums, float).sum(axis=-1) + weight * anchor
    return np.linalg.solve(lap, rhs[..., None])[..., 0]


def paired_evidence_from_pages(pages: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """The anytime paired test from a log of page-level observations, in collection order.

    ``pages``: one row per (page, model) with columns ``page`` (pages in collection order: the
    order of first appearance), ``model``, ``score`` (the model's mean over the page's segments),
    ``fresh`` (True when none of the page's segments had been scored for this model before) and,
    optionally, ``random_item`` (the page's item was drawn at random: :class:`Choice`). A pair
    counts on a page when both models are fresh there, or when the item was drawn at random. One
    row per pair of models (``a`` < ``b`` by name) with ``pages`` (observations),
    ``mean_difference`` (their mean of a − b), ``log_e`` (largest log e-value the pair's signed
    e-process reached, 0 at the start) and ``a_better`` / ``b_better`` (the claim at ``alpha``: the
    e-value reached 1/alpha, in the direction whose bets had won more at its highest point).
    """
    page_order = {p: i for i, p in enumerate(pd.unique(pages["page"]))}
    frame = pages.assign(random_item=pages["random_item"].astype(bool) if "random_item" in pages
                         else False, fresh=pages["fresh"].astype(bool))
    left = frame[["page", "model", "score", "fresh", "random_item"]]
    pairs = left.merge(left, on="page", suffixes=("_a", "_b"))
    both_fresh = pairs["fresh_a"] & pairs["fresh_b"]
    pairs = pairs[(pairs["model_a"].astype(str) < pairs["model_b"].astype(str))
                  & (both_fresh | pairs["random_item_a"])]
    pairs = pairs.assign(linear=~(pairs["fresh_a"] & pairs["fresh_b"]))
    cols = ["a", "b", "pages", "mean_difference", "log_e", "a_better", "b_better"]
    if pairs.empty:
        return pd.DataFrame(columns=cols)
    pairs = pairs.assign(order=pairs["page"].map(page_order), x=pairs["score_a"] - pairs["score_b"])
    pairs = pairs.assign(hint=_page_hints(pairs))
    pairs = pairs.sort_values(["model_a", "model_b", "order"], kind="stable")
    x = pairs["x"].to_numpy(float)
    group = pairs.groupby(["model_a", "model_b"], sort=False).ngroup().to_numpy()
    n, log_up, log_down = _sequential_evidence(x, group, pairs["linear"].to_numpy(bool),
                                               pairs["hint"].to_numpy(float))
    t = threshold(alpha)
    keys = pairs[["model_a", "model_b"]].to_numpy()
    out = pd.DataFrame({"a": keys[:, 0], "b": keys[:, 1], "log_k": log_up + log_down, "ahead": log_up >= log_down,
                        "n": n, "g": group, "x": x})
    agg = out.groupby("g", sort=False).agg(a=("a", "first"), b=("b", "first"), pages=("n", "max"),
                                            mean_difference=("x", "mean"), top=("log_k", "idxmax"))
    # the first page at which log K was highest (rows are in page order within a pair); K starts at 1
    peak = out.loc[agg["top"].to_numpy()]
    agg["log_e"] = np.maximum(peak["log_k"].to_numpy(), 0.0)
    ahead = peak["ahead"].to_numpy() & (peak["log_k"].to_numpy() > 0)
    hit = agg["log_e"].to_numpy() >= t
    agg["a_better"] = hit & ahead
    agg["b_better"] = hit & ~ahead
    return agg.reset_index(drop=True)[cols]


def _exclusive_cumsum(values: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Sum of the earlier values of the same group (rows sorted by group, then time)."""
    total = np.cumsum(values) - values
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    first = np.repeat(total[starts], np.diff(np.r_[starts, len(values)]))
    return total - first


def _page_hints(pairs: pd.DataFrame, block: int = 512) -> np.ndarray:
    """For each observation (rows with model_a, model_b, x, order), a − b as the least-squares
    strengths of every observation on earlier pages put it (:meth:`PairEvidence.hints`)."""
    names = pd.unique(pd.concat([pairs["model_a"], pairs["model_b"]]).astype(str))
    index = {name: i for i, name in enumerate(names)}
    m = len(names)
    a = pairs["model_a"].astype(str).map(index).to_numpy()
    b = pairs["model_b"].astype(str).map(index).to_numpy()
    return _hints_after(a, b, pairs["x"].to_numpy(float), pairs["order"].to_numpy(), np.zeros((m, m)),
                        np.zeros((m, m)), block)[0]


def _hints_after(a: np.ndarray, b: np.ndarray, x: np.ndarray, page: np.ndarray, n_run: np.ndarray,
                 s_run: np.ndarray, block: int = 512) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hints (a − b from the least-squares strengths of every observation on earlier pages) for
    observations (model indices ``a``, ``b``, difference ``x``, page order ``page``) that follow the
    running pair counts ``n_run`` (symmetric) and sums ``s_run`` (antisymmetric); returns the hints
    and the running counts and sums after them. Pages in blocks: one solve per page, no loop per
    observation."""
    m = n_run.shape[0]
    n_run, s_run = np.array(n_run, float), np.array(s_run, float)
    pages = np.unique(page)
    where = np.searchsorted(pages, page)
    hints = np.empty(len(x))
    for start in range(0, len(pages), block):
        stop = min(start + block, len(pages))
        sel = (where >= start) & (where < stop)
        k = where[sel] - start
        n_inc = np.zeros((stop - start, m, m))
        s_inc = np.zeros((stop - start, m, m))
        for (i, j, sign) in ((a[sel], b[sel], 1.0), (b[sel], a[sel], -1.0)):
            np.add.at(n_inc, (k, i, j), 1.0)
            np.add.at(s_inc, (k, i, j), sign * x[sel])
        n_before = n_run + np.cumsum(n_inc, axis=0) - n_inc
        s_before = s_run + np.cumsum(s_inc, axis=0) - s_inc
        theta = pair_strengths(n_before, s_before, np.zeros((stop - start, m)))
        hints[sel] = theta[k, a[sel]] - theta[k, b[sel]]
        n_run += n_inc.sum(axis=0)
        s_run += s_inc.sum(axis=0)
    return hints, n_run, s_run


def _sequential_evidence(x: np.ndarray, group: np.ndarray, linear: np.ndarray, hint: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observation counts (1-based) and running log K+ / log K- per row, rows grouped by pair."""
    n = _exclusive_cumsum(np.ones_like(x), group)
    sum_x2 = _exclusive_cumsum(x * x, group)
    zeros = np.zeros_like(x)
    psi, lam = _bet(x, n, sum_x2, zeros, zeros, linear, hint)
    up = np.log1p(np.maximum(lam, 0.0) * psi)
    down = np.log1p(np.minimum(lam, 0.0) * psi)
    log_up = _exclusive_cumsum(up, group) + up
    log_down = _exclusive_cumsum(down, group) + down
    return n + 1, log_up, log_down


def judgment_pages(frame: pd.DataFrame, page: str = "hit") -> pd.DataFrame:
    """Page-level observations of a judgment frame (canonical columns ``segment``, ``system``,
    ``raw``; a page is a value of ``page``, e.g. one submitted cESA page), in file order: per page
    and system the mean score and whether every segment of the page was new for that system."""
    f = frame[["segment", "system", "raw", page]].rename(columns={page: "page"}).reset_index(drop=True)
    # a row is stale when its segment was scored for the system on an earlier page (a repeat
    # inside the same page is not)
    first_page = f.groupby(["segment", "system"], sort=False)["page"].transform("first")
    stale = first_page != f["page"]
    grouped = f.assign(stale=stale).groupby(["page", "system"], sort=False)
    out = grouped.agg(score=("raw", "mean"), stale=("stale", "any")).reset_index()
    return pd.DataFrame({"page": out["page"], "model": out["system"], "score": out["score"],
                         "fresh": ~out["stale"]})


def anytime_paired_ranking(frame: pd.DataFrame, alpha: float = ALPHA, page: str = "hit") -> dict:
    """Rank a cESA judgment frame with the anytime paired test and WMT26's cluster rule.

    ``frame``: canonical judgment columns ``segment``, ``system``, ``raw`` and the page column
    (one value per submitted page, rows in collection order), optionally ``random_item``. Each
    model's mean as WMT26 computes it (annotations of one item averaged, then the mean over the
    model's items) is reported; models are *ordered* by their paired strength (least squares on the
    page differences the test uses, :func:`pair_strengths`), because with adaptive allocation a
    mean depends on which annotators and documents a model happened to get. A model is
    significantly better than another when the pair's e-process says so; cluster lines follow
    WMT26's rule on that order. Returns ``systems`` (system, mean, strength, items, cluster; best
    first) and ``pairs`` (the evidence per pair).
    """
    item_means = frame.groupby(["segment", "system"])["raw"].mean().unstack("system")
    names = list(item_means.columns)
    means = item_means.mean(axis=0).to_numpy()
    pages = judgment_pages(frame, page)
    if "random_item" in frame.columns:
        flags = frame.groupby(page, sort=False)["random_item"].first()
        pages = pages.assign(random_item=pages["page"].map(flags).fillna(False).astype(bool))
    evidence = paired_evidence_from_pages(pages, alpha)
    index = {name: i for i, name in enumerate(names)}
    m = len(names)
    better = np.zeros((m, m), bool)
    n = np.zeros((m, m))
    sums = np.zeros((m, m))
    for row in evidence.itertuples(index=False):
        i, j = index[row.a], index[row.b]
        better[i, j], better[j, i] = row.a_better, row.b_better
        n[i, j] = n[j, i] = row.pages
        sums[i, j], sums[j, i] = row.pages * row.mean_difference, -row.pages * row.mean_difference
    strength = pair_strengths(n, sums, means)
    order, clusters = clusters_from_better(strength, better)
    systems = [{"system": names[i], "mean": float(means[i]), "strength": float(strength[i]),
                "items": int(item_means.iloc[:, i].notna().sum()), "cluster": int(clusters[i])} for i in order]
    return {"test": TEST_ANYTIME, "alpha": alpha, "systems": systems, "pairs": evidence.to_dict("records")}


# --- a campaign's pair statistics and evidence, page by page (the service's live state) ----------

@dataclass(frozen=True)
class CampaignPairs:
    """What a pair-comparing allocation rule needs from a campaign's submitted pages, kept up to date
    page by page (:func:`advance_campaign_pairs`): the state the simulator keeps for the rule.

    Models are indices 0..m−1 (their sorted names). ``pair_n`` / ``pair_sum`` / ``pair_sumsq``
    (m, m): pages on which both models were scored together, and the sum and sum of squares of
    the page-level mean score difference row − column, over *every* submitted page (what the rule
    sees). ``scored``: sorted codes ``doc * m + model`` of the document × model slots scored on some
    page (a page is *fresh* for a model when its slot was not). The anytime paired test runs on the
    pages that *count* (their annotator's pages count, and both translations fresh there or the
    document drawn at random): per pair a < b its ``ev_n`` observations, ``ev_x2`` sum of squared
    differences, ``log_up`` / ``log_down`` (log K⁺, log K⁻), ``max_log`` (sup log K, from 0) and
    ``a_ahead`` (the claim's direction at that sup); ``hint_n`` / ``hint_s``: the running counts and
    sums of the counted observations the bets' hints come from.
    """

    n_models: int
    pages: int
    pair_n: np.ndarray
    pair_sum: np.ndarray
    pair_sumsq: np.ndarray
    scored: np.ndarray
    ev_n: np.ndarray
    ev_x2: np.ndarray
    log_up: np.ndarray
    log_down: np.ndarray
    max_log: np.ndarray
    a_ahead: np.ndarray
    hint_n: np.ndarray
    hint_s: np.ndarray

    @classmethod
    def empty(cls, n_models: int) -> "CampaignPairs":
        z = lambda: np.zeros((n_models, n_models))  # noqa: E731
        return cls(n_models, 0, z(), z(), z(), np.zeros(0, np.int64), z(), z(), z(), z(), z(),
                   np.zeros((n_models, n_models), bool), z(), z())

    def better(self, alpha: float = ALPHA) -> np.ndarray:
        """(m, m) bool: row significantly better than column under the anytime paired test."""
        hit = self.max_log >= threshold(alpha)
        return (hit & self.a_ahead) | (hit & ~self.a_ahead).T

    def decided(self, alpha: float = ALPHA) -> np.ndarray:
        """(m, m) bool, symmetric: pairs the anytime test has separated (either direction)."""
        b = self.better(alpha)
        return b | b.T


def advance_campaign_pairs(state: CampaignPairs, page: np.ndarray, order: np.ndarray, doc: np.ndarray,
                           model: np.ndarray, score: np.ndarray, random_item: np.ndarray, counts: np.ndarray
                           ) -> CampaignPairs:
    """``state`` after the submitted pages given as one row per page × model (any row order):
    ``page`` id, ``order`` (submission order of the page: the smallest judgment id will do; a page's
    rows share their page's minimum), ``doc`` (document index), ``model`` (index), ``score`` (mean
    over the page's segments), ``random_item`` (the document was drawn at random) and ``counts``
    (the page's annotator counts for the test). Every page must come after those already in
    ``state``. Vectorised: no loop per page or pair, except the hints' blocks of pages
    (:func:`_hints_after`). ``advance_campaign_pairs(empty, all pages)`` equals feeding the pages in
    any number of batches, and its evidence equals :func:`paired_evidence_from_pages` on the same
    pages."""
    m = state.n_models
    page = np.asarray(page)
    if len(page) == 0:
        return state
    _, page_code = np.unique(page, return_inverse=True)
    first = np.full(page_code.max() + 1, np.inf)
    np.minimum.at(first, page_code, np.asarray(order, float))
    model = np.asarray(model, np.int64)
    rows = np.lexsort((model, page_code, first[page_code]))
    page_code, model = page_code[rows], model[rows]
    doc = np.asarray(doc, np.int64)[rows]
    score = np.asarray(score, float)[rows]
    random_item = np.asarray(random_item, bool)[rows]
    counts = np.asarray(counts, bool)[rows]
    # fresh: the slot's first page (earlier batches, then this one in order)
    code = doc * m + model
    _, first_row = np.unique(code, return_index=True)
    fresh = np.zeros(len(code), bool)
    fresh[first_row] = True
    fresh &= ~np.isin(code, state.scored)
    scored = np.union1d(state.scored, code)
    # every pair of rows on one page (rows of a page are contiguous, models ascending)
    starts = np.flatnonzero(np.r_[True, page_code[1:] != page_code[:-1]])
    size = np.diff(np.r_[starts, len(page_code)])
    k_max = int(size.max())
    i_list, j_list = [], []
    for d in range(1, k_max):
        i = np.arange(len(page_code) - d)
        same = page_code[i] == page_code[i + d]
        i_list.append(i[same])
        j_list.append(i[same] + d)
    i = np.concatenate(i_list) if i_list else np.zeros(0, np.int64)
    j = np.concatenate(j_list) if j_list else np.zeros(0, np.int64)
    a, b = model[i], model[j]                     # a < b: models ascending within a page
    x = score[i] - score[j]
    pair_n, pair_sum, pair_sumsq = state.pair_n.copy(), state.pair_sum.copy(), state.pair_sumsq.copy()
    np.add.at(pair_n, (a, b), 1.0)
    np.add.at(pair_n, (b, a), 1.0)
    np.add.at(pair_sum, (a, b), x)
    np.add.at(pair_sum, (b, a), -x)
    np.add.at(pair_sumsq, (a, b), x * x)
    np.add.at(pair_sumsq, (b, a), x * x)
    pages_done = state.pages + len(starts)
    # the anytime test on the pages that count
    both_fresh = fresh[i] & fresh[j]
    keep = counts[i] & counts[j] & (both_fresh | random_item[i])
    ev = dict(ev_n=state.ev_n.copy(), ev_x2=state.ev_x2.copy(), log_up=state.log_up.copy(),
              log_down=state.log_down.copy(), max_log=state.max_log.copy(), a_ahead=state.a_ahead.copy())
    hint_n, hint_s = state.hint_n, state.hint_s
    if keep.any():
        i, a, b, x = i[keep], a[keep], b[keep], x[keep]
        linear = ~both_fresh[keep]
        where = np.searchsorted(starts, i, side="right") - 1         # the page's position in the batch
        hint, hint_n, hint_s = _hints_after(a, b, x, where, state.hint_n, state.hint_s)
        pair = a * m + b
        by = np.lexsort((where, pair))
        a, b, x, linear, hint, pair = a[by], b[by], x[by], linear[by], hint[by], pair[by]
        n0 = state.ev_n[a, b] + _exclusive_cumsum(np.ones_like(x), pair)
        x2 = state.ev_x2[a, b] + _exclusive_cumsum(x * x, pair)
        zeros = np.zeros_like(x)
        psi, lam = _bet(x, n0, x2, zeros, zeros, linear, hint)
        up = np.log1p(np.maximum(lam, 0.0) * psi)
        down = np.log1p(np.minimum(lam, 0.0) * psi)
        log_up = state.log_up[a, b] + _exclusive_cumsum(up, pair) + up
        log_down = state.log_down[a, b] + _exclusive_cumsum(down, pair) + down
        log_k = log_up + log_down
        group_start = np.flatnonzero(np.r_[True, pair[1:] != pair[:-1]])
        peak = np.maximum.reduceat(log_k, group_start)
        group = np.cumsum(np.r_[True, pair[1:] != pair[:-1]]) - 1
        at_peak = np.flatnonzero(log_k == peak[group])
        first_peak = at_peak[np.unique(group[at_peak], return_index=True)[1]]
        last = np.r_[group_start[1:], len(pair)] - 1
        ga, gb = a[group_start], b[group_start]
        higher = peak > state.max_log[ga, gb]
        ev["ev_n"][ga, gb] = n0[last] + 1
        ev["ev_x2"][ga, gb] = x2[last] + x[last] ** 2
        ev["log_up"][ga, gb] = log_up[last]
        ev["log_down"][ga, gb] = log_down[last]
        ev["max_log"][ga, gb] = np.where(higher, peak, state.max_log[ga, gb])
        ev["a_ahead"][ga, gb] = np.where(higher, log_up[first_peak] >= log_down[first_peak],
                                         state.a_ahead[ga, gb])
    return CampaignPairs(m, pages_done, pair_n, pair_sum, pair_sumsq, scored, hint_n=hint_n, hint_s=hint_s,
                         **ev)
