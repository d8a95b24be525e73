"""Property tests of worker QC on simulated workers (docs/method/quality-control.md).

A careful worker who scores degraded copies clearly lower passes every test form; a random
clicker (uniform scores) passes only at about the significance level, because under the null
hypothesis p-values are (close to) uniform.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from leaderboard.human import qc


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), hits=st.integers(1, 3),
       method=st.sampled_from(qc.METHODS), degradation=st.floats(35, 60))
def test_careful_worker_passes(seed, hits, method, degradation):
    frame = qc.simulate_judgments(3, hits_per_worker=hits, degradation=degradation, noise=8.0, seed=seed)
    report = qc.worker_report(frame, method)
    assert report["passed"].all(), report[["worker", "p_value", "reason"]]
    assert (report["reason"] == "").all()
    # the degraded copies score clearly lower than the very items they copy (paired within the HIT, so
    # the items' own quality cancels: 70 items against 10 is not a property, it failed by chance once)
    keys = ["worker", "hit", "system", "segment"]
    original = frame[frame["item_type"] == "SYSTEM"].groupby(keys)["raw"].mean().rename("original")
    bad = frame[frame["item_type"] == "BAD_REF"].join(original, on=keys)
    drop = (bad["original"] - bad["raw"]).groupby(bad["worker"]).mean()
    assert (drop > 15).all(), drop
    # the report's means are the worker's own
    by_worker = report.set_index("worker")
    assert np.allclose(by_worker["mean_bad_ref"], bad.groupby("worker")["raw"].mean().reindex(by_worker.index))


@pytest.mark.parametrize("method", qc.METHODS)
def test_random_clicker_fails_at_about_alpha(method):
    n = 3000
    frame = qc.simulate_judgments(n, random_share=1.0, seed=11)
    report = qc.worker_report(frame, method, 0.05)
    p = report["p_value"].to_numpy()
    # sd of a rate is sqrt(a(1-a)/n) <= 0.0092; rank tests on tied integer scores are
    # slightly conservative, so allow a little more room below
    assert 0.05 - 0.025 <= report["passed"].mean() <= 0.05 + 0.02, method
    assert 0.2 - 0.035 <= np.mean(p < 0.2) <= 0.2 + 0.03, method
    assert abs(np.mean(p < 0.5) - 0.5) < 0.04  # p-values roughly uniform


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), share=st.floats(0.1, 0.9))
def test_filter_removes_random_clickers(seed, share):
    frame = qc.simulate_judgments(20, random_share=share, seed=seed, degradation=40.0)
    kept, report = qc.filter_judgments(frame)
    clickers = {f"W{i}" for i in range(int(round(share * 20)))}
    careful = set(report["worker"]) - clickers
    assert careful <= set(kept["worker"])
    # clickers pass only by chance (p < 0.05, at most 18 of them): P(7 or more) is about 1e-5
    assert len(set(kept["worker"]) & clickers) <= 6
    summary = qc.qc_summary(report)
    assert summary["judgments_kept"] == len(kept) == 100 * summary["workers_kept"]
    assert summary["workers_total"] == 20 and summary["judgments_total"] == len(frame)


def test_flags_catch_aggressive_optimisers():
    frame = qc.simulate_judgments(3, seed=4)
    w0 = frame["worker"] == "W0"
    frame.loc[w0, "raw"] = 50.0  # constant clicker: equal means, one long run
    frame.loc[frame["worker"] == "W1", "seconds"] = 0.5  # too fast
    w2ref = (frame["worker"] == "W2") & (frame["item_type"] == "REF")
    frame.loc[w2ref, "raw"] = 5.0  # scores the reference itself very low
    report = qc.worker_report(frame).set_index("worker")
    assert set(report.loc["W0", "flags"].split(",")) == {"scores", "constant-run"}
    assert report.loc["W0", "max_const_run"] == 100
    assert not report.loc["W0", "passed"]
    assert report.loc["W0", "reason"].startswith("test undefined")
    assert report.loc["W1", "flags"] == "fast" and report.loc["W1", "passed"]
    assert report.loc["W2", "flags"] == "low-ref"
