"""`mtlb rank` end to end: JSON contract, several inputs, protocols, errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from leaderboard.cli import main


def run_json(capsys, *argv):
    code = main(["rank", *map(str, argv), "--json"])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


def test_release_file_json_contract(shared, capsys):
    d = shared / "wmt22-toen-da"
    r = run_json(capsys, "--input", d / "ad-csen-good-stnd.csv")
    assert isinstance(r, dict) and r["lp"] == "cs-en" and r["assessment"] == "adequacy"
    assert r["signature"].startswith("da|protocol:wmt-da|qc:release|std:given|")
    assert "test:mwu-greater" in r["signature"] and "p:0.05" in r["signature"]
    pub = pd.read_csv(d / "ad-sys-scores-cs-en.csv", sep=r"\s+").set_index("SYS")
    names = [s["system"] for s in r["systems"]]
    assert names == pub.sort_values("Z.SCR", ascending=False).index.tolist()
    for s in r["systems"]:
        assert set(s) >= {"system", "ave", "ave_z", "n", "n_all", "rank_lo", "rank_hi", "cluster", "wins"}
        # raw comes back from the mean/sd file found beside the release file
        assert s["ave"] == pytest.approx(pub.loc[s["system"], "RAW.SCR"], abs=1e-6)
        assert s["ave_z"] == pytest.approx(pub.loc[s["system"], "Z.SCR"], abs=1e-6)
        assert (s["n"], s["n_all"]) == (pub.loc[s["system"], "N"], pub.loc[s["system"], "N.ALL"])
    assert set(r["pvalues"]) == set(names)
    assert all(set(r["pvalues"][a]) == set(names) - {a} for a in names)


def test_whole_year_in_one_call_and_lp_filter(shared, capsys, tmp_path):
    d = shared / "wmt22-toen-da"
    files = [d / "ad-csen-good-stnd.csv", d / "ad-lven-good-stnd.csv"]
    both = run_json(capsys, "--input", *files)
    assert isinstance(both, list) and [r["lp"] for r in both] == ["cs-en", "lv-en"]
    one = run_json(capsys, "--input", *files, "--lp", "lv-en")
    assert one == both[1]
    # without the mean/sd file raw is unknown: Ave is null, everything z-based is unchanged
    copy = tmp_path / "ad-lven-good-stnd.csv"
    copy.write_bytes(files[1].read_bytes())
    bare = run_json(capsys, "--input", copy)
    assert all(s["ave"] is None for s in bare["systems"])
    assert [s["ave_z"] for s in bare["systems"]] == [s["ave_z"] for s in one["systems"]]
    assert bare["pvalues"] == one["pvalues"]


def test_signed_rank_protocol_against_scipy_on_published_segments(shared, capsys):
    d = shared / "wmt22-toen-da"
    r = run_json(capsys, "--input", d / "ad-lven-good-stnd.csv", "--protocol", "wmt25-signed-rank")
    assert "score:raw" in r["signature"] and "test:signed-rank-greater" in r["signature"]
    aves = [s["ave"] for s in r["systems"]]
    assert aves == sorted(aves, reverse=True)  # sorted by raw Ave
    seg = pd.read_csv(d / "ad-seg-scores-lv-en.csv", sep=r"\s+", dtype={"SID": str})
    wide = seg.pivot(index="SID", columns="SYS", values="RAW.SCR")
    for a in wide.columns:
        for b in wide.columns:
            if a == b:
                continue
            pair = wide[[a, b]].dropna()
            d = np.round(pair[a] - pair[b], 9)  # as documented: float noise in means must not break ties
            ref = stats.wilcoxon(d, alternative="greater", method="asymptotic").pvalue
            assert r["pvalues"][a][b] == pytest.approx(ref, rel=1e-6)


def test_raw_protocol_and_randomisation_signature(shared, capsys):
    d = shared / "wmt22-toen-da"
    raw = run_json(capsys, "--input", d / "ad-lven-good-stnd.csv", "--protocol", "wmt23-raw")
    seg = pd.read_csv(d / "ad-seg-scores-lv-en.csv", sep=r"\s+", dtype={"SID": str})
    a, b = raw["systems"][0]["system"], raw["systems"][-1]["system"]
    ref = stats.mannwhitneyu(seg.loc[seg["SYS"] == a, "RAW.SCR"], seg.loc[seg["SYS"] == b, "RAW.SCR"],
                             alternative="greater", method="asymptotic").pvalue
    assert raw["pvalues"][a][b] == pytest.approx(ref, rel=1e-9)
    ar = run_json(capsys, "--input", d / "ad-lven-good-stnd.csv", "--protocol", "approx-randomisation",
                  "--trials", 200, "--seed", 3, "--alpha", 0.01, "--cluster-rule", "strict")
    for field in ("test:ar-greater", "trials:200", "seed:3", "p:0.01", "clusters:strict"):
        assert field in ar["signature"]
    ps = [p for row in ar["pvalues"].values() for p in row.values()]
    assert min(ps) == pytest.approx(1 / 201)  # the clear differences hit the floor of 1/(trials+1)
    again = run_json(capsys, "--input", d / "ad-lven-good-stnd.csv", "--protocol", "approx-randomisation",
                     "--trials", 200, "--seed", 3, "--alpha", 0.01, "--cluster-rule", "strict")
    assert again == ar


def test_canonical_input_with_worker_standardisation(tmp_path, capsys):
    rng = np.random.default_rng(1)
    rows = []
    for w in range(6):
        for seg in range(40):
            for k, system in enumerate(["good", "mid", "bad"]):
                rows.append({"campaign": "c", "lp": "xx-en", "assessment": "adequacy", "worker": f"W{w}",
                             "hit": f"H{w}", "position": len(rows) + 1, "segment": str(seg), "system": system,
                             "item_type": "SYSTEM", "raw": float(np.clip(rng.normal(70 - 15 * k + 5 * w, 12), 0, 100))})
    path = tmp_path / "judgments.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    r = run_json(capsys, "--input", path, "--qc", "none")
    assert "std:worker-sd0drop" in r["signature"] and "qc:none" in r["signature"]
    assert [s["system"] for s in r["systems"]] == ["good", "mid", "bad"]
    assert [s["cluster"] for s in r["systems"]] == [1, 2, 3]
    assert all(s["n"] == 40 and s["n_all"] == 240 for s in r["systems"])
    # text output
    assert main(["rank", "--input", str(path), "--qc", "none"]) == 0
    text = capsys.readouterr().out
    assert "xx-en adequacy" in text and "signature: da|" in text and "good" in text


def test_errors_exit_2(shared, capsys, tmp_path):
    d = shared / "wmt22-toen-da"
    assert main(["rank", "--input", str(tmp_path / "missing.csv"), "--json"]) == 2
    assert "mtlb rank: error" in capsys.readouterr().err
    assert main(["rank", "--input", str(d / "ad-lven-good-stnd.csv"), "--lp", "fr-en", "--json"]) == 2
    assert "fr-en" in capsys.readouterr().err
    assert main(["rank", "--input", str(d / "ad-lven-good-stnd.csv"), "--alpha", "2", "--json"]) == 2
    capsys.readouterr()


def test_excluded_systems_leave_the_ranking_but_not_standardisation(tmp_path, capsys):
    import json

    from leaderboard.cli import main
    from leaderboard.human.ranking import rank_judgments
    from leaderboard.schema import validate_judgments

    rng = np.random.default_rng(5)
    rows = []
    for w in range(6):
        for pos in range(1, 61):
            system = ["good", "mid", "tutorial-1"][pos % 3]
            raw = {"good": 80, "mid": 60, "tutorial-1": 10}[system] + rng.normal(0, 8)
            rows.append({"campaign": "c", "lp": "xx-en", "assessment": "adequacy", "worker": f"W{w}",
                         "hit": f"H{w}", "position": pos, "segment": str(pos // 3), "system": system,
                         "item_type": "SYSTEM", "raw": float(np.clip(np.round(raw), 0, 100))})
    frame = validate_judgments(pd.DataFrame(rows))
    full = rank_judgments(frame)[0]
    cut = rank_judgments(frame, exclude_systems=["tutorial-*"])[0]
    assert [s["system"] for s in cut["systems"]] == ["good", "mid"]
    assert "exclude:tutorial-*" in cut["signature"] and "exclude" not in full["signature"]
    # z still comes from every judgment of the worker, so the kept systems' Ave z are unchanged
    before = {s["system"]: s["ave_z"] for s in full["systems"]}
    for s in cut["systems"]:
        assert s["ave_z"] == pytest.approx(before[s["system"]], abs=1e-12)
    path = tmp_path / "j.csv"
    frame.to_csv(path, index=False)
    assert main(["rank", "--input", str(path), "--exclude-system", "tutorial-*", "--qc", "none", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [s["system"] for s in out["systems"]] == ["good", "mid"]
