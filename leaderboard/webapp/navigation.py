"""The app's pages, registered and linked by ``st.Page`` objects.

Pages are files inside the package and are addressed by absolute path, so links work wherever the
entry script (``app.py``) lives: a source checkout, a copy next to an installed package, a container.
Never link by a path string relative to the entry script.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import streamlit as st

PAGES_DIR = Path(__file__).resolve().parent / "pages"


class PageSpec(NamedTuple):
    file: str
    title: str
    icon: str
    url_path: str


# the first public page is the default one
PUBLIC = [
    PageSpec("leaderboard.py", "Leaderboard", ":material/leaderboard:", "leaderboard"),
    PageSpec("heatmap.py", "Significance", ":material/grid_on:", "significance"),
    PageSpec("system.py", "System", ":material/search:", "system"),
    PageSpec("longitudinal.py", "Across years", ":material/timeline:", "longitudinal"),
    PageSpec("qc.py", "Quality control", ":material/verified:", "qc"),
    PageSpec("automatic.py", "Automatic scores", ":material/scoreboard:", "automatic"),
]
MEMBERS = [
    PageSpec("metrics.py", "Metrics", ":material/functions:", "metrics"),
    PageSpec("organiser.py", "Organiser", ":material/admin_panel_settings:", "organiser"),
    PageSpec("teams.py", "Teams", ":material/groups:", "teams"),
    PageSpec("testsets.py", "Test sets", ":material/assignment:", "testsets"),
    PageSpec("login.py", "Log in", ":material/login:", "login"),
]
SPECS = {spec.url_path: spec for spec in PUBLIC + MEMBERS}
# the annotator's page: reached only through an annotation link, never in the menu
ANNOTATE = PageSpec("annotate.py", "Annotation", ":material/translate:", "annotate")


def page(url_path: str, default: bool = False) -> st.Page:
    """The ``st.Page`` of a registered page, for ``st.navigation``, ``st.page_link`` and ``st.switch_page``."""
    spec = SPECS[url_path]
    return st.Page(PAGES_DIR / spec.file, title=spec.title, icon=spec.icon, url_path=spec.url_path,
                   default=default)


def sections() -> dict[str, list[st.Page]]:
    """The navigation menu: public results first (the leaderboard is the default page), then members."""
    return {"Results": [page(s.url_path, default=i == 0) for i, s in enumerate(PUBLIC)],
            "Members": [page(s.url_path) for s in MEMBERS]}


def annotate_page() -> st.Page:
    """The annotator's page, the only page of an annotator's visit (see :mod:`leaderboard.webapp.annotate_view`)."""
    return st.Page(PAGES_DIR / ANNOTATE.file, title=ANNOTATE.title, icon=ANNOTATE.icon, url_path=ANNOTATE.url_path,
                   default=True)
