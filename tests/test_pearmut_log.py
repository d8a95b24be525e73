"""Pearmut annotation logs: the reader (resets, skipped pages, spans, errors), the writer, the store."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.ingest import detect_format, read_judgments
from leaderboard.ingest.pearmut_log import active_lines, lp_from_campaign_id, read_pearmut_log
from leaderboard.ingest.pearmut_write import pearmut_log_lines

LP = "eng_Latn-ces_Latn"
CAMPAIGNS = ("taskbased", "dynamic")


def sample(shared, name):
    return shared / "pearmut" / name / "annotations.jsonl"


def expected(shared, name):
    return json.loads((shared / "pearmut" / name / "expected.json").read_text(encoding="utf-8"))


def raw_lines(shared, name):
    return [json.loads(x) for x in sample(shared, name).read_text(encoding="utf-8").splitlines() if x.strip()]


@pytest.mark.parametrize("name", CAMPAIGNS)
def test_counts_of_the_log_match_the_independent_reading(shared, name):
    log = read_pearmut_log(sample(shared, name), lp=LP)
    want = expected(shared, name)["log"]
    r = log.report
    assert (r["lines"], r["active_lines"], r["counted_lines"]) == (want["lines"], want["active_lines"],
                                                                  want["active_counted_lines"])
    assert {k: v for k, v in r["lines_by_kind"].items() if v} == want["lines_by_kind"]
    assert r["item_x_model_with_several_annotations"] == want["item_x_model_with_several_annotations"]
    assert r["voided_lines"] == 3 and r["users"] == 6
    # tutorial and attention-check pages are kept apart, with Pearmut's own verdicts
    assert len(log.checks) == want["lines_by_kind"]["tutorial"] + want["lines_by_kind"]["attention_check"] - 2
    assert set(log.checks["kind"]) == {"tutorial", "attention_check"}
    assert not log.judgments["segment"].str.startswith("attention_check_").any()
    assert not log.judgments["segment"].str.contains("_#_tutorial_#_", regex=False).any()


@pytest.mark.parametrize("name", CAMPAIGNS)
def test_pearmuts_own_scores_from_the_frame(shared, name):
    """Pearmut's dashboard keeps the last annotation of an item x model (in log order): the frame has
    everything needed to get its numbers back, so nothing was lost or added."""
    log = read_pearmut_log(sample(shared, name), lp=LP)
    frame = log.judgments.assign(line=log.judgments["hit"].str.split("@").str[1].astype(int))
    last = frame.sort_values(["line", "position"], kind="mergesort").drop_duplicates(["system", "segment"], keep="last")
    scores = last.groupby("system")["raw"].agg(["mean", "size"])
    for row in expected(shared, name)["pearmut_results_export"]:
        assert scores.loc[row["model"], "size"] == row["count"]
        assert scores.loc[row["model"], "mean"] == pytest.approx(row["score"], rel=1e-12)


def test_judgments_follow_the_log(shared):
    log = read_pearmut_log(sample(shared, "taskbased"), lp=LP, campaign="c")
    entries = raw_lines(shared, "taskbased")
    j = log.judgments
    row = j.iloc[0]
    line = int(row["hit"].split("@")[1])
    entry = entries[line - 1]
    first_model = list(entry["item"][0]["tgt"])[0]
    assert row["worker"] == entry["user_id"] and row["hit"] == f"{entry['item_i']}@{line}"
    assert (row["segment"], row["system"]) == (entry["item"][0]["item_id"], first_model)
    assert row["raw"] == entry["annotation"][0][first_model]["score"] and row["position"] == 1
    assert row["doc"] == "news_###_synthnews.example.1004" and row["assessment"] == "cesa"
    page = j[(j["worker"] == row["worker"]) & (j["hit"] == row["hit"])]
    assert page["position"].tolist() == list(range(1, len(page) + 1))  # slots in display order
    assert set(j["campaign"]) == {"c"} and set(j["lp"]) == {LP} and set(j["item_type"]) == {"SYSTEM"}
    assert (j["seconds"] > 0).all()
    # the reset: red-resume-442's three lines before it are void, the ones after count
    reset_at = next(i for i, e in enumerate(entries, 1) if e.get("annotation") == "__RESET__")
    lines_of_user = j.loc[j["worker"] == "red-resume-442", "hit"].str.split("@").str[1].astype(int)
    assert lines_of_user.min() > reset_at
    others = j.loc[j["worker"] != "red-resume-442", "hit"].str.split("@").str[1].astype(int)
    assert (others < reset_at).any()  # other users' earlier lines stay (not the organisers' global reset)


def test_spans_and_special_tokens(shared):
    log = read_pearmut_log(sample(shared, "taskbased"), lp=LP)
    entries = raw_lines(shared, "taskbased")
    spans = log.spans
    assert len(spans) == log.report["error_spans"] and set(spans["severity"]) == {"minor", "major"}
    texts = log.items.set_index(["segment", "system"])["target"]
    for rec in spans.itertuples():
        text = texts[(rec.segment, rec.system)]
        if rec.token is None or (isinstance(rec.token, float) and np.isnan(rec.token)):
            assert 0 <= rec.span_start < rec.span_end <= len(text)
        else:
            k = ["[missing]", "[instructions fault]"].index(rec.token)
            assert rec.span_start == len(text) + k and rec.span_end == rec.span_start + 1
    assert set(spans["token"].dropna()) == {"[missing]", "[instructions fault]"}
    # the first span of the first counted line, as written there (end inclusive → exclusive)
    first = spans.iloc[0]
    entry = entries[int(first["line"]) - 1]
    written = entry["annotation"][0][first["system"]]["error_spans"][0]
    assert (first["span_start"], first["span_end"] - 1) == (written["start_i"], written["end_i"])


def write_log(path: Path, entries: list) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return path


def page(user, item_i, scores, item_id="news_###_d.1_###_0", spans=None):
    tgt = {m: "Dobrý den, světe." for m in scores}
    return {"annotation": [{m: {"score": s, "error_spans": (spans or {}).get(m, []), "textfield": None}
                            for m, s in scores.items()}],
            "item": [{"src": "Hello, world.", "tgt": tgt, "item_id": item_id}], "user_id": user, "item_i": item_i}


def test_reset_voids_only_that_users_lines_up_to_the_last_reset(tmp_path):
    entries = [page("u1", 0, {"A": 10, "B": 20}), page("u2", 0, {"A": 30, "B": 40}),
               {"user_id": "u1", "annotation": "__RESET__"}, page("u1", 0, {"A": 50, "B": 60}),
               {"user_id": "u1", "annotation": "__RESET__"}, page("u1", 1, {"A": 70, "B": 80}, "news_###_d.1_###_1")]
    log = read_pearmut_log(write_log(tmp_path / "eng_Latn---isl_Latn v1.jsonl", entries))
    assert log.lp == "eng_Latn-isl_Latn" and log.campaign == "eng_Latn---isl_Latn v1"
    assert sorted(log.judgments["raw"]) == [30, 40, 70, 80]
    assert log.report["voided_lines"] == 2 and log.report["lines_by_kind"]["reset"] == 2
    assert [n for n, _ in active_lines(list(enumerate(entries, 1)))] == [2, 6]


def test_tutorial_attention_and_skipped_segments_are_counted_not_kept(tmp_path):
    mixed = page("u1", 0, {"A": 90, "B": 20})
    mixed["item"].append({"src": "x", "tgt": {"A": "y", "B": "z"}, "item_id": "attention_check_7"})
    mixed["annotation"].append({"A": {"score": 5, "error_spans": []}, "B": {"score": 6, "error_spans": []}})
    mixed["item"].append({"src": "x", "tgt": {"A": "y", "B": "z"}, "item_id": "news_###_d.1_###_2"})
    mixed["annotation"].append(None)  # skipped by the annotator
    entries = [page("u1", "welcome_0", {"tutorial A": 80}, "csen_#_tutorial_#_0"),
               page("u1", "random_0", {"1st": 20, "2nd": 90}, "attention_check_0"), mixed,
               page("u2", 4, {"A": 10}, "xx_#_tutorial_#_3")]
    entries[1]["validations"] = [False]
    entries.append({"annotation": ["native", 7], "item": [{"text": "Your first language?", "form": "string"},
                                                          {"text": "Years of experience", "form": "number"}],
                    "user_id": "u1", "item_i": "welcome_1"})  # a questionnaire page
    log = read_pearmut_log(write_log(tmp_path / "log.jsonl", entries), lp="eng_Latn-zho_Hant_TW")
    assert log.judgments[["system", "raw"]].values.tolist() == [["A", 90.0], ["B", 20.0]]
    assert log.report["lines_by_kind"]["attention_check"] == 1
    assert log.report["segments_left_out"]["attention_check"] == 1  # the check segment of a counted page
    assert log.report["segments_left_out"]["skipped_by_annotator"] == 1
    assert log.checks["passed"].tolist() == [None, False, None]
    assert log.report["form_pages"] == 1 and log.report["lines_by_kind"]["tutorial"] == 3


@pytest.mark.parametrize("score, message", [(101, "score 101 is outside 0-100"), (-1, "outside 0-100"),
                                            ("90", "must be a number"), (True, "must be a number")])
def test_a_bad_score_is_refused_with_file_line_and_field(tmp_path, score, message):
    entries = [page("u1", 0, {"A": 80, "B": 70}), page("u1", 1, {"A": 80, "B": score})]
    path = write_log(tmp_path / "log.jsonl", entries)
    with pytest.raises(InputError) as info:
        read_pearmut_log(path, lp="eng_Latn-isl_Latn")
    err = info.value
    assert (err.file, err.line, err.column) == (str(path), 2, 'annotation[0].B.score')
    assert message in str(err) and str(err).startswith(f"{path}, line 2, column 'annotation[0].B.score'")


def test_nan_in_a_log_is_refused(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(page("u1", 0, {"A": 1})).replace('"score": 1', '"score": NaN') + "\n")
    with pytest.raises(InputError, match="NaN is not a JSON number") as info:
        read_pearmut_log(path, lp="eng_Latn-isl_Latn")
    assert info.value.line == 1


@pytest.mark.parametrize("span, ok", [((0, 16), True), ((17, 17), True), ((18, 18), True), ((19, 19), False),
                                      ((16, 17), False), ((5, 3), False), ((-1, 2), False)])
def test_spans_outside_the_text_and_its_tokens_are_refused(tmp_path, span, ok):
    text_len = len("Dobrý den, světe.")  # 17: offsets 17 and 18 are the two special tokens
    assert text_len == 17
    spans = {"A": [{"start_i": span[0], "end_i": span[1], "category": None, "severity": "major"}]}
    path = write_log(tmp_path / "log.jsonl", [page("u1", 0, {"A": 50}, spans=spans)])
    if ok:
        log = read_pearmut_log(path, lp="eng_Latn-isl_Latn")
        assert len(log.spans) == 1
        return
    with pytest.raises(InputError) as info:
        read_pearmut_log(path, lp="eng_Latn-isl_Latn")
    assert info.value.line == 1 and info.value.column == "annotation[0].A.error_spans[0]"


def test_special_tokens_of_the_campaign_decide(tmp_path):
    spans = {"A": [{"start_i": 18, "end_i": 18, "category": None, "severity": "minor"}]}
    path = write_log(tmp_path / "log.jsonl", [page("u1", 0, {"A": 50}, spans=spans)])
    assert read_pearmut_log(path, lp="eng_Latn-isl_Latn").spans["token"].tolist() == ["[instructions fault]"]
    with pytest.raises(InputError, match="not on a special token"):
        read_pearmut_log(path, lp="eng_Latn-isl_Latn", special_tokens=["[missing]"])


def test_malformed_lines_name_their_field(tmp_path):
    cases = [([], None, "must be a JSON object"), ({"annotation": []}, "user_id", "user_id"),
             ({**page("u", 0, {"A": 1}), "item_i": -3}, "item_i", "item_i"),
             ({**page("u", 0, {"A": 1}), "annotation": []}, "annotation", "one entry per segment"),
             ({**page("u", 0, {"A": 1}), "annotation": [{"C": {"score": 3}}]}, "annotation[0].C", "does not show")]
    for entry, column, message in cases:
        path = write_log(tmp_path / "bad.jsonl", [page("u", 0, {"A": 2}), entry])
        with pytest.raises(InputError, match=message) as info:
            read_pearmut_log(path, lp="eng_Latn-isl_Latn")
        assert (info.value.line, info.value.column) == (2, column)


def test_language_pair_from_the_campaign_id():
    assert lp_from_campaign_id("eng_Latn---ces_Latn v3") == "eng_Latn-ces_Latn"
    assert lp_from_campaign_id("eng_Latn---zho_Hant_TW") == "eng_Latn-zho_Hant_TW"
    assert lp_from_campaign_id("my campaign") is None and lp_from_campaign_id(None) is None


@pytest.mark.parametrize("name", CAMPAIGNS)
def test_writer_round_trip(shared, tmp_path, name):
    log = read_pearmut_log(sample(shared, name), lp=LP)
    out = tmp_path / "again.jsonl"
    lines = pearmut_log_lines(log.judgments, log.items, log.spans)
    out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    assert len(lines) == log.report["counted_lines"]
    back = read_pearmut_log(out, lp=LP, campaign=log.campaign)
    cols = ["worker", "position", "segment", "system", "raw", "doc"]
    pd.testing.assert_frame_equal(log.judgments[cols].reset_index(drop=True), back.judgments[cols].reset_index(drop=True))
    assert (log.judgments["hit"].str.split("@").str[0] == back.judgments["hit"].str.split("@").str[0].values).all()
    span_cols = ["system", "segment", "rater", "category", "severity", "span_start", "span_end", "position", "token"]
    pd.testing.assert_frame_equal(log.spans[span_cols].reset_index(drop=True), back.spans[span_cols].reset_index(drop=True))
    # the written lines carry exactly the original pages' annotations, texts and ids
    originals = {(e["user_id"], e["item_i"], json.dumps(e["annotation"], sort_keys=True))
                 for _, e in active_lines(list(enumerate(raw_lines(shared, name), 1)))
                 if isinstance(e.get("item_i"), int)}
    written = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert {(e["user_id"], e["item_i"], json.dumps(e["annotation"], sort_keys=True)) for e in written} == originals
    assert list(written[0]) == ["annotation", "item", "user_id", "item_i"]
    assert set(written[0]["item"][0]) >= {"src", "tgt", "item_id"}


def test_writer_refuses_what_pearmut_could_not_show(tmp_path):
    judgments = pd.DataFrame({"worker": ["u"], "hit": ["h"], "position": [1], "segment": ["s1"], "system": ["A"],
                              "raw": [50.0]})
    items = pd.DataFrame({"segment": ["s1"], "system": ["A"], "source": ["Hi"], "target": ["Ahoj"]})
    line = json.loads(pearmut_log_lines(judgments, items)[0])
    assert line == {"annotation": [{"A": {"score": 50, "error_spans": [], "textfield": None}}],
                    "item": [{"src": "Hi", "tgt": {"A": "Ahoj"}, "item_id": "s1"}], "user_id": "u", "item_i": 0}
    with pytest.raises(InputError, match="no text for item 's1' of model 'B'"):
        pearmut_log_lines(judgments.assign(system="B"), items)
    spans = pd.DataFrame({"rater": ["u"], "hit": ["h"], "segment": ["s1"], "system": ["A"], "severity": ["major"],
                          "category": [None], "span_start": [2], "span_end": [9]})
    with pytest.raises(InputError, match="outside the translation"):
        pearmut_log_lines(judgments, items, spans)
    missing = spans.assign(span_start=[None], span_end=[None])  # content missing: on [missing]
    line = json.loads(pearmut_log_lines(judgments, items, missing)[0])
    assert line["annotation"][0]["A"]["error_spans"] == [{"start_i": 4, "end_i": 4, "category": None,
                                                          "severity": "major"}]


PEARMUT_SRC = os.environ.get("MTLB_PEARMUT_SRC")


@pytest.mark.skipif(not PEARMUT_SRC, reason="set MTLB_PEARMUT_SRC to an unpacked pearmut 1.1.6 wheel to run")
@pytest.mark.parametrize("name", CAMPAIGNS)
def test_pearmut_reads_a_written_log_to_its_own_numbers(shared, tmp_path, name):
    log = read_pearmut_log(sample(shared, name), lp=LP)
    root = tmp_path / "pearmut"
    (root / "data" / "annotations").mkdir(parents=True)
    (root / "data" / "annotations" / "c.jsonl").write_text(
        "".join(line + "\n" for line in pearmut_log_lines(log.judgments, log.items, log.spans)), encoding="utf-8")
    code = ("import json; from pearmut import results_export as r; "
            "print(json.dumps(r.compute_model_scores('c')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PEARMUT_ROOT": str(root), "PYTHONPATH": PEARMUT_SRC})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected(shared, name)["pearmut_results_export"]


@pytest.mark.skipif(not PEARMUT_SRC, reason="set MTLB_PEARMUT_SRC to an unpacked pearmut 1.1.6 wheel to run")
def test_pearmut_reads_a_campaign_collected_here(shared, tmp_path, capsys):
    """A dynamic cESA campaign run here (the sample Pearmut definition, four simulated annotators, one
    annotation per model and item) and written by `mtlb collect export --format pearmut`: Pearmut 1.1.6's
    own results export reads the log and finds every model with the items and mean score the store holds,
    in the order `mtlb rank --protocol wmt26` ranks them."""
    from leaderboard.cli import main
    from leaderboard.storage import Store
    db = ["--database-url", f"sqlite:///{tmp_path / 's.sqlite'}"]
    assert main(["collect", "create", "--campaign", "c", "--lp", LP, "--protocol", "cesa", "--pearmut",
                 str(shared / "pearmut" / "dynamic" / "campaign.json"), *db]) == 0
    assert main(["collect", "simulate", "--campaign", "c", "--lp", LP, "--annotators", "4", "--seed", "2", *db]) == 0
    root = tmp_path / "pearmut"
    assert main(["collect", "export", "--campaign", "c", "--lp", LP, "--format", "pearmut", "--out",
                 str(root / "data" / "annotations"), *db]) == 0
    capsys.readouterr()
    assert main(["rank", str(root / "data" / "annotations" / "c.jsonl"), "--input-format", "pearmut", "--lp", LP,
                 "--protocol", "wmt26", "--json"]) == 0
    ranked = json.loads(capsys.readouterr().out)["systems"]
    stored = Store(db[1]).judgments("c")
    assert stored.groupby(["system", "segment"]).size().max() == 1
    code = ("import json; from pearmut import results_export as r; "
            "print(json.dumps(r.compute_model_scores('c')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PEARMUT_ROOT": str(root), "PYTHONPATH": PEARMUT_SRC})
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout)
    ours = stored.groupby("system")["raw"].agg(["mean", "size"])
    assert sorted(r["model"] for r in theirs) == sorted(ours.index)
    for row in theirs:
        assert row["count"] == ours.loc[row["model"], "size"]
        assert row["score"] == pytest.approx(ours.loc[row["model"], "mean"], abs=1e-9)
    # both sort by mean score; the WMT26 ranking reports the same means and item counts
    assert [r["model"] for r in theirs] == [r["system"] for r in ranked]
    assert [r["score"] for r in theirs] == pytest.approx([r["ave"] for r in ranked], abs=1e-9)
    assert [r["count"] for r in theirs] == [r["n"] for r in ranked]


def test_detected_and_read_as_judgments(shared):
    path = sample(shared, "dynamic")
    assert detect_format(path) == "pearmut"
    frame = read_judgments(path, lp=LP, campaign="c")
    assert len(frame) == 174 and frame.attrs["pearmut"]["counted_lines"] == 18


def test_ingest_stores_judgments_spans_and_texts(shared, tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    log = tmp_path / "eng_Latn---ces_Latn sample.jsonl"
    shutil.copy(sample(shared, "dynamic"), log)
    assert main(["ingest", str(log), "--input-format", "pearmut", "--campaign", "C", "--database-url", url,
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["campaign"], out["lp"], out["judgments"], out["error_spans"]) == ("C", LP, 174, 236)
    assert out["pearmut"]["lines_by_kind"]["attention_check"] == 15
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        assert db.execute("select count(*), count(span_start) from expert_annotations where assessment='cesa'"
                          ).fetchone() == (236, 236)
        assert db.execute("select count(*) from expert_outputs").fetchone()[0] == 137
        assert db.execute("select count(*) from judgments").fetchone()[0] == 174
    # the stored judgments rank as the file does
    from leaderboard.storage import Store
    from leaderboard.human.wmt26 import rank_pair
    stored = Store(url).judgments("C")
    assert rank_pair(stored).to_dict()["systems"] == rank_pair(read_pearmut_log(log, lp=LP).judgments).to_dict()["systems"]
    # a second log with a bad score: nothing of it is written
    bad = tmp_path / "bad.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines()
    lines[10] = lines[10].replace('"score": ', '"score": 101, "was": ', 1)
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["ingest", str(bad), "--input-format", "pearmut", "--campaign", "C2", "--lp", LP,
                 "--database-url", url]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl, line 11" in err and ".score" in err
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        assert db.execute("select count(*) from judgments").fetchone()[0] == 174


def test_a_span_on_a_special_token_is_shown_as_one_without_a_location():
    from leaderboard.expert.spans import mark_spans
    html = mark_spans("Ahoj", [(0, 2, "minor"), (4, 5, "major"), (5, 6, "minor")])
    assert html.startswith('<mark title="minor"') and html.count("error without a location") == 2
