"""Organiser and metric-developer flows in a real browser (Debian's chromium driving `streamlit run`).

- a login survives a reload and a link opened in a new tab; logging out ends it (also for a copied cookie);
- user text (system, campaign, metric and file names, notes) is shown literally on every page;
- the evaluation package of the demo campaign round-trips: download, score, upload, accepted;
- the System page of the simulated (raw-only) demo campaign shows numbers, never None / nan.
"""

from __future__ import annotations

import io
import os
import re
import time
import zipfile
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pandas as pd
import pytest

from stores import copy_store
from test_browser_app import ARGS, CHROMIUM, _select, _shot, _wait_idle, serve_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HOSTILE_CAMPAIGN = "Hostile **campaign** [c](http://example.com/c)"
HOSTILE_SYSTEMS = ["**bold**.1", "[link](http://example.com/s).2", '=HYPERLINK("http://example.com/h","y").3',
                   "<b>html</b>.4"]
HOSTILE_METRIC = "**metric** [m](http://example.com/m)"
HOSTILE_FILE = "<b>file</b> [f](http://example.com/f).csv"
HOSTILE_NOTE = "**note** [n](http://example.com/n) <b>b</b>"
LP = "fr-en"


def _hostile_frame() -> pd.DataFrame:
    rng = np.random.default_rng(4)
    rows = []
    quality = dict(zip(HOSTILE_SYSTEMS, (80.0, 65.0, 50.0, 35.0)))
    for w in range(4):
        pos = 0
        for seg in range(1, 21):
            for s in HOSTILE_SYSTEMS:
                pos += 1
                rows.append({"campaign": HOSTILE_CAMPAIGN, "lp": LP, "assessment": "adequacy", "worker": f"W{w}",
                             "hit": f"H{w}", "position": pos, "segment": str(seg), "system": s,
                             "item_type": "SYSTEM", "raw": float(np.clip(quality[s] + rng.normal(0, 8), 0, 100)),
                             "z": np.nan, "seconds": 10.0, "doc": "d1"})
    return pd.DataFrame(rows)


def _prepare(folder: Path, demo_template: Path) -> None:
    os.environ["MTLB_DATA_DIR"] = str(folder)
    from leaderboard.accounts.auth import create_user
    from leaderboard.publish.snapshots import publish_rankings
    from leaderboard.schema import normalise_dtypes
    from leaderboard.storage import Store, default_url
    copy_store(demo_template, folder)  # the published demo
    store = Store(default_url())
    create_user(store, "olga", "organiser-pass", "organiser")
    create_user(store, "mdev", "developer-pass", "metric-developer")
    frame = normalise_dtypes(_hostile_frame())
    store.load_judgments(frame, file_name=HOSTILE_FILE, input_format="canonical")
    publish_rankings(store, HOSTILE_CAMPAIGN, "olga", qc="none", note=HOSTILE_NOTE)
    scores = pd.DataFrame({"lp": LP, "system": HOSTILE_SYSTEMS, "segment": None, "score": [4.0, 3.0, 2.5, 1.0]})
    store.save_metric_submissions(HOSTILE_CAMPAIGN, scores.assign(metric=HOSTILE_METRIC), level="system", owner="mdev",
                                  public=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory, demo_template):
    folder = tmp_path_factory.mktemp("members-store")
    with serve_app(folder, lambda f: _prepare(f, demo_template)) as (base, _):
        yield {"base": base, "folder": folder}


@pytest.fixture()
def browser(server):
    from playwright.sync_api import expect, sync_playwright
    expect.set_options(timeout=90000)  # the machine is shared (three test processes on two cores in CI)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


def _page(context):
    page = context.new_page()
    page.set_default_timeout(180000)
    return page


def _login(page, base: str, name: str, password: str, heading: str) -> None:
    from playwright.sync_api import expect
    page.goto(base + "/login")
    page.get_by_label("User name").fill(name)
    page.get_by_role("textbox", name="Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name=heading)).to_be_visible(timeout=90000)
    _wait_idle(page)
    # the session cookie is written by a small script the page runs after the login
    page.wait_for_function("document.cookie.indexOf('mtlb_session=') >= 0", timeout=60000)


def _store(server):
    from leaderboard.storage import Store
    return Store(f"sqlite:///{server['folder'] / 'mtlb.sqlite'}")


# ---- 5. sessions -----------------------------------------------------------------------------------
def test_login_survives_reload_and_new_tab_and_logout_ends_it(server, browser):
    from playwright.sync_api import expect
    base = server["base"]
    context = browser.new_context(viewport={"width": 1400, "height": 1100})
    page = _page(context)
    _login(page, base, "olga", "organiser-pass", "Organiser")
    sidebar = page.locator("[data-testid='stSidebar']")
    expect(sidebar).to_contain_text("Logged in as olga")
    nav = page.locator("[data-testid='stSidebarNav']")
    # the menu offers the account page, not "Log in" (issue 42.9)
    expect(nav.get_by_role("link", name="Account", exact=True)).to_have_count(1)
    expect(nav.get_by_role("link", name="Log in", exact=True)).to_have_count(0)
    # the browser holds only a random id; the store only its hash
    page.wait_for_function("document.cookie.includes('mtlb_session=')")
    cookie = next(c for c in context.cookies() if c["name"] == "mtlb_session")
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", cookie["value"]) and cookie["sameSite"] == "Strict"
    assert cookie["expires"] > time.time() + 3600
    from sqlalchemy import text
    with _store(server).engine.connect() as conn:
        hashes = conn.execute(text("SELECT token_hash FROM web_sessions WHERE revoked = 0")).scalars().all()
    import hashlib
    assert hashlib.sha256(cookie["value"].encode()).hexdigest() in hashes and cookie["value"] not in hashes

    page.reload()
    expect(page.get_by_role("heading", name="Organiser")).to_be_visible()
    expect(page.locator("[data-testid='stSidebar']")).to_contain_text("Logged in as olga")
    # a login restored from the cookie builds the same menu on the reload's first run
    expect(nav.get_by_role("link", name="Account", exact=True)).to_have_count(1)
    expect(nav.get_by_role("link", name="Log in", exact=True)).to_have_count(0)
    expect(page.get_by_text("Log in to create campaigns")).to_have_count(0)

    deep = _page(context)  # a link opened in a new tab of the same browser
    deep.goto(base + "/organiser")
    expect(deep.get_by_role("heading", name="Organiser")).to_be_visible()
    expect(deep.get_by_role("tab", name="Imports")).to_be_visible()
    expect(deep.locator("[data-testid='stSidebar']")).to_contain_text("Logged in as olga")
    deep.goto(base + "/metrics?campaign=" + quote("WMT22 cs-en (demo)") + "&lp=cs-en")
    expect(deep.get_by_role("tab", name="Upload scores")).to_be_visible()
    deep.get_by_role("tab", name="Upload scores").click()
    expect(deep.get_by_text("Log in to upload metric scores")).to_have_count(0)
    deep.close()

    page.locator("[data-testid='stSidebar']").get_by_role("button", name="Log out").click()
    expect(page.get_by_text("Log in to create campaigns")).to_be_visible()
    page.wait_for_function("!document.cookie.includes('mtlb_session=')")
    page.reload()
    expect(page.get_by_text("Log in to create campaigns")).to_be_visible()
    expect(page.locator("[data-testid='stSidebar']")).not_to_contain_text("Logged in as")
    expect(nav.get_by_role("link", name="Log in", exact=True)).to_have_count(1)
    expect(nav.get_by_role("link", name="Account", exact=True)).to_have_count(0)
    # a copy of the old cookie is worthless after logout: the session is revoked on the server
    other = browser.new_context()
    other.add_cookies([{**cookie}])
    stolen = _page(other)
    stolen.goto(base + "/organiser")
    expect(stolen.get_by_text("Log in to create campaigns")).to_be_visible()
    other.close()
    context.close()


# ---- 6. user text is plain text ----------------------------------------------------------------------
LITERALS = ["**bold**.1", "[link](http://example.com/s).2", "<b>html</b>.4"]


def _assert_plain(page, where: str, literals: list[str]) -> None:
    """No link, bold or HTML element made from user text, and the names appear literally."""
    _wait_idle(page)
    links = page.locator("a[href*='example.com']")
    assert links.count() == 0, f"{where}: user text became a link: " + " | ".join(links.evaluate_all(
        "els => els.map(e => (e.closest('[data-testid]') || e).getAttribute('data-testid') + ': ' + e.outerHTML)"))
    for tag, word in (("strong", "bold"), ("strong", "metric"), ("strong", "note"), ("strong", "campaign"),
                      ("b", "html"), ("b", "file")):
        found = page.locator(f"[data-testid='stMain'] {tag}, [data-testid='stSidebar'] {tag}").filter(
            has_text=re.compile(rf"^{word}$"))
        assert found.count() == 0, f"{where}: '{word}' rendered as <{tag}>"
    text = page.locator("body").inner_text() + page.locator("svg").evaluate_all(
        "els => els.map(e => e.textContent).join(' ')")
    text = text.replace("\u2060", "")  # the invisible word joiner that keeps URLs from becoming links
    for literal in literals:
        assert literal in text, f"{where}: {literal!r} is not shown literally"


def test_user_text_is_plain_text_on_every_page(server, browser):
    from playwright.sync_api import expect
    base = server["base"]
    q = "campaign=" + quote(HOSTILE_CAMPAIGN) + "&lp=" + LP
    context = browser.new_context(viewport={"width": 1400, "height": 1600})
    page = _page(context)
    page.goto(base + "/?" + q)
    expect(page.locator("table.mtlb-table")).to_contain_text("**bold**.1")
    _assert_plain(page, "leaderboard", LITERALS + [HOSTILE_NOTE, HOSTILE_CAMPAIGN])
    _shot(page, "20-hostile-leaderboard")
    page.goto(base + "/significance?" + q)
    expect(page.locator("table.mtlb-table")).to_contain_text("**bold**.1")  # the head-to-head table
    _assert_plain(page, "significance table", LITERALS)
    page.goto(base + "/significance?" + q + "&tab=" + quote("Heat map"))
    expect(page.locator(".js-plotly-plot").first).to_be_visible()
    _assert_plain(page, "significance heat map", LITERALS)
    page.goto(base + "/system?" + q + "&system=" + quote(HOSTILE_SYSTEMS[3]) + "&vs=" + quote(HOSTILE_SYSTEMS[0])
              + "&tab=" + quote("Head to head"))
    expect(page.get_by_text("Common segments", exact=True)).to_be_visible()
    _assert_plain(page, "system", ["<b>html</b>.4", "**bold**.1"])
    _shot(page, "21-hostile-system")
    page.goto(base + "/qc?" + q)
    expect(page.get_by_role("heading", name="Quality control")).to_be_visible()
    _assert_plain(page, "qc", [HOSTILE_CAMPAIGN])
    page.goto(base + "/metrics?" + q)
    expect(page.get_by_text("Correlation of every metric with human Ave z")).to_be_visible()
    _assert_plain(page, "metrics tables", [HOSTILE_METRIC + " #1"])
    page.goto(base + "/metrics?" + q + "&view=Charts")
    expect(page.locator("svg text").filter(has_text="**bold**.1").first).to_be_attached()
    _assert_plain(page, "metrics charts", LITERALS + [HOSTILE_METRIC + " #1"])
    _shot(page, "22-hostile-metrics")
    page.goto(base + "/longitudinal")
    expect(page.get_by_role("heading", name="Across years")).to_be_visible()
    _assert_plain(page, "longitudinal", [])

    _login(page, base, "olga", "organiser-pass", "Organiser")
    # tables of these tabs are canvas-drawn (plain by construction): no link or formatting may appear
    _assert_plain(page, "organiser campaign tab", [])
    for tab, literals in (("Imports", []), ("Metric submissions", []), ("QC, preview and publish", [])):
        page.get_by_role("tab", name=tab).click()
        panel = page.locator("[role='tabpanel']:visible")
        if tab != "QC, preview and publish":
            _select(page, panel, "Campaign", HOSTILE_CAMPAIGN)
        _assert_plain(page, f"organiser {tab}", literals)
    panel = page.locator("[role='tabpanel']:visible")
    _select(page, panel, "Campaign", HOSTILE_CAMPAIGN)
    _select(page, panel, "Worker QC", "none")  # the hostile judgments hold no quality-control items
    panel.get_by_role("button", name="Preview ranking").click()
    expect(panel.locator("table.mtlb-table")).to_contain_text("**bold**.1")
    _assert_plain(page, "organiser preview", LITERALS)
    _shot(page, "23-hostile-organiser-preview")
    context.close()


# ---- 3. the evaluation package round-trips -----------------------------------------------------------
def test_evaluation_package_round_trip_on_the_demo(server, browser, tmp_path):
    import sacrebleu
    from playwright.sync_api import expect
    base = server["base"]
    campaign = "WMT22 cs-en (demo)"
    context = browser.new_context(viewport={"width": 1400, "height": 1300}, accept_downloads=True)
    page = _page(context)
    _login(page, base, "mdev", "developer-pass", "Metrics")
    page.goto(base + "/metrics?campaign=" + quote(campaign) + "&lp=cs-en")
    _wait_idle(page)  # the first run has stored the view before a tab is switched
    page.get_by_role("tab", name="Evaluation package").click()
    with page.expect_download() as info:
        page.get_by_role("button", name="Download the evaluation package (zip)").click()
    package = zipfile.ZipFile(io.BytesIO(Path(info.value.path()).read_bytes()))
    names = package.namelist()
    hyps = [n for n in names if "/system-outputs/cs-en/" in n]
    refs = sorted(n for n in names if "/references/" in n and ".cs-en.ref." in n)
    assert len(hyps) == 11 and not any("HUMAN" in n for n in hyps)  # human translations are references
    ref = package.read(refs[0]).decode("utf-8").split("\n")[:-1]
    rows = []
    for name in hyps:  # what a metric developer does: score every output file named in the package
        system = Path(name).name.split(".hyp.")[1].rsplit(".", 1)[0]
        out = package.read(name).decode("utf-8").split("\n")[:-1]
        rows.append(f"MyChrF\tcs-en\tpackage\t{system}\t{sacrebleu.corpus_chrf(out, [ref]).score}")
    upload = tmp_path / "MyChrF.sys.score"
    upload.write_text("\n".join(rows) + "\n", encoding="utf-8")

    _wait_idle(page)
    page.get_by_role("tab", name="Upload scores").click()
    expect(page.get_by_role("heading", name=re.compile(re.escape(campaign)))).to_be_visible()
    _wait_idle(page)
    _shot(page, "24a-upload-tab")
    page.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(str(upload))
    _wait_idle(page)
    page.get_by_role("button", name="Validate and store (private)").click()
    expect(page.get_by_text("Stored 1 submission(s)")).to_be_visible()
    expect(page.get_by_text("11 system name(s) matched without their .N index")).to_be_visible()
    expect(page.get_by_text("HUMAN-C not scored")).to_be_visible()
    _shot(page, "24-package-round-trip")
    subs = _store(server).metric_submissions(campaign, include_private=True)
    sid = int(subs.loc[subs["metric"] == "MyChrF", "id"].iloc[0])
    stored = _store(server).metric_scores(sid)
    judged = set(_store(server).judgments(campaign)["system"])
    assert len(stored) == 11 and set(stored["system"]) <= judged  # stored under the campaign's names
    context.close()


def test_upload_reports_every_problem_at_once(server, browser, tmp_path):
    from playwright.sync_api import expect
    base = server["base"]
    context = browser.new_context(viewport={"width": 1400, "height": 1300})
    page = _page(context)
    _login(page, base, "mdev", "developer-pass", "Metrics")
    page.goto(base + "/metrics?campaign=" + quote("WMT22 cs-en (demo)") + "&lp=cs-en")
    _wait_idle(page)  # the first run has stored the view before a tab is switched
    page.get_by_role("tab", name="Upload scores").click()
    expect(page.get_by_role("heading", name=re.compile(re.escape("WMT22 cs-en (demo)")))).to_be_visible()
    _wait_idle(page)
    body = "metric,lp,system,score\nM,cs-en,Online-B,1\nM,cs-en,NoSuch-1,2\nM,cs-en,Online-W,3\nM,cs-en,NoSuch-2,4\n"
    upload = tmp_path / "bad.csv"
    upload.write_text(body, encoding="utf-8")
    panel = page.locator("[role='tabpanel']:visible")
    panel.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(str(upload))
    _wait_idle(page)
    panel.get_by_role("button", name="Validate and store (private)").click()
    error = page.locator("[data-testid='stAlertContentError']")
    expect(error).to_contain_text("3 problems")
    expect(error).to_contain_text("line 3, column 'system': unknown system 'NoSuch-1'")
    expect(error).to_contain_text("line 5, column 'system': unknown system 'NoSuch-2'")
    expect(error).to_contain_text("no scores for 9 campaign system(s)")
    expect(error).not_to_contain_text("HUMAN-C")
    context.close()


# ---- 1. raw-only campaign on the System page ---------------------------------------------------------
def test_system_page_of_the_simulated_demo(server, browser):
    from playwright.sync_api import expect
    base = server["base"]
    context = browser.new_context(viewport={"width": 1400, "height": 1400})
    page = _page(context)
    page.goto(base + "/system?campaign=" + quote("Simulated crowd (demo)") + "&lp=de-en&system=sys04&vs=sys05"
              + "&tab=" + quote("Head to head"))
    expect(page.get_by_text("Mean z difference")).to_be_visible()
    _wait_idle(page)
    values = page.locator(".mtlb-figure .value").all_inner_texts()
    assert len(values) == 9 and not [v for v in values if v.strip().lower() in ("none", "nan", "+nan", "-nan")]
    assert re.fullmatch(r"[+-]\d+\.\d{3}", values[6].strip()), values  # the mean z difference
    expect(page.locator(".js-plotly-plot")).to_have_count(1)  # head to head (the distribution has its own tab)
    # the axes as drawn span the plotted scores (issue 42.9: with equal scales the x-axis was stretched to
    # about three times the data's width to fit the wide plot area)
    drawn = page.locator(".js-plotly-plot").evaluate(
        "gd => ({x: gd._fullLayout.xaxis.range, y: gd._fullLayout.yaxis.range,"
        " xs: Array.from(gd._fullData[1].x), ys: Array.from(gd._fullData[1].y)})")
    xs, ys = np.asarray(drawn["xs"], float), np.asarray(drawn["ys"], float)
    lo, hi = min(xs.min(), ys.min()), max(xs.max(), ys.max())
    for axis in ("x", "y"):
        a, b = drawn[axis]
        assert a <= lo and b >= hi and (b - a) <= 1.25 * (hi - lo), (axis, drawn[axis], lo, hi)
    _shot(page, "25-simulated-system")
    context.close()
