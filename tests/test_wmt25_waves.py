"""WMT25 human ranking (`--protocol wmt25`): two ESA ratings per item; each rule on data built to exercise it,
every p-value against scipy, the input format and its bad rows."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.human.clusters import cluster_ends, cluster_numbers, rank_walks
from leaderboard.human.significance import wave_signed_rank_matrix
from leaderboard.ingest.waves import read_waves


def _waves(quality: dict[str, float], items: int, seed: int, noise: float = 8.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for item in range(items):
        difficulty = rng.normal(0, 5)
        for system, q in quality.items():
            for wave in (1, 2):
                rows.append({"lp": "en-cs_CZ", "system": system, "segment": f"s{item}", "wave": wave,
                             "score": float(np.clip(round(q + difficulty + rng.normal(0, noise)), 0, 100)),
                             "domain": "news" if item % 3 else "speech"})
    return pd.DataFrame(rows)


def _write(frame: pd.DataFrame, path: Path, sep: str = ",") -> Path:
    frame.to_csv(path, index=False, sep=sep)
    return path


@pytest.mark.parametrize("items", [3, 10, 40])   # permutation, exact and normal-approximation regimes of scipy
def test_pvalues_equal_scipy(items):
    frame = _waves({"A": 80, "B": 78, "C": 60}, items, seed=items)
    names = ["A", "B", "C"]
    w = {k: frame[frame["wave"] == k].pivot(index="system", columns="segment", values="score").loc[names]
         for k in (1, 2)}
    p = wave_signed_rank_matrix(w[1].to_numpy(), w[2].to_numpy())
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i == j:
                continue
            x = np.concatenate([w[1].loc[a], w[2].loc[a], w[1].loc[a], w[2].loc[a]])       # a + a
            y = np.concatenate([w[1].loc[b], w[2].loc[b], w[2].loc[b], w[1].loc[b]])       # b + swap(b)
            assert p[i, j] == pytest.approx(stats.wilcoxon(x, y, alternative="greater").pvalue, rel=1e-12)


def test_rank_walks_and_clusters_on_a_built_pattern():
    # significant (p < 0.025) pairs, in ranking order 0..4: 0>2, 0>3, 0>4, 1>3, 1>4, 2>4, 3>4
    beats = {(0, 2), (0, 3), (0, 4), (1, 3), (1, 4), (2, 4), (3, 4)}
    p = np.full((5, 5), 0.5)
    for i, j in beats:
        p[i, j] = 0.001
    start, end = rank_walks(p, 0.025)
    # rank_start: 1 + position of the nearest system above that beats it; rank_end: nearest below it beats - 1
    assert start.tolist() == [1, 1, 2, 3, 5] and end.tolist() == [2, 3, 4, 4, 5]
    # ends at i: all above have rank_end <= i and all below rank_start > i
    assert cluster_ends(p, 0.025, "wmt25").tolist() == [False, False, False, True, True]
    assert cluster_numbers(cluster_ends(p, 0.025, "wmt25")).tolist() == [1, 1, 1, 1, 2]


def test_cli_ranks_two_waves(tmp_path, capsys):
    frame = _waves({"Best": 90, "Twin": 89.5, "Mid": 75, "Low": 50}, 60, seed=3)
    path = _write(frame, tmp_path / "waves.csv")
    assert main(["rank", "--input", str(path), "--protocol", "wmt25", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["lp"] == "en-cs_CZ" and got["alpha"] == 0.025 and got["cluster_rule"] == "wmt25"
    assert "p:0.025" in got["signature"] and "clusters:wmt25" in got["signature"]
    means = frame.groupby("system")["score"].mean().sort_values(ascending=False)
    assert [s["system"] for s in got["systems"]] == means.index.tolist()          # sorted by the mean
    assert [s["ave"] for s in got["systems"]] == pytest.approx(means.tolist(), abs=1e-12)
    names = means.index.tolist()
    p = np.array([[got["pvalues"][a].get(b, np.nan) if a != b else np.nan for b in names] for a in names])
    start, end = rank_walks(p, 0.025)
    assert [(s["rank_lo"], s["rank_hi"]) for s in got["systems"]] == list(zip(start.tolist(), end.tolist()))
    assert [s["cluster"] for s in got["systems"]][:2] == [1, 1] and got["systems"][-1]["rank_lo"] == 4
    first = got["systems"][0]
    assert first["domains"] == pytest.approx(frame[frame["system"] == first["system"]].groupby("domain")["score"]
                                             .mean().to_dict())
    assert first["n"] == 60 and first["n_all"] == 120


def test_wmt25_needs_the_wave_format(tmp_path, capsys):
    canonical = tmp_path / "c.csv"
    canonical.write_text("lp,worker,hit,position,segment,system,item_type,raw\ncs-en,w,h,1,1,S,SYSTEM,50\n")
    assert main(["rank", "--input", str(canonical), "--protocol", "wmt25"]) == 2
    assert "missing column(s) wave, score" in capsys.readouterr().err


@pytest.mark.parametrize("body, line, column, message", [
    ("system,segment,wave\nS,1,1\n", 1, None, "missing column(s) score"),
    ("system,segment,wave,score\nS,1,3,50\n", 2, "wave", "wave must be 1 or 2"),
    ("system,segment,wave,score\nS,1,1,nan\n", 2, "score", "not a number from 0 to 100"),
    ("system,segment,wave,score\nS,1,1,inf\n", 2, "score", "not a number from 0 to 100"),
    ("system,segment,wave,score\nS,1,1,101\n", 2, "score", "not a number from 0 to 100"),
    ("system,segment,wave,score\n,1,1,50\n", 2, "system", "empty value"),
    ("system,segment,wave,score\nS,1,1,50,7\n", 2, None, "expected 4 fields"),
    ("system,segment,wave,score\nS,1,1,50\nS,1,1,60\n", 3, "wave", "a second wave-1 rating"),
])
def test_bad_rows(tmp_path, body, line, column, message):
    path = tmp_path / "w.csv"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_waves(path, lp="en-de")
    assert err.value.file == str(path) and err.value.line == line and err.value.column == column
    assert message in err.value.message


def test_tab_separated_and_lp_option(tmp_path):
    frame = _waves({"A": 80, "B": 70}, 4, seed=1).drop(columns="lp")
    path = _write(frame, tmp_path / "w.tsv", sep="\t")
    with pytest.raises(InputError, match="no lp column"):
        read_waves(path)
    assert set(read_waves(path, lp="en-de")["lp"]) == {"en-de"}
