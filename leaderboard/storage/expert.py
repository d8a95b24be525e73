"""Storage of expert evaluations: MQM annotations (with the rated outputs) and ESA error spans.

Functions over a :class:`~leaderboard.storage.store.Store`; every write is one transaction and
refuses a file already imported into the campaign (same SHA-256). Systems and segments are the
campaign's ordinary dimension rows, so an MQM campaign lists, ranks and links like a DA one.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import Connection, and_, func, insert, select

from ..errors import InputError
from . import models as m
from .bulk import insert_frame
from .loader import insert_ignore
from .store import Store

ANNOTATION_COLUMNS = ["lp", "assessment", "system", "segment", "doc", "rater", "category", "severity", "span_start",
                      "span_end", "comment", "line", "context"]


def errors_hash(errors: pd.DataFrame) -> str:
    """A stable SHA-256 of an annotation frame's content."""
    cols = [c for c in errors.columns if c != "_line"]
    digest = pd.util.hash_pandas_object(errors[cols].astype(str), index=False).to_numpy()
    return hashlib.sha256(digest.tobytes()).hexdigest()


def _import(conn: Connection, cid: int, campaign: str, *, file_name: str, sha256: str, fmt: str, rows: int,
            created_by: str | None) -> int:
    seen = conn.execute(select(m.imports.c.id, m.imports.c.file_name).where(and_(
        m.imports.c.campaign_id == cid, m.imports.c.sha256 == sha256, m.imports.c.kind == "annotations"))).first()
    if seen is not None:
        raise InputError(f"this data was already imported into campaign {campaign!r} (import #{seen.id} of "
                         f"{seen.file_name}); nothing was written", file=file_name)
    return conn.execute(insert(m.imports).values(
        campaign_id=cid, kind="annotations", file_name=file_name, sha256=sha256, input_format=fmt, rows=rows,
        created_at=m.now(), created_by=created_by).returning(m.imports.c.id)).scalar_one()


def save_mqm(store: Store, campaign: str, errors: pd.DataFrame, *, file_name: str, sha256: str | None = None,
             created_by: str | None = None) -> dict[str, Any]:
    """Store an MQM error frame (:func:`leaderboard.ingest.mqm.read_mqm`) with its outputs, in one transaction."""
    if errors.empty:
        raise InputError("no MQM annotations to store", file=file_name)
    sha256 = sha256 or errors_hash(errors)
    summary: dict[str, Any] = {"campaign": campaign, "annotations": 0, "outputs": 0, "lps": []}
    try:
        with store.engine.begin() as conn:
            cid = store.campaign_row_id(conn, campaign, create=True)
            import_id = _import(conn, cid, campaign, file_name=file_name, sha256=sha256, fmt="mqm", rows=len(errors),
                                created_by=created_by)
            for lp, rows in errors.groupby("lp", sort=True):
                lp_id = store.lp_row_id(conn, cid, str(lp))
                seg_ids = store.row_ids(conn, m.segments, "lp_id", lp_id, "key", rows["segment"],
                                     extra=rows["doc"].where(rows["doc"] != "", None))
                sys_ids = store.row_ids(conn, m.systems, "lp_id", lp_id, "name", rows["system"])
                ann = pd.DataFrame({
                    "import_id": import_id, "lp_id": lp_id, "assessment": "mqm",
                    "system_id": sys_ids.to_numpy(), "segment_id": seg_ids.to_numpy(),
                    "rater": rows["rater"].to_numpy(), "category": rows["category"].to_numpy(),
                    "severity": rows["severity"].to_numpy(),
                    "span_start": pd.array(np.where(rows["span_start"] >= 0, rows["span_start"], -1)).astype("Int64"),
                    "span_end": pd.array(np.where(rows["span_end"] >= 0, rows["span_end"], -1)).astype("Int64"),
                    "comment": rows["comment"].where(rows["comment"] != "", None).to_numpy(),
                    "line": rows["_line"].to_numpy(),
                    "context": (rows["context"].where(rows["context"] != "", None).to_numpy()
                                if "context" in rows.columns else None),
                })
                ann.loc[ann["span_start"] < 0, ["span_start", "span_end"]] = pd.NA
                summary["annotations"] += insert_frame(conn, "expert_annotations", ann)
                first = rows.assign(system_id=sys_ids, segment_id=seg_ids).drop_duplicates(["system_id", "segment_id"])
                outs = pd.DataFrame({"import_id": import_id, "lp_id": lp_id, "system_id": first["system_id"].to_numpy(),
                                     "segment_id": first["segment_id"].to_numpy(), "source": first["source"].to_numpy(),
                                     "target": first["target"].to_numpy()})
                summary["outputs"] += insert_frame(conn, "expert_outputs", outs)
                summary["lps"].append(str(lp))
            conn.execute(m.campaigns.update().where(m.campaigns.c.id == cid).values(segments_are_lines=False))
    except store.integrity_errors:
        raise InputError(f"outputs of these (system, segment) pairs are already stored in campaign {campaign!r}; "
                         "nothing was written", file=file_name) from None
    return summary


def esa_span_writer(spans: pd.DataFrame, assessment: str = "esa", outputs: pd.DataFrame | None = None):
    """An ``also`` callback for :meth:`Store.load_judgments` that stores the upload's ESA spans: those
    marked in the systems' outputs (Appraise TGT rows) of usable documents. The spans of degraded
    quality-control copies (BAD) mark errors planted in another text, and those of a repeated rating (CHK,
    or a rating in a document the campaign marked unusable: ``#incomplete``, ``#dup``) would merge, under
    the same rater and output, with the rating that counts; neither is stored (their judgments are).

    ``assessment`` labels the spans (``esa``; ``cesa`` for Pearmut's contrastive ESA). ``outputs``
    (lp, system, segment, source, target): the rated texts, stored where the campaign has none for that
    (system, segment) yet, so that the spans can be shown on them.
    """
    from ..human.selection import UNUSABLE_DOC_MARKS

    def write(conn: Connection, campaign: str, cid: int, import_id: int) -> None:
        if outputs is not None and len(outputs):
            _write_outputs(conn, outputs[outputs["campaign"] == campaign] if "campaign" in outputs else outputs,
                           cid, import_id)
        part = spans[spans["campaign"] == campaign]
        if "item_type" in part.columns:
            part = part[part["item_type"] == "TGT"]
        if "doc" in part.columns:
            doc = part["doc"].astype(str)
            part = part[~np.logical_or.reduce([doc.str.contains(mark, regex=False).to_numpy()
                                               for mark in UNUSABLE_DOC_MARKS])]
        for lp_id, rows, system_ids, segment_ids in _stored_rows(conn, cid, part):
            out = pd.DataFrame({
                "import_id": import_id, "lp_id": lp_id, "assessment": assessment,
                "system_id": system_ids, "segment_id": segment_ids,
                "rater": rows["rater"].to_numpy(), "category": rows["category"].to_numpy(),
                "severity": rows["severity"].to_numpy(),
                "span_start": rows["span_start"].astype("Int64").to_numpy(),
                "span_end": rows["span_end"].astype("Int64").to_numpy(),
                "comment": None, "line": rows["line"].to_numpy()})
            insert_frame(conn, "expert_annotations", out)
    return write


def _stored_rows(conn: Connection, cid: int, frame: pd.DataFrame):
    """Per language pair of ``frame`` that the campaign has (others, e.g. left out with --lp, are skipped):
    ``(lp_id, rows, system_ids, segment_ids)`` for the rows whose system and segment the pair has stored."""
    lps = dict(conn.execute(select(m.language_pairs.c.lp, m.language_pairs.c.id)
                            .where(m.language_pairs.c.campaign_id == cid)).all())
    for lp, rows in frame.groupby("lp", sort=True):
        lp_id = lps.get(str(lp))
        if lp_id is None:
            continue
        systems = dict(conn.execute(select(m.systems.c.name, m.systems.c.id).where(m.systems.c.lp_id == lp_id)).all())
        segments = dict(conn.execute(select(m.segments.c.key, m.segments.c.id).where(m.segments.c.lp_id == lp_id)).all())
        sys_ids = rows["system"].astype(str).map(systems)
        seg_ids = rows["segment"].astype(str).map(segments)
        keep = (sys_ids.notna() & seg_ids.notna()).to_numpy()
        yield lp_id, rows[keep], sys_ids[keep].astype(int).to_numpy(), seg_ids[keep].astype(int).to_numpy()


def _write_outputs(conn: Connection, outputs: pd.DataFrame, cid: int, import_id: int) -> None:
    """Store the rated texts of (system, segment) pairs the campaign has no text for yet."""
    for lp_id, rows, system_ids, segment_ids in _stored_rows(conn, cid, outputs):
        new = pd.DataFrame({"import_id": import_id, "lp_id": lp_id, "system_id": system_ids,
                            "segment_id": segment_ids, "source": rows["source"].astype(str).to_numpy(),
                            "target": rows["target"].astype(str).to_numpy()})
        new = new.drop_duplicates(["system_id", "segment_id"])
        if len(new):  # a text stored before (by this or a concurrent import) stays as it is
            conn.execute(insert_ignore(conn, m.expert_outputs), new.to_dict(orient="records"))


def annotation_rows(store: Store, campaign: str, lp: str | None = None, assessment: str | None = None) -> pd.DataFrame:
    """Stored annotations (columns :data:`ANNOTATION_COLUMNS`), in upload order."""
    a, lpt, c, s, sy = m.expert_annotations, m.language_pairs, m.campaigns, m.segments, m.systems
    q = (select(lpt.c.lp, a.c.assessment, sy.c.name, s.c.key, s.c.doc, a.c.rater, a.c.category, a.c.severity,
                a.c.span_start, a.c.span_end, a.c.comment, a.c.line, a.c.context)
         .join(lpt, a.c.lp_id == lpt.c.id).join(c, lpt.c.campaign_id == c.c.id)
         .join(sy, a.c.system_id == sy.c.id).join(s, a.c.segment_id == s.c.id)
         .where(c.c.name == campaign).order_by(a.c.id))
    if lp is not None:
        q = q.where(lpt.c.lp == lp)
    if assessment is not None:
        q = q.where(a.c.assessment == assessment)
    with store.engine.connect() as conn:
        rows = conn.execute(q).all()
    return pd.DataFrame(rows, columns=ANNOTATION_COLUMNS)


def outputs(store: Store, campaign: str, lp: str) -> pd.DataFrame:
    """The rated outputs of an MQM campaign: system, segment, source, target."""
    o, lpt, c, s, sy = m.expert_outputs, m.language_pairs, m.campaigns, m.segments, m.systems
    q = (select(sy.c.name, s.c.key, o.c.source, o.c.target)
         .join(lpt, o.c.lp_id == lpt.c.id).join(c, lpt.c.campaign_id == c.c.id)
         .join(sy, o.c.system_id == sy.c.id).join(s, o.c.segment_id == s.c.id)
         .where(and_(c.c.name == campaign, lpt.c.lp == lp)).order_by(o.c.id))
    with store.engine.connect() as conn:
        return pd.DataFrame(conn.execute(q).all(), columns=["system", "segment", "source", "target"])


def mqm_errors(store: Store, campaign: str, lp: str | None = None) -> pd.DataFrame:
    """Stored MQM annotations in the shape of :func:`leaderboard.ingest.mqm.read_mqm` (for scoring)."""
    ann = annotation_rows(store, campaign, lp, "mqm")
    return pd.DataFrame({"lp": ann["lp"], "system": ann["system"], "context": ann["context"].fillna(""),
                         "doc": ann["doc"], "segment": ann["segment"],
                         "rater": ann["rater"], "category": ann["category"].fillna(""), "severity": ann["severity"],
                         "comment": ann["comment"], "span_start": ann["span_start"], "span_end": ann["span_end"],
                         "_line": ann["line"]})


def expert_summary(store: Store) -> pd.DataFrame:
    """Per campaign, lp and assessment: annotation rows, systems and raters."""
    a, lpt, c = m.expert_annotations, m.language_pairs, m.campaigns
    q = (select(c.c.name, lpt.c.lp, a.c.assessment, func.count(a.c.id), func.count(func.distinct(a.c.system_id)),
                func.count(func.distinct(a.c.rater)))
         .join(lpt, a.c.lp_id == lpt.c.id).join(c, lpt.c.campaign_id == c.c.id)
         .group_by(c.c.name, lpt.c.lp, a.c.assessment).order_by(c.c.name, lpt.c.lp, a.c.assessment))
    with store.engine.connect() as conn:
        rows = conn.execute(q).all()
    return pd.DataFrame(rows, columns=["campaign", "lp", "assessment", "annotations", "systems", "raters"])
