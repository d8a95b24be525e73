"""One long browser scenario: Chromium (Debian's) drives the real app started with ``streamlit run``.

Screenshots of each page go to test-artifacts/screenshots/ (tests never write tracked files;
the README's images in docs/screenshots/ come from ``make docs-images``, i.e. bench/bench_pages.py).
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import quote

import pandas as pd
import pytest

from appserver import running_app

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
SIMULATED = "Simulated crowd (demo)"
SHOTS = ROOT / "test-artifacts" / "screenshots"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _prepare_store(folder: Path) -> str:
    """An empty store with one organiser account: the app itself loads the demo on its first start."""
    os.environ["MTLB_DATA_DIR"] = str(folder)
    from leaderboard.accounts.auth import create_user
    from leaderboard.publish.demo import DEMO_CAMPAIGN
    from leaderboard.storage import Store, default_url
    store = Store(default_url())
    create_user(store, "olga", "organiser-pass", "organiser")
    assert store.snapshots().empty
    return DEMO_CAMPAIGN


@contextmanager
def serve_app(folder: Path, prepare: Callable[[Path], Any], **extra_env: str) -> Iterator[tuple[str, Any]]:
    """``prepare(folder)`` a store there (with MTLB_DATA_DIR pointing at it), then serve the app on it
    (:func:`app_in`, with ``extra_env``); yields (base URL, what ``prepare`` returned). Skips without
    chromium / Playwright."""
    if not Path(CHROMIUM).exists():
        pytest.skip("/usr/bin/chromium is not installed")
    pytest.importorskip("playwright.sync_api")
    old = os.environ.get("MTLB_DATA_DIR")
    try:
        prepared = prepare(folder)
    finally:
        if old is None:
            os.environ.pop("MTLB_DATA_DIR", None)
        else:
            os.environ["MTLB_DATA_DIR"] = old
    with app_in(folder, **extra_env) as base:
        yield base, prepared


@contextmanager
def app_in(folder: Path, **extra_env: str) -> Iterator[str]:
    """``mtlb serve`` (the README's start: pages warmed before it listens) with its own MTLB_DATA_DIR
    (and ``extra_env``); yields the base URL."""
    env = {**os.environ, "MTLB_DATA_DIR": str(folder), "BROWSER_PATH": CHROMIUM}
    env.pop("DATABASE_URL", None)
    env.pop("MTLB_NO_DEMO", None)
    env.update(extra_env)
    with running_app(sys.executable, None, env=env, cwd=ROOT, log=folder / "streamlit.log",
                     timeout=90) as base:
        yield base


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serve_app(tmp_path_factory.mktemp("app-store"), _prepare_store) as (base, campaign):
        yield {"base": base, "campaign": campaign}


def _shot(page, name: str, full_page: bool = True) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(600)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"


def _wait_idle(page) -> None:
    """Wait until Streamlit has finished the current script run: the app root reports the script state
    (``notRunning``) and the running indicator is gone. A short pause first lets a rerun that a click
    has just asked for register before the state is read."""
    page.wait_for_timeout(300)
    page.wait_for_selector(IDLE, state="attached", timeout=180000)
    page.wait_for_selector("[data-testid='stStatusWidget']", state="detached", timeout=180000)


def _select(page, scope, label: str, option: str, attempts: int = 4) -> None:
    """Choose ``option`` in the select box labelled ``label`` and wait for the rerun it starts.

    A rerun that lands while the list is open redraws the box and closes the list (the option is
    detached for good); the box is then opened again, on an idle page, and the option clicked again."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    box = scope.locator("[data-testid='stSelectbox']").filter(has_text=label).first
    for _ in range(attempts):
        _wait_idle(page)
        box.click()
        try:
            page.get_by_role("option", name=option, exact=True).click(timeout=15000)
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
            continue
        _wait_idle(page)
        return
    raise AssertionError(f"could not choose {option!r} in the select box {label!r}")


def _canonical_upload(path: Path, bad: bool = False) -> Path:
    rows = ["lp,assessment,worker,hit,position,segment,system,item_type,raw,z"]
    for w in range(2):
        for i, (seg, sys_) in enumerate([(s, y) for s in range(1, 6) for y in ("sysA", "sysB")]):
            raw = "oops" if bad and w == 1 and i == 2 else str(50 + 10 * (sys_ == "sysA") + seg)
            rows.append(f"fr-en,adequacy,W{w},H{w},{i + 1},{seg},{sys_},SYSTEM,{raw},")
    path.write_text("\n".join(rows) + "\n")
    return path


def test_participant_and_organiser_scenario(server, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    base, campaign = server["base"], server["campaign"]
    q = "campaign=" + quote(campaign)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1500})
        page.set_default_timeout(180000)  # three test processes share two cores in CI
        expect.set_options(timeout=60000)  # the machine is shared; Streamlit reruns can take seconds

        # first start of an empty store: the app loads and publishes the demo campaigns itself
        page.goto(base + "/")
        expect(page.get_by_role("heading", name="Leaderboard")).to_be_visible(timeout=120000)
        table = page.locator("table.mtlb-table")
        expect(table).to_contain_text("Ave. z", timeout=120000)
        # participant: the leaderboard of the WMT22 excerpt (stable link)
        page.goto(base + "/?" + q)
        expect(table).to_contain_text("Online-W.2")
        expect(table).to_contain_text("HUMAN-C †")  # human translations marked
        expect(table).to_contain_text("Ave. z 95% CI")  # intervals from the published snapshot
        page.get_by_role("tab", name="Rank stability").click()
        expect(page.locator(".js-plotly-plot")).to_have_count(1)  # the rank-stability heat map
        page.get_by_role("tab", name="Table", exact=True).click()
        expect(table).to_contain_text("Online-W.2")
        _wait_idle(page)
        _shot(page, "01-leaderboard")
        # switch the campaign and the language pair in the sidebar
        sidebar = page.locator("[data-testid='stSidebar']")
        _select(page, sidebar, "Campaign", SIMULATED)
        expect(table).not_to_contain_text("HUMAN-C")
        _select(page, sidebar, "Language pair", "en-de")
        expect(table).to_contain_text("sys")
        assert "lp=en-de" in page.url
        _shot(page, "02-leaderboard-simulated-en-de")
        # quality control of the simulated crowd: random clickers fail
        page.goto(base + "/qc?campaign=" + quote(SIMULATED) + "&lp=de-en")
        expect(page.get_by_role("heading", name="Quality control")).to_be_visible()
        expect(page.get_by_text("Workers kept")).to_be_visible()
        _wait_idle(page)
        _shot(page, "05-qc")

        # significance heat map and a system page (stable links)
        page.goto(base + "/significance?" + q + "&lp=cs-en")
        expect(page.get_by_role("heading", name="Pairwise significance")).to_be_visible()
        expect(page.locator("table.mtlb-table")).to_contain_text("1. Online-W.2")  # head-to-head table
        page.get_by_role("tab", name="Heat map").click()
        expect(page.locator(".js-plotly-plot").first).to_be_visible()
        assert "tab=Heat+map" in page.url or "tab=Heat%20map" in page.url  # the tab is part of the link
        _wait_idle(page)
        _shot(page, "03-significance")
        # a table's CSV is written when its button is clicked (deferred), and arrives complete
        page.get_by_role("tab", name="All p-values").click()
        _wait_idle(page)
        with page.expect_download() as info:
            page.get_by_role("button", name="Download p-values (CSV)").click()
        pvalues = pd.read_csv(info.value.path())
        assert list(pvalues.columns) == ["better", "worse", "p_value", "significance"]
        assert len(pvalues) == 12 * 11 and pvalues["p_value"].between(0, 1).all()
        page.goto(base + "/system?" + q + "&lp=cs-en&system=Online-B.0&vs=Online-W.2")
        expect(page.get_by_text("Online-B.0 · cs-en · adequacy")).to_be_visible()
        expect(page.get_by_text("do not index the stored test-set texts")).to_be_visible()
        _wait_idle(page)
        _shot(page, "04-system")
        # metrics: BLEU and chrF baselines of the stored WMT22 outputs against the published human scores
        page.goto(base + "/metrics?" + q + "&lp=cs-en")
        expect(page.get_by_role("heading", name="Metrics")).to_be_visible()
        expect(page.get_by_text("Correlation of every metric with human Ave z")).to_be_visible(timeout=120000)
        _wait_idle(page)
        _shot(page, "05b-metrics")
        page.get_by_role("tab", name="Charts").click()
        expect(page.locator(".js-plotly-plot")).to_have_count(3)  # scatter, clusters, Williams heat map
        page.locator(".js-plotly-plot").nth(2).scroll_into_view_if_needed()  # the Williams heat map
        _shot(page, "05c-metrics-williams", full_page=False)

        # the organiser page refuses anonymous visitors
        page.goto(base + "/organiser")
        expect(page.get_by_text("Log in to create campaigns")).to_be_visible()

        # log in as organiser
        page.goto(base + "/login")
        page.get_by_label("User name").fill("olga")
        page.get_by_role("textbox", name="Password").fill("organiser-pass")
        page.get_by_role("button", name="Log in").click()
        expect(page.get_by_role("heading", name="Organiser")).to_be_visible()
        _wait_idle(page)

        # a failing upload shows its error with file, line and column; nothing is stored
        page.get_by_role("tab", name="Upload judgments").click()
        panel = page.locator("[role='tabpanel']:visible")
        _select(page, panel, "Campaign", campaign)
        uploader = panel.locator("[data-testid='stFileUploader'] input[type='file']").first
        uploader.set_input_files(str(_canonical_upload(tmp_path / "bad-upload.csv", bad=True)))
        _wait_idle(page)
        panel.get_by_role("button", name="Validate and store").click()
        error = page.locator("[data-testid='stAlertContentError']")
        expect(error).to_contain_text("bad-upload")
        expect(error).to_contain_text("line 14")
        expect(error).to_contain_text("raw")
        _shot(page, "06-upload-error")
        # a good upload is stored with a progress bar
        uploader.set_input_files(str(_canonical_upload(tmp_path / "good-upload.csv")))
        _wait_idle(page)
        panel.get_by_role("button", name="Validate and store").click()
        expect(page.get_by_text("Stored 20 judgments")).to_be_visible()
        _shot(page, "07-upload-ok")

        # preview and publish a new version of cs-en
        page.get_by_role("tab", name="QC, preview and publish").click()
        panel = page.locator("[role='tabpanel']:visible")
        _select(page, panel, "Campaign", campaign)
        _select(page, panel, "Language pair", "cs-en")
        panel.get_by_role("button", name="Preview ranking").click()
        expect(panel.locator("table.mtlb-table")).to_contain_text("Online-W.2")
        panel.get_by_label("Note for this version").fill("browser test correction")
        panel.get_by_label("Note for this version").press("Enter")
        _wait_idle(page)
        panel.get_by_role("button", name="Publish as version v2").click()
        # the success message (not the button's own label): publishing computes the version's page
        # artifacts (sacrebleu baselines included) before it commits
        expect(page.locator("[data-testid='stAlertContentSuccess']")).to_contain_text("as version v2",
                                                                                       timeout=120000)
        _shot(page, "08-published")
        # a participant (fresh browser context, no login) sees v2 as the latest version
        other = browser.new_page(viewport={"width": 1400, "height": 1200})
        other.set_default_timeout(60000)
        other.goto(base + "/?" + q + "&lp=cs-en")
        _wait_idle(other)
        expect(other.get_by_role("combobox", name="Version")).to_have_value("v2 (latest)", timeout=60000)
        expect(other.get_by_text("browser test correction")).to_be_visible()
        _shot(other, "09-participant-sees-v2")
        browser.close()
