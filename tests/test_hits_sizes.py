"""Smaller DA HITs for pilots keep the 100-item design; document-level ESA HITs hold whole documents
with degraded copies that pair with their originals for the worker test."""

from __future__ import annotations

import pandas as pd
import pytest

from collecting import write_testset
from leaderboard.errors import InputError
from leaderboard.hits.builder import build_hits, layout
from leaderboard.hits.documents import build_document_hits, document_layout, tutorial_items
from leaderboard.human.qc import qc_pairs
from leaderboard.collect.campaigns import sources_from_files


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    paths = write_testset(tmp_path_factory.mktemp("ts"), n_lines=150, seed=9,
                          systems={"a": 0.1, "b": 0.3, "c": 0.5, "d": 0.7})
    return sources_from_files([str(p) for p in paths["hyps"]], str(paths["ref"]), "de-en", src=str(paths["src"]),
                              docs=str(paths["docs"]))


@pytest.mark.parametrize("size", [20, 40, 60, 100])
def test_pilot_hits_keep_the_design(sources, size):
    frame = build_hits(sources, "adequacy", 5, seed=2, hit_size=size)
    k = size // 10
    for hit, part in frame.groupby("hit"):
        assert sorted(part["position"]) == list(range(1, size + 1))
        counts = part["item_type"].value_counts().to_dict()
        assert counts == {"SYSTEM": 7 * k, "BAD_REF": k, "REF": k, "REPEAT": k}
        assert sorted(part["block"].unique()) == list(range(1, k + 1))
        # blocks of 10 in order, items shuffled only inside them
        assert ((part["position"] - 1) // 10 + 1 == part["block"]).all()
        # every quality-control item pairs with its original in the partner block, k blocks apart / 2
        pairs = part[part["pair_id"] != ""].groupby("pair_id")["block"].agg(["size", "min", "max"])
        assert (pairs["size"] == 2).all() and ((pairs["max"] - pairs["min"]) == k // 2).all()
    judged = frame.assign(campaign="x", lp="de-en", assessment="adequacy", worker="w", raw=50.0)
    found = qc_pairs(judged)
    assert found["kind"].value_counts().to_dict() == {"BAD_REF": 5 * k, "REF": 5 * k, "REPEAT": 5 * k}


def test_hit_sizes_that_cannot_hold_the_quality_control_items(sources):
    for size in (0, 10, 15, 30, 90, True):
        with pytest.raises(InputError, match="quality-control items"):
            build_hits(sources, "adequacy", 1, hit_size=size)
    assert layout(100) == (10, 70, 10) and layout(20) == (2, 14, 2)


@pytest.mark.parametrize("size", [10, 30, 100])
def test_document_hits(sources, size):
    frame = build_document_hits(sources, 4, seed=5, hit_size=size)
    genuine, n_bad = document_layout(size)
    assert n_bad == max(2, round(size / 10))
    docs = pd.Series(sources.docs)
    for hit, part in frame.groupby("hit"):
        part = part.sort_values("position")
        assert list(part["position"]) == list(range(1, len(part) + 1))
        kinds = part["item_type"].value_counts()
        assert kinds["BAD_REF"] == n_bad and 0 < kinds["SYSTEM"] <= genuine
        # a shown document is one run of positions, its segments in test-set order
        runs = (part["doc"] != part["doc"].shift()).cumsum()
        assert runs.groupby(part["doc"]).nunique().max() == 1
        for _, shown in part.groupby("doc"):
            lines = shown["segment"].astype(int)
            assert list(lines) == sorted(lines) and shown["system"].nunique() == 1
            original = shown["doc"].iloc[0].split("#")[0]
            assert set(docs.iloc[lines - 1]) == {original}
        # degraded copies: changed text, same system and segment as a genuine item of the HIT
        genuine_rows = part[part["item_type"] == "SYSTEM"].set_index(["system", "segment"])
        assert genuine_rows.index.is_unique
        for row in part[part["item_type"] == "BAD_REF"].itertuples():
            twin = genuine_rows.loc[(row.system, row.segment)]
            assert twin["text"] != row.text and twin["pair_id"] == row.pair_id != ""
    judged = frame.assign(campaign="x", lp="de-en", assessment="esa", worker="w", raw=50.0)
    assert (qc_pairs(judged)["kind"] == "BAD_REF").sum() == 4 * n_bad


def test_esa_refusals_and_tutorial(sources):
    for size in (0, 4, 9):
        with pytest.raises(InputError, match="cannot hold its quality-control items"):
            build_document_hits(sources, 1, hit_size=size)
    tutorial = tutorial_items(sources, seed=1)
    assert len(tutorial) == 3 and tutorial["note"].str.len().min() > 20
    assert tutorial["text"].iloc[0] == tutorial["reference"].iloc[0] != tutorial["text"].iloc[1]
