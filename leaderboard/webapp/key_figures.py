"""A row of key figures (label, big value, small note) as one escaped HTML fragment (``st.html``).

Used where a page leads with a few numbers (a system's rank and scores, a metric's correlations, the
QC counts). ``st.metric`` would draw each as its own element and make a first visitor's browser load
the scripts of Streamlit's metric tiles and their help tooltips first (≈ 0.1 s on the demo data).
All text is HTML-escaped; a figure's ``help`` becomes the label's tooltip.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import NamedTuple

import streamlit as st


class Figure(NamedTuple):
    label: str
    value: str
    note: str | None = None
    help: str | None = None


CSS = """<style>
.mtlb-figures{display:grid;gap:1rem;margin:.25rem 0 1rem 0}
.mtlb-figure .label{font-size:.875rem;color:rgb(49,51,63)}
.mtlb-figure .label[title]{text-decoration:underline dotted rgba(49,51,63,.4);cursor:help}
.mtlb-figure .value{font-size:2.25rem;line-height:1.25;padding:.1rem 0}
.mtlb-figure .note{font-size:.8rem;color:rgba(49,51,63,.6)}
</style>"""


def figures_html(figures: Sequence[Figure], columns: int | None = None) -> str:
    """The figures side by side in ``columns`` equal columns (default: one per figure)."""
    cells = []
    for f in figures:
        title = f' title="{html.escape(f.help)}"' if f.help else ""
        note = f'<div class="note">{html.escape(f.note)}</div>' if f.note else ""
        cells.append(f'<div class="mtlb-figure"><div class="label"{title}>{html.escape(f.label)}</div>'
                     f'<div class="value">{html.escape(f.value)}</div>{note}</div>')
    n = columns or max(len(figures), 1)
    return f'{CSS}<div class="mtlb-figures" style="grid-template-columns:repeat({n},minmax(0,1fr))">{"".join(cells)}</div>'


def show(figures: Sequence[Figure], columns: int | None = None) -> None:
    """Draw :func:`figures_html` on the page."""
    st.html(figures_html(figures, columns))
