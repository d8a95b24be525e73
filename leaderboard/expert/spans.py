"""Error spans marked in output text, as escaped HTML (outputs are untrusted: every piece is escaped)."""

from __future__ import annotations

import html
from typing import Iterable

SEVERITY_COLOURS = {"major": "#f4a6a6", "critical": "#e57373", "minor": "#ffe08a", "neutral": "#d9e2ef",
                    "undecided": "#d9e2ef"}


def mark_spans(text: str, spans: Iterable[tuple[int | None, int | None, str]]) -> str:
    """``text`` as HTML with each (start, end, severity) span in a coloured ``<mark>``.

    Overlapping spans are merged into the first one; spans without a location (omissions), and spans
    starting at or past the end of the text (Pearmut's special tokens such as ``[missing]`` sit there),
    are listed after the text; other offsets outside the text are clipped.
    """
    text = str(text)
    placed, missing = [], []
    for start, end, severity in spans:
        if start is None or end is None or int(start) >= len(text):
            missing.append(str(severity))
            continue
        start, end = max(0, int(start)), min(len(text), int(end))
        if end > start:
            placed.append((start, end, str(severity)))
    placed.sort()
    parts, pos = [], 0
    for start, end, severity in placed:
        if start < pos:
            continue
        colour = SEVERITY_COLOURS.get(severity.lower(), "#d9e2ef")
        parts.append(html.escape(text[pos:start]))
        parts.append(f'<mark title="{html.escape(severity)}" style="background:{colour}">'
                     f"{html.escape(text[start:end])}</mark>")
        pos = end
    parts.append(html.escape(text[pos:]))
    if missing:
        parts.append(" <em>[" + ", ".join(html.escape(s) + " error without a location" for s in missing) + "]</em>")
    return "".join(parts)
