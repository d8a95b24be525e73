"""The annotator's item as a Streamlit component of our own (``components/annotate/index.html``).

Why a component and not Streamlit's widgets: ESA needs words that can be selected and marked minor or
major, with the marks drawn on the text, and both protocols need a slider that starts unset, keys that
move it and a key that submits, and a clear pointer when the score is missing. Streamlit's widgets have
no unset slider, no key bindings and no markable text; word selection through a multiselect of words
would be slow on a long segment and impossible to do with the keyboard alone. The component is one
HTML file of plain JavaScript: no library, no network, no build step when the package is installed.
It sets every text with ``textContent``, so no user text is ever parsed as HTML.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import streamlit.components.v1 as components

FOLDER = Path(__file__).resolve().parent / "components" / "annotate"


def _component():
    # declared on every use, not at import: `mtlb serve` imports the pages while it warms them, before
    # the server (and its component registry) exists; registering the same component again is a no-op
    return components.declare_component("mtlb_annotate", path=str(FOLDER))


def annotate_item(task: dict[str, Any], key: str, on_change: Callable[[], None] | None = None) -> Any:
    """Show one item (``task``: what :mod:`leaderboard.webapp.annotate_view` builds); returns the last answer
    ``{"item", "score", "spans", "nonce"}`` sent from the browser (None before the first)."""
    return _component()(task=task, key=key, default=None, on_change=on_change)
