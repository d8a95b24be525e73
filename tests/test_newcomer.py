"""A newcomer's first steps, as the README gives them: choose the port, find `mtlb`, load the demo."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _make_dry_run(*args: str, **env: str) -> str:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MTLB_")}
    proc = subprocess.run(["make", "-n", "run", *args], cwd=ROOT, env={**clean, **env}, capture_output=True,
                          text=True, check=True)
    return next(line for line in proc.stdout.splitlines() if "mtlb serve" in line)


def test_make_run_takes_the_port_from_mtlb_port_or_port():
    assert _make_dry_run().endswith("--port 8501")
    assert _make_dry_run(MTLB_PORT="8600").endswith("--port 8600")
    assert _make_dry_run("PORT=8700", MTLB_PORT="8600").endswith("--port 8700")
    # and the README says how
    assert "make run PORT=" in README and "MTLB_PORT=" in README


def test_the_readme_line_that_puts_mtlb_on_path_works_in_a_new_shell(tmp_path):
    """Quick start names a line that makes `mtlb` a command of a new shell; run exactly that line."""
    venv_bin = Path(sys.executable).parent
    if not (ROOT / ".venv" / "bin" / "mtlb").exists() or venv_bin.resolve() != (ROOT / ".venv" / "bin").resolve():
        pytest.skip("the checkout's own .venv (made by `make test`) is not the running environment")
    quick = README[README.index("## Quick start"):README.index("### As an installed package")]
    line = next(ln for ln in quick.splitlines() if ".venv/bin/activate" in ln)
    command = line.split("#", 1)[0].strip()
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                           if Path(p).resolve() != venv_bin.resolve())
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["PATH"] = path
    assert subprocess.run(["bash", "-c", "command -v mtlb"], cwd=ROOT, env=env, capture_output=True).returncode != 0
    proc = subprocess.run(["bash", "-c", f"{command} && mtlb --help"], cwd=ROOT, env=env, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    assert "usage: mtlb" in proc.stdout


def test_mtlb_demo_loads_once_and_then_says_so(tmp_path):
    env = {k: v for k, v in os.environ.items() if not (k.startswith("MTLB_") or k == "DATABASE_URL")}
    env["MTLB_DATA_DIR"] = str(tmp_path)
    mtlb = [sys.executable, "-m", "leaderboard.cli"]
    first = subprocess.run([*mtlb, "demo", "--no-publish", "--json"], env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["judgments"] == 25070 + 13069 + 26400
    again = subprocess.run([*mtlb, "demo", "--no-publish"], env=env, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    lines = again.stdout.strip().splitlines()
    assert lines[0] == "the demo campaigns are already loaded"
    # and the demo store's accounts, again (`make run` prints them on every start)
    assert lines[1].startswith("demo accounts") and "demo-organiser" in lines[2] and "demo-metrics" in lines[3]
    # the old spelling of the default still works for scripts that use it
    old = subprocess.run([*mtlb, "demo", "--if-empty", "--no-publish"], env=env, capture_output=True, text=True)
    assert old.returncode == 0 and "already loaded" in old.stdout
    assert not re.search(r"--if-empty", README), "the README no longer needs --if-empty"
