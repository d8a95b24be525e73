"""Per-domain scores beside the overall score: the Leaderboard table and the System page of an ESA campaign
published with its documents list (AppTest), and the same columns in Debian chromium."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from htmltables import page_figures, page_tables
from test_app_pages import fresh_store, run_app

DOMAINS = {"d-news": "news", "d-speech": "speech", "d-social": "social"}


def _export(path: Path) -> Path:
    """A small Appraise ESA export: three systems of different quality, three documents, one per domain."""
    rng = np.random.default_rng(11)
    lines, t = [], 1_724_000_000
    for rater in range(3):
        for seg in range(30):
            doc = list(DOMAINS)[seg % 3]
            for system, q in (("Alpha", 90), ("Beta", 75), ("Gamma", 55)):
                score = int(np.clip(round(q + rng.normal(0, 8)), 0, 100))
                lines.append(f"r{rater},{system},{seg},TGT,eng,ces,{score},{doc},False,[],{t},{t + 20}")
                t += 30
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _documents(path: Path) -> Path:
    lines = ["canary\tcanary"] + [f"{DOMAINS[list(DOMAINS)[seg % 3]]}\t{list(DOMAINS)[seg % 3]}" for seg in range(30)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _publish(folder: Path) -> None:
    from leaderboard.ingest import read_judgments
    from leaderboard.ingest.documents import read_documents
    from leaderboard.storage import Store, default_url
    store = Store(default_url())
    store.load_judgments(read_judgments(_export(folder / "esa.csv"), campaign="esa-demo", assessment="esa"), file_name="esa.csv",
                         input_format="appraise")
    docs = _documents(folder / "en-cs.docs")
    assert read_documents(docs)["d-news"] == "news"
    from leaderboard.usecases.publish import PublishOptions, publish
    from leaderboard.usecases.store_files import InputFile
    publish(store, "esa-demo", "olga", PublishOptions(protocol="wmt24-esa", cluster_rule="wmt24", qc="auto",
                                                      n_resamples=0, documents=(InputFile.of(docs),)))


def test_leaderboard_and_system_page_show_per_domain_scores(tmp_path, monkeypatch):
    store = fresh_store(tmp_path, monkeypatch)
    _publish(tmp_path)
    ranking = store.snapshot("esa-demo", "en-cs", "esa")["ranking"]
    assert "domains:documents@" in ranking["signature"]
    at = run_app(params={"campaign": "esa-demo", "lp": "en-cs", "assessment": "esa"})
    table = page_tables(at)[0]
    assert {"news", "social", "speech"} <= set(table.columns)
    columns = list(table.columns)
    assert columns.index("Ave.") < columns.index("news") < columns.index("N")
    for row, system in zip(table.itertuples(), ranking["systems"]):
        assert row.System == system["system"]
        for name in ("news", "social", "speech"):
            assert float(table.loc[row.Index, name]) == pytest.approx(system["domains"][name], abs=0.05)
    assert any("Per domain (news, social, speech)" in c.value and "mean of these per-domain" in c.value
               for c in at.caption)
    at = run_app("system.py", params={"campaign": "esa-demo", "lp": "en-cs", "assessment": "esa", "system": "Beta"})
    figures = {f.label: f.value for f in page_figures(at)}
    beta = next(s for s in ranking["systems"] if s["system"] == "Beta")
    assert figures["Ave. · speech"] == f"{beta['domains']['speech']:.1f}"
    assert figures["Ave."] == f"{beta['ave']:.1f}"


@pytest.mark.browser
@pytest.mark.slow
def test_leaderboard_domain_columns_in_chromium(tmp_path):
    from test_browser_app import ARGS, CHROMIUM, _wait_idle, app_in
    if not Path(CHROMIUM).exists():
        pytest.skip("/usr/bin/chromium is not installed")
    pytest.importorskip("playwright.sync_api")
    env = {**os.environ, "MTLB_DATA_DIR": str(tmp_path), "MTLB_NO_DEMO": "1"}
    env.pop("DATABASE_URL", None)
    script = ("import sys; from pathlib import Path; sys.path.insert(0, 'tests'); "
              "from test_app_domains import _publish; _publish(Path(sys.argv[1]))")
    subprocess.run([sys.executable, "-c", script, str(tmp_path)], env=env, check=True, capture_output=True,
                   cwd=Path(__file__).resolve().parents[1])
    from playwright.sync_api import expect, sync_playwright
    with app_in(tmp_path, MTLB_NO_DEMO="1") as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.goto(base + "/?campaign=esa-demo&lp=en-cs&assessment=esa")
        _wait_idle(page)
        table = page.locator("[data-testid='stMain'] table.mtlb-table").first
        expect(table).to_contain_text("Gamma", timeout=90000)
        headers = [h.strip() for h in table.locator("th").all_inner_texts()]
        assert {"news", "social", "speech"} <= set(headers) and headers.index("Ave.") < headers.index("news")
        browser.close()
