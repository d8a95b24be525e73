"""Power curve (Graham et al. 2017, Table 6 / Fig. 5) on WMT22 cs-en and de-en and on simulated data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from leaderboard.human import power, qc
from leaderboard.ingest import read_judgments


def _direct_share(frame: pd.DataFrame, alpha: float) -> float:
    """Independent computation: per-segment mean z of SYSTEM+REPEAT, scipy test per ordered pair."""
    x = frame[frame["item_type"].isin(["SYSTEM", "REPEAT"])]
    seg = x.groupby(["system", "segment"])["z"].mean().reset_index()
    systems = sorted(seg["system"].unique())
    samples = {s: seg.loc[seg["system"] == s, "z"].to_numpy() for s in systems}
    sig = 0
    for i, a in enumerate(systems):
        for b in systems[i + 1:]:
            pab = stats.mannwhitneyu(samples[a], samples[b], alternative="greater").pvalue
            pba = stats.mannwhitneyu(samples[b], samples[a], alternative="greater").pvalue
            sig += min(pab, pba) < alpha
    k = len(systems)
    return sig / (k * (k - 1) / 2)


def _published_share(path) -> float:
    table = pd.read_csv(path, sep=r"\s+", index_col=0)
    p = table.to_numpy(dtype=float)
    k = p.shape[0]
    sig = (p < 0.05) | (p < 0.05).T  # 0.12 marks "not significant / not tested"
    return sig[np.triu_indices(k, 1)].mean()


@pytest.mark.parametrize("src", ["cs", "de"])
def test_power_curve_wmt22(shared, src):
    folder = shared / "wmt22-toen-da"
    frame = read_judgments(folder / f"ad-{src}en-good-stnd.csv")
    curve = power.power_curve(frame, steps=5)
    assert len(curve) == 5
    assert curve["n_hits"].is_monotonic_increasing and curve["judgments"].is_monotonic_increasing
    assert curve["judgments"].iloc[-1] == frame["item_type"].isin(["SYSTEM", "REPEAT"]).sum()
    for alpha in (0.05, 0.01):
        assert curve[f"share_{alpha:g}"].iloc[-1] == pytest.approx(_direct_share(frame, alpha))
    # and the published one-sided Wilcoxon table gives the same share at p < 0.05
    lp = f"{src}-en"
    assert curve["share_0.05"].iloc[-1] == pytest.approx(_published_share(folder / f"adwilcox-{src}en.csv"))
    assert (curve["lp"] == lp).all()
    # stricter levels find fewer pairs
    assert (curve["share_0.05"] >= curve["share_0.01"]).all()
    assert (curve["share_0.01"] >= curve["share_0.001"]).all()


def test_power_grows_with_judgments_on_simulated_campaign():
    frame = qc.simulate_judgments(80, n_systems=6, n_segments=400, noise=15.0, seed=7, system_spread=10.0)
    frame["z"] = (frame["raw"] - frame.groupby("worker")["raw"].transform("mean")) / \
        frame.groupby("worker")["raw"].transform("std")
    curve = power.power_curve(frame, steps=8)
    share = curve["share_0.05"].to_numpy()
    assert share[-1] >= share[0] + 0.3
    # monotone up to small dips (the tests on a growing sample are not nested)
    assert (np.diff(share) > -0.15).all()
    assert stats.spearmanr(curve["judgments"], share).statistic > 0.8
    assert share[-1] == pytest.approx(_direct_share(frame, 0.05))


def test_hit_order_option():
    frame = qc.simulate_judgments(10, n_systems=3, seed=3)
    frame["z"] = frame["raw"] / 10
    order = list(pd.unique(frame["hit"]))[::-1]
    a = power.power_curve(frame, steps=2, hit_order=order)
    first_half = frame[frame["hit"].isin(order[:5])]
    assert a["judgments"].iloc[0] == first_half["item_type"].isin(["SYSTEM", "REPEAT"]).sum()
