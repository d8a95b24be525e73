"""The crowd-worker simulator: HIT structure, worker kinds, the documented score model, QC calibration."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from leaderboard.ingest import read_judgments
from leaderboard.schema import COLUMNS, validate_judgments
from leaderboard.human.simulate import simulate_campaign
from test_hits_structure import check_layout


@pytest.fixture(scope="module")
def campaign() -> pd.DataFrame:
    return simulate_campaign(8, 400, {"good": 30, "lenient": 10, "harsh": 10, "random": 10},
                             hits_per_worker=3, seed=11)


def test_canonical_and_structured(campaign):
    assert list(campaign.columns) == list(COLUMNS)
    valid = validate_judgments(campaign)
    assert len(valid) == 60 * 3 * 100
    assert campaign["z"].isna().all() and campaign["raw"].between(0, 100).all()
    assert (campaign["raw"] == np.round(campaign["raw"])).all()
    check_layout(campaign, n_systems=8)
    assert campaign.groupby("worker")["hit"].nunique().eq(3).all()


def test_same_seed_same_campaign():
    a = simulate_campaign(5, 100, {"good": 2, "random": 1}, 2, seed=3)
    b = simulate_campaign(5, 100, {"good": 2, "random": 1}, 2, seed=3)
    pd.testing.assert_frame_equal(a, b)
    c = simulate_campaign(5, 100, {"good": 2, "random": 1}, 2, seed=4)
    assert not a["raw"].equals(c["raw"])


def _by_kind(frame: pd.DataFrame) -> pd.Series:
    return frame["worker"].map(frame.attrs["worker_kind"])


def test_worker_kinds_follow_the_model(campaign):
    kind = _by_kind(campaign)
    genuine = campaign["item_type"] == "SYSTEM"
    mean = campaign[genuine].groupby(kind[genuine])["raw"].mean()
    sd = campaign[genuine].groupby(kind[genuine])["raw"].std()
    assert mean["lenient"] > mean["good"] + 10 and sd["lenient"] < 0.8 * sd["good"]
    assert mean["harsh"] < mean["good"] - 10
    rand = campaign.loc[kind == "random", "raw"]
    # random clickers: uniform whole numbers 0-100 (mean 50, sd sqrt((101^2 - 1) / 12) = 29.15)
    assert abs(rand.mean() - 50) < 1.5 and abs(rand.std() - 29.15) < 1.0
    assert stats.kstest(rand + np.random.default_rng(0).uniform(-0.5, 0.5, len(rand)), "uniform",
                        args=(-0.5, 101)).pvalue > 0.01
    # random clickers ignore the item type
    groups = [g.to_numpy() for _, g in campaign[kind == "random"].groupby("item_type")["raw"]]
    assert stats.kruskal(*groups).pvalue > 0.001


def test_pairs_degraded_lower_repeats_close(campaign):
    from leaderboard.human import qc
    pairs = qc.qc_pairs(campaign)
    kind = pairs["worker"].map(campaign.attrs["worker_kind"])
    diff = pairs["first"] - pairs["second"]
    bad = diff[(pairs["kind"] == "BAD_REF") & (kind == "good")]
    assert 15 <= bad.mean() <= 30  # the margin the model promises for consistent workers
    rep = diff[(pairs["kind"] == "REPEAT") & (kind == "good")]
    assert abs(rep.mean()) < 1.5 and rep.abs().mean() < 12
    ref = diff[(pairs["kind"] == "REF") & (kind == "good")]
    assert ref.mean() < -15  # the reference scores well above the output


def test_system_means_recover_the_true_qualities(campaign):
    good = campaign[(_by_kind(campaign) == "good") & (campaign["item_type"] == "SYSTEM")]
    observed = good.groupby("system")["raw"].mean()
    truth = pd.Series(campaign.attrs["system_quality"]["xx-en"])[observed.index]
    assert stats.spearmanr(observed, truth).statistic > 0.9


def test_qc_pass_rates_are_calibrated():
    from leaderboard.human import qc
    frame = simulate_campaign(6, 300, {"good": 40, "random": 200}, hits_per_worker=1, seed=5)
    _, report = qc.filter_judgments(frame)
    kind = report["worker"].map(frame.attrs["worker_kind"])
    assert report.loc[kind == "good", "passed"].all()
    # a random clicker passes a 5% test with probability 0.05: 200 of them -> binomial(200, 0.05)
    passed = int(report.loc[kind == "random", "passed"].sum())
    assert stats.binom(200, 0.05).cdf(passed) > 0.001 and stats.binom(200, 0.05).sf(passed - 1) > 0.001


def test_several_language_pairs_and_small_inputs():
    frame = simulate_campaign(3, 30, {"good": 1, "harsh": 1}, 1, seed=0, lps=["cs-en", "de-en"],
                              assessment="fluency")
    assert set(frame["lp"]) == {"cs-en", "de-en"} and set(frame["assessment"]) == {"fluency"}
    assert frame["worker"].nunique() == 4  # workers are per language pair
    check_layout(frame[frame["lp"] == "de-en"], n_systems=3)
    with pytest.raises(ValueError, match="cannot fill"):
        simulate_campaign(2, 20, {"good": 1}, 1, seed=0)
    with pytest.raises(ValueError, match="unknown worker kind"):
        simulate_campaign(2, 100, {"sloppy": 1}, 1, seed=0)


def test_cli_writes_a_canonical_csv(tmp_path):
    from leaderboard.cli import main
    out = tmp_path / "sim.csv"
    assert main(["simulate", "--out", str(out), "--systems", "4", "--segments", "200", "--good", "3",
                 "--random", "1", "--lenient", "0", "--harsh", "0", "--seed", "9"]) == 0
    frame = read_judgments(out)
    assert len(frame) == 4 * 2 * 100 and frame["system"].nunique() == 4
    again = tmp_path / "again.csv"
    main(["simulate", "--out", str(again), "--systems", "4", "--segments", "200", "--good", "3",
          "--random", "1", "--lenient", "0", "--harsh", "0", "--seed", "9"])
    assert out.read_bytes() == again.read_bytes()
