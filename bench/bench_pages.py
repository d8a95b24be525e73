"""Every page of the app in a real browser: first visit after a server start, and revisit.

Loads and publishes the demo campaigns (``mtlb demo``) into a fresh SQLite store, then for each page
of :mod:`leaderboard.webapp.navigation`: starts ``streamlit run app.py`` on that store, opens the page
in Chromium (Playwright) as the first visit after the start, then goes to another page and back
through the sidebar menu (a revisit in the same session: warm caches, no page reload), then reloads
it (a new session on the warm server). A page counts as rendered when its own element is visible
and Streamlit's running indicator is gone. Prints one JSON object (seconds per page).

    python bench/bench_pages.py [--pages leaderboard metrics] [--one-server] [--screenshots]

``--screenshots`` writes docs/screenshots/<page>.png (the README's images; tests leave it off).
``--one-server`` visits every page on one server (the first page then carries the start-up cost).
Needs Playwright and Debian's chromium (/usr/bin/chromium, or ``--chromium PATH``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
DEMO = "WMT22 cs-en (demo)"
IDLE = "[data-testid='stStatusWidget']"
# what shows that a page has rendered its content (beyond the title): a Playwright selector per page
MARKERS: dict[str, str] = {
    "leaderboard": "[data-testid='stMain'] .js-plotly-plot",
    "significance": "[data-testid='stMain'] .js-plotly-plot",
    "system": "[data-testid='stMain'] .js-plotly-plot",
    "longitudinal": "[data-testid='stMain'] .js-plotly-plot",
    "qc": "[data-testid='stMain'] [data-testid='stMetric']",
    "automatic": "[data-testid='stMain'] h1:has-text('Automatic scores')",
    "metrics": "[data-testid='stMain'] .js-plotly-plot",
    "organiser": "[data-testid='stMain'] h1:has-text('Organiser')",
    "teams": "[data-testid='stMain'] h1:has-text('Teams')",
    "testsets": "[data-testid='stMain'] h1:has-text('Test sets')",
    "login": "[data-testid='stMain'] h1:has-text('Log in')",
}
TARGETS = {"first_visit": 2.0, "revisit": 0.3}


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
    subprocess.run([str(mtlb), "demo", "--if-empty"], env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


@contextmanager
def server(folder: Path) -> Iterator[tuple[str, float]]:
    """``streamlit run app.py`` on the store in ``folder``; yields (base URL, seconds until it answered)."""
    from appserver import running_app
    env = {**os.environ, "MTLB_DATA_DIR": str(folder)}
    for name in ("DATABASE_URL", "MTLB_NO_DEMO"):
        env.pop(name, None)
    start = time.perf_counter()
    with running_app(sys.executable, ROOT / "app.py", env=env, cwd=ROOT, log=folder / "streamlit.log",
                     timeout=120) as base:
        yield base, time.perf_counter() - start


def _rendered(page, path: str, timeout: float = 60_000) -> None:
    page.locator(MARKERS.get(path, "[data-testid='stMain'] h1")).first.wait_for(state="visible", timeout=timeout)
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


def visit(browser, base: str, path: str, other: str, shots: Path | None) -> dict:
    """First visit of ``path``, a revisit through the menu (after ``other``), and a reload."""
    context = browser.new_context(viewport={"width": 1400, "height": 1100})
    page = context.new_page()
    page.set_default_timeout(120_000)
    query = "?campaign=" + quote(DEMO) + "&lp=cs-en"
    first = _timed(page, path, lambda: page.goto(f"{base}/{_url(path)}{query}"))
    if shots is not None:
        page.wait_for_timeout(800)  # plotly's transitions
        page.screenshot(path=str(shots / f"{path}.png"), full_page=True)
    _timed(page, other, _nav(page, other))
    revisit = _timed(page, path, _nav(page, path))
    reload_ = _timed(page, path, lambda: page.reload())
    context.close()
    return {"first_visit": round(first, 3), "revisit": round(revisit, 3), "reload": round(reload_, 3)}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="*", help="url paths (default: every page)")
    parser.add_argument("--one-server", action="store_true", help="one server for all pages")
    parser.add_argument("--screenshots", action="store_true", help="write docs/screenshots/<page>.png")
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
                    "pages": {}}
    with tempfile.TemporaryDirectory(prefix="mtlb-bench-pages-") as tmp:
        folder = Path(tmp)
        result["demo_load_and_publish_seconds"] = round(prepare_store(folder), 2)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=ARGS)
            starts = []
            if args.one_server:
                with server(folder) as (base, started):
                    starts.append(started)
                    for path in paths:
                        other = "login" if path != "login" else "leaderboard"
                        result["pages"][path] = visit(browser, base, path, other, shots)
            else:
                for path in paths:
                    with server(folder) as (base, started):
                        starts.append(started)
                        other = "login" if path != "login" else "leaderboard"
                        result["pages"][path] = visit(browser, base, path, other, shots)
                    print(path, result["pages"][path], file=sys.stderr)
            browser.close()
    figures = result["pages"].values()
    result["server_start_seconds"] = round(max(starts), 2) if starts else None
    result["slowest"] = {k: max((f[k] for f in figures), default=None) for k in ("first_visit", "revisit", "reload")}
    result["targets_met"] = all(result["slowest"][k] is not None and result["slowest"][k] <= t
                                for k, t in TARGETS.items())
    result["load_after"] = os.getloadavg()[0]
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
