"""System page for campaigns with raw scores only (canonical CSV without z, the simulated demo campaign).

The published ranking standardised the raw scores per worker (signature ``std:worker…``); the page must
show the same z: distribution, z column, mean z difference and head to head, never None / nan.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from htmltables import page_figures
from test_app_pages import fresh_store, make_judgments, run_app

CAMPAIGN = "raw-only"


@pytest.fixture()
def raw_env(tmp_path, monkeypatch):
    from leaderboard.publish.snapshots import publish_rankings
    store = fresh_store(tmp_path, monkeypatch)
    frame = make_judgments(CAMPAIGN, "fr-en", seed=5).assign(z=np.nan)  # no z in the upload
    frame = frame[~((frame["system"] == "sysB.2") & (frame["segment"].astype(int) % 5 == 0))]  # not all shared
    store.load_judgments(frame, file_name="raw.csv", input_format="canonical")
    published = publish_rankings(store, CAMPAIGN, "tester", qc="none")
    assert "std:worker" in published[0]["signature"]
    return {"store": store, "frame": frame}


def _metric(at, label: str) -> str:
    return next(m.value for m in page_figures(at) if m.label == label)


def test_raw_only_campaign_gets_the_rankings_z(raw_env):
    params = {"campaign": CAMPAIGN, "lp": "fr-en", "system": "sysA.1", "vs": "sysB.2"}
    at = run_app("system.py", params={**params, "tab": "Head to head"})
    frame = raw_env["frame"]
    # z by hand: per worker (one lp, one assessment) from raw with the sample sd, then segment means
    z = (frame["raw"] - frame.groupby("worker")["raw"].transform("mean")) / \
        frame.groupby("worker")["raw"].transform(lambda r: r.std(ddof=1))
    cells = frame.assign(z=z).groupby(["system", "segment"])["z"].mean().unstack("system")
    both = cells[["sysA.1", "sysB.2"]].dropna()
    assert _metric(at, "Common segments") == f"{len(both):,}"
    assert _metric(at, "Mean z difference") == f"{(both['sysA.1'] - both['sysB.2']).mean():+.3f}"
    for m in page_figures(at):
        assert "nan" not in m.value.lower() and "none" not in m.value.lower(), (m.label, m.value)
    assert len(at.get("plotly_chart")) == 1  # head to head
    at = run_app("system.py", params=params)
    table = next(d.value for d in at.dataframe if "z" in d.value.columns and "Segment" in d.value.columns)
    assert table["z"].notna().all()
    mine = cells["sysA.1"].dropna()
    assert sorted(table["z"]) == pytest.approx(sorted(mine), abs=1e-12)
    assert len(run_app("system.py", params={**params, "tab": "Distribution"}).get("plotly_chart")) == 1


def test_simulated_demo_system_page(tmp_path, monkeypatch, demo_template):
    """The shipped simulated campaign (raw only, ranked after paired-t QC): the page's segment z
    average to the published Ave z of every system."""
    from leaderboard.publish.demo import SIMULATED_CAMPAIGN
    from stores import copy_store
    copy_store(demo_template, tmp_path)
    store = fresh_store(tmp_path, monkeypatch, demo=True)
    snap = store.snapshot(SIMULATED_CAMPAIGN, "de-en", "adequacy")
    rows = {s["system"]: s for s in snap["ranking"]["systems"]}
    first, second = list(rows)[:2]
    params = {"campaign": SIMULATED_CAMPAIGN, "lp": "de-en", "system": first, "vs": second}
    at = run_app("system.py", params=params)
    table = next(d.value for d in at.dataframe if "z" in d.value.columns and "Segment" in d.value.columns)
    assert table["z"].notna().all()
    assert table["z"].mean() == pytest.approx(rows[first]["ave_z"], abs=1e-9)
    assert table["Raw"].mean() == pytest.approx(rows[first]["ave"], abs=1e-9)
    assert int(table["N"].sum()) == rows[first]["n_all"]
    at = run_app("system.py", params={**params, "tab": "Head to head"})
    diff = _metric(at, "Mean z difference")
    assert diff not in ("–", "+nan") and np.isfinite(float(diff))
    for m in page_figures(at):
        assert "nan" not in m.value.lower() and "none" not in m.value.lower(), (m.label, m.value)
    assert len(at.get("plotly_chart")) == 1  # head to head
    assert isinstance(table, pd.DataFrame)
