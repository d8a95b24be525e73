"""`rank_judgments` against the published WMT21 / WMT22 into-English DA tables.

Expected values are parsed from the organisers' files (ad-sys-scores-*, adwilcox-*, clusters.csv,
ad-seg-scores-*); nothing is copied from the code under test.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from leaderboard.ingest import read_judgments
from leaderboard.human.ranking import rank_judgments
from leaderboard.human.scores import segment_scores, system_scores_from_segments
from leaderboard.human.significance import mwu_greater_matrix

PLACEHOLDER = 0.12  # adwilcox-*: "not tested / not significant in this direction"


@lru_cache(maxsize=None)
def _frame(folder: str, code: str) -> pd.DataFrame:
    d = Path(folder)
    return read_judgments(d / f"ad-{code}-good-stnd.csv", worker_stats=d / f"ad-{code}-trk-mean-sd.txt")


def load(shared: Path, year: str, lp: str) -> pd.DataFrame:
    return _frame(str(shared / f"{year}-toen-da"), lp.replace("-", ""))


@lru_cache(maxsize=None)
def _ranking(folder: str, code: str) -> dict:
    (r,) = rank_judgments(_frame(folder, code))
    return r


def ranking(shared: Path, year: str, lp: str) -> dict:
    return _ranking(str(shared / f"{year}-toen-da"), lp.replace("-", ""))


def published_scores(shared: Path, year: str, lp: str) -> pd.DataFrame:
    t = pd.read_csv(shared / f"{year}-toen-da" / f"ad-sys-scores-{lp}.csv", sep=r"\s+")
    return t.set_index("SYS")


def published_clusters(shared: Path, year: str, lp: str) -> pd.DataFrame:
    t = pd.read_csv(shared / f"{year}-toen-da" / "clusters.csv", sep=r"\s+")
    src, trg = lp.split("-")
    t = t[(t["SRC"] == src) & (t["TRG"] == trg)].reset_index(drop=True)
    t["END_OF_CLUSTER"] = t["END_OF_CLUSTER"].astype(str) == "True"
    return t


def published_pvalues(shared: Path, year: str, lp: str) -> list[tuple[str, str, float]]:
    w = pd.read_csv(shared / f"{year}-toen-da" / f"adwilcox-{lp.replace('-', '')}.csv", sep=r"\s+", index_col=0)
    return [(a, b, float(w.loc[a, b])) for a in w.index for b in w.columns
            if a != b and float(w.loc[a, b]) != PLACEHOLDER]


def systems_frame(r: dict) -> pd.DataFrame:
    return pd.DataFrame(r["systems"]).set_index("system")


def check_clusters(r: dict, pub: pd.DataFrame) -> None:
    """Order, wins, cluster spans and cluster ends as in clusters.csv."""
    assert [s["system"] for s in r["systems"]] == pub["SYSTEM"].tolist()
    assert [s["wins"] for s in r["systems"]] == pub["WINS"].tolist()
    assert all(len(r["systems"]) == t for t in pub["TOTAL"])
    assert [s["cluster_start"] for s in r["systems"]] == pub["CLUSTER_START"].tolist()
    assert [s["cluster_end"] for s in r["systems"]] == pub["CLUSTER_END"].tolist()
    ends = [a["cluster"] != b["cluster"] for a, b in zip(r["systems"], r["systems"][1:])] + [True]
    assert ends == pub["END_OF_CLUSTER"].tolist()


def check_pvalues(r: dict, published: list[tuple[str, str, float]], rel: float = 0.02) -> None:
    assert len(published) > 0
    for a, b, p in published:
        assert r["pvalues"][a][b] == pytest.approx(p, rel=rel), (a, b)


EXACT = [("wmt22", "cs-en"), ("wmt22", "lv-en"), ("wmt21", "cs-en")]


@pytest.mark.parametrize("year,lp", EXACT)
def test_system_scores_reproduce_published(shared, year, lp):
    r = ranking(shared, year, lp)
    ours = systems_frame(r)
    pub = published_scores(shared, year, lp)
    assert sorted(ours.index) == sorted(pub.index)
    pub = pub.loc[ours.index]
    np.testing.assert_allclose(ours["ave"], pub["RAW.SCR"], rtol=0, atol=1e-6)
    np.testing.assert_allclose(ours["ave_z"], pub["Z.SCR"], rtol=0, atol=1e-6)
    assert (ours["n"] == pub["N"]).all()
    assert (ours["n_all"] == pub["N.ALL"]).all()
    # ordered by Ave z
    assert list(ours["ave_z"]) == sorted(ours["ave_z"], reverse=True)


@pytest.mark.parametrize("year,lp", EXACT + [("wmt21", "de-en")])
def test_pvalues_and_clusters_reproduce_published(shared, year, lp):
    r = ranking(shared, year, lp)
    check_pvalues(r, published_pvalues(shared, year, lp))
    check_clusters(r, published_clusters(shared, year, lp))
    # every ordered pair is present
    names = [s["system"] for s in r["systems"]]
    assert all(set(r["pvalues"][a]) == set(names) - {a} for a in names)
    # rank ranges: top = 1 + losses, bottom = N - wins (losses recounted from the p-values)
    n = len(names)
    for s in r["systems"]:
        losses = sum(r["pvalues"][b][s["system"]] < 0.05 for b in names if b != s["system"])
        assert (s["rank_lo"], s["rank_hi"]) == (1 + losses, n - s["wins"])


def test_wmt21_deen_scores_and_the_release_gap(shared):
    """WMT21 de-en: Ave z and N exact; Ave / N.ALL exact except where the table counts judgments
    the release lacks. Those show in ad-seg-scores-de-en.csv as segments with doubled N and halved
    raw but the same z (copies with raw 0); rebuilding Ave / N.ALL from that file reproduces the
    table, so the gap is in the data, not the method."""
    r = ranking(shared, "wmt21", "de-en")
    ours = systems_frame(r)
    pub = published_scores(shared, "wmt21", "de-en").loc[ours.index]
    np.testing.assert_allclose(ours["ave_z"], pub["Z.SCR"], rtol=0, atol=1e-6)
    assert (ours["n"] == pub["N"]).all()

    seg = segment_scores(load(shared, "wmt21", "de-en"))
    pseg = pd.read_csv(shared / "wmt21-toen-da" / "ad-seg-scores-de-en.csv", sep=r"\s+", dtype={"SID": str})
    m = pseg.merge(seg, left_on=["SYS", "SID"], right_on=["system", "segment"], how="outer", indicator=True)
    assert (m["_merge"] == "both").all()
    np.testing.assert_allclose(m["Z.SCR"], m["z"], atol=1e-6)
    differ = m[m["N"] != m["n"]]
    assert len(differ) > 0
    assert (differ["N"] == 2 * differ["n"]).all()
    np.testing.assert_allclose(differ["RAW.SCR"], differ["raw"] / 2, atol=1e-6)
    affected = set(differ["SYS"])
    good = [s for s in ours.index if s not in affected]
    np.testing.assert_allclose(ours.loc[good, "ave"], pub.loc[good, "RAW.SCR"], atol=1e-6)
    assert (ours.loc[good, "n_all"] == pub.loc[good, "N.ALL"]).all()
    bad = sorted(affected)
    assert (ours.loc[bad, "n_all"] < pub.loc[bad, "N.ALL"]).all()
    rebuilt = pseg.groupby("SYS").agg(ave=("RAW.SCR", "mean"), n_all=("N", "sum")).loc[bad]
    np.testing.assert_allclose(rebuilt["ave"], pub.loc[bad, "RAW.SCR"], atol=1e-6)
    assert (rebuilt["n_all"] == pub.loc[bad, "N.ALL"]).all()


def test_wmt21_deen_strict_rule_differs(shared):
    """The strict reading of the Findings text would not end the top cluster after UF.15."""
    (strict,) = rank_judgments(load(shared, "wmt21", "de-en"), cluster_rule="strict")
    pub = published_clusters(shared, "wmt21", "de-en")
    ends = [a["cluster"] != b["cluster"] for a, b in zip(strict["systems"], strict["systems"][1:])] + [True]
    assert ends != pub["END_OF_CLUSTER"].tolist()
    assert strict["signature"].count("clusters:strict") == 1


def test_wmt22_deen_clusters_and_the_release_gap(shared):
    """WMT22 de-en: the release lacks judgments behind the published table.

    Found by comparing ad-seg-scores-de-en.csv with the release: every (system, segment) of the
    release appears there with identical raw, z and N; in addition the published file has 65
    (system, segment) rows (73 judgments; Lan-Bridge.1 11 segments, Online-G.7 21, Online-Y.3 17,
    ...) with RAW.SCR = 0 and Z.SCR = 0 exactly, in segment ranges the release does not hold for
    those systems — placeholder judgments that entered the published means. So N / N.ALL of
    those systems are short by those counts, Ave z differs by < 0.002 and Ave by < 1, the
    clusters and wins are the same; adding the zero rows back reproduces the table exactly.
    """
    frame = load(shared, "wmt22", "de-en")
    r = ranking(shared, "wmt22", "de-en")
    check_clusters(r, published_clusters(shared, "wmt22", "de-en"))
    ours = systems_frame(r)
    pub = published_scores(shared, "wmt22", "de-en").loc[ours.index]
    np.testing.assert_allclose(ours["ave_z"], pub["Z.SCR"], atol=0.002)

    seg = segment_scores(frame)
    pseg = pd.read_csv(shared / "wmt22-toen-da" / "ad-seg-scores-de-en.csv", sep=r"\s+", dtype={"SID": str})
    m = pseg.merge(seg, left_on=["SYS", "SID"], right_on=["system", "segment"], how="left", indicator=True)
    both = m[m["_merge"] == "both"]
    np.testing.assert_allclose(both["Z.SCR"], both["z"], atol=1e-6)
    np.testing.assert_allclose(both["RAW.SCR"], both["raw"], atol=1e-6)
    assert (both["N"] == both["n"]).all()
    extra = m[m["_merge"] == "left_only"]
    assert 0 < len(extra) < 100
    assert (extra["RAW.SCR"] == 0).all() and (extra["Z.SCR"] == 0).all()
    assert (pub["N"] - ours["n"]).to_dict() == extra.groupby("SYS").size().reindex(ours.index, fill_value=0).to_dict()

    padded = pd.concat([seg, pd.DataFrame({"system": extra["SYS"], "segment": extra["SID"], "raw": 0.0,
                                           "z": 0.0, "n": extra["N"]})], ignore_index=True)
    table = system_scores_from_segments(padded).set_index("system").loc[ours.index]
    np.testing.assert_allclose(table["ave"], pub["RAW.SCR"], atol=1e-6)
    np.testing.assert_allclose(table["ave_z"], pub["Z.SCR"], atol=1e-6)
    assert (table["n"] == pub["N"]).all() and (table["n_all"] == pub["N.ALL"]).all()
    names = table.sort_values("ave_z", ascending=False).index.tolist()
    p = mwu_greater_matrix([padded.loc[padded["system"] == s, "z"].to_numpy() for s in names])
    for a, b, expected in published_pvalues(shared, "wmt22", "de-en"):
        assert p[names.index(a), names.index(b)] == pytest.approx(expected, rel=0.02)


def test_recomputed_z_gives_the_same_ranking(shared):
    """standardise='worker' (z from reconstructed raw) reproduces the release's z-based ranking."""
    frame = load(shared, "wmt22", "lv-en")
    (given,) = rank_judgments(frame, standardise="keep")
    (worker,) = rank_judgments(frame, standardise="worker")
    assert [s["system"] for s in given["systems"]] == [s["system"] for s in worker["systems"]]
    assert [s["cluster"] for s in given["systems"]] == [s["cluster"] for s in worker["systems"]]
    np.testing.assert_allclose([s["ave_z"] for s in worker["systems"]],
                               [s["ave_z"] for s in given["systems"]], atol=1e-5)
    assert "std:given" in given["signature"] and "std:worker-sd0drop" in worker["signature"]
