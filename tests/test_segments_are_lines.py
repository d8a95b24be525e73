"""segments_are_lines: a campaign setting (off unless set or verified), settable in the Organiser page and
the CLI, and checkable from the data (sentence chrF vs human scores at line offsets)."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from leaderboard.cli import main
from test_app_pages import ORGANISER, fresh_store, run_app, unmd

ROOT = Path(__file__).resolve().parents[1]
TEXTS = ROOT / "leaderboard" / "demo_data" / "wmt22-cs-en" / "texts"
SYSTEMS = ["Online-B", "Online-W", "CUNI-Transformer", "SHOPLINE-PL"]
N_LINES = 600


def _texts() -> pd.DataFrame:
    """The real WMT22 cs-en test set (shipped demo excerpt): reference B and four outputs, 600 lines."""
    from leaderboard.ingest.texts import read_lines
    rows = []
    for name, path in [("B", TEXTS / "generaltest2022.cs-en.ref.B.en.gz")] + \
            [(s, TEXTS / f"generaltest2022.cs-en.hyp.{s}.en.gz") for s in SYSTEMS]:
        lines = read_lines(path)[:N_LINES]
        kind = "reference" if name == "B" else "hypothesis"
        rows += [{"kind": kind, "name": name, "line": i + 1, "text": t} for i, t in enumerate(lines)]
    return pd.DataFrame(rows)


def _human(texts: pd.DataFrame, shift: int = 0, seed: int = 0) -> pd.DataFrame:
    """Human scores that follow word overlap with the reference (difflib, not chrF) plus noise; the
    segment id is the line number + ``shift``."""
    rng = np.random.default_rng(seed)
    ref = texts[texts["kind"] == "reference"].set_index("line")["text"]
    rows = []
    for s in SYSTEMS:
        out = texts[(texts["kind"] == "hypothesis") & (texts["name"] == s)].set_index("line")["text"]
        for line, hyp in out.items():
            sim = difflib.SequenceMatcher(None, hyp.split(), ref[line].split()).ratio()
            raw = float(np.clip(30 + 60 * sim + rng.normal(0, 12), 0, 100))
            rows.append({"system": f"{s}.{SYSTEMS.index(s)}", "segment": str(line + shift), "raw": raw, "z": np.nan})
    return pd.DataFrame(rows)


def test_alignment_found_at_offset_zero_and_not_when_shifted():
    from metrics.alignment import line_alignment
    texts = _texts()
    aligned = line_alignment(_human(texts), texts)
    assert aligned["verified"], aligned["reason"]
    assert aligned["r_at_0"] > 0.3 and aligned["r_at_0"] > aligned["best_other"] + 0.1
    assert aligned["systems"] == sorted(f"{s}.{SYSTEMS.index(s)}" for s in SYSTEMS)  # names matched without .N
    # ids one ahead of the lines: the peak moves to offset -1 and the check refuses
    ahead = _human(texts, shift=1)
    outside = line_alignment(ahead, texts)  # id 601 names no line
    assert not outside["verified"] and "outside the 600 lines" in outside["reason"]
    shifted = line_alignment(ahead[ahead["segment"] != str(N_LINES + 1)], texts)
    assert not shifted["verified"]
    assert max(shifted["r"], key=shifted["r"].get) == -1
    # ids that are not numbers cannot be lines
    named = _human(texts).assign(segment=lambda f: "doc1-" + f["segment"])
    assert not line_alignment(named, texts)["verified"]


@pytest.fixture()
def demo_url(tmp_path) -> str:
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    from leaderboard.publish.demo import load_demo
    from leaderboard.storage import Store
    load_demo(Store(url), publish=False, skip={"Simulated crowd (demo)"})
    return url


def test_wmt22_release_ids_are_not_lines(demo_url, capsys):
    """The WMT22 release numbers segments its own way: r ≈ 0 at every offset (as found when the demo
    was made); the CLI says so and stores 'no'."""
    from leaderboard.storage import Store
    store = Store(demo_url)
    store.set_segments_are_lines("WMT22 cs-en (demo)", True)
    assert main(["campaigns", "verify-lines", "--campaign", "WMT22 cs-en (demo)", "--set", "--database-url",
                 demo_url, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verified"] is False and out["stored"] is False
    (lp,) = out["lps"]
    assert lp["lp"] == "cs-en" and abs(lp["r_at_0"]) < 0.1 and all(abs(r) < 0.1 for r in lp["r"].values())
    assert store.campaign_info("WMT22 cs-en (demo)")["segments_are_lines"] is False


def test_cli_create_and_set(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    assert main(["campaigns", "create", "a", "--database-url", url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["segments_are_lines"] is False
    assert main(["campaigns", "create", "b", "--segments-are-lines", "yes", "--database-url", url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["segments_are_lines"] is True
    assert main(["campaigns", "set", "--campaign", "a", "--segments-are-lines", "yes", "--database-url", url]) == 0
    assert "segments are lines: yes" in capsys.readouterr().out
    assert main(["campaigns", "set", "--campaign", "zz", "--segments-are-lines", "no", "--database-url", url]) == 2
    assert "no campaign named 'zz'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["campaigns", "set", "--campaign", "a", "--segments-are-lines", "maybe", "--database-url", url])
    assert main(["campaigns", "--database-url", url, "--json"]) == 0  # listing still works
    assert {c["campaign"] for c in json.loads(capsys.readouterr().out)} == {"a", "b"}


@pytest.fixture()
def organiser_env(tmp_path, monkeypatch):
    return fresh_store(tmp_path, monkeypatch)


def test_organiser_page_creates_with_and_changes_the_setting(organiser_env):
    store = organiser_env
    at = run_app("organiser.py", user=ORGANISER)
    at.text_input(key="new_campaign_name").set_value("plain")
    at.button(key="FormSubmitter:new_campaign-Create campaign").click().run()
    assert store.campaign_info("plain")["segments_are_lines"] is False  # the default
    at.text_input(key="new_campaign_name").set_value("lined")
    at.checkbox(key="new_campaign_lines").check()
    at.button(key="FormSubmitter:new_campaign-Create campaign").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert store.campaign_info("lined")["segments_are_lines"] is True
    at.selectbox(key="set_campaign").set_value("plain").run()
    at.checkbox(key="set_lines_plain").check().run()
    at.button(key="set_lines_save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert store.campaign_info("plain")["segments_are_lines"] is True
    # verifying a campaign without data explains why it cannot
    at.button(key="set_lines_verify").click().run()
    assert any("no stored judgments" in unmd(e.value) for e in at.error), [e.value for e in at.error]
