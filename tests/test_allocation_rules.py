"""Allocation rules: Pearmut's running-rank rule on hand-worked cases, uniform, race, and the rules'
respect for eligible items, missing translations, slot caps and finished models."""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import numpy as np
import pytest

from leaderboard.human.allocation import NONE, AllocationState, Choice, get_rule

MODELS = ("A", "B", "C", "D")


def state(counts, means=None, *, pool=None, eligible=None, cap=1, per_model=10, **extra) -> AllocationState:
    counts = np.asarray(counts, int)
    n_items, n_models = counts.shape
    means = np.zeros(n_models) if means is None else np.asarray(means, float)
    n = np.full(n_models, float(per_model))
    return AllocationState(
        models=MODELS[:n_models], item_model_counts=counts, model_counts=n, model_sums=means * n,
        model_sumsq=means ** 2 * n, coldstart_items=np.ones(n_items, bool) if pool is None else np.asarray(pool),
        eligible_items=np.ones(n_items, bool) if eligible is None else np.asarray(eligible), slot_cap=cap, **extra)


def many(s: AllocationState, runs: int) -> AllocationState:
    """The same campaign state repeated ``runs`` times (a runs axis), to draw many decisions at once."""
    def rep(a):
        return None if a is None else np.broadcast_to(np.asarray(a), (runs,) + np.shape(a))
    fields = ("item_model_counts", "model_counts", "model_sums", "model_sumsq", "coldstart_items",
              "eligible_items", "pair_counts", "pair_sums", "pair_sumsq", "pair_decided", "item_sizes")
    from dataclasses import replace
    return replace(s, **{f: rep(getattr(s, f)) for f in fields})


def frequencies(rule, s, k, runs=40_000, seed=0):
    items, models, _ = rule.choose_many(many(s, runs), k, np.random.default_rng(seed))
    keys = [tuple(row) for row in models.tolist()]
    values, counts = np.unique(np.array(keys), axis=0, return_counts=True)
    return {tuple(v): c / runs for v, c in zip(values.tolist(), counts)}, items


def successive_sampling(weights: dict[int, float], k: int) -> dict[tuple[int, ...], float]:
    """P(set) when k models are drawn one at a time without replacement, each with probability
    proportional to its weight among those left (numpy's choice(replace=False, p=...))."""
    out: dict[tuple[int, ...], float] = {}

    def walk(left, chosen, p):
        if len(chosen) == k:
            key = tuple(sorted(chosen))
            out[key] = out.get(key, 0.0) + p
            return
        total = sum(weights[m] for m in left)
        for m in left:
            walk([x for x in left if x != m], chosen + [m], p * weights[m] / total)
    walk(list(weights), [], 1.0)
    return out


def close(observed: dict, expected: dict, runs=40_000):
    for key, p in expected.items():
        se = np.sqrt(p * (1 - p) / runs)
        assert abs(observed.get(key, 0.0) - p) < 5 * se + 1e-9, (key, observed.get(key), p)
    assert set(observed) <= {k for k, p in expected.items() if p > 0}


# --- running rank: the hand-worked cases --------------------------------------------------------

def test_running_rank_cold_start_draws_uniformly_among_models_short_of_it_from_the_pool():
    # coldstart 1: A already has an item, B, C, D have none -> two of B, C, D, each pair 1/3;
    # only pool items 0 and 1; both are fresh for any pair, so the first (item 0)
    counts = [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    rule = get_rule("running-rank", coldstart=1)
    freq, items = frequencies(rule, state(counts, pool=[True, True, False, False], cap=2), 2)
    close(freq, {(1, 2): 1 / 3, (1, 3): 1 / 3, (2, 3): 1 / 3})
    assert (items == 0).all()


def test_running_rank_cold_start_tops_up_and_prefers_fewest_annotations():
    # only D is short of coldstart 1: D plus one of A, B, C at random; for (A, D) item 0 has A's
    # annotation, so item 1 (two open slots) wins; for (B, D) and (C, D) item 0 (first of equals)
    counts = [[1, 1, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    s = state(counts, pool=[True, True, False, False], cap=1)
    rule = get_rule("running-rank", coldstart=1)
    freq, items = frequencies(rule, s, 2)
    close(freq, {(0, 3): 1 / 3, (1, 3): 1 / 3, (2, 3): 1 / 3})
    _, models, _ = rule.choose_many(many(s, 4000), 2, np.random.default_rng(1))
    got_items = rule.choose_many(many(s, 4000), 2, np.random.default_rng(1))[0]
    assert set(got_items.tolist()) <= {0, 1}
    # A was annotated on item 0, B and C too: any pair with D goes to item 1, where both are open
    assert (got_items == 1).all()


def test_running_rank_warm_weights_one_over_rank_plus_one_top_two_equal():
    # running means A 80 > B 70 > C 60 > D 50: weights 1/2, 1/2, 1/3, 1/4 (ranks 0..3)
    counts = np.zeros((6, 4), int)
    counts[0] = 1   # every model has one annotated item: cold start (1) is over
    rule = get_rule("running-rank", coldstart=1)
    s = state(counts, means=[80, 70, 60, 50], cap=2)
    for k in (2, 3):
        freq, items = frequencies(rule, s, k)
        close(freq, successive_sampling({0: 1 / 2, 1: 1 / 2, 2: 1 / 3, 3: 1 / 4}, k))
        assert (items == 1).all()     # item 0 holds an annotation of every model; item 1 none
    # hand-worked k = 2: P({A, B}) = 2 * (0.5/1.5833) * (0.5/(1.5833 - 0.5)) = 0.2915
    freq, _ = frequencies(rule, s, 2)
    assert freq[(0, 1)] == pytest.approx(2 * (0.5 / (19 / 12)) * (0.5 / (19 / 12 - 0.5)), abs=0.01)


def test_running_rank_only_unfinished_models_and_order_ignores_finished_ones():
    # B has no open slot (every item at the cap): A, C, D ranked 0, 1, 2 -> weights 1/2, 1/2, 1/3
    counts = np.zeros((3, 4), int)
    counts[:, 1] = 1
    counts[0] = 1
    rule = get_rule("running-rank", coldstart=1)
    freq, _ = frequencies(rule, state(counts, means=[80, 90, 60, 50], cap=1), 2)
    close(freq, successive_sampling({0: 1 / 2, 2: 1 / 2, 3: 1 / 3}, 2))


def test_running_rank_returns_none_when_chosen_models_have_no_open_slot():
    counts = np.ones((3, 4), int)
    s = state(counts, means=[80, 70, 60, 50], cap=1)
    assert get_rule("running-rank", coldstart=1).choose(s, 2, np.random.default_rng(0)) is None


# --- uniform and race ------------------------------------------------------------------------------

def test_uniform_takes_least_annotated_models():
    # annotations per model: A 3, B 1, C 1, D 0 -> D and one of B, C (at random)
    counts = [[2, 0, 1, 0], [1, 0, 0, 0], [0, 1, 0, 0]]
    freq, items = frequencies(get_rule("uniform"), state(counts, cap=3), 2, runs=4000)
    close(freq, {(1, 3): 0.5, (2, 3): 0.5}, runs=4000)
    # (B, D): item 0 has no annotation of either; (C, D): item 1 (item 0 holds C's)
    _, models, _ = get_rule("uniform").choose_many(many(state(counts, cap=3), 50), 2, np.random.default_rng(0))
    choice = get_rule("uniform").choose(state(counts, cap=3), 2, np.random.default_rng(0))
    assert isinstance(choice, Choice) and not choice.random_item
    assert choice.item == (0 if choice.models == (1, 3) else 1)
    # everything full: nothing to hand out
    assert get_rule("uniform").choose(state(np.full((3, 4), 3), cap=3), 2, np.random.default_rng(0)) is None


def _race_state(decided, shared, means, counts=None, sizes=None):
    m = len(means)
    counts = np.zeros((5, m), int) if counts is None else np.asarray(counts)
    shared = np.asarray(shared, float)
    means = np.asarray(means, float)
    # page differences that agree with the means (the rule orders models by them)
    sums = shared * (means[:, None] - means[None, :])
    s = state(counts, means=means, cap=5, per_model=50,
              pair_counts=shared, pair_sums=sums, pair_sumsq=sums ** 2 / np.maximum(shared, 1),
              pair_decided=np.asarray(decided, bool),
              item_sizes=np.arange(5, 0, -1) if sizes is None else np.asarray(sizes))
    return s


def test_race_shows_leader_with_undecided_challengers_fewest_shared_pages_first():
    decided = np.zeros((4, 4), bool)
    decided[0, 1] = decided[1, 0] = True          # A already separated from B
    shared = np.array([[0, 9, 5, 1], [9, 0, 0, 0], [5, 0, 0, 0], [1, 0, 0, 0]])
    rule = get_rule("race", coldstart=0, paced=False)
    s = _race_state(decided, shared, means=[90, 80, 85, 70])
    assert rule.choose(s, 2, np.random.default_rng(0)).models == (0, 3)   # D shared fewest pages with A
    assert rule.choose(s, 3, np.random.default_rng(0)).models == (0, 2, 3)
    # shortest fresh item first (sizes 5, 4, 3, 2, 1: the last item)
    assert rule.choose(s, 2, np.random.default_rng(0)).item == 4


def test_race_paces_challengers_by_pages_times_squared_gap_over_variance():
    # A leads; C (5 points below) shared 5 pages with A, D (20 below) 1 page; the page differences
    # equal the gaps exactly, so each pair's variance is the prior alone: (0 + 2 * 12^2) / (n - 1 + 2)
    # = 48 for C and 144 for D. Progress = n * gap^2 / variance: C 5 * 25 / 48 = 2.60, D 1 * 400 / 144
    # = 2.78, so C (least advanced) goes first although it shared more pages.
    decided = np.zeros((4, 4), bool)
    decided[0, 1] = decided[1, 0] = True
    shared = np.array([[0, 9, 5, 1], [9, 0, 0, 0], [5, 0, 0, 0], [1, 0, 0, 0]])
    s = _race_state(decided, shared, means=[90, 80, 85, 70])
    rule = get_rule("race", coldstart=0, pace_jitter=0.0)
    assert rule.paced
    for seed in range(10):
        assert rule.choose(s, 2, np.random.default_rng(seed)).models == (0, 2)
    # D with one more shared page fewer (none): progress 0, it goes first
    shared0 = shared.copy()
    shared0[0, 3] = shared0[3, 0] = 0
    assert rule.choose(_race_state(decided, shared0, means=[90, 80, 85, 70]), 2,
                       np.random.default_rng(0)).models == (0, 3)
    # with the default jitter (a uniform 0-1 draw u subtracted from each key), D goes first when
    # u_C - u_D > t = 400/144 - 125/48 = 0.174: probability (1 - t)^2 / 2 = 0.341
    freq, _ = frequencies(get_rule("race", coldstart=0), s, 2, runs=20_000)
    t = 400 / 144 - 125 / 48
    close(freq, {(0, 2): 1 - (1 - t) ** 2 / 2, (0, 3): (1 - t) ** 2 / 2}, runs=20_000)


def test_race_keeps_the_leader_away_from_an_annotator_who_failed_a_check():
    decided = np.zeros((4, 4), bool)
    shared = np.array([[0, 9, 5, 1], [9, 0, 0, 0], [5, 0, 0, 0], [1, 0, 0, 0]])
    s = _race_state(decided, shared, means=[90, 80, 85, 70])
    rule = get_rule("race", coldstart=0)
    assert 0 in rule.choose(s, 2, np.random.default_rng(0)).models
    flagged = replace(s, annotator_flagged=np.array(True))
    for seed in range(20):
        assert 0 not in rule.choose(flagged, 2, np.random.default_rng(seed)).models
    # the parameter turns it off
    assert 0 in get_rule("race", coldstart=0, avoid_flagged=False).choose(flagged, 2, np.random.default_rng(0)).models


def test_race_peels_a_leader_separated_from_everyone():
    decided = np.zeros((4, 4), bool)
    decided[0, 1:] = decided[1:, 0] = True        # A separated from all: race B against C, D
    decided[1, 2] = decided[2, 1] = True
    s = _race_state(decided, np.zeros((4, 4)), means=[90, 80, 75, 70])
    assert get_rule("race", coldstart=0).choose(s, 2, np.random.default_rng(0)).models == (1, 3)


def test_race_draws_an_item_at_random_once_no_fresh_item_is_left():
    decided = np.zeros((3, 3), bool)
    counts = np.ones((5, 3), int)
    counts[2, 0] = -1                      # A has no translation of item 2
    s = _race_state(decided, np.zeros((3, 3)), means=[90, 80, 70], counts=counts)
    items, models, drawn = get_rule("race", coldstart=0).choose_many(many(s, 5000), 2, np.random.default_rng(0))
    assert drawn.all()
    assert (models == [0, 1]).all() or (models[:, 0] == 0).all()
    seen, n = np.unique(items, return_counts=True)
    assert seen.tolist() == [0, 1, 3, 4]
    assert np.all(np.abs(n / 5000 - 0.25) < 0.03)   # uniform over the items having the models


def test_race_random_ties_spread_over_the_equally_short_fresh_items_only():
    # sizes 3, 1, 2, 1, 1: items 1, 3 and 4 are the shortest; item 3 already has A (not fresh for A)
    decided = np.zeros((3, 3), bool)
    counts = np.zeros((5, 3), int)
    counts[3, 0] = 1
    s = _race_state(decided, np.zeros((3, 3)), means=[90, 80, 70], counts=counts, sizes=[3, 1, 2, 1, 1])
    runs = 4000
    items, models, drawn = get_rule("race", coldstart=0, random_ties=True).choose_many(
        many(s, runs), 2, np.random.default_rng(0))
    assert (models[:, 0] == 0).all() and not drawn.any()
    seen, n = np.unique(items, return_counts=True)
    assert seen.tolist() == [1, 4]                  # never a longer one, never one A was annotated on
    assert np.all(np.abs(n / runs - 0.5) < 0.03)    # even between the two
    # the default (as in the simulator): the first of the shortest, every time
    items, _, _ = get_rule("race", coldstart=0).choose_many(many(s, 50), 2, np.random.default_rng(0))
    assert (items == 1).all()
    assert not get_rule("uniform").uses_pairs and not get_rule("running-rank").uses_pairs
    assert get_rule("race").uses_pairs


@pytest.mark.parametrize("name", ["uniform", "running-rank", "race"])
def test_rules_respect_eligibility_missing_translations_caps_and_give_k_distinct_models(name):
    rng = np.random.default_rng(11)
    rule = get_rule(name, coldstart=2) if name != "uniform" else get_rule(name)
    for trial in range(200):
        n_items, n_models, k, cap = rng.integers(3, 9), rng.integers(3, 7), 0, int(rng.integers(1, 3))
        k = int(rng.integers(2, n_models + 1))
        counts = rng.integers(0, cap + 1, (n_items, n_models))
        counts[rng.random(counts.shape) < 0.1] = -1
        eligible = rng.random(n_items) < 0.7
        pool = rng.random(n_items) < 0.5
        means = rng.normal(80, 5, n_models)
        m = n_models
        s = AllocationState(
            models=tuple(f"m{i}" for i in range(m)), item_model_counts=counts, model_counts=np.full(m, 10.0),
            model_sums=means * 10, model_sumsq=means ** 2 * 10, coldstart_items=pool, eligible_items=eligible,
            slot_cap=cap, pair_counts=np.zeros((m, m)), pair_sums=np.zeros((m, m)), pair_sumsq=np.zeros((m, m)),
            pair_decided=rng.random((m, m)) < 0.3, item_sizes=rng.integers(1, 10, n_items))
        choice = rule.choose(s, k, rng)
        if choice is None:
            continue
        assert eligible[choice.item]
        assert len(set(choice.models)) == k == len(choice.models)
        assert all(counts[choice.item, j] >= 0 for j in choice.models)
        if name != "race" or not choice.random_item:
            # an open slot for at least one chosen model
            assert any(counts[choice.item, j] < cap for j in choice.models)
        if name == "race" and not choice.random_item:
            assert all(counts[choice.item, j] == 0 for j in choice.models)
        if name == "running-rank":
            done = (counts >= 1).sum(axis=0)
            if (done < 2).any():                           # cold start: pool items only
                assert pool[choice.item]
            else:
                unfinished = ((counts >= 0) & (counts < cap)).any(axis=0)
                if unfinished.sum() >= k:
                    assert all(unfinished[j] for j in choice.models)


def test_single_choice_equals_the_batched_one():
    counts = np.zeros((6, 4), int)
    counts[0] = 1
    s = state(counts, means=[80, 70, 60, 50], cap=2)
    rule = get_rule("running-rank", coldstart=1)
    single = rule.choose(s, 2, np.random.default_rng(3))
    items, models, _ = rule.choose_many(many(s, 1), 2, np.random.default_rng(3))
    assert (single.item, single.models) == (items[0], tuple(models[0]))


def test_bad_states_and_names_are_refused():
    with pytest.raises(ValueError, match="unknown allocation rule"):
        get_rule("bandit")
    s = state(np.zeros((3, 4), int))
    with pytest.raises(ValueError, match="k must be"):
        get_rule("uniform").choose(s, 5, np.random.default_rng(0))
    bad = state(np.full((3, 4), -2))
    with pytest.raises(ValueError, match="below -1"):
        get_rule("uniform").choose(bad, 2, np.random.default_rng(0))
    from dataclasses import replace
    with pytest.raises(ValueError, match="model_sums"):
        get_rule("uniform").choose(replace(s, model_sums=np.zeros(3)), 2, np.random.default_rng(0))
    assert NONE == -1
