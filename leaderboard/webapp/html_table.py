"""Small tables as one escaped HTML fragment (``st.html``), for the pages' leading tables.

Why not ``st.table``: Streamlit ships a table as Arrow data, so the browser first loads and compiles
its Arrow and formatting scripts (≈ 1 MB) and then renders every cell as Markdown; on the demo data
that cost a first visitor ≈ 0.5 s and every revisit ≈ 0.1 s. One HTML fragment needs neither.
Every header and cell text is HTML-escaped here, so a system or metric name shows literally (the
front end also sanitises the fragment); styles come only from this module's own class names and
the callers' fixed CSS, never from user text.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence

import pandas as pd
import streamlit as st

MISSING = "–"
#: the Findings' rule above the first row of a new significance cluster (a row style)
CLUSTER_RULE = "border-top: 3px solid #1f4e99;"
CSS = """<style>
.mtlb-table-wrap{overflow-x:auto;margin-bottom:.75rem}
.mtlb-table{border-collapse:collapse;font-size:.875rem;line-height:1.4}
.mtlb-table th,.mtlb-table td{padding:.3rem .6rem;border-bottom:1px solid rgba(49,51,63,.12);
  text-align:left;vertical-align:top}
.mtlb-table th{font-weight:600;color:rgba(49,51,63,.7);border-bottom:1px solid rgba(49,51,63,.3);
  vertical-align:bottom}
.mtlb-table th.num{white-space:normal}
.mtlb-table .num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
</style>"""


def cluster_starts(clusters: Sequence) -> list[bool]:
    """For each row, whether it opens a new cluster (its cluster differs from the row above)."""
    return [i > 0 and clusters[i] != clusters[i - 1] for i in range(len(clusters))]


def _attrs(klass: str, style: str) -> str:
    """`` class="…" style="…"`` for a tag, each only when set (the style escaped)."""
    return (f' class="{klass}"' if klass else "") + (f' style="{html.escape(style)}"' if style else "")


def _is_number_column(values: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)


def _cell_text(value, fmt: str | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return MISSING
    if fmt:
        try:
            return fmt.format(value)
        except (ValueError, TypeError):
            return str(value)
    return str(value)


def table_html(frame: pd.DataFrame, formats: Mapping[str, str] | None = None, *,
               row_css: Sequence[str] | None = None, cell_css: Sequence[Sequence[str]] | None = None,
               number_columns: Sequence[str] | None = None) -> str:
    """The frame as an HTML table: headers are the column names, the index is not shown.

    ``formats``: column → format string (``"{:.3f}"``); missing values show as "–". Number columns
    (numeric dtype, or those named in ``number_columns``) are right-aligned and carry the class
    ``num``. ``row_css`` (one inline style per row) and ``cell_css`` (rows × columns) must be fixed
    CSS chosen by the caller, never user text; everything else is escaped.
    """
    formats = dict(formats or {})
    columns = [str(c) for c in frame.columns]
    numeric = {c for c, col in zip(columns, frame.columns) if _is_number_column(frame[col])}
    numeric |= {str(c) for c in number_columns or ()}
    klass = ["num" if c in numeric else "" for c in columns]
    head = "".join(f"<th{_attrs(k, '')}>{html.escape(c)}</th>" for c, k in zip(columns, klass))
    rows = []
    for i, values in enumerate(frame.to_numpy(dtype=object)):
        cells = "".join(
            f"<td{_attrs(klass[j], cell_css[i][j] if cell_css is not None else '')}>"
            f"{html.escape(_cell_text(value, formats.get(columns[j])))}</td>" for j, value in enumerate(values))
        rows.append(f"<tr{_attrs('', row_css[i] if row_css is not None else '')}>{cells}</tr>")
    return (f'{CSS}<div class="mtlb-table-wrap"><table class="mtlb-table"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def show(frame: pd.DataFrame, formats: Mapping[str, str] | None = None, **options) -> None:
    """Draw :func:`table_html` of the frame on the page."""
    st.html(table_html(frame, formats, **options))
