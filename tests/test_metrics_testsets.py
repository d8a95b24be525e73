"""Test-set comparison: the percentage-of-baseline tables of Bloodgood & Callison-Burch (2010) and
Spearman order agreement."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from leaderboard.errors import InputError
from metrics.testsets import compare_testsets, order_agreement, percent_of_baseline

SYSTEMS = ["ISI-Syntax", "JHU-Syntax", "Joshua-Hier"]
# Bloodgood & Callison-Burch (2010), Table 1 and Table 2: BLEU per test set and the published percentages
TABLE1 = {
    "NIST-2009 (4 refs)": ([33.10, 32.77, 26.65], [100, 99.00, 80.51]),
    "NIST-2009 (ref 1)": ([17.22, 16.98, 14.25], [100, 98.61, 82.75]),
    "NIST-2009 (ref 2)": ([17.76, 17.14, 14.69], [100, 96.51, 82.71]),
    "NIST-2009 (ref 3)": ([16.94, 16.54, 13.80], [100, 97.64, 81.46]),
    "NIST-2009 (ref 4)": ([13.63, 13.67, 11.05], [100, 100.29, 81.07]),
}
TABLE2 = {
    "NIST-2009": ([33.10, 32.77, 26.65], [100, 99.00, 80.51]),
    "MTurk-NoEditing": ([13.81, 13.93, 11.10], [100, 100.87, 80.38]),
    "MTurk-Edited": ([14.16, 14.23, 11.68], [100, 100.49, 82.49]),
}


@pytest.mark.parametrize("table", [TABLE1, TABLE2], ids=["table1", "table2"])
def test_reproduces_bloodgood2010_percentages(table: dict) -> None:
    scores = pd.DataFrame({k: v[0] for k, v in table.items()}, index=SYSTEMS)
    published = pd.DataFrame({k: v[1] for k, v in table.items()}, index=SYSTEMS, dtype=float)
    pct = percent_of_baseline(scores, "ISI-Syntax")
    assert np.abs(pct - published).to_numpy().max() < 0.01  # published to two decimals (half-up)


def test_bloodgood2010_conclusion_orders_kept() -> None:
    scores = pd.DataFrame({k: v[0] for k, v in TABLE2.items()}, index=SYSTEMS)
    result = compare_testsets(scores, "ISI-Syntax", reference="NIST-2009")
    # Joshua is last everywhere; the two syntax systems swap (99.00% vs 100.87%): rho = 0.5 for 3 systems
    agreement = result["agreement"].set_index("b")
    assert agreement.loc["MTurk-NoEditing", "rho"] == pytest.approx(0.5)
    assert agreement.loc["MTurk-Edited", "rho"] == pytest.approx(0.5)
    assert result["max_percent_shift"]["MTurk-Edited"] == pytest.approx(1.98, abs=0.01)  # 82.49 - 80.51


def test_wmt22_reference_sets_agree_by_spearman(shared: Path) -> None:
    table = pd.read_csv(shared / "wmt22-general" / "automatic-scores.tsv", sep="\t")
    cs = table[table["pair"] == "cs-en"].pivot(index="system", columns="metric", values="score")
    scores = cs[["bleu-all", "bleu-B", "bleu-C"]]
    agreement = order_agreement(scores, reference="bleu-all").set_index("b")
    for col in ("bleu-B", "bleu-C"):
        # independent: the classic formula for untied ranks, 1 - 6 Σd² / (n (n² - 1))
        d = scores["bleu-all"].rank() - scores[col].rank()
        n = len(d)
        assert scores[col].nunique() == n
        rho = 1 - 6 * (d ** 2).sum() / (n * (n ** 2 - 1))
        assert agreement.loc[col, "rho"] == pytest.approx(rho, abs=1e-12)
        assert agreement.loc[col, "n"] == n == 11
    # with all three: every pair reported
    assert len(order_agreement(scores)) == 3


def test_order_agreement_of_too_few_shared_systems() -> None:
    table = pd.DataFrame({"A": {"x": 10.0, "y": 20.0}, "B": {"x": 5.0}})  # y has no B score
    agreement = order_agreement(table)
    assert agreement.loc[0, "n"] == 1 and np.isnan(agreement.loc[0, "rho"])


def test_bad_baseline() -> None:
    scores = pd.DataFrame({"t1": [1.0, 0.0], "t2": [2.0, 3.0]}, index=["a", "b"])
    with pytest.raises(InputError, match="baseline system 'c' is not among"):
        percent_of_baseline(scores, "c")
    with pytest.raises(InputError, match="no non-zero score on t1"):
        percent_of_baseline(scores, "b")


@settings(max_examples=40, deadline=None)
# scores on a 0.01 grid: distinct values stay distinct after exp(), so the order is really kept
@given(st.lists(st.integers(100, 10_000).map(lambda v: v / 100), min_size=4, max_size=10, unique=True),
       st.floats(0.1, 10), st.floats(-5, 5))
def test_invariances(values: list[float], scale: float, shift: float) -> None:
    scores = pd.DataFrame({"t1": values}, index=[f"s{i}" for i in range(len(values))])
    scores["t2"] = scores["t1"] * scale  # same test set on another scale
    pct = percent_of_baseline(scores, "s0")
    assert np.allclose(pct["t1"], pct["t2"])  # percentages do not depend on the scale
    scores["t3"] = np.exp(scores["t1"] / 50) + shift  # any increasing transform keeps the order
    agreement = order_agreement(scores)
    assert np.allclose(agreement["rho"], 1.0)
