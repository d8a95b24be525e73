"""A simulated WMT-sized contrastive ESA (cESA) campaign, for comparing allocation rules.

docs/method/allocation.md#the-simulated-campaign describes the model; in short:

* **Systems** (20, 40, …): true means drawn from the spread of real system means
  (:class:`~leaderboard.human.esa_fit.EsaFit`, WMT24 ESA by default), spreads from the fitted
  log-normal with its slope on the mean. Sorted by mean, the best is lifted, when needed, to stand
  ``top_gap`` points (expected observed score) above the runner-up, so the true top cluster is that
  one system; ``tie_pairs`` disjoint pairs of neighbours below it are made truly equal (same mean,
  same spread), the pairs on which false claims are counted. Names are handed out in random order.
* **Test set**: ``n_docs`` documents whose lengths (segments) follow the fitted length
  distribution; the ``pool_docs`` shortest come first (WMT26's priority pool of short documents).
* **Scores**: one page shows a document's segments in ``k`` translations to one annotator;
  ``score = clip(round(mu + doc + segment + bias + nu + sysdoc + noise), 0, 100)`` with the parts of
  :mod:`~leaderboard.human.esa_fit`; ``nu`` and ``noise`` both take the fitted left-skewed residual
  shape (a missed or a marked major error moves a score far down, rarely up). A translation's own parts (``nu``, ``sysdoc``) are fixed for
  the run (a second annotation of the same output sees the same translation); they come from a
  counter-based hash of (run, segment, model), so nothing of size runs x segments x models is stored.
* **Annotators** work one after another in sessions of ``session_pages`` pages, each with a bias,
  a noise level, and with probability ``careless_share`` careless (scores unrelated to the text:
  ``Normal(c, 15)`` around a personal ``c`` from 50–100).
* **Attention checks**: before a page, with probability ``check_prob``, a triple of which one
  translation is spoiled (its score drops by the fitted ``check_drop``); it passes when the spoiled
  one scores strictly lowest. A session whose checks failed at least half the time (and at least
  once) is excluded from the analysis, as a failed completion code would be.

Every run is reproducible from (scenario seed, run seed); runs are simulated many at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtri

from ..errors import InputError
from .esa_fit import SHAPE_LEVELS, WMT24_ESA, EsaFit

CARELESS_SD = 15.0
CARELESS_RANGE = (50.0, 100.0)
#: draws of the Monte-Carlo that turns latent means into expected observed (clipped) scores
EXPECTATION_DRAWS = 200_000


@dataclass(frozen=True)
class Scenario:
    """One simulated campaign design: systems, test set, annotators and checks (runs vary the draws)."""

    models: tuple[str, ...]
    latent_means: np.ndarray        # (models,) mu before clipping
    spreads: np.ndarray             # (models,) sd of the translation's own quality part
    true_means: np.ndarray          # (models,) expected observed score: the truth the tests are judged by
    top: tuple[int, ...]            # the true top cluster: models whose true mean is the maximum
    ties: tuple[tuple[int, int], ...]   # truly equal pairs
    doc_lengths: np.ndarray         # (docs,) segments per document, in hand-out order
    pool_docs: int                  # the first pool_docs documents are the cold-start priority pool
    k: int = 3
    slot_cap: int = 2
    session_pages: int = 20
    careless_share: float = 0.1
    check_prob: float = 0.2
    seed: int = 0
    fit: EsaFit = field(default=WMT24_ESA, repr=False)

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_docs(self) -> int:
        return len(self.doc_lengths)

    @property
    def seg_start(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.doc_lengths)[:-1]]).astype(np.int64)

    @property
    def n_segments(self) -> int:
        return int(self.doc_lengths.sum())

    def describe(self) -> dict:
        """The design in plain numbers (for JSON output)."""
        order = np.argsort(-self.true_means, kind="stable")
        return {
            "systems": self.n_models, "documents": self.n_docs, "segments": self.n_segments,
            "pool_documents": self.pool_docs, "models_per_item": self.k, "slot_cap": self.slot_cap,
            "session_pages": self.session_pages, "careless_share": self.careless_share,
            "check_prob": self.check_prob, "seed": self.seed, "fit": self.fit.source,
            "true_means": {self.models[i]: round(float(self.true_means[i]), 3) for i in order},
            "top_cluster": [self.models[i] for i in self.top],
            "top_gap": round(float(self.true_means[order[0]] - self.true_means[order[len(self.top)]]), 3),
            "tied_pairs": [[self.models[a], self.models[b]] for a, b in self.ties],
        }


def _shape_table(fit: EsaFit) -> tuple[np.ndarray, np.ndarray]:
    """Quantile table of the standardised residual shape, re-standardised to mean 0, sd 1."""
    levels = np.asarray(SHAPE_LEVELS)
    values = np.asarray(fit.shape, float)
    grid = np.interp(np.linspace(0.0005, 0.9995, 2000), levels, values)
    return levels, (values - grid.mean()) / grid.std()


def _shape_draw(u: np.ndarray, table: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    return np.interp(u, table[0], table[1])


def expected_scores(latent: np.ndarray, spreads: np.ndarray, fit: EsaFit, seed: int = 0,
                    draws: int = EXPECTATION_DRAWS) -> np.ndarray:
    """Expected observed score (clipped, rounded) of each system, by Monte Carlo with common draws."""
    rng = np.random.default_rng([seed, 7])
    table = _shape_table(fit)
    common = (rng.normal(0, fit.doc_sd, draws) + rng.normal(0, fit.segment_sd, draws)
              + rng.normal(0, fit.annotator_sd, draws) + rng.normal(0, fit.system_doc_sd, draws)
              + _noise_sd(fit, rng.standard_normal(draws)) * _shape_draw(rng.random(draws), table))
    own = _shape_draw(rng.random(draws), table)
    out = np.empty(len(latent))
    for m, (mu, sp) in enumerate(zip(latent, spreads)):
        out[m] = np.clip(np.round(mu + common + sp * own), 0, 100).mean()
    return out


def _latent_for(target: np.ndarray, spreads: np.ndarray, fit: EsaFit, seed: int) -> np.ndarray:
    """Latent means whose expected observed scores are ``target`` (Newton steps on the Monte Carlo,
    started from a grid inversion at the median spread)."""
    grid = np.linspace(target.min() - 30, target.max() + 30, 121)
    curve = expected_scores(grid, np.full(grid.shape, float(np.median(spreads))), fit, seed, draws=20_000)
    latent = np.interp(target, curve, grid)
    for _ in range(3):
        got = expected_scores(latent, spreads, fit, seed)
        slope = np.interp(latent, grid[1:], np.diff(curve) / np.diff(grid))
        latent = latent + (target - got) / np.maximum(slope, 0.05)
    return latent


def _noise_sd(fit: EsaFit, z: np.ndarray) -> np.ndarray:
    """Annotators' noise sds: log-normal with mean variance noise_sd**2."""
    s = fit.noise_log_sd
    return fit.noise_sd * np.exp(z * s - s * s)


def make_scenario(n_systems: int, seed: int, *, fit: EsaFit = WMT24_ESA, n_docs: int = 600,
                  pool_docs: int = 40, top_gap: float = 3.0, tie_pairs: int | None = None,
                  k: int = 3, slot_cap: int = 2, session_pages: int = 20, careless_share: float = 0.1,
                  check_prob: float = 0.2) -> Scenario:
    """Draw a campaign design (see the module docstring); the same arguments give the same design."""
    if n_systems < k + 1:
        raise InputError(f"need at least {k + 1} systems for {k} per item", code="too_few_systems",
                         column="systems", value=n_systems)
    if n_docs < 1 or not 0 <= pool_docs <= n_docs:
        raise InputError("n_docs must be >= 1 and pool_docs between 0 and n_docs", code="bad_docs",
                         column="docs", value=(n_docs, pool_docs))
    tie_pairs = n_systems // 5 if tie_pairs is None else tie_pairs
    if not 0 <= 2 * tie_pairs <= n_systems - 1:
        raise InputError("too many tied pairs for this many systems", code="bad_tie_pairs", column="tie_pairs",
                         value=tie_pairs)
    rng = np.random.default_rng([seed, 1])
    # the fit describes observed (clipped) scores: draw the systems' observed means, then find the
    # latent means that give them
    target = np.sort(rng.normal(fit.system_mean, fit.system_sd, n_systems))[::-1].copy()
    resid_sd = np.sqrt(max(fit.spread_log_sd ** 2 - (fit.spread_slope * fit.system_sd) ** 2, 0.0))
    spreads = np.exp(fit.spread_log_mean + fit.spread_slope * (target - fit.system_mean)
                     + rng.normal(0, resid_sd, n_systems))
    # truly equal neighbours below the top
    free = list(range(1, n_systems - 1))
    ties = []
    for _ in range(tie_pairs):
        starts = [p for p in free if p + 1 in free]
        p = int(rng.choice(starts))
        ties.append((p, p + 1))
        free = [q for q in free if q not in (p, p + 1)]
        target[p] = target[p + 1] = (target[p] + target[p + 1]) / 2
        spreads[p] = spreads[p + 1] = float(np.sqrt(spreads[p] * spreads[p + 1]))
    # the best stands at least top_gap above the runner-up
    target[0] = max(target[0], target[1:].max() + top_gap)
    latent = _latent_for(target, spreads, fit, seed)
    expected = expected_scores(latent, spreads, fit, seed)
    # lengths: the pool's short documents first, the rest in random order
    sizes = np.array([n for n, _ in fit.doc_lengths])
    weights = np.array([c for _, c in fit.doc_lengths], float)
    lengths = rng.choice(sizes, size=n_docs, p=weights / weights.sum())
    order = np.argsort(lengths, kind="stable")
    pool, rest = order[:pool_docs], rng.permutation(order[pool_docs:])
    lengths = lengths[np.concatenate([pool, rest])]
    # hide the rank in the names: model i gets a random name index
    perm = rng.permutation(n_systems)
    width = len(str(n_systems))
    names = tuple(f"sys-{perm[i] + 1:0{width}d}" for i in range(n_systems))
    shuffle = np.argsort(perm)                    # position in the output -> sorted index
    inverse = np.argsort(shuffle)
    top = tuple(sorted(int(inverse[i]) for i in np.flatnonzero(np.isclose(expected, expected.max()))))
    return Scenario(
        models=tuple(names[i] for i in shuffle), latent_means=latent[shuffle], spreads=spreads[shuffle],
        true_means=expected[shuffle], top=top,
        ties=tuple(tuple(sorted((int(inverse[a]), int(inverse[b])))) for a, b in ties),
        doc_lengths=lengths.astype(np.int64), pool_docs=pool_docs, k=k, slot_cap=slot_cap,
        session_pages=session_pages, careless_share=careless_share, check_prob=check_prob,
        seed=seed, fit=fit)


# --- per-run draws -------------------------------------------------------------------------------

def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser on uint64 arrays: a well-mixed hash, so (run, segment, model) -> uniform."""
    x = (x + np.uint64(0x9E3779B97F4A7C15))
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _hash_uniform(run_keys: np.ndarray, kind: int, index: np.ndarray, model: np.ndarray, n_models: int
                  ) -> np.ndarray:
    """Uniform (0, 1) per (run, kind, index, model), the same every time it is asked for."""
    with np.errstate(over="ignore"):
        cell = (index.astype(np.uint64) * np.uint64(n_models) + model.astype(np.uint64)) \
            + (np.uint64(kind) << np.uint64(58))
        h = _mix(_mix(cell) ^ run_keys)
    return ((h >> np.uint64(11)).astype(np.float64) + 0.5) / float(1 << 53)


@dataclass
class RunDraws:
    """The random parts of a batch of runs that do not depend on the allocation."""

    run_keys: np.ndarray     # (runs,) uint64
    doc: np.ndarray          # (runs, docs)
    segment: np.ndarray      # (runs, segments)
    bias: np.ndarray         # (runs, sessions)
    noise: np.ndarray        # (runs, sessions)
    careless: np.ndarray     # (runs, sessions) bool
    careless_centre: np.ndarray
    shape: tuple[np.ndarray, np.ndarray]

    @property
    def runs(self) -> int:
        return len(self.run_keys)


def draw_runs(scenario: Scenario, runs: int, sessions: int, rng: np.random.Generator) -> RunDraws:
    """Test-set difficulties and annotators for ``runs`` runs with up to ``sessions`` sessions each."""
    fit = scenario.fit
    return RunDraws(
        run_keys=rng.integers(0, np.iinfo(np.int64).max, runs, dtype=np.int64).astype(np.uint64),
        doc=rng.normal(0, fit.doc_sd, (runs, scenario.n_docs)),
        segment=rng.normal(0, fit.segment_sd, (runs, scenario.n_segments)),
        bias=rng.normal(0, fit.annotator_sd, (runs, sessions)),
        noise=_noise_sd(fit, rng.standard_normal((runs, sessions))),
        careless=rng.random((runs, sessions)) < scenario.careless_share,
        careless_centre=rng.uniform(*CARELESS_RANGE, (runs, sessions)),
        shape=_shape_table(fit),
    )


def page_scores(scenario: Scenario, draws: RunDraws, docs: np.ndarray, models: np.ndarray,
                session: int, rng: np.random.Generator) -> np.ndarray:
    """Scores (runs, longest document, k) of one page per run; NaN past a document's end and for
    runs with nothing to do (``docs`` = -1)."""
    runs = draws.runs
    n_models = scenario.n_models
    lengths = scenario.doc_lengths
    width = int(lengths.max())
    active = docs >= 0
    d = np.where(active, docs, 0)
    j = np.arange(width)
    valid = (j[None, :] < lengths[d][:, None]) & active[:, None]
    seg = np.minimum(scenario.seg_start[d][:, None] + j[None, :], scenario.n_segments - 1)   # (runs, width)
    m = np.where(models >= 0, models, 0)                                                    # (runs, k)
    r = np.arange(runs)
    keys = draws.run_keys[:, None, None]
    u_own = _hash_uniform(keys, 1, seg[:, :, None], m[:, None, :], n_models)
    u_doc = _hash_uniform(draws.run_keys[:, None], 2, d[:, None], m, n_models)
    own = scenario.spreads[m][:, None, :] * _shape_draw(u_own, draws.shape)
    sysdoc = scenario.fit.system_doc_sd * ndtri(u_doc)
    latent = (scenario.latent_means[m][:, None, :] + draws.doc[r, d][:, None, None]
              + draws.segment[r[:, None], seg][:, :, None] + draws.bias[:, session][:, None, None]
              + own + sysdoc[:, None, :]
              + draws.noise[:, session][:, None, None] * _shape_draw(rng.random(own.shape), draws.shape))
    careless = draws.careless[:, session]
    random_scores = draws.careless_centre[:, session][:, None, None] + CARELESS_SD * rng.standard_normal(own.shape)
    scores = np.clip(np.round(np.where(careless[:, None, None], random_scores, latent)), 0, 100)
    return np.where(valid[:, :, None], scores, np.nan)


def attention_checks(scenario: Scenario, draws: RunDraws, session: int, rng: np.random.Generator
                     ) -> np.ndarray:
    """Whether each run's annotator passes one attention check now (a spoiled and two clean
    translations of a strong system's segment)."""
    fit = scenario.fit
    runs = draws.runs
    level = float(scenario.latent_means.max()) + rng.normal(0, fit.segment_sd, runs)[:, None]
    own = 4.0 * rng.standard_normal((runs, 3))
    drop = np.maximum(rng.normal(fit.check_drop_mean, fit.check_drop_sd, runs), 0.0)
    latent = level + draws.bias[:, session][:, None] + own \
        + draws.noise[:, session][:, None] * rng.standard_normal((runs, 3))
    latent[:, 2] -= drop
    careless = draws.careless[:, session]
    random_scores = draws.careless_centre[:, session][:, None] + CARELESS_SD * rng.standard_normal((runs, 3))
    scores = np.clip(np.round(np.where(careless[:, None], random_scores, latent)), 0, 100)
    return (scores[:, 2] < scores[:, 0]) & (scores[:, 2] < scores[:, 1])
