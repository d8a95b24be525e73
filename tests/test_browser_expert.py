"""Browser test of an MQM campaign: Leaderboard, System (error breakdown, marked spans) and Metrics pages."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from test_browser_app import ARGS, CHROMIUM, _shot, _wait_idle, app_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]
HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment\n"
EVIL = "<script>window.hacked=1</script>"


def _mqm_file(path: Path) -> Path:
    rng = np.random.default_rng(0)
    lines = []
    for seg in range(1, 41):
        for system, p_major in (("alpha", 0.05), ("beta", 0.3), ("gamma", 0.6)):
            target = f"Ausgabe {seg} von {system}"
            if system == "gamma" and seg == 1:
                target = f"{EVIL} <v>schlecht</v>"
                lines.append([system, "d", "1", str(seg), "r1", "src", target, "Accuracy/Mistranslation", "Major", ""])
                continue
            if rng.random() < p_major:
                lines.append([system, "d", "1", str(seg), "r1", "src", f"Ausgabe <v>{seg}</v> von {system}",
                              "Accuracy/Mistranslation", "Major", ""])
            else:
                lines.append([system, "d", "1", str(seg), "r1", "src", target, "No-error", "No-error", ""])
    path.write_text(HEADER + "".join("\t".join(r) + "\n" for r in lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.skip("/usr/bin/chromium is not installed")
    pytest.importorskip("playwright.sync_api")
    folder = tmp_path_factory.mktemp("mqm-store")
    env = {**os.environ, "MTLB_DATA_DIR": str(folder), "MTLB_NO_DEMO": "1"}
    env.pop("DATABASE_URL", None)
    mqm = _mqm_file(folder / "mqm_toy_ende.tsv")
    subprocess.run([sys.executable, "-c", "from leaderboard.cli import main; import sys; sys.exit(main(sys.argv[1:]))",
                    "ingest", str(mqm), "--campaign", "toy-mqm"], env=env, check=True, capture_output=True)
    script = (
        "from leaderboard.storage import Store, default_url\n"
        "from leaderboard.publish.snapshots import publish_rankings\n"
        "import pandas as pd, numpy as np\n"
        "s = Store(default_url())\n"
        "publish_rankings(s, 'toy-mqm', 'olga')\n"
        "rows = [('en-de', sy, str(g), -q + np.sin(g)) for sy, q in (('alpha', 0.0), ('beta', 1.0), ('gamma', 2.0))"
        " for g in range(1, 41)]\n"
        "f = pd.DataFrame(rows, columns=['lp', 'system', 'segment', 'score'])\n"
        "s.save_metric_submissions('toy-mqm', f.assign(metric='toyMetric'), level='segment', public=True)\n")
    subprocess.run([sys.executable, "-c", script], env=env, check=True, capture_output=True)
    with app_in(folder, MTLB_NO_DEMO="1") as base:
        yield base


def test_mqm_campaign_in_the_browser(server):
    from playwright.sync_api import sync_playwright
    query = "?campaign=toy-mqm&lp=en-de&assessment=mqm"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": 1000})
        page.goto(server + "/" + query)
        _wait_idle(page)
        body = page.locator("[data-testid='stMain']")
        body.get_by_text("Expert MQM", exact=False).first.wait_for(timeout=30000)
        from playwright.sync_api import expect
        expect(body.locator("table.mtlb-table").first).to_contain_text("gamma", timeout=90000)
        table = body.locator("table.mtlb-table").first.inner_text()
        assert "MQM" in table and table.index("alpha") < table.index("beta") < table.index("gamma")
        _shot(page, "mqm-leaderboard")

        page.goto(server + "/system" + query + "&system=gamma")
        _wait_idle(page)
        body.get_by_text("Errors by category and severity").wait_for(timeout=30000)
        body.get_by_text("Outputs with their marked errors").wait_for(timeout=30000)
        marks = page.locator("mark")
        marks.first.wait_for(timeout=30000)
        assert "schlecht" in [marks.nth(i).inner_text() for i in range(marks.count())]
        assert EVIL in page.locator("[data-testid='stMain']").inner_text()   # shown as text ...
        assert page.evaluate("window.hacked") is None                        # ... never run
        _shot(page, "mqm-system")

        page.goto(server + "/metrics" + query)
        _wait_idle(page)
        body.get_by_text("Meta-evaluation against human segment scores").wait_for(timeout=60000)
        body.get_by_text("toyMetric", exact=False).first.wait_for(state="attached", timeout=60000)
        _shot(page, "mqm-metrics")
        browser.close()
