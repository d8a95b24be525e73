"""Bad-reference degradation (Graham et al. 2017, §4): deletion for adequacy, misplaced duplicates for fluency."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from leaderboard.hits.degrade import can_degrade, degrade, deletion_length, split_units

# Graham et al. 2017, §4 and Graham et al. 2014:
# 2-3 words -> 1, 4-5 -> 2, 6-8 -> 3, 9-15 -> 4, 16-20 -> 5, n > 20 -> floor(n/5)
PUBLISHED = [(2, 1), (3, 1), (4, 2), (5, 2), (6, 3), (8, 3), (9, 4), (15, 4), (16, 5), (20, 5),
             (21, 4), (24, 4), (25, 5), (40, 8), (99, 19)]


@pytest.mark.parametrize("n,k", PUBLISHED)
def test_deletion_length_follows_the_published_table(n, k):
    assert deletion_length(n) == k


def test_too_short_texts():
    assert not can_degrade("word", "adequacy") and can_degrade("two words", "adequacy")
    assert not can_degrade("two words", "fluency") and can_degrade("three little words", "fluency")
    with pytest.raises(ValueError):
        degrade("two words", "fluency", np.random.default_rng(0))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 60), seed=st.integers(0, 2**31))
def test_adequacy_deletes_one_contiguous_run(n, seed):
    words = [f"w{i}" for i in range(n)]
    out = degrade(" ".join(words), "adequacy", np.random.default_rng(seed)).split()
    k = n - len(out)
    bands = [(3, 1), (5, 2), (8, 3), (15, 4), (20, 5)]  # (longest n of the band, k)
    assert k == next((kk for top, kk in bands if n <= top), n // 5)
    start = next(i for i in range(n) if i >= len(out) or out[i] != words[i])
    assert out == words[:start] + words[start + k:]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(3, 40), seed=st.integers(0, 2**31))
def test_fluency_inserts_two_misplaced_copies(n, seed):
    words = [f"w{i}" for i in range(n)]
    out = degrade(" ".join(words), "fluency", np.random.default_rng(seed)).split()
    assert len(out) == n + 2
    assert out[0] == words[0] and out[-1] == words[-1]  # never string-initial or -final
    doubled = [w for w in words if out.count(w) == 2]
    assert len(doubled) == 2 and all(out.count(w) in (1, 2) for w in words)
    for w in doubled:
        first, second = [i for i, x in enumerate(out) if x == w]
        assert second - first >= 2  # not adjacent to the original
    # removing one copy of each doubled word in some way gives the original back
    found = False
    for w1 in [i for i, x in enumerate(out) if x == doubled[0]]:
        for w2 in [i for i, x in enumerate(out) if x == doubled[1]]:
            if [x for i, x in enumerate(out) if i not in (w1, w2)] == words:
                found = True
    assert found


def test_characters_for_languages_without_spaces():
    rng = np.random.default_rng(1)
    text = "我们今天去北京看看长城吧"  # 12 characters -> 4 deleted
    out = degrade(text, "adequacy", rng, lang="zh")
    assert len(out) == 8 and out in {text[:i] + text[i + 4:] for i in range(9)}
    out = degrade(text, "fluency", rng, lang="ja")
    assert len(out) == 14 and out[0] == text[0] and out[-1] == text[-1]
    # Thai: a combining vowel/tone mark stays with its base character
    assert split_units("กี่", "th") == ["กี่"]
    assert split_units("สวัสดี ครับ", "th") == ["ส", "วั", "ส", "ดี", "ค", "รั", "บ"]
    # an English sentence keeps its words and single spaces
    assert degrade("a  b   c d", "adequacy", np.random.default_rng(0)).count("  ") == 0


def test_same_generator_state_same_result():
    text = "the quick brown fox jumps over the lazy dog again"
    a = [degrade(text, m, np.random.default_rng(7)) for m in ("adequacy", "fluency")]
    b = [degrade(text, m, np.random.default_rng(7)) for m in ("adequacy", "fluency")]
    assert a == b
