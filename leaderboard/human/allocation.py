"""Allocation rules for dynamic (adaptive) assignment: which item and which k models to show next.

docs/method/allocation.md explains the rules and compares them. Three rules sit behind one interface:

* ``uniform`` — every model equally: the k models with the fewest annotations so far.
* ``running-rank`` — Pearmut's dynamic assignment as WMT26 ran it (Pearmut 1.1.6): a cold start that
  gives every model ``coldstart`` annotated items from the priority pool, models drawn at random
  among those short of it; afterwards k models drawn without replacement with weight 1/(rank + 1) of
  their running mean score (ranks from 0, the top two both weigh 1/2), only among unfinished models.
* ``race`` — ours: a race for the cluster boundaries, top first. The current leader is shown with
  the two challengers the ranking test has not yet separated from it whose upper confidence bound
  on (challenger − leader) is highest; once the leader is separated from everyone, the next
  boundary is raced (docs/method/allocation.md#our-rule-race).

Items (the unit handed out: a document in WMT26 campaigns) are chosen alike by every rule: the one
where the most of the chosen models still have an open slot (fewer than ``slot_cap`` annotations),
then the fewest annotations of the chosen models, then (``race`` only, when the caller gives item
sizes) the shortest, then the first.

Rules are pure numpy and take no store. :meth:`AllocationRule.choose` decides for one campaign;
:meth:`AllocationRule.choose_many` decides for many independent campaigns at once (every array of
the state with a leading runs axis), which is how the simulator runs hundreds of campaigns in a few
seconds; ``choose`` is ``choose_many`` on one run, so both follow one code path.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Protocol

import numpy as np

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
                       pair_decided=up(self.pair_decided), item_sizes=up(self.item_sizes))


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
    if (counts < -1).any():
        raise ValueError("item_model_counts holds values below -1")
    for name in ("model_counts", "model_sums", "model_sumsq"):
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


class AllocationRule(Protocol):
    name: str

    def choose(self, state: AllocationState, k: int, rng: np.random.Generator
               ) -> tuple[int, tuple[int, ...]] | None:
        """Next item index and the k model indices to show on it; None when nothing is left."""

    def choose_many(self, state: AllocationState, k: int, rng: np.random.Generator
                    ) -> tuple[np.ndarray, np.ndarray]:
        """Per run: item index (runs,) and model indices (runs, k); ``NONE`` (-1) where nothing is left."""


# --- shared pieces -------------------------------------------------------------------------------

def _open_slots(state: AllocationState) -> np.ndarray:
    counts = state.item_model_counts
    return (counts >= 0) & (counts < state.slot_cap)


def _top_k(keys: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest keys per row (rows: runs), order irrelevant."""
    return np.argpartition(-keys, k - 1, axis=1)[:, :k]


def _running_means(state: AllocationState) -> np.ndarray:
    counts = state.model_counts
    return np.divide(state.model_sums, counts, out=np.zeros(counts.shape, float), where=counts > 0)


def choose_items(state: AllocationState, models: np.ndarray, scope: np.ndarray, *,
                 prefer_short: bool = False) -> np.ndarray:
    """Per run, the item for the chosen ``models`` (runs, k) among the items in ``scope`` (runs, items).

    The item where the most chosen models have an open slot; ties: fewest annotations of the chosen
    models, then (``prefer_short``) fewest segments, then the first. Items lacking a translation
    of a chosen model are skipped; ``NONE`` when no item has an open slot for them.
    """
    counts = state.item_model_counts
    runs = np.arange(counts.shape[0])[:, None]
    chosen = counts[runs, :, models].transpose(0, 2, 1) if models.shape[1] else counts[:, :, :0]
    # chosen: (runs, items, k)
    present = (chosen >= 0).all(axis=2)
    open_n = ((chosen >= 0) & (chosen < state.slot_cap)).sum(axis=2)
    total = np.where(chosen >= 0, chosen, 0).sum(axis=2)
    n_items = counts.shape[1]
    # one integer key, larger is better: open slots, then fewer annotations, then shorter, then first
    key = open_n.astype(np.int64) * (1 << 40) - total.astype(np.int64) * (1 << 20)
    if prefer_short and state.item_sizes is not None:
        key -= np.minimum(state.item_sizes, (1 << 20) - 1).astype(np.int64)
    valid = scope & present & (open_n > 0)
    key = np.where(valid, key, np.iinfo(np.int64).min)
    best = key.argmax(axis=1)  # argmax takes the first of equal keys
    best = np.where(valid[np.arange(len(best)), best], best, NONE)
    return best if n_items else np.full(counts.shape[0], NONE)


def _finish(items: np.ndarray, models: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    models = np.sort(models, axis=1)
    models[items == NONE] = NONE
    return items, models


def _single(rule: "AllocationRule", state: AllocationState, k: int, rng: np.random.Generator
            ) -> tuple[int, tuple[int, ...]] | None:
    if state.batched:
        raise ValueError("choose takes one campaign; use choose_many for a runs axis")
    items, models = rule.choose_many(state.as_batch(), k, rng)
    if items[0] == NONE:
        return None
    return int(items[0]), tuple(int(m) for m in models[0])


def _scope(state: AllocationState) -> np.ndarray:
    eligible = state.eligible_items
    return np.ones(state.item_model_counts.shape[:2], bool) if eligible is None else np.asarray(eligible, bool)


# --- uniform -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class UniformRule:
    """Every model equally: the k models with the fewest annotations among those with an open slot
    in an item the annotator may get (ties at random; topped up with the least annotated others)."""

    name: str = "uniform"

    def choose(self, state, k, rng):
        return _single(self, state, k, rng)

    def choose_many(self, state, k, rng):
        validate_state(state, k)
        scope = _scope(state)
        open_ = _open_slots(state) & scope[:, :, None]
        model_open = open_.any(axis=1)
        load = np.where(state.item_model_counts > 0, state.item_model_counts, 0).sum(axis=1)
        noise = rng.random(load.shape)
        # open models first, least loaded first, ties at random
        keys = np.where(model_open, 1e12, 0.0) - load - noise
        models = _top_k(keys, k)
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

    def choose(self, state, k, rng):
        return _single(self, state, k, rng)

    def choose_many(self, state, k, rng):
        validate_state(state, k)
        counts = state.item_model_counts
        runs, _, n_models = counts.shape
        scope = _scope(state)
        items_done = (counts >= 1).sum(axis=1)
        cold = (items_done < self.coldstart).any(axis=1)
        finished = ~_open_slots(state).any(axis=1)
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
        return _finish(choose_items(state, models, pool), models)


# --- race (ours) ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class RaceRule:
    """Race for the cluster boundaries, top first (docs/method/allocation.md#our-rule-race).

    Cold start: the k models with the fewest annotated items until each has ``coldstart``, from the
    priority pool. Then per decision: peel off, from the top of the running-mean order, every leader
    the test already separates from all models below it; the first leader that is not separated is
    shown with the two unseparated challengers b whose index ``mean_b − mean_leader + beta·se`` is
    highest (``se``: standard error of the page-level difference of the two, from the pages they
    shared, shrunk towards ``prior_sd`` with ``prior_pages`` pseudo-pages). Too few challengers:
    topped up with the closest models below the leader. Pairs are *separated* when
    ``pair_decided`` says so, or, without it, when |mean difference| / se of their shared pages is at
    least ``z_decided``. Items: open slots first, then fewest annotations, then shortest.
    """

    coldstart: int = 3
    beta: float = 2.0
    prior_sd: float = 12.0
    prior_pages: float = 2.0
    z_decided: float = 3.0
    name: str = "race"

    def choose(self, state, k, rng):
        return _single(self, state, k, rng)

    def _pair_stats(self, state: AllocationState) -> tuple[np.ndarray, np.ndarray]:
        """Mean page-level difference (row − column) and its standard error, per pair."""
        shape = state.model_counts.shape + state.model_counts.shape[-1:]
        n = np.zeros(shape) if state.pair_counts is None else np.asarray(state.pair_counts, float)
        sums = np.zeros(shape) if state.pair_sums is None else np.asarray(state.pair_sums, float)
        sumsq = np.zeros(shape) if state.pair_sumsq is None else np.asarray(state.pair_sumsq, float)
        mean = np.divide(sums, n, out=np.zeros(shape), where=n > 0)
        ss = np.maximum(sumsq - n * mean ** 2, 0.0)
        var = (ss + self.prior_pages * self.prior_sd ** 2) / (np.maximum(n - 1, 0) + self.prior_pages)
        return mean, np.sqrt(var / (n + 1.0))

    def choose_many(self, state, k, rng):
        validate_state(state, k)
        counts = state.item_model_counts
        runs, _, n_models = counts.shape
        r = np.arange(runs)
        scope = _scope(state)
        open_ = _open_slots(state) & scope[:, :, None]
        model_open = open_.any(axis=1)
        items_done = (counts >= 1).sum(axis=1)
        cold = (items_done < self.coldstart).any(axis=1)
        u = rng.random((runs, n_models))
        cold_key = np.where(model_open, 1e9, 0.0) - items_done - u

        means = _running_means(state)
        diff, se = self._pair_stats(state)
        if state.pair_decided is not None:
            decided = np.asarray(state.pair_decided, bool)
        else:
            decided = (np.abs(diff) >= self.z_decided * se) & (np.asarray(state.pair_counts if state.pair_counts is not None else 0) >= 2)
        decided = decided | np.eye(n_models, dtype=bool)[None]
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
        gap = means - means[r, lead][:, None]                      # challenger − leader (<= 0 mostly)
        ucb = gap + self.beta * se[r, lead]
        challengers = ~peeled & ~decided[r, lead] & model_open
        challengers[r, lead] = False
        # leader first, then unseparated challengers by index, then the closest others below
        others = ~peeled & model_open
        key = np.where(challengers, 1e6 + ucb, np.where(others, -np.abs(gap) - u * 1e-6, -1e12 - u))
        key[r, lead] = np.where(model_open[r, lead], 1e12, key[r, lead])
        models = _top_k(key, k)
        # every pair separated (the whole ranking settled): spend on the least annotated models
        settled = leader == NONE
        if settled.any():
            load = np.where(counts > 0, counts, 0).sum(axis=1)
            spare = _top_k(np.where(model_open, 1e12, 0.0) - load - u, k)
            models[settled] = spare[settled]
        models = np.where(cold[:, None], _top_k(cold_key, k), models)
        pool = scope & np.where(cold[:, None], np.asarray(state.coldstart_items, bool), True)
        return _finish(choose_items(state, models, pool, prefer_short=True), models)


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
