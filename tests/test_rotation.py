"""Attention-check spoiling (WMT26): five words, or ten characters, rotated among themselves."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

from leaderboard.hits.rotation import rotate_words, units

SENTENCE = "The city council postponed the update of the mobile application after a long debate."


def words(text):
    return text.split()


@pytest.mark.parametrize("seed", range(20))
def test_five_words_move_one_place_along_a_cycle(seed):
    r = rotate_words(SENTENCE, "ces_Latn", seed)
    before, after = words(SENTENCE), words(r.text)
    assert r.text != SENTENCE and Counter(before) == Counter(after)  # the same words, rearranged
    assert re.findall(r"\s+", r.text) == re.findall(r"\s+", SENTENCE)  # whitespace stays as it was
    places = [units(r.text, False).index(m) for m in r.moved]  # the five chosen places (word indices)
    assert len(places) == 5
    assert Counter(before[p] for p in places) == Counter(after[p] for p in places)
    assert all(before[i] == after[i] for i in range(len(before)) if i not in places)
    # one cycle: following the moves from any chosen place visits all five
    assert sum(before[p] != after[p] for p in places) >= 2

def test_seeded():
    assert rotate_words(SENTENCE, "en", 42) == rotate_words(SENTENCE, "en", 42)
    assert rotate_words(SENTENCE, "en", 42).text == rotate_words(SENTENCE, "en", np.random.default_rng(42)).text
    assert len({rotate_words(SENTENCE, "en", s).text for s in range(10)}) > 5


@pytest.mark.parametrize("lang", ["zho_Hans", "jpn_Jpan", "zh", "ja", "th"])
def test_ten_characters_without_spaces(lang):
    text = "我们今天去北京看看长城吧明天再回来" if lang[0] in "zj" else "สวัสดีครับวันนี้อากาศดีมากเลย"
    r = rotate_words(text, lang, 5)
    assert r.by_character and r.text != text and len(r.moved) == 10
    assert Counter(units_text(text)) == Counter(units_text(r.text))
    assert len(r.text) == len(text)


def units_text(text):
    return [text[a:b] for a, b in units(text, True)]


def test_thai_marks_stay_with_their_base():
    text = "กี่ ครับ สวัสดี วันนี้ ดีมาก"
    r = rotate_words(text, "tha_Thai", 3)
    assert Counter(units_text(text)) == Counter(units_text(r.text))
    assert all(not (0x0E31 <= ord(r.text[a]) <= 0x0E4E and ord(r.text[a]) in (0x0E31, *range(0x0E34, 0x0E3B),
                                                                               *range(0x0E47, 0x0E4F)))
               for a, _ in r.moved)


def test_json_braces_and_code_fences_never_move():
    text = '```json\n{"name": "value", "count": 3, "items": [1, 2]}\n```\nThe answer above lists every item here'
    fixed = [i for i, w in enumerate(words(text)) if set(w) & set("{}[]`")]
    assert len(fixed) == 5
    for seed in range(30):
        r = rotate_words(text, "en", seed)
        assert [words(r.text)[i] for i in fixed] == [words(text)[i] for i in fixed]  # same words, same places
        assert r.text.splitlines()[0] == "```json" and "\n```\n" in r.text
    text = "代码 `x` 是 {a} 好的 很好 非常 好"
    for seed in range(10):  # by characters: the marks themselves stay, what is between them may move
        r = rotate_words(text, "zho_Hans", seed)
        assert all(r.text[i] == ch for i, ch in enumerate(text) if ch in "{}[]` ")


def test_too_short_or_uniform_texts_are_refused():
    assert rotate_words("two words", "en", 0).text == "words two"  # fewer than five: all of them
    with pytest.raises(ValueError):
        rotate_words("single", "en", 0)
    with pytest.raises(ValueError):
        rotate_words("na na na na na", "en", 0)
    with pytest.raises(ValueError):
        rotate_words("{ } [ ] ```", "en", 0)
