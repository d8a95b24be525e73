"""Messages quote what the user sent, cut short: a header cell or column name of 200,000 characters
gives an error of a line, not of 200,000 characters."""

from __future__ import annotations

from leaderboard.errors import InputError, brief


def test_short_values_are_quoted_whole():
    assert brief("system") == "system"
    assert brief("x" * 60) == "x" * 60


def test_long_values_are_cut_with_their_length():
    text = brief("y" * 200_000)
    assert text.startswith("y" * 60 + "…") and text.endswith("(200,000 characters)")
    assert len(text) < 100


def test_a_long_column_name_is_cut_in_the_place():
    err = InputError("bad", file="f.csv", line=2, column="c" * 5000)
    assert str(err).startswith("f.csv, line 2, column 'c") and "(5,000 characters)" in str(err)
    assert len(str(err)) < 150
