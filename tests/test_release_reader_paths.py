"""The WMT release reader's two parsers give the same judgments: Arrow's (tab-separated files, text
columns dictionary-encoded) and pandas' (any whitespace, every cell text), which takes every file the
first one does not fit and names the line of a problem."""

from __future__ import annotations

import pandas as pd
import pytest

import leaderboard.ingest.wmt_release as wmt_release
from leaderboard.errors import InputError
from leaderboard.ingest import read_judgments

FILES = [("wmt21-toen-da", "deen"), ("wmt22-toen-da", "csen"), ("wmt22-toen-da", "lven")]


@pytest.mark.parametrize("folder,code", FILES)
def test_arrow_and_pandas_parsers_read_the_same_judgments(shared, monkeypatch, folder, code):
    base = shared / folder
    path, stats = base / f"ad-{code}-good-stnd.csv", base / f"ad-{code}-trk-mean-sd.txt"
    fast = read_judgments(path, "wmt-stnd", worker_stats=stats)
    monkeypatch.setattr(wmt_release, "_parse_arrow", lambda data, header: None)
    plain = read_judgments(path, "wmt-stnd", worker_stats=stats)
    pd.testing.assert_frame_equal(fast, plain, check_exact=True)


def test_a_space_separated_copy_reads_like_the_original(shared, tmp_path):
    base = shared / "wmt22-toen-da"
    text = (base / "ad-lven-good-stnd.csv").read_text(encoding="utf-8")
    spaced = tmp_path / "ad-lven-good-stnd.csv"
    spaced.write_text(text.replace("\t", "  "), encoding="utf-8")  # Arrow's parser declines, pandas' reads it
    pd.testing.assert_frame_equal(read_judgments(spaced, "wmt-stnd", campaign="c"),
                                  read_judgments(base / "ad-lven-good-stnd.csv", "wmt-stnd", campaign="c"),
                                  check_exact=True)


def test_a_score_that_is_no_number_is_named_with_its_line(shared, tmp_path):
    lines = (shared / "wmt22-toen-da" / "ad-lven-good-stnd.csv").read_text(encoding="utf-8").splitlines()
    cells = lines[41].split("\t")
    cells[10] = "n/a"
    lines[41] = "\t".join(cells)
    path = tmp_path / "ad-lven-good-stnd.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_judgments(path, "wmt-stnd")
    assert err.value.line == 42 and err.value.column == "score" and "n/a" in str(err.value)
