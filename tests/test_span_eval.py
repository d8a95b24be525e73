"""Error-span scoring: hand-worked cases, the organisers' WMT25 rule re-implemented here from its
description and run on the real WMT24 ESA spans, intervals and paired tests, stored gold, and the
`mtlb span-eval` contract."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from leaderboard.cli import main
from metrics.spans import SpanAnnotations, evaluate_spans

HEADER = ["doc_id", "segment_id", "source_lang", "target_lang", "set_id", "system_id", "source_segment",
          "hypothesis_segment", "reference_segment", "domain_name", "method", "start_indices", "end_indices",
          "error_types"]


def write_tsv(path: Path, rows: list[dict], extra: tuple[str, ...] = ()) -> Path:
    """Rows {lp, system, segment, spans: [(start, end, type)], doc?, text?, score?} as a task TSV."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh, delimiter="\t", lineterminator="\n")
        out.writerow(HEADER + list(extra))
        for r in rows:
            src, tgt = r["lp"].split("-", 1)
            spans = r.get("spans") or []
            cells = ([" ".join(str(s[0]) for s in spans), " ".join(str(s[1]) for s in spans),
                      " ".join(s[2] for s in spans)] if spans else ["", "", "no-error"])
            out.writerow([r.get("doc", "d"), r["segment"], src, tgt, "set", r["system"], "src", r.get("text", "x" * 2000),
                          "ref", "news", "ESA", *cells, *[r.get(c, "") for c in extra]])
    return path


def annotations(rows: list[dict]) -> SpanAnnotations:
    items = pd.DataFrame([{"lp": r["lp"], "system": r["system"], "doc": "d", "segment": str(r["segment"])} for r in rows])
    spans = pd.DataFrame([{"lp": r["lp"], "system": r["system"], "doc": "d", "segment": str(r["segment"]),
                           "start": s[0], "end": s[1], "severity": s[2]} for r in rows for s in r.get("spans", [])],
                         columns=["lp", "system", "doc", "segment", "start", "end", "severity"])
    return SpanAnnotations(items, spans)


def score(gold_rows, pred_rows, **kw) -> dict:
    return evaluate_spans(annotations(gold_rows), {"p": annotations(pred_rows)}, **kw).values["p"]


# --------------------------------------------------------------------------------------------
# hand-worked cases
# --------------------------------------------------------------------------------------------

def test_wmt25_hand_worked():
    gold = [{"lp": "en-de", "system": "A", "segment": 1, "spans": [(0, 10, "major"), (20, 24, "minor")]},
            {"lp": "en-de", "system": "A", "segment": 2, "spans": [(5, 8, "minor")]},
            {"lp": "en-de", "system": "A", "segment": 3, "spans": []}]
    pred = [{"lp": "en-de", "system": "A", "segment": 1, "spans": [(5, 15, "minor"), (20, 22, "minor")]},
            {"lp": "en-de", "system": "A", "segment": 2, "spans": [(0, 3, "minor")]},
            {"lp": "en-de", "system": "A", "segment": 3, "spans": [(0, 2, "critical")]}]
    # segment 1: chars 5-9 gold major x pred minor: 5 x 0.5; chars 20-21 minor x minor: 2 x 1 -> credit 4.5
    # predicted characters 10 + 2 + 3 + 2 = 17, gold characters 10 + 4 + 3 = 17
    r = score(gold, pred)["en-de"]
    assert r["precision"] == pytest.approx(4.5 / 17) and r["recall"] == pytest.approx(4.5 / 17)
    assert r["f1"] == pytest.approx(4.5 / 17)


def test_wmt25_counts_overlapping_spans_and_empty_denominators():
    # two gold spans overlap on chars 2-3 (count 2 there); one predicted major covers 0-5 once
    gold = [{"lp": "cs-uk", "system": "B", "segment": 1, "spans": [(0, 4, "major"), (2, 6, "major")]}]
    pred = [{"lp": "cs-uk", "system": "B", "segment": 1, "spans": [(0, 5, "major")]}]
    # credit: chars 0-4 min(gold count, 1) = 5; predicted characters 5; gold characters 4 + 4 = 8
    r = score(gold, pred)["cs-uk"]
    assert (r["precision"], r["recall"]) == pytest.approx((1.0, 5 / 8))
    assert r["f1"] == pytest.approx(2 * 1.0 * 0.625 / 1.625)
    # nothing predicted: precision 1 (no predicted character), recall 0, F1 0
    r = score(gold, [{"lp": "cs-uk", "system": "B", "segment": 1, "spans": []}])["cs-uk"]
    assert (r["precision"], r["recall"], r["f1"]) == (1.0, 0.0, 0.0)
    # nothing in gold and nothing predicted: 1, 1, 1
    empty = [{"lp": "cs-uk", "system": "B", "segment": 1, "spans": []}]
    assert score(empty, empty)["cs-uk"]["f1"] == 1.0


def test_wmt25_ignores_missing_undecided_and_neutral():
    gold = [{"lp": "en-de", "system": "A", "segment": 1,
             "spans": [(0, 4, "minor"), (0, 9, "undecided"), (np.nan, np.nan, "missing"), (0, 9, "neutral")]}]
    pred = [{"lp": "en-de", "system": "A", "segment": 1, "spans": [(0, 4, "minor"), (np.nan, np.nan, "major")]}]
    r = score(gold, pred)["en-de"]
    assert (r["precision"], r["recall"]) == (1.0, 1.0)


def test_mean_over_pairs_not_pooled():
    gold = [{"lp": "en-de", "system": "A", "segment": 1, "spans": [(0, 10, "major")]},
            {"lp": "en-ja", "system": "A", "segment": 1, "spans": [(0, 2, "minor")]}]
    pred = [{"lp": "en-de", "system": "A", "segment": 1, "spans": [(0, 10, "major")]},
            {"lp": "en-ja", "system": "A", "segment": 1, "spans": []}]
    r = score(gold, pred)
    assert r["en-de"]["recall"] == 1.0 and r["en-ja"]["recall"] == 0.0
    assert r["all"]["recall"] == 0.5                   # pooled characters would give 10/12
    assert r["all"]["f1"] == pytest.approx((1.0 + 0.0) / 2)


def test_mpp_hand_worked_micro_and_macro():
    gold = [{"lp": "en-de", "system": "A", "segment": 1, "spans": [(0, 10, "major"), (20, 30, "minor")]},
            {"lp": "en-de", "system": "A", "segment": 2, "spans": []},
            {"lp": "en-de", "system": "A", "segment": 3, "spans": [(0, 4, "minor")]}]
    pred = [{"lp": "en-de", "system": "A", "segment": 1, "spans": [(5, 15, "major"), (20, 25, "major")]},
            {"lp": "en-de", "system": "A", "segment": 2, "spans": [(0, 3, "minor")]},
            {"lp": "en-de", "system": "A", "segment": 3, "spans": []}]
    # predicted spans: (5,15) major: 5 of 10 chars under gold major -> 0.5; (20,25) major under gold minor
    # -> 5 x 0.5 / 5 = 0.5; (0,3) in segment 2: 0. precision = 1.0 / 3
    # gold spans: (0,10) major: 5 chars under pred major -> 0.5; (20,30) minor: 5 chars under pred major ->
    # 2.5 / 10 = 0.25; (0,4): 0. recall = 0.75 / 3
    micro = score(gold, pred, measure="mpp")["en-de"]
    assert micro["precision"] == pytest.approx(1 / 3) and micro["recall"] == pytest.approx(0.25)
    assert micro["f1"] == pytest.approx(2 * (1 / 3) * 0.25 / (1 / 3 + 0.25))
    # macro: segment 1 P 0.5, R 0.375; segment 2 P 0, R 1 (no gold span); segment 3 P 1 (none predicted), R 0
    macro = score(gold, pred, measure="mpp", average="macro")["en-de"]
    f1_1 = 2 * 0.5 * 0.375 / 0.875
    assert macro["precision"] == pytest.approx(1.5 / 3) and macro["recall"] == pytest.approx(1.375 / 3)
    assert macro["f1"] == pytest.approx(f1_1 / 3)


def test_mean_gold_weights_each_rating():
    from metrics.gold import choose_gold
    ratings = pd.DataFrame({"lp": "en-de", "system": "A", "segment": "1", "rating": ["r1", "r2"], "order": [0, 1],
                            "score": [60.0, 80.0]})
    spans = pd.DataFrame({"lp": "en-de", "system": "A", "segment": "1", "rating": ["r1"], "start": [0.0],
                          "end": [4.0], "severity": ["major"]})
    first = choose_gold(ratings, spans, "first")
    mean = choose_gold(ratings, spans, "mean")
    assert first.items["score"].tolist() == [60.0] and mean.items["score"].tolist() == [70.0]
    pred = annotations([{"lp": "en-de", "system": "A", "segment": 1, "spans": [(0, 4, "major")]}])
    pred.items["doc"], pred.spans["doc"] = "", ""
    # the mean gold counts r1's span half (r2 marked nothing): credit 4 x 0.5 = 2 of 4 predicted characters
    assert evaluate_spans(mean, {"p": pred}).values["p"]["en-de"]["precision"] == 0.5
    assert evaluate_spans(first, {"p": pred}).values["p"]["en-de"]["precision"] == 1.0
    assert choose_gold(ratings.assign(wave=["1", "2"]), spans, "wave:2").spans.empty


# --------------------------------------------------------------------------------------------
# the organisers' rule, re-implemented from its description, on the WMT24 ESA spans
# --------------------------------------------------------------------------------------------

def organisers_rule(gold: dict, pred: dict) -> dict:
    """gold / pred: {lp: {segment: [(start, end, severity)]}} with end exclusive. Per character the
    numbers of gold and predicted major and minor spans covering it; matched counts of one severity
    earn 1, the counts left on both sides meet across severities for 0.5; micro over a pair's
    segments, precision and recall 1.0 on an empty denominator; plain mean over pairs."""
    per_pair = {}
    for lp in gold:
        credit = pred_chars = gold_chars = 0.0
        for seg in gold[lp]:
            counts = defaultdict(lambda: {"gM": 0, "gm": 0, "pM": 0, "pm": 0})
            for side, spans in (("g", gold[lp][seg]), ("p", pred[lp].get(seg, []))):
                for start, end, sev in spans:
                    if sev == "critical":
                        sev = "major"
                    if sev not in ("major", "minor") or start is None:
                        continue
                    for c in range(start, end):
                        counts[c][side + ("M" if sev == "major" else "m")] += 1
            for c in counts.values():
                same_major, same_minor = min(c["gM"], c["pM"]), min(c["gm"], c["pm"])
                cross = min(c["gM"] - same_major, c["pm"] - same_minor) + min(c["gm"] - same_minor,
                                                                               c["pM"] - same_major)
                credit += same_major + same_minor + 0.5 * cross
                pred_chars += c["pM"] + c["pm"]
                gold_chars += c["gM"] + c["gm"]
        p = credit / pred_chars if pred_chars else 1.0
        r = credit / gold_chars if gold_chars else 1.0
        per_pair[lp] = {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}
    per_pair["all"] = {k: sum(v[k] for v in per_pair.values()) / len(per_pair) for k in ("precision", "recall", "f1")}
    return per_pair


def partial_credit_rule(gold: dict, pred: dict, average: str) -> dict:
    """The partial-overlap, partial-credit measure from its description, span by span: a span earns the
    share of its characters the other side marks (1 under the same severity, 0.5 under only the other);
    micro: mean credit over a pair's spans; macro: per-segment values (1.0 with no span on a side)
    averaged over segments. Same input shape as :func:`organisers_rule`."""
    def norm(spans):
        return [(s, e, "major" if v == "critical" else v) for s, e, v in spans
                if s is not None and v in ("major", "minor", "critical") and e > s]

    def credit(span, other):
        s, e, v = span
        total = 0.0
        for c in range(s, e):
            marks = {w for a, b, w in other if a <= c < b}
            total += 1.0 if v in marks else 0.5 if marks else 0.0
        return total / (e - s)

    out = {}
    for lp in gold:
        p_credits, r_credits, per_segment = [], [], []
        for seg in gold[lp]:
            g, p = norm(gold[lp][seg]), norm(pred[lp].get(seg, []))
            pc = [credit(x, g) for x in p]
            rc = [credit(x, p) for x in g]
            p_credits += pc
            r_credits += rc
            sp = sum(pc) / len(pc) if pc else 1.0
            sr = sum(rc) / len(rc) if rc else 1.0
            per_segment.append((sp, sr, 2 * sp * sr / (sp + sr) if sp + sr else 0.0))
        if average == "micro":
            prec = sum(p_credits) / len(p_credits) if p_credits else 1.0
            rec = sum(r_credits) / len(r_credits) if r_credits else 1.0
            out[lp] = {"precision": prec, "recall": rec, "f1": 2 * prec * rec / (prec + rec) if prec + rec else 0.0}
        else:
            out[lp] = {k: sum(x[i] for x in per_segment) / len(per_segment)
                       for i, k in enumerate(("precision", "recall", "f1"))}
    out["all"] = {k: sum(v[k] for v in out.values()) / len(out) for k in ("precision", "recall", "f1")}
    return out


def wmt24_ratings(path: Path) -> dict:
    """{(lp, system, item): [(annotator, spans), …]} of the TGT rows of usable documents, raters in the
    order of their first line. The organisers' selection: no tutorial systems, no documents marked
    #incomplete or #dup, and when a rater rated an output twice their latest rating (by end time, a tie
    to the later line). Appraise's end offset is inclusive, so a span covers start..end."""
    latest = {}
    lang = {"jpn": "ja", "zho": "zh"}
    for line, row in enumerate(csv.reader(open(path, encoding="utf-8")), start=1):
        if row[3] != "TGT" or "tutorial" in row[1] or "#incomplete" in row[7] or "#dup" in row[7]:
            continue
        key = (f"en-{lang[row[5]]}", row[1], row[2])
        end = float(row[11]) if row[11] else float("inf")
        seen = latest.get((key, row[0]))
        if seen is None or (end, line) >= (seen[0], seen[1]):
            latest[(key, row[0])] = (end, line, seen[2] if seen else line, row[9])
    out = defaultdict(list)
    for (key, rater), (_, _, first_line, spans_json) in sorted(latest.items(), key=lambda kv: kv[1][2]):
        spans = []
        for s in json.loads(spans_json):
            if s["start_i"] == "missing":
                spans.append((None, None, s["severity"]))
            else:
                spans.append((int(s["start_i"]), int(s["end_i"]) + 1, s["severity"]))
        out[key].append((rater, spans))
    return out


@pytest.mark.slow
def test_wmt25_measure_matches_the_organisers_rule_on_wmt24_esa(shared, tmp_path, capsys):
    ratings = wmt24_ratings(shared / "wmt24-esa" / "esa_generalMT2024_wave3.csv")
    assert len(ratings) > 8000
    gold_rows, second_rows, shifted_rows = [], [], []
    for (lp, system, item), rated in sorted(ratings.items()):
        base = {"lp": lp, "system": system, "segment": item}
        gold_rows.append({**base, "spans": rated[0][1]})
        # a cautious system: the first half of each located span, critical where gold says major, nothing on
        # every third segment
        second_rows.append({**base, "spans": [] if int(item) % 3 == 0 else [
            (s, s + max(1, (e - s) // 2), "critical" if v == "major" else v) for s, e, v in rated[0][1]
            if s is not None]})
        # a crude system: the first rater's located spans moved right by 3 characters, severities swapped
        shifted_rows.append({**base, "spans": [(s + 3, e + 3, {"major": "minor", "minor": "major"}.get(v, v))
                                               for s, e, v in rated[0][1] if s is not None]})

    def tsv_spans(rows):
        return [{**r, "spans": [(("missing" if s is None else s), ("missing" if e is None else e), v)
                                for s, e, v in r["spans"]]} for r in rows]

    gold = write_tsv(tmp_path / "gold.tsv", tsv_spans(gold_rows))
    second = write_tsv(tmp_path / "human2.tsv", tsv_spans(second_rows))
    shifted = write_tsv(tmp_path / "shifted.tsv", tsv_spans(shifted_rows))
    assert main(["span-eval", "--gold", str(gold), "--predictions", f"cautious={second}", f"shifted={shifted}",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)

    def nested(rows):
        d = defaultdict(dict)
        for r in rows:
            d[r["lp"]][(r["system"], r["segment"])] = r["spans"]
        return d

    g = nested(gold_rows)
    for name, rows in (("cautious", second_rows), ("shifted", shifted_rows)):
        expected = organisers_rule(g, nested(rows))
        assert set(out[name]) == {"en-ja", "en-zh", "all"}
        for scope, values in expected.items():
            for key, value in values.items():
                assert out[name][scope][key] == pytest.approx(value, abs=1e-12), (name, scope, key)
    assert 0 < out["cautious"]["all"]["f1"] < 1 and 0 < out["shifted"]["all"]["precision"] < 1
    # the partial-credit measure, micro and macro, against its own loop on the same spans
    for average in ("micro", "macro"):
        assert main(["span-eval", "--gold", str(gold), "--predictions", f"cautious={second}", f"shifted={shifted}",
                     "--measure", "mpp", "--average", average, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        for name, rows in (("cautious", second_rows), ("shifted", shifted_rows)):
            expected = partial_credit_rule(g, nested(rows), average)
            for scope, values in expected.items():
                for key, value in values.items():
                    assert out[name][scope][key] == pytest.approx(value, abs=1e-12), (average, name, scope, key)


# --------------------------------------------------------------------------------------------
# intervals, paired tests, clusters
# --------------------------------------------------------------------------------------------

def random_submissions(n: int = 300, seed: int = 3):
    rng = np.random.default_rng(seed)
    gold_rows, good, bad = [], [], []
    for i in range(n):
        lp = "en-de" if i % 3 else "en-cs"
        spans = [(int(s), int(s) + int(rng.integers(1, 12)), str(rng.choice(["minor", "major"])))
                 for s in rng.integers(0, 80, size=rng.integers(0, 3))]
        gold_rows.append({"lp": lp, "system": "S", "segment": i, "spans": spans})
        good.append({"lp": lp, "system": "S", "segment": i,
                     "spans": [(s + int(rng.integers(0, 2)), e, v) for s, e, v in spans if rng.random() < 0.8]})
        bad.append({"lp": lp, "system": "S", "segment": i, "spans": [(s + 5, e + 9, "major") for s, e, v in spans]})
    return gold_rows, good, bad


@pytest.mark.slow
def test_bootstrap_intervals_match_a_plain_loop_over_the_same_draws():
    from metrics.bootstrap import draw_indices
    gold_rows, good, bad = random_submissions()
    gold = annotations(gold_rows)
    preds = {"good": annotations(good), "bad": annotations(bad)}
    result = evaluate_spans(gold, preds, draws=200, seed=7)
    rng = np.random.default_rng(7)
    lps = gold.items["lp"].to_numpy()
    groups = {lp: np.flatnonzero(lps == lp) for lp in dict.fromkeys(lps)}
    draws = {lp: draw_indices(len(idx), 200, rng) for lp, idx in groups.items()}
    for name, rows in (("good", good), ("bad", bad)):
        f1s = {lp: [] for lp in groups}
        for lp, idx in groups.items():
            for b in range(200):
                chosen = [idx[j] for j in draws[lp][b]]
                g = {k: gold_rows[i]["spans"] for k, i in enumerate(chosen)}
                p = {k: rows[i]["spans"] for k, i in enumerate(chosen)}
                f1s[lp].append(organisers_rule({lp: g}, {lp: p})[lp]["f1"])
        for lp in groups:
            lo, hi = np.percentile(f1s[lp], [2.5, 97.5])
            assert result.values[name][lp]["f1_ci"] == pytest.approx([lo, hi], abs=1e-12)
        lo, hi = np.percentile(np.mean([f1s[lp] for lp in groups], axis=0), [2.5, 97.5])
        assert result.values[name]["all"]["f1_ci"] == pytest.approx([lo, hi], abs=1e-12)
    # the better submission: p(good better than bad) small, the other way round large; two clusters
    assert result.values["good"]["all"]["f1_p_better"]["bad"] < 0.01
    assert result.values["bad"]["all"]["f1_p_better"]["good"] > 0.99
    assert (result.values["good"]["all"]["f1_cluster"], result.values["bad"]["all"]["f1_cluster"]) == (1, 2)


def test_identical_submissions_are_not_tested_and_share_a_cluster():
    gold_rows, good, _ = random_submissions(60)
    gold = annotations(gold_rows)
    result = evaluate_spans(gold, {"a": annotations(good), "b": annotations(good)}, draws=50)
    assert result.values["a"]["en-de"]["f1_p_better"]["b"] is None
    assert result.values["a"]["all"]["f1_cluster"] == result.values["b"]["all"]["f1_cluster"] == 1


# --------------------------------------------------------------------------------------------
# the command line and stored gold
# --------------------------------------------------------------------------------------------

def test_cli_contract_with_intervals(tmp_path, capsys):
    gold_rows, good, bad = random_submissions(90)
    gold = write_tsv(tmp_path / "g.tsv", gold_rows)
    a = write_tsv(tmp_path / "a.tsv", good)
    b = write_tsv(tmp_path / "b.tsv", bad)
    for measure in ("wmt25", "mpp"):
        assert main(["span-eval", "--gold", str(gold), "--predictions", f"A={a}", f"B={b}", "--measure", measure,
                     "--draws", "100", "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert set(out) == {"A", "B"}
        for name in out:
            assert set(out[name]) == {"en-de", "en-cs", "all"}
            for scope in out[name].values():
                for key in ("precision", "recall", "f1"):
                    lo, hi = scope[f"{key}_ci"]
                    assert 0 <= lo <= hi <= 1 and isinstance(scope[key], float)
            expect = np.mean([out[name]["en-de"]["f1"], out[name]["en-cs"]["f1"]])
            assert out[name]["all"]["f1"] == pytest.approx(expect)
    assert main(["span-eval", "--gold", str(gold), "--predictions", f"A={a}"]) == 0
    text = capsys.readouterr().out
    assert "precision" in text and "spans|" in text


def test_stored_esa_campaign_gold_is_the_first_rating(shared, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MTLB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    path = shared / "wmt24-esa" / "esa_generalMT2024_wave3.csv"
    assert main(["ingest", str(path), "--campaign", "esa24"]) == 0
    ratings = wmt24_ratings(path)
    rows = [{"lp": lp, "system": system, "segment": item, "doc": "",
             "spans": [(s if s is not None else "missing", e if e is not None else "missing", v)
                       for s, e, v in rated[0][1]]}
            for (lp, system, item), rated in sorted(ratings.items()) if lp == "en-ja"]
    first = write_tsv(tmp_path / "first.tsv", rows)
    nothing = write_tsv(tmp_path / "none.tsv", [{**r, "spans": []} for r in rows])
    capsys.readouterr()
    assert main(["span-eval", "--gold-campaign", "esa24", "--lp", "en-ja", "--predictions", f"first={first}",
                 f"none={nothing}", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["first"]["en-ja"]["f1"] == 1.0 and out["first"]["en-ja"]["segments"] == len(rows)
    assert out["none"]["en-ja"]["recall"] == 0.0 and out["none"]["en-ja"]["precision"] == 1.0
    assert "gold:campaign=esa24/esa/first" in out["first"]["all"]["signature"]
    # the same submission written with the release's three-letter codes (eng, jpn) pairs up with the stored en-ja
    iso3 = write_tsv(tmp_path / "iso3.tsv", [{**r, "lp": "eng-jpn"} for r in rows])
    assert main(["span-eval", "--gold-campaign", "esa24", "--lp", "en-ja", "--predictions", f"iso3={iso3}",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["iso3"]["en-ja"]["f1"] == 1.0
    # the mean of the ratings: in this wave's usable documents every output has one rater, so it is the same
    assert main(["span-eval", "--gold-campaign", "esa24", "--lp", "en-ja", "--gold-rating", "mean",
                 "--predictions", f"first={first}", "--json"]) == 0
    mean = json.loads(capsys.readouterr().out)
    assert mean["first"]["en-ja"]["f1"] == 1.0 and "esa/mean" in mean["first"]["all"]["signature"]


def test_stored_mqm_campaign_gold_maps_severities(tmp_path, db_url, capsys):
    """On SQLite and PostgreSQL."""
    db = ["--database-url", db_url]
    head = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment\n"
    lines = [
        "A\td1\t1\t1\tr1\tsrc\t<v>Das</v> ist gut\tAccuracy/Mistranslation\tMajor\t",
        "A\td1\t1\t1\tr1\tsrc\tDas ist <v>gut</v>\tFluency/Punctuation\tMinor\t",
        "A\td1\t2\t2\tr1\tsrc\tHallo <v>Welt</v>\tNon-translation!\tMinor\t",
        "A\td1\t3\t3\tr1\tsrc\tEin Satz\tAccuracy/Omission\tMajor\t",
        "A\td1\t4\t4\tr1\tsrc\tNoch <v>einer</v>\tStyle/Awkward\tNeutral\t",
        "A\td1\t5\t5\tr1\tsrc\tFertig\tNo-error\tNo-error\t",
    ]
    path = tmp_path / "mqm_test_ende.tsv"
    path.write_text(head + "\n".join(lines) + "\n", encoding="utf-8")
    assert main(["ingest", str(path), "--campaign", "m", *db]) == 0
    rows = [{"lp": "en-de", "system": "A", "segment": 1, "doc": "", "spans": [(0, 3, "major"), (8, 11, "minor")]},
            {"lp": "en-de", "system": "A", "segment": 2, "doc": "", "spans": [(6, 10, "major")]},
            {"lp": "en-de", "system": "A", "segment": 3, "doc": "", "spans": []},
            {"lp": "en-de", "system": "A", "segment": 4, "doc": "", "spans": []},
            {"lp": "en-de", "system": "A", "segment": 5, "doc": "", "spans": []}]
    exact = write_tsv(tmp_path / "exact.tsv", rows)
    capsys.readouterr()
    assert main(["span-eval", "--gold-campaign", "m", "--lp", "en-de", "--predictions", f"exact={exact}",
                 "--json", *db]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["exact"]["en-de"]["f1"] == 1.0 and out["exact"]["en-de"]["gold_spans"] == 3
    assert "campaign=m/mqm/first" in out["exact"]["all"]["signature"]
    # error-free: segment 3 has an omission (an error, not a span), 4 a neutral note, 5 nothing
    labels = [{**r, "label": v} for r, v in zip(rows, ("0", "0", "0", "1", "1"))]
    lab = write_tsv(tmp_path / "labels.tsv", labels, extra=("label",))
    assert main(["error-free-eval", "--gold-campaign", "m", "--lp", "en-de", "--predictions", f"L={lab}",
                 "--json", *db]) == 0
    assert json.loads(capsys.readouterr().out)["L"]["en-de"]["mcc"] == 1.0


def test_gold_of_an_esa_campaign_collected_in_the_service(tmp_path, capsys):
    """Annotators mark spans in the service; the stored ratings are the gold without any export."""
    from collecting import write_testset
    from leaderboard.collect import campaigns
    from leaderboard.collect.links import invitation_links
    from leaderboard.collect.service import open_invitation, start, submit_answer
    from leaderboard.outputs.mteval import campaign_gold, span_eval
    from leaderboard.storage import Store
    lp = "de-en"
    files = write_testset(tmp_path / "testset", n_lines=30, seed=4)
    store = Store(f"sqlite:///{tmp_path / 'store.sqlite'}")
    sources = campaigns.sources_from_files([str(p) for p in files["hyps"]], str(files["ref"]), lp,
                                           src=str(files["src"]), docs=str(files["docs"]))
    campaigns.create(store, "c", lp, sources, protocol="esa", hits=1, hit_size=12, seed=1)
    link = invitation_links(store, "c", lp, 1, "http://127.0.0.1:8501")[0]
    person = open_invitation(store, link["url"].split("t=", 1)[1])
    task = start(store, person)
    marked = {}
    while task is not None and task.current is not None:
        item = task.current
        if task.tutorial:
            task = submit_answer(store, person, int(item["id"]), 90, [])
            continue
        spans = [{"start": 0, "end": 1, "severity": "minor"}] if int(item["id"]) % 2 else []
        task = submit_answer(store, person, int(item["id"]), 70 if spans else 95, spans)
        marked[int(item["id"])] = bool(spans)
        if task.current is None or not marked or len(marked) >= 12:
            break
    gold = campaign_gold(store, "c", lp)
    judged = store.judgments("c")
    assert len(gold.items) == len(judged[judged["item_type"] == "SYSTEM"]) > 0
    assert gold.attrs["label"] == "campaign=c/esa/first"
    # a submission that marks exactly the stored spans scores 1; one that marks nothing has recall 0
    from metrics.spans import SpanAnnotations
    same = SpanAnnotations(gold.items, gold.spans.drop(columns="weight"))
    none = SpanAnnotations(gold.items, gold.spans.iloc[0:0])
    result = span_eval(gold, {"same": same, "none": none})
    system = judged[judged["item_type"] == "SYSTEM"]
    # the outputs' own ratings (not the quality-control items): one span for each rating of 70
    assert len(gold.spans) == int((system["raw"] == 70).sum()) > 0 and gold.spans["severity"].eq("minor").all()
    assert sorted(gold.items["score"]) == sorted(system["raw"])
    assert result.values["same"][lp]["f1"] == 1.0 and result.values["none"][lp]["recall"] == 0.0
