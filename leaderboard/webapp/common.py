"""Helpers shared by the pages: the view selection (synced with the URL), downloads, roles, errors."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ..errors import InputError
from ..tables import to_csv_bytes
from . import display, html_table, navigation, state
from .hints import web_message
from .markdown import md_escape


@dataclass(frozen=True)
class View:
    """What the participant pages show: a published snapshot."""
    campaign: str
    lp: str
    assessment: str
    version: int
    latest: int

    @property
    def key(self) -> tuple[str, str, str, str, int]:
        return (state.store_url(), self.campaign, self.lp, self.assessment, self.version)


def slug(text: str) -> str:
    """A safe file-name part."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", str(text)).strip("_") or "table"


def pick(label: str, options: list, key: str, param: str, fmt: Callable[[Any], str] = str,
          container=st.sidebar) -> Any:
    """A selectbox whose value comes from the URL when the page is opened and goes back into it."""
    if not options:
        return None
    wanted = st.query_params.get(param)
    current = st.session_state.get(key)
    if current not in options:
        # a widget's state is dropped on pages that do not show it: fall back to the kept copy
        match = [o for o in options if str(o) == wanted] or \
            [o for o in options if o == st.session_state.get("_keep_" + key)]
        st.session_state[key] = match[0] if match else options[0]
    # the default is the current value too: a browser that resets the widget to its default (seen under
    # load after a tab switch) then sends the value already shown, never the first option
    value = container.selectbox(label, options, index=options.index(st.session_state[key]), key=key,
                                format_func=fmt)
    st.session_state["_keep_" + key] = value
    st.query_params[param] = str(value)
    return value


def sidebar_view() -> View | None:
    """Campaign / language pair / assessment / version pickers over the published snapshots."""
    snaps = state.snapshots(state.store_url())
    if snaps.empty:
        return None
    st.sidebar.markdown("**Published results**")
    # the campaign published most recently comes first (and is the default view)
    recent = snaps.groupby("campaign")["published_at"].max().sort_values(ascending=False, kind="stable")
    campaign = pick("Campaign", list(recent.index), "view_campaign", "campaign")
    part = snaps[snaps["campaign"] == campaign]
    lp = pick("Language pair", sorted(part["lp"].unique()), "view_lp", "lp")
    part = part[part["lp"] == lp]
    assessment = pick("Assessment", sorted(part["assessment"].unique()), "view_assessment", "assessment")
    part = part[part["assessment"] == assessment]
    versions = sorted((int(v) for v in part["version"]), reverse=True)
    latest = versions[0]
    # an older version is kept only when the URL asks for it; otherwise follow the latest
    if st.session_state.get("view_version") not in versions or st.session_state.get("_view_latest") != latest:
        wanted = st.query_params.get("version")
        st.session_state["view_version"] = int(wanted) if wanted and wanted.isdigit() and int(wanted) in versions \
            else latest
        st.session_state["_view_latest"] = latest
    version = st.sidebar.selectbox("Version", versions, index=versions.index(st.session_state["view_version"]),
                                   key="view_version",
                                   format_func=lambda v: f"v{v}" + (" (latest)" if v == latest else ""))
    st.query_params["version"] = str(version)
    return View(campaign, lp, assessment, int(version), latest)


def current_view() -> View | None:
    return st.session_state.get("_view")


def require_view() -> View | None:
    """The selected snapshot, or a note that nothing is published yet."""
    view = current_view()
    if view is None:
        st.info("Nothing has been published yet. Organisers publish rankings on the **Organiser** page "
                "(tab **QC, preview and publish**).")
    return view


def snapshot_view(title: str) -> tuple[View, dict] | None:
    """Title, the chosen published view and its snapshot; None (with a message) when nothing is published."""
    st.title(title)
    view = require_view()
    if view is None:
        return None
    return view, state.snapshot(*view.key)


def snapshot_header(title: str) -> tuple[View, dict] | None:
    """:func:`snapshot_view` plus the campaign / lp / assessment heading and the snapshot caption."""
    found = snapshot_view(title)
    if found is not None:
        view, snap = found
        st.subheader(md_escape(f"{view.campaign} · {view.lp} · {view.assessment}"))
        snapshot_caption(snap, view)
    return found


def snapshot_caption(snap: dict, view: View) -> None:
    older = "" if view.version == view.latest else f" — an older version; the latest is v{view.latest}"
    st.caption(f"Version v{snap['version']}{older} · published {snap.get('published_at', '')[:19].replace('T', ' ')} "
               f"UTC by {md_escape(snap.get('published_by') or 'unknown')} · signature "
               f"{code(snap.get('signature', ''))} · data hash {code((snap.get('data_hash') or '')[:16])}…")
    if snap.get("note"):
        st.caption(f"Note: {md_escape(snap['note'])}")


# ---- downloads ---------------------------------------------------------------------------
def csv_download(frame: pd.DataFrame, name: str, label: str, key: str | None = None) -> None:
    """A CSV download of ``frame`` (its own machine-readable column names) with spreadsheet formulas
    neutralised, written when clicked. ``label`` says what is downloaded: "Download ranking (CSV)"."""
    st.download_button(label, lambda: to_csv_bytes(frame), file_name=f"{slug(name)}.csv", mime="text/csv",
                       key=key or f"csv-{name}", on_click="ignore")


#: the export formats a page offers side by side: file extension -> (name on the button, MIME type)
EXPORT_FORMATS = {"csv": ("CSV", "text/csv"), "json": ("JSON", "application/json"), "tex": ("LaTeX", "text/x-tex")}


def export_downloads(files: Mapping[str, bytes], name: str, what: str, key: str) -> None:
    """A row of downloads of one result, a button per export in ``files`` (CSV, JSON, LaTeX); each says
    what it holds ("Download ranking (CSV)"), its key is ``key`` and the extension."""
    formats = [ext for ext in EXPORT_FORMATS if ext in files]
    for col, ext in zip(st.columns(len(formats)), formats):
        label, mime = EXPORT_FORMATS[ext]
        col.download_button(f"Download {what} ({label})", files[ext], file_name=f"{slug(name)}.{ext}", mime=mime,
                            key=f"{key}-{ext}", on_click="ignore")


def figure_downloads(fig: go.Figure, name: str, what: str) -> None:
    """PNG and SVG downloads of a chart (rendered on click by kaleido), else standalone HTML; each
    button names the chart (``what``: "ranking chart" → "Download ranking chart (PNG)")."""
    cols = st.columns(3)
    if state.static_export_available():
        import plotly.io as pio
        cols[0].download_button(f"Download {what} (PNG)", lambda: pio.to_image(fig, format="png", width=1100, scale=2),
                                file_name=f"{slug(name)}.png", mime="image/png", key=f"png-{name}",
                                on_click="ignore", icon=":material/image:")
        cols[1].download_button(f"Download {what} (SVG)", lambda: pio.to_image(fig, format="svg", width=1100),
                                file_name=f"{slug(name)}.svg", mime="image/svg+xml", key=f"svg-{name}",
                                on_click="ignore", icon=":material/image:")
    cols[2].download_button(f"Download {what} (HTML)", lambda: fig.to_html(include_plotlyjs=True, full_html=True).encode("utf-8"),
                            file_name=f"{slug(name)}.html", mime="text/html", key=f"html-{name}",
                            on_click="ignore", icon=":material/code:")


def lazy_tabs(labels: list[str], key: str = "tab") -> list:
    """Tabs of which only the open one runs (each tab's ``.open``), its label kept in the address
    (``?tab=Chart``) so a link opens it. The first label opens by default: pages put their tables
    first and their plotly charts one click away, because the browser compiles plotly.js (4.7 MB)
    on the first chart it draws, which alone would take a first visit past 2 s."""
    return st.tabs(labels, key=key, bind="query-params", default=labels[0])


def chart(fig: go.Figure, name: str, what: str) -> None:
    """Show a plotly figure with its PNG/SVG/HTML downloads (``what``: the chart in words, for their labels)."""
    st.plotly_chart(fig, key=f"chart-{name}", config={"displaylogo": False,
                                                      "toImageButtonOptions": {"filename": slug(name)}})
    figure_downloads(fig, name, what)


# ---- users and roles ---------------------------------------------------------------------
def current_user() -> dict | None:
    return st.session_state.get("user")


def require_role(*roles: str, action: str) -> dict | None:
    """The logged-in user when their role is one of ``roles``; otherwise explain and return None."""
    user = current_user()
    if user is None:
        st.warning(f"Log in to {action}.")
        st.page_link(navigation.page("login"), label="Log in", icon=":material/login:")
        return None
    if user["role"] not in roles:
        st.error(f"Refused: only {' or '.join(r.replace('-', ' ') + 's' for r in roles)} can {action}; "
                 f"you are logged in as {md_escape(user['name'])} ({user['role'].replace('-', ' ')}).")
        return None
    return user


# ---- the method -------------------------------------------------------------------------
def method_link(doc: str, label: str, container=st) -> None:
    """A link to the Method page showing the method document ``doc`` (e.g. ``"quality-control"``)."""
    container.page_link(navigation.page("method"), label=label, icon=":material/menu_book:",
                        query_params={"doc": doc})


# ---- errors ------------------------------------------------------------------------------
def show_input_error(exc: InputError, container=st) -> None:
    """An upload / input error with the file, line and column, next to where it happened.

    An error that collects several problems lists every one of them (each with its line and column).
    """
    if exc.problems:
        head = f"file **{md_escape(str(exc.file))}**: " if exc.file else ""
        items = "\n".join(f"- {md_escape(p.where(with_file=False) + web_message(p))}"
                          for p in exc.problems)
        container.error(f"{head}{len(exc.problems)} problems (all listed; nothing was stored):\n\n{items}",
                        icon=":material/error:")
        return
    parts = []
    if exc.file:
        parts.append(f"file **{md_escape(str(exc.file))}**")
    if exc.line is not None:
        parts.append(f"line **{exc.line}**")
    if exc.column:
        parts.append(f"column **{md_escape(str(exc.column))}**")
    where = (", ".join(parts) + ": ") if parts else ""
    container.error(f"{where}{md_escape(web_message(exc))}", icon=":material/error:")


def lower_text(text: str) -> str:
    """A message or note of the lower layers for a Markdown element, shown literally (the lower layers
    name no command-line flags)."""
    return md_escape(text)


def code(text: str) -> str:
    """``text`` as a Markdown code span (shown literally; backticks inside are dropped)."""
    return "`" + str(text).replace("`", "'") + "`" if str(text) else ""


def table(frame: pd.DataFrame, headers: dict[str, str] | None = None, formats: dict[str, str] | None = None,
          column_config: dict | None = None, hide_index: bool = True, **options) -> None:
    """An interactive table (``st.dataframe``) of ``frame`` as :func:`.display.prepare` shows it: headers in
    words, yes / no for booleans, no None / nan cells. ``headers`` and ``formats`` (printf style such as
    ``"%.3g"``) and ``column_config`` are keyed by ``frame``'s own column names."""
    shown = display.prepare(frame, headers, formats)
    config = display.renamed(column_config, frame, headers)
    for name, fmt in (formats or {}).items():
        label = (headers or {}).get(name) or display.header(name)
        if label in shown.columns and pd.api.types.is_numeric_dtype(shown[label]) and label not in config:
            config[label] = st.column_config.NumberColumn(format=fmt)
    st.dataframe(shown, hide_index=hide_index, column_config=config or None, **options)


def static_table(frame: pd.DataFrame, columns: dict[str, tuple[str, str | None]] | None = None) -> None:
    """A small table drawn as escaped HTML (:mod:`.html_table`), which the browser shows at once, where
    ``st.table`` and the interactive grid of ``st.dataframe`` first load and compile their own scripts.

    ``columns``: column → (header, format such as ``"{:.3f}"`` or None); other headers are put in words
    (:func:`.display.header`), booleans read yes / no and missing numbers show as "–"."""
    columns = columns or {}
    shown = display.prepare(frame.reset_index(drop=True), {c: h for c, (h, _) in columns.items()},
                            blank_missing=False)
    formats = {}
    for h, fmt in columns.values():
        if fmt and h in shown.columns and pd.api.types.is_numeric_dtype(shown[h]):
            formats[h] = fmt
    html_table.show(shown, formats)

