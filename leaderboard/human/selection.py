"""Which judgments a protocol ranks: the WMT24 ESA selection and "the latest rating counts".

The WMT24 organisers ranked an Appraise ESA export after four steps (Kocmi et al. 2024), each a
plain rule on the canonical judgment frame:

1. only the ratings of system outputs (``TGT`` rows, canonical ``SYSTEM``; the ``BAD`` quality-control
   copies and any other item type are left out);
2. no training items: systems whose name contains ``tutorial``;
3. no documents the campaign marked as unusable: ids containing ``#incomplete`` or ``#dup``, and the
   canary document ``canary``;
4. when a rater rated the same output (system and segment) more than once, only the rating they
   finished last counts (:func:`latest_ratings`); the item's score is then the mean over its raters.

"Last" is the judgment's ``position``: readers number a rater's judgments in the order they were
finished (the Appraise reader by end time, ties in file order), so the highest position of a
rater's ratings of one output is the latest.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TUTORIAL = "tutorial"
UNUSABLE_DOC_MARKS: tuple[str, ...] = ("#incomplete", "#dup")
CANARY_DOC = "canary"


def wmt24_selection(frame: pd.DataFrame) -> pd.DataFrame:
    """The judgments the WMT24 ESA ranking uses (steps 1–4 of the module docstring)."""
    keep = frame["item_type"].astype(str).to_numpy() == "SYSTEM"
    keep &= ~frame["system"].astype(str).str.contains(TUTORIAL, regex=False).to_numpy(dtype=bool)
    doc = frame["doc"].astype("string").fillna("") if "doc" in frame.columns \
        else pd.Series("", index=frame.index, dtype="string")
    for mark in UNUSABLE_DOC_MARKS:
        keep &= ~doc.str.contains(mark, regex=False).to_numpy(dtype=bool)
    keep &= (doc != CANARY_DOC).to_numpy(dtype=bool)
    return latest_ratings(frame[keep])


def latest_ratings(frame: pd.DataFrame) -> pd.DataFrame:
    """One judgment per (lp, assessment, worker, system, segment): the one with the highest position
    (a tie, possible across a worker's HITs, goes to the later row); the frame's row order is kept."""
    if frame.empty:
        return frame
    keys = [k for k in ("lp", "assessment", "worker", "system", "segment") if k in frame.columns]
    order = np.lexsort((np.arange(len(frame)), frame["position"].to_numpy(dtype=np.int64)))
    last = frame.iloc[order].duplicated(keys, keep="last").to_numpy()
    drop = np.zeros(len(frame), dtype=bool)
    drop[order[last]] = True
    return frame[~drop] if drop.any() else frame
