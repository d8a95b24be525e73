"""Browser scenario of the submissions stage in Debian's Chromium (the real app under ``streamlit run``).

A team signs up, an organiser verifies it, the team signs in with its token, uploads a bad then a
good file, sees its score and rank, marks the submission primary; the organiser builds a HIT batch
from the primary submissions. Screenshots go to test-artifacts/screenshots/outputs-*.png.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from test_browser_app import ARGS, CHROMIUM, _shot, _wait_idle, app_in

N = 80
TEAM = "Lab & <Co>"
WORDS = ("river mountain bright quiet table window garden evening letter music yellow winter summer road city "
         "friend paper green stone voice").split()

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _files(folder: Path) -> dict[str, Path]:
    rng = np.random.default_rng(8)
    ref = [" ".join(rng.choice(WORDS, 9)) for _ in range(N)]

    def noisy(p: float, seed: int) -> list[str]:
        r = np.random.default_rng(seed)
        return [" ".join(w if r.random() > p else r.choice(WORDS) for w in line.split()) for line in ref]

    paths = {}
    for name, lines in (("src", [f"Quelle {i}" for i in range(N)]), ("ref", ref), ("good", noisy(0.1, 1)),
                        ("other", noisy(0.35, 2)), ("bad", noisy(0.1, 1)[:50])):
        paths[name] = folder / f"{name}.txt"
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.skip("/usr/bin/chromium is not installed")
    pytest.importorskip("playwright.sync_api")
    folder = tmp_path_factory.mktemp("outputs-store")
    files = _files(folder)
    url = f"sqlite:///{folder / 'mtlb.sqlite'}"
    from leaderboard.accounts.auth import create_user
    from leaderboard.outputs.service import add_team, add_testset, submit
    from leaderboard.storage import Store
    store = Store(url)
    create_user(store, "olga", "organiser-pass", "organiser")
    add_testset(store, "Shared", "en-de", files["src"], [files["ref"]])
    add_team(store, "Rivals", verified=True)
    submit(store, files["other"], campaign="Shared", lp="en-de", team="Rivals", primary=True)
    with app_in(folder, MTLB_NO_DEMO="1") as base:
        yield {"base": base, "files": files, "url": url}


def test_team_submission_scenario(server):
    from playwright.sync_api import expect, sync_playwright

    base, files = server["base"], server["files"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        team = browser.new_page(viewport={"width": 1400, "height": 1400})
        team.set_default_timeout(60000)
        expect.set_options(timeout=30000)

        # a team signs up and gets its token once
        team.goto(base + "/teams")
        expect(team.get_by_role("heading", name="Teams")).to_be_visible()
        team.get_by_role("tab", name="Sign up a new team").click()
        team.get_by_label("Team name").fill(TEAM)
        team.get_by_label("Contact e-mail").fill("lab@example.org")
        team.get_by_label("Institution").fill("University of Somewhere")
        team.get_by_label("System description").fill("A <b>transformer</b> with back-translation")
        team.get_by_role("button", name="Sign up").click()
        code = team.locator("code").filter(has_text="mtlb_")
        expect(code).to_be_visible()
        token = code.inner_text().strip()
        assert token.startswith("mtlb_")
        _wait_idle(team)
        _shot(team, "outputs-01-signed-up")

        # an organiser verifies it
        org = browser.new_page(viewport={"width": 1400, "height": 1400})
        org.set_default_timeout(60000)
        org.goto(base + "/login")
        org.get_by_label("User name").fill("olga")
        org.get_by_role("textbox", name="Password").fill("organiser-pass")
        org.get_by_role("button", name="Log in").click()
        expect(org.get_by_role("heading", name="Organiser")).to_be_visible()
        _wait_idle(org)
        org.get_by_role("link", name="Test sets").click()
        expect(org.get_by_role("heading", name="Test sets")).to_be_visible()
        _wait_idle(org)
        org.get_by_role("tab", name="Teams").click()
        panel = org.locator("[role='tabpanel']:visible")
        expect(panel.get_by_role("combobox", name="Team waiting for verification")).to_have_value(TEAM)
        panel.get_by_role("button", name="Verify").click()
        expect(org.get_by_text("is verified and may submit")).to_be_visible()
        _shot(org, "outputs-02-verified")

        # the team signs in with its token
        team.get_by_role("tab", name="Sign in with a token").click()
        team.get_by_label("Team token").fill(token)
        team.get_by_role("button", name="Sign in").click()
        expect(team.get_by_role("heading", name=f"Team {TEAM}")).to_be_visible()
        _wait_idle(team)
        uploader = team.locator("[data-testid='stFileUploader'] input[type='file']").first

        # a bad file: refused with file and line
        uploader.set_input_files(str(files["bad"]))
        _wait_idle(team)
        team.get_by_role("button", name="Validate and submit").click()
        error = team.locator("[data-testid='stAlertContentError']")
        expect(error).to_contain_text("bad.txt")
        expect(error).to_contain_text("line 51")
        _shot(team, "outputs-03-bad-file")

        # a good file: scored and ranked
        uploader.set_input_files(str(files["good"]))
        _wait_idle(team)
        team.get_by_role("button", name="Validate and submit").click()
        expect(team.get_by_text("Stored submission")).to_contain_text("chrF")
        expect(team.get_by_text("ranked 1 of 2").first).to_be_visible()
        _shot(team, "outputs-04-scored")

        # mark it primary
        team.get_by_role("tab", name="My submissions").click()
        panel = team.locator("[role='tabpanel']:visible")
        panel.get_by_role("button", name="Mark primary").click()
        expect(team.get_by_text("is now your primary submission")).to_be_visible()
        _shot(team, "outputs-05-primary")

        # the automatic leaderboard is public
        visitor = browser.new_page(viewport={"width": 1400, "height": 1000})
        visitor.set_default_timeout(60000)
        visitor.goto(base + "/automatic?campaign=Shared&lp=en-de")
        table = visitor.locator("table.mtlb-table")
        expect(table).to_contain_text(TEAM)
        expect(table).to_contain_text("Rivals")
        _wait_idle(visitor)
        _shot(visitor, "outputs-06-automatic-leaderboard")
        visitor.get_by_role("tab", name="Rank stability").click()  # across sacrebleu's bootstrap resamples
        expect(visitor.locator(".js-plotly-plot")).to_have_count(1)
        expect(visitor.locator(".js-plotly-plot")).to_contain_text("rank stability")

        # the organiser builds a HIT batch from the primaries
        org.get_by_role("link", name="Automatic scores").click()  # within the session: a reload logs out
        expect(org.locator("table.mtlb-table")).to_contain_text(TEAM)
        _wait_idle(org)
        org.get_by_role("link", name="Test sets").click()
        expect(org.get_by_role("heading", name="Test sets")).to_be_visible()
        _wait_idle(org)
        org.get_by_role("tab", name="HITs from primaries").click()
        panel = org.locator("[role='tabpanel']:visible")
        expect(panel.get_by_text("2 primary submission(s)")).to_be_visible()
        panel.get_by_role("button", name="Build HITs from the primaries").click()
        expect(org.get_by_text("from 2 primary submissions")).to_be_visible()
        expect(panel.get_by_role("button", name="Download HITs (hits.csv)")).to_be_visible()
        _shot(org, "outputs-07-hits-from-primaries")
        browser.close()

    from leaderboard.storage import Store
    from leaderboard.storage.outputs import OutputStore
    subs = OutputStore(Store(server["url"])).submissions()
    assert dict(zip(subs["team"], subs["primary"])) == {"Rivals": True, TEAM: True}
    assert len(subs) == 2  # the bad file stored nothing
