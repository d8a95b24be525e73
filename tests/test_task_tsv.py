"""The WMT25 task TSV reader: what it keeps, and every refusal naming file, line and column."""

from __future__ import annotations

import math

import pytest

from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.ingest.task_tsv import read_task_tsv

HEAD = ("doc_id\tsegment_id\tsource_lang\ttarget_lang\tset_id\tsystem_id\tsource_segment\thypothesis_segment\t"
        "reference_segment\tdomain_name\tmethod\tstart_indices\tend_indices\terror_types")
GOOD = [
    "d1\t1\ten\tcs_CZ\twmt25\tA\tHello there\tAhoj tam venku\tAhoj\tnews\tESA\t0 5\t4 14\tminor critical",
    "d1\t2\ten\tcs_CZ\twmt25\tA\tFine\tDobře\tDobře\tnews\tESA\t\t\tno-error",
    "d2\t1\ten\tcs_CZ\twmt25\tA\tGo\t\"Jdi \"\"ven\"\"\"\tJdi\tnews\tESA\tmissing\tmissing\tmissing",
]


def write(tmp_path, lines, head=HEAD, name="t.tsv"):
    path = tmp_path / name
    path.write_text("\n".join([head] + lines) + "\n", encoding="utf-8")
    return path


def test_reads_spans_kinds_and_quoting(tmp_path):
    task = read_task_tsv(write(tmp_path, GOOD))
    assert task.items[["lp", "system", "doc", "segment"]].values.tolist() == [
        ["en-cs_CZ", "A", "d1", "1"], ["en-cs_CZ", "A", "d1", "2"], ["en-cs_CZ", "A", "d2", "1"]]
    assert task.items["length"].tolist() == [14, 5, 9]           # the quoted hypothesis: Jdi "ven"
    spans = task.spans
    assert spans[["segment", "start", "end", "severity"]].values.tolist()[:2] == [["1", 0.0, 4.0, "minor"],
                                                                                 ["1", 5.0, 14.0, "major"]]
    assert math.isnan(spans["start"].iloc[2]) and spans["severity"].iloc[2] == "missing"
    inclusive = read_task_tsv(write(tmp_path, [GOOD[0].replace("4 14", "4 13")]), end_inclusive=True)
    assert inclusive.spans["end"].tolist() == [5.0, 14.0]         # stored one past the last character
    with pytest.raises(InputError, match="past the end"):
        read_task_tsv(write(tmp_path, GOOD[:1]), end_inclusive=True)


@pytest.mark.parametrize("line, column, words", [
    ("d1\t1\ten\tcs_CZ\twmt25\tA\ts\tshort\tr\tnews\tESA\t0\t9\tminor", "end_indices", "past the end"),
    ("d1\t1\ten\tcs_CZ\twmt25\tA\ts\tlonger text\tr\tnews\tESA\t5\t2\tminor", "end_indices", "ends before"),
    ("d1\t1\ten\tcs_CZ\twmt25\tA\ts\tlonger text\tr\tnews\tESA\t0 3\t2\tminor major", "end_indices", "one of each"),
    ("d1\t1\ten\tcs_CZ\twmt25\tA\ts\tlonger text\tr\tnews\tESA\tx\t2\tminor", "start_indices", "whole number"),
    ("d1\t1\ten\tcs_CZ\twmt25\tA\ts\tlonger text\tr\tnews\tESA\t0\t2\tsevere", "error_types", "severe"),
    ("d1\t1\ten\tcs_CZ\twmt25\tA\ts\tlonger text\tr\tnews\tESA\t0\t2\tno-error", "start_indices", "no-error"),
    ("d1\t1\ten\tcs_CZ\twmt25\tA\ts\tlonger text\tr\tnews\tESA\t0\tmissing\tminor", "end_indices", "one offset"),
    ("d1\t\ten\tcs_CZ\twmt25\tA\ts\tlonger text\tr\tnews\tESA\t\t\tno-error", "segment_id", "empty"),
    ("d1\t1\ten\t\twmt25\tA\ts\tlonger text\tr\tnews\tESA\t\t\tno-error", "target_lang", "empty"),
    ("d1\t1\ten\tcs\twmt25\tA\u202e\ts\tlonger text\tr\tnews\tESA\t\t\tno-error", "system_id", "control"),
    ("d1\t1\ten\tcs_CZ\twmt25\tA\ts\tlonger text\tr\tnews\tESA\t\tno-error", None, "fields"),
])
def test_refused_rows_name_file_line_and_column(tmp_path, line, column, words):
    path = write(tmp_path, [GOOD[1], line])
    with pytest.raises(InputError) as info:
        read_task_tsv(path)
    err = info.value
    assert err.file == str(path) and err.line == 3 and err.column == column
    assert words in err.message


def test_refused_files(tmp_path):
    cases = [
        ([GOOD[0], GOOD[0]], HEAD, "twice", 3, "segment_id"),
        ([], HEAD, "no rows", 1, None),
        (GOOD, HEAD.replace("system_id", "system"), "system_id", 1, "system_id"),
        (GOOD, HEAD.replace("\terror_types", ""), "error_types", 1, "error_types"),
        ([line.rsplit("\t", 3)[0] for line in GOOD], HEAD.rsplit("\t", 3)[0], "nothing to evaluate", 1, None),
        (["d1\t1\ten\tcs_CZ\twmt25\tA\ts\th\tr\tnews\tESA\tabc"], HEAD.rsplit("\t", 3)[0] + "\tscore", "not a number",
         2, "score"),
        (["d1\t1\ten\tcs_CZ\twmt25\tA\ts\th\tr\tnews\tESA\tinf"], HEAD.rsplit("\t", 3)[0] + "\tscore", "finite", 2,
         "score"),
        (["d1\t1\ten\tcs_CZ\twmt25\tA\ts\th\tr\tnews\tESA\t2"], HEAD.rsplit("\t", 3)[0] + "\tlabel", "0 or 1", 2,
         "label"),
    ]
    for rows, head, words, line, column in cases:
        path = write(tmp_path, rows, head)
        with pytest.raises(InputError) as info:
            read_task_tsv(path)
        assert words in info.value.message and info.value.line == line and info.value.column == column, words
    (tmp_path / "empty.tsv").write_text("")
    with pytest.raises(InputError, match="empty"):
        read_task_tsv(tmp_path / "empty.tsv")


def test_cli_refuses_with_the_place_and_a_missing_gold_segment(tmp_path, capsys):
    gold = write(tmp_path, GOOD, name="gold.tsv")
    short = write(tmp_path, GOOD[:2], name="short.tsv")
    broken = write(tmp_path, GOOD[:2] + [GOOD[2].replace("missing\tmissing\tmissing", "0\t99\tminor")],
                   name="broken.tsv")
    assert main(["span-eval", "--gold", str(gold), "--predictions", f"S={short}"]) == 2
    err = capsys.readouterr().err
    assert "short.tsv" in err and "1 of the 3 gold segments" in err and "'segment_id'" in err
    assert main(["span-eval", "--gold", str(gold), "--predictions", f"B={broken}"]) == 2
    err = capsys.readouterr().err
    assert "broken.tsv, line 4, column 'end_indices'" in err
    assert main(["span-eval", "--gold", str(gold), "--predictions", "nofile"]) == 2
    assert "NAME=FILE" in capsys.readouterr().err
    assert main(["span-eval", "--predictions", f"S={short}"]) == 2
    assert "--gold" in capsys.readouterr().err
