"""Reads and writes of campaigns, judgments, texts, metric submissions, snapshots and users.

Every write method runs in one transaction: on any error nothing is written. Published
snapshots are insert-only; their payload hash is checked on every read.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from typing import Any, Callable

import numpy as np
import pandas as pd
from sqlalchemy import Connection, Engine, and_, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..errors import InputError
from ..naming import check_name
from ..schema import COLUMNS, normalise_dtypes
from . import models as m
from .bulk import insert_frame
from .db import get_engine
from .loader import (campaign_id_for_write, dimension_ids, lp_id_for_write, sqlite_foreign_keys_off, store_judgments,
                     take_write_lock)


def frame_hash(frame: pd.DataFrame) -> str:
    """A stable SHA-256 of a judgments frame's content (row order independent)."""
    canon = frame[list(COLUMNS)].sort_values(list(COLUMNS[:6])).reset_index(drop=True)
    digest = pd.util.hash_pandas_object(canon, index=False).to_numpy()
    return hashlib.sha256(digest.tobytes()).hexdigest()


def payload_hash(payload: str) -> str:
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _artifact_json(value: Any) -> str:
    """JSON text of an artifact (NaN and infinities become null: JSON has neither)."""
    from ..jsonable import to_jsonable
    return json.dumps(to_jsonable(value), sort_keys=True, ensure_ascii=False, allow_nan=False)


class SnapshotIntegrityError(InputError):
    """A published snapshot's stored payload no longer matches its hash."""


class Store:
    """The product's database. ``Store()`` uses ``DATABASE_URL`` or the local SQLite file."""

    def __init__(self, url: str | None = None, engine: Engine | None = None) -> None:
        self.engine = engine or get_engine(url)
        # bulk loads run on the DBAPI cursor, whose errors SQLAlchemy does not wrap
        self.integrity_errors = (IntegrityError, self.engine.dialect.dbapi.IntegrityError)

    # ---- campaigns -----------------------------------------------------------------------
    def campaign_row_id(self, conn: Connection, name: str, create: bool = False) -> int | None:
        if create:
            return campaign_id_for_write(conn, name)
        return conn.execute(select(m.campaigns.c.id).where(m.campaigns.c.name == name)).scalar()

    def create_campaign(self, name: str, description: str = "", segments_are_lines: bool = False) -> int:
        """Create an empty campaign; refuses a name that exists.

        ``segments_are_lines``: the judgments' segment ids are 1-based line numbers of the texts
        that will be stored (off unless the organiser knows it).
        """
        if not name.strip():
            raise InputError("campaign name is empty")
        check_name(name, "campaign name")
        try:
            with self.engine.begin() as conn:
                if self.campaign_row_id(conn, name) is not None:
                    raise InputError(f"campaign {name!r} already exists")
                return conn.execute(insert(m.campaigns).values(
                    name=name, description=description, created_at=m.now(),
                    segments_are_lines=bool(segments_are_lines)).returning(m.campaigns.c.id)).scalar_one()
        except self.integrity_errors:  # created by another process in the meantime
            raise InputError(f"campaign {name!r} already exists") from None

    def campaign_info(self, name: str) -> dict:
        """Name, description, creation time and ``segments_are_lines`` of one campaign."""
        c = m.campaigns
        with self.engine.connect() as conn:
            row = conn.execute(select(c.c.name, c.c.description, c.c.created_at, c.c.segments_are_lines)
                               .where(c.c.name == name)).mappings().first()
        if row is None:
            raise InputError(f"no campaign named {name!r}")
        return dict(row)

    def set_segments_are_lines(self, name: str, value: bool) -> None:
        """Record whether the campaign's segment ids are line numbers of its stored texts."""
        with self.engine.begin() as conn:
            cid = self.campaign_row_id(conn, name)
            if cid is None:
                raise InputError(f"no campaign named {name!r}")
            conn.execute(m.campaigns.update().where(m.campaigns.c.id == cid).values(segments_are_lines=value))

    def campaigns(self) -> pd.DataFrame:
        """One row per campaign and language pair with counts of judgments, systems and workers."""
        j, lp, c = m.judgments, m.language_pairs, m.campaigns
        q = (select(c.c.name.label("campaign"), lp.c.lp, j.c.assessment,
                    func.count(j.c.id).label("judgments"),
                    func.count(func.distinct(j.c.system_id)).label("systems"),
                    func.count(func.distinct(j.c.worker_id)).label("workers"))
             .select_from(c.join(lp, lp.c.campaign_id == c.c.id).join(j, j.c.lp_id == lp.c.id))
             .group_by(c.c.name, lp.c.lp, j.c.assessment).order_by(c.c.name, lp.c.lp, j.c.assessment))
        with self.engine.connect() as conn:
            rows = conn.execute(q).all()
            names = conn.execute(select(c.c.name).order_by(c.c.name)).scalars().all()
        frame = pd.DataFrame(rows, columns=["campaign", "lp", "assessment", "judgments", "systems", "workers"])
        empty = [n for n in names if n not in set(frame["campaign"])]
        if empty:  # campaigns holding only texts (or nothing yet): zero counts, still integers
            frame = pd.concat([frame, pd.DataFrame({"campaign": empty, "judgments": 0, "systems": 0, "workers": 0})],
                              ignore_index=True)
        return frame.astype({"judgments": "int64", "systems": "int64", "workers": "int64"})

    # ---- dimension rows ------------------------------------------------------------------
    def row_ids(self, conn: Connection, table, parent_col: str, parent_id: int, name_col: str,
             names: pd.Series, extra: pd.Series | None = None) -> pd.Series:
        """Ids of ``names`` in a dimension table under one parent, inserting the missing ones race-safely.

        ``extra`` (segments only) gives each new row its document id (the first one given for a name).
        """
        values = names.astype(str)
        codes, uniques = pd.factorize(values)
        docs = None
        if extra is not None:
            first = extra.groupby(codes, sort=True).first()
            docs = np.array([None if pd.isna(first.get(i)) else str(first.get(i)) for i in range(len(uniques))],
                            dtype=object)
        ids = dimension_ids(conn, table, parent_col, name_col, np.full(len(uniques), parent_id, dtype=np.int64),
                            np.asarray(uniques, dtype=object), docs)
        return pd.Series(ids[codes], index=names.index)

    # ---- judgments -------------------------------------------------------------------------
    def load_judgments(self, frame: pd.DataFrame, *, file_name: str, input_format: str,
                       sha256: str | None = None, created_by: str | None = None,
                       progress: Callable[[int], None] | None = None,
                       also: Callable[[Connection, str, int, int], None] | None = None) -> dict[str, Any]:
        """Store a validated judgments frame in one transaction and return what was stored.

        Refuses a file already imported into the same campaign (same SHA-256) and any judgment
        whose key is already stored; in both cases nothing is written. ``also(conn, campaign,
        campaign_id, import_id)`` writes what belongs to the same upload (e.g. ESA error spans,
        :mod:`.expert`) inside the same transaction. Safe to run from several
        processes at once (see :mod:`leaderboard.storage.loader`).
        """
        if frame.empty:
            raise InputError("no judgments to store", file=file_name)
        try:
            with self.engine.connect() as conn:
                # SQLite: per-row foreign-key checks off, the loader checks each parent once (not
                # with ``also``, whose rows the loader does not check)
                with sqlite_foreign_keys_off(conn) if also is None else contextlib.nullcontext(), conn.begin():
                    take_write_lock(conn)
                    return store_judgments(conn, frame, file_name=file_name, input_format=input_format,
                                           sha256=sha256 or frame_hash(frame), created_by=created_by,
                                           progress=progress, also=also)
        except self.integrity_errors as exc:
            raise self._explain_duplicate(frame, file_name) from exc

    def lp_row_id(self, conn: Connection, cid: int, lp: str) -> int:
        return lp_id_for_write(conn, cid, lp)

    def _explain_duplicate(self, frame: pd.DataFrame, file_name: str) -> InputError:
        """Name the first uploaded judgment whose key is already in the store."""
        keys = ["campaign", "lp", "assessment", "worker", "hit", "position"]
        for campaign in frame["campaign"].unique():
            stored = self.judgments(str(campaign))
            if stored.empty:
                continue
            both = frame.reset_index(drop=True).merge(stored[keys], on=keys, how="left", indicator=True)
            hit = np.flatnonzero((both["_merge"] == "both").to_numpy())
            if hit.size:
                row = both.iloc[int(hit[0])]
                return InputError(
                    "judgment already stored (campaign {campaign}, lp {lp}, worker {worker}, hit {hit}, "
                    "position {position}); nothing was written".format(**row[keys].to_dict()),
                    file=file_name, line=None, column="position")
        return InputError("the upload conflicts with stored judgments; nothing was written", file=file_name)

    def judgments(self, campaign: str, lp: str | None = None, assessment: str | None = None) -> pd.DataFrame:
        """The stored judgments of a campaign as a canonical frame (empty when none).

        Judgment rows are fetched with their dimension ids only and the names are attached in
        pandas: joining in SQL and building a million text rows took ~12 s on SQLite, this ~2 s.
        """
        j, lpt, w, s, sy = m.judgments, m.language_pairs, m.workers, m.segments, m.systems
        with self.engine.connect() as conn:
            cid = self.campaign_row_id(conn, campaign)
            if cid is None:
                return normalise_dtypes(pd.DataFrame(columns=list(COLUMNS)))
            lps = dict(conn.execute(select(lpt.c.id, lpt.c.lp).where(lpt.c.campaign_id == cid)).all())
            if lp is not None:
                lps = {k: v for k, v in lps.items() if v == lp}
            if not lps:
                return normalise_dtypes(pd.DataFrame(columns=list(COLUMNS)))
            q = (select(j.c.lp_id, j.c.assessment, j.c.worker_id, j.c.hit, j.c.position, j.c.segment_id,
                        j.c.system_id, j.c.item_type, j.c.raw, j.c.z, j.c.seconds, j.c.doc)
                 .where(j.c.lp_id.in_(list(lps))).order_by(j.c.id))
            if assessment is not None:
                q = q.where(j.c.assessment == assessment)
            rows = self._fetch_raw(conn, q)
            workers = dict(conn.execute(select(w.c.id, w.c.name).where(w.c.campaign_id == cid)).all())
            segs = pd.DataFrame(conn.execute(select(s.c.id, s.c.key, s.c.doc).where(s.c.lp_id.in_(list(lps)))).all(),
                                columns=["id", "key", "doc"]).set_index("id")
            systems = dict(conn.execute(select(sy.c.id, sy.c.name).where(sy.c.lp_id.in_(list(lps)))).all())
        raw = pd.DataFrame(rows, columns=["lp_id", "assessment", "worker_id", "hit", "position", "segment_id",
                                          "system_id", "item_type", "raw", "z", "seconds", "doc"])
        own_doc = raw["doc"]
        frame = pd.DataFrame({
            "campaign": campaign,
            "lp": raw["lp_id"].map(lps),
            "assessment": raw["assessment"],
            "worker": raw["worker_id"].map(workers),
            "hit": raw["hit"],
            "position": raw["position"],
            "segment": raw["segment_id"].map(segs["key"]),
            "system": raw["system_id"].map(systems),
            "item_type": raw["item_type"],
            "raw": raw["raw"], "z": raw["z"], "seconds": raw["seconds"],
            "doc": own_doc.where(own_doc.notna(), raw["segment_id"].map(segs["doc"])),
        })
        return normalise_dtypes(frame)

    @staticmethod
    def _fetch_raw(conn: Connection, query) -> list[tuple]:
        """Run a Core query on the DBAPI cursor: SQLAlchemy's row objects cost ~10 s per 1M rows."""
        compiled = query.compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True})
        params = compiled.params
        if compiled.positional:
            params = tuple(params[name] for name in compiled.positiontup)
        cur = conn.connection.driver_connection.cursor()
        try:
            cur.execute(str(compiled), params)
            return cur.fetchall()
        finally:
            cur.close()

    def imports(self, campaign: str) -> pd.DataFrame:
        """The import log of a campaign."""
        i, c = m.imports, m.campaigns
        with self.engine.connect() as conn:
            rows = conn.execute(select(i.c.id, i.c.kind, i.c.file_name, i.c.input_format, i.c.rows,
                                       i.c.sha256, i.c.created_at, i.c.created_by)
                                .join(c, i.c.campaign_id == c.c.id).where(c.c.name == campaign)
                                .order_by(i.c.id)).all()
        return pd.DataFrame(rows, columns=["id", "kind", "file_name", "input_format", "rows", "sha256",
                                           "created_at", "created_by"])

    # ---- texts (sources, references, system outputs) --------------------------------------
    def load_texts(self, campaign: str, files: list[tuple[str, str, str, list[str], str]], *,
                   created_by: str | None = None) -> int:
        """Store aligned text files in one transaction; ``files`` holds (lp, kind, name, lines, file_name).

        ``kind`` is source | reference | hypothesis; returns the number of lines stored.
        """
        total = 0
        current = ""
        try:
            with self.engine.begin() as conn:
                cid = self.campaign_row_id(conn, campaign, create=True)
                for lp, kind, name, lines, file_name in files:
                    current = file_name
                    if kind not in ("source", "reference", "hypothesis"):
                        raise InputError(f"unknown text kind {kind!r}", file=file_name)
                    if not lines:
                        raise InputError("the file is empty", file=file_name)
                    lp_id = self.lp_row_id(conn, cid, lp)
                    sha = hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()
                    import_id = conn.execute(insert(m.imports).values(
                        campaign_id=cid, kind="texts", file_name=file_name, sha256=sha, input_format=kind,
                        rows=len(lines), created_at=m.now(), created_by=created_by)
                        .returning(m.imports.c.id)).scalar_one()
                    rows = pd.DataFrame({"import_id": import_id, "lp_id": lp_id, "kind": kind, "name": name,
                                         "line": np.arange(1, len(lines) + 1), "text": lines})
                    total += insert_frame(conn, "texts", rows)
        except self.integrity_errors:
            raise InputError(f"these texts are already stored in campaign {campaign!r}; nothing was written",
                             file=current) from None
        return total

    def texts(self, campaign: str, lp: str, kind: str | None = None) -> pd.DataFrame:
        """Stored texts of a language pair: columns kind, name, line, text.

        Includes the language pair's test set (source, references) and its primary submissions
        (hypotheses named by system) where ``mtlb texts`` stored none of that kind and name.
        """
        t, lpt, c = m.texts, m.language_pairs, m.campaigns
        q = (select(t.c.kind, t.c.name, t.c.line, t.c.text)
             .join(lpt, t.c.lp_id == lpt.c.id).join(c, lpt.c.campaign_id == c.c.id)
             .where(and_(c.c.name == campaign, lpt.c.lp == lp)).order_by(t.c.kind, t.c.name, t.c.line))
        if kind:
            q = q.where(t.c.kind == kind)
        with self.engine.connect() as conn:
            stored = pd.DataFrame(conn.execute(q).all(), columns=["kind", "name", "line", "text"])
        from .outputs import OutputStore, merge_texts  # a test set's texts and the primary submissions
        extra = OutputStore(self).campaign_texts(campaign, lp)
        return merge_texts(stored, extra[extra["kind"] == kind] if kind else extra)

    # ---- metric submissions ----------------------------------------------------------------
    def save_metric_submissions(self, campaign: str, scores: pd.DataFrame, *, level: str,
                                higher_is_better: bool = True, owner: str | None = None,
                                public: bool = False) -> list[int]:
        """Store every metric of a validated upload (column ``metric``) in one transaction."""
        if level not in ("system", "segment"):
            raise InputError(f"level must be system or segment, not {level!r}")
        ids = []
        with self.engine.begin() as conn:
            cid = self.campaign_row_id(conn, campaign)
            if cid is None:
                raise InputError(f"no campaign named {campaign!r}")
            for metric, part in scores.groupby("metric", sort=False):
                body = part.assign(segment=part["segment"] if "segment" in part else None)[
                    ["lp", "system", "segment", "score"]].reset_index(drop=True)
                body["segment"] = body["segment"].astype(object).where(body["segment"].notna(), None)
                sha = hashlib.sha256(pd.util.hash_pandas_object(body, index=False).to_numpy().tobytes()).hexdigest()
                sid = conn.execute(insert(m.metric_submissions).values(
                    campaign_id=cid, metric=str(metric), level=level, higher_is_better=higher_is_better,
                    owner=owner, public=public, created_at=m.now(), sha256=sha)
                    .returning(m.metric_submissions.c.id)).scalar_one()
                insert_frame(conn, "metric_scores", body.assign(submission_id=sid)[
                    ["submission_id", "lp", "system", "segment", "score"]])
                ids.append(sid)
        return ids

    def metric_submissions(self, campaign: str, viewer: str | None = None, include_private: bool = False) -> pd.DataFrame:
        """Submissions visible to ``viewer``: public ones, the viewer's own, or all if ``include_private``."""
        s, c = m.metric_submissions, m.campaigns
        q = (select(s.c.id, s.c.metric, s.c.level, s.c.higher_is_better, s.c.owner, s.c.public, s.c.created_at)
             .join(c, s.c.campaign_id == c.c.id).where(c.c.name == campaign).order_by(s.c.id))
        with self.engine.connect() as conn:
            frame = pd.DataFrame(conn.execute(q).all(), columns=["id", "metric", "level", "higher_is_better",
                                                                 "owner", "public", "created_at"])
        if not include_private:
            frame = frame[frame["public"].astype(bool) | (frame["owner"] == viewer)]
        return frame.reset_index(drop=True)

    def metric_scores(self, submission_id: int) -> pd.DataFrame:
        t = m.metric_scores
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.c.lp, t.c.system, t.c.segment, t.c.score)
                                .where(t.c.submission_id == submission_id).order_by(t.c.id)).all()
        return pd.DataFrame(rows, columns=["lp", "system", "segment", "score"])

    def set_submission_public(self, submission_id: int, public: bool, actor: str, actor_role: str) -> None:
        """Publish or hide a submission; only its owner or an organiser may."""
        s = m.metric_submissions
        with self.engine.begin() as conn:
            owner = conn.execute(select(s.c.owner).where(s.c.id == submission_id)).first()
            if owner is None:
                raise InputError(f"no metric submission #{submission_id}")
            if actor_role != "organiser" and owner.owner != actor:
                raise PermissionError("only the submission's owner or an organiser can change its visibility")
            conn.execute(s.update().where(s.c.id == submission_id).values(public=public))

    # ---- published snapshots ---------------------------------------------------------------
    def publish(self, campaign: str, lp: str, assessment: str, ranking: dict, *, data_hash: str,
                publisher: str, note: str = "", artifacts: dict[str, Any] | None = None) -> int:
        """Store ``ranking`` as the next immutable version for (campaign, lp, assessment).

        ``artifacts`` (name → JSON-able value): what the snapshot's pages need, stored in the same
        transaction (see :meth:`snapshot_artifact`).
        """
        return self.publish_all(campaign, [(lp, assessment, ranking, data_hash, artifacts)], publisher=publisher,
                                note=note)[0]

    def publish_all(self, campaign: str, rankings: list[tuple[str, str, dict, str, dict[str, Any] | None]], *,
                    publisher: str, note: str = "") -> list[int]:
        """Store several rankings — ``(lp, assessment, ranking, data_hash, artifacts)`` each — as their next
        versions in ONE transaction: a publish interrupted at any moment leaves none of them, and a rerun
        adds exactly one version of each. The campaign's row is locked first, so concurrent publishes
        number their versions one after another."""
        encoded = []
        for lp, assessment, ranking, data_hash, artifacts in rankings:
            payload = json.dumps(ranking, sort_keys=True, ensure_ascii=False, allow_nan=False)
            encoded.append((lp, assessment, ranking, data_hash, payload,
                            {name: _artifact_json(value) for name, value in (artifacts or {}).items()}))
        snap, c = m.snapshots, m.campaigns
        versions = []
        with self.engine.begin() as conn:
            cid = self.campaign_row_id(conn, campaign)
            if cid is None:
                raise InputError(f"no campaign named {campaign!r}")
            conn.execute(update(c).where(c.c.id == cid).values(name=c.c.name))  # the campaign's write lock
            for lp, assessment, ranking, data_hash, payload, texts in encoded:
                last = conn.execute(select(func.max(snap.c.version)).where(and_(
                    snap.c.campaign_id == cid, snap.c.lp == lp, snap.c.assessment == assessment))).scalar()
                version = (last or 0) + 1
                sid = conn.execute(insert(snap).values(
                    campaign_id=cid, lp=lp, assessment=assessment, version=version,
                    signature=str(ranking.get("signature", "")), data_hash=data_hash, payload=payload,
                    payload_hash=payload_hash(payload), note=note, published_at=m.now(), published_by=publisher)
                    .returning(snap.c.id)).scalar_one()
                if texts:
                    conn.execute(insert(m.snapshot_artifacts), [
                        {"snapshot_id": sid, "name": name, "payload": text, "payload_hash": payload_hash(text),
                         "created_at": m.now()} for name, text in texts.items()])
                versions.append(version)
        return versions

    def _snapshot_id(self, conn: Connection, campaign: str, lp: str, assessment: str, version: int) -> int | None:
        snap, c = m.snapshots, m.campaigns
        return conn.execute(select(snap.c.id).join(c, snap.c.campaign_id == c.c.id).where(and_(
            c.c.name == campaign, snap.c.lp == lp, snap.c.assessment == assessment,
            snap.c.version == int(version)))).scalar()

    def snapshot_artifact(self, campaign: str, lp: str, assessment: str, version: int, name: str) -> Any | None:
        """A stored artifact of a published version (decoded JSON, hash-verified), or None when absent."""
        a = m.snapshot_artifacts
        with self.engine.connect() as conn:
            sid = self._snapshot_id(conn, campaign, lp, assessment, version)
            row = None if sid is None else conn.execute(
                select(a.c.payload, a.c.payload_hash).where(and_(a.c.snapshot_id == sid, a.c.name == name))).first()
        if row is None:
            return None
        if payload_hash(row.payload) != row.payload_hash:
            raise SnapshotIntegrityError(f"snapshot {campaign}/{lp}/{assessment} v{version} fails verification: its "
                                         f"artifact {name} no longer matches the hash stored when it was published "
                                         "(altered since)")
        return json.loads(row.payload)

    def save_snapshot_artifact(self, campaign: str, lp: str, assessment: str, version: int, name: str,
                               value: Any) -> bool:
        """Add an artifact to an already published version (computed later, e.g. for a snapshot published
        before artifacts existed). Insert-only: an existing artifact is kept; returns True when stored."""
        text = _artifact_json(value)
        with self.engine.begin() as conn:
            sid = self._snapshot_id(conn, campaign, lp, assessment, version)
            if sid is None:
                raise InputError(f"nothing published for {campaign} {lp} {assessment} version {version}")
            a = m.snapshot_artifacts
            if conn.execute(select(a.c.id).where(and_(a.c.snapshot_id == sid, a.c.name == name))).first():
                return False
            try:
                with conn.begin_nested():
                    conn.execute(insert(a).values(snapshot_id=sid, name=name, payload=text,
                                                  payload_hash=payload_hash(text), created_at=m.now()))
            except IntegrityError:  # another process stored it first
                return False
        return True

    def snapshots(self, campaign: str | None = None) -> pd.DataFrame:
        """The list of published versions (without payloads)."""
        snap, c = m.snapshots, m.campaigns
        q = (select(c.c.name.label("campaign"), snap.c.lp, snap.c.assessment, snap.c.version, snap.c.signature,
                    snap.c.data_hash, snap.c.published_at, snap.c.published_by, snap.c.note)
             .join(c, snap.c.campaign_id == c.c.id)
             .order_by(c.c.name, snap.c.lp, snap.c.assessment, snap.c.version))
        if campaign:
            q = q.where(c.c.name == campaign)
        with self.engine.connect() as conn:
            return pd.DataFrame(conn.execute(q).all(), columns=[
                "campaign", "lp", "assessment", "version", "signature", "data_hash", "published_at",
                "published_by", "note"])

    def snapshot(self, campaign: str, lp: str, assessment: str, version: int | None = None) -> dict:
        """A published ranking (the latest version unless ``version``), hash-verified."""
        snap, c = m.snapshots, m.campaigns
        q = (select(snap).join(c, snap.c.campaign_id == c.c.id)
             .where(and_(c.c.name == campaign, snap.c.lp == lp, snap.c.assessment == assessment)))
        q = q.where(snap.c.version == version) if version else q.order_by(snap.c.version.desc()).limit(1)
        with self.engine.connect() as conn:
            row = conn.execute(q).mappings().first()
        if row is None:
            raise InputError(f"nothing published for {campaign} {lp} {assessment}"
                             + (f" version {version}" if version else ""))
        if payload_hash(row["payload"]) != row["payload_hash"]:
            raise SnapshotIntegrityError(f"snapshot {campaign}/{lp}/{assessment} v{row['version']} fails verification: "
                                         "its ranking no longer matches the hash stored when it was published "
                                         "(altered since)")
        return {"campaign": campaign, "lp": lp, "assessment": assessment, "version": row["version"],
                "signature": row["signature"], "data_hash": row["data_hash"],
                "published_at": row["published_at"].isoformat() if row["published_at"] else None,
                "published_by": row["published_by"], "note": row["note"],
                "ranking": json.loads(row["payload"])}

    # ---- users -----------------------------------------------------------------------------
    def add_user(self, name: str, password_hash: str, role: str) -> None:
        if role not in ("organiser", "metric-developer"):
            raise InputError(f"unknown role {role!r} (organiser | metric-developer)")
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(m.users).values(name=name, password_hash=password_hash, role=role,
                                                    created_at=m.now()))
        except self.integrity_errors:
            raise InputError(f"user {name!r} already exists") from None

    def remove_user(self, name: str) -> str:
        """Remove an organiser or metric-developer account (its sessions, upload tokens and demo record go
        with it) and return its role; a team's account is refused (removing it would remove the team's
        submissions)."""
        with self.engine.begin() as conn:
            row = conn.execute(select(m.users.c.id, m.users.c.role).where(m.users.c.name == name)).first()
            if row is None:
                raise InputError(f"no user named {name!r}")
            if row.role not in ("organiser", "metric-developer"):
                raise InputError(f"{name!r} is a {row.role} account; only organiser and metric-developer "
                                 "accounts can be removed")
            conn.execute(delete(m.users).where(m.users.c.id == row.id))
        return row.role

    def add_upload_token(self, name: str, token_hash: str, label: str = "") -> None:
        """Store the hash of a new upload token for user ``name``."""
        with self.engine.begin() as conn:
            uid = conn.execute(select(m.users.c.id).where(m.users.c.name == name)).scalar()
            if uid is None:
                raise InputError(f"no user named {name!r}")
            conn.execute(insert(m.upload_tokens).values(user_id=uid, token_hash=token_hash, label=label,
                                                        created_at=m.now()))

    def token_user(self, token_hash: str) -> dict | None:
        """The user (name, role) owning a live upload token with this hash, else None."""
        t, u = m.upload_tokens, m.users
        with self.engine.connect() as conn:
            row = conn.execute(select(u.c.name, u.c.role).join(t, t.c.user_id == u.c.id)
                               .where(and_(t.c.token_hash == token_hash, t.c.revoked.is_(False)))).mappings().first()
        return dict(row) if row else None

    def revoke_upload_tokens(self, name: str) -> int:
        """Revoke every token of user ``name``; returns how many were live."""
        t, u = m.upload_tokens, m.users
        with self.engine.begin() as conn:
            ids = select(u.c.id).where(u.c.name == name).scalar_subquery()
            return conn.execute(t.update().where(and_(t.c.user_id == ids, t.c.revoked.is_(False)))
                                .values(revoked=True)).rowcount

    def user(self, name: str) -> dict | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(m.users).where(m.users.c.name == name)).mappings().first()
        return dict(row) if row else None

    def users(self) -> pd.DataFrame:
        """Names, roles and creation times of every account (by name), and whether it is a demo account
        (made for a demo store, its password shown on that store's Log in page)."""
        from . import demo_accounts
        with self.engine.connect() as conn:
            rows = conn.execute(select(m.users.c.name, m.users.c.role, m.users.c.created_at)
                                .order_by(m.users.c.name)).all()
        users = pd.DataFrame(rows, columns=["name", "role", "created_at"])
        users["demo"] = users["name"].isin(demo_accounts.names(self.engine))
        return users
