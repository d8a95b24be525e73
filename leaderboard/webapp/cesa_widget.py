"""The contrastive-ESA page as a Streamlit component of our own (``components/cesa/index.html``), and the
campaign's media served by the app from its asset folder.

Why a component: K translations side by side with markable words and special tokens, a score that
starts unset, keys for everything and a pointer at what is missing — none of that exists among
Streamlit's widgets (see :mod:`leaderboard.webapp.annotate_widget`). Media: a folder declared as a
component's folder is served by Streamlit itself under ``/component/<name>/<file>``, refusing any path
that leaves the folder; each campaign's asset folder is declared once (its name carries a hash of the
folder), so videos and screenshots come from this server, never from the internet.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Callable

import streamlit.components.v1 as components

FOLDER = Path(__file__).resolve().parent / "components" / "cesa"
NAME = "mtlb_cesa"
#: the annotation endpoint's path below the app's base path (:mod:`leaderboard.webapp.annotation_api`), and the
#: same address relative to the component's page (``<base>/component/<name>/index.html``), so it holds behind any
#: base path or proxy prefix
API_PATH = "mtlb-api/cesa"
API_ADDRESS = "../../" + API_PATH


def _component():
    return components.declare_component(NAME, path=str(FOLDER))


def asset_address(folder: str | Path | None) -> Callable[[str], str] | None:
    """Declare the asset folder as served and return path → address (relative to the page component's frame)."""
    if not folder or not Path(folder).is_dir():
        return None
    name = "assets_" + hashlib.sha256(str(Path(folder).resolve()).encode("utf-8")).hexdigest()[:16]
    components.declare_component(name, path=str(Path(folder).resolve()))
    served = f"{__name__}.{name}"
    from urllib.parse import quote
    return lambda path: f"../{served}/{quote(path)}"


def cesa_page(task: dict[str, Any], key: str) -> Any:
    """Show one cESA page. The browser sends a value only to ask for a rerun (the work is complete); answers go to
    the annotation endpoint."""
    return _component()(task=task, key=key, default=None)
