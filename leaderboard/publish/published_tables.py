"""The organisers' published WMT23 tables as rankings (:func:`leaderboard.ingest.wmt23_results.read_wmt23_results`
reads them), each with its :class:`leaderboard.human.spec.PublishedSpec`."""

from __future__ import annotations

from typing import Any

import pandas as pd


def results_rankings(frame: pd.DataFrame, source: str, assessment: str = "adequacy") -> list[dict]:
    """One ranking per pair, shaped like ``mtlb rank --json`` (``signature`` says it is a published table)."""
    from ..naming import is_human
    spec = published_spec(source)
    out = []
    for lp, part in frame.groupby("lp", sort=True):
        part = part.sort_values("position")
        systems = []
        for rec in part.to_dict(orient="records"):
            systems.append({
                "system": rec["system"], "ave": rec["ave"], "ave_z": rec["ave_z"], "h": rec["h"],
                "human": is_human(rec["system"]), "n": int(rec["n"]), "n_all": None,
                "rank_lo": None if pd.isna(rec["rank_lo"]) else int(rec["rank_lo"]),
                "rank_hi": None if pd.isna(rec["rank_hi"]) else int(rec["rank_hi"]),
                "cluster": int(rec["cluster"]), "wins": int(rec["wins"])})
        out.append({"lp": str(lp), "assessment": assessment, "signature": spec.signature(systems=len(systems)),
                    "systems": systems,
                    "protocol": "wmt23", "cluster_rule": "organisers"})
    return out


def published_spec(source: str) -> Any:
    """The :class:`leaderboard.human.spec.PublishedSpec` of the rankings :func:`results_rankings` reads
    from ``source`` (stored with their snapshots)."""
    import os
    from ..human.spec import PublishedSpec
    return PublishedSpec(protocol="wmt23", file=os.path.basename(source))
