"""Browser check of the Metrics page's meta-evaluation (Chromium): the per-pair table with its reference
points, the per-pair p-values and the global ranking with clusters render."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_browser_app import ARGS, CHROMIUM, _shot, _wait_idle, app_in
from test_browser_expert import _mqm_file

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.skip("/usr/bin/chromium is not installed")
    pytest.importorskip("playwright.sync_api")
    folder = tmp_path_factory.mktemp("meta-eval-store")
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
        "rng = np.random.default_rng(1)\n"
        "for name, noise in (('goodMetric', 0.3), ('weakMetric', 3.0), ('sentinel-cand-mqm', 30.0)):\n"
        "    rows = [('en-de', sy, str(g), -q + rng.normal(scale=noise))"
        " for sy, q in (('alpha', 0.0), ('beta', 1.0), ('gamma', 2.0)) for g in range(1, 41)]\n"
        "    f = pd.DataFrame(rows, columns=['lp', 'system', 'segment', 'score'])\n"
        "    s.save_metric_submissions('toy-mqm', f.assign(metric=name), level='segment', public=True)\n")
    subprocess.run([sys.executable, "-c", script], env=env, check=True, capture_output=True)
    with app_in(folder, MTLB_NO_DEMO="1") as base:
        yield base


def test_meta_evaluation_renders_in_the_browser(server):
    from playwright.sync_api import expect, sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": 1400})
        page.goto(server + "/metrics?campaign=toy-mqm&lp=en-de&assessment=mqm")
        _wait_idle(page)
        body = page.locator("[data-testid='stMain']")
        body.get_by_text("Meta-evaluation against human segment scores").wait_for(timeout=90000)
        body.get_by_text("Global ranking over 1 language pair(s)", exact=False).wait_for(timeout=90000)
        tables = body.locator("table.mtlb-table")
        expect(tables.filter(has_text="acc_eq cluster").first).to_contain_text("constant metric", timeout=90000)
        meta = tables.filter(has_text="acc_eq cluster").first.inner_text()
        assert "goodMetric" in meta and "sentinel" in meta and "random metric" in meta and "chance" in meta
        pvalues = tables.filter(has_text="Ranked above")
        assert pvalues.count() == 2 and "goodMetric" in pvalues.first.inner_text()
        ranking = tables.filter(has_text="Average rank").first.inner_text()
        assert ranking.index("goodMetric") < ranking.index("weakMetric") and "Cluster" in ranking
        _shot(page, "metrics-meta-eval")
        browser.close()
