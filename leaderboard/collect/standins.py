"""Temporary stand-ins for interfaces other branches are writing (removed when they are merged).

* :func:`get_rule` — branch i44's ``leaderboard.human.allocation.get_rule`` (the allocation rules);
* :func:`rotate_words` — branch i43a's attention-check word rotation.

The collection stage imports these names through :mod:`.allocation_api` only, so swapping in the
real modules changes one import.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class AllocationState:
    models: tuple[str, ...]
    item_model_counts: np.ndarray
    model_counts: np.ndarray
    model_sums: np.ndarray
    model_sumsq: np.ndarray
    coldstart_items: np.ndarray
    eligible_items: np.ndarray
    item_model_sums: np.ndarray | None = None


class _Running:
    """Cold start (models short of ``coldstart`` annotations, over the pool), then models drawn with
    weight 1/(rank+1) of their running mean (the top two equal), least-annotated item first."""

    def __init__(self, name: str, coldstart: int = 20, uniform: bool = False) -> None:
        self.name, self.coldstart, self.uniform = name, int(coldstart), uniform

    def choose(self, state: AllocationState, k: int, rng: np.random.Generator):
        counts = state.item_model_counts
        ok = counts >= 0
        eligible = state.eligible_items & (ok.sum(axis=1) >= k)
        if not eligible.any():
            return None
        n_models = len(state.models)
        cold = state.model_counts < self.coldstart
        if cold.any() and not self.uniform:
            pool = eligible & state.coldstart_items
            if pool.any():
                eligible = pool
            weights = np.where(cold, 1.0, 1e-6)
        elif self.uniform:
            weights = np.ones(n_models)
        else:
            means = np.where(state.model_counts > 0, state.model_sums / np.maximum(state.model_counts, 1), 0.0)
            order = np.lexsort((rng.random(n_models), -means))
            rank = np.empty(n_models)
            rank[order] = np.arange(n_models)
            weights = np.where(rank == 0, 0.5, 1.0 / (rank + 1))
        for _ in range(8):
            models = rng.choice(n_models, size=min(k, n_models), replace=False, p=weights / weights.sum())
            sub = counts[:, models]
            fit = eligible & (sub >= 0).all(axis=1)
            if fit.any():
                load = np.where(fit, sub.sum(axis=1), np.iinfo(np.int64).max)
                item = int(np.argmin(load))
                return item, tuple(int(m) for m in models)
        # no item has all drawn models free: the item with most free models, its least-annotated ones
        free = np.where(eligible, ok.sum(axis=1), -1)
        item = int(np.argmax(free))
        row = np.where(ok[item], counts[item], np.iinfo(np.int64).max)
        models = np.argsort(row, kind="stable")[:k]
        return item, tuple(int(m) for m in models)


RULES = {"running-rank": lambda **kw: _Running("running-rank", **kw),
         "uniform": lambda **kw: _Running("uniform", uniform=True, **kw)}


def get_rule(name: str, **params):
    if name not in RULES:
        from ..errors import InputError
        raise InputError(f"unknown allocation rule {name!r}; known: {', '.join(sorted(RULES))}", column="rule")
    return RULES[name](**params)


_CHAR_LANGS = ("zh", "zho", "cmn", "yue", "ja", "jpn", "th", "tha")


def rotate_words(text: str, lang: str, rng: np.random.Generator, n_words: int = 5, n_chars: int = 10) -> str:
    """``text`` with ``n_words`` of its words (``n_chars`` characters for Chinese, Japanese, Thai) each moved one
    place along a cycle; JSON braces and code fences stay where they are."""
    by_char = lang.lower().split("_")[0] in _CHAR_LANGS
    pattern = re.compile(r"[^\s{}\[\]`]" if by_char else r"[^\s{}\[\]`]+")
    units = [(m.start(), m.end()) for m in pattern.finditer(text)]
    n = n_chars if by_char else n_words
    if len(units) < 2:
        return text
    picked = sorted(rng.choice(len(units), size=min(n, len(units)), replace=False).tolist())
    words = [text[units[i][0]:units[i][1]] for i in picked]
    if len(set(words)) < 2:
        return text
    moved = words[-1:] + words[:-1]
    out, last = [], 0
    for i, word in zip(picked, moved):
        a, b = units[i]
        out += [text[last:a], word]
        last = b
    out.append(text[last:])
    return "".join(out)
