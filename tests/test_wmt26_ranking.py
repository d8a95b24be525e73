"""The WMT26 ranking rule (protocol wmt26): Pearmut campaigns' independent numbers, scipy, clusters, CLI."""

from __future__ import annotations

import json
import shutil
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from leaderboard.cli import main
from leaderboard.human.wmt26 import (cluster_lines, cluster_numbers, cross_language_table, item_matrix,
                                     pair_tests, rank_pair, significance)
from leaderboard.ingest.pearmut_log import read_pearmut_log

CAMPAIGNS = ("taskbased", "dynamic")
LP = "eng_Latn-ces_Latn"


def expected(shared, name):
    return json.loads((shared / "pearmut" / name / "expected.json").read_text(encoding="utf-8"))


def check_against_expected(result: dict, want: dict) -> None:
    """Means exactly (the plain mean of item means), items, clusters, every pair's p-values and verdict."""
    got = [(s["system"], s["mean"], s["items"], s["cluster"]) for s in result["systems"]]
    assert got == [(s["system"], s["mean"], s["items"], s["cluster"]) for s in want["systems"]]
    pairs = {(p["a"], p["b"]): p for p in result["pairs"]}
    assert len(pairs) == len(want["pairs"])
    for p in want["pairs"]:
        mine = pairs[(p["a"], p["b"])]
        assert mine["significant"] == p["significant"]
        assert mine["common_items"] == p["common_items"]
        assert mine["p_paired"] == pytest.approx(p["p_paired"], rel=1e-9)
        assert mine["p_unpaired"] == pytest.approx(p["p_unpaired"], rel=1e-9)
        assert result["significantly_better"][p["a"]][p["b"]] is p["significant"]
        assert result["significantly_better"][p["b"]][p["a"]] is False  # a lower model is never better
    assert result["cluster_lines_after"] == want["cluster_lines_after"]


@pytest.mark.parametrize("name", CAMPAIGNS)
def test_pure_rule_reproduces_the_independent_numbers(shared, name):
    log = read_pearmut_log(shared / "pearmut" / name / "annotations.jsonl", lp=LP)
    check_against_expected(rank_pair(log.judgments, lp=LP).to_dict(), expected(shared, name)["wmt26"])


@pytest.mark.parametrize("name", CAMPAIGNS)
def test_mtlb_rank_json_contract(shared, tmp_path, capsys, name):
    want = expected(shared, name)
    # a log named by its campaign id, as Pearmut names it: the language pair comes from the id
    log = tmp_path / f"{want['campaign_id']}.jsonl"
    shutil.copy(shared / "pearmut" / name / "annotations.jsonl", log)
    code = main(["rank", str(log), "--input-format", "pearmut", "--protocol", "wmt26", "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["lp"] == LP and result["protocol"] == "wmt26"
    check_against_expected(result, want["wmt26"])
    for s in result["systems"]:  # the ranking table's own names agree with the rule's
        assert (s["ave"], s["n"]) == (s["mean"], s["items"])
    assert "test:wmt26-paired-or-unpaired-t" in result["signature"] and "qc:none" in result["signature"]


def test_rank_reads_the_pair_from_options(shared, capsys):
    log = shared / "pearmut" / "dynamic" / "annotations.jsonl"
    assert main(["rank", str(log), "--protocol", "wmt26", "--json", "--lp", LP]) == 0  # format detected
    by_lp = json.loads(capsys.readouterr().out)
    assert main(["rank", "--input", str(log), "--protocol", "wmt26", "--json",
                 "--campaign", "eng_Latn---ces_Latn v3"]) == 0
    by_campaign = json.loads(capsys.readouterr().out)
    assert by_lp["systems"] == by_campaign["systems"] and by_lp["lp"] == LP
    assert main(["rank", str(log), "--protocol", "wmt26", "--json"]) == 2
    err = capsys.readouterr().err
    assert "language pair of this log is unknown" in err and "--lp" in err and "annotations.jsonl" in err


def test_several_pairs_and_the_cross_language_table(shared, tmp_path, capsys):
    a = tmp_path / "eng_Latn---ces_Latn x.jsonl"
    b = tmp_path / "eng_Latn---arz_Arab x.jsonl"
    shutil.copy(shared / "pearmut" / "taskbased" / "annotations.jsonl", a)
    shutil.copy(shared / "pearmut" / "dynamic" / "annotations.jsonl", b)
    assert main(["rank", str(a), str(b), "--protocol", "wmt26", "--json", "--resamples", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["lp"] for r in out["rankings"]] == ["eng_Latn-arz_Arab", "eng_Latn-ces_Latn"]
    check_against_expected(out["rankings"][1], expected(shared, "taskbased")["wmt26"])
    check_against_expected(out["rankings"][0], expected(shared, "dynamic")["wmt26"])
    cross = out["cross_language"]
    means = {lp: {s["system"]: s["mean"] for s in expected(shared, k)["wmt26"]["systems"]}
             for lp, k in (("eng_Latn-ces_Latn", "taskbased"), ("eng_Latn-arz_Arab", "dynamic"))}
    pair_mean = {lp: np.mean(list(v.values())) for lp, v in means.items()}
    assert cross["lps"] == sorted(pair_mean, key=lambda lp: -pair_mean[lp])
    for row in cross["systems"]:
        for lp, value in row["means"].items():
            assert value == means[lp][row["system"]]
    overall = [np.mean([means[lp][r["system"]] for lp in means]) for r in cross["systems"]]
    assert overall == sorted(overall, reverse=True)
    assert main(["rank", str(a), str(b), "--protocol", "wmt26", "--resamples", "0"]) == 0
    text = capsys.readouterr().out
    assert "cluster lines after Aurora-MT, Borealis 2, Dunlin-7B" in text and "mean per language pair" in text


def random_matrix(rng, models=6, items=40, missing=0.35):
    m = rng.normal(60, 15, size=(models, items)) + np.arange(models)[:, None] * 3
    m[rng.random(m.shape) < missing] = np.nan  # unequal item sets
    return np.round(m, 1)


@pytest.mark.parametrize("seed", range(5))
def test_pair_tests_against_scipy(seed):
    rng = np.random.default_rng(seed)
    m = random_matrix(rng)
    m[0, :] = np.nan
    m[0, :3] = [50, 60, 70]  # a model with three items: few common ones with the others
    m[1, :] = m[2, :] + 5.0  # identical differences on every common item: t is infinite, p = 0
    m[3, :] = m[4, :]  # identical scores: the paired test is undefined
    tests = pair_tests(m)
    k = m.shape[0]
    for i in range(k):
        for j in range(k):
            if i == j:
                continue
            with warnings.catch_warnings():  # scipy warns on the degenerate pairs made above
                warnings.simplefilter("ignore")
                rel = stats.ttest_rel(m[i], m[j], nan_policy="omit").pvalue
                ind = stats.ttest_ind(m[i], m[j], nan_policy="omit").pvalue
            common = int((~np.isnan(m[i]) & ~np.isnan(m[j])).sum())
            assert tests.common[i, j] == common
            if np.isnan(rel):
                assert np.isnan(tests.paired[i, j]), (i, j)
            else:
                assert tests.paired[i, j] == pytest.approx(float(rel), rel=1e-9, abs=1e-300)
            if np.isnan(ind):
                assert np.isnan(tests.unpaired[i, j])
            else:
                assert tests.unpaired[i, j] == pytest.approx(float(ind), rel=1e-9, abs=1e-300)
    assert tests.paired[1, 2] == 0.0 and np.isnan(tests.paired[3, 4])


def test_fewer_than_two_common_items_is_no_paired_test():
    m = np.array([[80.0, 70, np.nan, np.nan], [np.nan, 60, 50, 40], [10, 20, 30, np.nan]])
    tests = pair_tests(m)
    assert tests.common[0, 1] == 1 and np.isnan(tests.paired[0, 1])
    assert not np.isnan(tests.unpaired[0, 1])  # the unpaired test still decides
    assert tests.unpaired[0, 1] == pytest.approx(stats.ttest_ind(m[0], m[1], nan_policy="omit").pvalue)


def test_cluster_lines_need_every_model_above_to_beat_every_model_below():
    sig = np.zeros((4, 4), dtype=bool)
    sig[0, 1:] = True           # 1 beats all
    sig[1, 3] = sig[2, 3] = True  # 2 and 3 beat 4, but not each other
    assert cluster_lines(sig).tolist() == [True, False, True, False]
    assert cluster_numbers(cluster_lines(sig)).tolist() == [1, 2, 2, 3]
    sig[1, 3] = False  # 2 no longer beats 4: no line after 3
    assert cluster_lines(sig).tolist() == [True, False, False, False]


def test_either_test_makes_a_pair_significant():
    rng = np.random.default_rng(3)
    base = rng.normal(50, 20, 30)
    # a small constant gain on every item: the paired test sees it, the unpaired one does not
    m = np.vstack([base + 2 + rng.normal(0, 0.5, 30), base])
    tests = pair_tests(m)
    assert tests.paired[0, 1] < 0.05 < tests.unpaired[0, 1]
    assert significance(tests)[0, 1] and not significance(tests)[1, 0]
    # disjoint item sets: only the unpaired test can decide
    m = np.full((2, 60), np.nan)
    m[0, :30], m[1, 30:] = rng.normal(80, 5, 30), rng.normal(40, 5, 30)
    tests = pair_tests(m)
    assert np.isnan(tests.paired[0, 1]) and tests.unpaired[0, 1] < 1e-10 and significance(tests)[0, 1]


def test_item_scores_average_several_annotations():
    frame = pd.DataFrame({"system": ["A", "A", "A", "B", "B"], "segment": ["1", "1", "2", "1", "3"],
                          "raw": [90.0, 70.0, 60.0, 50.0, 40.0]})
    models, items, m = item_matrix(frame)
    assert models == ["A", "B"] and items == ["1", "2", "3"]
    np.testing.assert_array_equal(m, [[80.0, 60.0, np.nan], [50.0, np.nan, 40.0]])
    ranking = rank_pair(frame)
    assert ranking.systems["mean"].tolist() == [70.0, 45.0]
    assert ranking.systems["items"].tolist() == [2, 2] and ranking.systems["annotations"].tolist() == [3, 2]


def test_cross_language_table_orders_pairs_and_models():
    table = cross_language_table({"a-b": {"X": 80.0, "Y": 60.0}, "c-d": {"X": 90.0, "Z": 95.0}})
    assert list(table.columns) == ["c-d", "a-b"]  # pair means 92.5 and 70
    assert list(table.index) == ["Z", "X", "Y"]   # model means 95, 85, 60
    assert np.isnan(table.loc["Y", "c-d"]) and table.loc["X", "a-b"] == 80.0


def test_ingested_log_publishes_the_wmt26_ranking(shared, tmp_path, capsys, monkeypatch):
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    monkeypatch.setenv("MTLB_PASSWORD", "organiser-password")
    assert main(["user", "add", "org", "--role", "organiser", "--database-url", url]) == 0
    log = tmp_path / "eng_Latn---ces_Latn sample-dynamic.jsonl"
    shutil.copy(shared / "pearmut" / "dynamic" / "annotations.jsonl", log)
    assert main(["ingest", str(log), "--campaign", "wmt26", "--database-url", url]) == 0
    assert main(["publish", "--campaign", "wmt26", "--lp", LP, "--assessment", "cesa", "--protocol", "wmt26",
                 "--user", "org", "--database-url", url]) == 0
    capsys.readouterr()
    assert main(["published", "--campaign", "wmt26", "--lp", LP, "--assessment", "cesa", "--format", "json",
                 "--database-url", url]) == 0
    snapshot = json.loads(capsys.readouterr().out)
    ranking = snapshot.get("ranking", snapshot)
    check_against_expected(ranking, expected(shared, "dynamic")["wmt26"])
