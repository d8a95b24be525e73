"""Standardisation options and system scores on small hand-made frames (+ the release's files)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from leaderboard.errors import InputError
from leaderboard.ingest import read_judgments
from leaderboard.ingest.wmt_release import read_worker_stats
from leaderboard.human.ranking import rank_judgments
from leaderboard.human.scores import segment_scores, system_scores_from_segments
from leaderboard.human.standardise import worker_stats, worker_z


def frame_of(rows) -> pd.DataFrame:
    """rows: (worker, system, segment, item_type, raw[, lp])"""
    out = []
    for r in rows:
        worker, system, segment, item_type, raw = r[:5]
        lp = r[5] if len(r) > 5 else "xx-en"
        out.append({"campaign": "t", "lp": lp, "assessment": "adequacy", "worker": worker, "hit": f"H{worker}",
                    "position": len(out) + 1, "segment": segment, "system": system, "item_type": item_type,
                    "raw": float(raw), "z": np.nan, "seconds": np.nan, "doc": pd.NA})
    return pd.DataFrame(out)


def test_worker_z_uses_sample_sd_per_worker_and_lp():
    f = frame_of([("a", "S", "1", "SYSTEM", 10), ("a", "S", "2", "SYSTEM", 20), ("a", "T", "1", "SYSTEM", 60),
                  ("b", "S", "1", "SYSTEM", 50), ("b", "T", "1", "SYSTEM", 70),
                  ("a", "S", "1", "SYSTEM", 90, "yy-en"), ("a", "T", "1", "SYSTEM", 100, "yy-en")])
    z = worker_z(f)
    a = np.array([10, 20, 60.0])
    np.testing.assert_allclose(z[:3], (a - a.mean()) / a.std(ddof=1))
    np.testing.assert_allclose(z[3:5], [-1 / np.sqrt(2), 1 / np.sqrt(2)])
    np.testing.assert_allclose(z[5:], [-1 / np.sqrt(2), 1 / np.sqrt(2)])  # own mean/sd in yy-en


def test_exclude_ref_and_bad_ref_from_mean_and_sd():
    f = frame_of([("a", "S", "1", "SYSTEM", 40), ("a", "S", "2", "SYSTEM", 60), ("a", "S", "3", "REF", 100),
                  ("a", "S", "4", "BAD_REF", 0)])
    z = worker_z(f, exclude_ref=True)
    base = np.array([40, 60, 0.0])
    m, s = base.mean(), base.std(ddof=1)
    np.testing.assert_allclose(z, (np.array([40, 60, 100, 0]) - m) / s)  # REF still gets a z
    z2 = worker_z(f, exclude_ref=True, exclude_bad_ref=True)
    np.testing.assert_allclose(z2, (np.array([40, 60, 100, 0]) - 50) / np.std([40, 60], ddof=1))


def test_zero_sd_drop_or_divide_by_one():
    f = frame_of([("a", "S", "1", "SYSTEM", 70), ("a", "T", "1", "SYSTEM", 70),  # constant worker
                  ("b", "S", "1", "SYSTEM", 30), ("b", "T", "1", "SYSTEM", 80),
                  ("c", "S", "2", "SYSTEM", 55)])                                # single judgment
    dropped = worker_z(f)
    assert np.isnan(dropped[[0, 1, 4]]).all() and np.isfinite(dropped[[2, 3]]).all()
    one = worker_z(f, zero_sd="one")
    np.testing.assert_allclose(one, [0, 0, dropped[2], dropped[3], 0])
    with pytest.raises(ValueError):
        worker_z(f, zero_sd="keep")


def test_ranking_drops_constant_workers_by_default():
    f = frame_of([("a", "S", "1", "SYSTEM", 70), ("a", "T", "1", "SYSTEM", 70),
                  ("b", "S", "1", "SYSTEM", 30), ("b", "T", "1", "SYSTEM", 80),
                  ("b", "S", "2", "SYSTEM", 40), ("b", "T", "2", "SYSTEM", 90)])
    (drop,) = rank_judgments(f, standardise="worker")
    assert sum(s["n_all"] for s in drop["systems"]) == 4
    assert "std:worker-sd0drop" in drop["signature"]
    (one,) = rank_judgments(f, standardise="worker", zero_sd="one")
    assert sum(s["n_all"] for s in one["systems"]) == 6 and "std:worker-sd0one" in one["signature"]


def test_repeats_are_averaged_per_segment_before_systems():
    f = frame_of([("a", "S", "1", "SYSTEM", 10), ("a", "S", "1", "REPEAT", 30), ("b", "S", "1", "SYSTEM", 50),
                  ("a", "S", "2", "SYSTEM", 90), ("a", "S", "2", "REF", 0), ("b", "S", "3", "BAD_REF", 0),
                  ("a", "T", "1", "SYSTEM", 60)])
    f["z"] = np.arange(len(f), dtype=float)
    seg = segment_scores(f).set_index(["system", "segment"])
    assert seg.loc[("S", "1"), "raw"] == pytest.approx(30) and seg.loc[("S", "1"), "n"] == 3
    assert seg.loc[("S", "1"), "z"] == pytest.approx(1.0)
    assert ("S", "3") not in seg.index  # BAD_REF and REF never count
    table = system_scores_from_segments(segment_scores(f)).set_index("system")
    assert table.loc["S", "ave"] == pytest.approx((30 + 90) / 2)       # not (10+30+50+90)/4
    assert table.loc["S", "ave_z"] == pytest.approx((1.0 + 3.0) / 2)
    assert (table.loc["S", "n"], table.loc["S", "n_all"]) == (2, 4)


def test_keep_needs_z_and_worker_needs_raw():
    f = frame_of([("a", "S", "1", "SYSTEM", 10), ("a", "T", "1", "SYSTEM", 30)])
    with pytest.raises(InputError):
        rank_judgments(f, standardise="keep")
    g = f.assign(z=[-1.0, 1.0], raw=np.nan)
    with pytest.raises(InputError):
        rank_judgments(g, standardise="worker")
    with pytest.raises(InputError):
        rank_judgments(g, protocol="wmt23-raw")


def test_qc_hook_is_called_lazily(monkeypatch):
    import leaderboard.human.qc as qc
    calls = []

    def fake(frame, method="x", alpha=0.05, **kw):
        calls.append((method, alpha))
        return frame[frame["worker"] != "a"], pd.DataFrame()

    monkeypatch.setattr(qc, "filter_judgments", fake)
    f = frame_of([("a", "S", "1", "SYSTEM", 10), ("a", "T", "1", "SYSTEM", 90),
                  ("b", "S", "1", "SYSTEM", 70), ("b", "T", "1", "SYSTEM", 20)])
    (r,) = rank_judgments(f, qc="auto", qc_alpha=0.01)
    assert calls == [(getattr(qc, "DEFAULT_METHOD", "x"), 0.01)]
    assert [s["system"] for s in r["systems"]] == ["S", "T"]  # only worker b left
    assert "qc:" in r["signature"] and "@0.01" in r["signature"]
    (r2,) = rank_judgments(f, qc="release")
    assert len(calls) == 1 and "qc:release" in r2["signature"]


def test_release_no_refs_file_is_system_and_repeat_items(shared):
    """The release's -no-refs mean/sd leaves out both REF and BAD_REF items."""
    d = shared / "wmt22-toen-da"
    f = read_judgments(d / "ad-lven-good-stnd.csv", worker_stats=d / "ad-lven-trk-mean-sd.txt")
    published = read_worker_stats(str(d / "ad-lven-trk-mean-sd-no-refs.txt"))
    ours = worker_stats(f, exclude_ref=True, exclude_bad_ref=True).set_index("worker")
    both = ours.merge(published, left_index=True, right_index=True, suffixes=("", "_pub"))
    assert len(both) == f["worker"].nunique()
    np.testing.assert_allclose(both["mean"], both["mean_pub"], rtol=1e-6, atol=1e-4)
    np.testing.assert_allclose(both["sd"], both["sd_pub"], rtol=1e-6, atol=1e-4)
    # and with all items it is the main mean/sd file, whose z the release publishes
    z = worker_z(f)
    np.testing.assert_allclose(z, f["z"], atol=1e-4)
