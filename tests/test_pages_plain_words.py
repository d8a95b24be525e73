"""Every page of the demo speaks to a visitor in plain words (AppTest over the shipped demo data).

- tables: no cell reads None / nan, headers are words (no snake_case), booleans read yes / no
  (never 0.0000 / 1.0000 or True / False);
- messages (info, warning, error, success, captions, Markdown): no command-line flag (``--lp``) and
  no command (``mtlb …``) — the web says what to click or choose; no stray backtick;
- downloads: every button on a page says what it downloads, no two alike, never a bare "Download CSV".
"""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest
from htmltables import page_tables
from test_app_pages import fresh_store, run_app, unmd

ORGANISER = {"name": "olga", "role": "organiser"}
TEAM = {"name": "CUNI", "role": "team"}

# (page, who, extra address parameters): every lazy tab of the page is opened by its ``tab``/``view``
VISITS = [
    ("leaderboard.py", None, [{}, {"tab": "Chart"}, {"tab": "Rank stability"}, {"tab": "Versions"}]),
    ("heatmap.py", None, [{}, {"tab": "Heat map"}, {"tab": "All p-values"}]),
    ("system.py", None, [{}, {"tab": "Distribution"}, {"tab": "Head to head"}]),
    ("longitudinal.py", None, [{}, {"tab": "Charts"}]),
    ("qc.py", ORGANISER, [{}, {"campaign": "Simulated crowd (demo)", "lp": "de-en"}]),
    ("automatic.py", None, [{}, {"tab": "AutoRank"}, {"tab": "Rank stability"}, {"tab": "Pairwise p-values"}]),
    ("metrics.py", ORGANISER, [{}, {"view": "Charts"}, {"tab": "Evaluation package"}, {"tab": "Upload scores"}]),
    ("organiser.py", ORGANISER, [{}, {"campaign": "Simulated crowd (demo)", "lp": "de-en"}]),
    ("testsets.py", ORGANISER, [{}]),
    ("teams.py", TEAM, [{}]),
    ("teams.py", None, [{}]),
    ("login.py", None, [{}]),
    ("method.py", None, [{}]),
    ("leaderboard.py", ORGANISER, [{"campaign": "Simulated crowd (demo)", "lp": "de-en"}]),
]
# headers that must be shown on a page (a table that fails to draw stops the page without an exception)
EXPECTED = {
    ("testsets.py", "organiser"): [{"Language pair", "Public before the deadline", "Opens"},
                                   {"Team", "Verified", "Verified at", "Created at"},
                                   {"Language pair", "Team", "Primary", "Withdrawn"}],
    ("teams.py", "team"): [{"Language pair", "Primary", "Withdrawn", "BLEU", "chrF"}],
    # the worker QC report shows with the preview (the QC the ranking ran): tests/test_app_organiser.py
    ("organiser.py", "organiser"): [{"Campaign", "Language pair", "Judgments"},
                                    {"ID", "File", "Published versions using it", "Can be retracted"}],
    ("qc.py", "organiser"): [{"Worker", "Passed", "Mean (bad references)"}],
    ("metrics.py", "organiser"): [{"System", "Human Ave z", "Human translation", "BLEU", "chrF"}],
}
MISSING_TEXT = {"none", "nan", "nat", "<na>"}
FLAG = re.compile(r"--[a-z]")
COMMAND = re.compile(r"\bmtlb\s+[a-z]")


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory, demo_template):
    """A copy of the published demo campaigns in a scratch SQLite store the app reads (MTLB_DATA_DIR)."""
    from stores import copy_store
    with pytest.MonkeyPatch.context() as mp:
        folder = tmp_path_factory.mktemp("demo")
        copy_store(demo_template, folder)
        store = fresh_store(folder, mp, demo=True)
        _RUNS.clear()
        yield store
        _RUNS.clear()


_RUNS: dict = {}


def _runs(page, user, params_list):
    """The page run once per address (the three tests below share the runs)."""
    for params in params_list:
        key = (page, str(user), str(params))
        if key not in _RUNS:
            _RUNS[key] = run_app(page, user=user, params=params or None, timeout=180)
        yield params, _RUNS[key]


def _is_missing(value) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and value.strip().lower() in MISSING_TEXT


def _visible(text: str) -> str:
    """What a Markdown message shows: code spans as their text, escapes and character references resolved."""
    return unmd(re.sub(r"`([^`\n]*)`", r"\1", str(text)))


def _table_problems(frame: pd.DataFrame, where: str) -> list[str]:
    problems = []
    headers = [str(c) for c in frame.columns] + ([str(frame.index.name)] if frame.index.name else [])
    problems += [f"{where}: header {h!r} is snake_case" for h in headers if "_" in h]
    for column in frame.columns:
        values = frame[column].tolist()
        bad = [v for v in values if _is_missing(v)]
        if bad:
            problems.append(f"{where}: column {column!r} shows {bad[0]!r}")
        shown = {v for v in values if isinstance(v, str) and v not in ("", "–")}
        if shown and shown <= {"0.0000", "1.0000", "0", "1", "True", "False"}:
            problems.append(f"{where}: column {column!r} shows a boolean as {sorted(shown)}")
        if pd.api.types.is_bool_dtype(frame[column]):
            problems.append(f"{where}: column {column!r} is a raw boolean (shown as True/False)")
    return problems


@pytest.mark.parametrize("page,user,params_list", VISITS,
                         ids=[f"{p}-{u['role'] if u else 'visitor'}" for p, u, _ in VISITS])
def test_tables_read_in_words(demo_store, page, user, params_list):
    problems = []
    seen = 0
    for params, at in _runs(page, user, params_list):
        for i, element in enumerate(at.dataframe):
            seen += 1
            problems += _table_problems(element.value, f"{page} {params} dataframe {i}")
        for i, frame in enumerate(page_tables(at)):
            seen += 1
            problems += _table_problems(frame, f"{page} {params} table {i}")
    assert not problems, "\n".join(problems)
    headers = [set(map(str, element.value.columns)) for _, at in _runs(page, user, params_list)
               for element in at.dataframe]
    headers += [set(map(str, frame.columns)) for _, at in _runs(page, user, params_list) for frame in page_tables(at)]
    for wanted in EXPECTED.get((page, user["role"] if user else "visitor"), []):
        assert any(wanted <= shown for shown in headers), (wanted, headers)
    if page not in ("login.py", "teams.py", "method.py") or user is not None:
        assert seen, f"{page}: no table was drawn, so nothing was checked"


@pytest.mark.parametrize("page,user,params_list", VISITS,
                         ids=[f"{p}-{u['role'] if u else 'visitor'}" for p, u, _ in VISITS])
def test_messages_name_no_command_line(demo_store, page, user, params_list):
    problems = []
    for params, at in _runs(page, user, params_list):
        # the Method page's body is the method documentation (also read beside the code), not a message
        kinds = ("info", "warning", "error", "success", "caption") + (() if page == "method.py" else ("markdown",))
        for kind in kinds:
            for element in at.get(kind):
                text = _visible(element.value)
                if FLAG.search(text) or COMMAND.search(text) or "`" in text:
                    problems.append(f"{page} {params} {kind}: {text[:200]!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page,user,params_list", VISITS,
                         ids=[f"{p}-{u['role'] if u else 'visitor'}" for p, u, _ in VISITS])
def test_download_buttons_say_what_they_download(demo_store, page, user, params_list):
    problems = []
    for params, at in _runs(page, user, params_list):
        labels = [b.label for b in at.get("download_button")]
        if len(set(labels)) != len(labels):
            problems.append(f"{page} {params}: repeated labels {labels}")
        problems += [f"{page} {params}: bare label {label!r}" for label in labels
                     if label.strip().lower() in ("download csv", "csv", "download")]
    assert not problems, "\n".join(problems)


def test_nothing_published_says_where_to_publish(tmp_path, monkeypatch):
    """An empty store: the note points at the Organiser page, not at a command."""
    fresh_store(tmp_path, monkeypatch)
    at = run_app()
    notes = [_visible(i.value) for i in at.info]
    assert any("Organiser" in n for n in notes), notes
    assert not [n for n in notes if FLAG.search(n) or COMMAND.search(n) or "`" in n], notes


def _input_error(call):
    from leaderboard.errors import InputError
    with pytest.raises(InputError) as info:
        call()
    return info.value


def test_lower_layer_errors_are_shown_in_web_words(tmp_path):
    """Real errors of the lower layers that name command-line flags reach a page (through the one
    error display, ``common.show_input_error``) saying what to choose there instead."""
    from streamlit.testing.v1 import AppTest
    from test_app_pages import make_judgments

    from leaderboard.human.ranking import rankings
    from leaderboard.ingest import detect_format

    odd = tmp_path / "scores.csv"
    odd.write_text("a,b\n1,2\n", encoding="utf-8")
    judgments = make_judgments("c", "cs-en")
    errors = [_input_error(lambda: detect_format(odd)),
              _input_error(lambda: rankings(judgments.assign(raw=float("nan")), standardise="worker")),
              _input_error(lambda: rankings(judgments, qc="paired-t"))]
    # the lower layers name no flag: they give a code, and each view phrases its own hint
    assert not any(FLAG.search(e.message) for e in errors)
    assert [e.code for e in errors] == ["unknown_format", "no_raw_to_standardise", "all_workers_failed_qc"]
    from leaderboard.cli._hints import cli_message
    assert "--input-format" in cli_message(errors[0]) and "--qc none" in cli_message(errors[2])

    def page(errors):
        import streamlit as st  # noqa: F401

        from leaderboard.webapp import common
        for error in errors:
            common.show_input_error(error)

    at = AppTest.from_function(page, args=(errors,)).run()
    assert not at.exception
    shown = [_visible(e.value) for e in at.error]
    assert len(shown) == 3
    for text in shown:
        assert not FLAG.search(text) and not COMMAND.search(text) and "`" not in text, text
    assert "choose one under “Format”" in shown[0] and "mturk" in shown[0]
    assert "keep the file's z-scores" in shown[1]
    assert "“Worker QC”: none" in shown[2] and "“QC threshold p <”" in shown[2]
