"""The Mechanical Turk batch-results importer: the documented example, the mapping, and refused input."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from leaderboard.errors import InputError
from leaderboard.ingest import detect_format, read_judgments
from leaderboard.ingest.mturk import looks_like_mturk, read_mturk

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "examples" / "mturk-batch-results.csv"


def load_example() -> tuple[list[str], list[list[str]]]:
    with open(EXAMPLE, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def write(tmp_path: Path, header: list[str], rows: list[list[str]], name: str = "results.csv") -> Path:
    path = tmp_path / name
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, quoting=csv.QUOTE_ALL).writerows([header, *rows])
    return path


def test_example_file_loads_with_autodetection():
    assert detect_format(EXAMPLE) == "mturk"
    frame = read_judgments(EXAMPLE)
    assert len(frame) == 16
    first = frame[frame["worker"] == "A1B2C3D4E5F6G7"]
    # the values typed into the example file
    assert first["raw"].tolist() == [78, 64, 81, 70, 35, 96, 60, 88]
    assert first["seconds"].tolist() == [14.2, 21.0, 12.5, 9.8, 15.1, 8.7, 18.3, 11.4]
    assert first["item_type"].tolist() == ["SYSTEM"] * 4 + ["BAD_REF", "REF", "REPEAT", "SYSTEM"]
    assert first["segment"].tolist() == ["12", "40", "7", "33", "12", "7", "40", "101"]
    assert first["position"].tolist() == list(range(1, 9))
    assert set(frame["campaign"]) == {"example-batch"} and set(frame["lp"]) == {"cs-en"}
    assert set(frame["hit"]) == {"3V0Z7YWSIYZ1HLAUQH5Z1NC8ZGX2V5"}
    # the rejected assignment is kept (QC decides); it has no item times: 24 s over 8 items
    second = frame[frame["worker"] == "A9Z8Y7X6W5V4U3"]
    assert len(second) == 8 and np.allclose(second["seconds"], 3.0)


def test_example_pairs_are_recognised_by_qc():
    from leaderboard.human import qc
    pairs = qc.qc_pairs(read_judgments(EXAMPLE))
    got = pairs[pairs["worker"] == "A1B2C3D4E5F6G7"].set_index("kind")[["first", "second"]]
    assert got.loc["BAD_REF"].tolist() == [78, 35]
    assert got.loc["REF"].tolist() == [81, 96]
    assert got.loc["REPEAT"].tolist() == [64, 60]


def test_status_filter_is_explicit():
    assert len(read_mturk(str(EXAMPLE))) == 16
    assert set(read_mturk(str(EXAMPLE), statuses=("Approved", "Submitted"))["worker"]) == {"A1B2C3D4E5F6G7"}


def test_detection_does_not_claim_other_formats(shared):
    head = (shared / "wmt22-toen-da" / "ad-csen-good-stnd.csv").read_text(encoding="utf-8")[:4000]
    assert not looks_like_mturk(head)
    assert detect_format(shared / "wmt22-toen-da" / "ad-csen-good-stnd.csv") == "wmt-stnd"


def test_detection_from_the_header():
    assert not looks_like_mturk("campaign,lp,assessment,worker,hit,position,segment,system,item_type,raw\n")
    assert looks_like_mturk('"HITId","WorkerId","Answer.score_1"\n')
    assert not looks_like_mturk('"HITId","WorkerId","Input.item_1_system"\n')  # no answers at all
    # a header cut off by the 64 KB sniff: the answer columns would come after the item columns
    assert looks_like_mturk('"HITId","WorkerId","Input.item_1_system","Input.item_1_seg')


def _cell(header, rows, r, column, value):
    rows[r][header.index(column)] = value


@pytest.mark.parametrize("column,value,line,message", [
    ("Answer.score_4", "", 3, "no answer for item 4"),
    ("Answer.score_2", "abc", 2, "not a number"),
    ("Answer.score_7", "101", 3, "outside 0-100"),
    ("Answer.score_1", "-1", 2, "outside 0-100"),
    ("Input.item_2_type", "GOLD", 3, "unknown item type"),
    ("Input.item_5_segment", " ", 2, "empty value"),
    ("Answer.time_3", "soon", 2, "time is not a number"),
])
def test_bad_cells_name_file_line_and_column(tmp_path, column, value, line, message):
    header, rows = load_example()
    _cell(header, rows, line - 2, column, value)
    path = write(tmp_path, header, rows)
    with pytest.raises(InputError, match=message) as err:
        read_judgments(path, name="batch.csv")
    assert (err.value.file, err.value.line, err.value.column) == ("batch.csv", line, column)


def test_missing_answer_column_and_orphan_answer(tmp_path):
    header, rows = load_example()
    i = header.index("Answer.score_3")
    path = write(tmp_path, header[:i] + header[i + 1:], [r[:i] + r[i + 1:] for r in rows])
    with pytest.raises(InputError, match="no answer column") as err:
        read_judgments(path, input_format="mturk")
    assert (err.value.line, err.value.column) == (1, "Answer.score_3")
    header, rows = load_example()
    path = write(tmp_path, header + ["Answer.score_9"], [r + ["50"] for r in rows])
    with pytest.raises(InputError, match="answer for item 9") as err:
        read_judgments(path, input_format="mturk")
    assert err.value.column == "Answer.score_9"


def test_line_numbers_count_physical_lines(tmp_path):
    header, rows = load_example()
    _cell(header, rows, 0, "Input.item_1_text", "a text\nwith a line break")
    _cell(header, rows, 1, "Answer.score_6", "x")
    path = write(tmp_path, header, rows)
    with pytest.raises(InputError) as err:
        read_judgments(path)
    assert err.value.line == 4  # header, row 1 over two lines, row 2 starts on line 4


def test_same_worker_twice_on_one_hit_is_a_duplicate(tmp_path):
    header, rows = load_example()
    _cell(header, rows, 1, "WorkerId", "A1B2C3D4E5F6G7")
    with pytest.raises(InputError, match="duplicate judgment") as err:
        read_judgments(write(tmp_path, header, rows))
    assert err.value.line == 3


def test_ragged_row_and_missing_lp(tmp_path):
    header, rows = load_example()
    rows[1] = rows[1][:-3]
    with pytest.raises(InputError, match="fields") as err:
        read_judgments(write(tmp_path, header, rows), input_format="mturk")
    assert err.value.line == 3
    header, rows = load_example()
    i = header.index("Input.lp")
    with pytest.raises(InputError, match="Input.lp"):
        read_judgments(write(tmp_path, header[:i] + header[i + 1:], [r[:i] + r[i + 1:] for r in rows]),
                       input_format="mturk")


def test_simulated_batch_round_trips_exactly(tmp_path):
    from test_hits_structure import make_sources

    from leaderboard.hits.builder import build_hits
    from leaderboard.human.simulate import simulate_answers

    hits = build_hits(make_sources(6, 150, seed=8), "fluency", 3, seed=8)
    results = simulate_answers(hits, {"good": 2, "random": 1}, seed=3, assignments=2)
    path = tmp_path / "batch-results.csv"
    results.to_csv(path, index=False)
    frame = read_judgments(path)
    assert len(frame) == 600 and set(frame["assessment"]) == {"fluency"}
    # every judgment lines up with the built item shown at that position
    hit_of = dict(zip(results["HITId"], results["Input.hit"]))
    frame["built_hit"] = frame["hit"].map(hit_of)
    merged = frame.merge(hits, left_on=["built_hit", "position"], right_on=["hit", "position"],
                         suffixes=("", "_built"))
    assert len(merged) == 600
    for col in ("system", "segment", "item_type"):
        assert (merged[col] == merged[f"{col}_built"]).all()
    answers = results.set_index(["HITId", "WorkerId"])
    expected = [answers.loc[(h, w), f"Answer.score_{p}"] for h, w, p in
                zip(frame["hit"], frame["worker"], frame["position"])]
    assert np.array_equal(frame["raw"].to_numpy(), np.asarray(expected, dtype=float))
    from leaderboard.human import qc
    pairs = qc.qc_pairs(frame)
    assert len(pairs) == 6 * 30  # 3 HITs x 2 assignments x 30 pairs
