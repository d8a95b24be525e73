"""The shipped demo campaigns load, publish, and show what they claim to."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from leaderboard.publish.demo import DEMO_CAMPAIGN, SIMULATED_CAMPAIGN, WMT21_CAMPAIGN, ensure_demo
from leaderboard.human.qc import filter_judgments, qc_summary
from leaderboard.storage import Store

# the tests that load the demo do so in one test process (with tests/test_demo_accounts.py), where every
# load after the first reuses sacrebleu's statistics of the demo's outputs; the tests that only read the
# published demo read a copy of the one store conftest's demo_template loads (ensure_demo) once
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("demo")]


def demo_copy(demo_template, folder) -> Store:
    """A store of its own holding the demo as ``ensure_demo`` loads and publishes it."""
    from stores import copy_store
    return Store(f"sqlite:///{copy_store(demo_template, folder)}")


def test_demo_loads_once_and_publishes(sqlite_url):
    store = Store(sqlite_url)
    first = ensure_demo(store)
    assert set(first["campaigns"]) == {DEMO_CAMPAIGN, WMT21_CAMPAIGN, SIMULATED_CAMPAIGN}
    assert ensure_demo(store) is None  # idempotent
    snaps = store.snapshots()
    assert sorted(zip(snaps["campaign"], snaps["lp"])) == [
        (SIMULATED_CAMPAIGN, "de-en"), (SIMULATED_CAMPAIGN, "en-de"), (WMT21_CAMPAIGN, "cs-en"),
        (DEMO_CAMPAIGN, "cs-en")]
    # the WMT22 excerpt is published last: the app opens on it
    assert snaps.sort_values("published_at")["campaign"].iloc[-1] == DEMO_CAMPAIGN
    assert store.campaign_info(DEMO_CAMPAIGN)["segments_are_lines"] is False
    texts = store.texts(DEMO_CAMPAIGN, "cs-en")
    assert len(texts[texts["kind"] == "hypothesis"]["name"].unique()) == 11


def test_demo_ranking_equals_the_published_wmt22_table(demo_template, tmp_path, shared):
    store = demo_copy(demo_template, tmp_path)
    ranking = store.snapshot(DEMO_CAMPAIGN, "cs-en", "adequacy")["ranking"]
    published = pd.read_csv(shared / "wmt22-toen-da" / "ad-sys-scores-cs-en.csv", sep=r"\s+").set_index("SYS")
    mine = pd.DataFrame(ranking["systems"]).set_index("system")
    np.testing.assert_allclose(mine.loc[published.index, "ave_z"], published["Z.SCR"], atol=1e-9)
    np.testing.assert_allclose(mine.loc[published.index, "ave"], published["RAW.SCR"], atol=1e-9)
    assert (mine.loc[published.index, "n_all"] == published["N.ALL"]).all()
    assert "qc:release" in ranking["signature"]


def test_an_older_demo_store_gets_the_second_year(sqlite_url):
    """A store with the two earlier demo campaigns gets only the WMT21 one added."""
    from leaderboard.publish.demo import load_demo
    store = Store(sqlite_url)
    load_demo(store, skip={WMT21_CAMPAIGN})
    added = ensure_demo(store)
    assert added["campaigns"] == [WMT21_CAMPAIGN]


def test_demo_wmt21_ranking_equals_the_published_table(demo_template, tmp_path, shared):
    store = demo_copy(demo_template, tmp_path)
    ranking = store.snapshot(WMT21_CAMPAIGN, "cs-en", "adequacy")["ranking"]
    published = pd.read_csv(shared / "wmt21-toen-da" / "ad-sys-scores-cs-en.csv", sep=r"\s+").set_index("SYS")
    mine = pd.DataFrame(ranking["systems"]).set_index("system")
    assert sorted(mine.index) == sorted(published.index)
    np.testing.assert_allclose(mine.loc[published.index, "ave_z"], published["Z.SCR"], atol=1e-9)
    np.testing.assert_allclose(mine.loc[published.index, "ave"], published["RAW.SCR"], atol=1e-9)
    assert (mine.loc[published.index, "n_all"] == published["N.ALL"]).all()
    assert "qc:release" in ranking["signature"]


def test_across_years_opens_on_a_calibrated_comparison_of_the_two_wmt_years(demo_template, tmp_path, monkeypatch):
    """First visit of Across years on the demo: WMT21 → WMT22 cs-en, calibrated by a system of both years,
    with the gain (docs/method/longitudinal.md#the-gain) computed from the two published rankings."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest
    monkeypatch.setenv("MTLB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MTLB_NO_DEMO", "1")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    from leaderboard.storage import default_url
    demo_copy(demo_template, tmp_path)  # the app's file under MTLB_DATA_DIR
    store = Store(default_url())
    root = Path(__file__).resolve().parents[1]
    at = AppTest.from_file(str(root / "app.py"), default_timeout=120)
    at.run()
    at.switch_page(str(root / "leaderboard" / "webapp" / "pages" / "longitudinal.py")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.multiselect(key="years").value == [WMT21_CAMPAIGN, DEMO_CAMPAIGN]
    curr = at.text_input(key="calibration").value
    r21 = store.snapshot(WMT21_CAMPAIGN, "cs-en", "adequacy")["ranking"]
    r22 = store.snapshot(DEMO_CAMPAIGN, "cs-en", "adequacy")["ranking"]
    base = lambda s: s.rsplit(".", 1)[0]  # noqa: E731
    in_21 = {base(s["system"]): s for s in r21["systems"]}
    in_22 = {base(s["system"]): s for s in r22["systems"]}
    assert curr in in_21 and curr in in_22 and not curr.upper().startswith("HUMAN")
    from leaderboard.webapp.pages.longitudinal import COMPARISON_COLUMNS
    from test_app_pages import shown_table
    gains = shown_table(at, COMPARISON_COLUMNS, "gain")
    row = gains[gains["lp"] == "cs-en"].iloc[0]
    assert row["calibration_system"] == in_21[curr]["system"]
    # gain = (BEST 2022 − BEST 2021) + (CURR 2021 − CURR 2022), raw Ave, best by Ave z without CURR
    best21 = next(s for s in r21["systems"] if base(s["system"]) != curr)
    best22 = next(s for s in r22["systems"] if base(s["system"]) != curr)
    expected = (best22["ave"] - best21["ave"]) + (in_21[curr]["ave"] - in_22[curr]["ave"])
    assert row["gain"] == pytest.approx(expected, abs=5e-3)  # shown with 2 decimals
    assert not any("share no calibration run" in w.value for w in at.warning)
    at.query_params["tab"] = "Charts"
    at.run()
    assert len(at.get("plotly_chart")) == 3  # best per year, the gain scatter (Graham et al. 2014, Fig. 1), gain bars


def test_simulated_demo_qc_removes_random_clickers(demo_template, tmp_path):
    store = demo_copy(demo_template, tmp_path)
    frame = store.judgments(SIMULATED_CAMPAIGN)
    _, report = filter_judgments(frame)
    summary = qc_summary(report)
    assert summary["workers_total"] == 88
    # the simulator names workers by kind: every consistent worker passes, random clickers only
    # by chance (p is uniform for them: about 1 in 20)
    kind = report["worker"].str.extract(r"W-(\w+)-")[0]
    assert report.loc[kind != "random", "passed"].all()
    assert report.loc[kind == "random", "passed"].sum() <= 2
    assert "qc:paired-t" in store.snapshot(SIMULATED_CAMPAIGN, "de-en", "adequacy")["signature"]


def test_demo_shared_task_has_a_leaderboard_equal_to_sacrebleus_cli(sqlite_url, tmp_path):
    """The demo releases a test set with five submissions; their BLEU is sacrebleu's own, from its CLI."""
    import gzip
    import shutil
    import subprocess
    import sys

    from leaderboard.outputs.service import leaderboard
    from leaderboard.publish.demo import DEMO_TEAMS, demo_dir
    from leaderboard.storage.outputs import OutputStore

    store = Store(sqlite_url)
    ensure_demo(store, publish=False)
    out = OutputStore(store)
    subs = out.submissions(DEMO_CAMPAIGN, "cs-en")
    assert sorted(subs["system"]) == sorted(s for systems in DEMO_TEAMS.values() for s in systems)
    assert sorted(subs.loc[subs["primary"].astype(bool), "system"]) == sorted(s[0] for s in DEMO_TEAMS.values())
    board = leaderboard(store, DEMO_CAMPAIGN, "cs-en", n_samples=100)
    assert sorted(s["system"] for s in board["systems"]) == sorted(s[0] for s in DEMO_TEAMS.values())  # one a team
    # the same files through sacrebleu's command line: the README promises equal numbers
    folder = demo_dir() / "wmt22-cs-en" / "testset"
    plain = {}
    for path in folder.glob("*.gz"):
        plain[path.name[:-3]] = tmp_path / path.name[:-3]
        with gzip.open(path, "rb") as src, open(plain[path.name[:-3]], "wb") as dst:
            shutil.copyfileobj(src, dst)
    refs = [str(plain["generaltest2022.cs-en.ref.B.en"]), str(plain["generaltest2022.cs-en.ref.C.en"])]
    sacrebleu = [sys.executable, "-m", "sacrebleu", *refs, "-l", "cs-en", "-b", "-w", "4", "-i"]
    for system in ("Lan-Bridge", "ALMAnaCH-Inria"):
        cli = float(subprocess.run([*sacrebleu, str(plain[f"generaltest2022.cs-en.hyp.{system}.en"])],
                                   capture_output=True, text=True, check=True).stdout.strip())
        stored = float(subs.loc[subs["system"] == system, "bleu"].iloc[0])
        assert stored == pytest.approx(cli, abs=5e-5)
