"""Google's 2023+ MQM files: the new header, the language pair from the documents, attention checks
(HOTW-test), side-by-side system names, Non-translation as mt-metrics-eval weighs it, and bad rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.expert.scoring import segment_scores, system_scores
from leaderboard.ingest import detect_format
from leaderboard.ingest.mqm import attention_checks, read_mqm

HEADER = ("system\tdoc\tdocSegId\tglobalSegId\trater\tsource\ttarget\tcategory\tseverity\tmetadata\t"
          "# Documentation: https://example.org/viewer\n")


def _sample(shared: Path) -> Path:
    return shared / "wmt-now" / "mqm2023" / "sxs_mqm_generalMT2023_ende.head100.tsv"


def _fields(path: Path) -> list[list[str]]:
    return [line.rstrip("\n").split("\t") for line in path.read_text(encoding="utf-8").splitlines(keepends=True)[1:]]


def test_sample_reads_with_its_pair_and_side_by_side_names(shared):
    path = _sample(shared)
    errors = read_mqm(path)
    rows = _fields(path)
    assert len(errors) == len(rows) == 100
    assert set(errors["lp"]) == {"en-de"}                          # from the documents (…:en-de)
    assert detect_format(path) == "mqm"
    # A_with_B is A's output rated beside B's: system A, context B; other names untouched
    raw_names = [r[0] for r in rows]
    paired = [n for n in raw_names if "_with_" in n]
    assert set(paired) == {"GPT4-5shot_with_ONLINE-W", "GPT4-5shot_with_refA"}
    assert sorted(set(errors["system"])) == sorted({n.split("_with_")[0] for n in raw_names})
    assert errors.loc[errors["context"] != "", "context"].tolist() == [n.split("_with_")[1] for n in paired]
    assert errors["segment"].tolist() == [r[3] for r in rows] and errors["doc_id"].tolist() == [r[2] for r in rows]
    assert (errors["comment"] == "").all()                         # the session log is not a comment


def test_attention_checks_per_rater(shared):
    path = _sample(shared)
    rows = _fields(path)
    expected = {}
    for r in rows:
        if r[8] == "HOTW-test":
            found, missed = expected.get(r[4], (0, 0))
            expected[r[4]] = (found + (r[7] == "Found"), missed + (r[7] == "Missed"))
    checks = attention_checks(read_mqm(path)).set_index("rater")
    for rater, (found, missed) in expected.items():
        assert (checks.loc[rater, "found"], checks.loc[rater, "missed"]) == (found, missed)
    assert sum(f + m for f, m in expected.values()) == int(checks["checks"].sum()) > 0
    assert checks.loc[[r for r in checks.index if r not in expected], "checks"].eq(0).all()


def test_rank_and_baselines_read_the_new_header(shared, tmp_path, capsys):
    path = _sample(shared)
    assert main(["rank", "--input", str(path), "--input-format", "mqm", "--resamples", "0", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["lp"] == "en-de" and {s["system"] for s in got["systems"]} >= {"GPT4-5shot", "refA"}
    assert {c["rater"] for c in got["attention_checks"]} == {"rater3", "rater5", "rater10"}
    # hand computation: a rating = (rater, partner); the segment = mean over ratings; the system = mean over segments
    rows = _fields(path)
    weight = {"Major": 5.0, "Minor": 1.0, "No-error": 0.0, "HOTW-test": 0.0}
    ratings: dict = {}
    for r in rows:
        w = 0.1 if (r[8] == "Minor" and r[7] == "Fluency/Punctuation") else weight[r[8]]
        key = (r[0].split("_with_")[0], r[3], r[4], r[0])
        ratings[key] = ratings.get(key, 0.0) + w
    by_seg: dict = {}
    for (system, seg, _, _), w in ratings.items():
        by_seg.setdefault((system, seg), []).append(w)
    for s in got["systems"]:
        segs = [sum(v) / len(v) for (system, _), v in by_seg.items() if system == s["system"]]
        assert s["mqm"] == pytest.approx(sum(segs) / len(segs), abs=1e-12), s["system"]
    out = tmp_path / "seg.tsv"
    assert main(["mqm-baselines", "--input", str(path), "--output", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["rows"] > 0 and summary["metrics"] == ["chrF", "sentBLEU"]   # refA found as the reference


def test_side_by_side_ratings_are_two_ratings(tmp_path):
    lines = [["A_with_B", "d1:de-en", "1", "1", "r1", "src", "tgt <v>x</v>", "Accuracy/Mistranslation", "Major", "{}"],
             ["A_with_C", "d1:de-en", "1", "1", "r1", "src", "tgt", "No-error", "No-error", "{}"],
             ["B", "d1:de-en", "1", "1", "r1", "src", "tgt", "No-error", "No-error", "{}"],
             ["C", "d1:de-en", "1", "1", "r1", "src", "tgt", "No-error", "No-error", "{}"],
             ["X_with_Y", "d1:de-en", "1", "1", "r1", "src", "tgt", "No-error", "No-error", "{}"]]
    path = tmp_path / "sxs.tsv"
    path.write_text(HEADER + "".join("\t".join(r) + "\n" for r in lines), encoding="utf-8")
    errors = read_mqm(path)
    assert errors["system"].tolist() == ["A", "A", "B", "C", "X_with_Y"]   # Y is no system: the name stays
    seg = segment_scores(errors).set_index(["system", "segment"])
    assert seg.loc[("A", "1"), "mqm"] == pytest.approx(2.5) and seg.loc[("A", "1"), "raters"] == 2
    assert errors["lp"].unique().tolist() == ["de-en"]


def test_non_translation_weighs_25_only_when_major(tmp_path):
    lines = [["S", "d:en-de", "1", "1", "r1", "s", "t", "Non-translation!", "Major", "{}"],
             ["S", "d:en-de", "1", "2", "r1", "s", "t", "Non-translation!", "Minor", "{}"],
             ["S", "d:en-de", "1", "3", "r1", "s", "t", "Found", "HOTW-test", "{}"],
             ["S", "d:en-de", "1", "3", "r1", "s", "t", "No-error", "No-error", "{}"]]
    path = tmp_path / "nt.tsv"
    path.write_text(HEADER + "".join("\t".join(r) + "\n" for r in lines), encoding="utf-8")
    seg = segment_scores(read_mqm(path)).set_index("segment")["mqm"]
    assert seg["1"] == 25 and seg["2"] == 1 and seg["3"] == 0
    assert system_scores(segment_scores(read_mqm(path)))["mqm"].iloc[0] == pytest.approx(26 / 3)


def test_old_header_still_reproduces_ted(shared):
    errors = read_mqm(shared / "mqm-ted-ende" / "mqm_ted_ende.tsv")
    table = system_scores(segment_scores(errors)).set_index("system")
    published = {line.split("\t")[0]: line.split("\t")[1] for line in
                 (shared / "mqm-ted-ende" / "published-system-mqm.tsv").read_text().splitlines()[1:]}
    assert f"{table.loc['ref', 'mqm']:.2f}" == published["ref.A"]
    assert f"{table.loc['Nemo', 'mqm']:.2f}" == published["Nemo"]


@pytest.mark.parametrize("row, line, column, message", [
    (["S", "d:en-de", "1", "1", "r1", "s", "t", "Minor"], 2, None, "expected 10 tab-separated fields, found 8"),
    (["S", "d:en-de", "1", "1", "r1", "s", "t", "Accuracy", "Critical", "{}"], 2, "severity", "unknown severity"),
    (["", "d:en-de", "1", "1", "r1", "s", "t", "Accuracy", "Minor", "{}"], 2, "system", "empty value"),
    (["S", "d:en-de", "1", "", "r1", "s", "t", "Accuracy", "Minor", "{}"], 2, "seg_id", "empty value"),
    (["S\x07", "d:en-de", "1", "1", "r1", "s", "t", "Accuracy", "Minor", "{}"], 2, "system", "U+0007 (BEL)"),
])
def test_bad_rows(tmp_path, row, line, column, message):
    path = tmp_path / "bad.tsv"
    good = ["S", "d:en-de", "1", "1", "r1", "s", "t", "No-error", "No-error", "{}"]
    path.write_text(HEADER + "\t".join(good) + "\n" + "\t".join(row) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_mqm(path)
    assert err.value.file == str(path) and err.value.line == line + 1 and err.value.column == column
    assert message in err.value.message


def test_pair_unknown_or_filtered(tmp_path, capsys):
    path = tmp_path / "annotations.tsv"
    path.write_text(HEADER + "S\tdoc-without-pair\t1\t1\tr1\ts\tt\tNo-error\tNo-error\t{}\n", encoding="utf-8")
    with pytest.raises(InputError, match="does not name its language pair"):
        read_mqm(path)
    assert read_mqm(path, lp="en-de")["lp"].tolist() == ["en-de"]
    both = tmp_path / "two.tsv"
    both.write_text(HEADER + "S\td:en-de\t1\t1\tr1\ts\tt\tNo-error\tNo-error\t{}\n"
                    "S\td:zh-en\t1\t2\tr1\ts\tt\tNo-error\tNo-error\t{}\n", encoding="utf-8")
    assert read_mqm(both, lp="zh-en")["segment"].tolist() == ["2"]
    with pytest.raises(InputError, match="no annotations for language pair 'ja-en'"):
        read_mqm(both, lp="ja-en")


def test_ingest_keeps_side_by_side_ratings_apart(shared, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MTLB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    from leaderboard.storage import Store, default_url
    from leaderboard.storage.expert import mqm_errors
    path = _sample(shared)
    assert main(["ingest", str(path), "--campaign", "sxs"]) == 0
    stored = mqm_errors(Store(default_url()), "sxs")
    from_file = segment_scores(read_mqm(path)).sort_values(["system", "segment"]).reset_index(drop=True)
    again = segment_scores(stored).sort_values(["system", "segment"]).reset_index(drop=True)
    assert again[["system", "segment", "raters"]].equals(from_file[["system", "segment", "raters"]])
    assert again["mqm"].tolist() == pytest.approx(from_file["mqm"].tolist())
    assert sorted(set(stored["context"])) == ["", "ONLINE-W", "refA"]
