"""Fast bulk inserts inside an open SQLAlchemy transaction: executemany on SQLite, COPY on PostgreSQL."""

from __future__ import annotations

import io
from typing import Sequence

import numpy as np
import pandas as pd
from sqlalchemy import Connection

CHUNK_ROWS = 200_000


def insert_frame(conn: Connection, table: str, frame: pd.DataFrame, progress=None) -> int:
    """Insert every row of ``frame`` (columns = table columns) and return the row count.

    Runs on the connection's DBAPI cursor so the rows join the caller's transaction; NaN and NA
    become NULL. ``progress`` is called with the number of rows written after each chunk.
    """
    columns = list(frame.columns)
    dialect = conn.dialect.name
    driver = conn.connection.driver_connection
    total = 0
    for start in range(0, len(frame), CHUNK_ROWS):
        chunk = frame.iloc[start: start + CHUNK_ROWS]
        if dialect == "postgresql":
            _copy_postgres(driver, table, columns, chunk)
        else:
            _executemany(driver, table, columns, chunk, paramstyle="?")
        total += len(chunk)
        if progress is not None:
            progress(len(chunk))
    return total


def _rows(chunk: pd.DataFrame) -> list[tuple]:
    cols = []
    for name in chunk.columns:
        values = chunk[name]
        if pd.api.types.is_float_dtype(values):
            arr = values.to_numpy(dtype=object)
            arr[np.isnan(values.to_numpy(dtype=float))] = None
        elif pd.api.types.is_integer_dtype(values):
            arr = values.to_numpy().tolist()
        else:
            arr = values.astype(object).where(values.notna(), None).to_numpy(dtype=object)
        cols.append(arr)
    return list(zip(*cols))


def _executemany(driver, table: str, columns: Sequence[str], chunk: pd.DataFrame, paramstyle: str) -> None:
    sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join([paramstyle] * len(columns))})"
    cur = driver.cursor()
    try:
        cur.executemany(sql, _rows(chunk))
    finally:
        cur.close()


def _copy_postgres(driver, table: str, columns: Sequence[str], chunk: pd.DataFrame) -> None:
    buf = io.StringIO()
    chunk.to_csv(buf, header=False, index=False, na_rep="")
    with driver.cursor() as cur:
        with cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN (FORMAT csv)") as copy:
            copy.write(buf.getvalue())
