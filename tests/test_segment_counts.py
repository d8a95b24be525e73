"""The bootstrap's segment counts are drawn in cache-sized pieces; the pieces continue the generator's
stream, so every count equals that of one draw of the whole (resamples x segments) matrix, counted
row by row here with np.bincount."""

from __future__ import annotations

import numpy as np
import pytest

from leaderboard.human import intervals
from leaderboard.human.intervals import segment_counts


@pytest.mark.parametrize("n_segments, n_resamples", [(1, 5), (7, 13), (2001, 1000), (150_001, 3), (199_999, 2)])
def test_counts_equal_one_draw_of_the_whole_matrix(n_segments, n_resamples):
    draws = np.random.default_rng(321).integers(0, n_segments, size=(n_resamples, n_segments), dtype=np.int32)
    expected = np.stack([np.bincount(row, minlength=n_segments) for row in draws]).astype(float)
    got = segment_counts(n_segments, n_resamples, np.random.default_rng(321))
    assert got.shape == (n_resamples, n_segments)
    assert np.array_equal(got, expected)
    assert (got.sum(axis=1) == n_segments).all()  # each resample draws the test set's size


def test_counts_do_not_depend_on_the_piece_size(monkeypatch):
    whole = segment_counts(333, 250, np.random.default_rng(8))
    for cells in (1, 333, 1000, 10**9):
        monkeypatch.setattr(intervals, "_COUNT_CELLS", cells)
        assert np.array_equal(segment_counts(333, 250, np.random.default_rng(8)), whole)


def test_the_stream_goes_on_after_the_counts():
    """What is drawn next from the generator does not depend on how the counts were drawn."""
    a, b = np.random.default_rng(4), np.random.default_rng(4)
    segment_counts(99, 77, a)
    b.integers(0, 99, size=(77, 99), dtype=np.int32)
    assert a.integers(0, 10**9, size=5).tolist() == b.integers(0, 10**9, size=5).tolist()
