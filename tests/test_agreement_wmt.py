"""Agreement tables (Graham et al. 2013, Tables 1-3) computed on the WMT22 into-English release."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from leaderboard.human import agreement as ag
from leaderboard.human import qc
from leaderboard.ingest import read_judgments


@pytest.fixture(scope="module")
def wmt22(shared):
    folder = shared / "wmt22-toen-da"
    return pd.concat([read_judgments(folder / f"ad-{s}en-good-stnd.csv",
                                     worker_stats=folder / f"ad-{s}en-trk-mean-sd.txt")
                      for s in ("cs", "de", "lv")], ignore_index=True)


def test_agreement_table_wmt22(wmt22):
    table = ag.agreement_table(wmt22).set_index(["scope", "variant", "k"]).sort_index()
    assert len(table) == 12
    intra = wmt22["item_type"].eq("REPEAT").sum()
    assert (table.loc["intra", "n_pairs"] == intra).all()  # every repeat has its original
    # independent recomputation of one cell: intra, raw, k = 4
    rep = qc.qc_pairs(wmt22)
    rep = rep[rep["kind"] == "REPEAT"]
    a = np.minimum(rep["first"].to_numpy() // 25, 3)
    b = np.minimum(rep["second"].to_numpy() // 25, 3)
    po = np.mean(a == b)
    assert table.loc[("intra", "raw", 4), "p_agree"] == pytest.approx(po)
    assert table.loc[("intra", "raw", 4), "kappa"] == pytest.approx((po - 0.25) / 0.75)
    # same judge agrees more than distinct judges, and fewer categories agree more (Graham et al. 2013)
    for variant in ("raw", "standardised"):
        for k in (5, 4, 2):
            assert table.loc[("intra", variant, k), "kappa"] > table.loc[("inter", variant, k), "kappa"]
        p = table.loc[("intra", variant), "p_agree"]
        assert p.loc[2] > p.loc[4] > p.loc[5]
    assert (table["kappa"].between(-1, 1)).all()


def test_difference_table_wmt22(wmt22):
    diff = ag.difference_table(wmt22).set_index("scope")
    # same-judge repeats differ far less than distinct judges (Graham et al. 2013, Table 1: 14.0 vs 28.9 raw)
    assert 5 < diff.loc["intra", "mean_abs_diff"] < diff.loc["inter", "mean_abs_diff"] < 40
    rep = qc.qc_pairs(wmt22)
    rep = rep[rep["kind"] == "REPEAT"]
    d = np.abs(rep["first"] - rep["second"])
    assert diff.loc["intra", "mean_abs_diff"] == pytest.approx(d.mean())
    assert diff.loc["intra", "sd_abs_diff"] == pytest.approx(d.std(ddof=1))


def test_inter_pairs_are_distinct_workers():
    frame = qc.simulate_judgments(6, seed=1, n_segments=20, n_systems=2)
    pairs = ag.inter_pairs(frame)
    # count expected pairs directly: per item, m workers -> m(m-1)/2 pairs
    sys_items = frame[frame["item_type"] == "SYSTEM"].drop_duplicates(["system", "segment", "worker"])
    m = sys_items.groupby(["system", "segment"]).size()
    assert len(pairs) == int((m * (m - 1) // 2).sum())
