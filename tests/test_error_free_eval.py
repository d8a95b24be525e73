"""Error-free detection: gold labels, conversions of spans and scores, thresholds chosen on a dev split
only, values against hand-worked cases and scipy, and the `mtlb error-free-eval` contract."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import pearsonr

from leaderboard.cli import main
from metrics.errorfree import best_threshold, dev_split, evaluate_error_free, gold_labels, values_from_counts
from metrics.spans import SpanAnnotations
from test_span_eval import write_tsv


def ann(rows, kind="spans"):
    items = pd.DataFrame([{"lp": r.get("lp", "en-de"), "system": "A", "doc": r.get("doc", f"d{r['segment']}"),
                           "segment": str(r["segment"]), "score": r.get("score", np.nan),
                           "label": r.get("label", np.nan)} for r in rows])
    spans = pd.DataFrame([{"lp": r.get("lp", "en-de"), "system": "A", "doc": r.get("doc", f"d{r['segment']}"),
                           "segment": str(r["segment"]), "start": s[0], "end": s[1], "severity": s[2]}
                          for r in rows for s in r.get("spans", [])],
                         columns=["lp", "system", "doc", "segment", "start", "end", "severity"])
    return SpanAnnotations(items, spans, kind=kind)


def test_gold_label_needs_the_score_and_no_span_of_any_kind():
    gold = ann([{"segment": 1, "score": 90}, {"segment": 2, "score": 84.9},
                {"segment": 3, "score": 100, "spans": [(np.nan, np.nan, "missing")]},
                {"segment": 4, "score": 95, "spans": [(0, 3, "undecided")]}, {"segment": 5, "score": 85},
                {"segment": 6}])
    labels = gold_labels(gold)
    assert labels[:5].tolist() == [1.0, 0.0, 0.0, 0.0, 1.0] and np.isnan(labels[5])
    assert gold_labels(gold, threshold=80)[1] == 1.0


def test_hand_worked_values_and_conventions():
    # tp 2, fp 1, fn 1, tn 2
    v = values_from_counts(np.array([2.0, 1.0, 1.0, 2.0]))
    assert (v["precision"], v["recall"], v["f1"]) == pytest.approx((2 / 3, 2 / 3, 2 / 3))
    assert v["mcc"] == pytest.approx((2 * 2 - 1 * 1) / np.sqrt(3 * 3 * 3 * 3))
    # nothing predicted error-free: precision, F1 and MCC 0
    v = values_from_counts(np.array([0.0, 0.0, 3.0, 5.0]))
    assert (float(v["precision"]), float(v["recall"]), float(v["f1"]), float(v["mcc"])) == (0.0, 0.0, 0.0, 0.0)


def test_mcc_is_the_phi_coefficient():
    rng = np.random.default_rng(0)
    gold_rows = [{"segment": i, "score": float(rng.integers(0, 101)),
                  "spans": [(0, 2, "minor")] if rng.random() < 0.3 else []} for i in range(400)]
    gold = ann(gold_rows)
    truth = gold_labels(gold)
    guess = np.where(rng.random(400) < 0.7, truth, 1 - truth)
    pred = ann([{"segment": i, "label": float(guess[i])} for i in range(400)], kind="label")
    r = evaluate_error_free(gold, {"p": pred}).values["p"]["en-de"]
    assert r["mcc"] == pytest.approx(pearsonr(truth, guess)[0], abs=1e-12)
    tp = float(((truth == 1) & (guess == 1)).sum())
    assert r["precision"] == pytest.approx(tp / guess.sum()) and r["recall"] == pytest.approx(tp / truth.sum())


def test_spans_convert_to_labels():
    gold = ann([{"segment": 1, "score": 95}, {"segment": 2, "score": 95}, {"segment": 3, "score": 40}])
    pred = ann([{"segment": 1}, {"segment": 2, "spans": [(np.nan, np.nan, "missing")]}, {"segment": 3}])
    r = evaluate_error_free(gold, {"p": pred}).values["p"]["en-de"]
    # predicted error-free: 1 and 3; gold: 1 and 2 -> tp 1, fp 1, fn 1
    assert (r["precision"], r["recall"]) == (0.5, 0.5)


def test_threshold_is_the_best_f1_on_dev_by_brute_force():
    rng = np.random.default_rng(5)
    scores = rng.normal(size=200).round(2)
    gold = (scores + rng.normal(scale=0.8, size=200) > 0.3).astype(float)
    best, chosen = -1.0, None
    for t in sorted(set(scores)):
        p = scores >= t
        tp, fp, fn = (p & (gold == 1)).sum(), (p & (gold == 0)).sum(), (~p & (gold == 1)).sum()
        f1 = 2 * tp / (2 * tp + fp + fn)
        if f1 > best + 1e-15:
            best, chosen = f1, t
    assert best_threshold(scores, gold) == chosen


def test_score_thresholds_come_from_the_dev_split_only():
    rng = np.random.default_rng(11)
    rows, preds = [], []
    for i in range(600):
        doc = f"doc{i // 6}"
        human = float(rng.integers(50, 101))
        rows.append({"segment": i, "doc": doc, "score": human})
        preds.append({"segment": i, "doc": doc, "score": human / 100 + rng.normal(scale=0.05)})
    gold, pred = ann(rows), ann(preds, kind="score")
    dev = dev_split(gold.items)
    assert 0.1 < dev.mean() < 0.3
    by_doc = pd.Series(dev).groupby(gold.items["doc"].to_numpy()).nunique()
    assert (by_doc == 1).all()                          # a document is never split
    result = evaluate_error_free(gold, {"m": pred})
    labels = gold_labels(gold)
    t = best_threshold(pred.items["score"].to_numpy()[dev], labels[dev])
    r = result.values["m"]["en-de"]
    assert r["score_threshold"] == t and r["segments"] == int((~dev).sum())
    test = ~dev
    guess = (pred.items["score"].to_numpy()[test] >= t).astype(float)
    assert r["mcc"] == pytest.approx(pearsonr(labels[test], guess)[0], abs=1e-12)
    # the dev documents changed on purpose: the threshold follows them
    docs = sorted(set(gold.items["doc"]))[:30]
    other = evaluate_error_free(gold, {"m": pred}, dev_documents=docs)
    assert other.values["m"]["en-de"]["segments"] == 600 - 180
    fixed = evaluate_error_free(gold, {"m": pred}, score_thresholds={"m": 0.9})
    assert fixed.values["m"]["en-de"]["segments"] == 600 and fixed.values["m"]["en-de"]["score_threshold"] == 0.9


def test_cli_contract(tmp_path, capsys):
    rng = np.random.default_rng(2)
    gold_rows, label_rows, score_rows, span_rows = [], [], [], []
    for i in range(300):
        lp = "en-de" if i % 2 else "cs-uk"
        spans = [(0, 3, "minor")] if rng.random() < 0.4 else []
        human = float(rng.integers(40, 101))
        base = {"lp": lp, "system": "S", "segment": i, "doc": f"d{i // 5}"}
        gold_rows.append({**base, "spans": spans, "score": human})
        ok = int(human >= 85 and not spans)
        label_rows.append({**base, "label": str(ok if rng.random() < 0.8 else 1 - ok)})
        score_rows.append({**base, "score": f"{human / 100 - 0.1 * len(spans) + rng.normal(scale=0.05):.4f}"})
        span_rows.append({**base, "spans": spans if rng.random() < 0.9 else [(1, 2, "major")]})
    gold = write_tsv(tmp_path / "gold.tsv", gold_rows, extra=("score",))
    labels = write_tsv(tmp_path / "labels.tsv", label_rows, extra=("label",))
    scores = write_tsv(tmp_path / "scores.tsv", score_rows, extra=("score",))
    spans = write_tsv(tmp_path / "spans.tsv", span_rows)
    assert main(["error-free-eval", "--gold", str(gold), "--predictions", f"L={labels}", f"S={scores}",
                 f"P={spans}", "--threshold", "85", "--draws", "200", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"L", "S", "P"}
    for name in out:
        assert set(out[name]) == {"en-de", "cs-uk", "all"}
        for row in out[name].values():
            for key in ("precision", "recall", "f1", "mcc"):
                assert isinstance(row[key], float) and len(row[f"{key}_ci"]) == 2
        assert out[name]["all"]["mcc"] == pytest.approx(np.mean([out[name]["en-de"]["mcc"], out[name]["cs-uk"]["mcc"]]))
    # a score submission needs a dev split and is reported outside it; the label and span submissions on every
    # segment, as when they run alone; the paired tests compare all three on the common segments
    assert out["L"]["all"]["segments"] == 300 and out["S"]["all"]["segments"] < 300
    assert out["L"]["all"]["compared_on_segments"] == out["S"]["all"]["segments"]
    assert "score_threshold" in out["S"]["en-de"] and "dev:hashed-documents@0.2" in out["S"]["all"]["signature"]
    assert main(["error-free-eval", "--gold", str(gold), "--predictions", f"L={labels}", "--draws", "200",
                 "--json"]) == 0
    alone = json.loads(capsys.readouterr().out)["L"]
    for scope in ("en-de", "cs-uk", "all"):
        for key in ("precision", "recall", "f1", "mcc", "f1_ci", "mcc_ci"):
            assert alone[scope][key] == out["L"][scope][key], (scope, key)
    assert main(["error-free-eval", "--gold", str(gold), "--predictions", f"L={labels}", "--threshold", "101",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["L"]["all"]["segments"] == 300 and out["L"]["all"]["gold_error_free"] == 0
    assert main(["error-free-eval", "--gold", str(spans), "--predictions", f"L={labels}"]) == 2
    assert "score" in capsys.readouterr().err
