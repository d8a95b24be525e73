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
    PageSpec("method.py", "Method", ":material/menu_book:", "method"),
]
MEMBERS = [
    PageSpec("metrics.py", "Metrics", ":material/functions:", "metrics"),
    PageSpec("organiser.py", "Organiser", ":material/admin_panel_settings:", "organiser"),
    PageSpec("teams.py", "Teams", ":material/groups:", "teams"),
    PageSpec("testsets.py", "Test sets", ":material/assignment:", "testsets"),
    PageSpec("login.py", "Log in", ":material/login:", "login"),
]
SPECS = {spec.url_path: spec for spec in PUBLIC + MEMBERS}
# the login page's menu entry once someone is logged in: the same page (same address), which then says who
# is logged in and has the Log out button
ACCOUNT = PageSpec("login.py", "Account", ":material/account_circle:", "login")
# the annotator's page: reached only through an annotation link, never in the menu
ANNOTATE = PageSpec("annotate.py", "Annotation", ":material/translate:", "annotate")


def _logged_in() -> bool:
    return bool(st.session_state.get("user"))


def page(url_path: str, default: bool = False) -> st.Page:
    """The ``st.Page`` of a registered page, for ``st.navigation``, ``st.page_link`` and ``st.switch_page``.
    The login page is titled "Account" while someone is logged in (the menu then offers no "Log in")."""
    spec = ACCOUNT if url_path == ACCOUNT.url_path and _logged_in() else SPECS[url_path]
    return st.Page(PAGES_DIR / spec.file, title=spec.title, icon=spec.icon, url_path=spec.url_path,
                   default=default)


def unknown_path() -> str | None:
    """The path a visitor asked for when no page has it (a stale link such as ``/leaderboard``: the first
    page lives at ``/``), else None. Read from Streamlit's page request before the navigation is built."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    ctx = get_script_run_ctx()
    manager = getattr(ctx, "pages_manager", None)
    name = getattr(manager, "intended_page_name", None)
    if manager is None or getattr(manager, "intended_page_script_hash", None) or not name:
        return None
    known = {spec.url_path for spec in PUBLIC[1:] + MEMBERS}  # the first page's path is "/"
    name = str(name).strip("/")
    return name if name and name not in known and "/" not in name else None


def not_found_page(path: str, home: st.Page) -> st.Page:
    """A hidden page at ``/path`` saying that there is no such page, with a link to ``home``."""
    def render() -> None:
        st.title("Page not found")
        st.write(f"There is no page at /{path}. The address may be from an older version of this site.")
        st.page_link(home, label="Go to the leaderboard", icon=":material/home:")
    return st.Page(render, title="Page not found", url_path=path, visibility="hidden")


def sections(not_found: str | None = None) -> dict[str, list[st.Page]]:
    """The navigation menu: public results first (the leaderboard is the default page), then members.

    ``not_found``: a path no page has (:func:`unknown_path`); a hidden not-found page answers it. The
    first page lives at ``/`` but still reserves its own name, so when that name is asked for (``/leaderboard``),
    it reserves another one for this run."""
    first = PUBLIC[0]
    home = page(first.url_path, default=True)
    if not_found == first.url_path:
        home = st.Page(PAGES_DIR / first.file, title=first.title, icon=first.icon, url_path=f"{first.url_path}-home",
                       default=True)
    menu = {"Results": [home] + [page(s.url_path) for s in PUBLIC[1:]],
            "Members": [page(s.url_path) for s in MEMBERS]}
    if not_found:
        menu[""] = [not_found_page(not_found, home)]
    return menu


def annotate_page() -> st.Page:
    """The annotator's page, the only page of an annotator's visit (see :mod:`leaderboard.webapp.annotate_view`)."""
    return st.Page(PAGES_DIR / ANNOTATE.file, title=ANNOTATE.title, icon=ANNOTATE.icon, url_path=ANNOTATE.url_path,
                   default=True)
