"""Every page of the app in a real browser: first visit after a server start, and revisit.

Loads and publishes the demo campaigns (``mtlb demo``) into a fresh SQLite store, then for each page
of :mod:`leaderboard.webapp.navigation`: starts the app on that store as the README does (``mtlb
serve``), and opens the page in Chromium (Playwright) as the first visit after the start, twice:

- ``first_visit``: a browser with an empty cache (a new visitor: Streamlit's front end and the chart
  library are downloaded and compiled during the visit);
- ``first_visit_cached``: a returning visitor, whose browser has the app's static files cached from an
  earlier visit (before the server start); the server side is just as cold.

Pages keep their charts on a tab of their own (tables first, see ``common.lazy_tabs``); ``chart_tab`` is
the time from clicking that tab to the chart drawn, the first chart of the visit (plotly.js compiles).
Then, in the new visitor's session, it goes to another page and back through the sidebar menu, three
times (``revisit``: their median, each in ``revisits``; no page load, warm caches) and reloads the page
(``reload``: a new session). A page
counts as rendered when its own content is visible (a chart page: its first chart drawn) and
Streamlit's running indicator is gone. Prints one JSON object (seconds per page).

    python bench/bench_pages.py [--pages leaderboard metrics] [--one-server] [--cold] [--screenshots]

``--cold`` starts plain ``streamlit run app.py`` instead (no warm-up: the first visit pays imports
and caches). ``--screenshots`` writes docs/screenshots/<page>.png (the README's images; tests leave
it off). ``--one-server`` visits every page on one server (the first page carries the start-up).
Needs Playwright and Debian's chromium (/usr/bin/chromium, or ``--chromium PATH``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
DEMO = "WMT22 cs-en (demo)"
IDLE = "[data-testid='stStatusWidget']"
# what shows that a page has rendered its content (beyond the title): a Playwright selector per page
MARKERS: dict[str, str] = {
    "leaderboard": "[data-testid='stMain'] table.mtlb-table",
    "significance": "[data-testid='stMain'] table.mtlb-table",
    "system": "[data-testid='stMain'] [data-testid='stDataFrame']",
    "longitudinal": "[data-testid='stMain'] table.mtlb-table",
    "qc": "[data-testid='stMain'] .mtlb-figure",
    "automatic": "[data-testid='stMain'] h1:has-text('Automatic scores')",
    "metrics": "[data-testid='stMain'] table.mtlb-table",
    "organiser": "[data-testid='stMain'] h1:has-text('Organiser')",
    "teams": "[data-testid='stMain'] h1:has-text('Teams')",
    "testsets": "[data-testid='stMain'] h1:has-text('Test sets')",
    "login": "[data-testid='stMain'] h1:has-text('Log in')",
}
# pages whose charts sit on a tab of their own (tables first): (the chart tab the bench opens to time a
# chart, the tab that is open by default)
CHART_TABS = {"leaderboard": ("Chart", "Table"), "significance": ("Heat map", "Table"),
              "system": ("Distribution", "Segments"), "longitudinal": ("Charts", "Tables"),
              "metrics": ("Charts", "Tables")}
CHART = "[data-testid='stMain'] .js-plotly-plot"
TARGETS = {"first_visit": 2.0, "first_visit_cached": 2.0, "revisit": 0.3}
# a revisit is timed this many times (to another page and back); ``revisit`` is their median, ``revisits``
# lists each (the first is usually the slowest: the browser has drawn the page only once before)
REVISITS = 3


def page_paths() -> list[str]:
    """The url paths of every registered page, in menu order."""
    from leaderboard.webapp.navigation import MEMBERS, PUBLIC
    return [spec.url_path for spec in PUBLIC + MEMBERS]


def prepare_store(folder: Path) -> float:
    """Load and publish the demo into an empty store in ``folder``; seconds taken."""
    env = {**os.environ, "MTLB_DATA_DIR": str(folder)}
    env.pop("DATABASE_URL", None)
    mtlb = Path(sys.executable).with_name("mtlb")
    start = time.perf_counter()
    subprocess.run([str(mtlb), "demo"], env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


@contextmanager
def server(folder: Path, cold: bool = False, port: int | None = None) -> Iterator[tuple[str, float]]:
    """The app on the store in ``folder``, started as the README starts it (``mtlb serve``: every page
    warmed before it listens), or with plain ``streamlit run app.py`` when ``cold``; yields (base URL,
    seconds until it answered)."""
    from appserver import running_app
    env = {**os.environ, "MTLB_DATA_DIR": str(folder)}
    for name in ("DATABASE_URL", "MTLB_NO_DEMO"):
        env.pop(name, None)
    start = time.perf_counter()
    with running_app(sys.executable, ROOT / "app.py" if cold else None, env=env, cwd=ROOT, log=folder / "streamlit.log",
                     timeout=120, port=port) as base:
        yield base, time.perf_counter() - start


def _rendered(page, path: str, timeout: float = 60_000, marker: str | None = None) -> None:
    marker = marker or MARKERS.get(path, "[data-testid='stMain'] h1")
    page.locator(marker).first.wait_for(state="visible", timeout=timeout)
    page.wait_for_selector(IDLE, state="detached", timeout=timeout)


def _timed(page, path: str, action) -> float:
    start = time.perf_counter()
    action()
    _rendered(page, path)
    return time.perf_counter() - start


def _url(path: str) -> str:
    """The page's address: the default (first) page lives at "/"."""
    return "" if path == page_paths()[0] else path


def _nav(page, path: str):
    return lambda: page.locator("[data-testid='stSidebarNav'] a").filter(
        has_text=_title(path)).first.click()


def _title(path: str) -> str:
    from leaderboard.webapp.navigation import SPECS
    return SPECS[path].title


def _address(base: str, path: str) -> str:
    return f"{base}/{_url(path)}?campaign=" + quote(DEMO) + "&lp=cs-en"


def visit(browser, base: str, path: str, other: str, shots: Path | None, returning=None) -> dict:
    """First visit of ``path`` (a new visitor; and a returning one when ``returning`` is a browser
    context with a primed cache), a revisit through the menu (after ``other``), and a reload."""
    figures = {}
    if returning is not None:
        page = returning.new_page()
        page.set_default_timeout(120_000)
        figures["first_visit_cached"] = round(_timed(page, path, lambda: page.goto(_address(base, path))), 3)
        page.close()
    context = browser.new_context(viewport={"width": 1400, "height": 1100})
    page = context.new_page()
    page.set_default_timeout(120_000)
    first = _timed(page, path, lambda: page.goto(_address(base, path)))
    if shots is not None:
        page.wait_for_timeout(800)
        page.screenshot(path=str(shots / f"{path}.png"), full_page=True)
    if path in CHART_TABS:
        start = time.perf_counter()
        chart_tab, table_tab = CHART_TABS[path]
        page.get_by_role("tab", name=chart_tab, exact=True).first.click()
        _rendered(page, path, marker=CHART)
        figures["chart_tab"] = round(time.perf_counter() - start, 3)
        if shots is not None:
            page.wait_for_timeout(800)  # plotly's transitions
            page.screenshot(path=str(shots / f"{path}-chart.png"), full_page=True)
        page.get_by_role("tab", name=table_tab, exact=True).first.click()  # the page as first shown
        _rendered(page, path)
    revisits = []
    for _ in range(REVISITS):
        _timed(page, other, _nav(page, other))
        revisits.append(_timed(page, path, _nav(page, path)))
    reload_ = _timed(page, path, lambda: page.reload())
    context.close()
    return {"first_visit": round(first, 3), **figures, "revisit": round(statistics.median(revisits), 3),
            "revisits": [round(r, 3) for r in revisits], "reload": round(reload_, 3)}


def prime(context, base: str, paths: list[str]) -> None:
    """Fill a browser context's cache the way an earlier visit would: open every page once."""
    page = context.new_page()
    page.set_default_timeout(120_000)
    for path in paths:
        page.goto(_address(base, path))
        _rendered(page, path)
    page.close()


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="*", help="url paths (default: every page)")
    parser.add_argument("--one-server", action="store_true", help="one server for all pages")
    parser.add_argument("--screenshots", action="store_true", help="write docs/screenshots/<page>.png")
    parser.add_argument("--cold", action="store_true", help="plain `streamlit run app.py` (no warm-up)")
    parser.add_argument("--chromium", default=os.environ.get("BROWSER_PATH", "/usr/bin/chromium"))
    args = parser.parse_args(argv)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if sync_playwright is None or not Path(args.chromium).exists():
        result = {"benchmark": "pages", "skipped": "needs Playwright and Chromium at " + args.chromium}
        print(json.dumps(result))
        return result
    paths = args.pages or page_paths()
    shots = ROOT / "docs" / "screenshots" if args.screenshots else None
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
    result: dict = {"benchmark": "pages", "load_before": os.getloadavg()[0], "cpus": os.cpu_count(),
                    "targets_seconds": TARGETS, "mode": "one server" if args.one_server else "server per page",
                    "start": "streamlit run (cold)" if args.cold else "mtlb serve (warmed)",
                    "pages": {}}
    with tempfile.TemporaryDirectory(prefix="mtlb-bench-pages-") as tmp:
        folder = Path(tmp)
        result["demo_load_and_publish_seconds"] = round(prepare_store(folder), 2)
        from appserver import free_port
        port = free_port()  # one address for every server, so the returning visitor's cache applies
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=ARGS)
            returning = browser.new_context(viewport={"width": 1400, "height": 1100})
            with server(folder, args.cold, port) as (base, _):
                prime(returning, base, paths)
            starts = []

            def one(path: str, base: str) -> None:
                other = "login" if path != "login" else "leaderboard"
                result["pages"][path] = visit(browser, base, path, other, shots, returning)
                print(path, result["pages"][path], file=sys.stderr)

            if args.one_server:
                with server(folder, args.cold, port) as (base, started):
                    starts.append(started)
                    for path in paths:
                        one(path, base)
            else:
                for path in paths:
                    with server(folder, args.cold, port) as (base, started):
                        starts.append(started)
                        one(path, base)
            returning.close()
            browser.close()
    figures = result["pages"].values()
    result["server_start_seconds"] = round(max(starts), 2) if starts else None
    result["slowest"] = {k: max((f[k] for f in figures), default=None)
                         for k in ("first_visit", "first_visit_cached", "revisit", "reload")}
    result["slowest_single_revisit"] = max((max(f["revisits"]) for f in figures), default=None)
    result["pages_over_target"] = {k: sorted(p for p, f in result["pages"].items() if f[k] > t)
                                   for k, t in TARGETS.items()}
    result["targets_met"] = all(result["slowest"][k] is not None and result["slowest"][k] <= t
                                for k, t in TARGETS.items())
    result["load_after"] = os.getloadavg()[0]
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
