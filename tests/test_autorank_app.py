"""AutoRank on the Automatic page (AppTest): shown when the stored metric scores cover every system, with the
selection for human evaluation, its downloads, and the human rank beside it for organisers only.

The test set's teams carry the names, categories and metric scores of the WMT24 cs-uk AutoRank sheet, so the
page must show the organisers' published AutoRank and selection."""

from __future__ import annotations

import io
import json
import tempfile

import numpy as np
import pandas as pd
import pytest

from htmltables import page_tables
from test_app_pages import ORGANISER, app_env, run_app  # noqa: F401 (fixture)
from test_outputs_app import N, WORDS

METRICS = ("MetricX-23-XL", "CometKiwi-DA-XL")
CATEGORY = {"closed-system": (False, False), "open-source": (False, True), "constrained": (True, None)}


def _lines(seed: int, ref: list[str], p: float) -> bytes:
    r = np.random.default_rng(seed)
    return ("\n".join(" ".join(w if r.random() > p else r.choice(WORDS) for w in line.split()) for line in ref)
            + "\n").encode()


@pytest.fixture()
def cs_uk(app_env, shared):  # noqa: F811
    """Test set 'Now' cs-uk, one team per system of the WMT24 cs-uk sheet (its category on the submission),
    the sheet's system-level metric scores stored as two private metric submissions."""
    from leaderboard.outputs.service import add_team, add_testset, submit
    store = app_env["store"]
    published = pd.read_csv(shared / "wmt-now" / "autorank24.cs-uk.published.csv")
    scores = pd.read_csv(shared / "wmt-now" / "autorank24.cs-uk.csv")
    rng = np.random.default_rng(3)
    ref = [" ".join(rng.choice(WORDS, 9)) for _ in range(N)]
    with tempfile.TemporaryDirectory() as folder:
        src, refp = f"{folder}/src.txt", f"{folder}/ref.txt"
        open(src, "w").write("\n".join(f"Zdroj {i}" for i in range(N)) + "\n")
        open(refp, "w").write("\n".join(ref) + "\n")
        add_testset(store, "Now", "cs-uk", src, [refp])
        for i, row in enumerate(published.itertuples()):
            team = f"team-{i}"
            add_team(store, team, verified=True)
            path = f"{folder}/{i}.txt"
            open(path, "wb").write(_lines(i, ref, 0.05 + 0.02 * i))
            constrained, open_source = CATEGORY[row.type]
            submit(store, path, campaign="Now", lp="cs-uk", team=team, system=row.system, primary=True,
                   constrained=constrained, open_source=open_source)
    long = scores.melt(id_vars=["lp", "system"], var_name="metric", value_name="score")
    ids = {}
    for metric, higher in zip(METRICS, (False, True)):
        [ids[metric]] = store.save_metric_submissions("Now", long[long["metric"] == metric], level="system",
                                                      higher_is_better=higher, owner="mdev")
    return {**app_env, "published": published.set_index("system"), "ids": ids}


def test_autorank_from_stored_scores_reproduces_the_sheet(cs_uk):
    """Python (and `mtlb autorank --campaign`) see what the page shows."""
    from leaderboard.outputs.autorank import contract, testset_autorank
    from leaderboard.webapp.outputs_views import autorank_exports
    store, published = cs_uk["store"], cs_uk["published"]
    result = testset_autorank(store, "Now", "cs-uk", include_private=True)
    assert result["protocol"] == "wmt24" and result["available"] == ["wmt24"]
    got = {s["system"]: s["autorank"] for s in result["systems"]}
    assert max(abs(got[s] - published.at[s, "AutoRank"]) for s in got) < 1e-9
    chosen = {r["system"]: r["human_eval"] for r in result["selection"]}
    assert chosen == (published["human_eval"] == "Yes").to_dict()
    # participants see public metric submissions and their own only
    hidden = testset_autorank(store, "Now", "cs-uk", viewer="someone")
    assert hidden["systems"] is None and "no MetricX-23-XL scores" in hidden["missing"]
    files = autorank_exports(result)
    body = json.loads(files["json"])
    assert body["protocol"] == "wmt24" and body["systems"] == json.loads(json.dumps(contract(result, True, False)))["systems"]
    table = pd.read_csv(io.BytesIO(files["csv"]))
    assert dict(zip(table["system"], table["human_eval"])) == chosen


def test_automatic_page_shows_autorank_selection_and_human_rank(cs_uk):
    store, published = cs_uk["store"], cs_uk["published"]
    # anonymous visitors: the metric submissions are private, so no AutoRank yet
    at = run_app("automatic.py", params={"campaign": "Now", "lp": "cs-uk"})
    board = page_tables(at)[0]
    assert "AutoRank" not in board.columns and len(board) == 20
    at = run_app("automatic.py", params={"campaign": "Now", "lp": "cs-uk", "tab": "AutoRank"})
    assert any("AutoRank appears once" in i.value for i in at.info)
    # organisers see every stored submission: the AutoRank column and tab
    at = run_app("automatic.py", user=ORGANISER, params={"campaign": "Now", "lp": "cs-uk"})
    board = page_tables(at)[0]
    shown = dict(zip(board["System"], board["AutoRank"]))
    assert {s: round(v, 2) for s, v in shown.items()} == {s: round(v, 2) for s, v in published["AutoRank"].items()}
    at = run_app("automatic.py", user=ORGANISER, params={"campaign": "Now", "lp": "cs-uk", "tab": "AutoRank"})
    table = page_tables(at)[0]
    assert list(table["System"]) == published.sort_values("AutoRank").index.tolist()
    assert list(table["AutoRank"]) == [round(v, 2) for v in published.sort_values("AutoRank")["AutoRank"]]
    assert dict(zip(table["System"], table["Human evaluation"] == "selected")) == \
        (published["human_eval"] == "Yes").to_dict()
    assert set(table["Type"]) == {"closed", "open", "constrained"}
    assert "Human rank" not in table.columns  # nothing published for this pair yet
    assert {"Download AutoRank and selection (CSV)", "Download AutoRank and selection (JSON)"} <= \
        {b.label for b in at.get("download_button")}
    # a published human ranking of the pair: organisers see its ranks beside AutoRank
    systems = published.sort_values("AutoRank").index.tolist()[:5][::-1]
    ranking = {"lp": "cs-uk", "assessment": "adequacy", "signature": "sig", "pvalues": {},
               "systems": [{"system": s, "ave": 90.0 - i, "ave_z": 0.0, "rank_lo": i + 1, "rank_hi": i + 1,
                            "cluster": i + 1} for i, s in enumerate(systems)]}
    store.publish("Now", "cs-uk", "adequacy", ranking, data_hash="x", publisher="olga")
    at = run_app("automatic.py", user=ORGANISER, params={"campaign": "Now", "lp": "cs-uk", "tab": "AutoRank"})
    table = page_tables(at)[0].set_index("System")
    assert table.at[systems[0], "Human rank"] == 1 and table.at[systems[4], "Human rank"] == 5
    assert table.at[systems[0], "AutoRank"] > table.at[systems[4], "AutoRank"]
    assert pd.isna(table.at["CycleL", "Human rank"]) or table.at["CycleL", "Human rank"] in ("", "–")
    # once the metric developer publishes the scores, everyone sees AutoRank — but not the human rank
    for sid in cs_uk["ids"].values():
        store.set_submission_public(sid, True, "mdev", "metric-developer")
    at = run_app("automatic.py", params={"campaign": "Now", "lp": "cs-uk", "tab": "AutoRank"})
    table = page_tables(at)[0]
    assert "AutoRank" in table.columns and "Human rank" not in table.columns and len(table) == 20


def test_both_protocols_available_lets_the_page_choose(cs_uk):
    """With WMT25's metrics stored too (here made up: the WMT24 values under WMT25's names), WMT25 is
    the default and the radio switches back to WMT24."""
    store = cs_uk["store"]
    scores = store.metric_scores(cs_uk["ids"]["CometKiwi-DA-XL"])
    for i, metric in enumerate(("GEMBA-ESA-CMDA", "GEMBA-ESA-GPT4.1", "MetricX-24-Hybrid-XL", "XCOMET-XL",
                                "CometKiwi-XL")):
        sign = -1.0 if metric.startswith("MetricX") else 1.0
        store.save_metric_submissions("Now", scores.assign(score=sign * scores["score"] * (1 + i), metric=metric),
                                      level="system", public=True, owner="mdev")
    at = run_app("automatic.py", user=ORGANISER, params={"campaign": "Now", "lp": "cs-uk", "tab": "AutoRank"})
    assert at.radio(key="auto_protocol").value == "wmt25"
    table = page_tables(at)[0]
    assert "GEMBA-ESA-CMDA" in table.columns and table["AutoRank"].iloc[0] == 1.0
    assert table["AutoRank"].iloc[-1] == 20.0  # WMT25 maps onto 1 … N
    at.radio(key="auto_protocol").set_value("wmt24").run()
    table = page_tables(at)[0]
    assert "MetricX-23-XL" in table.columns and table["AutoRank"].iloc[-1] == 21.0
