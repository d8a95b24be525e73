"""The Leaderboard caption is written from the ranking's spec, for every protocol and option."""

from __future__ import annotations

import pytest

from leaderboard.human.ranking import rank_result
from leaderboard.human.spec import GIVEN_Z, MqmSpec, PublishedSpec, WavesSpec
from leaderboard.publish.render import ranking_caption

from test_app_pages import make_judgments


@pytest.fixture(scope="module")
def frame():
    return make_judgments("C", "cs-en", seed=5, segments=20)


@pytest.mark.parametrize("options, expected, absent", [
    ({}, ["Ave. z", "Mann-Whitney U", "p < 0.05", "organisers' rule", "Workers: no worker quality control",
          "z-scores as given", "1000 resamples, seed 12345"], ["signed-rank", "strict"]),
    ({"alpha": 0.01, "cluster_rule": "strict"}, ["p < 0.01", "every system above significantly beats every system below"],
     ["p < 0.05"]),
    ({"protocol": "wmt25-signed-rank"}, ["Ave. (the mean of per-segment raw", "signed-rank", "raw 0–100 averages"],
     ["Mann-Whitney"]),
    ({"protocol": "approx-randomisation", "trials": 200, "seed": 3, "n_resamples": 100},
     ["approximate randomisation", "200 trials, seed 3", "100 resamples, seed 3"], []),
    ({"standardise": "worker", "exclude_ref": True}, ["standardised per worker", "REF items left out"], []),
    ({"n_resamples": 0}, ["Intervals: none"], ["resamples"]),
])
def test_caption_follows_the_spec(frame, options, expected, absent):
    made = rank_result(frame, qc="none", **options).rankings[0]
    ranking = made.to_dict()
    text = ranking_caption(ranking, made.spec)
    for part in expected:
        assert part in text, (part, ranking["signature"])
    for part in absent:
        assert part not in text
    assert ("human translation" in text) == any(s["human"] for s in ranking["systems"])


def test_caption_of_a_release_and_of_an_unrecorded_spec():
    import dataclasses
    release = dataclasses.replace(GIVEN_Z, protocol="wmt-da", qc="release", test="mwu-greater")
    text = ranking_caption({"systems": [{"system": "HUMAN-B"}]}, release)
    assert "the organisers' worker quality control" in text and "no re-test" in text and "human translation" in text
    assert "Intervals: none" in text
    assert "the signature records how" in ranking_caption({"systems": []}, None)


def test_caption_of_the_other_kinds():
    mqm = ranking_caption({"systems": []}, MqmSpec(weights="google-mqm", test="ar-greater-paired", alpha=0.01,
                                                    cluster_rule="strict", trials=500, resamples=200, seed=7))
    assert "MQM (the mean" in mqm and "500 trials, seed 7" in mqm and "p < 0.01" in mqm
    assert "200 resamples, seed 7" in mqm and "Workers:" not in mqm
    waves = ranking_caption({"systems": []}, WavesSpec(alpha=0.025, cluster_rule="wmt25"))
    assert "both ratings of every item" in waves and "p < 0.025" in waves and "WMT25 rule" in waves
    assert "nearest system above that beats it" in waves and "Workers: no worker quality control." in waves
    table = ranking_caption({"systems": []}, PublishedSpec(protocol="wmt23", file="x.txt"))
    assert "Ave. (the mean of per-segment raw" in table and "the signature records how" in table
