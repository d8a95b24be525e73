"""The binary COPY encoder: PostgreSQL reads back from its rows exactly what it reads from the same frame
in the text format (awkward text, NULLs, NaN, infinities, signed zeros, the integer extremes), and
frames it cannot encode faithfully are refused before anything is sent."""

from __future__ import annotations

import numpy as np
import pandas as pd
import psycopg
import pytest

from leaderboard.storage import pgbinary
from leaderboard.storage.bulk import copy_postgres

TYPES = {"id": "int4", "big": "int8", "pos": "int4", "name": "text", "score": "float8", "gap": "float8",
         "note": "text"}
TABLE = ("(id integer, big bigint, pos integer, name varchar(200), score double precision, "
         "gap double precision, note text)")


def awkward_frame(n: int = 1000) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    names = ["plain", "tab\there", "back\\slash", "new\nline", "\\N", "", "naïve — 字 🙂", 'quo"te', "x" * 200]
    score = rng.normal(size=n) / 3.0
    score[:6] = [np.inf, -np.inf, -0.0, 5e-324, 1.7976931348623157e308, 0.1]
    gap = rng.normal(size=n)
    gap[rng.random(n) < 0.3] = np.nan
    notes = pd.Categorical.from_codes(np.where(rng.random(n) < 0.4, -1, rng.integers(0, 3, n)), ["a", "ü", "c c"])
    return pd.DataFrame({
        "id": np.arange(n, dtype=np.int64) - 2**31 + 5,
        "big": np.where(np.arange(n) % 2, 2**63 - 1, -2**63).astype(np.int64),
        "pos": np.full(n, 2**31 - 1, dtype=np.int64),
        "name": pd.array(np.array(names, dtype=object)[np.arange(n) % len(names)], dtype="string"),
        "score": score, "gap": gap, "note": notes,
    })


def read_back(conn, table: str) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute(f"SELECT id, big, pos, name, score, gap, note FROM {table} ORDER BY id")
        return cur.fetchall()


def test_binary_rows_read_back_as_the_text_rows(pg_url):
    frame = awkward_frame()
    url = pg_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(url) as conn:
        conn.execute(f"CREATE TABLE by_text {TABLE}")
        conn.execute(f"CREATE TABLE by_binary {TABLE}")
        copy_postgres(conn, "by_text", list(frame.columns), frame)
        copy_postgres(conn, "by_binary", list(frame.columns), frame, types=TYPES)
        text_rows, binary_rows = read_back(conn, "by_text"), read_back(conn, "by_binary")
    assert len(binary_rows) == len(frame)
    assert [r[:4] + r[6:] for r in binary_rows] == [r[:4] + r[6:] for r in text_rows]
    for column in (4, 5):  # floats bit for bit, NaN read as NULL, the sign of zero kept
        got = np.array([np.nan if r[column] is None else r[column] for r in binary_rows])
        want = np.array([np.nan if r[column] is None else r[column] for r in text_rows])
        assert np.array_equal(got.view(np.int64), want.view(np.int64))
    assert binary_rows[0][3] == "plain" and binary_rows[1][3] == "tab\there" and binary_rows[6][3] == "naïve — 字 🙂"
    assert np.signbit(binary_rows[2][4]) and binary_rows[2][4] == 0.0
    assert sum(r[5] is None for r in binary_rows) == int(frame["gap"].isna().sum())
    assert sum(r[6] is None for r in binary_rows) == int(frame["note"].isna().sum())


def test_layout_packs_gapless_numbers_and_keeps_the_rest_in_frame_order():
    frame = awkward_frame(10)
    plan = pgbinary.layout(frame, TYPES)
    assert plan.packed == ("id", "big", "pos", "score")
    assert plan.rest == ("name", "gap", "note")
    assert sorted(plan.columns) == sorted(frame.columns)
    # only the named columns count: another column of the frame (of no known type) is left out
    assert pgbinary.layout(frame.assign(extra=True), TYPES, list(TYPES)) == plan


@pytest.mark.parametrize("column, values, message", [
    ("pos", np.array([1, 2**31], dtype=np.int64), "outside the range of int4"),
    ("pos", np.array([1.0, np.nan]), "whole numbers without gaps"),
    ("pos", np.array([1.5, 2.0]), "whole numbers without gaps"),
    ("score", np.array(["1", "2"], dtype=object), "needs numbers"),
])
def test_values_that_would_not_round_trip_are_refused(column, values, message):
    frame = pd.DataFrame({"pos": np.array([1, 2]), "score": np.array([0.5, 1.5])})
    frame[column] = values
    with pytest.raises(ValueError, match=message):
        pgbinary.layout(frame, {"pos": "int4", "score": "float8"})


def test_unknown_types_are_refused():
    with pytest.raises(ValueError, match="no binary COPY encoding"):
        pgbinary.layout(pd.DataFrame({"flag": [True]}), {"flag": "bool"})


def test_judgments_columns_map_to_their_binary_types():
    from leaderboard.storage import models as m
    from leaderboard.storage.loader import JUDGMENT_COLUMNS
    types = pgbinary.types_of(m.judgments, ["id", *JUDGMENT_COLUMNS])
    assert types["id"] == types["position"] == types["segment_id"] == "int4"
    assert types["raw"] == types["z"] == types["seconds"] == "float8"
    assert types["hit"] == types["doc"] == types["assessment"] == "text"
