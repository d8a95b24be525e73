"""Name matching, stars, the two-sample test and the calibrated comparison on simulated campaigns."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import mannwhitneyu

from leaderboard.errors import InputError
from leaderboard.human.longitudinal import (
    base_name, compare_years, difference_test, longitudinal, match_systems, stars, years_from_frame,
    years_from_rankings,
)


# ----------------------------------------------------------------------------------------- stars
@pytest.mark.parametrize("p, mark", [(0.0009, "***"), (0.001, "**"), (0.0099, "**"), (0.01, "*"),
                                     (0.049, "*"), (0.05, ""), (0.5, ""), (None, ""), (float("nan"), "")])
def test_stars_thresholds(p, mark):
    assert stars(p) == mark


# -------------------------------------------------------------------------------------- matching
def test_release_names_match_by_stripped_index():
    y21 = ["Facebook-AI.7", "Online-A.5", "Online-B.0", "CUNI-Transformer2018.1", "Online-Y.3",
           "CUNI-DocTransformer.4", "HUMAN.0", "Online-W.2", "Online-G.6"]
    y22 = ["CUNI-DocTransformer.6", "JDExploreAcademy.8", "Online-W.2", "Online-Y.4", "Lan-Bridge.1",
           "Online-B.0", "HUMAN-C", "Online-G.9", "SHOPLINE-PL.5", "Online-A.10", "CUNI-Transformer.7",
           "ALMAnaCH-Inria.3"]
    pairs = {(m.source, m.target) for m in match_systems(y21, y22)}
    # the data README's list of systems in both years (cs-en), and nothing else
    assert pairs == {("Online-A.5", "Online-A.10"), ("Online-B.0", "Online-B.0"), ("Online-G.6", "Online-G.9"),
                     ("Online-W.2", "Online-W.2"), ("Online-Y.3", "Online-Y.4"),
                     ("CUNI-DocTransformer.4", "CUNI-DocTransformer.6")}


def test_overrides_pair_unpair_and_refuse_unknown_names():
    a, b = ["CUNI-Transformer2018.1", "Online-B.0", "HUMAN.0"], ["CUNI-Transformer.7", "Online-B.3", "HUMAN-B"]
    assert [(m.source, m.target) for m in match_systems(a, b)] == [("Online-B.0", "Online-B.3")]
    got = match_systems(a, b, {"CUNI-Transformer2018": "CUNI-Transformer", "Online-B.0": ""})
    assert [(m.source, m.target, m.via) for m in got] == [("CUNI-Transformer2018.1", "CUNI-Transformer.7", "override")]
    with pytest.raises(InputError, match="Nope"):
        match_systems(a, b, {"Nope": "HUMAN-B"})
    with pytest.raises(InputError, match="two systems"):
        match_systems(a, b, {"HUMAN.0": "HUMAN-B", "Online-B": "HUMAN-B"})


def test_ambiguous_base_names_are_not_matched():
    got = match_systems(["X.1", "X.2", "Y.1"], ["X.5", "Y.7"])
    assert [(m.source, m.target) for m in got] == [("Y.1", "Y.7")]


names = st.from_regex(r"[A-Za-z][A-Za-z\-]{0,6}(\.[0-9]{1,2})?", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(names, max_size=8, unique=True), st.lists(names, max_size=8, unique=True))
def test_matching_properties(a, b):
    got = match_systems(a, b)
    src = [m.source for m in got]
    tgt = [m.target for m in got]
    assert len(set(src)) == len(src) and len(set(tgt)) == len(tgt)  # one-to-one
    for m in got:
        assert base_name(m.source) == base_name(m.target)
    # every base name held by exactly one system on each side is matched
    ca, cb = pd.Series([base_name(s) for s in a]).value_counts(), pd.Series([base_name(s) for s in b]).value_counts()
    unique_both = {x for x in ca.index if ca[x] == 1 and cb.get(x, 0) == 1}
    assert {base_name(s) for s in src} == unique_both
    assert {(m.source, m.target) for m in got} == {(m.target, m.source) for m in match_systems(b, a)}


# ------------------------------------------------------------------------------- two-sample test
def test_difference_test_agrees_with_scipy():
    rng = np.random.default_rng(1)
    a, b = rng.normal(60, 20, 300), rng.normal(64, 20, 400)
    got = difference_test(a, b)
    assert got["higher"] == "to"
    assert got["p"] == pytest.approx(mannwhitneyu(b, a, alternative="greater").pvalue, rel=1e-12)
    assert got["stars"] == stars(got["p"])
    back = difference_test(b, a)  # same test, direction read from the means
    assert back["higher"] == "from" and back["p"] == pytest.approx(got["p"], rel=1e-12)
    two = difference_test(a, b, "two-sided")
    assert two["p"] == pytest.approx(mannwhitneyu(a, b, alternative="two-sided").pvalue, rel=1e-12)
    with pytest.raises(InputError):
        difference_test(a, b, "less")


def test_difference_test_with_empty_sample():
    got = difference_test([], [1.0, 2.0])
    assert got["p"] is None and got["stars"] == ""


# --------------------------------------------------------------------------- simulated campaigns
def simulate(campaign: str, systems: dict[str, float], difficulty: float, *, seed: int, segments: int = 400,
             workers: int = 40) -> pd.DataFrame:
    """A campaign where score = quality − difficulty + worker bias + noise, clipped to 0..100."""
    rng = np.random.default_rng(seed)
    rows = []
    bias = rng.normal(0, 6, workers)
    for s_i, (system, quality) in enumerate(systems.items()):
        seg = np.arange(segments)
        worker = rng.integers(0, workers, segments)
        raw = np.clip(quality - difficulty + bias[worker] + rng.normal(0, 12, segments), 0, 100).round()
        rows.append(pd.DataFrame({
            "campaign": campaign, "lp": "xx-en", "assessment": "adequacy", "worker": [f"W{w}" for w in worker],
            "hit": [f"{system}-{i // 100}" for i in seg], "position": seg % 100 + 1, "segment": seg.astype(str),
            "system": system, "item_type": "SYSTEM", "raw": raw}))
    frame = pd.concat(rows, ignore_index=True)
    stats = frame.groupby("worker")["raw"].agg(["mean", "std"])
    frame["z"] = (frame["raw"] - frame["worker"].map(stats["mean"])) / frame["worker"].map(stats["std"])
    frame["seconds"] = np.nan
    frame["doc"] = pd.NA
    return frame


def test_calibration_recovers_the_true_gain_on_simulated_years():
    # true qualities: best improves 70 → 76 (+6); the later test set is 9 points harder
    a = simulate("c1", {"Best-A.1": 70.0, "Curr.2": 65.0, "Other.3": 55.0}, difficulty=0.0, seed=11)
    b = simulate("c2", {"Best-B.4": 76.0, "Curr.9": 65.0, "Other-2.5": 50.0}, difficulty=9.0, seed=12)
    ya, yb = years_from_frame("A", a)[("xx-en", "adequacy")], years_from_frame("B", b)[("xx-en", "adequacy")]
    got = compare_years(ya, yb, calibration="Curr")
    assert got["best"]["from"]["system"] == "Best-A.1" and got["best"]["to"]["system"] == "Best-B.4"
    cal = got["calibration"]["raw"]
    # independent arithmetic from the frames
    mean = lambda f, s: f[f.system == s].groupby("segment")["raw"].mean().mean()  # noqa: E731
    assert cal["delta"] == pytest.approx(mean(a, "Curr.2") - mean(b, "Curr.9"), abs=1e-9)
    assert cal["gain"] == pytest.approx(mean(b, "Best-B.4") - mean(a, "Best-A.1")
                                        + mean(a, "Curr.2") - mean(b, "Curr.9"), abs=1e-9)
    # the raw best difference is about 6 − 9 = −3; the calibrated gain is about +6
    assert got["best"]["raw"]["difference"] == pytest.approx(-3.0, abs=2.0)
    assert cal["gain"] == pytest.approx(6.0, abs=2.5)
    assert cal["delta_stars"] == "***"
    assert got["calibration"]["z"] is None  # two campaigns: no z gain
    assert "assumes" in got["statement"]


def test_same_campaign_gives_z_gain_and_no_caveat():
    frame = simulate("one", {"B07": 55.0, "B12": 58.0, "C07": 64.0, "C12": 58.0}, 0.0, seed=3)
    years = years_from_frame("all", frame)[("xx-en", "adequacy")]
    sys07 = years.systems[years.systems.system.isin(["B07", "C07"])]
    sys12 = years.systems[years.systems.system.isin(["B12", "C12"])]
    from dataclasses import replace
    ya = replace(years, label="2007", systems=sys07.reset_index(drop=True))
    yb = replace(years, label="2012", systems=sys12.reset_index(drop=True))
    got = compare_years(ya, yb, calibration="C07=C12")
    z = got["calibration"]["z"]
    table = years.systems.set_index("system")["ave_z"]
    assert z["gain"] == pytest.approx(table["B12"] - table["B07"] + table["C07"] - table["C12"], abs=1e-12)
    assert got["same_campaign"] and "assumes" not in got["statement"]


def test_without_calibration_the_statement_says_no_gain():
    a = simulate("c1", {"S.1": 60.0, "T.2": 50.0}, 0.0, seed=1, segments=50)
    b = simulate("c2", {"S.3": 62.0, "U.2": 50.0}, 0.0, seed=2, segments=50)
    out = longitudinal([("A", years_from_frame("A", a)), ("B", years_from_frame("B", b))])
    comp = out["comparisons"][0]
    assert comp["calibration"] is None and "NOT gains" in comp["statement"]
    assert [s["name"] for s in comp["shared_systems"]] == ["S"]
    assert comp["unmatched"] == {"from": ["T.2"], "to": ["U.2"]}
    with pytest.raises(InputError, match="not judged in both"):
        longitudinal([("A", years_from_frame("A", a)), ("B", years_from_frame("B", b))], calibration="T")


def test_ranking_input_gives_scores_without_tests():
    rank_a = [{"lp": "xx-en", "assessment": "adequacy", "systems": [
        {"system": "S.1", "ave": 70.0, "ave_z": 0.2, "n": 100}, {"system": "C.2", "ave": 60.0, "ave_z": -0.1, "n": 100}]}]
    rank_b = [{"lp": "xx-en", "systems": [
        {"system": "S.4", "ave": 66.0, "ave_z": 0.1, "n": 90}, {"system": "C.0", "ave": 52.0, "ave_z": -0.2, "n": 90}]}]
    out = longitudinal([("A", years_from_rankings("A", rank_a)), ("B", years_from_rankings("B", rank_b))],
                       calibration="C")
    assert len(out["comparisons"]) == 1
    cal = out["comparisons"][0]["calibration"]["raw"]
    assert (cal["delta"], cal["best_difference"], cal["gain"]) == (8.0, -4.0, 4.0)
    assert cal["delta_p"] is None and cal["delta_stars"] == ""


def test_exclude_and_best_by():
    ranks = [{"lp": "xx-en", "assessment": "adequacy", "systems": [
        {"system": "HUMAN.0", "ave": 90.0, "ave_z": 0.5}, {"system": "S.1", "ave": 71.0, "ave_z": 0.1},
        {"system": "T.2", "ave": 72.0, "ave_z": 0.0}]}]
    y = years_from_rankings("A", ranks)
    out = longitudinal([("A", y), ("B", y)], exclude=["HUMAN*"])
    assert out["tracks"][0]["years"][0]["best"]["system"] == "S.1"
    out = longitudinal([("A", y), ("B", y)], exclude=["HUMAN*"], best_by="raw")
    assert out["tracks"][0]["years"][0]["best"]["system"] == "T.2"


def test_missing_raw_scores_give_null_differences_and_a_warning():
    no_raw = [{"lp": "xx-en", "assessment": "adequacy", "systems": [
        {"system": "S.1", "ave_z": 0.2}, {"system": "C.2", "ave_z": -0.1}]}]
    with_raw = [{"lp": "xx-en", "assessment": "adequacy", "systems": [
        {"system": "S.3", "ave": 66.0, "ave_z": 0.1}, {"system": "C.4", "ave": 52.0, "ave_z": -0.2}]}]
    out = longitudinal([("A", years_from_rankings("A", no_raw)), ("B", years_from_rankings("B", with_raw))],
                       calibration="C")
    comp = out["comparisons"][0]
    assert comp["best"]["from"]["system"] == "S.1"  # best by Ave z still works
    assert comp["calibration"]["raw"] is None and comp["best"]["raw"]["difference"] is None
    assert any("A (xx-en) has no raw scores" in w for w in comp["warnings"])


def test_rank_ranges_come_from_the_ranking_module(monkeypatch):
    import sys
    import types

    frame = simulate("c1", {"S.1": 70.0, "T.2": 60.0}, 0.0, seed=5, segments=60)
    fake = types.ModuleType("leaderboard.human.ranking")
    fake.rank_judgments = lambda f, **kw: [{"lp": "xx-en", "assessment": "adequacy", "signature": "sig", "systems": [
        {"system": "S.1", "rank_lo": 1, "rank_hi": 1}, {"system": "T.2", "rank_lo": 2, "rank_hi": 2}]}]
    monkeypatch.setitem(sys.modules, "leaderboard.human.ranking", fake)
    year = years_from_frame("A", frame)[("xx-en", "adequacy")]
    assert year.signature == "sig"
    assert year.systems.set_index("system")[["rank_lo", "rank_hi"]].to_dict("index") == {
        "S.1": {"rank_lo": 1, "rank_hi": 1}, "T.2": {"rank_lo": 2, "rank_hi": 2}}
