"""The hostile-input corpus (tests/fuzz/<reader>/<case>): every file is refused by its reader with an
:class:`InputError` naming the file, the line and the column listed in tests/fuzz/expected.csv, with a
message holding the listed fragment, no numpy repr and no RuntimeWarning. System outputs and test-set
files go through the service functions into a real store (SQLite and PostgreSQL) and leave nothing.

To add a case: drop the file into the reader's folder and add its row to expected.csv; a new reader
gets a folder and an entry in READERS.
"""

from __future__ import annotations

import csv
import json
import warnings
from pathlib import Path

import pytest

from leaderboard.errors import InputError

CORPUS = Path(__file__).with_name("fuzz")


def _judgments(fmt: str):
    def read(path: Path, label: str):
        from leaderboard.ingest import read_judgments
        return read_judgments(path, fmt, name=label)
    return read


def _esa(path: Path, label: str):
    from leaderboard.ingest.esa import read_esa_spans
    return read_esa_spans(str(path), "c", name=label)


def _mqm(path: Path, label: str):
    from leaderboard.ingest.mqm import read_mqm
    return read_mqm(path, lp="en-de", name=label)


def _esa_wmt24(path: Path, label: str):
    """A WMT24 ESA export as `mtlb ingest` reads it: the judgments, then their error spans."""
    from leaderboard.ingest import read_judgments
    from leaderboard.ingest.esa import read_esa_spans
    read_judgments(path, "appraise", name=label)
    return read_esa_spans(str(path), "c", name=label)


def _documents(path: Path, label: str):
    from leaderboard.ingest.documents import read_documents
    return read_documents(path, name=label)


def _waves(path: Path, label: str):
    from leaderboard.ingest.waves import read_waves
    return read_waves(path, name=label)


def _wmt23_results(path: Path, label: str):
    from leaderboard.ingest.wmt23_results import read_wmt23_results
    return read_wmt23_results(path, name=label)


def _metric_scores(path: Path, label: str):
    from metrics.submissions import read_submission
    return read_submission(path, name=label)


def _autorank(function: str):
    def read(path: Path, label: str):
        from metrics import autorank_inputs
        return getattr(autorank_inputs, function)(path, name=label)
    return read


def _texts(path: Path, label: str):
    from leaderboard.ingest.texts import read_lines
    return read_lines(path, label)


def _output_lines(path: Path, label: str):
    from leaderboard.outputs.reading import read_lines
    return read_lines(path, label)


#: reader folder -> function(path, label) that reads (and validates) one file
READERS = {
    "canonical": _judgments("canonical"),
    "wmt-release": _judgments("wmt-stnd"),
    "appraise": _judgments("appraise"),
    "mturk": _judgments("mturk"),
    "esa-spans": _esa,
    "mqm": _mqm,
    "mqm-2023": _mqm,
    "esa-wmt24": _esa_wmt24,
    "documents": _documents,
    "wmt23-dasqm": _judgments("wmt23"),
    "wmt23-results": _wmt23_results,
    "wmt25-waves": _waves,
    "metric-wmt-tsv": _metric_scores,
    "metric-csv": _metric_scores,
    "autorank-system-metrics": _autorank("read_system_metrics"),
    "autorank-system-types": _autorank("read_system_types"),
    "autorank-paragraphs": _autorank("read_paragraph_scores"),
    "texts": _texts,
    "submissions": _output_lines,
    "testset-source": _output_lines,
}


def expected() -> list[dict]:
    with open(CORPUS / "expected.csv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


CASES = expected()


def test_every_file_has_an_expected_refusal_and_every_row_a_file():
    files = {(p.parent.name, p.name) for p in CORPUS.glob("*/*") if p.is_file()}
    rows = {(r["reader"], r["case"]) for r in CASES}
    assert files - rows == set(), "corpus files without a row in expected.csv"
    assert rows - files == set(), "rows of expected.csv without a file"
    assert {reader for reader, _ in files} == set(READERS)


def check_refusal(exc: InputError, case: dict) -> None:
    text = str(exc)
    assert case["message"] in exc.message, text
    assert exc.file is not None and Path(exc.file).name == case["case"], text
    assert exc.line == (int(case["line"]) if case["line"] else None), text
    if case["column"]:
        assert exc.column == case["column"], text
    assert "np." not in text and "numpy" not in text, text


@pytest.mark.parametrize("case", CASES, ids=[f"{c['reader']}/{c['case']}" for c in CASES])
def test_reader_refuses_hostile_file(case):
    path = CORPUS / case["reader"] / case["case"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(InputError) as info:
            READERS[case["reader"]](path, case["case"])
    check_refusal(info.value, case)


# ---- through the store: outputs submit and testset add on both back ends ----------------------------
STORED = [c for c in CASES if c["reader"] in ("submissions", "testset-source")]


def stored_rows(store) -> int:
    from sqlalchemy import func, select

    from leaderboard.storage import models as m
    with store.engine.connect() as conn:
        return sum(conn.execute(select(func.count()).select_from(t)).scalar_one()
                   for t in (m.testsets, m.testset_texts, m.submissions, m.submission_lines))


@pytest.mark.parametrize("case", STORED, ids=[f"{c['reader']}/{c['case']}" for c in STORED])
def test_service_refuses_hostile_file_and_stores_nothing(case, db_url, tmp_path):
    from leaderboard.outputs import service
    from leaderboard.storage import Store
    store = Store(db_url)
    path = CORPUS / case["reader"] / case["case"]
    (tmp_path / "src.txt").write_text("eins\nzwei\ndrei\n")
    (tmp_path / "ref.txt").write_text("one\ntwo\nthree\n")
    if case["reader"] == "submissions":
        service.add_testset(store, "C", "de-en", tmp_path / "src.txt", [tmp_path / "ref.txt"])
        service.add_team(store, "T", verified=True)
        before = stored_rows(store)
        with pytest.raises(InputError) as info:
            service.submit(store, path, campaign="C", lp="de-en", team="T", label=case["case"])
    else:
        before = stored_rows(store)
        with pytest.raises(InputError) as info:
            service.add_testset(store, "C", "de-en", path, [tmp_path / "ref.txt"], labels={str(path): case["case"]})
    check_refusal(info.value, case)
    assert stored_rows(store) == before


# ---- WMT judgment and annotation files through `mtlb ingest`: refused, nothing stored -----------------
INGESTED = {"esa-wmt24": "appraise", "wmt23-dasqm": "wmt23", "mqm-2023": "mqm"}
INGEST_CASES = [c for c in CASES if c["reader"] in INGESTED]


def all_rows(store) -> int:
    from sqlalchemy import func, select

    from leaderboard.storage import models as m
    with store.engine.connect() as conn:
        return sum(conn.execute(select(func.count()).select_from(t)).scalar_one()
                   for t in m.metadata.sorted_tables)


@pytest.mark.parametrize("case", INGEST_CASES, ids=[f"{c['reader']}/{c['case']}" for c in INGEST_CASES])
def test_ingest_refuses_hostile_file_and_stores_nothing(case, db_url, capsys):
    from leaderboard.cli import main
    from leaderboard.storage import Store
    store = Store(db_url)
    try:
        before = all_rows(store)
        path = CORPUS / case["reader"] / case["case"]
        code = main(["ingest", str(path), "--input-format", INGESTED[case["reader"]], "--campaign", "C",
                     "--database-url", db_url])
        err = capsys.readouterr().err
        assert code == 2, err
        assert case["case"] in err and case["message"] in err, err
        if case["line"]:
            assert f"line {case['line']}" in err, err
        assert "Traceback" not in err and "internal error" not in err, err
        assert all_rows(store) == before
    finally:
        store.engine.dispose()  # one schema per case: give its pooled connections back to the server


# ---- hostile names on the command line, both back ends ---------------------------------------------
HOSTILE_NAMES = {"RLO": "evil\u202etxt.exe", "ESC": "red\x1b[31m", "BEL": "ding\x07", "newline": "two\nlines",
                 "NUL": "nul\x00byte", "C1": "csi\x9b1m"}


@pytest.mark.parametrize("what", sorted(HOSTILE_NAMES))
def test_hostile_names_are_refused_by_every_command(what, db_url, tmp_path, capsys):
    from leaderboard.cli import main
    from leaderboard.storage import Store
    name = HOSTILE_NAMES[what]
    db = ["--database-url", db_url]
    (tmp_path / "src.txt").write_text("eins\nzwei\ndrei\n")
    (tmp_path / "ref.txt").write_text("one\ntwo\nthree\n")
    (tmp_path / "hyp.txt").write_text("one\ntwo\ntree\n")
    judgments = tmp_path / "j.csv"
    judgments.write_text("lp,assessment,worker,hit,position,segment,system,item_type,raw\n"
                         "cs-en,adequacy,W1,H1,1,1,sysA,SYSTEM,50\n")
    assert main(["testset", "add", "--campaign", "C", "--lp", "de-en", "--source", str(tmp_path / "src.txt"),
                 "--ref", str(tmp_path / "ref.txt"), *db]) == 0
    assert main(["team", "add", "T", "--verified", *db]) == 0
    capsys.readouterr()
    attempts = {
        "team add": ["team", "add", name, *db],
        "outputs submit --system": ["outputs", "submit", str(tmp_path / "hyp.txt"), "--campaign", "C", "--lp", "de-en",
                                    "--team", "T", "--system", name, *db],
        "testset add --campaign": ["testset", "add", "--campaign", name, "--lp", "de-en", "--source",
                                   str(tmp_path / "src.txt"), *db],
        "ingest --campaign": ["ingest", str(judgments), "--campaign", name, *db],
    }
    for label, argv in attempts.items():
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 2, f"{label} {what}: exit {code}: {err}"
        assert "Traceback" not in err and "database error" not in err and "internal error" not in err, err
    store = Store(db_url)
    assert list(store.campaigns()["campaign"]) == ["C"]
    from leaderboard.storage.outputs import OutputStore
    assert list(OutputStore(store).teams()["name"]) == ["T"]
    assert OutputStore(store).submissions("C").empty


def test_expected_table_is_plain_data():
    """expected.csv holds only the five columns (a typo in a header would silently skip a check)."""
    with open(CORPUS / "expected.csv", newline="", encoding="utf-8") as fh:
        header = next(csv.reader(fh))
    assert header == ["reader", "case", "message", "line", "column"]
    assert json.dumps(CASES)  # every cell is text
