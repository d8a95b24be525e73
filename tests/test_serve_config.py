"""The shipped Streamlit settings (no tracebacks for visitors, no "Deploy" toolbar, upload limits, XSRF
protection…) apply however the app is started: ``mtlb serve`` from any working directory (and so in
the container, whose start script runs it) passes them explicitly, and ``streamlit run app.py`` in the
checkout reads ``.streamlit/config.toml``, which must say the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# an entry script that records the options in force when the server's warm-up runs it
PROBE = """
import json, os
import streamlit as st
names = {names!r}
# written beside and renamed into place: the test reads the file as soon as it appears
with open({out!r} + ".part", "w") as fh:
    json.dump({{name: st.get_option(name) for name in names}}, fh)
os.replace({out!r} + ".part", {out!r})
"""


def shipped() -> dict:
    from leaderboard.webapp.server_config import CONFIG_FILE
    with open(CONFIG_FILE, "rb") as fh:
        return tomllib.load(fh)


def flat(config: dict, prefix: str = "") -> dict:
    out = {}
    for key, value in config.items():
        if isinstance(value, dict):
            out.update(flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def test_checkout_config_is_the_shipped_one():
    with open(ROOT / ".streamlit" / "config.toml", "rb") as fh:
        assert tomllib.load(fh) == shipped()


def test_serve_applies_the_shipped_settings_from_another_directory(tmp_path):
    with open(ROOT / ".streamlit" / "config.toml", "rb") as fh:
        settings = flat(tomllib.load(fh))
    assert settings["client.showErrorDetails"] == "none" and settings["client.toolbarMode"] == "viewer"
    out = tmp_path / "options.json"
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE.format(names=sorted(settings), out=str(out)))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 's.sqlite'}", "MTLB_NO_DEMO": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "leaderboard.cli", "serve", "--port", "8781", "--app", str(probe)],
                            cwd=elsewhere, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not out.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert out.exists(), err[-2000:]
    assert json.loads(out.read_text()) == settings
