"""The method documentation (``docs/method/*.md``) as the app's Method page shows it.

The package's ``webapp/method`` folder is a link to ``docs/method`` in a checkout, and holds copies of
those files in a built wheel (package data), so the one text of the method ships with the app. Pages
are addressed by name (``"da"`` for ``da.md``); a name that is not one of the folder's documents is
refused, so a ``?doc=`` parameter can never reach other files.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

DOCS_DIR = Path(__file__).resolve().parent / "method"
INDEX = "README"  # the overview page: the list of documents, topics and the papers cited
# the Method page's address; a link ``method?doc=<name>#<section>`` opens a document at a section
PAGE_PATH = "method"

_TITLE = re.compile(r"^#\s+(.+?)\s*$", re.MULTILINE)
_LISTED = re.compile(r"^\|\s*\[([\w-]+)\.md\]\(", re.MULTILINE)  # the overview's table of documents
# Markdown links to a sibling document, optionally at a section: [text](name.md#section)
_SIBLING = re.compile(r"\]\(([\w-]+)\.md(#[\w-]*)?\)")
# links that leave the method folder, e.g. [formats-mturk.md](../formats-mturk.md)
_OUTSIDE = re.compile(r"\[([^\]]+)\]\(\.\./([\w./-]+\.md)(#[\w-]*)?\)")


class Document(NamedTuple):
    name: str  # the file name without ``.md``
    title: str  # the document's first heading


@lru_cache(maxsize=1)
def documents() -> tuple[Document, ...]:
    """The overview first, then the documents in the overview's order, then any others by name."""
    if not DOCS_DIR.is_dir():
        return ()
    names = sorted(p.stem for p in DOCS_DIR.glob("*.md"))
    if not names:
        return ()
    listed = [n for n in _LISTED.findall(_read(INDEX)) if n in names] if INDEX in names else []
    order = ([INDEX] if INDEX in names else []) + list(dict.fromkeys(listed)) + \
        [n for n in names if n != INDEX and n not in listed]
    return tuple(Document(n, _title(n)) for n in order)


def names() -> list[str]:
    return [d.name for d in documents()]


def _read(name: str) -> str:
    return (DOCS_DIR / f"{name}.md").read_text(encoding="utf-8")


def _title(name: str) -> str:
    match = _TITLE.search(_read(name))
    return match.group(1) if match else name


def markdown(name: str) -> str:
    """A document's Markdown for the Method page: links to sibling documents open them on the page;
    links to files outside the method folder (which the package does not ship) become plain text that
    names the file in the project's ``docs/`` folder."""
    if name not in names():
        raise KeyError(f"no method document named {name!r}")
    text = _read(name)
    text = _SIBLING.sub(lambda m: f"]({PAGE_PATH}?doc={m.group(1)}{m.group(2) or ''})", text)
    return _OUTSIDE.sub(lambda m: f"{m.group(1)} (docs/{m.group(2)} in the project's sources)", text)
