"""Retracting an unpublished import, and the audit log that records it.

An import (one uploaded judgments file, or one text file) can be taken back while no published
snapshot depends on it: snapshots are immutable and their ``data_hash`` ties them to the stored
data, so an import that existed when a version of the campaign was published stays. Judgments
count for every snapshot of the campaign published after them (worker QC pools a worker's
judgments over language pairs); texts only for snapshots of their language pair. The retraction
deletes the import's rows and its log entry and writes an audit entry (who, when, what, why) in
the same transaction: either all of it happens or nothing does.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pandas as pd
from sqlalchemy import Connection, delete, func, insert, select

from ..errors import InputError
from . import models as m

RETRACT = "retract-import"


def _utc(value: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes (stored as UTC); PostgreSQL aware ones."""
    if value is None:
        return None
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


def _campaign_id(conn: Connection, campaign: str) -> int:
    cid = conn.execute(select(m.campaigns.c.id).where(m.campaigns.c.name == campaign)).scalar()
    if cid is None:
        raise InputError(f"no campaign named {campaign!r}")
    return cid


def _contents(conn: Connection, kind: str, import_id: int) -> list[dict]:
    """What an import holds: rows per (lp, assessment) for judgments, per (lp, kind, name) for texts."""
    lp = m.language_pairs
    if kind == "judgments":
        j = m.judgments
        rows = conn.execute(select(lp.c.lp, j.c.assessment, func.count(j.c.id))
                            .join(lp, j.c.lp_id == lp.c.id).where(j.c.import_id == import_id)
                            .group_by(lp.c.lp, j.c.assessment).order_by(lp.c.lp, j.c.assessment)).all()
        return [{"lp": r[0], "assessment": r[1], "rows": int(r[2])} for r in rows]
    t = m.texts
    rows = conn.execute(select(lp.c.lp, t.c.kind, t.c.name, func.count(t.c.id))
                        .join(lp, t.c.lp_id == lp.c.id).where(t.c.import_id == import_id)
                        .group_by(lp.c.lp, t.c.kind, t.c.name).order_by(lp.c.lp)).all()
    return [{"lp": r[0], "text": r[1], "name": r[2], "rows": int(r[3])} for r in rows]


def _dependents(snaps: list, kind: str, created_at: datetime, lps: set[str]) -> list[str]:
    """The published versions that were computed while the import was stored ("lp assessment vN")."""
    since = _utc(created_at)
    out = []
    for s in snaps:
        if _utc(s.published_at) < since:
            continue
        if kind != "judgments" and s.lp not in lps:
            continue
        out.append(f"{s.lp} {s.assessment} v{s.version}")
    return out


def list_imports(store, campaign: str) -> pd.DataFrame:
    """Every import of a campaign with what it holds and the published versions that depend on it.

    Columns: id, kind, file_name, input_format, rows, lps, created_at, created_by, published_by_versions
    (the snapshots computed while it was stored; empty = it can be retracted), retractable.
    """
    i = m.imports
    with store.engine.connect() as conn:
        cid = _campaign_id(conn, campaign)
        imports = conn.execute(select(i).where(i.c.campaign_id == cid).order_by(i.c.id)).all()
        snaps = conn.execute(select(m.snapshots.c.lp, m.snapshots.c.assessment, m.snapshots.c.version,
                                    m.snapshots.c.published_at).where(m.snapshots.c.campaign_id == cid)
                             .order_by(m.snapshots.c.published_at)).all()
        rows = []
        for imp in imports:
            parts = _contents(conn, imp.kind, imp.id)
            lps = sorted({p["lp"] for p in parts})
            deps = _dependents(snaps, imp.kind, imp.created_at, set(lps))
            rows.append({"id": imp.id, "kind": imp.kind, "file_name": imp.file_name,
                         "input_format": imp.input_format, "rows": imp.rows, "lps": ", ".join(lps),
                         "created_at": _utc(imp.created_at), "created_by": imp.created_by,
                         "published_in": ", ".join(deps), "retractable": not deps})
    return pd.DataFrame(rows, columns=["id", "kind", "file_name", "input_format", "rows", "lps", "created_at",
                                       "created_by", "published_in", "retractable"])


def retract_import(store, campaign: str, import_id: int, *, actor: str, reason: str = "") -> dict:
    """Delete one unpublished import of ``campaign`` and record who did it, when and why.

    Refused (``InputError``, nothing changed) when the import does not belong to the campaign or
    a published version depends on it. Returns the audit entry written.
    """
    if not actor:
        raise InputError("a retraction needs the name of the user who makes it")
    i = m.imports
    with store.engine.begin() as conn:
        cid = _campaign_id(conn, campaign)
        imp = conn.execute(select(i).where(i.c.id == int(import_id), i.c.campaign_id == cid)).first()
        if imp is None:
            raise InputError(f"campaign {campaign!r} has no import #{import_id} (see `mtlb imports list`)",
                             column="id")
        parts = _contents(conn, imp.kind, imp.id)
        snaps = conn.execute(select(m.snapshots.c.lp, m.snapshots.c.assessment, m.snapshots.c.version,
                                    m.snapshots.c.published_at).where(m.snapshots.c.campaign_id == cid)
                             .order_by(m.snapshots.c.published_at)).all()
        deps = _dependents(snaps, imp.kind, imp.created_at, {p["lp"] for p in parts})
        if deps:
            raise InputError(
                f"import #{imp.id} ({imp.file_name}) cannot be retracted: published version(s) "
                f"{', '.join(deps)} of {campaign!r} were computed while it was stored, and published versions "
                "never change (publish a correction as a new version instead)", column="id")
        table = m.judgments if imp.kind == "judgments" else m.texts
        deleted = conn.execute(delete(table).where(table.c.import_id == imp.id)).rowcount
        conn.execute(delete(i).where(i.c.id == imp.id))
        details = {"kind": imp.kind, "file_name": imp.file_name, "sha256": imp.sha256,
                   "input_format": imp.input_format, "rows": imp.rows, "rows_deleted": int(deleted),
                   "contents": parts, "imported_at": _utc(imp.created_at).isoformat(),
                   "imported_by": imp.created_by}
        entry = {"at": m.now(), "actor": actor, "action": RETRACT, "campaign": campaign,
                 "target": f"import #{imp.id}", "reason": reason or "", "details": json.dumps(details, sort_keys=True)}
        entry_id = conn.execute(insert(m.audit_log).values(**entry).returning(m.audit_log.c.id)).scalar_one()
    return {"id": entry_id, **entry, "at": entry["at"].isoformat(), "details": details}


def audit_log(store, campaign: str | None = None) -> pd.DataFrame:
    """The audit entries (newest first), optionally of one campaign; ``details`` is a JSON string."""
    a = m.audit_log
    q = select(a.c.id, a.c.at, a.c.actor, a.c.action, a.c.campaign, a.c.target, a.c.reason, a.c.details) \
        .order_by(a.c.id.desc())
    if campaign is not None:
        q = q.where(a.c.campaign == campaign)
    with store.engine.connect() as conn:
        rows = conn.execute(q).all()
    frame = pd.DataFrame(rows, columns=["id", "at", "actor", "action", "campaign", "target", "reason", "details"])
    frame["at"] = frame["at"].map(_utc)
    return frame
