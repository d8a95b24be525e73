"""The Metrics page's cluster sentence names only what its own test shows (issue 42.5).

Clusters are greedy (a cluster opens when one metric of the previous cluster beats its first metric),
so a metric of an earlier cluster need not beat the chosen one. The sentence is checked against the
one-sided Williams p-values recomputed here from Williams (1959) as R's ``psych::r.test(n, r12, r13,
r23)`` states it, with scipy's t distribution — not from the code under test.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from leaderboard.publish import metric_eval as me
from leaderboard.webapp.metrics_views import cluster_sentence
from metrics.validation import correlate_lp

N = 12
SYSTEMS = [f"s{i}" for i in range(N)]


def _data(seed: int = 21) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    human = rng.normal(size=N)
    metrics = {"Top": human + rng.normal(scale=0.15, size=N), "Near": human + rng.normal(scale=0.45, size=N),
               "Mid": human + rng.normal(scale=0.6, size=N), "Low": human + rng.normal(scale=1.5, size=N)}
    return human, metrics


def _williams_p(human: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """One-sided p that a correlates better with human than b (psych::r.test, Williams 1959)."""
    r12, r13, r23 = (np.corrcoef(x, y)[0, 1] for x, y in ((human, a), (human, b), (a, b)))
    det = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    rbar = (r12 + r13) / 2
    t = (r12 - r13) * np.sqrt((N - 1) * (1 + r23)) / np.sqrt(2 * (N - 1) / (N - 3) * det + rbar ** 2 * (1 - r23) ** 3)
    return float(stats.t.sf(t, N - 3))


@pytest.fixture(scope="module")
def page_result():
    human, metrics = _data()
    long = pd.DataFrame([(m, s, v[i]) for m, v in metrics.items() for i, s in enumerate(SYSTEMS)],
                        columns=["metric", "system", "score"])
    result = correlate_lp(pd.DataFrame({"system": SYSTEMS, "ave_z": human}), long, None, n_resamples=0)
    return human, metrics, result, me.correlation_table(result).set_index("metric")


def _named(sentence: str) -> dict[str, float]:
    return {m: float(p) for m, p in re.findall(r"(\w+) \(p = ([0-9.e-]+)\)", sentence)}


def test_later_cluster_names_only_the_metrics_its_williams_test_shows(page_result):
    human, metrics, result, table = page_result
    cluster = int(table.loc["Mid", "cluster"])
    earlier = [m for m in table.index if table.loc[m, "cluster"] < cluster]
    p = {m: _williams_p(human, metrics[m], metrics["Mid"]) for m in metrics if m != "Mid"}
    # the situation of the issue: an earlier-cluster metric that the Williams test does not put above Mid
    assert cluster == 2 and set(earlier) == {"Top", "Near"}
    assert p["Top"] < 0.05 < p["Near"]
    sentence = cluster_sentence("Mid", cluster, int(table["cluster"].max()), me.williams_against(result, "Mid"))
    named = _named(sentence)
    assert set(named) == {m for m, v in p.items() if v < 0.05} == {"Top"}
    assert named["Top"] == pytest.approx(p["Top"], rel=1e-2)
    assert "Near" not in sentence and "Williams test" in sentence and "cluster 2 of" in sentence


def test_first_cluster_says_nothing_beats_it(page_result):
    human, metrics, result, table = page_result
    p = {m: _williams_p(human, metrics[m], metrics["Top"]) for m in metrics if m != "Top"}
    assert min(p.values()) > 0.05 and int(table.loc["Top", "cluster"]) == 1
    sentence = cluster_sentence("Top", 1, int(table["cluster"].max()), me.williams_against(result, "Top"))
    assert _named(sentence) == {} and "no metric correlates significantly better" in sentence
    assert "Williams test" in sentence


def test_every_metric_names_exactly_its_significant_williams_tests(page_result):
    human, metrics, result, table = page_result
    for chosen in metrics:
        sentence = cluster_sentence(chosen, int(table.loc[chosen, "cluster"]), int(table["cluster"].max()),
                                    me.williams_against(result, chosen))
        expected = {m for m in metrics if m != chosen and _williams_p(human, metrics[m], metrics[chosen]) < 0.05}
        assert set(_named(sentence)) == expected, (chosen, sentence)


def test_later_cluster_without_a_direct_win_says_so():
    against = pd.DataFrame({"compared_with": ["A", "B"], "r_metric": [0.8, 0.8], "r_other": [0.9, 0.85],
                            "p_metric_better": [0.9, 0.8], "p_other_better": [0.07, 0.2],
                            "verdict": ["no significant difference"] * 2})
    sentence = cluster_sentence("C", 2, 2, against)
    assert _named(sentence) == {} and "no metric correlates significantly better" in sentence
