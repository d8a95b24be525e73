"""The pages' HTML tables (leaderboard.webapp.html_table): escaping, formats, alignment, styles."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from htmltables import read_tables
from leaderboard.webapp.html_table import table_html


def test_user_text_is_escaped_and_reads_back_literally():
    hostile = ['<script>alert("x")</script>', "**bold** & <b>b</b>", "O'Neil \"q\""]
    markup = table_html(pd.DataFrame({"System <i>": hostile, "Ave": [1.0, 2.0, 3.0]}))
    assert "<script>" not in markup and "<b>" not in markup and "<i>" not in markup
    (back,) = read_tables(markup)
    assert list(back.columns) == ["System <i>", "Ave"]
    assert list(back["System <i>"]) == hostile


def test_formats_missing_values_and_number_alignment():
    frame = pd.DataFrame({"name": ["a", "b", "c"], "score": [0.12345, np.nan, -1.5], "n": [1234, 5, 60],
                          "ci": ["0.1 – 0.2", "—", "0.3 – 0.4"]})
    markup = table_html(frame, {"score": "{:.3f}", "n": "{:,.0f}"}, number_columns=["ci"])
    (back,) = read_tables(markup)
    assert back["score"].iloc[0] == 0.123 and math.isnan(back["score"].iloc[1]) and back["score"].iloc[2] == -1.5
    assert list(back["n"]) == [1234, 5, 60]
    assert ">1,234<" in markup and ">–<" in markup and ">-1.500<" in markup
    # text columns are left as written; number columns (dtype or named) right-aligned
    assert '<th class="num">score</th>' in markup and '<th class="num">ci</th>' in markup
    assert "<th>name</th>" in markup
    assert list(back["name"]) == ["a", "b", "c"]


def test_row_and_cell_styles_land_on_their_rows_and_cells():
    frame = pd.DataFrame({"a": ["x", "y"], "b": ["1", "2"]})
    markup = table_html(frame, row_css=["", "border-top: 3px solid #1f4e99;"],
                        cell_css=[["", "background-color: #fff;"], ["color: white;", ""]])
    (back,) = read_tables(markup)
    assert back.attrs["row_css"] == ["", "border-top: 3px solid #1f4e99;"]
    assert back.attrs["cell_css"] == [["", "background-color: #fff;"], ["color: white;", ""]]


def test_an_empty_frame_is_a_table_with_headers_only():
    (back,) = read_tables(table_html(pd.DataFrame(columns=["a", "b"])))
    assert list(back.columns) == ["a", "b"] and back.empty


def test_leaderboard_table_rules_between_clusters_and_marks_humans():
    from leaderboard.webapp.pages.leaderboard import table_markup
    table = pd.DataFrame({"rank": ["1", "2-3", "2-3", "4"], "system": ["A", "HUMAN-B", "C", "D"],
                          "human": [False, True, False, False], "ave": [80.0, 75.0, 74.5, 60.0],
                          "ave_z": [0.5, 0.2, 0.19, -0.7], "cluster": [1, 2, 2, 3], "n": [100, 100, 100, 100]})
    (back,) = read_tables(table_markup(table))
    assert list(back["System"]) == ["A", "HUMAN-B †", "C", "D"]
    assert list(back["Ave. z"]) == [0.5, 0.2, 0.19, -0.7]
    rows = back.attrs["row_css"]
    assert "border-top" not in rows[0] and "border-top" in rows[1] and "border-top" not in rows[2] \
        and "border-top" in rows[3]
    assert "color: #6b6b6b" in rows[1] and "color" not in rows[0].replace("background-color", "")


def test_key_figures_escape_text_and_keep_notes_and_help():
    from htmltables import read_figures
    from leaderboard.webapp.key_figures import Figure, figures_html
    markup = figures_html([Figure("p (<b>x</b> better)", "0.001", help='said "so"'),
                           Figure("Kendall τ", "0.788", note="95% CI [0.333, 1.000]")])
    assert "<b>" not in markup and "grid-template-columns:repeat(2," in markup
    first, second = read_figures(markup)
    assert (first.label, first.value, first.help, first.note) == ("p (<b>x</b> better)", "0.001", 'said "so"', "")
    assert (second.label, second.value, second.note, second.help) == ("Kendall τ", "0.788", "95% CI [0.333, 1.000]",
                                                                      None)
