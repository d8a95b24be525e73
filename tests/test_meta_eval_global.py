"""`mtlb meta-eval` over several language pairs (global ranking, WMT23 task set), system selection,
reference points and bad inputs, on the newstest2020 zh-en MQM sample split into two pairs."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest

from leaderboard.cli import main

SEG_COLUMNS = ["metric", "lp", "testset", "system", "segment", "score"]


@pytest.fixture(scope="module")
def two_pairs(shared, tmp_path_factory):
    """The sample's segments 1801-1900 stay zh-en, 1901-2000 become 'xx-en'; chrF is left out of xx-en."""
    folder = shared / "mtme-parity-sample"
    if not folder.exists():
        pytest.skip("the mt-metrics-eval parity sample is not available")
    out = tmp_path_factory.mktemp("two-pairs")
    human = pd.read_csv(folder / "human.csv")
    human.loc[human["segment"] > 1900, "lp"] = "xx-en"
    human.to_csv(out / "human.csv", index=False)
    seg = pd.read_csv(folder / "seg.tsv", sep="\t", header=None, names=SEG_COLUMNS)
    seg.loc[seg["segment"] > 1900, "lp"] = "xx-en"
    seg = seg[~((seg["lp"] == "xx-en") & (seg["metric"] == "chrF"))]
    seg.to_csv(out / "seg.tsv", sep="\t", header=False, index=False)
    return out, human, seg


def command(folder, *extra, lps=("zh-en", "xx-en"), draws=200):
    return ["meta-eval", "--human", folder / "human.csv", "--human-format", "canonical", "--human-score", "z",
            "--metric-scores", folder / "seg.tsv", "--lp", *lps, "--draws", draws, *extra]


def run(capsys, argv) -> dict:
    capsys.readouterr()
    code = main([*map(str, argv), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def fail(capsys, argv) -> str:
    capsys.readouterr()
    code = main([*map(str, argv), "--json"])
    err = capsys.readouterr().err
    assert code == 2, err
    return err


def matrices(human, seg, lp, metric):
    h = human[human["lp"] == lp].pivot(index="system", columns="segment", values="z")
    m = seg[(seg["lp"] == lp) & (seg["metric"] == metric)].pivot(index="system", columns="segment", values="score")
    return h.to_numpy(), m.reindex(index=h.index, columns=h.columns).to_numpy()


def literal_acc_eq(human, metric):
    """acc_eq read literally: every candidate ε in turn (numpy inside), the first maximum wins."""
    i, j = np.triu_indices(human.shape[0], k=1)
    dh, dm = (human[i] - human[j]).T.ravel(), (metric[i] - metric[j]).T.ravel()
    item = np.repeat(np.arange(human.shape[1]), len(i))
    best, best_eps = -1.0, None
    for eps in np.unique(np.concatenate([[0.0], np.abs(dm)])):
        tie_h, tie_m = dh == 0, np.abs(dm) <= eps
        agree = (tie_h & tie_m) | (~tie_h & ~tie_m & (np.sign(dh) == np.sign(dm)))
        value = (np.bincount(item, weights=agree) / np.bincount(item)).mean()
        if value > best + 1e-12:
            best, best_eps = value, eps
    return best, best_eps


def test_global_ranking_over_two_pairs(two_pairs, capsys):
    folder, human, seg = two_pairs
    out = run(capsys, command(folder))
    assert [r["lp"] for r in out["lps"]] == ["zh-en", "xx-en"]
    assert [t["task"] for t in out["tasks"]] == ["zh-en/spa", "zh-en/acc_eq", "xx-en/spa", "xx-en/acc_eq"]
    assert all(t["weight"] == 0.25 for t in out["tasks"])
    # per pair: acc_eq on that pair's own segments, as the literal rule computes it
    for pair in out["lps"]:
        row = next(r for r in pair["metrics"] if r["metric"] == "BAQ_dyn")
        value, eps = literal_acc_eq(*matrices(human, seg, pair["lp"], "BAQ_dyn"))
        assert row["acc_eq"] == pytest.approx(value, abs=1e-12) and row["epsilon"] == eps
        assert pair["n_segments"] == 100 and set(pair["pvalues"]) == {"acc_eq", "spa"}
    scores = {(p["lp"], r["metric"]): r for p in out["lps"] for r in p["metrics"]}
    ranked = [r for r in out["global_ranking"] if r["complete"]]
    assert {r["metric"] for r in ranked} == {"BAQ_dyn", "SWSS+METEOR", "TER", "YiSi-2"}
    for r in ranked:
        want = np.mean([scores[(lp, r["metric"])][s] for lp in ("zh-en", "xx-en") for s in ("spa", "acc_eq")])
        assert r["avg_score"] == pytest.approx(want, abs=1e-12)
    assert [r["avg_score"] for r in ranked] == sorted((r["avg_score"] for r in ranked), reverse=True)
    apart = [r for r in out["global_ranking"] if not r["complete"]]
    assert apart == [{"metric": "chrF", "avg_score": None, "avg_rank": None, "complete": False,
                      "global_cluster": None, "global_rank": None, "tasks": 2, "missing": ["xx-en/spa", "xx-en/acc_eq"],
                      "kind": "baseline"}]
    # p-values for every complete pair in ranking order, and the clusters follow them (≤ alpha)
    names = [r["metric"] for r in ranked]
    for a, b in itertools.combinations(names, 2):
        assert 0.0 <= out["global_pvalues"][a][b] <= 1.0
    assert ranked[0]["global_cluster"] == 1
    assert "chrF" not in out["global_pvalues"]


def test_a_copy_of_a_metric_is_never_significantly_different(two_pairs, tmp_path, capsys):
    folder, human, seg = two_pairs
    copy = seg[seg["metric"] == "TER"].assign(metric="TER-copy")
    pd.concat([seg, copy]).to_csv(tmp_path / "seg.tsv", sep="\t", header=False, index=False)
    human.to_csv(tmp_path / "human.csv", index=False)
    out = run(capsys, command(tmp_path, draws=200))
    assert out["global_pvalues"]["TER"]["TER-copy"] == 1.0
    rows = {r["metric"]: r for r in out["global_ranking"]}
    assert rows["TER"]["global_cluster"] == rows["TER-copy"]["global_cluster"]
    for pair in out["lps"]:
        assert pair["pvalues"]["acc_eq"]["TER"]["TER-copy"] == 1.0 and pair["pvalues"]["spa"]["TER"]["TER-copy"] == 1.0


def test_wmt23_task_set(two_pairs, capsys):
    folder, human, seg = two_pairs
    out = run(capsys, command(folder, "--task-set", "wmt23", draws=200))
    weights = {t["task"]: t["weight"] for t in out["tasks"]}
    assert weights["all/sys_accuracy"] == pytest.approx(2 / 8)          # weight = number of pairs, normalised
    assert weights["zh-en/sys_pearson"] == pytest.approx(1 / 8) and len(weights) == 7
    assert set(out["lps"][0]["pvalues"]) == {"sys_pearson", "seg_pearson", "acc_eq"}
    # pooled system accuracy: Σ agreeing pairs / Σ pairs of the system means over both pairs, by hand
    agree = total = 0
    for lp in ("zh-en", "xx-en"):
        h, m = matrices(human, seg, lp, "TER")
        hs, ms = h.mean(axis=1), m.mean(axis=1)
        for i, j in itertools.combinations(range(len(hs)), 2):
            agree += np.sign(hs[i] - hs[j]) == np.sign(ms[i] - ms[j])
            total += 1
    rows = {r["metric"]: r for r in out["lps"][0]["metrics"]}
    h, m = matrices(human, seg, "zh-en", "TER")
    assert rows["TER"]["seg_pearson"] == pytest.approx(np.corrcoef(h.ravel(), m.ravel())[0, 1], abs=1e-12)
    assert rows["TER"]["sys_pearson"] == pytest.approx(np.corrcoef(h.mean(axis=1), m.mean(axis=1))[0, 1], abs=1e-12)
    ter = next(r for r in out["global_ranking"] if r["metric"] == "TER")
    want = (sum((scores + 1) / 2 for scores in (
        rows["TER"]["sys_pearson"], rows["TER"]["seg_pearson"],
        *[next(r for r in out["lps"][1]["metrics"] if r["metric"] == "TER")[k] for k in ("sys_pearson", "seg_pearson")]))
        + rows["TER"]["acc_eq"] + next(r for r in out["lps"][1]["metrics"] if r["metric"] == "TER")["acc_eq"]
        + 2 * agree / total) / 8
    assert ter["avg_score"] == pytest.approx(want, abs=1e-12)


def test_human_translations_reference_and_second_human(two_pairs, tmp_path, capsys):
    folder, human, seg = two_pairs
    out = run(capsys, command(folder, "--human-translations", "Human-B.0", lps=("zh-en",), draws=50))
    assert out["n_systems"] == 8 and "Human-B.0" not in out["systems"]
    assert out["excluded_systems"]["human_translations"] == ["Human-B.0"]
    out = run(capsys, command(folder, "--human-translations", "Human-B.0", "--include-human", lps=("zh-en",), draws=50))
    assert out["n_systems"] == 9
    out = run(capsys, command(folder, "--reference", "Human-B.0", "--include-human", lps=("zh-en",), draws=50))
    assert out["n_systems"] == 8 and out["excluded_systems"]["reference"] == ["Human-B.0"]
    # a second rating of the same outputs enters as a metric: the human ceiling
    rng = np.random.default_rng(0)
    second = human.assign(z=human["z"] + rng.normal(scale=1.0, size=len(human)))
    second.to_csv(tmp_path / "second.csv", index=False)
    out = run(capsys, command(folder, "--second-human", tmp_path / "second.csv", lps=("zh-en",), draws=50))
    rows = {r["metric"]: r for r in out["metrics"]}
    assert rows["human-2"]["kind"] == "human" and out["reference_points"]["human_ceiling"] == ["human-2"]
    assert rows["human-2"]["acc_eq"] > max(r["acc_eq"] for n, r in rows.items() if n != "human-2")


def test_sentinels_and_declared_baselines_are_marked(two_pairs, tmp_path, capsys):
    folder, human, seg = two_pairs
    renamed = seg.replace({"metric": {"YiSi-2": "sentinel-cand-mqm"}})
    renamed.to_csv(tmp_path / "seg.tsv", sep="\t", header=False, index=False)
    human.to_csv(tmp_path / "human.csv", index=False)
    out = run(capsys, command(tmp_path, "--baselines", "BAQ_dyn", lps=("zh-en",), draws=50))
    kinds = {r["metric"]: r["kind"] for r in out["metrics"]}
    assert kinds["sentinel-cand-mqm"] == "sentinel" and kinds["BAQ_dyn"] == "baseline"
    assert out["reference_points"]["sentinels"] == ["sentinel-cand-mqm"]
    assert {c["metric"]: c["kind"] for c in out["clusters"]["spa"]} == kinds


def test_bad_inputs_name_file_line_and_column(two_pairs, tmp_path, capsys):
    folder, human, seg = two_pairs
    human.to_csv(tmp_path / "human.csv", index=False)
    path = tmp_path / "seg.tsv"
    # a metric without one system
    seg[~((seg["metric"] == "TER") & (seg["system"] == "OPPO.1422"))].to_csv(path, sep="\t", header=False, index=False)
    err = fail(capsys, command(tmp_path, lps=("zh-en",)))
    first_ter = int(np.flatnonzero(seg[~((seg["metric"] == "TER") & (seg["system"] == "OPPO.1422"))]["metric"]
                                   .to_numpy() == "TER")[0]) + 1
    assert f"{path}, line {first_ter}, column 'system'" in err and "OPPO.1422" in err and "'TER'" in err
    # a metric without some segments
    seg[~((seg["metric"] == "BAQ_dyn") & (seg["segment"] == 1850))].to_csv(path, sep="\t", header=False, index=False)
    err = fail(capsys, command(tmp_path, lps=("zh-en",)))
    assert "column 'segment'" in err and "'BAQ_dyn'" in err and "9 rated" in err and "segment 1850" in err
    # a NaN score
    bad = seg.astype({"score": object})
    bad.iloc[5, 5] = "nan"
    bad.to_csv(path, sep="\t", header=False, index=False)
    err = fail(capsys, command(tmp_path, lps=("zh-en",)))
    assert f"{path}, line 6, column 'score'" in err
    # a pair the human file does not have
    seg.assign(lp="de-en").to_csv(path, sep="\t", header=False, index=False)
    err = fail(capsys, command(tmp_path, lps=("de-en",)))
    assert f"{tmp_path / 'human.csv'}" in err and "column 'lp'" in err and "de-en" in err
