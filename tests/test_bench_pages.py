"""The page bench runs in a real browser and reports per-page figures (two pages, one server)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_bench_prints_first_visit_and_revisit_per_page():
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("/usr/bin/chromium is not installed")
    pytest.importorskip("playwright.sync_api")
    before = subprocess.run(["git", "status", "--porcelain", "docs"], cwd=ROOT, capture_output=True, text=True).stdout
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_pages.py"), "--pages", "qc", "login",
                          "--one-server"], cwd=ROOT, capture_output=True, text=True, timeout=600, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert set(result["pages"]) == {"qc", "login"}
    for figures in result["pages"].values():
        assert 0 < figures["revisit"] and 0 < figures["first_visit"] and 0 < figures["reload"]
    assert result["slowest"]["first_visit"] == max(f["first_visit"] for f in result["pages"].values())
    # no screenshots unless asked: tracked files stay as they were
    assert subprocess.run(["git", "status", "--porcelain", "docs"], cwd=ROOT, capture_output=True,
                          text=True).stdout == before
