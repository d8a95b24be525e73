"""Word-level differences between two outputs of one segment, for the side-by-side viewer.

Outputs are untrusted text: :func:`diff_html` escapes every piece with ``html.escape`` before it
wraps changed pieces in ``<span>`` elements, so no user text reaches the page as markup.
Languages written without spaces (Chinese, Japanese, ...) are compared character by character.
"""

from __future__ import annotations

import difflib
import html
import re
from typing import Sequence

_TOKENS = re.compile(r"\s+|[^\s]+")
#: Inline styles of the changed pieces (the page needs no style sheet).
STYLE = {"delete": "background:#fdd;text-decoration:line-through;", "insert": "background:#cfc;"}


def tokenise(text: str, by_character: bool = False) -> list[str]:
    """Words and the whitespace between them (joined they give back ``text``), or characters."""
    return list(text) if by_character else _TOKENS.findall(text)


def word_diff(a: str, b: str, by_character: bool = False) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The pieces of ``a`` and of ``b`` tagged ``equal`` / ``delete`` (only in a) / ``insert`` (only in b)."""
    ta, tb = tokenise(a, by_character), tokenise(b, by_character)
    left: list[tuple[str, str]] = []
    right: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes():
        if op == "equal":
            left.append(("equal", "".join(ta[i1:i2])))
            right.append(("equal", "".join(tb[j1:j2])))
            continue
        if i2 > i1:
            left.append(("delete", "".join(ta[i1:i2])))
        if j2 > j1:
            right.append(("insert", "".join(tb[j1:j2])))
    return left, right


def pieces_html(pieces: Sequence[tuple[str, str]]) -> str:
    """Escaped HTML of tagged pieces; changed pieces are highlighted."""
    out = []
    for tag, text in pieces:
        safe = html.escape(text, quote=True)
        out.append(safe if tag == "equal" else f'<span class="mtlb-{tag}" style="{STYLE[tag]}">{safe}</span>')
    return "".join(out)


def diff_html(a: str, b: str, by_character: bool = False) -> tuple[str, str]:
    """HTML of both outputs with their differences highlighted (everything escaped)."""
    left, right = word_diff(a, b, by_character)
    return pieces_html(left), pieces_html(right)


def side_by_side_html(rows: Sequence[dict], left_title: str, right_title: str, by_character: bool = False) -> str:
    """A table: line, source, reference, output A, output B (differences highlighted), all escaped.

    ``rows``: dicts with ``line``, ``source``, ``reference``, ``a``, ``b``.
    """
    esc = lambda t: html.escape(str(t), quote=True)  # noqa: E731
    head = ("<tr><th>#</th><th>Source</th><th>Reference</th>"
            f"<th>{esc(left_title)}</th><th>{esc(right_title)}</th></tr>")
    body = []
    for row in rows:
        a_html, b_html = diff_html(str(row["a"]), str(row["b"]), by_character)
        body.append(f"<tr><td>{esc(row['line'])}</td><td>{esc(row['source'])}</td><td>{esc(row['reference'])}</td>"
                    f"<td>{a_html}</td><td>{b_html}</td></tr>")
    return ('<table class="mtlb-compare" style="border-collapse:collapse;width:100%;font-size:0.9em;">'
            f"<thead>{head}</thead><tbody>{''.join(body)}</tbody></table>")
