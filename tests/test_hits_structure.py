"""Property tests: every structural rule of the 100-item HIT (docs/method/hits.md) for any input size and seed."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from leaderboard.errors import InputError
from leaderboard.hits.builder import Sources, build_hits

CJK = "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与"


def make_sources(n_systems: int, n_segments: int, seed: int, lang: str = "en", short_share: float = 0.2,
                 empty_share: float = 0.0) -> Sources:
    """Random aligned texts; words are unique per line so degradations can be traced."""
    rng = np.random.default_rng(seed)

    def line(tag: str) -> str:
        if rng.random() < empty_share:
            return ""
        n = int(rng.integers(1, 3)) if rng.random() < short_share else int(rng.integers(3, 40))
        if lang == "zh":
            return "".join(rng.choice(list(CJK), n))
        return " ".join(f"{tag}w{i}" for i in range(n))

    ref = [f"r{g} " + " ".join(f"x{i}" for i in range(int(rng.integers(2, 20)))) for g in range(n_segments)]
    systems = {f"S{s}": [line(f"s{s}g{g}") for g in range(n_segments)] for s in range(n_systems)}
    return Sources(lp=f"cs-{lang}", reference=ref, systems=systems)


def check_layout(frame: pd.DataFrame, n_systems: int | None = None) -> None:
    """Assert the block layout and pairing rules on a hits.csv-like or canonical frame."""
    f = frame.sort_values(["hit", "position"], kind="stable").reset_index(drop=True)
    n_hits = f["hit"].nunique()
    assert len(f) == 100 * n_hits
    pos = f["position"].to_numpy().reshape(n_hits, 100)
    assert (pos == np.arange(1, 101)).all()
    block = (f["position"].to_numpy() - 1) // 10 + 1
    if "block" in f.columns:
        assert (f["block"].astype(int).to_numpy() == block).all()
    f["_block"] = block
    types = f.groupby("hit")["item_type"].value_counts().unstack(fill_value=0)
    assert (types[["SYSTEM", "REF", "BAD_REF", "REPEAT"]].to_numpy() == [70, 10, 10, 10]).all()

    # genuine outputs: one per (hit, system, segment); every QC item has exactly one such partner
    genuine = f[f["item_type"] == "SYSTEM"]
    assert not genuine.duplicated(["hit", "system", "segment"]).any()
    qc = f[f["item_type"] != "SYSTEM"]
    assert not qc.duplicated(["hit", "system", "segment"]).any()
    pairs = qc.merge(genuine, on=["hit", "system", "segment"], suffixes=("_qc", "_sys"))
    assert len(pairs) == 30 * n_hits
    gap = (pairs["position_qc"] - pairs["position_sys"]).abs()
    assert (gap >= 41).all()  # at least 40 items between the two members
    lo = np.minimum(pairs["_block_qc"], pairs["_block_sys"])
    hi = np.maximum(pairs["_block_qc"], pairs["_block_sys"])
    assert ((lo <= 5) & (hi == lo + 5)).all()
    rep = pairs[pairs["item_type_qc"] == "REPEAT"]
    assert (rep["position_qc"] > rep["position_sys"]).all()
    if "pair_id" in f.columns:
        assert (pairs["pair_id_qc"] == pairs["pair_id_sys"]).all()
        assert (pairs["pair_id_qc"] != "").all()
        assert pairs["pair_id_qc"].is_unique
        assert (f["pair_id"] != "").sum() == 60 * n_hits

    # per block: 1 BAD_REF + 1 bad original, 1 REF + 1 ref original, 2 repeat members, 4 plain
    role = pd.Series("plain", index=f.index)
    role[f["item_type"] != "SYSTEM"] = f["item_type"]
    for kind, name in (("BAD_REF", "bad_orig"), ("REF", "ref_orig"), ("REPEAT", "rep_orig")):
        sys_rows = pairs.loc[pairs["item_type_qc"] == kind, ["hit", "position_sys"]]
        idx = f.reset_index().merge(sys_rows, left_on=["hit", "position"], right_on=["hit", "position_sys"])["index"]
        role[idx.to_numpy()] = name
    counts = pd.crosstab([f["hit"], f["_block"]], role)
    for col in ("BAD_REF", "bad_orig", "REF", "ref_orig"):
        assert (counts[col] == 1).all(), col
    assert ((counts["REPEAT"] + counts["rep_orig"]) == 2).all()
    assert (counts["plain"] == 4).all()

    if n_systems is not None:
        per_hit = genuine.groupby(["hit", "system"]).size().unstack(fill_value=0)
        per_hit = per_hit.reindex(columns=per_hit.columns, fill_value=0)
        assert per_hit.shape[1] == min(n_systems, 70 * n_hits) or n_systems > 70
        assert per_hit.to_numpy().min() >= 70 // n_systems
        assert per_hit.to_numpy().max() <= math.ceil(70 / n_systems)
        totals = genuine.groupby("system").size()
        assert totals.max() - totals.min() <= 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n_systems=st.integers(1, 16), extra_segments=st.integers(0, 150), n_hits=st.integers(1, 4),
       seed=st.integers(0, 2**31), assessment=st.sampled_from(["adequacy", "fluency"]),
       lang=st.sampled_from(["en", "en", "zh"]), empty=st.sampled_from([0.0, 0.05]))
def test_every_rule_holds(n_systems, extra_segments, n_hits, seed, assessment, lang, empty):
    need = math.ceil(70 / n_systems)
    n_segments = need + 8 + extra_segments  # room for a few empty lines
    sources = make_sources(n_systems, n_segments, seed, lang, empty_share=empty)
    usable = min(sum(bool(t) for t in lines) for lines in sources.systems.values())
    if usable < need:
        with pytest.raises(InputError):
            build_hits(sources, assessment, n_hits, seed)
        return
    frame = build_hits(sources, assessment, n_hits, seed)
    check_layout(frame, n_systems)
    check_texts(frame, sources, assessment, lang)

    # deterministic for a seed
    again = build_hits(sources, assessment, n_hits, seed)
    pd.testing.assert_frame_equal(frame, again)


def check_texts(frame: pd.DataFrame, sources: Sources, assessment: str, lang: str) -> None:
    """What the worker sees: outputs, references, repeats verbatim, bad references per the rule."""
    line = frame["segment"].astype(int).to_numpy() - 1
    hyp = np.array([sources.systems[s][g] for s, g in zip(frame["system"], line)], dtype=object)
    ref = np.array([sources.reference[g] for g in line], dtype=object)
    kind = frame["item_type"].to_numpy()
    text = frame["text"].to_numpy(dtype=object)
    assert (text[kind == "REF"] == ref[kind == "REF"]).all()
    genuine = np.isin(kind, ("SYSTEM", "REPEAT"))
    assert (text[genuine] == hyp[genuine]).all()
    assert all(t.strip() for t in text)  # no empty output is ever shown
    if assessment == "adequacy":
        assert (frame["reference"].to_numpy(dtype=object) == ref).all()
    else:
        assert (frame["reference"] == "").all()
    for original, bad in zip(hyp[kind == "BAD_REF"], text[kind == "BAD_REF"]):
        units_o = list(original) if lang == "zh" else original.split()
        units_b = list(bad) if lang == "zh" else bad.split()
        assert bad != original
        if assessment == "adequacy":
            assert len(units_o) >= 2
            k = len(units_o) - len(units_b)
            assert k == deletion_rule(len(units_o))
            assert any(units_o[:i] + units_o[i + k:] == units_b for i in range(len(units_o) - k + 1))
        else:
            assert len(units_o) >= 3 and len(units_b) == len(units_o) + 2
            assert units_b[0] == units_o[0] and units_b[-1] == units_o[-1]


def deletion_rule(n: int) -> int:
    """Graham et al. 2017, §4, written out independently of the code under test."""
    table = {2: 1, 3: 1, 4: 2, 5: 2, 6: 3, 7: 3, 8: 3, 9: 4, 10: 4, 11: 4, 12: 4, 13: 4, 14: 4, 15: 4,
             16: 5, 17: 5, 18: 5, 19: 5, 20: 5}
    return table[n] if n in table else math.floor(n / 5)


def test_many_systems_more_than_seventy():
    sources = make_sources(90, 3, seed=5, short_share=0.0)
    frame = build_hits(sources, "adequacy", 3, seed=1)
    check_layout(frame, 90)
    genuine = frame[frame["item_type"] == "SYSTEM"]
    assert genuine.groupby("hit")["system"].nunique().eq(70).all()  # 70 different systems per HIT


def test_segments_are_covered_evenly_and_distinct_within_a_hit():
    sources = make_sources(5, 300, seed=11)
    frame = build_hits(sources, "adequacy", None, seed=2)  # default: every output about once
    genuine = frame[frame["item_type"] == "SYSTEM"]
    assert frame["hit"].nunique() == math.ceil(5 * 300 / 70)
    uses = genuine.groupby(["system", "segment"]).size()
    assert len(uses) >= 0.97 * 5 * 300 and uses.max() <= 2
    # with 300 segments a HIT never needs one segment twice
    assert not genuine.duplicated(["hit", "segment"]).any()


def test_short_texts_are_never_bad_reference_originals():
    sources = make_sources(4, 80, seed=3, short_share=0.8)  # most outputs have 1-2 words
    for assessment, minimum in (("adequacy", 2), ("fluency", 3)):
        frame = build_hits(sources, assessment, 4, seed=9)
        check_layout(frame, 4)
        bad = frame[frame["item_type"] == "BAD_REF"]
        line = bad["segment"].astype(int) - 1
        lengths = [len(sources.systems[s][g].split()) for s, g in zip(bad["system"], line)]
        assert min(lengths) >= minimum


def test_too_few_long_texts_is_an_input_error():
    sources = make_sources(2, 60, seed=1, short_share=1.0)
    for lines in sources.systems.values():
        lines[:] = ["one"] * len(lines)
    with pytest.raises(InputError, match="long enough to degrade"):
        build_hits(sources, "adequacy", 1, seed=0)


def test_system_with_too_few_lines_is_an_input_error():
    sources = make_sources(2, 60, seed=1, empty_share=0.0)
    sources.systems["S1"][:40] = [""] * 40  # 20 usable lines, a HIT needs 35 of S1's outputs
    with pytest.raises(InputError, match="S1 has 20 usable lines"):
        build_hits(sources, "adequacy", 1, seed=0)


def test_qc_module_pairs_every_item_of_a_built_batch():
    from leaderboard.human import qc
    frame = build_hits(make_sources(7, 120, seed=4), "adequacy", 3, seed=4)
    canon = frame.assign(lp="cs-en", assessment="adequacy", worker="W1",
                         raw=np.arange(len(frame)) % 101.0)
    pairs = qc.qc_pairs(canon)
    assert len(pairs) == 90
    assert pairs["kind"].value_counts().to_dict() == {"BAD_REF": 30, "REF": 30, "REPEAT": 30}
    # the pairs QC finds are exactly the builder's pair_ids
    ids_first = frame["pair_id"].to_numpy()[pairs["row_first"].to_numpy()]
    ids_second = frame["pair_id"].to_numpy()[pairs["row_second"].to_numpy()]
    assert (ids_first == ids_second).all() and len(set(ids_first)) == 90
