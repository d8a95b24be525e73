"""Export of a cESA campaign as Pearmut's annotation log (JSON lines, one line per submitted page).

Each line: ``user_id`` (the annotator), ``item_i`` (the page: the document's index in a dynamic campaign,
the page's place in a fixed HIT; ``welcome_<n>`` / ``random_<n>`` for tutorial and attention-check
pages), ``item`` (the segments as shown: ``item_id``, ``src``, ``tgt`` of the models shown), ``annotation``
(per segment, per model: ``score``, ``error_spans`` with Pearmut's inclusive character offsets — a special
token at ``len(text) + its index`` — ``category`` null, and ``textfield`` null) and ``actions`` (a load and
a submit at the page's first and last answer times). Lines are in submit order. The layout is the one
Pearmut 1.1.6 appends, so its readers (and ``mtlb ingest --input-format pearmut``) load it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
from sqlalchemy import and_, select

from ..errors import InputError
from ..storage import Store
from ..storage import collect as db
from ..storage import collect_cesa as cdb
from ..storage import models as m
from .checks import pearmut_span


def _unix(value) -> float:
    return round(pd.Timestamp(value).tz_localize("UTC").timestamp() if pd.Timestamp(value).tzinfo is None
                 else pd.Timestamp(value).timestamp(), 3)


def log_lines(store: Store, campaign: str, lp: str) -> list[dict[str, Any]]:
    """The Pearmut log lines of every submitted page of (campaign, lp), in submit order."""
    info = db.collection(store, campaign, lp)
    if info["protocol"] != "cesa":
        raise InputError(f"the Pearmut log holds contrastive ESA; {campaign} {lp} is a {info['protocol']} campaign "
                         "(its exports are appraise and wmt)", column="format")
    special = list(cdb.settings(info).get("special_tokens") or [])
    a_, g_, h_, i_, r_ = (m.collect_annotators, m.collect_assignments, m.collect_hits, m.collect_items,
                          m.collect_answers)
    q = (select(a_.c.name, g_.c.id, h_.c.name, h_.c.kind, h_.c.doc_index, i_.c.id, i_.c.seq, i_.c.pair_id,
                i_.c.segment, i_.c.system, i_.c.text, i_.c.source, i_.c.note, i_.c.meta, r_.c.id, r_.c.raw, r_.c.spans,
                r_.c.started_at, r_.c.ended_at)
         .select_from(r_).join(g_, g_.c.id == r_.c.assignment_id).join(a_, a_.c.id == g_.c.annotator_id)
         .join(i_, i_.c.id == r_.c.item_id).join(h_, h_.c.id == i_.c.hit_id)
         .where(and_(a_.c.collect_id == info["id"], r_.c.final == True)))  # noqa: E712
    with store.engine.connect() as conn:
        rows = conn.execute(q).all()
    frame = pd.DataFrame(rows, columns=["user", "assignment", "hit", "kind", "doc_index", "item", "seq", "page",
                                        "segment", "model", "text", "source", "note", "meta", "answer", "raw", "spans",
                                        "started", "ended"])
    if frame.empty:
        return []
    hits = cdb.hit_kinds(store, info["id"])
    order = {kind: {name: n for n, name in enumerate(hits.loc[hits["kind"] == kind, "name"])}
             for kind in ("tutorial", "check")}
    pages = []
    for (assignment, page), part in frame.groupby(["assignment", "page"], sort=False):
        part = part.sort_values("seq")
        kind, hit = part["kind"].iloc[0], part["hit"].iloc[0]
        if kind == "tutorial":
            item_i: Any = f"welcome_{order['tutorial'][hit]}"
        elif kind == "check":
            item_i = f"random_{order['check'][hit]}"
        elif kind == "page":
            item_i = int(part["doc_index"].iloc[0])
        else:
            item_i = int(page) - 1
        items, annotation = [], []
        for segment, seg in part.groupby("segment", sort=False):
            meta = json.loads(seg["meta"].iloc[0]) if isinstance(seg["meta"].iloc[0], str) else {}
            shown = {"item_id": meta.get("item_id") or segment, "src": seg["source"].iloc[0],
                     "tgt": dict(zip(seg["model"], seg["text"]))}
            if isinstance(seg["note"].iloc[0], str) and seg["note"].iloc[0]:
                shown["instructions"] = seg["note"].iloc[0]
            if meta.get("rules"):
                shown["validation"] = meta["rules"]
            items.append(shown)
            per_model = {}
            for r in seg.itertuples():
                spans = json.loads(r.spans) if isinstance(r.spans, str) and r.spans else []
                per_model[r.model] = {
                    "score": int(r.raw) if float(r.raw).is_integer() else float(r.raw),
                    "error_spans": [dict(zip(("start_i", "end_i"), pearmut_span(s, r.text, special)),
                                         category=None, severity=s["severity"]) for s in spans],
                    "textfield": None}
            annotation.append(per_model)
        first, last = part["started"].min(), part["ended"].max()
        pages.append((last, part["answer"].max(), {
            "annotation": annotation, "item": items,
            "actions": [{"time": _unix(first), "action": "load"}, {"time": _unix(last), "action": "submit"}],
            "user_id": part["user"].iloc[0], "item_i": item_i}))
    pages.sort(key=lambda p: (pd.Timestamp(p[0]), p[1]))
    return [p[2] for p in pages]


def export(store: Store, campaign: str, lp: str, out: str | Path) -> dict[str, Any]:
    """Write ``out/<campaign>.jsonl``; ``{"files", "rows", "workers"}`` (rows: lines, one per submitted page)."""
    lines = log_lines(store, campaign, lp)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{campaign}.jsonl"
    if "/" in campaign or campaign in (".", ".."):
        raise InputError(f"campaign name {campaign!r} cannot be a file name", column="campaign")
    with path.open("w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    return {"files": [str(path)], "rows": len(lines), "workers": len({line["user_id"] for line in lines})}
