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
    out = {"protocol": info["protocol"], "assignment": info.get("assignment") or "fixed",
           "hits_total": progress["slots"], "hits_done": progress["slots_done"],
           "code_pass": info["code_pass"], "code_fail": info["code_fail"], "timeout_seconds": info["timeout_seconds"],
           "annotators": [
               {"annotator": r.name, "hits_done": int(r.hits_done), "items_done": int(r.items_done),
                "seconds_per_item": None if not np.isfinite(r.seconds_per_item) else round(float(r.seconds_per_item), 2),
                "qc_pass": None if pd.isna(r.qc_pass) else bool(r.qc_pass),
                "qc_p": None if pd.isna(r.qc_p) else float(r.qc_p),
                "qc_reason": None if pd.isna(r.qc_reason) else str(r.qc_reason),
                "holding": hold_reason(r)} for r in people.itertuples()]}
    if info["protocol"] == "cesa":
        out.update(cesa_status(store, info))
        checks = out.pop("_checks")
        for person in out["annotators"]:
            person["checks"] = checks.get(person["annotator"], {"passed": 0, "failed": 0, "tutorial": 0})
    return out


def hold_reason(row) -> str | None:
    """Why an annotator holds a HIT now and until when, in words (None: they hold none)."""
    hit = getattr(row, "holding", None)
    if hit is None or pd.isna(hit):
        return None
    until = pd.Timestamp(row.held_until)
    until = until.tz_localize("UTC") if until.tzinfo is None else until
    n = int(getattr(row, "held_answers", 0) or 0)
    why = "opened the link, no answer yet" if n == 0 else f"{n} answer{'s' if n != 1 else ''} so far"
    return f"{hit}: {why}; held until {until.strftime('%Y-%m-%d %H:%M')} UTC unless answered (then renewed)"


def cesa_status(store: Store, info: dict) -> dict[str, Any]:
    """cESA figures: document × model cells given and done (dynamic), pages submitted, and per annotator
    their attention checks (first attempts passed / failed) and tutorial pages done."""
    from ..storage import collect_cesa as cdb
    out: dict[str, Any] = {"settings": {k: v for k, v in cdb.settings(info).items() if k != "instructions"}}
    if (info.get("assignment") or "fixed") == "dynamic":
        out["cells"] = cdb.cells_progress(store, info["id"])
    results = cdb.check_results(store, info["id"])
    per: dict[str, dict] = {}
    if len(results):
        for name, part in results.groupby("annotator"):
            checks = part[part["kind"] == "check"].drop_duplicates("item_id")
            per[str(name)] = {"passed": int(checks["passed"].astype(bool).sum()),
                              "failed": int((~checks["passed"].astype(bool)).sum()),
                              "tutorial": int(part.loc[part["kind"] == "tutorial", "item_id"].nunique())}
    out["_checks"] = per
    return out


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
    extra = cesa_status(store, info) if info["protocol"] == "cesa" else {}
    return {"settings": info, "progress": db.progress(store, info["id"]), "cesa": extra,
            "checks": _check_table(store, info) if info["protocol"] == "cesa" else pd.DataFrame(),
            "annotators": db.annotator_table(store, info["id"]), "hits": db.hit_table(store, info["id"]),
            "systems": systems}


def _check_table(store: Store, info: dict) -> pd.DataFrame:
    """Every check result as logged: annotator, kind (tutorial / check), item, attempt, passed, loud."""
    from ..storage import collect_cesa as cdb
    return cdb.check_results(store, info["id"])
