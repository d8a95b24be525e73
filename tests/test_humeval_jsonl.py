"""The WMT25 human-evaluation JSON lines release: ratings and spans with their waves from their order,
the gold rules on it, `mtlb rank --protocol wmt25` without a wave table, and refusals with their place."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.ingest.humeval_jsonl import read_humeval_jsonl


def release(tmp_path, n=40, seed=0, name="humeval.jsonl"):
    rng = np.random.default_rng(seed)
    lines, table = [], []
    for system, level in (("Best", 88), ("Mid", 70), ("Low", 45)):
        for i in range(n):
            text = "x" * 60
            ratings = []
            for wave in (1, 2):
                score = float(np.clip(round(level + rng.normal(scale=8)), 0, 100))
                spans = [{"start_i": 3 * wave, "end_i": 9, "severity": "major" if wave == 1 else "minor"}] \
                    if score < 80 else []
                ratings.append({"annotator": f"r{wave}{i % 3}", "score": score, "error_spans": spans})
                table.append({"lp": "en-cs_CZ", "system": system, "segment": str(i), "wave": wave, "score": score,
                              "doc": f"doc{i // 4}", "domain": "news"})
            lines.append({"doc_id": f"doc{i // 4}", "segment_id": str(i), "source_lang": "en", "target_lang": "cs_CZ",
                          "system_id": system, "hypothesis_segment": text, "domain_name": "news",
                          "annotations": ratings})
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path, lines, pd.DataFrame(table)


def test_ratings_waves_and_spans(tmp_path):
    path, lines, _ = release(tmp_path)
    data = read_humeval_jsonl(path)
    assert len(data.ratings) == 2 * len(lines) and set(data.ratings["wave"]) == {"1", "2"}
    first = data.spans[data.spans["rating"].str.endswith("#1")]
    assert set(first["start"]) == {3.0} and set(first["end"]) == {10.0}        # end_i is the last character
    assert set(first["severity"]) == {"major"}


def test_gold_rules_first_mean_and_wave(tmp_path, capsys):
    path, lines, table = release(tmp_path)
    from leaderboard.outputs.mteval import read_gold
    first = read_gold(path, rule="first")
    mean = read_gold(path, rule="mean")
    second = read_gold(path, rule="wave:2")
    key = ["system", "segment"]
    expect = table[table["wave"] == 1].set_index(key)["score"]
    got = first.items.set_index(key)["score"]
    assert got.sort_index().tolist() == expect.sort_index().tolist()
    assert mean.items.set_index(key)["score"].sort_index().tolist() == pytest.approx(
        table.groupby(key)["score"].mean().sort_index().tolist())
    assert second.items.set_index(key)["score"].sort_index().tolist() == \
        table[table["wave"] == 2].set_index(key)["score"].sort_index().tolist()
    # error-free gold from the release: the first rating, score >= 85 and no span
    labels = [{"doc_id": x["doc_id"], "segment_id": x["segment_id"], "system_id": x["system_id"],
               "label": int(x["annotations"][0]["score"] >= 85 and not x["annotations"][0]["error_spans"])}
              for x in lines]
    tsv = tmp_path / "labels.tsv"
    tsv.write_text("doc_id\tsegment_id\tsource_lang\ttarget_lang\tsystem_id\tlabel\n" + "".join(
        f"{r['doc_id']}\t{r['segment_id']}\ten\tcs_CZ\t{r['system_id']}\t{r['label']}\n" for r in labels))
    assert main(["error-free-eval", "--gold", str(path), "--predictions", f"oracle={tsv}", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["oracle"]["en-cs_CZ"]["mcc"] == 1.0 and "file=humeval.jsonl/first" in out["oracle"]["all"]["signature"]
    assert main(["error-free-eval", "--gold", str(path), "--gold-rating", "wave:2", "--predictions", f"oracle={tsv}",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["oracle"]["en-cs_CZ"]["mcc"] < 1.0 and "/wave:2" in out["oracle"]["all"]["signature"]


def test_rank_wmt25_reads_the_release_like_a_wave_table(tmp_path, capsys):
    path, _, table = release(tmp_path)
    csv = tmp_path / "waves.csv"
    table.to_csv(csv, index=False)
    assert main(["rank", "--input", str(csv), "--protocol", "wmt25", "--json"]) == 0
    from_table = json.loads(capsys.readouterr().out)
    assert main(["rank", "--input", str(path), "--protocol", "wmt25", "--json"]) == 0
    from_release = json.loads(capsys.readouterr().out)
    for a, b in zip(from_table["systems"], from_release["systems"]):
        assert (a["system"], a["ave"], a["rank_lo"], a["rank_hi"]) == (b["system"], b["ave"], b["rank_lo"], b["rank_hi"])


@pytest.mark.parametrize("change, column, words", [
    (lambda o: o.pop("system_id"), "system_id", "lacks"),
    (lambda o: o.update(target_lang=""), "target_lang", "empty"),
    (lambda o: o["annotations"][1].update(score=120), "annotations[1].score", "0 to 100"),
    (lambda o: o["annotations"][0].update(score="high"), "annotations[0].score", "0 to 100"),
    (lambda o: o["annotations"][0].update(error_spans=[{"start_i": 50, "end_i": 70, "severity": "minor"}]),
     "annotations[0].error_spans", "past the end"),
    (lambda o: o["annotations"][0].update(error_spans=[{"start_i": 5, "end_i": 7, "severity": "awful"}]),
     "annotations[0].error_spans", "severity"),
    (lambda o: o["annotations"][0].update(error_spans=[{"start_i": -2, "end_i": 7, "severity": "minor"}]),
     "annotations[0].error_spans", "whole number"),
    (lambda o: o.update(annotations="none"), "annotations", "list"),
])
def test_refusals(tmp_path, change, column, words):
    path, lines, _ = release(tmp_path, n=4)
    bad = json.loads(json.dumps(lines[2]))
    change(bad)
    rows = [json.dumps(x) for x in lines]
    rows[2] = json.dumps(bad)
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(InputError) as info:
        read_humeval_jsonl(path)
    assert (info.value.file, info.value.line, info.value.column) == (str(path), 3, column)
    assert words in info.value.message


def test_refused_lines(tmp_path):
    path, lines, _ = release(tmp_path, n=4)
    rows = [json.dumps(x) for x in lines]
    for text, words in ((rows[0][:30], "not valid JSON"), ("[1, 2]", "JSON object"), (rows[0], "twice"),
                        (rows[0].replace('"score": ', '"score": NaN, "x": ', 1), "NaN")):
        path.write_text("\n".join(rows[:3] + [text] + rows[3:]) + "\n")
        with pytest.raises(InputError) as info:
            read_humeval_jsonl(path)
        assert info.value.line == 4 and words in info.value.message, words


def test_meta_eval_gold_is_the_chosen_rating(tmp_path, capsys):
    """A metric that reproduces the first wave exactly agrees perfectly with the first-rating gold (acc_eq 1),
    not with the second wave; the choice is in the output."""
    path, _, table = release(tmp_path, n=30)
    first = table[table["wave"] == 1]
    seg = tmp_path / "seg.tsv"
    seg.write_text("".join(f"wave1\ten-cs_CZ\twmt25\t{r.system}\t{r.segment}\t{r.score}\n"
                           for r in first.itertuples()))
    for rule, perfect in (("first", True), ("wave:2", False)):
        assert main(["meta-eval", "--human", str(path), "--human-rating", rule, "--metric-scores", str(seg),
                     "--lp", "en-cs_CZ", "--draws", "10", "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["gold_rating"] == rule
        assert (out["metrics"][0]["acc_eq"] == 1.0) is perfect
