"""AutoRank of a test set from the metric scores stored for its campaign (the Automatic page's and
``mtlb autorank --campaign``'s source).

The product cannot run the neural metrics AutoRank needs; metric developers or organisers upload
their scores (``mtlb submit`` or the Metrics page: system- or segment-level, stored per campaign as
metric submissions). How AutoRank finds them:

* **Which metrics**: a stored submission counts for an AutoRank metric when its metric name equals
  the protocol's name (MetricX-23-XL, CometKiwi-DA-XL for WMT24; GEMBA-ESA-CMDA, GEMBA-ESA-GPT4.1,
  MetricX-24-Hybrid-XL, XCOMET-XL, CometKiwi-XL or chrF++ for WMT25), ignoring case. The latest
  submission with scores for the pair wins. Segment-level scores are averaged per system (WMT25's
  mean over paragraphs); system-level scores are used as they are.
* **Which systems**: the test set's entries on the automatic leaderboard (one per team), matched to
  the scored names like ``mtlb correlate`` does (exact, then without a ``.N`` index); without a
  test set, every system with scores. AutoRank is shown only when every needed metric scores
  every one of them.
* **Which protocol**: WMT25 when its metrics are all there (without references, CometKiwi-XL is not
  needed), else WMT24, else none (the result says what is missing).
* **Directions**: as in the file readers (:func:`metrics.autorank.higher_is_better`: MetricX by
  sign, the rest higher-is-better); a contradicting direction flag of the upload is reported.
* **Categories for the selection**: the submissions' constrained / open-source flags (constrained
  → constrained, else open-source → open, open-source False → closed; unknown → treated as closed).
* **Human rank**: the latest published ranking (snapshot) of the same campaign and pair.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..naming import match_systems
from ..storage.outputs import OutputStore
from ..storage.store import Store


def _category(constrained: Any, open_source: Any) -> str | None:
    def flag(value):
        return None if value is None or (isinstance(value, float) and np.isnan(value)) else bool(value)
    c, o = flag(constrained), flag(open_source)
    if c:
        return "constrained"
    if o is not None:
        return "open" if o else "closed"
    return None


def board_systems(store: Store, campaign: str, lp: str | None = None) -> dict[str, set[str]]:
    """Per language pair, the systems on the campaign's automatic leaderboards (one entry per team):
    the systems metric scores must cover for AutoRank."""
    from .board import pick_entries
    out = OutputStore(store)
    subs = out.submissions(campaign, lp, include_withdrawn=False)
    systems: dict[str, set[str]] = {}
    for pair, part in subs.groupby("lp", sort=True):
        entries = pick_entries(part)
        if len(entries):
            systems[str(pair)] = {str(s) for s in entries["system"]}
    return systems


def stored_metric_values(store: Store, campaign: str, lp: str, metrics: list[str], *, viewer: str | None = None,
                         include_private: bool = False) -> tuple[dict[str, pd.Series], dict[str, dict]]:
    """Per needed metric, its system-level values for ``lp`` (latest visible submission with scores for
    the pair) and where they came from (submission id, owner, level, declared direction)."""
    subs = store.metric_submissions(campaign, viewer=viewer, include_private=include_private)
    values: dict[str, pd.Series] = {}
    sources: dict[str, dict] = {}
    for metric in metrics:
        hits = subs[subs["metric"].str.lower() == metric.lower()].sort_values("id", ascending=False)
        for sub in hits.itertuples():
            scores = store.metric_scores(int(sub.id))
            scores = scores[scores["lp"] == lp]
            if scores.empty:
                continue
            values[metric] = scores.groupby("system", sort=False)["score"].mean().astype(float)
            sources[metric] = {"submission": int(sub.id), "owner": sub.owner, "level": sub.level,
                               "higher_is_better": bool(sub.higher_is_better), "name": sub.metric}
            break
    return values, sources


def _human(store: Store, campaign: str, lp: str, systems: list[str]) -> tuple[list[dict] | None, dict | None]:
    snaps = store.snapshots(campaign)
    snaps = snaps[snaps["lp"] == lp]
    if snaps.empty:
        return None, None
    latest = snaps.sort_values(["published_at", "version"]).iloc[-1]
    snap = store.snapshot(campaign, lp, str(latest["assessment"]), int(latest["version"]))
    ranked = snap["ranking"].get("systems", [])
    names = match_systems(systems, [str(s["system"]) for s in ranked])
    by_name = {str(s["system"]): s for s in ranked}
    rows = []
    for system in systems:
        s = by_name.get(names.get(system, ""))
        if s is None:
            continue
        score_name = "mqm" if "mqm" in s else "ave"
        rows.append({"system": system, "human_system": str(s["system"]), "rank_lo": s.get("rank_lo"),
                     "rank_hi": s.get("rank_hi"), "score": s.get(score_name), "score_name": score_name})
    source = {"assessment": snap["assessment"], "version": snap["version"], "published_at": snap["published_at"],
              "systems": len(ranked)}
    return rows, source


def testset_autorank(store: Store, campaign: str, lp: str, *, protocol: str | None = None,
                     viewer: str | None = None, include_private: bool = False, reference: bool | None = None,
                     categories: bool = True, human: bool = False) -> dict:
    """AutoRank of (campaign, lp) from stored metric scores.

    Returns ``{"campaign", "lp", "protocol", "available", "metrics", "sources", "missing", "notes",
    "systems", "selection", "human", "human_source"}``: ``systems`` as
    :func:`metrics.autorank.rank_pair` gives them, or None with ``missing`` saying why. ``reference``:
    whether the pair has a human reference (default: whether the test set has one).
    """
    from metrics.autorank import PROTOCOLS, higher_is_better, metrics_for, rank_pair
    from .board import pick_entries

    out = OutputStore(store)
    entries = pd.DataFrame()
    try:
        ts = out.testset(campaign, lp)
    except InputError:
        ts = None
    if ts is not None:
        reference = bool(ts["references"]) if reference is None else reference
        entries = pick_entries(out.submissions(campaign, lp, include_withdrawn=False))
    reference = True if reference is None else reference
    wanted = {p: list(metrics_for(p, lp, reference)) for p in PROTOCOLS}
    every = list(dict.fromkeys(m for ms in wanted.values() for m in ms))
    values, sources = stored_metric_values(store, campaign, lp, every, viewer=viewer, include_private=include_private)
    if ts is not None:
        systems = [str(s) for s in entries["system"]] if len(entries) else []
    else:
        systems = sorted({str(s) for v in values.values() for s in v.index})
    result: dict[str, Any] = {"campaign": campaign, "lp": lp, "protocol": None, "available": [], "metrics": [],
                              "sources": {}, "missing": None, "notes": [], "systems": None, "selection": None,
                              "human": None, "human_source": None, "reference": reference}
    if not systems:
        result["missing"] = f"{campaign} {lp} has no systems to rank yet"
        return result
    complete: dict[str, dict[str, dict[str, float]]] = {}
    gaps: dict[str, str] = {}
    for p in PROTOCOLS:
        per_metric: dict[str, dict[str, float]] = {}
        problems = []
        for metric in wanted[p]:
            if metric not in values:
                problems.append(f"no {metric} scores")
                continue
            names = match_systems(systems, list(values[metric].index))
            lacking = [s for s in systems if s not in names]
            if lacking:
                problems.append(f"{metric} lacks {', '.join(lacking)}")
                continue
            per_metric[metric] = {s: float(values[metric][names[s]]) for s in systems}
        if problems:
            gaps[p] = "; ".join(problems)
        else:
            complete[p] = per_metric
    result["available"] = [p for p in PROTOCOLS if p in complete]
    chosen = protocol or (result["available"][-1] if result["available"] else None)
    if chosen is None or chosen not in complete:
        which = [chosen] if chosen else list(PROTOCOLS)
        result["missing"] = ("AutoRank needs system-level metric scores for every system: "
                             + " | ".join(f"{p}: {gaps[p]}" for p in which))
        result["protocol"] = chosen
        return result
    table = pd.DataFrame(complete[chosen], index=systems)[wanted[chosen]]
    directions = {m: higher_is_better(m, table[m].to_numpy()) for m in table.columns}
    for m, src in sources.items():
        if m in directions and src["higher_is_better"] != directions[m]:
            result["notes"].append(f"{src['name']} (submission #{src['submission']}) is flagged "
                                   f"{'higher' if src['higher_is_better'] else 'lower'}-is-better, but its values "
                                   f"are {'higher' if directions[m] else 'lower'}-is-better by the metric's "
                                   "definition; AutoRank uses the latter")
    cats = None
    if categories:
        cats = {}
        if len(entries):
            for row in entries.itertuples():
                cats[str(row.system)] = _category(row.constrained, row.open_source)
        cats = {s: cats.get(s) for s in systems}
    ranked = rank_pair(chosen, lp, table, cats, directions)
    result.update({"protocol": chosen, "metrics": wanted[chosen], "systems": ranked["systems"],
                   "selection": ranked["selection"], "directions": directions,
                   "sources": {m: sources[m] for m in wanted[chosen]}})
    if human:
        result["human"], result["human_source"] = _human(store, campaign, lp, systems)
    return result


def contract(result: dict, select: bool, human: bool) -> dict:
    """The ``mtlb autorank --json`` form of a result (:func:`metrics.autorank.rank_pair` or
    :func:`testset_autorank`): ``{lp, systems: [{system, autorank, metrics}]}``; with ``select`` each
    system also has type, human_eval, past_cutoff and reason, with ``human`` human_rank [lo, hi] and
    human_score (None when the published ranking lacks the system); ``null_scores`` lists, per system and
    metric, the null paragraph scores left out of the means (only when there were any)."""
    extra = {row["system"]: row for row in result.get("selection") or []} if select else {}
    people = {row["system"]: row for row in result.get("human") or []} if human else {}
    systems = []
    for s in result["systems"]:
        row = {"system": s["system"], "autorank": s["autorank"], "metrics": s["metrics"]}
        if s["system"] in extra:
            sel = extra[s["system"]]
            row.update({"type": sel["category"], "human_eval": bool(sel["human_eval"]),
                        "past_cutoff": bool(sel["past_cutoff"]), "reason": sel["reason"]})
        if human:
            h = people.get(s["system"])
            row["human_rank"] = None if h is None else [h["rank_lo"], h["rank_hi"]]
            row["human_score"] = None if h is None else h["score"]
        systems.append(row)
    out = {"lp": result["lp"], "systems": systems}
    if result.get("null_scores"):
        out["null_scores"] = result["null_scores"]
    return out


def flat_table(rows: list[dict]) -> pd.DataFrame:
    """Pairs in :func:`contract` form as one table: lp, position, system, autorank, one column per
    metric, then the selection and human-rank columns when present."""
    records = []
    for pair in rows:
        for pos, s in enumerate(pair["systems"], start=1):
            rec = {"lp": pair["lp"], "position": pos, "system": s["system"], "autorank": s["autorank"],
                   **s["metrics"]}
            for key in ("type", "human_eval", "past_cutoff", "reason"):
                if key in s:
                    rec[key] = s[key]
            if "human_rank" in s:
                lo_hi = s["human_rank"]
                rec["human_rank"] = None if lo_hi is None else (f"{lo_hi[0]}" if lo_hi[0] == lo_hi[1]
                                                               else f"{lo_hi[0]}-{lo_hi[1]}")
                rec["human_score"] = s["human_score"]
            records.append(rec)
    return pd.DataFrame(records)
