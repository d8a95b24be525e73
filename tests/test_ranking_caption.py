"""The Leaderboard caption is written from the ranking's signature, for every protocol and option."""

from __future__ import annotations

import pytest

from leaderboard.publish.snapshots import rank
from leaderboard.publish.render import ranking_caption

from test_app_pages import make_judgments


@pytest.fixture(scope="module")
def frame():
    return make_judgments("C", "cs-en", seed=5, segments=20)


@pytest.mark.parametrize("options, expected, absent", [
    ({}, ["Ave. z", "Mann-Whitney U", "p < 0.05", "organisers' rule", "no quality control",
          "z-scores: as given", "1000 resamples, seed 12345"], ["signed-rank", "strict"]),
    ({"alpha": 0.01, "cluster_rule": "strict"}, ["p < 0.01", "every system above beats every system below"],
     ["p < 0.05"]),
    ({"protocol": "wmt25-signed-rank"}, ["Ave. (the mean of per-segment raw", "signed-rank", "raw scores"],
     ["Mann-Whitney"]),
    ({"protocol": "approx-randomisation", "trials": 200, "seed": 3, "n_resamples": 100},
     ["approximate randomisation", "200 trials, seed 3", "100 resamples, seed 3"], []),
    ({"standardise": "worker", "exclude_ref": True}, ["standardised per worker", "REF items left out"], []),
    ({"n_resamples": 0}, ["Intervals: none"], ["resamples"]),
])
def test_caption_follows_the_signature(frame, options, expected, absent):
    ranking = rank(frame, qc="none", **options)[0]
    text = ranking_caption(ranking)
    for part in expected:
        assert part in text, (part, ranking["signature"])
    for part in absent:
        assert part not in text
    assert ("human translation" in text) == any(s["human"] for s in ranking["systems"])


def test_caption_of_a_release_and_of_a_foreign_signature():
    release = {"signature": "da|protocol:wmt-da|qc:release|std:given|score:z|sort:ave_z|test:mwu-greater|p:0.05|"
                            "clusters:organisers", "systems": [{"system": "HUMAN-B"}]}
    text = ranking_caption(release)
    assert "as released by the organisers" in text and "no re-test" in text and "human translation" in text
    assert "Intervals: none" in text
    assert "the signature records how" in ranking_caption({"signature": "sig-x", "systems": []})
