"""Are a campaign's segment ids line numbers of its stored test set? A check from the data itself.

When segment id *s* really is line *s* of the test set, the judged outputs' sentence chrF at that
line correlates with the human scores of segment *s* (segment-level chrF vs DA is clearly positive,
WMT Metrics tasks report Pearson r around 0.2–0.4). Paired with any other line, the texts belong
to other sentences and the correlation falls to about zero. So the check correlates human segment
scores with sentence chrF at line *s + offset* for a range of offsets and accepts the ids as line
numbers only when offset 0 stands out: a clearly positive r at 0 that beats every other offset by
a margin. The WMT22 release numbers segments its own way (its ``sid`` is not a line of the
general test set): there r ≈ 0 at every offset, and the check says no.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
import pandas as pd

from leaderboard.naming import match_systems

#: offsets tried besides 0 (segment id s paired with line s + offset)
DEFAULT_OFFSETS: tuple[int, ...] = tuple(range(-5, 6))
#: offset 0 must correlate at least this well ...
MIN_R = 0.1
#: ... and beat the best other offset by at least this much
MARGIN = 0.05
#: sentence chrF is the slow part: the systems with the most judged segments suffice
MAX_SYSTEMS = 4


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def line_alignment(human_segments: pd.DataFrame, texts: pd.DataFrame,
                   offsets: Iterable[int] = DEFAULT_OFFSETS, max_systems: int = MAX_SYSTEMS) -> dict:
    """Correlation of human segment scores with sentence chrF when segment id s is line s + offset.

    ``human_segments``: one row per judged (system, segment) with ``raw`` and/or ``z`` (raw is used
    when present). ``texts``: the stored texts of one language pair (columns kind, name, line,
    text). Only the ``max_systems`` judged systems with the most scored segments are used, against
    the first reference (alphabetically). Returns ``{"verified", "reason", "r": {offset: r}, "r_at_0", "best_other", "cells",
    "systems", "score"}``; ``verified`` is True only when offset 0 has r ≥ :data:`MIN_R` and beats
    every other offset by :data:`MARGIN`.
    """
    from .scoring import score_systems

    offsets = sorted(set(offsets) | {0})
    out: dict = {"verified": False, "reason": "", "r": {}, "r_at_0": float("nan"), "best_other": float("nan"),
                 "cells": 0, "systems": [], "score": None}
    hyps = texts[texts["kind"] == "hypothesis"] if not texts.empty else texts
    refs = texts[texts["kind"] == "reference"] if not texts.empty else texts
    if hyps.empty or refs.empty:
        out["reason"] = "no system outputs and references are stored for this language pair"
        return out
    seg = human_segments.copy()
    ids = pd.to_numeric(seg["segment"].astype(str).str.strip(), errors="coerce")
    odd = ids.isna() | (ids != ids.round()) | (ids.abs() >= 2**31)
    if odd.any():
        bad = seg.loc[odd, "segment"].iloc[0]
        out["reason"] = f"segment id {bad!r} is not a whole number, so segment ids cannot be line numbers"
        return out
    seg["line"] = ids.astype(int)
    score = "raw" if "raw" in seg.columns and seg["raw"].notna().any() else "z"
    out["score"] = score
    seg = seg[seg[score].notna()]
    mapping = match_systems(seg["system"].astype(str).unique(), hyps["name"].unique())
    if not mapping:
        out["reason"] = "no judged system has a stored output"
        return out
    n_lines = int(texts["line"].max())
    counts = seg[seg["system"].astype(str).isin(mapping)]["system"].astype(str).value_counts()
    systems = sorted(counts.sort_index().sort_values(ascending=False, kind="stable").index[:max_systems])
    outputs = {s: hyps[hyps["name"] == mapping[s]].sort_values("line")["text"].tolist() for s in systems}
    first_ref = sorted(refs["name"].unique())[0]
    streams = [refs[refs["name"] == first_ref].sort_values("line")["text"].tolist()]
    chrf = score_systems(outputs, streams, "chrf", segments=True)["segments"]
    table = np.full((len(systems), n_lines + 1), np.nan)  # column k = line k (1-based)
    for i, s in enumerate(systems):
        table[i, 1:] = chrf[s]
    seg = seg[seg["system"].astype(str).isin(systems)]
    sys_idx = pd.Categorical(seg["system"].astype(str), categories=systems).codes
    lines = seg["line"].to_numpy()
    human = seg[score].to_numpy(dtype=float)
    if lines.max(initial=0) > n_lines or lines.min(initial=1) < 1:
        out["reason"] = (f"segment ids run from {lines.min()} to {lines.max()}, outside the {n_lines} lines "
                         "of the stored test set")
    for offset in offsets:
        target = lines + offset
        ok = (target >= 1) & (target <= n_lines)
        out["r"][offset] = _pearson(human[ok], table[sys_idx[ok], target[ok]])
    r0 = out["r"][0]
    others = [r for o, r in out["r"].items() if o != 0 and np.isfinite(r)]
    best_other = max(others) if others else float("nan")
    out.update(r_at_0=r0, best_other=best_other, cells=int(len(seg)), systems=systems)
    if out["reason"]:
        return out
    if not np.isfinite(r0):
        out["reason"] = "too few scored segments to correlate"
    elif r0 < MIN_R:
        out["reason"] = (f"sentence chrF and human scores do not correlate when segment id = line number "
                         f"(r = {r0:.3f} < {MIN_R}): the ids are probably not line numbers")
    elif np.isfinite(best_other) and r0 < best_other + MARGIN:
        best = max((o for o in out["r"] if o != 0 and np.isfinite(out["r"][o])), key=lambda o: out["r"][o])
        out["reason"] = (f"offset {best:+d} correlates as well as offset 0 (r = {best_other:.3f} vs {r0:.3f}): "
                         "the ids are not the line numbers")
    else:
        out["verified"] = True
        out["reason"] = (f"r = {r0:.3f} when segment id = line number, at most {best_other:.3f} at the other "
                         f"offsets")
    return out
