"""Combined adequacy + fluency rule (Graham et al. 2017, §5.2)."""

from __future__ import annotations

import numpy as np
import pytest

from leaderboard.human import combined, qc

NAN = np.nan


def test_rule_on_hand_made_matrices():
    # systems 0, 1, 2: adequacy separates only 0 > 2; fluency favours 1 over both and 2 over 0
    pa = np.array([[NAN, 0.30, 0.01],
                   [0.70, NAN, 0.20],
                   [0.99, 0.80, NAN]])
    pf = np.array([[NAN, 0.90, 0.99],
                   [0.02, NAN, 0.03],
                   [0.001, 0.97, NAN]])
    p, source = combined.combined_p(pa, pf)
    wins = np.nan_to_num(p, nan=1.0) < 0.05  # i beats j under the combined rule
    # adequacy decides 0 vs 2 in both directions: fluency's 2 > 0 (p = 0.001) is ignored
    assert source[0, 2] == source[2, 0] == "adequacy"
    assert wins[0, 2] and not wins[2, 0]
    # adequacy ties 0-1 and 1-2: fluency decides (1 > 0, 1 > 2)
    assert source[0, 1] == source[1, 2] == "fluency"
    assert wins[1, 0] and wins[1, 2] and not wins[0, 1] and not wins[2, 1]
    assert np.isnan(p[0, 0]) and source[1, 1] == ""
    assert p[1, 0] == 0.02 and p[0, 2] == 0.01


def test_combined_ranking_on_simulated_frames():
    ad = qc.simulate_judgments(60, seed=1, n_systems=4, n_segments=300, noise=6.0)
    fl = qc.simulate_judgments(60, seed=2, n_systems=4, n_segments=300, noise=6.0,
                               assessment="fluency")
    for f in (ad, fl):
        f["z"] = (f["raw"] - f.groupby("worker")["raw"].transform("mean")) / \
            f.groupby("worker")["raw"].transform("std")
    table, p, source = combined.combined_ranking(ad, fl)
    # the simulation's systems are ordered sys0 > sys1 > sys2 > sys3 by construction
    assert table["system"].tolist() == ["sys0", "sys1", "sys2", "sys3"]
    assert table["wins"].tolist() == [3, 2, 1, 0]
    assert (source[np.triu_indices(4, 1)] == "adequacy").all()


def test_shape_mismatch():
    with pytest.raises(ValueError):
        combined.combined_p(np.zeros((2, 2)), np.zeros((3, 3)))
