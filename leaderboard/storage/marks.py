"""Organisers' marking of human translations: per campaign and system name, with an audit entry.

Without a mark, WMT naming decides (:func:`leaderboard.naming.is_human`). Marks count from the next
published version on: published snapshots never change.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Sequence

import pandas as pd
from sqlalchemy import delete, insert, select

from ..errors import InputError
from . import models as m

MARK_HUMAN = "mark-human"


def _campaign_id(conn, campaign: str) -> int:
    cid = conn.execute(select(m.campaigns.c.id).where(m.campaigns.c.name == campaign)).scalar()
    if cid is None:
        raise InputError(f"no campaign named {campaign!r}")
    return int(cid)


def _campaign_systems(conn, cid: int) -> set[str]:
    """The names of every system with stored judgments or annotations in the campaign (all language pairs)."""
    return set(conn.execute(select(m.systems.c.name)
                            .join(m.language_pairs, m.systems.c.lp_id == m.language_pairs.c.id)
                            .where(m.language_pairs.c.campaign_id == cid).distinct()).scalars().all())


def human_marks(store, campaign: str) -> dict[str, bool]:
    """System name → the organisers' human-translation mark, for the systems they marked."""
    t = m.system_marks
    with store.engine.connect() as conn:
        cid = conn.execute(select(m.campaigns.c.id).where(m.campaigns.c.name == campaign)).scalar()
        if cid is None:
            return {}
        rows = conn.execute(select(t.c.system, t.c.human).where(t.c.campaign_id == cid)).all()
    return {str(s): bool(h) for s, h in rows}


def mark_human(store, campaign: str, systems: Sequence[str], human: bool | None, *, actor: str) -> dict:
    """Mark ``systems`` of ``campaign`` as human translations (True), MT systems (False), or remove the
    mark (None: WMT naming decides again). One transaction with an audit entry; returns it."""
    if not actor:
        raise InputError("marking systems needs the name of the organiser who does it")
    names = sorted({str(s).strip() for s in systems})
    if not names or any(not n for n in names):
        raise InputError("name at least one system", column="system")
    if any(len(n) > 200 for n in names):
        raise InputError("a system name is longer than 200 characters", column="system")
    t = m.system_marks
    now = datetime.now(timezone.utc)
    with store.engine.begin() as conn:
        cid = _campaign_id(conn, campaign)
        if human is not None:
            unknown = sorted(set(names) - _campaign_systems(conn, cid))
            if unknown:
                raise InputError(f"campaign {campaign!r} has no system named {', '.join(map(repr, unknown))} "
                                 "(marks are set on judged systems)", column="system", code="unknown_system",
                                 value=unknown)
        conn.execute(delete(t).where(t.c.campaign_id == cid, t.c.system.in_(names)))
        if human is not None:
            conn.execute(insert(t), [{"campaign_id": cid, "system": n, "human": bool(human), "set_by": actor,
                                      "set_at": now} for n in names])
        value = {True: "human", False: "mt", None: "auto"}[human]
        entry = {"at": now, "actor": actor, "action": MARK_HUMAN, "campaign": campaign,
                 "target": ", ".join(names)[:200], "reason": "",
                 "details": json.dumps({"systems": names, "mark": value})}
        conn.execute(insert(m.audit_log).values(**entry))
    return {"campaign": campaign, "systems": names, "mark": value}


def system_kinds(store, campaign: str) -> pd.DataFrame:
    """Every judged system of ``campaign`` (all language pairs) and every marked one: system, human,
    source ("organiser" when marked, else "naming")."""
    from ..naming import is_human
    marks = human_marks(store, campaign)
    with store.engine.connect() as conn:
        cid = _campaign_id(conn, campaign)
        names = _campaign_systems(conn, cid)
    rows = [{"system": s, "human": marks[s] if s in marks else is_human(s),
             "source": "organiser" if s in marks else "naming"} for s in sorted(set(names) | set(marks))]
    return pd.DataFrame(rows, columns=["system", "human", "source"])
