"""Media a source refers to (WMT26's videos and screenshots): found in HTML, kept inside the asset folder.

A campaign's source may be HTML holding ``<video src=…>`` (or ``<source src=…>`` inside it) and
``<img src=…>``; a WMT26 test set names them as ``{"id", "path"}``. The service serves them from the
campaign's asset folder and nothing else, so a path must be relative and stay inside that folder:
an absolute path, a URL with a scheme (``https:``, ``file:``, ``data:``), or ``..`` steps that leave
the folder are refused. With the folder given, the path must also name an existing file after
symbolic links are followed.
"""

from __future__ import annotations

import os
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

#: HTML elements whose ``src`` (or ``poster``) names a file the annotator's page loads
MEDIA_TAGS: frozenset[str] = frozenset({"video", "audio", "source", "img", "track"})


class _MediaRefs(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.refs: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in MEDIA_TAGS:
            for name, value in attrs:
                if name in ("src", "poster") and value is not None:
                    self.refs.append((tag, value))

    handle_startendtag = handle_starttag


def media_references(html: str) -> list[tuple[str, str]]:
    """``(tag, path)`` of every media file an HTML fragment loads (``<video src>``, ``<source src>``, ``<img src>``…)."""
    parser = _MediaRefs()
    parser.feed(html)
    parser.close()
    return parser.refs


def asset_problem(path: str, assets: str | os.PathLike | None = None) -> str | None:
    """Why ``path`` may not be served from the asset folder, or None when it may.

    Refused: an empty path, a URL with a scheme or host, an absolute path (also a Windows drive or
    a leading backslash), a path whose ``..`` steps leave the folder; with ``assets`` given, a path
    that resolves (links followed) outside it or names no file.
    """
    text = str(path).strip()
    if not text:
        return "the path is empty"
    parts = urlsplit(text)
    if parts.scheme or parts.netloc:
        return f"{text!r} is a URL; media must be files of the campaign's asset folder (no internet)"
    plain = unquote(parts.path).replace("\\", "/")
    if plain.startswith("/") or (len(plain) > 1 and plain[1] == ":"):
        return f"{text!r} is an absolute path; give it relative to the campaign's asset folder"
    depth = 0
    for part in PurePosixPath(plain).parts:
        depth += -1 if part == ".." else (0 if part == "." else 1)
        if depth < 0:
            return f"{text!r} leaves the campaign's asset folder"
    if assets is not None:
        root = Path(assets).resolve()
        target = (root / plain).resolve()
        if root != target and root not in target.parents:
            return f"{text!r} leads outside the campaign's asset folder (through a link)"
        if not target.is_file():
            return f"{text!r} is not a file of the asset folder {str(root)!r}"
    return None
