"""`mtlb meta-eval` and `mtlb mqm-baselines` end to end on the TED en-de MQM release."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import sacrebleu

from leaderboard.cli import main
from leaderboard.ingest.mqm import read_mqm
from leaderboard.expert.scoring import segment_scores
from metrics.metaeval.acc_eq import acc_eq


@pytest.fixture(scope="module")
def seg_tsv(shared, tmp_path_factory):
    out = tmp_path_factory.mktemp("meta") / "ted.seg.tsv"
    assert main(["mqm-baselines", "--input", str(shared / "mqm-ted-ende" / "mqm_ted_ende.tsv"),
                 "--output", str(out)]) == 0
    return out


def run_json(capsys, *argv):
    capsys.readouterr()
    code = main([*map(str, argv), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_baselines_are_sacrebleu_sentence_scores(seg_tsv, shared):
    frame = pd.read_csv(seg_tsv, sep="\t", header=None, names=["metric", "lp", "testset", "system", "seg", "score"])
    assert set(frame["metric"]) == {"sentBLEU", "chrF"} and set(frame["lp"]) == {"en-de"}
    assert frame["system"].nunique() == 13 and "ref" not in set(frame["system"])     # the reference is not scored
    errors = read_mqm(shared / "mqm-ted-ende" / "mqm_ted_ende.tsv")
    texts = errors.drop_duplicates(["system", "segment"]).set_index(["system", "segment"])["target"]
    row = frame[(frame["metric"] == "chrF") & (frame["system"] == "Nemo") & (frame["seg"] == 17)].iloc[0]
    expected = sacrebleu.sentence_chrf(texts[("Nemo", "17")], [texts[("ref", "17")]]).score
    assert row["score"] == pytest.approx(expected, abs=1e-6)


def test_meta_eval_contract_on_mqm(seg_tsv, shared, capsys):
    human = shared / "mqm-ted-ende" / "mqm_ted_ende.tsv"
    result = run_json(capsys, "meta-eval", "--human", human, "--human-format", "mqm", "--metric-scores", seg_tsv,
                      "--lp", "en-de")
    assert result["lp"] == "en-de" and result["n_systems"] == 13 and result["n_segments"] == 529
    assert {m["metric"] for m in result["metrics"]} == {"sentBLEU", "chrF"}
    assert set(result["clusters"]) == {"acc_eq", "spa"}
    # acc_eq and epsilon are those of the statistic on the negated MQM scores (checked against the naive
    # reference in test_metaeval_acc_eq.py), paired by (system, seg_id)
    seg = segment_scores(read_mqm(human))
    hm = seg.pivot(index="system", columns="segment", values="mqm").drop(index="ref")
    scores = pd.read_csv(seg_tsv, sep="\t", header=None, names=["metric", "lp", "testset", "system", "seg", "score"])
    for row in result["metrics"]:
        part = scores[scores["metric"] == row["metric"]].assign(seg=lambda f: f["seg"].astype(str))
        mm = part.pivot(index="system", columns="seg", values="score").reindex(index=hm.index, columns=hm.columns)
        direct = acc_eq(-hm.to_numpy(), mm.to_numpy())
        assert (row["acc_eq"], row["epsilon"]) == (direct.acc_eq, direct.epsilon)
        assert 0 <= row["spa"] <= 1 and 0 <= row["sys_accuracy"] <= 1
    # the text report works too
    assert main(["meta-eval", "--human", str(human), "--metric-scores", str(seg_tsv), "--lp", "en-de",
                 "--draws", "50"]) == 0
    assert "acc_eq" in capsys.readouterr().out


def test_meta_eval_on_canonical_judgments(seg_tsv, shared, tmp_path, capsys):
    """Canonical human input: per-(system, segment) averages of the judgments' raw scores."""
    seg = segment_scores(read_mqm(shared / "mqm-ted-ende" / "mqm_ted_ende.tsv"))
    seg = seg[seg["system"] != "ref"].reset_index(drop=True)
    raw = np.clip(100 - 4 * seg["mqm"].to_numpy(), 0, 100)
    # two judgments per cell whose mean is the cell's score
    rows = pd.DataFrame({"campaign": "ted", "lp": "en-de", "assessment": "adequacy",
                         "worker": np.repeat(["w1", "w2"], len(seg)), "hit": "h",
                         "position": np.arange(1, 2 * len(seg) + 1), "segment": np.tile(seg["segment"], 2),
                         "system": np.tile(seg["system"], 2), "item_type": "SYSTEM",
                         "raw": np.concatenate([np.maximum(raw - 1, 0), np.minimum(raw + 1, 100)])})
    path = tmp_path / "judgments.csv"
    rows.to_csv(path, index=False)
    result = run_json(capsys, "meta-eval", "--human", path, "--human-format", "canonical", "--metric-scores",
                      seg_tsv, "--lp", "en-de", "--draws", "200")
    assert result["n_systems"] == 13 and result["n_segments"] == 529
    means = rows.groupby(["system", "segment"])["raw"].mean().unstack()
    scores = pd.read_csv(seg_tsv, sep="\t", header=None, names=["metric", "lp", "testset", "system", "seg", "score"])
    part = scores[scores["metric"] == "chrF"].assign(seg=lambda f: f["seg"].astype(str))
    mm = part.pivot(index="system", columns="seg", values="score").reindex(index=means.index, columns=means.columns)
    row = next(r for r in result["metrics"] if r["metric"] == "chrF")
    direct = acc_eq(means.to_numpy(), mm.to_numpy())
    assert (row["acc_eq"], row["epsilon"]) == (direct.acc_eq, direct.epsilon)


def test_several_language_pairs_give_a_global_ranking(tmp_path, capsys):
    rng = np.random.default_rng(0)
    hum, met = [], []
    for lp in ("en-de", "zh-en"):
        for system in ("A", "B", "C", "D"):
            for seg in range(1, 41):
                h = rng.normal() + {"A": 1, "B": 0.5, "C": 0, "D": -1}[system]
                hum.append({"campaign": "x", "lp": lp, "assessment": "adequacy", "worker": "w", "hit": f"{lp}{system}",
                            "position": seg, "segment": seg, "system": system, "item_type": "SYSTEM",
                            "raw": float(np.clip(50 + 10 * h, 0, 100))})
                met.append(("good", lp, "t", system, seg, h + rng.normal(scale=0.3)))
                met.append(("noise", lp, "t", system, seg, rng.normal()))
    pd.DataFrame(hum).to_csv(tmp_path / "h.csv", index=False)
    pd.DataFrame(met).to_csv(tmp_path / "m.tsv", sep="\t", header=False, index=False)
    out = run_json(capsys, "meta-eval", "--human", tmp_path / "h.csv", "--metric-scores", tmp_path / "m.tsv",
                   "--lp", "en-de", "zh-en", "--draws", "200")
    assert [r["lp"] for r in out["lps"]] == ["en-de", "zh-en"]
    assert out["global_ranking"][0]["metric"] == "good" and out["global_ranking"][0]["tasks"] == 4


@pytest.mark.parametrize("content, message", [
    ("m\ten-de\tt\tA\t1\tnot-a-number\n", "is not a number"),
    ("m\tfr-de\tt\tA\t1\t0.5\n", "no metric scores for language pair"),
    ("m\ten-de\tt\tZZZ\t99999\t0.5\n", "both a human and a metric score"),
])
def test_bad_metric_files_exit_2(shared, tmp_path, capsys, content, message):
    path = tmp_path / "bad.seg.tsv"
    path.write_text(content, encoding="utf-8")
    code = main(["meta-eval", "--human", str(shared / "mqm-ted-ende" / "mqm_ted_ende.tsv"), "--metric-scores",
                 str(path), "--lp", "en-de", "--json"])
    err = capsys.readouterr().err
    assert code == 2 and message in err
