"""System scores exactly as WMT computes them (docs/method/standardisation.md, docs/method/protocols.md).

Only ``SYSTEM`` and ``REPEAT`` items count. Repeated judgments of one (system, segment) are
averaged first (raw and z separately), then the segment averages are averaged per system:
Ave (raw), Ave z, N (segments) and N.ALL (judgments). A frame holding several language pairs or
assessments is scored per (lp, assessment); those columns are then added in front.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..schema import text_series


SCORING_ITEMS: tuple[str, ...] = ("SYSTEM", "REPEAT")


def _split_keys(frame: pd.DataFrame) -> list[str]:
    """lp / assessment when they take more than one value in ``frame``."""
    return [c for c in ("lp", "assessment") if c in frame.columns and frame[c].nunique(dropna=False) > 1]


def scoring_mask(frame: pd.DataFrame) -> np.ndarray:
    """True for the rows that count towards system scores (SYSTEM and REPEAT items)."""
    return frame["item_type"].isin(SCORING_ITEMS).to_numpy(dtype=bool)




def segment_table(frame: pd.DataFrame, group_keys: list[str], z: np.ndarray | None = None,
                  keep: np.ndarray | None = None) -> pd.DataFrame:
    """Per (group keys..., system, segment) means of raw and z and judgment counts.

    Works on integer codes of the whole frame (no string copies), so it is cheap on millions of
    rows. Key columns hold Python strings (object arrays). The result is sorted by the key names (so sums do not depend on the row order of the
    input) and carries ``_group``, a dense code of the group keys
    (0, 1, ... in that order). ``z`` overrides the frame's z column; ``keep`` (boolean per row)
    restricts the rows further.
    """
    mask = scoring_mask(frame)
    if keep is not None:
        mask = mask & np.asarray(keep, dtype=bool)
    keys = list(group_keys) + ["system", "segment"]
    codes, names = [], []
    for key in keys:
        c, uniq = pd.factorize(frame[key].astype(str), sort=True)  # sorted: order-independent sums
        codes.append(c[mask].astype(np.int64))
        names.append(np.asarray(uniq, dtype=object))
    sizes = [max(len(u), 1) for u in names]
    group = np.zeros(int(mask.sum()), dtype=np.int64)
    for c, size in zip(codes[:len(group_keys)], sizes[:len(group_keys)]):
        group = group * size + c
    key = (group * sizes[-2] + codes[-2]) * sizes[-1] + codes[-1]
    uniq_key, first, inverse = _unique_first_inverse(key)
    n_groups = len(uniq_key)
    out: dict[str, object] = {k: text_series(codes[i][first], names[i]) for i, k in enumerate(keys)}
    zs = z[mask] if z is not None else (frame["z"].to_numpy(dtype=float, na_value=np.nan)[mask]
                                        if "z" in frame.columns else np.full(len(inverse), np.nan))
    raws = frame["raw"].to_numpy(dtype=float, na_value=np.nan)[mask] if "raw" in frame.columns \
        else np.full(len(inverse), np.nan)
    for col, values in (("raw", raws), ("z", zs)):
        ok = ~np.isnan(values)
        total = np.bincount(inverse, weights=np.where(ok, values, 0.0), minlength=n_groups)
        count = np.bincount(inverse, weights=ok.astype(float), minlength=n_groups)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[col] = total / count
    out["n"] = np.bincount(inverse, minlength=n_groups)
    seg = pd.DataFrame(out)
    _, seg["_group"] = np.unique(group[first], return_inverse=True)
    return seg


def _unique_first_inverse(key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.unique(key, return_index=True, return_inverse=True)`` for non-negative integer keys.

    When the keys span a range not much larger than their number (language pair x system x
    segment codes usually do), a presence table replaces the sort: O(n) instead of O(n log n).
    """
    if len(key) == 0 or int(key.max()) >= 4 * len(key) + 1024:
        return np.unique(key, return_index=True, return_inverse=True)
    present = np.zeros(int(key.max()) + 1, dtype=bool)
    present[key] = True
    rank = np.cumsum(present) - 1
    first = np.empty(len(present), dtype=np.int64)
    first[key[::-1]] = np.arange(len(key) - 1, -1, -1)  # the last write per key wins: its first row
    return np.flatnonzero(present), first[present], rank[key]


def segment_scores(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (system, segment): mean raw, mean z and the number of judgments ``n``.

    Columns system, segment, raw, z, n (preceded by lp / assessment when the frame holds several);
    sorted by system then segment. NaN raw or z values are left out of that column's mean.
    """
    keys = _split_keys(frame)
    if not scoring_mask(frame).any():
        return pd.DataFrame({**{k: pd.Series(dtype=object) for k in keys + ["system", "segment"]},
                             "raw": pd.Series(dtype=float), "z": pd.Series(dtype=float),
                             "n": pd.Series(dtype=int)})
    seg = segment_table(frame, keys).drop(columns="_group")
    for k in keys + ["system", "segment"]:
        seg[k] = seg[k].astype(str)
    return seg.sort_values(keys + ["system", "segment"], kind="mergesort").reset_index(drop=True)


def system_scores_from_segments(seg: pd.DataFrame) -> pd.DataFrame:
    """System table (system, ave, ave_z, n, n_all) from :func:`segment_scores` output."""
    keys = [c for c in ("lp", "assessment") if c in seg.columns] + ["system"]
    g = seg.groupby(keys, sort=True, observed=True)
    table = g.agg(ave=("raw", "mean"), ave_z=("z", "mean"), n=("segment", "size"),
                  n_all=("n", "sum")).reset_index()
    table["n"] = table["n"].astype(int)
    table["n_all"] = table["n_all"].astype(int)
    return table
