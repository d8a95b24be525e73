"""`mtlb serve`: every page runs once in-process before the server listens, then Streamlit serves."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

from appserver import running_app

from leaderboard.cli import main
from leaderboard.webapp.navigation import SPECS

ROOT = Path(__file__).resolve().parents[1]
WARM_TWICE = """
import json, sys
from leaderboard.webapp.warmup import warm_up
print(json.dumps([warm_up(), warm_up()]))
"""


def _env(url: str) -> dict[str, str]:
    env = {**os.environ, "DATABASE_URL": url, "MTLB_NO_DEMO": "1"}
    env.pop("MTLB_DATA_DIR", None)
    return env


def _published(url: str, monkeypatch, capsys) -> str:
    monkeypatch.setenv("MTLB_PASSWORD", "a-long-password")
    assert main(["publish", "--campaign", "c1", "--user", "alice", "--database-url", url, "--qc", "none"]) == 0
    capsys.readouterr()
    return url


def test_warm_up_runs_every_page_and_leaves_them_warm(campaign_with_users, monkeypatch, capsys):
    url = _published(campaign_with_users, monkeypatch, capsys)
    done = subprocess.run([sys.executable, "-c", WARM_TWICE], env=_env(url), cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    first, second = json.loads(done.stdout.strip().splitlines()[-1])
    assert list(first) == list(SPECS) and list(second) == list(SPECS)  # every page, in menu order
    assert all(not r["errors"] for r in first.values()), {p: r["errors"] for p, r in first.items() if r["errors"]}
    assert all(not r["errors"] for r in second.values()), {p: r["errors"] for p, r in second.items() if r["errors"]}
    # what the second round saves is measured by bench/bench_warmup.py, not asserted here


def test_serve_warms_then_listens(campaign_with_users, monkeypatch, capsys, tmp_path):
    url = _published(campaign_with_users, monkeypatch, capsys)
    log = tmp_path / "serve.log"
    with running_app(sys.executable, None, env=_env(url), cwd=ROOT, log=log, timeout=120) as base:
        assert urllib.request.urlopen(base + "/_stcore/health", timeout=5).read() == b"ok"
        page = urllib.request.urlopen(base + "/", timeout=5).read().decode("utf-8")
        assert "<title>" in page.lower() or "<!doctype html>" in page.lower()
        text = log.read_text()
        assert f"warmed {len(SPECS)} pages" in text and "with errors" not in text
        assert "127.0.0.1" in text  # it listens where it was told (the default too)


def test_serve_without_warm_up(tmp_path):
    log = tmp_path / "serve.log"
    env = {**os.environ, "MTLB_DATA_DIR": str(tmp_path), "MTLB_NO_DEMO": "1"}
    env.pop("DATABASE_URL", None)
    with running_app(sys.executable, None, env=env, cwd=ROOT, log=log, serve_args=("--no-warm",)) as base:
        assert urllib.request.urlopen(base + "/_stcore/health", timeout=5).read() == b"ok"
        assert "warming up" not in log.read_text()


def test_serve_refuses_a_missing_entry_script(tmp_path, capsys):
    missing = tmp_path / "no-such-app.py"
    assert main(["serve", "--app", str(missing), "--no-warm"]) == 2
    assert str(missing) in capsys.readouterr().err


FREEZE_PROBE = """
import gc, json, weakref
from leaderboard.cli.serve import freeze_heap

class Node:
    pass

def cycle():
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)

warm = [cycle() for _ in range(3)]
kept = Node(); kept.self = kept  # alive at the freeze: stays
freeze_heap()
frozen = gc.get_freeze_count()
before = [r() is None for r in warm]  # garbage cycles present before the freeze were collected first
later = cycle()  # garbage made after the freeze (a later page run) is still collected
gc.collect()
print(json.dumps({"frozen": frozen, "before": before, "later": later() is None}))
"""


def test_freeze_heap_collects_first_and_leaves_later_garbage_collectable():
    out = subprocess.run([sys.executable, "-c", FREEZE_PROBE], capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["frozen"] > 1000  # the imports and everything alive moved out of the collector's view
    assert result["before"] == [True, True, True]
    assert result["later"] is True
