"""Relative-ranking scores, sign tests and agreement (Bentivogli et al. 2011) on hand-made ranking sets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from leaderboard.human import relative_ranking as rr


def _sets(rows):
    return pd.DataFrame(rows, columns=["set", "worker", "segment", "system", "rank"])


RANKS = _sets([
    # set 1: A > B = C
    (1, "w1", "s1", "A", 1), (1, "w1", "s1", "B", 2), (1, "w1", "s1", "C", 2),
    # set 2: C > A > B
    (2, "w2", "s1", "A", 2), (2, "w2", "s1", "B", 3), (2, "w2", "s1", "C", 1),
    # set 3: A > C
    (3, "w1", "s2", "A", 1), (3, "w1", "s2", "C", 2),
    # set 4: w1 repeats set 1's systems on s1: A > B > C
    (4, "w1", "s1", "A", 1), (4, "w1", "s1", "B", 2), (4, "w1", "s1", "C", 3),
])


def test_pairwise_outcomes():
    comp = rr.pairwise_comparisons(RANKS)
    assert len(comp) == 3 + 3 + 1 + 3
    first = comp[comp["set"] == 1].set_index(["sys_a", "sys_b"])["outcome"]
    assert first.to_dict() == {("A", "B"): 1, ("A", "C"): 1, ("B", "C"): 0}


def test_scores_by_hand():
    scores = rr.relative_scores(RANKS).set_index("system")
    # A: wins vs B (sets 1, 2, 4), vs C (1, 3, 4) = 6; loses to C in set 2 = 1; no ties
    assert scores.loc["A", ["wins", "losses", "ties"]].tolist() == [6, 1, 0]
    # B: wins vs C in set 4 only; loses to A x3, C x1 (set 2); tie with C in set 1
    assert scores.loc["B", ["wins", "losses", "ties"]].tolist() == [1, 4, 1]
    assert scores.loc["B", "score"] == pytest.approx(1 / 6)
    excl = rr.relative_scores(RANKS, ties="exclude").set_index("system")
    assert excl.loc["B", "score"] == pytest.approx(1 / 5)
    assert rr.relative_scores(RANKS)["system"].tolist()[0] == "A"


def test_sign_test_equals_scipy_binomtest():
    systems, wins, p = rr.sign_test_matrix(RANKS)
    assert systems == ["A", "B", "C"]
    for i in range(3):
        for j in range(3):
            if i == j:
                assert np.isnan(p[i, j])
                continue
            n = wins[i, j] + wins[j, i]
            expected = stats.binomtest(int(wins[i, j]), int(n), 0.5, alternative="greater").pvalue
            assert p[i, j] == pytest.approx(expected)
    assert wins[0, 1] == 3 and wins[1, 0] == 0
    assert p[0, 1] == pytest.approx(0.125)


def test_agreement_by_hand():
    table = rr.ranking_agreement(RANKS).set_index("scope")
    # intra: w1 judged (A,B), (A,C), (B,C) on s1 twice: outcomes (1,1) (1,1) (0,1) -> 2 of 3 agree
    assert table.loc["intra", "comparisons"] == 3
    assert table.loc["intra", "p_agree"] == pytest.approx(2 / 3)
    assert table.loc["intra", "kappa"] == pytest.approx((2 / 3 - 1 / 3) / (2 / 3))
    # inter: w2's set 2 against w1's sets 1 and 4 for each of 3 pairs on s1 = 6 pairs
    # (A,B): w2 +1 vs +1,+1 agree x2; (A,C): w2 -1 vs +1,+1 x0; (B,C): w2 -1 vs 0,+1 x0
    assert table.loc["inter", "comparisons"] == 6
    assert table.loc["inter", "p_agree"] == pytest.approx(2 / 6)
    assert table.loc["inter", "kappa"] == pytest.approx(0.0)


def test_missing_column_is_refused():
    with pytest.raises(ValueError):
        rr.relative_scores(RANKS.drop(columns="rank"))
