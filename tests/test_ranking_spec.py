"""The ranking specification: frozen, round-trips through JSON, renders the signature, is stored with
every snapshot, and says how per-segment scores are recomputed (nothing parses the signature)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from conftest import ROOT
from leaderboard.human.spec import RankingSpec, legacy_spec

FROZEN = ROOT / "tests" / "data" / "rank_frozen"


def _frame():
    from leaderboard.human.qc import simulate_judgments
    frame = simulate_judgments(6, random_share=0.2, n_systems=4, n_segments=30, seed=5, lp="cs-en")
    frame["campaign"] = "c"
    return frame


@pytest.mark.parametrize("options", [
    {"qc": "paired-t", "qc_alpha": 0.1, "n_resamples": 50, "seed": 3},
    {"qc": "none", "protocol": "approx-randomisation", "n_resamples": 0, "exclude_systems": ["sys1*"]},
    {"qc": "none", "standardise": "worker", "exclude_ref": True, "zero_sd": "one", "cluster_rule": "strict"},
])
def test_the_spec_round_trips_and_renders_the_rankings_signature(options):
    from leaderboard.human.ranking import rankings
    ranking = rankings(_frame(), **options)[0]
    spec = ranking.spec
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.alpha = 0.1  # type: ignore[misc]
    again = RankingSpec.from_dict(json.loads(json.dumps(spec.to_dict(), allow_nan=False)))  # as a snapshot stores it
    assert again == spec and hash(again) == hash(spec)
    counts = ranking.to_dict()
    systems = len(counts["systems"])
    judgments = sum(s["n_all"] for s in counts["systems"])
    segments = int(ranking.signature.split("|segments:")[1].split("|")[0])
    assert again.signature(systems=systems, segments=segments, judgments=judgments) == ranking.signature
    with pytest.raises(ValueError, match="unknown ranking specification keys"):
        RankingSpec.from_dict({**spec.to_dict(), "colour": "red"})


@pytest.mark.parametrize("name", sorted(p.name for p in FROZEN.glob("*.json")))
def test_signatures_of_the_frozen_rankings_are_rendered_back_by_their_spec(name):
    """Snapshots published before specs were stored: their spec, read once, renders the same signature."""
    found = json.loads((FROZEN / name).read_text(encoding="utf-8"))
    for ranking in found if isinstance(found, list) else [found]:
        spec = legacy_spec(ranking["signature"])
        systems = ranking["systems"]
        segments = int(ranking["signature"].split("|segments:")[1].split("|")[0])
        rendered = spec.signature(systems=len(systems), segments=segments,
                                  judgments=sum(s["n_all"] for s in systems))
        assert rendered == ranking["signature"]


def test_the_spec_is_stored_with_the_snapshot_and_gives_its_segment_scores(tmp_path, monkeypatch):
    from test_app_pages import fresh_store

    from leaderboard.human.ranking import segment_scores
    from leaderboard.publish.artifacts import payload_frame
    from leaderboard.publish.snapshots import publish_rankings
    store = fresh_store(tmp_path, monkeypatch)
    frame = _frame()
    store.load_judgments(frame, file_name="c.csv", input_format="canonical")
    publish_rankings(store, "c", "olga", qc="paired-t", n_resamples=0, exclude_systems=["sys0"])
    snap = store.snapshot("c", "cs-en", "adequacy")
    spec = RankingSpec.from_dict(store.snapshot_artifact("c", "cs-en", "adequacy", 1, "spec"))
    systems = snap["ranking"]["systems"]
    assert spec.signature(systems=len(systems), segments=int(snap["signature"].split("|segments:")[1].split("|")[0]),
                          judgments=sum(s["n_all"] for s in systems)) == snap["signature"]
    assert spec.exclude == ("sys0",) and spec.qc == "paired-t"
    stored = payload_frame(store.snapshot_artifact("c", "cs-en", "adequacy", 1, "segment_scores"))
    again = segment_scores(store.judgments("c"), spec, "cs-en", "adequacy")
    assert "sys0" not in set(again["system"])
    assert stored.sort_values(["system", "segment"]).reset_index(drop=True)[["system", "segment", "n"]].equals(
        again.sort_values(["system", "segment"]).reset_index(drop=True)[["system", "segment", "n"]])
    assert stored.sort_values(["system", "segment"])["z"].to_numpy() == pytest.approx(
        again.sort_values(["system", "segment"])["z"].to_numpy(), abs=1e-12)
