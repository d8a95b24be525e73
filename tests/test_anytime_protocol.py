"""The anytime-paired ranking protocol: `mtlb rank --protocol anytime-paired` against the pure function."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from leaderboard.cli import main
from leaderboard.human.adaptive_tests import anytime_paired_ranking
from leaderboard.human.ranking import rank_judgments
from leaderboard.ingest.pearmut_log import read_pearmut_log

LP = "eng_Latn-ces_Latn"


def test_cli_json_equals_the_pure_function_on_the_shipped_pearmut_log(shared, capsys):
    log = shared / "pearmut" / "dynamic" / "annotations.jsonl"
    assert main(["rank", str(log), "--input-format", "pearmut", "--lp", LP, "--protocol", "anytime-paired",
                 "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    frame = read_pearmut_log(log, lp=LP).judgments
    want = anytime_paired_ranking(frame[frame["item_type"].isin(["SYSTEM", "REPEAT"])])
    assert got["protocol"] == "anytime-paired"
    assert [(s["system"], s["cluster"], s["items"]) for s in got["systems"]] == \
        [(s["system"], s["cluster"], s["items"]) for s in want["systems"]]
    for mine, ref in zip(got["systems"], want["systems"]):
        assert mine["mean"] == pytest.approx(ref["mean"], rel=1e-12)
    by_pair = {(p["a"], p["b"]): p for p in want["pairs"]}
    for p in got["pairs"]:
        ref = by_pair[(p["a"], p["b"])]
        assert p["e_value"] == pytest.approx(float(np.exp(ref["log_e"])), rel=1e-12)
        assert got["e_values"][p["a"]][p["b"]] == pytest.approx(p["e_value"])
        assert p["e_value"] >= 1.0                       # sup K starts at K_0 = 1
        assert (p["a_better"] or p["b_better"]) == (p["e_value"] >= 20)   # claim iff sup K >= 1/alpha
        assert got["significantly_better"][p["a"]][p["b"]] is p["a_better"]


def test_one_clearly_better_model_stands_alone_and_equal_ones_share_a_cluster():
    # 60 pages, each a new one-segment document showing A, B, C: A about 40 points above B and C, which are
    # drawn from the same distribution. A must be certified above both (sup K >= 20: the bets win ~every
    # page), B and C must not be separated, so the clusters are [A], [B, C].
    rng = np.random.default_rng(4)
    rows = []
    for page in range(60):
        for system, mu in (("A", 90), ("B", 50), ("C", 50)):
            rows.append({"lp": LP, "assessment": "cesa", "worker": f"w{page // 20}", "hit": f"p{page}",
                         "segment": f"doc{page}", "system": system, "item_type": "SYSTEM",
                         "raw": float(np.clip(mu + rng.normal(0, 8), 0, 100)), "z": np.nan})
    result = rank_judgments(pd.DataFrame(rows), protocol="anytime-paired", n_resamples=0)[0]
    clusters = {s["system"]: s["cluster"] for s in result["systems"]}
    assert result["systems"][0]["system"] == "A" and clusters == {"A": 1, "B": 2, "C": 2}
    assert result["significantly_better"]["A"] == {"B": True, "C": True}
    assert not result["significantly_better"]["B"]["C"] and not result["significantly_better"]["C"]["B"]
    assert result["e_values"]["A"]["B"] >= 20 and result["e_values"]["B"]["C"] < 20
