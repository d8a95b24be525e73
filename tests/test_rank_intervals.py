"""Bootstrap intervals of Ave / Ave z / MQM (resampling segments) and rank shares."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from leaderboard.human.intervals import bootstrap_means, percentile_intervals, rank_shares, system_intervals

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
CSEN = DATA / "wmt22-toen-da" / "ad-csen-good-stnd.csv"
CSEN_STATS = DATA / "wmt22-toen-da" / "ad-csen-trk-mean-sd.txt"
MQM = DATA / "mqm-ted-ende" / "mqm_ted_ende.tsv"
needs_data = pytest.mark.skipif(not CSEN.exists(), reason="../shared/data not present")


def _campaign(rng: np.random.Generator, n_systems: int = 8, n_segments: int = 300, judged: float = 0.5):
    """systems x segments scores: true mean mu_s, segment difficulty, output noise; half the cells judged."""
    mu = rng.normal(0, 0.3, n_systems)
    values = mu[:, None] + rng.normal(0, 0.5, n_segments)[None, :] + rng.normal(0, 0.8, (n_systems, n_segments))
    values[rng.random(values.shape) > judged] = np.nan
    return mu, values


def test_bootstrap_standard_error_matches_the_closed_form() -> None:
    # every system judged on every segment: the bootstrap variance of a mean is s^2 (n-1) / n^2
    rng = np.random.default_rng(7)
    values = rng.normal(0, 1, (3, 400))
    (samples,) = bootstrap_means(values, n_resamples=4000, seed=1)
    expected = values.std(axis=1, ddof=1) * np.sqrt((values.shape[1] - 1) / values.shape[1] ** 2)
    np.testing.assert_allclose(samples.std(axis=0), expected, rtol=0.05)
    np.testing.assert_allclose(samples.mean(axis=0), values.mean(axis=1), atol=0.01)


def test_interval_contains_the_point_and_covers_the_truth_about_95_percent() -> None:
    rng = np.random.default_rng(2024)
    hits = total = 0
    for _ in range(150):  # 150 simulated campaigns x 8 systems = 1,200 intervals
        mu, values = _campaign(rng)
        point = np.nanmean(values, axis=1)
        # the population mean of a system's scores is mu_s + the mean segment difficulty (0 in expectation);
        # segment difficulty is shared by the systems, so the truth for this test set is mu_s + E[d] = mu_s
        (ci,), _ = system_intervals([values], [point], n_resamples=400, seed=int(rng.integers(1 << 30)))
        assert (ci[:, 0] <= point).all() and (point <= ci[:, 1]).all()
        hits += int(((ci[:, 0] <= mu) & (mu <= ci[:, 1])).sum())
        total += len(mu)
    coverage = hits / total
    print(f"coverage {coverage:.3f} over {total} intervals")
    assert 0.92 <= coverage <= 0.975


def test_width_shrinks_as_judgments_grow() -> None:
    rng = np.random.default_rng(3)
    _, values = _campaign(rng, n_segments=2000)
    widths = []
    for n in (250, 500, 1000, 2000):
        part = values[:, :n]
        (ci,), _ = system_intervals([part], [np.nanmean(part, axis=1)], n_resamples=500, seed=5)
        widths.append(float(np.mean(ci[:, 1] - ci[:, 0])))
    assert widths == sorted(widths, reverse=True)
    assert widths[0] / widths[-1] == pytest.approx(np.sqrt(2000 / 250), rel=0.2)  # 1 / sqrt(n)


def test_same_seed_same_result_other_seed_other_result() -> None:
    _, values = _campaign(np.random.default_rng(4))
    a = bootstrap_means(values, 300, seed=9)[0]
    b = bootstrap_means(values, 300, seed=9)[0]
    c = bootstrap_means(values, 300, seed=10)[0]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_rank_shares_are_distributions_and_follow_the_scores() -> None:
    samples = np.array([[3.0, 2.0, 1.0], [3.0, 1.0, 2.0], [1.0, 3.0, 2.0], [3.0, 2.0, np.nan]])
    shares = rank_shares(samples)
    np.testing.assert_allclose(shares.sum(axis=0), 1)
    np.testing.assert_allclose(shares.sum(axis=1), 1)
    np.testing.assert_allclose(shares[0], [0.75, 0, 0.25])
    np.testing.assert_allclose(rank_shares(samples, higher_is_better=False)[2], [0.25, 0.5, 0.25])


def test_percentile_interval_is_widened_to_the_point() -> None:
    samples = np.arange(1.0, 101.0)[:, None]
    ci = percentile_intervals(samples, np.array([200.0]))
    assert ci[0, 1] == 200.0 and ci[0, 0] == pytest.approx(np.quantile(samples, 0.025))


def _rank(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "leaderboard.cli", "rank", *args, "--json"], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout)


@needs_data
def test_wmt22_csen_intervals_in_rank_json(tmp_path: Path) -> None:
    full = _rank("--input", str(CSEN), "--worker-stats", str(CSEN_STATS))
    assert "resamples:1000" in full["signature"] and "seed:12345" in full["signature"]
    for s in full["systems"]:
        assert s["ave_ci"][0] <= s["ave"] <= s["ave_ci"][1]
        assert s["ave_z_ci"][0] <= s["ave_z"] <= s["ave_z_ci"][1]
        assert sum(s["rank_shares"]) == pytest.approx(1, abs=1e-3)
        assert s["human"] == (s["system"] == "HUMAN-C")
    top = full["systems"][0]
    assert top["system"] == "Online-W.2" and top["rank_shares"][0] > 0.9  # alone in the top cluster (Findings)
    # half of the test set's segments: the intervals widen by about sqrt(2)
    lines = CSEN.read_text(encoding="utf-8").splitlines()
    header = lines[0].split()
    sid = header.index("sid")
    segments = sorted({line.split("\t")[sid] for line in lines[1:]})
    keep = set(segments[: len(segments) // 2])
    half = tmp_path / "ad-csen-good-stnd.csv"
    half.write_text("\n".join([lines[0]] + [x for x in lines[1:] if x.split("\t")[sid] in keep]) + "\n",
                    encoding="utf-8")
    small = _rank("--input", str(half), "--worker-stats", str(CSEN_STATS))
    width = {s["system"]: s["ave_z_ci"][1] - s["ave_z_ci"][0] for s in full["systems"]}
    ratios = [(s["ave_z_ci"][1] - s["ave_z_ci"][0]) / width[s["system"]] for s in small["systems"]]
    assert all(r > 1 for r in ratios)
    assert np.median(ratios) == pytest.approx(np.sqrt(2), rel=0.2)
    again = _rank("--input", str(CSEN), "--worker-stats", str(CSEN_STATS))
    assert again == full
    none = _rank("--input", str(CSEN), "--worker-stats", str(CSEN_STATS), "--resamples", "0")
    assert "resamples" not in none["signature"] and none["systems"][0]["ave_ci"] is None


@needs_data
def test_mqm_intervals_and_human_reference() -> None:
    result = _rank("--input", str(MQM), "--lp", "en-de", "--resamples", "300")
    for s in result["systems"]:
        assert s["mqm_ci"][0] <= s["mqm"] <= s["mqm_ci"][1]
        assert s["human"] == (s["system"] == "ref")
    assert "resamples:300" in result["signature"]
    marked = _rank("--input", str(MQM), "--lp", "en-de", "--resamples", "0", "--mt-system", "ref",
                   "--human-system", "Nemo")
    flags = {s["system"]: s["human"] for s in marked["systems"]}
    assert flags["ref"] is False and flags["Nemo"] is True


def test_pipeline_coverage_on_simulated_crowd_campaigns(monkeypatch) -> None:
    """Through simulate_campaign -> rank: Ave's interval covers each system's expected score ~95% of the time.

    Workers without individual leniency or scale (only noise): a crowd's shared leniency is an offset of
    every system alike, which no resampling of segments can (or should) cover.
    """
    import leaderboard.human.simulate as sim
    from leaderboard.human.ranking import rank_judgments
    monkeypatch.setitem(sim.WORKER_MODEL, "good", (1.0, 1.0, 0.0, 0.0, 6.0, 10.0))
    mc = np.random.default_rng(99)
    n = 100_000  # Monte Carlo error of the expected score ~0.05 points, the intervals are ~3 points wide
    d, e = mc.normal(0, sim.SEGMENT_SD, n), mc.normal(0, sim.OUTPUT_SD, n)
    noise = mc.uniform(6, 10, n) * mc.normal(0, 1, n)

    def expected(mu: float) -> float:  # the model's mean answer, clipping and rounding included (Monte Carlo)
        q = np.clip(mu + d + e, 0, 100)
        return float(np.clip(np.round(q + noise), 0, 100).mean())

    hits = total = 0
    for seed in range(60):
        frame = sim.simulate_campaign(n_systems=8, n_segments=400, workers={"good": 30}, hits_per_worker=2,
                                      seed=seed)
        ranking = rank_judgments(frame, qc="none", standardise="worker", n_resamples=500, seed=seed)[0]
        mu = frame.attrs["system_quality"]["xx-en"]
        for s in ranking["systems"]:
            hits += s["ave_ci"][0] <= expected(mu[s["system"]]) <= s["ave_ci"][1]
            total += 1
    print(f"pipeline coverage {hits / total:.3f} over {total} intervals")
    assert 0.91 <= hits / total <= 0.98
