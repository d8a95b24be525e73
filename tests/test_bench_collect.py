"""The annotation bench runs in a real browser and reports submit → next item for DA and ESA."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_bench_reports_next_item_and_stored_times():
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("/usr/bin/chromium is not installed")
    pytest.importorskip("playwright.sync_api")
    before = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_collect.py"), "--items", "6", "--think", "200"],
                         cwd=ROOT, capture_output=True, text=True, timeout=900, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    for protocol in ("da", "esa"):
        figures = result[protocol]
        assert figures["next_item"]["n"] == 6 and figures["stored"]["n"] == 6
        assert 0 < figures["next_item"]["p50"] <= figures["next_item"]["max"]
        assert figures["resume"] > 0
    assert result["service_submit"]["n"] > 0 and isinstance(result["met"], bool)
    # the last answer of whole pilot HITs: until the completion code is shown (issue 42.9), and on the server
    for protocol in ("da", "esa"):
        last = result["last_answer"][protocol]
        assert last["code"]["n"] == 2 and last["page_drawn"]["n"] == 2 and last["code"]["p50"] > 0
    served = result["service_last_submit"]
    assert served["submit"]["n"] == 2 and served["qc"]["n"] == 2
    assert served["qc"]["max"] <= served["submit"]["max"]  # the worker test is part of that call
    # no screenshots unless asked: tracked files stay as they were
    assert subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout == before
