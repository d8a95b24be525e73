"""Percentile intervals equal numpy's nanquantile column by column (with or without missing draws),
though columns without NaN now take np.quantile's vectorised path."""

from __future__ import annotations

import numpy as np
import pytest

from leaderboard.human.intervals import percentile_intervals


@pytest.mark.parametrize("seed", range(40))
def test_intervals_are_nanquantile_per_column(seed):
    rng = np.random.default_rng(seed)
    samples = rng.normal(size=(int(rng.integers(1, 1200)), int(rng.integers(1, 16))))
    samples[rng.random(samples.shape) < rng.choice([0.0, 0.001, 0.3])] = np.nan
    if seed % 5 == 0:
        samples[:, 0] = np.nan  # a system no resample holds
    point = rng.normal(size=samples.shape[1])
    tail = (1 - 0.95) / 2
    got = percentile_intervals(samples, point, 0.95)
    for j in range(samples.shape[1]):
        column = samples[:, j]
        if np.isnan(column).all():
            assert np.isnan(got[j]).all()
            continue
        lo, hi = np.nanquantile(column, [tail, 1 - tail])
        assert got[j, 0] == min(lo, point[j]) and got[j, 1] == max(hi, point[j])
