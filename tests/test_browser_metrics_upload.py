"""Browser check of the Metrics page after a metric developer uploads a file holding two metrics
(issue 42.4): the metric named in the selector is the one whose heading, key figures and Williams table
are shown — the key figure checked against scipy on the uploaded scores and the published Ave z."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from test_browser_app import ARGS, CHROMIUM, _wait_idle, serve_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CAMPAIGN = "Upload check"
LP = "de-en"
SYSTEMS = ["sysA", "sysB", "sysC", "sysD", "sysE", "sysF"]
QUALITY = dict(zip(SYSTEMS, (82.0, 70.0, 61.0, 55.0, 43.0, 30.0)))
# MetA follows the human order, MetB mostly reverses it: their correlations differ in sign
MET_A = {"sysA": 0.91, "sysB": 0.80, "sysC": 0.77, "sysD": 0.62, "sysE": 0.58, "sysF": 0.40}
MET_B = {"sysA": 0.30, "sysB": 0.45, "sysC": 0.41, "sysD": 0.60, "sysE": 0.72, "sysF": 0.69}


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    rows = []
    for w in range(4):
        pos = 0
        for seg in range(1, 16):
            for s in SYSTEMS:
                pos += 1
                rows.append({"campaign": CAMPAIGN, "lp": LP, "assessment": "adequacy", "worker": f"W{w}",
                             "hit": f"H{w}", "position": pos, "segment": str(seg), "system": s,
                             "item_type": "SYSTEM", "raw": float(np.clip(QUALITY[s] + rng.normal(0, 6), 0, 100)),
                             "z": np.nan, "seconds": 10.0, "doc": "d1"})
    return pd.DataFrame(rows)


def _prepare(folder: Path) -> None:
    os.environ["MTLB_DATA_DIR"] = str(folder)
    from leaderboard.accounts.auth import create_user
    from leaderboard.publish.snapshots import publish_rankings
    from leaderboard.schema import normalise_dtypes
    from leaderboard.storage import Store, default_url
    store = Store(default_url())
    create_user(store, "mdev", "developer-pass", "metric-developer")
    store.load_judgments(normalise_dtypes(_frame()), file_name="two.csv", input_format="canonical")
    publish_rankings(store, CAMPAIGN, "olga", qc="none")
    # an earlier public submission, so the page has a selection before the upload
    earlier = pd.DataFrame({"lp": LP, "system": SYSTEMS, "segment": None, "score": [5, 4, 3.5, 2, 1.5, 1.0]})
    store.save_metric_submissions(CAMPAIGN, earlier.assign(metric="Earlier"), level="system", owner="mdev", public=True)
    # an MQM campaign for the error-span tab (issue 40)
    from leaderboard.cli import main
    from test_app_metrics_spans import _mqm
    _mqm(folder / "mqm_toy_ende.tsv")
    assert main(["ingest", str(folder / "mqm_toy_ende.tsv"), "--campaign", "toy-mqm"]) == 0
    publish_rankings(store, "toy-mqm", "olga")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("metrics-upload-store")
    with serve_app(folder, _prepare) as (base, _):
        yield {"base": base, "folder": folder}


def _published_ave_z(folder: Path) -> pd.Series:
    from leaderboard.storage import Store
    store = Store(f"sqlite:///{folder / 'mtlb.sqlite'}")
    snap = store.snapshot(CAMPAIGN, LP, "adequacy", 1)
    return pd.DataFrame(snap["ranking"]["systems"]).set_index("system")["ave_z"]


def _shown(page) -> tuple[str, str, float]:
    """(selected metric, heading's metric, Pearson key figure) as the settled page shows them."""
    main = page.locator("[data-testid='stMain']")
    selected = main.get_by_role("combobox", name="Metric", exact=True).input_value()
    heading = main.get_by_role("heading", name=re.compile("^System level: ")).inner_text()
    pearson = main.locator(".mtlb-figure").filter(has_text="Pearson r").locator(".value").inner_text()
    return selected.strip(), heading.removeprefix("System level: ").split(" against human")[0].strip(), float(pearson)


def test_two_metric_upload_shows_the_selected_metrics_numbers(server, tmp_path):
    from playwright.sync_api import expect, sync_playwright
    from test_browser_members import _login
    base = server["base"]
    upload = tmp_path / "two-metrics.csv"
    lines = ["metric,lp,system,score"]
    lines += [f"MetA,{LP},{s},{MET_A[s]}" for s in SYSTEMS] + [f"MetB,{LP},{s},{MET_B[s]}" for s in SYSTEMS]
    upload.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ave_z = _published_ave_z(server["folder"])
    expected = {name: stats.pearsonr([scores[s] for s in ave_z.index], ave_z.values)[0]
                for name, scores in (("MetA", MET_A), ("MetB", MET_B))}
    assert expected["MetA"] > 0.8 and expected["MetB"] < -0.8  # the two cannot be mistaken for each other

    expect.set_options(timeout=90000)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        page.set_default_timeout(180000)
        _login(page, base, "mdev", "developer-pass", "Metrics")
        url = base + "/metrics?campaign=" + quote(CAMPAIGN) + "&lp=" + LP
        page.goto(url)
        main = page.locator("[data-testid='stMain']")
        expect(main.get_by_role("heading", name=re.compile("^System level: Earlier #1"))).to_be_visible()
        _wait_idle(page)
        for attempt in range(2):  # the issue saw it on both uploads tried
            page.get_by_role("tab", name="Upload scores").click()
            panel = page.locator("[role='tabpanel']:visible")
            expect(panel.get_by_role("button", name="Validate and store (private)")).to_be_visible()
            _wait_idle(page)
            panel.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(str(upload))
            _wait_idle(page)
            panel.get_by_role("button", name="Validate and store (private)").click()
            expect(page.get_by_text("Stored 2 submission(s)")).to_be_visible()
            _wait_idle(page)
            page.get_by_role("tab", name="Results").click()
            heading = main.get_by_role("heading", name=re.compile("^System level: "))
            expect(heading).to_be_visible()
            _wait_idle(page)
            selected, named, pearson = _shown(page)
            assert selected == named, f"upload {attempt + 1}: selector says {selected!r}, heading {named!r}"
            metric = named.rsplit(" #", 1)[0]
            assert pearson == pytest.approx(expected[metric], abs=0.0006), (named, pearson)
            williams = main.locator("table.mtlb-table").filter(has_text="Compared with").first
            expect(williams).to_contain_text("Earlier #1")
            assert named not in williams.inner_text()  # the chosen metric is not compared with itself
        # choosing the other metric of the upload moves the heading and the figures with it
        other = "MetA" if metric == "MetB" else "MetB"
        main.get_by_role("combobox", name="Metric", exact=True).click()
        page.get_by_role("option", name=re.compile(rf"^{other} #")).last.click()
        expect(main.get_by_role("heading", name=re.compile(rf"^System level: {other} #"))).to_be_visible()
        _wait_idle(page)
        selected, named, pearson = _shown(page)
        assert selected == named and named.startswith(other)
        assert pearson == pytest.approx(expected[other], abs=0.0006)
        browser.close()


def _evaluated(panel, header: str) -> dict[str, str]:
    """Press Evaluate and return the drawn results table's lines by submission name."""
    from playwright.sync_api import expect
    panel.get_by_role("button", name="Evaluate").click()
    table = panel.locator("table.mtlb-table").filter(has_text=header)
    expect(table).to_be_visible()
    return {line.split()[0]: line for line in table.inner_text().splitlines() if line.strip()}


def test_error_spans_tab_shows_intervals_and_a_chart(server, tmp_path):
    """Issue 40 in a real browser: two span submissions against the stored MQM spans, each measure with
    its interval in one column, the chart drawn, the CSV offered."""
    from playwright.sync_api import expect, sync_playwright
    from test_app_metrics_spans import LP as MQM_LP, SYSTEMS as MQM_SYSTEMS, _mqm
    from test_browser_members import _login
    from test_span_eval import write_tsv
    from leaderboard.webapp.pages.metrics import SPANS_TAB
    marked = _mqm(tmp_path / "again.tsv")  # the same seed: the spans stored in the server's campaign
    rows = [{"lp": MQM_LP, "system": s, "segment": g, "doc": "d",
             "spans": [(*marked[(s, g)], "major")] if (s, g) in marked else []}
            for s in MQM_SYSTEMS for g in range(1, 31)]
    exact = write_tsv(tmp_path / "exact.tsv", rows)
    blank = write_tsv(tmp_path / "blank.tsv", [{**r, "spans": []} for r in rows])
    expect.set_options(timeout=90000)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1600})
        page.set_default_timeout(180000)
        _login(page, server["base"], "mdev", "developer-pass", "Metrics")
        page.goto(server["base"] + "/metrics?campaign=toy-mqm&lp=" + MQM_LP + "&tab=" + quote(SPANS_TAB))
        panel = page.locator("[role='tabpanel']:visible")
        expect(panel.get_by_role("button", name="Evaluate")).to_be_visible()
        _wait_idle(page)
        panel.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files([str(exact), str(blank)])
        _wait_idle(page)
        rows = _evaluated(panel, "F1 95% CI")
        assert rows["exact"].count("1.000 – 1.000") == 3  # precision, recall, F1: perfect, and certain
        assert "0.000" in rows["blank"]  # marks nothing: recall 0
        expect(panel.locator(".js-plotly-plot")).to_have_count(1)
        expect(panel.get_by_role("button", name="Download error-span detection results (CSV)")).to_be_visible()
        # the same files as error-free labels (a segment without a span is error-free): the exact one is
        # the gold itself (MCC 1, certain); the blank one calls every segment error-free
        panel.get_by_text("Error-free detection", exact=True).click()
        _wait_idle(page)
        assert _evaluated(panel, "MCC 95% CI")["exact"].count("1.000 – 1.000") == 4  # precision, recall, F1, MCC
        expect(panel.get_by_role("button", name="Download error-free detection results (CSV)")).to_be_visible()
        browser.close()
