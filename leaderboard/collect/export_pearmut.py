"""Export of a cESA campaign as Pearmut's annotation log (JSON lines, one line per submitted page).

Each line: ``user_id`` (the annotator), ``item_i`` (the page: the document's index in a dynamic campaign,
the page's place in a fixed HIT; ``welcome_<n>`` / ``random_<n>`` for tutorial and attention-check
pages), ``item`` (the segments as shown: ``item_id``, ``src``, ``tgt`` of the models shown), ``annotation``
(per segment, per model: ``score``, ``error_spans`` with Pearmut's inclusive character offsets — a special
token at ``len(text) + its index`` — ``category`` null, and ``textfield`` null). No ``actions``: Pearmut
reads a log without them. Lines are in submit order, written by the Pearmut log writer of
:mod:`leaderboard.ingest.pearmut_write`, so Pearmut 1.1.6 and the product's own reader load them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError
from ..storage import Store
from ..storage import collect as db
from ..storage import collect_cesa as cdb
from ..ingest.pearmut_write import pearmut_log_lines


def log_lines(store: Store, campaign: str, lp: str) -> list[str]:
    """The Pearmut log lines (JSON text) of every submitted page of (campaign, lp), in submit order, written by
    :func:`leaderboard.ingest.pearmut_write.pearmut_log_lines`."""
    info = db.collection(store, campaign, lp)
    if info["protocol"] != "cesa":
        raise InputError(f"the Pearmut log holds contrastive ESA; {campaign} {lp} is a {info['protocol']} campaign "
                         "(its exports are appraise and wmt)", column="format")
    special = list(cdb.settings(info).get("special_tokens") or [])
    frame = cdb.final_answers(store, info["id"])
    if frame.empty:
        return []
    hits = cdb.hit_kinds(store, info["id"])
    order = {kind: {name: n for n, name in enumerate(hits.loc[hits["kind"] == kind, "name"])}
             for kind in ("tutorial", "check")}
    frame["hit"] = frame["assignment"].astype(str) + ":" + frame["page"].astype(str)
    item_i = {}
    for key, part in frame.groupby("hit", sort=False):
        kind, name = part["kind"].iloc[0], part["hit_name"].iloc[0]
        item_i[key] = (f"welcome_{order['tutorial'][name]}" if kind == "tutorial" else
                       f"random_{order['check'][name]}" if kind == "check" else
                       int(part["doc_index"].iloc[0]) if kind == "page" else int(part["page"].iloc[0]) - 1)
    frame["item_i"] = frame["hit"].map(item_i)
    submitted = frame.groupby("hit")["ended"].transform("max")
    frame = frame.assign(_t=pd.to_datetime(submitted, utc=True), _last=frame.groupby("hit")["answer"].transform("max"))
    frame = frame.sort_values(["_t", "_last", "seq"], kind="stable").reset_index(drop=True)
    frame["position"] = frame["seq"]
    spans = [{"rater": r.worker, "hit": r.hit, "segment": r.segment, "system": r.system, "severity": s["severity"],
              "category": None, "span_start": s.get("start"), "span_end": s.get("end"), "token": s.get("token")}
             for r in frame.itertuples() for s in (json.loads(r.spans) if isinstance(r.spans, str) and r.spans else [])]
    return pearmut_log_lines(frame[["worker", "hit", "position", "segment", "system", "raw", "item_i"]],
                             frame[["segment", "system", "source", "target", "instructions"]],
                             pd.DataFrame(spans, columns=["rater", "hit", "segment", "system", "severity", "category",
                                                          "span_start", "span_end", "token"]),
                             special_tokens=special)


def export(store: Store, campaign: str, lp: str, out: str | Path) -> dict[str, Any]:
    """Write ``out/<campaign>.jsonl``; ``{"files", "rows", "workers"}`` (rows: lines, one per submitted page)."""
    lines = log_lines(store, campaign, lp)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{campaign}.jsonl"
    if "/" in campaign or campaign in (".", ".."):
        raise InputError(f"campaign name {campaign!r} cannot be a file name", column="campaign")
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        fh.write("".join(line + "\n" for line in lines))
    return {"files": [str(path)], "rows": len(lines), "workers": len({json.loads(line)["user_id"] for line in lines})}
