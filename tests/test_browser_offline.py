"""The app works offline: no page of the demo asks any host but the app's own for anything."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from test_browser_app import ARGS, CHROMIUM, _wait_idle, serve_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGES = ["", "significance", "system", "longitudinal", "qc", "metrics", "automatic", "teams", "testsets",
         "organiser", "login"]


def test_every_demo_page_loads_from_the_app_alone(tmp_path):
    from playwright.sync_api import sync_playwright
    with serve_app(tmp_path, lambda folder: None) as (base, _):  # the app loads the demo on its first start
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page()
            page.set_default_timeout(90000)
            hosts: dict[str, str] = {}
            page.on("request", lambda r: hosts.setdefault(urlparse(r.url).netloc, r.url))
            for path in PAGES:
                page.goto(f"{base}/{path}")
                _wait_idle(page)
                page.wait_for_timeout(500)  # late requests (icons, fonts) after the page settled
            browser.close()
    own = urlparse(base).netloc
    assert own in hosts
    foreign = {host: url for host, url in hosts.items() if host != own and not url.startswith(("data:", "blob:"))}
    assert not foreign, f"requests to other hosts: {foreign}"
