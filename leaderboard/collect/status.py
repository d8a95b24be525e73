"""Progress of an annotation campaign: HITs done and needed, per annotator, per system."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..storage import Store
from ..storage import collect as db


def status(store: Store, campaign: str, lp: str) -> dict[str, Any]:
    """``{hits_total, hits_done, annotators: [{annotator, hits_done, items_done, seconds_per_item, qc_pass, qc_p}]}``.

    ``hits_total`` counts HIT slots (HITs × redundancy: each HIT is done by that many annotators),
    ``hits_done`` the slots done. Per annotator: completed HITs, counted items answered, the median
    seconds per item, and the worker test's verdict and p-value over all their judgments (null
    before their first completed HIT).
    """
    info = db.collection(store, campaign, lp)
    progress = db.progress(store, info["id"])
    people = db.annotator_table(store, info["id"])
    return {"hits_total": progress["slots"], "hits_done": progress["slots_done"], "annotators": [
        {"annotator": r.name, "hits_done": int(r.hits_done), "items_done": int(r.items_done),
         "seconds_per_item": None if not np.isfinite(r.seconds_per_item) else round(float(r.seconds_per_item), 2),
         "qc_pass": None if pd.isna(r.qc_pass) else bool(r.qc_pass),
         "qc_p": None if pd.isna(r.qc_p) else float(r.qc_p)} for r in people.itertuples()]}


def overview(store: Store, campaign: str, lp: str) -> dict[str, Any]:
    """What the Organiser page shows: the settings and codes, progress, annotators (all columns),
    HITs, and judgments per system (``SYSTEM`` items and all items)."""
    info = db.collection(store, campaign, lp)
    counts = db.system_counts(store, info["id"])
    if counts.empty:
        systems = pd.DataFrame(columns=["system", "judgments", "all_items"])
    else:
        wide = counts.pivot_table(index="system", columns="item_type", values="judgments", aggfunc="sum", fill_value=0)
        systems = pd.DataFrame({"system": wide.index,
                                "judgments": wide.get("SYSTEM", pd.Series(0, index=wide.index)).to_numpy(),
                                "all_items": wide.sum(axis=1).to_numpy()}).reset_index(drop=True)
    return {"settings": info, "progress": db.progress(store, info["id"]),
            "annotators": db.annotator_table(store, info["id"]), "hits": db.hit_table(store, info["id"]),
            "systems": systems}
