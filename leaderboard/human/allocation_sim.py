"""Comparing allocation rules on simulated cESA campaigns (docs/method/allocation.md#the-comparison).

:func:`simulate_rule` runs many campaigns of one :class:`~leaderboard.human.cesa_sim.Scenario` under
one rule at once, page by page, in lockstep: each step every run asks the rule for an item and k
models, simulates the annotator's page, and updates what the rule sees (every answer) and what the
analysis sees (answers of sessions that passed their attention checks, added when the session
ends). After each session the ranking tests run: the WMT26 rule and the anytime paired test. A run
*recovers the top cluster* under a test when that test's first cluster is exactly the true top
cluster (models sorted by their mean item score, WMT26's line rule). ``judgments_95`` is the number
of judgments (segment scores of counted pages, careless annotators' included; averaged over the
runs at that checkpoint) from which on at least 95% of the runs recover it; the false-claim rate is
the share of truly equal pairs the test declares significantly different, at that point.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from .adaptive_tests import ALPHA, TEST_ANYTIME, TEST_WMT26, PairEvidence, t_tests_from_sums
from .allocation import NONE, AllocationRule, AllocationState, get_rule
from .cesa_sim import Scenario, attention_checks, draw_runs, make_scenario, page_scores

#: the test each rule is reported with: WMT26's rule for the rules WMT26 could have used, the
#: anytime test for ours (built for it)
TEST_WMT26_CALIBRATED = "wmt26-calibrated"
REPORTED_TEST = {"uniform": TEST_WMT26, "running-rank": TEST_WMT26, "race": TEST_ANYTIME}
TARGET_SHARE = 0.95
#: levels the calibrated WMT26 yardstick tries, largest first
CALIBRATION_GRID = (0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 5e-4, 2e-4, 1e-4)
#: the strictest of them: simulations run until the WMT26 rule at this level recovers the top too
STOP_ALPHA = 1e-4


@dataclass
class RuleRun:
    """Checkpoint-by-checkpoint record of one rule on many runs of one scenario (checkpoints are
    session ends): enough to judge any test at any level afterwards."""

    rule: str
    runs: int
    scenario: Scenario
    pairs: np.ndarray                           # (P, 2): top vs every model, and the tied pairs
    judgments: np.ndarray                       # (checkpoints, runs)
    pages: np.ndarray                           # (checkpoints,)
    means: np.ndarray                           # (checkpoints, runs, models): mean item score
    p_wmt26: np.ndarray                         # (checkpoints, runs, P): min(paired p, unpaired p)
    anytime: np.ndarray                         # (checkpoints, runs, P, 2): a better / b better at ALPHA
    strength: np.ndarray                        # (checkpoints, runs, models): the anytime protocol's order
    excluded_sessions: float                    # share of sessions dropped by the attention checks
    seconds: float
    stopped: str = ""
    extra: dict = field(default_factory=dict)

    def mean_judgments(self) -> np.ndarray:
        return self.judgments.mean(axis=1)

    def claims(self, test: str, alpha: float = ALPHA) -> np.ndarray:
        """(checkpoints, runs, P, 2): pair member a / b declared better under ``test`` at ``alpha``."""
        if test == TEST_ANYTIME:
            if alpha != ALPHA:
                raise ValueError("the anytime test is recorded at the default alpha only")
            return self.anytime
        pa, pb = self.pairs[:, 0], self.pairs[:, 1]
        sig = self.p_wmt26 < alpha
        up = sig & (self.means[:, :, pa] > self.means[:, :, pb])
        down = sig & (self.means[:, :, pb] > self.means[:, :, pa])
        return np.stack([up, down], axis=3)

    def judged(self, test: str, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(checkpoints, runs) arrays: top cluster recovered, tied pairs declared different, claims
        against the true order."""
        c, runs = self.judgments.shape
        claims = self.claims(test, alpha)
        order_by = self.strength if test == TEST_ANYTIME else self.means
        rec, fc, wd = _judge(self.scenario, self.pairs, order_by.reshape(c * runs, -1),
                             claims.reshape(c * runs, len(self.pairs), 2))
        return rec.reshape(c, runs), fc.reshape(c, runs), wd.reshape(c, runs)

    def summary(self, test: str, alpha: float = ALPHA, share: float = TARGET_SHARE) -> dict:
        """judgments_95, false-claim rates and the end of the recovery curve for one test and level."""
        rec, fc, wd = self.judged(test, alpha)
        ok = rec.mean(axis=1) >= share
        c = None
        if ok.size and ok[-1]:
            bad = np.flatnonzero(~ok)
            c = int(bad[-1] + 1) if bad.size else 0
        at = c if c is not None else len(self.pages) - 1
        ties = len(self.scenario.ties)
        rate = (lambda row: float(row.sum() / (ties * self.runs)) if ties else 0.0)
        mj = self.mean_judgments()
        return {
            "test": test, "alpha": alpha,
            "judgments_95": None if c is None else int(round(float(mj[c]))),
            "pages_95": None if c is None else int(self.pages[c]),
            "reached": c is not None,
            "false_claim_rate": rate(fc[at]),
            "runs_with_false_claim": float((fc[at] > 0).mean()),
            "false_claim_rate_end": rate(fc[-1]),
            "wrong_direction_claims_per_run": float(wd[at].mean()),
            "recovered_share_end": float(rec[-1].mean()),
            "judgments_end": int(round(float(mj[-1]))),
        }

    def calibrated(self, limit: float = ALPHA, grid: Sequence[float] = CALIBRATION_GRID) -> dict:
        """The WMT26 rule at the largest level of ``grid`` whose false-claim rate (at its own 95%
        point) is at most ``limit``: what the rule's data need when WMT26's test is made to keep its
        false claims at 5% — a yardstick that uses the simulation's truth, not a usable test."""
        for alpha in sorted(grid, reverse=True):
            out = self.summary(TEST_WMT26, alpha)
            if out["false_claim_rate"] <= limit:
                return dict(out, test=TEST_WMT26_CALIBRATED)
        return dict(self.summary(TEST_WMT26, min(grid)), test=TEST_WMT26_CALIBRATED, judgments_95=None,
                    reached=False)


def _page_means(scores: np.ndarray) -> np.ndarray:
    """Mean over a page's segments per model (runs, k); NaN where a run has no score."""
    have = ~np.isnan(scores)
    n = have.sum(axis=1)
    total = np.where(have, scores, 0.0).sum(axis=1)
    return np.divide(total, n, out=np.full(n.shape, np.nan), where=n > 0)


def _needed_pairs(scenario: Scenario) -> np.ndarray:
    """Pairs the recovery and false-claim checks look at: top vs everyone, and the tied pairs."""
    pairs = {tuple(sorted((t, o))) for t in scenario.top for o in range(scenario.n_models) if o != t}
    pairs |= {tuple(p) for p in scenario.ties}
    return np.array(sorted(pairs), int)


def _judge(scenario: Scenario, pairs: np.ndarray, means: np.ndarray, better_pairs: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per run: top cluster recovered, tied pairs declared different, claims against the true order.

    ``means`` (runs, models): the ranking's means; ``better_pairs`` (runs, P, 2): for each needed pair
    (a, b), whether a is declared better than b and whether b is declared better than a.
    """
    runs = means.shape[0]
    top = np.array(scenario.top)
    t = len(top)
    order = np.argsort(-np.nan_to_num(means, nan=-np.inf), axis=1, kind="stable")
    first = np.sort(order[:, :t], axis=1)
    recovered = (first == np.sort(top)[None]).all(axis=1)
    index = {tuple(p): i for i, p in enumerate(pairs.tolist())}
    others = [o for o in range(scenario.n_models) if o not in scenario.top]
    for a in scenario.top:
        for b in others:
            i = index[tuple(sorted((a, b)))]
            recovered &= better_pairs[:, i, 0] if a < b else better_pairs[:, i, 1]
    if t > 1:   # no line inside the true top cluster
        pos = np.argsort(order, axis=1)
        sorted_top = top[np.argsort(pos[:, top], axis=1)]
        for cut in range(1, t):
            line = np.ones(runs, bool)
            for hi in range(cut):
                for lo in range(cut, t):
                    a, b = sorted_top[:, hi], sorted_top[:, lo]
                    ia = np.array([index[tuple(sorted((x, y)))] for x, y in zip(a, b)])
                    flag = np.where(a < b, better_pairs[np.arange(runs), ia, 0], better_pairs[np.arange(runs), ia, 1])
                    line &= flag
            recovered &= ~line
    ties = {tuple(p) for p in scenario.ties}
    tie_idx = [index[p] for p in sorted(ties)]
    false_claims = better_pairs[:, tie_idx, :].any(axis=2).sum(axis=1) if tie_idx else np.zeros(runs, int)
    truth = scenario.true_means
    wrong = np.zeros(runs, int)
    for i, (a, b) in enumerate(pairs.tolist()):
        if (a, b) in ties:
            continue
        if truth[a] < truth[b]:
            wrong += better_pairs[:, i, 0]
        elif truth[b] < truth[a]:
            wrong += better_pairs[:, i, 1]
    return recovered, false_claims, wrong


def simulate_rule(scenario: Scenario, rule: AllocationRule, runs: int, seed: int, *,
                  max_judgments: int | None = None, alpha: float = ALPHA,
                  stop_share: float | None = TARGET_SHARE, stop_alpha: float = STOP_ALPHA,
                  confirm: float = 0.25, patience: float = 3.0, reported: str | None = None,
                  progress: Callable[[int], None] | None = None, keep_items: bool = False,
                  live_decisions: bool = True) -> RuleRun:
    """Run ``runs`` campaigns of ``scenario`` under ``rule`` (see the module docstring).

    Stops at ``max_judgments`` (mean over runs; default 1,500 per system), when no run has anything
    left to hand out, or — with ``stop_share`` — once the ``reported`` test (default: the rule's,
    :data:`REPORTED_TEST`) has had at least that share of runs recovering the top cluster over the
    last ``confirm`` fraction of the judgments (and at least 3 checkpoints) and, for the other
    numbers, either the WMT26 rule at ``stop_alpha`` (the strictest level the calibration looks at)
    has too or the judgments have reached ``patience`` times the reported test's 95% point. ``progress`` is called with the pages done so far.
    ``keep_items`` keeps the final item x model means and running sums in ``extra`` (for checks).
    """
    started = time.perf_counter()
    sc = scenario
    rng = np.random.default_rng([seed, sc.seed, 2])
    R, M, D, S, k = runs, sc.n_models, sc.n_docs, sc.n_segments, sc.k
    max_judgments = max_judgments or 1500 * M
    max_pages = int(math.ceil(max_judgments / k)) + sc.session_pages
    sessions = max_pages // sc.session_pages + 2
    draws = draw_runs(sc, R, sessions, rng)
    r = np.arange(R)
    # what the rule sees: every answer, at once (counts stored models-first, so that the rules'
    # per-model rows are contiguous; the state gets the (runs, items, models) view)
    counts_mf = np.zeros((R, M, D), np.int32)
    counts = counts_mf.transpose(0, 2, 1)
    slots = np.zeros((R, M))
    items_done = np.zeros((R, M))
    open_items = np.full((R, M), float(D))
    model_n = np.zeros((R, M))
    model_sum = np.zeros((R, M))
    model_sumsq = np.zeros((R, M))
    pair_n = np.zeros((R, M, M))
    pair_sum = np.zeros((R, M, M))
    pair_sumsq = np.zeros((R, M, M))
    decided = np.zeros((R, M, M), bool)
    # what the analysis sees: answers of sessions that passed their checks, added at session end
    evidence = PairEvidence.empty(R, M)
    live = evidence.copy() if live_decisions else None
    item_sum = np.zeros((R, S, M), np.float32)
    item_n = np.zeros((R, S, M), np.int16)
    item_mean = np.full((R, S, M), np.nan, np.float32)
    pairs = _needed_pairs(sc)
    pa, pb = pairs[:, 0], pairs[:, 1]
    it_n = np.zeros((R, M))
    it_s1 = np.zeros((R, M))
    it_s2 = np.zeros((R, M))
    pn = np.zeros((R, len(pairs)))
    pd1 = np.zeros((R, len(pairs)))
    pd2 = np.zeros((R, len(pairs)))

    judgments = np.zeros(R)
    alive = np.ones(R, bool)
    pool = np.broadcast_to(np.arange(D) < sc.pool_docs, (R, D))
    eligible = np.ones((R, D), bool)
    sizes = np.broadcast_to(sc.doc_lengths, (R, D))
    seg_start = sc.seg_start
    width = int(sc.doc_lengths.max())
    iu = [(i, j) for i in range(k) for j in range(i + 1, k)]
    match_a = pa[None, None, :]
    match_b = pb[None, None, :]

    buffer: list[tuple] = []
    n_checks = np.zeros(R, int)
    n_fail = np.zeros(R, int)
    excluded = kept = 0
    log_j, log_p, log_means, log_pmin, log_any, log_strength = [], [], [], [], [], []
    streak: dict[str, tuple | None] = {"main": None, "strict": None}
    main_test = reported or REPORTED_TEST.get(rule.name, TEST_ANYTIME)
    point_main = None
    stopped = "max_judgments"
    page = 0

    def feed(rec, keep):
        docs, models, scores, fresh, active, drawn = rec
        mask = active & keep
        if not mask.any():
            return
        seg = np.minimum(seg_start[np.where(docs >= 0, docs, 0)][:, None] + np.arange(width)[None, :], S - 1)
        valid = ~np.isnan(scores) & mask[:, None, None]                  # (R, width, k)
        seg_ok = valid.any(axis=2)[:, :, None]                            # (R, width, 1)
        rs = (r[:, None, None], seg[:, :, None])
        # pair sides before the page
        ma0 = item_mean[rs + (match_a,)].astype(float)
        mb0 = item_mean[rs + (match_b,)].astype(float)
        rr = np.broadcast_to(r[:, None, None], scores.shape)[valid]
        ss = np.broadcast_to(seg[:, :, None], scores.shape)[valid]
        mm = np.broadcast_to(models[:, None, :], scores.shape)[valid]
        old = item_mean[rr, ss, mm].astype(float)
        item_sum[rr, ss, mm] += scores[valid]
        item_n[rr, ss, mm] += 1
        new = item_sum[rr, ss, mm] / item_n[rr, ss, mm]
        item_mean[rr, ss, mm] = new
        had = ~np.isnan(old)
        np.add.at(it_n, (rr, mm), ~had)
        np.add.at(it_s1, (rr, mm), new - np.where(had, old, 0.0))
        np.add.at(it_s2, (rr, mm), new.astype(float) ** 2 - np.where(had, old, 0.0) ** 2)
        # pair sides after the page: the page's models changed, the others did not
        new_page = np.full(scores.shape, np.nan)
        new_page[valid] = new
        ma1, mb1 = ma0.copy(), mb0.copy()
        for j in range(k):
            on_a = (models[:, j][:, None, None] == match_a) & valid[:, :, j:j + 1]
            on_b = (models[:, j][:, None, None] == match_b) & valid[:, :, j:j + 1]
            ma1 = np.where(on_a, new_page[:, :, j:j + 1], ma1)
            mb1 = np.where(on_b, new_page[:, :, j:j + 1], mb1)
        d0 = np.where(seg_ok, ma0 - mb0, np.nan)
        d1 = np.where(seg_ok, ma1 - mb1, np.nan)
        both0, both1 = ~np.isnan(d0), ~np.isnan(d1)
        d0, d1 = np.nan_to_num(d0), np.nan_to_num(d1)
        pn[:] += both1.sum(axis=1) - both0.sum(axis=1)
        pd1[:] += d1.sum(axis=1) - d0.sum(axis=1)
        pd2[:] += (d1 ** 2).sum(axis=1) - (d0 ** 2).sum(axis=1)
        add_pairs(evidence, rec, mask)

    def add_pairs(ev, rec, mask):
        """The page's pair observations into the e-processes ``ev`` (runs where ``mask``)."""
        docs, models, scores, fresh, active, drawn = rec
        means = _page_means(np.where(mask[:, None, None], scores, np.nan))
        hints = ev.hints()
        for i, j in iu:
            a, b = models[:, i], models[:, j]
            lo, hi = np.minimum(a, b), np.maximum(a, b)
            x = np.where(a < b, means[:, i] - means[:, j], means[:, j] - means[:, i])
            both_fresh = fresh[:, i] & fresh[:, j]
            ev.add(lo, hi, x, mask & (both_fresh | drawn), linear=~both_fresh, hint=hints[r, lo, hi])

    def checkpoint():
        log_j.append(judgments.copy())
        log_p.append(page)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = it_s1 / it_n
        p_paired, p_unpaired = t_tests_from_sums(it_n[:, pa], it_s1[:, pa], it_s2[:, pa], it_n[:, pb],
                                                 it_s1[:, pb], it_s2[:, pb], pn, pd1, pd2)
        log_means.append(means)
        log_pmin.append(np.fmin(p_paired, p_unpaired))
        better = evidence.better(alpha)
        log_any.append(np.stack([better[:, pa, pb], better[:, pb, pa]], axis=2))
        log_strength.append(evidence.strengths(means))

    def sustained(key, share_now):
        if share_now < stop_share:
            streak[key] = None
            return False
        if streak[key] is None:
            streak[key] = (len(log_p) - 1, float(judgments.mean()))
        c0, j0 = streak[key]
        return judgments.mean() >= j0 * (1 + confirm) and len(log_p) - 1 - c0 >= 3

    while True:
        state = AllocationState(
            models=sc.models, item_model_counts=counts, model_counts=model_n, model_sums=model_sum,
            model_sumsq=model_sumsq, coldstart_items=pool, eligible_items=eligible, slot_cap=sc.slot_cap,
            pair_counts=pair_n, pair_sums=pair_sum, pair_sumsq=pair_sumsq, pair_decided=decided,
            item_sizes=sizes, model_slots=slots, model_items_done=items_done, model_open_items=open_items,
            annotator_flagged=n_fail > 0)
        items, models, drawn = rule.choose_many(state, k, rng)
        items = np.where(alive, items, NONE)
        alive &= items != NONE
        session = page // sc.session_pages
        m_safe = np.where(models >= 0, models, 0)
        d_safe = np.where(items >= 0, items, 0)
        scores = page_scores(sc, draws, items, m_safe, session, rng)
        before = counts_mf[r[:, None], m_safe, d_safe[:, None]]
        fresh = before == 0
        if alive.any():
            w = alive[:, None].astype(float)
            ra = r[alive]
            counts_mf[ra[:, None], m_safe[alive], d_safe[alive][:, None]] += 1
            slots[r[:, None], m_safe] += w
            items_done[r[:, None], m_safe] += w * fresh
            open_items[r[:, None], m_safe] -= w * (before == sc.slot_cap - 1)
            seg_scores = np.where(np.isnan(scores), 0.0, scores)
            n_seg = sc.doc_lengths[d_safe] * alive
            model_n[r[:, None], m_safe] += n_seg[:, None]
            model_sum[r[:, None], m_safe] += seg_scores.sum(axis=1)
            model_sumsq[r[:, None], m_safe] += (seg_scores ** 2).sum(axis=1)
            pm = np.nan_to_num(_page_means(scores))
            for i, j in iu:
                a, b = m_safe[:, i], m_safe[:, j]
                dx = np.where(alive, pm[:, i] - pm[:, j], 0.0)
                pair_n[r, a, b] += alive
                pair_n[r, b, a] += alive
                pair_sum[r, a, b] += dx
                pair_sum[r, b, a] -= dx
                pair_sumsq[r, a, b] += dx * dx
                pair_sumsq[r, b, a] += dx * dx
            judgments += n_seg * k
        has_check = (rng.random(R) < sc.check_prob) & alive
        passed = attention_checks(sc, draws, session, rng)
        n_checks += has_check
        n_fail += has_check & ~passed
        buffer.append((items, m_safe, scores, fresh, alive.copy(), drawn & alive))
        if live is not None:
            # what the service knows now: the pages of the open session count provisionally for the
            # rule while the session has passed every check so far (the analysis waits for its end)
            add_pairs(live, buffer[-1], alive & (n_fail == 0))
            decided = live.decided(alpha)
        page += 1
        if progress is not None:
            progress(page)
        end_of_session = page % sc.session_pages == 0
        finished = not alive.any() or judgments.mean() >= max_judgments
        if end_of_session or finished:
            keep = ~((n_fail >= 1) & (2 * n_fail >= n_checks))
            active_session = np.any([b[4] for b in buffer], axis=0)
            excluded += int((~keep & active_session).sum())
            kept += int((keep & active_session).sum())
            for rec in buffer:
                feed(rec, keep)
            buffer.clear()
            n_checks[:] = 0
            n_fail[:] = 0
            decided = evidence.decided(alpha)
            if live is not None:
                live = evidence.copy()
            checkpoint()
            if stop_share is not None:
                def wmt_share(level):
                    sig = log_pmin[-1] < level
                    up = sig & (log_means[-1][:, pa] > log_means[-1][:, pb])
                    down = sig & (log_means[-1][:, pb] > log_means[-1][:, pa])
                    return _judge(sc, pairs, log_means[-1], np.stack([up, down], axis=2))[0].mean()
                if main_test == TEST_ANYTIME:
                    share_main = _judge(sc, pairs, log_strength[-1], log_any[-1])[0].mean()
                else:
                    share_main = wmt_share(alpha)
                done_main = sustained("main", share_main)
                if done_main and point_main is None:
                    point_main = streak["main"][1]
                if not done_main:
                    point_main = None
                done_strict = sustained("strict", wmt_share(stop_alpha))
                if done_main and (done_strict or judgments.mean() >= patience * point_main):
                    stopped = "recovered"
                    break
            if finished:
                stopped = "no items left" if not alive.any() else "max_judgments"
                break
    ses = excluded + kept
    extra = {}
    if keep_items:
        extra = {"item_means": item_mean.astype(float), "pairs": pairs, "it_n": it_n, "it_s1": it_s1,
                 "it_s2": it_s2, "pn": pn, "pd1": pd1, "pd2": pd2, "counts": counts.copy(),
                 "slots": slots, "items_done": items_done, "open_items": open_items, "model_n": model_n,
                 "model_sum": model_sum, "decided": decided, "pair_n": pair_n}
    return RuleRun(
        rule=rule.name, runs=R, scenario=sc, pairs=pairs, judgments=np.array(log_j), pages=np.array(log_p),
        means=np.array(log_means), p_wmt26=np.array(log_pmin), anytime=np.array(log_any),
        strength=np.array(log_strength),
        excluded_sessions=excluded / ses if ses else 0.0, seconds=time.perf_counter() - started,
        stopped=stopped, extra=extra)


def compare_rules(rules: Sequence[str], n_systems: int, runs: int, seed: int, *,
                  scenario: Scenario | None = None, max_judgments: int | None = None,
                  rule_params: dict[str, dict] | None = None,
                  progress: Callable[[str, int], None] | None = None, **scenario_args) -> dict:
    """Simulate every rule on the same scenario. Per rule: the reported test's ``judgments_95`` and
    ``false_claim_rate``, under ``by_test`` the WMT26 rule, the calibrated WMT26 yardstick and the
    anytime test, and under ``vs_running_rank`` the reported ``judgments_95`` over running-rank's
    under the WMT26 rule and under the calibrated yardstick."""
    sc = scenario or make_scenario(n_systems, seed, **scenario_args)
    out = {"scenario": sc.describe(), "runs": runs, "seed": seed, "alpha": ALPHA,
           "target_share": TARGET_SHARE, "rules": {}}
    for name in rules:
        rule = get_rule(name, **(rule_params or {}).get(name, {}))
        result = simulate_rule(sc, rule, runs, seed, max_judgments=max_judgments,
                               reported=REPORTED_TEST.get(name, TEST_ANYTIME),
                               progress=None if progress is None else (lambda p, n=name: progress(n, p)))
        by_test = {TEST_WMT26: result.summary(TEST_WMT26), TEST_WMT26_CALIBRATED: result.calibrated(),
                   TEST_ANYTIME: result.summary(TEST_ANYTIME)}
        reported = REPORTED_TEST.get(name, TEST_ANYTIME)
        main = by_test[reported]
        out["rules"][name] = {
            "test": reported, "judgments_95": main["judgments_95"], "false_claim_rate": main["false_claim_rate"],
            "reached": main["reached"], "by_test": by_test, "stopped": result.stopped,
            "excluded_sessions": round(result.excluded_sessions, 4), "seconds": round(result.seconds, 2),
            "seconds_per_run": round(result.seconds / runs, 4),
        }
    reference = out["rules"].get("running-rank", {}).get("by_test", {})
    for res in out["rules"].values():
        mine = res["judgments_95"]
        res["vs_running_rank"] = {
            test: (round(mine / reference[test]["judgments_95"], 3)
                   if mine and reference.get(test, {}).get("judgments_95") else None)
            for test in (TEST_WMT26, TEST_WMT26_CALIBRATED)}
    return out
