"""Read the app's HTML tables (``leaderboard.webapp.html_table``) and key figures back (test helper).

A table is read the way a visitor reads it: header texts as column names, each cell's text with
HTML character references resolved. Cells of number columns (class ``num``) become numbers where the
text is one ("1,234" → 1234, "0.125" → 0.125, "–" → NaN); other cells stay text.
"""

from __future__ import annotations

import math
from html.parser import HTMLParser
from types import SimpleNamespace

import pandas as pd

MISSING = "–"


class _Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []
        self._cell: list[str] | None = None
        self._num = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.tables.append({"head": [], "rows": [], "css": [], "row_css": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["row_css"].append(attrs.get("style") or "")
            self.tables[-1]["_row"], self.tables[-1]["_rowcss"] = [], []
        elif tag in ("td", "th"):
            self._cell, self._num = [], "num" in (attrs.get("class") or "").split()
            self._style = attrs.get("style") or ""

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            table, text = self.tables[-1], "".join(self._cell)
            if tag == "th":
                table["head"].append(text)
                table.setdefault("num_cols", []).append(self._num)
            else:
                table["_row"].append(_number(text) if self._num else text)
                table["_rowcss"].append(self._style)
            self._cell = None
        elif tag == "tr" and self.tables and self.tables[-1].get("_row"):
            self.tables[-1]["rows"].append(self.tables[-1].pop("_row"))
            self.tables[-1]["css"].append(self.tables[-1].pop("_rowcss"))


def _number(text: str):
    if text.strip() == MISSING:
        return math.nan
    plain = text.replace(",", "").strip()
    try:
        return int(plain)
    except ValueError:
        try:
            return float(plain)
        except ValueError:
            return text


def read_tables(markup: str) -> list[pd.DataFrame]:
    """Every ``<table>`` in ``markup`` as a frame; ``frame.attrs`` holds ``row_css`` and ``cell_css``."""
    parser = _Tables()
    parser.feed(markup)
    frames = []
    for t in parser.tables:
        frame = pd.DataFrame(t["rows"], columns=t["head"]) if t["rows"] else pd.DataFrame(columns=t["head"])
        frame.attrs = {"row_css": t["row_css"][1:], "cell_css": t["css"]}
        frames.append(frame)
    return frames


def page_tables(at) -> list[pd.DataFrame]:
    """The HTML tables an ``AppTest`` run drew, in page order."""
    return [frame for element in at.get("html") for frame in read_tables(element.value)]


class _Figures(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.figures: list[SimpleNamespace] = []
        self._part: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if "mtlb-figure" in classes:
            self.figures.append(SimpleNamespace(label="", value="", note="", help=None))
        elif self.figures and tag == "div" and classes and classes[0] in ("label", "value", "note"):
            self._part = classes[0]
            if self._part == "label":
                self.figures[-1].help = attrs.get("title")

    def handle_data(self, data):
        if self._part is not None:
            setattr(self.figures[-1], self._part, getattr(self.figures[-1], self._part) + data)

    def handle_endtag(self, tag):
        if tag == "div":
            self._part = None


def read_figures(markup: str) -> list[SimpleNamespace]:
    """The key figures (``leaderboard.webapp.key_figures``) in ``markup``: label, value, note, help."""
    parser = _Figures()
    parser.feed(markup)
    return parser.figures


def page_figures(at) -> list[SimpleNamespace]:
    """The key figures an ``AppTest`` run drew, in page order (each has .label and .value, as st.metric)."""
    return [f for element in at.get("html") for f in read_figures(element.value)]
