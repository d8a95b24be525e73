"""Worker QC against the WMT21/22 releases and the WMT24 Appraise export.

The releases publish, per worker pooled over all into-English pairs, the paired one-sided t-test
of original vs degraded raw scores (``ad-trk-stats.csv``: p, t, number of pairs) and descriptive
statistics (``ad-wrkr-stats.csv``). Only workers whose every HIT is in the released pairs can be
reproduced; they are exactly the workers whose published HIT count equals their HIT count in
the good-stnd files (48 in WMT22, 124 in WMT21 - the data README says the same for WMT21). The
others judged pairs that are not released (ja-en, zh-en, ... in ``ad-hit-time.csv``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from leaderboard.human import qc
from leaderboard.ingest import read_judgments

YEARS = {"wmt22": (["cs", "de", "lv"], 48, 241), "wmt21": (["cs", "de"], 124, 236)}


@pytest.fixture(scope="module", params=sorted(YEARS))
def release(request, shared):
    year = request.param
    folder = shared / f"{year}-toen-da"
    srcs, n_repro, n_workers = YEARS[year]
    frame = pd.concat([read_judgments(folder / f"ad-{s}en-good-stnd.csv",
                                      worker_stats=folder / f"ad-{s}en-trk-mean-sd.txt") for s in srcs],
                      ignore_index=True)
    trk = pd.read_csv(folder / "ad-trk-stats.csv", sep=r"\s+", header=None, names=["worker", "p", "t", "n_published"])
    wrk = pd.read_csv(folder / "ad-wrkr-stats.csv", sep=r"\s+").rename(columns={"wid": "worker"})
    report = qc.worker_report(frame)
    merged = report.merge(trk, on="worker").merge(wrk, on="worker")
    return year, frame, report, merged, n_repro, n_workers, folder


def _reproducible(merged: pd.DataFrame) -> pd.DataFrame:
    return merged[merged["n_hits"] == merged["hit.count"]]


def test_reproducible_workers_are_identified(release):
    year, frame, report, merged, n_repro, n_workers, _ = release
    assert len(report) == n_workers == frame["worker"].nunique()
    repro = _reproducible(merged)
    assert len(repro) == n_repro
    # the rest judged more HITs than the release holds (other language pairs)
    rest = merged[merged["n_hits"] != merged["hit.count"]]
    assert (rest["hit.count"] > rest["n_hits"]).all()


def test_paired_t_reproduces_published_p_values(release):
    _, _, _, merged, _, _, _ = release
    repro = _reproducible(merged)
    np.testing.assert_array_equal(repro["n_pairs"].to_numpy(), repro["n_published"].to_numpy())
    # published with 7 significant digits; our t is oriented original - degraded (theirs bad - orig)
    np.testing.assert_allclose(repro["p_value"], repro["p"], rtol=2e-6)
    np.testing.assert_allclose(-repro["statistic"], repro["t"], rtol=2e-6)
    # every released worker passed QC in the organisers' pooled test
    assert (repro["p"] < 0.05).all() and repro["passed"].all()


def test_non_reproducible_rows_differ_because_of_missing_pairs(release):
    _, _, _, merged, _, _, _ = release
    rest = merged[merged["n_hits"] != merged["hit.count"]]
    assert (rest["n_pairs"] < rest["n_published"]).all()


def test_worker_statistics_match_wrkr_stats(release):
    _, _, _, merged, _, _, _ = release
    repro = _reproducible(merged)
    # published means are rounded to one decimal
    for ours, theirs in (("mean_bad_ref", "mean.bad.ref"), ("mean_system", "mean.sys.out"),
                         ("mean_ref", "mean.ref")):
        assert np.abs(repro[ours] - repro[theirs]).max() <= 0.05 + 1e-9, ours
    np.testing.assert_array_equal(repro["max_const_run"], repro["max.const.seq.len"])
    assert (repro["flags"].str.contains("constant-run") == (repro["seq.flag"] != "-")).all()
    assert (repro["flags"].str.contains("scores") == (repro["scores.flag"] != "-")).all()


def test_class_file_is_p_below_alpha(shared):
    folder = shared / "wmt22-toen-da"
    trk = pd.read_csv(folder / "ad-trk-stats.csv", sep=r"\s+", header=None, names=["worker", "p", "t", "n"])
    cls = pd.read_csv(folder / "ad-trk-stats.class", sep=r"\s+", header=None, names=["worker", "verdict"])
    both = trk.merge(cls, on="worker")
    assert len(both) == 1416
    assert ((both["p"] < 0.05) == (both["verdict"] == "good")).all()


def test_filter_keeps_all_rows_of_passing_workers(release):
    _, frame, _, _, _, _, _ = release
    kept, report = qc.filter_judgments(frame)
    good = set(report.loc[report["passed"], "worker"])
    assert set(kept["worker"]) == good
    assert len(kept) == (frame["worker"].isin(good)).sum()
    summary = qc.qc_summary(report)
    assert summary["judgments_kept"] == len(kept)
    assert summary["workers_kept"] == len(good)
    assert summary["judgments_total"] == len(frame)


def test_appraise_esa_qc(shared):
    frame = read_judgments(shared / "wmt24-esa" / "esa_generalMT2024_wave3.csv")
    report = qc.worker_report(frame, "mwu")
    assert len(report) == 112
    # Appraise's own check: mannwhitneyu(BAD, TGT, alternative="less") per annotator
    pairs = qc.qc_pairs(frame)
    bad = pairs[pairs["kind"] == "BAD_REF"]
    expected = {w: stats.mannwhitneyu(g["second"], g["first"], alternative="less").pvalue
                for w, g in bad.groupby("worker")}
    ours = report.set_index("worker")["p_value"]
    np.testing.assert_allclose(ours.loc[list(expected)].to_numpy(), list(expected.values()), rtol=1e-10)
    # every annotator separates the degraded copies clearly (mean gap of about 50 points)
    assert report["passed"].all()
    gap = report["mean_system"] - report["mean_bad_ref"]
    assert 40 < gap.median() < 65 and (gap > 10).all()
    assert report["p_repeat"].isna().all()  # no repeat items in ESA
    # the bad-ref-vs-repeat test (Graham et al. 2017) needs repeat pairs: every annotator fails with that reason
    r0 = qc.worker_report(frame, "bad-ref-vs-repeat")
    assert not r0["passed"].any() and (r0["reason"] == "no repeat pairs").all()
