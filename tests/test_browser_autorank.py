"""AutoRank on the Automatic page in Debian's Chromium (the real app under ``mtlb serve``).

A test set with six teams and public MetricX-23-XL / CometKiwi-DA-XL scores: a visitor sees the AutoRank
column on the leaderboard and the selection for human evaluation in the AutoRank tab; an organiser also sees
the published human rank beside AutoRank. Screenshots go to test-artifacts/screenshots/autorank-*.png.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from test_browser_app import ARGS, CHROMIUM, _shot, _wait_idle, app_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]

N = 40
WORDS = "one two three four five six seven eight nine ten".split()
#: system → (constrained, open source, MetricX-23-XL, CometKiwi-DA-XL)
SYSTEMS = {"Alpha": (True, None, 1.5, 0.70), "Beta": (False, True, 1.0, 0.72), "Gamma": (False, False, 2.5, 0.60),
           "Delta": (True, None, 4.0, 0.55), "Eps": (False, True, 3.0, 0.66), "Zeta": (False, False, 9.0, 0.30)}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.skip("/usr/bin/chromium is not installed")
    pytest.importorskip("playwright.sync_api")
    import pandas as pd

    from leaderboard.accounts.auth import create_user
    from leaderboard.outputs.service import add_team, add_testset, submit
    from leaderboard.storage import Store
    folder = tmp_path_factory.mktemp("autorank-store")
    rng = np.random.default_rng(2)
    ref = [" ".join(rng.choice(WORDS, 8)) for _ in range(N)]
    (folder / "src.txt").write_text("\n".join(f"src {i}" for i in range(N)) + "\n")
    (folder / "ref.txt").write_text("\n".join(ref) + "\n")
    store = Store(f"sqlite:///{folder / 'mtlb.sqlite'}")
    create_user(store, "olga", "organiser-pass", "organiser")
    add_testset(store, "Shared", "en-de", folder / "src.txt", [folder / "ref.txt"])
    for i, (name, (constrained, open_source, _, _)) in enumerate(SYSTEMS.items()):
        out = folder / f"{name}.txt"
        out.write_text("\n".join(" ".join(line.split()[: 8 - i % 3] + [WORDS[i]]) for line in ref) + "\n")
        add_team(store, f"team-{name}", verified=True)
        submit(store, out, campaign="Shared", lp="en-de", team=f"team-{name}", system=name, primary=True,
               constrained=constrained, open_source=open_source)
    for j, metric in enumerate(("MetricX-23-XL", "CometKiwi-DA-XL")):
        scores = pd.DataFrame({"lp": "en-de", "system": list(SYSTEMS), "score": [v[2 + j] for v in SYSTEMS.values()]})
        store.save_metric_submissions("Shared", scores.assign(metric=metric), level="system", higher_is_better=j == 1,
                                      owner="olga", public=True)
    ranking = {"lp": "en-de", "assessment": "adequacy", "signature": "sig", "pvalues": {},
               "systems": [{"system": s, "ave": 80.0 - i, "ave_z": 0.0, "rank_lo": i + 1, "rank_hi": i + 1,
                            "cluster": 1} for i, s in enumerate(["Alpha", "Beta", "Delta"])]}
    store.publish("Shared", "en-de", "adequacy", ranking, data_hash="x", publisher="olga")
    with app_in(folder, MTLB_NO_DEMO="1") as base:
        yield base


def test_automatic_page_shows_autorank(server):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(60000)
        expect.set_options(timeout=30000)
        page.goto(server + "/automatic?campaign=Shared&lp=en-de")
        table = page.locator("table.mtlb-table").first
        expect(table.locator("th", has_text="AutoRank")).to_have_count(1)
        expect(table).to_contain_text("Zeta")
        _wait_idle(page)
        _shot(page, "autorank-01-board")
        page.get_by_role("tab", name="AutoRank").click()
        panel = page.locator("[role='tabpanel']:visible")
        ranked = panel.locator("table.mtlb-table")
        expect(ranked.locator("th", has_text="Human evaluation")).to_have_count(1)
        expect(ranked.locator("tbody tr").first).to_contain_text("Beta")
        expect(ranked.locator("tbody tr").first).to_contain_text("1.00")
        expect(ranked.locator("tbody tr").last).to_contain_text("Zeta")
        expect(ranked.locator("tbody tr").last).to_contain_text("past the first AutoRank gap")
        expect(ranked.locator("th", has_text="Human rank")).to_have_count(0)  # organisers only
        expect(panel.get_by_text("Download AutoRank and selection (CSV)")).to_be_visible()
        _shot(page, "autorank-02-tab")

        org = browser.new_page(viewport={"width": 1400, "height": 1000})
        org.set_default_timeout(60000)
        org.goto(server + "/login")
        org.get_by_label("User name").fill("olga")
        org.get_by_role("textbox", name="Password").fill("organiser-pass")
        org.get_by_role("button", name="Log in").click()
        expect(org.get_by_role("heading", name="Organiser")).to_be_visible()
        _wait_idle(org)
        org.wait_for_function("document.cookie.indexOf('mtlb_session=') >= 0", timeout=60000)
        org.goto(server + "/automatic?campaign=Shared&lp=en-de&tab=AutoRank")
        ranked = org.locator("[role='tabpanel']:visible table.mtlb-table")
        expect(ranked.locator("th", has_text="Human rank")).to_have_count(1)
        expect(ranked.locator("tbody tr", has_text="Delta")).to_contain_text("3")
        _shot(org, "autorank-03-organiser")
        browser.close()
