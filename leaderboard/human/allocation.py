"""Allocation rules for dynamic (adaptive) assignment: which item and which k models to show next.

docs/method/allocation.md explains the rules and compares them. Three rules sit behind one interface:

* ``uniform`` — every model equally: the k models with the fewest annotations so far.
* ``running-rank`` — Pearmut's dynamic assignment as WMT26 ran it (Pearmut 1.1.6): a cold start that
  gives every model ``coldstart`` annotated items from the priority pool, models drawn at random
  among those short of it; afterwards k models drawn without replacement with weight 1/(rank + 1) of
  their running mean score (ranks from 0, the top two both weigh 1/2), only among unfinished models.
* ``race`` — ours: a race for the cluster boundaries, top first. The current leader is shown with
  the challengers the ranking test has not yet separated from it, round-robin; a challenger leaves
  the race when the test separates it; once the leader is separated from everyone below it, the
  next boundary is raced (docs/method/allocation.md#our-rule-race).

Items (the unit handed out: a document in WMT26 campaigns): ``uniform`` and ``running-rank`` take
the one where the most of the chosen models still have an open slot (fewer than ``slot_cap``
annotations), then the fewest annotations of the chosen models, then the first (Pearmut's order).
``race`` takes the shortest item none of the chosen models has been annotated on; when there is
none, it draws an item uniformly at random (and says so in the :class:`Choice`), which keeps the
anytime test valid on translations annotated before.

Rules are pure numpy and take no store. :meth:`AllocationRule.choose` decides for one campaign;
:meth:`AllocationRule.choose_many` decides for many independent campaigns at once (every array of
the state with a leading runs axis), which is how the simulator runs hundreds of campaigns in a few
seconds; ``choose`` is ``choose_many`` on one run, so both follow one code path.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, ClassVar, NamedTuple, Protocol

import numpy as np

from .adaptive_tests import pair_strengths

#: marks "nothing to hand out" in the arrays returned by ``choose_many``
NONE = -1


@dataclass(frozen=True)
class AllocationState:
    """Everything a rule may look at, as plain arrays (one campaign, or many with a leading runs axis).

    ``item_model_counts``: annotations stored so far per item x model, -1 where the model has no
    translation of the item. ``model_counts`` / ``model_sums`` / ``model_sumsq``: number, sum and sum
    of squares of the model's scores so far (segment scores, every annotation: the running mean is
    ``model_sums / model_counts``). ``coldstart_items``: the priority pool the cold start draws from
    (all True for no pool). ``eligible_items``: items this annotator may get now (caps and documents
    already seen applied by the caller). ``slot_cap``: annotations an item x model slot takes before
    it is full (Pearmut: 1); a model with no open slot left is *finished*.

    Optional, for rules that compare models directly (``race``): ``pair_counts`` — items on which
    both models were annotated together (same annotator, same page); ``pair_sums`` /
    ``pair_sumsq`` — sum and sum of squares of the page-level mean score difference row − column;
    ``pair_decided`` — pairs the ranking test already separates (symmetric). ``item_sizes``:
    judgments one model gets from the item (its segments), to prefer short items.
    ``item_model_sums``: per item x model score sums, for rules that need per-item scores.

    Optional summaries of ``item_model_counts`` a caller may keep up to date itself (the simulator
    does; they are computed when absent): ``model_slots`` — annotations stored per model;
    ``model_items_done`` — items with at least one; ``model_open_items`` — items with an open slot.
    ``annotator_flagged``: the current annotator failed an attention check in this session (what
    the service knows live; ``race`` keeps the leader away from them).
    """

    models: tuple[str, ...]
    item_model_counts: np.ndarray
    model_counts: np.ndarray
    model_sums: np.ndarray
    model_sumsq: np.ndarray
    coldstart_items: np.ndarray
    eligible_items: np.ndarray
    item_model_sums: np.ndarray | None = None
    slot_cap: int = 1
    pair_counts: np.ndarray | None = None
    pair_sums: np.ndarray | None = None
    pair_sumsq: np.ndarray | None = None
    pair_decided: np.ndarray | None = None
    item_sizes: np.ndarray | None = None
    model_slots: np.ndarray | None = None
    model_items_done: np.ndarray | None = None
    model_open_items: np.ndarray | None = None
    annotator_flagged: np.ndarray | bool | None = None

    @property
    def batched(self) -> bool:
        return np.ndim(self.item_model_counts) == 3

    def as_batch(self) -> "AllocationState":
        """The same state with a runs axis of length 1 (no-op when it has one)."""
        if self.batched:
            return self

        def up(a):
            return None if a is None else np.asarray(a)[None]
        return replace(self, item_model_counts=up(self.item_model_counts), model_counts=up(self.model_counts),
                       model_sums=up(self.model_sums), model_sumsq=up(self.model_sumsq),
                       coldstart_items=up(self.coldstart_items), eligible_items=up(self.eligible_items),
                       item_model_sums=up(self.item_model_sums), pair_counts=up(self.pair_counts),
                       pair_sums=up(self.pair_sums), pair_sumsq=up(self.pair_sumsq),
                       pair_decided=up(self.pair_decided), item_sizes=up(self.item_sizes),
                       model_slots=up(self.model_slots), model_items_done=up(self.model_items_done),
                       model_open_items=up(self.model_open_items),
                       annotator_flagged=None if self.annotator_flagged is None
                       else np.atleast_1d(np.asarray(self.annotator_flagged, bool)))


def validate_state(state: AllocationState, k: int) -> None:
    """Refuse a state whose arrays do not fit together (shapes, ranges), naming the field."""
    counts = np.asarray(state.item_model_counts)
    if counts.ndim not in (2, 3):
        raise ValueError("item_model_counts must be (items, models) or (runs, items, models)")
    lead = counts.shape[:-2]
    n_items, n_models = counts.shape[-2:]
    if len(state.models) != n_models:
        raise ValueError(f"models names {len(state.models)} models, item_model_counts has {n_models} columns")
    if not 1 <= k <= n_models:
        raise ValueError(f"k must be between 1 and the number of models ({n_models}), got {k}")
    if state.slot_cap < 1:
        raise ValueError("slot_cap must be at least 1")
    required = ("model_counts", "model_sums", "model_sumsq")
    for name in required + ("model_slots", "model_items_done", "model_open_items"):
        if name not in required and getattr(state, name) is None:
            continue
        if np.shape(getattr(state, name)) != lead + (n_models,):
            raise ValueError(f"{name} must have shape {lead + (n_models,)}")
    for name in ("coldstart_items", "eligible_items", "item_sizes"):
        value = getattr(state, name)
        if value is not None and np.shape(value) != lead + (n_items,):
            raise ValueError(f"{name} must have shape {lead + (n_items,)}")
    for name in ("pair_counts", "pair_sums", "pair_sumsq", "pair_decided"):
        value = getattr(state, name)
        if value is not None and np.shape(value) != lead + (n_models, n_models):
            raise ValueError(f"{name} must have shape {lead + (n_models, n_models)}")


class Choice(NamedTuple):
    """One decision: the item, the k models (sorted indices) and whether the item was drawn uniformly
    at random among the items having those models, independently of every score so far (the
    anytime test can then use the page even when its translations were annotated before; the
    caller stores this flag with the assignment)."""

    item: int
    models: tuple[int, ...]
    random_item: bool = False


class AllocationRule(Protocol):
    name: str
    #: whether the rule reads the pair statistics, ``pair_decided`` and ``item_sizes`` (a service
    #: computes them only for such rules)
    uses_pairs: ClassVar[bool]

    def choose(self, state: AllocationState, k: int, rng: np.random.Generator) -> Choice | None:
        """Next item and the k models to show on it; None when nothing is left."""

    def choose_many(self, state: AllocationState, k: int, rng: np.random.Generator
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per run: item index (runs,), model indices (runs, k) and the random-item flag (runs,);
        ``NONE`` (-1) where nothing is left."""


# --- shared pieces -------------------------------------------------------------------------------

def _open_slots(state: AllocationState) -> np.ndarray:
    counts = state.item_model_counts
    return (counts >= 0) & (counts < state.slot_cap)


def _items_done(state: AllocationState) -> np.ndarray:
    if state.model_items_done is not None:
        return np.asarray(state.model_items_done)
    return (state.item_model_counts >= 1).sum(axis=1)


def _slots(state: AllocationState) -> np.ndarray:
    if state.model_slots is not None:
        return np.asarray(state.model_slots)
    return np.where(state.item_model_counts > 0, state.item_model_counts, 0).sum(axis=1)


def _unfinished(state: AllocationState) -> np.ndarray:
    """Models with an open slot in some item (any annotator)."""
    if state.model_open_items is not None:
        return np.asarray(state.model_open_items) > 0
    return _open_slots(state).any(axis=1)


def _model_open(state: AllocationState, scope: np.ndarray) -> np.ndarray:
    """Models with an open slot in an item of ``scope`` (the annotator's eligible items)."""
    if state.model_open_items is not None and scope.all():
        return np.asarray(state.model_open_items) > 0
    return (_open_slots(state) & scope[:, :, None]).any(axis=1)


def _top_k(keys: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest keys per row (rows: runs), order irrelevant."""
    return np.argpartition(-keys, k - 1, axis=1)[:, :k]


def _running_means(state: AllocationState) -> np.ndarray:
    counts = state.model_counts
    return np.divide(state.model_sums, counts, out=np.zeros(counts.shape, float), where=counts > 0)


def _chosen_counts(state: AllocationState, models: np.ndarray) -> np.ndarray:
    """item_model_counts of the chosen models, (runs, k, items)."""
    counts = state.item_model_counts
    runs = np.arange(counts.shape[0])[:, None]
    return counts[runs, :, models]


def choose_items(state: AllocationState, models: np.ndarray, scope: np.ndarray) -> np.ndarray:
    """Per run, the item for the chosen ``models`` (runs, k) among the items in ``scope`` (runs, items).

    The item where the most chosen models have an open slot; ties: fewest annotations of the chosen
    models, then the first. Items lacking a translation of a chosen model are skipped; ``NONE`` when
    no item has an open slot for them.
    """
    chosen = _chosen_counts(state, models)
    if chosen.shape[2] == 0:
        return np.full(chosen.shape[0], NONE)
    present = (chosen >= 0).all(axis=1)
    open_n = ((chosen >= 0) & (chosen < state.slot_cap)).sum(axis=1)
    total = np.maximum(chosen, 0).sum(axis=1)
    # one integer key, larger is better: open slots, then fewer annotations, then the first item
    key = open_n.astype(np.int64) * (1 << 40) - total
    valid = scope & present & (open_n > 0)
    key[~valid] = np.iinfo(np.int64).min
    best = key.argmax(axis=1)  # argmax takes the first of equal keys
    return np.where(valid[np.arange(len(best)), best], best, NONE)


def choose_fresh_or_random(state: AllocationState, models: np.ndarray, scope: np.ndarray,
                           rng: np.random.Generator, random_ties: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per run, the shortest item (then the first; with ``random_ties``, one of the equally short at
    random) on which none of the chosen models was annotated yet; when there is none, an item drawn
    uniformly at random among the items of ``scope`` that have all chosen models (whatever their
    counts). Returns the items and whether each was drawn at random.
    """
    chosen = _chosen_counts(state, models)
    runs, _, n_items = chosen.shape
    if n_items == 0:
        return np.full(runs, NONE), np.zeros(runs, bool)
    present = (chosen >= 0).all(axis=1) & scope
    fresh = (chosen == 0).all(axis=1) & scope
    sizes = np.zeros(n_items) if state.item_sizes is None else np.asarray(state.item_sizes, float)
    # sizes are whole segment counts: a tie-break below 1 never reorders different sizes
    tie = rng.random((runs, n_items)) * 0.5 if random_ties else 0.0
    fresh_key = np.where(fresh, -sizes + tie, -np.inf)
    best = fresh_key.argmax(axis=1)
    has_fresh = fresh.any(axis=1)
    drawn = np.where(present, rng.random((runs, n_items)), -1.0).argmax(axis=1)
    can_draw = present.any(axis=1)
    items = np.where(has_fresh, best, np.where(can_draw, drawn, NONE))
    return items, ~has_fresh & can_draw


def _finish(items: np.ndarray, models: np.ndarray, random_item: np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    models = np.sort(models, axis=1)
    models[items == NONE] = NONE
    random_item = np.zeros(len(items), bool) if random_item is None else random_item & (items != NONE)
    return items, models, random_item


def _single(rule: "AllocationRule", state: AllocationState, k: int, rng: np.random.Generator
            ) -> tuple[int, tuple[int, ...]] | None:
    if state.batched:
        raise ValueError("choose takes one campaign; use choose_many for a runs axis")
    if (np.asarray(state.item_model_counts) < -1).any():
        raise ValueError("item_model_counts holds values below -1")
    items, models, random_item = rule.choose_many(state.as_batch(), k, rng)
    if items[0] == NONE:
        return None
    return Choice(int(items[0]), tuple(int(m) for m in models[0]), bool(random_item[0]))


def _scope(state: AllocationState) -> np.ndarray:
    eligible = state.eligible_items
    return np.ones(state.item_model_counts.shape[:2], bool) if eligible is None else np.asarray(eligible, bool)


# --- uniform -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class UniformRule:
    """Every model equally: the k models with the fewest annotations among those with an open slot
    in an item the annotator may get (ties at random; topped up with the least annotated others)."""

    name: str = "uniform"
    uses_pairs: ClassVar[bool] = False

    def choose(self, state, k, rng):
        return _single(self, state, k, rng)

    def choose_many(self, state, k, rng):
        validate_state(state, k)
        scope = _scope(state)
        model_open = _model_open(state, scope)
        load = _slots(state)
        noise = rng.random(load.shape)
        # open models first, least loaded first, ties at random
        keys = np.where(model_open, 1e12, 0.0) - load - noise
        models = _top_k(keys, k)
        models = np.sort(models, axis=1)
        return _finish(choose_items(state, models, scope), models)


# --- running rank (Pearmut 1.1.6's dynamic assignment) -------------------------------------------

@dataclass(frozen=True)
class RunningRankRule:
    """Pearmut's rule (WMT26), see the module docstring.

    Cold start while some model has fewer than ``coldstart`` items annotated (an item counts once
    however often it was annotated, as Pearmut's progress marks slots): models short of it, a random
    k of them (topped up at random with others), items only from the priority pool. Afterwards:
    unfinished models (topped up at random), ranked by running mean (ties at random), weight 1/2 for
    ranks 0 and 1 and 1/(rank + 1) below, k drawn without replacement with probabilities
    proportional to the weights (drawing by Gumbel-top-k, the same distribution as drawing one at a
    time and renormalising).
    """

    coldstart: int = 20
    name: str = "running-rank"
    uses_pairs: ClassVar[bool] = False

    def choose(self, state, k, rng):
        return _single(self, state, k, rng)

    def choose_many(self, state, k, rng):
        validate_state(state, k)
        counts = state.item_model_counts
        runs, _, n_models = counts.shape
        scope = _scope(state)
        items_done = _items_done(state)
        cold = (items_done < self.coldstart).any(axis=1)
        finished = ~_unfinished(state)
        available = np.where(cold[:, None], items_done < self.coldstart, ~finished)
        u = rng.random((runs, n_models))
        # warm phase: rank the available models by running mean, ties at random
        means = _running_means(state)
        order_key = np.where(available, means, -np.inf)
        ranked = np.lexsort((u, order_key), axis=1)[:, ::-1]          # best first
        rank = np.empty_like(ranked)
        rank[np.arange(runs)[:, None], ranked] = np.arange(n_models)
        n_avail = available.sum(axis=1, keepdims=True)
        # too few available: Pearmut tops up with random others and ranks them too (behind the
        # available ones when their means are lower, like any other model)
        short = n_avail < k
        if short.any():
            fill_key = np.where(available, 2.0, u)
            filled = np.zeros_like(available)
            np.put_along_axis(filled, _top_k(fill_key, k), True, axis=1)
            available = np.where(short, filled, available)
            order_key = np.where(available, means, -np.inf)
            ranked = np.lexsort((u, order_key), axis=1)[:, ::-1]
            rank[np.arange(runs)[:, None], ranked] = np.arange(n_models)
        weight = np.where(rank == 0, 0.5, 1.0 / (rank + 1.0))
        gumbel = -np.log(-np.log(rng.random((runs, n_models))))
        warm_key = np.where(available, np.log(weight) + gumbel, -np.inf)
        # cold phase: a uniform random k of the available ones
        cold_key = np.where(available, 1.0 + rng.random((runs, n_models)), rng.random((runs, n_models)))
        keys = np.where(cold[:, None], cold_key, warm_key)
        models = _top_k(keys, k)
        pool = scope & np.where(cold[:, None], np.asarray(state.coldstart_items, bool), True)
        models = np.sort(models, axis=1)
        return _finish(choose_items(state, models, pool), models)


# --- race (ours) ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class RaceRule:
    """Race for the cluster boundaries, top first (docs/method/allocation.md#our-rule-race).

    Cold start: the k models with the fewest annotated items until each has ``coldstart``, from the
    priority pool. Models are ordered by their strength: a least-squares fit of the page-level
    differences of the pairs shown together (free of annotators' leniency and of careless pages'
    level), anchored to the running means with weight ``anchor`` per model (so that a model with no
    shared page still has a place). Then per decision: peel off, from the top of that order, every leader
    the ranking test already separates from all models below it; the first leader that is not
    separated from everyone below is shown with the k − 1 challengers still unseparated from it that
    have shared the fewest pages with it (ties at random): a round-robin race in which a challenger
    leaves as soon as the test separates it, so each challenger gets pages in proportion to how
    hard it is to separate. Too few challengers: topped up with the models closest below the leader.
    Pairs are *separated* when ``pair_decided`` says so, or, without it, when the mean page-level
    difference of the pair is at least ``z_decided`` standard errors from 0 (its sd shrunk towards
    ``prior_sd`` with ``prior_pages`` pseudo-pages). Items: the shortest on which none of the
    chosen models was annotated (short documents give the most comparisons per judgment); when none
    is left, one drawn at random (:func:`choose_fresh_or_random`); slot caps do not apply then.
    With ``avoid_flagged``, an annotator whose session has failed an attention check
    (``annotator_flagged``; the session will probably be left out of the analysis) gets the least
    annotated models other than the leader: the leader's fresh short documents, the scarce resource
    of the race, go to annotators whose pages will count.
    """

    coldstart: int = 3
    z_decided: float = 3.0
    anchor: float = 0.01
    prior_sd: float = 12.0
    prior_pages: float = 2.0
    avoid_flagged: bool = True
    paced: bool = True
    min_gap: float = 1.0
    pace_jitter: float = 1.0
    #: ties among equally short fresh items at random instead of the first: the live service sets it,
    #: so annotators deciding at the same moment spread over the short documents instead of colliding
    #: on one; the simulator keeps False (one annotator at a time), so the published comparison table
    #: (docs/method/allocation.md, bench/results) stays reproducible
    random_ties: bool = False
    name: str = "race"
    #: the rule reads pair_counts/sums/sumsq, pair_decided and item_sizes (the service fills them only then)
    uses_pairs: ClassVar[bool] = True

    def choose(self, state, k, rng):
        return _single(self, state, k, rng)

    def _strength(self, state: AllocationState) -> np.ndarray:
        """Each model's strength from the page-level differences of the pairs shown together (least
        squares: theta_a - theta_b fits every shared page), anchored weakly to the running means.

        Differences on one page are free of the annotator's leniency and of a careless annotator's
        level, which the running means are not; without pair statistics, the running means."""
        means = _running_means(state)
        if state.pair_counts is None or state.pair_sums is None:
            return means
        return pair_strengths(state.pair_counts, state.pair_sums, means, self.anchor)

    def _decided(self, state: AllocationState) -> np.ndarray:
        if state.pair_decided is not None:
            return np.asarray(state.pair_decided, bool)
        shape = state.model_counts.shape + state.model_counts.shape[-1:]
        n = np.zeros(shape) if state.pair_counts is None else np.asarray(state.pair_counts, float)
        sums = np.zeros(shape) if state.pair_sums is None else np.asarray(state.pair_sums, float)
        sumsq = np.zeros(shape) if state.pair_sumsq is None else np.asarray(state.pair_sumsq, float)
        mean = np.divide(sums, n, out=np.zeros(shape), where=n > 0)
        ss = np.maximum(sumsq - n * mean ** 2, 0.0)
        var = (ss + self.prior_pages * self.prior_sd ** 2) / (np.maximum(n - 1, 0) + self.prior_pages)
        return (np.abs(mean) >= self.z_decided * np.sqrt(var / np.maximum(n, 1))) & (n >= 2)

    def choose_many(self, state, k, rng):
        validate_state(state, k)
        counts = state.item_model_counts
        runs, _, n_models = counts.shape
        r = np.arange(runs)
        scope = _scope(state)
        model_open = _model_open(state, scope)
        items_done = _items_done(state)
        cold = (items_done < self.coldstart).any(axis=1)
        u = rng.random((runs, n_models))
        cold_key = np.where(model_open, 1e9, 0.0) - items_done - u

        means = self._strength(state)
        decided = self._decided(state) | np.eye(n_models, dtype=bool)[None]
        shared = np.zeros((runs, n_models, n_models)) if state.pair_counts is None \
            else np.asarray(state.pair_counts, float)
        # peel off leaders already separated from every model below them
        peeled = np.zeros((runs, n_models), bool)
        leader = np.full(runs, NONE)
        searching = np.ones(runs, bool)
        for _ in range(n_models):
            cand = ~peeled
            lead = np.where(cand, means + 1e-9 * u, -np.inf).argmax(axis=1)
            undecided = cand & ~decided[r, lead]
            found = searching & undecided.any(axis=1)
            leader[found] = lead[found]
            searching &= ~found
            peeled[r[searching], lead[searching]] = True
            searching &= (~peeled).any(axis=1)
            if not searching.any():
                break
        lead = np.where(leader == NONE, 0, leader)
        gap = means[r, lead][:, None] - means                       # how far below the leader
        challengers = ~peeled & ~decided[r, lead] & model_open
        challengers[r, lead] = False
        others = ~peeled & model_open
        # leader first, then unseparated challengers with the fewest shared pages, then the closest
        if self.paced and state.pair_sums is not None and state.pair_sumsq is not None:
            # LUCB-like pacing: the challengers whose separation is least advanced, measured as the
            # pages shared with the leader times (gap / sd)^2 — the log-evidence a test gathers on
            # the pair grows about that fast — so a far challenger waits while close ones catch up
            n = shared[r, lead]
            s1 = np.asarray(state.pair_sums, float)[r, lead]
            s2 = np.asarray(state.pair_sumsq, float)[r, lead]
            mean = np.divide(s1, n, out=np.zeros_like(n), where=n > 0)
            var = (np.maximum(s2 - n * mean ** 2, 0.0) + self.prior_pages * self.prior_sd ** 2) \
                / (np.maximum(n - 1, 0) + self.prior_pages)
            progress = n * np.maximum(np.abs(gap), self.min_gap) ** 2 / var
        else:
            progress = shared[r, lead]
        key = np.where(challengers, 1e9 - progress - (self.pace_jitter if self.paced else 1.0) * u,
                       np.where(others, -np.abs(gap) - 1e-6 * u, -1e12 - u))
        key[r, lead] = np.where(model_open[r, lead], 1e12, key[r, lead])
        models = _top_k(key, k)
        # every pair separated (the whole ranking settled): spend on the least annotated models
        settled = leader == NONE
        if settled.any():
            spare = _top_k(np.where(model_open, 1e12, 0.0) - _slots(state) - u, k)
            models[settled] = spare[settled]
        if self.avoid_flagged and state.annotator_flagged is not None:
            flagged = np.broadcast_to(np.asarray(state.annotator_flagged, bool), (runs,)) & ~settled
            if flagged.any():
                # an annotator who failed an attention check in this session: keep the leader's
                # fresh documents for others; spend the page on the least annotated other models
                away = np.where(model_open, 1e12, 0.0) - _slots(state) - u
                away[r, lead] = -1e15
                models[flagged] = _top_k(away, k)[flagged]
        models = np.where(cold[:, None], _top_k(cold_key, k), models)
        pool = scope & np.where(cold[:, None], np.asarray(state.coldstart_items, bool), True)
        items, random_item = choose_fresh_or_random(state, models, pool, rng, self.random_ties)
        return _finish(items, models, random_item)


RULES: dict[str, Callable[..., AllocationRule]] = {
    "uniform": UniformRule,
    "running-rank": RunningRankRule,
    "race": RaceRule,
}


def get_rule(name: str, **params) -> AllocationRule:
    """The rule called ``name`` (see :data:`RULES`) with its parameters (e.g. ``coldstart=20``)."""
    try:
        factory = RULES[name]
    except KeyError:
        raise ValueError(f"unknown allocation rule {name!r}; choose one of {', '.join(RULES)}") from None
    return factory(**params)
