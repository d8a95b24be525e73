"""Reads and writes of the submissions stage: test sets, teams, submissions and their lines.

Every write runs in one transaction (nothing is written when a check fails). A team is an account
of the ``users`` table with role ``team`` and no usable password (teams sign in with tokens from
``upload_tokens``), plus a ``teams`` row with contact, institution, description and verification.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Mapping, Protocol, Sequence

import numpy as np
import pandas as pd
from sqlalchemy import Engine, Integer, and_, func, insert, select, update

from ..errors import InputError
from ..naming import unsafe_char
from . import models as m
from .bulk import insert_frame
from .loader import campaign_id_for_write, lp_id_for_write

TEAM_ROLE = "team"
#: The password hash of team accounts: not an argon2 hash, so no password ever verifies against it.
NO_PASSWORD = "!token-sign-in-only"


def as_utc(value: datetime | None) -> datetime | None:
    """Datetimes read back from SQLite are naive: they were written in UTC."""
    if value is None or pd.isna(value):
        return None
    if isinstance(value, pd.Timestamp):
        value = value.to_pydatetime()
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


def _json(text: str | None) -> dict:
    return json.loads(text) if text else {}


def lock_testset(conn, testset_id: int) -> None:
    """Hold the test set's write lock until the transaction ends.

    Every write that checks a rule of the test set (the submission limit, one owner per system name,
    one primary per team) takes it first, so concurrent writers of one test set run one after another
    and each sees what the previous one committed. A no-op update is the lock: on PostgreSQL it locks
    the row; on SQLite it takes the database's write lock before the checks read anything.
    """
    t = m.testsets
    conn.execute(update(t).where(t.c.id == testset_id).values(max_submissions=t.c.max_submissions))


class HasEngine(Protocol):
    """What :class:`OutputStore` needs of a store: its engine (a :class:`~leaderboard.storage.store.Store`)."""
    engine: Engine


class OutputStore:
    """The submissions stage's view of a :class:`~leaderboard.storage.store.Store` (same engine, same
    transaction rules)."""

    def __init__(self, store: HasEngine) -> None:
        self.engine = store.engine

    # ---- test sets --------------------------------------------------------------------------
    def add_testset(self, campaign: str, lp: str, *, name: str, source: Sequence[str],
                    references: Mapping[str, Sequence[str]], docs: Sequence[str] | None = None,
                    starts_at: datetime | None = None, deadline: datetime | None = None,
                    public_before_deadline: bool = True, max_submissions: int = 20,
                    created_by: str | None = None, bleu_tokenize: str | None = None) -> int:
        """Store a test set (the campaign and language pair are created when missing); returns its id.

        ``bleu_tokenize``: sacrebleu's BLEU tokeniser for the test set (None: by target language)."""
        n = len(source)
        with self.engine.begin() as conn:
            cid = campaign_id_for_write(conn, campaign)
            lp_id = lp_id_for_write(conn, cid, lp)
            if conn.execute(select(m.testsets.c.id).where(m.testsets.c.lp_id == lp_id)).first() is not None:
                raise InputError(f"campaign {campaign!r} already has a test set for {lp}")
            tid = conn.execute(insert(m.testsets).values(
                lp_id=lp_id, name=name, segments=n, starts_at=starts_at, deadline=deadline,
                public_before_deadline=public_before_deadline, max_submissions=max_submissions,
                created_at=m.now(), created_by=created_by, bleu_tokenize=bleu_tokenize)
                .returning(m.testsets.c.id)).scalar_one()
            rows = pd.DataFrame({"testset_id": tid, "kind": "source", "name": "source",
                                 "line": np.arange(1, n + 1), "text": list(source),
                                 "doc": list(docs) if docs is not None else None})
            insert_frame(conn, "testset_texts", rows)
            self._insert_references(conn, tid, references)
        return tid

    @staticmethod
    def _insert_references(conn, tid: int, references: Mapping[str, Sequence[str]]) -> None:
        for label, lines in references.items():
            insert_frame(conn, "testset_texts", pd.DataFrame({
                "testset_id": tid, "kind": "reference", "name": label, "line": np.arange(1, len(lines) + 1),
                "text": list(lines), "doc": None}))

    def add_references(self, testset_id: int, references: Mapping[str, Sequence[str]],
                       rescored: Mapping[int, dict] | None = None) -> None:
        """Add references to a test set and store the submissions' new scores, in one transaction."""
        with self.engine.begin() as conn:
            existing = set(conn.execute(select(m.testset_texts.c.name).distinct().where(and_(
                m.testset_texts.c.testset_id == testset_id, m.testset_texts.c.kind == "reference"))).scalars())
            clash = sorted(existing & set(references))
            if clash:
                raise InputError(f"the test set already has a reference named {clash[0]!r}")
            self._insert_references(conn, testset_id, references)
            for sid, scored in (rescored or {}).items():
                self._write_scores(conn, sid, scored)

    @staticmethod
    def _write_scores(conn, sid: int, scored: Mapping[str, Any]) -> None:
        scores = dict(scored.get("scores") or {})
        conn.execute(update(m.submissions).where(m.submissions.c.id == sid).values(
            bleu=scores.get("bleu"), chrf=scores.get("chrf"), scores=json.dumps(scores),
            signatures=json.dumps(dict(scored.get("signatures") or {})), stats=scored.get("stats")))

    UPDATABLE = frozenset({"starts_at", "deadline", "public_before_deadline", "max_submissions"})

    def update_testset(self, testset_id: int, **values: Any) -> None:
        """Change the deadline, start, visibility or submission limit of a test set."""
        unknown = set(values) - self.UPDATABLE
        if unknown:
            raise ValueError(f"cannot change {', '.join(sorted(unknown))}")
        if values:
            with self.engine.begin() as conn:
                conn.execute(update(m.testsets).where(m.testsets.c.id == testset_id).values(**values))

    def _testset_query(self):
        t, lpt, c = m.testsets, m.language_pairs, m.campaigns
        return (select(t.c.id, c.c.name.label("campaign"), lpt.c.lp, t.c.name, t.c.segments, t.c.starts_at,
                       t.c.deadline, t.c.public_before_deadline, t.c.max_submissions, t.c.created_at,
                       t.c.created_by, t.c.bleu_tokenize)
                .join(lpt, t.c.lp_id == lpt.c.id).join(c, lpt.c.campaign_id == c.c.id))

    @staticmethod
    def _testset_row(row) -> dict:
        out = dict(row)
        for key in ("starts_at", "deadline", "created_at"):
            out[key] = as_utc(out[key])
        out["public_before_deadline"] = bool(out["public_before_deadline"])
        return out

    def testset(self, campaign: str, lp: str) -> dict:
        """The test set of (campaign, lp) with its reference labels; InputError when there is none."""
        q = self._testset_query().where(and_(m.campaigns.c.name == campaign, m.language_pairs.c.lp == lp))
        with self.engine.connect() as conn:
            row = conn.execute(q).mappings().first()
            if row is None:
                raise InputError(f"campaign {campaign!r} has no test set for {lp}", code="no_testset",
                                 value=(campaign, lp))
            refs = conn.execute(select(m.testset_texts.c.name).distinct().where(and_(
                m.testset_texts.c.testset_id == row["id"], m.testset_texts.c.kind == "reference"))
                .order_by(m.testset_texts.c.name)).scalars().all()
        return {**self._testset_row(row), "references": list(refs)}

    def testsets(self, campaign: str | None = None) -> pd.DataFrame:
        """Every test set (one row per campaign and language pair) with its submission count."""
        q = self._testset_query().order_by(m.campaigns.c.name, m.language_pairs.c.lp)
        if campaign:
            q = q.where(m.campaigns.c.name == campaign)
        counts = select(m.submissions.c.testset_id, func.count(m.submissions.c.id)).group_by(m.submissions.c.testset_id)
        with self.engine.connect() as conn:
            rows = [self._testset_row(r) for r in conn.execute(q).mappings()]
            n = dict(conn.execute(counts).all())
        frame = pd.DataFrame(rows, columns=["id", "campaign", "lp", "name", "segments", "starts_at", "deadline",
                                            "public_before_deadline", "max_submissions", "created_at", "created_by",
                                            "bleu_tokenize"])
        frame["bleu_tokenize"] = pd.Series([r["bleu_tokenize"] for r in rows], index=frame.index, dtype=object)
        frame["submissions"] = frame["id"].map(lambda i: int(n.get(i, 0))).astype(int)
        return frame

    def testset_texts(self, testset_id: int) -> tuple[list[str], dict[str, list[str]], list[str | None]]:
        """(source lines, {reference label: lines}, document id per line)."""
        tt = m.testset_texts
        with self.engine.connect() as conn:
            rows = conn.execute(select(tt.c.kind, tt.c.name, tt.c.line, tt.c.text, tt.c.doc)
                                .where(tt.c.testset_id == testset_id).order_by(tt.c.kind, tt.c.name, tt.c.line)).all()
        source = [r.text for r in rows if r.kind == "source"]
        docs = [r.doc for r in rows if r.kind == "source"]
        refs: dict[str, list[str]] = {}
        for r in rows:
            if r.kind == "reference":
                refs.setdefault(r.name, []).append(r.text)
        return source, refs, docs

    # ---- teams ------------------------------------------------------------------------------
    def add_team(self, name: str, *, contact: str = "", institution: str = "", description: str = "",
                 verified: bool = False, verified_by: str | None = None) -> int:
        """Create a team (its account and its row) in one transaction; returns the team id."""
        if not name.strip() or name != name.strip():
            raise InputError("a team name must be non-empty with no surrounding spaces", column="name")
        if len(name) > 200 or any(ord(ch) < 32 or ch in "/\\\x7f" for ch in name) or unsafe_char(name):
            raise InputError("a team name has at most 200 characters, no slashes and no control or text-direction characters "
                             "(it is also the default system name)", column="name")
        with self.engine.begin() as conn:
            taken = conn.execute(select(m.users.c.role).where(m.users.c.name == name)).first()
            if taken is not None:
                raise InputError(f"the name {name!r} is taken (by a {taken.role.replace('-', ' ')} account)",
                                 column="name")
            uid = conn.execute(insert(m.users).values(name=name, password_hash=NO_PASSWORD, role=TEAM_ROLE,
                                                      created_at=m.now()).returning(m.users.c.id)).scalar_one()
            now = m.now()
            return conn.execute(insert(m.teams).values(
                user_id=uid, contact=contact, institution=institution, description=description,
                verified=verified, verified_by=verified_by if verified else None,
                verified_at=now if verified else None, created_at=now).returning(m.teams.c.id)).scalar_one()

    def _team_query(self):
        t, u = m.teams, m.users
        return (select(t.c.id, u.c.name, t.c.contact, t.c.institution, t.c.description, t.c.verified,
                       t.c.verified_by, t.c.verified_at, t.c.created_at).join(u, t.c.user_id == u.c.id))

    @staticmethod
    def _team_row(row) -> dict:
        out = dict(row)
        out["verified"] = bool(out["verified"])
        out["verified_at"], out["created_at"] = as_utc(out["verified_at"]), as_utc(out["created_at"])
        return out

    def team(self, name: str) -> dict | None:
        with self.engine.connect() as conn:
            row = conn.execute(self._team_query().where(m.users.c.name == name)).mappings().first()
        return self._team_row(row) if row else None

    def teams(self) -> pd.DataFrame:
        with self.engine.connect() as conn:
            rows = [self._team_row(r) for r in conn.execute(self._team_query().order_by(m.users.c.name)).mappings()]
        return pd.DataFrame(rows, columns=["id", "name", "contact", "institution", "description", "verified",
                                           "verified_by", "verified_at", "created_at"])

    def set_verified(self, name: str, verified: bool, by: str | None) -> None:
        team = self.team(name)
        if team is None:
            raise InputError(f"no team named {name!r}")
        with self.engine.begin() as conn:
            conn.execute(update(m.teams).where(m.teams.c.id == team["id"]).values(
                verified=verified, verified_by=by if verified else None, verified_at=m.now() if verified else None))

    # ---- submissions ------------------------------------------------------------------------
    def add_submission(self, testset_id: int, team_id: int, *, system: str, file_name: str, sha256: str,
                       lines: Sequence[str], scored: Mapping[str, Any] | None, flags: Mapping[str, Any],
                       limit: int, created_by: str | None = None, constrained: bool | None = None,
                       open_source: bool | None = None, primary: bool = False) -> int:
        """Store a validated submission and its lines; refuses it when the team reached ``limit``."""
        s = m.submissions
        scored = scored or {}
        scores = dict(scored.get("scores") or {})
        with self.engine.begin() as conn:
            lock_testset(conn, testset_id)
            count = conn.execute(select(func.count(s.c.id)).where(and_(
                s.c.testset_id == testset_id, s.c.team_id == team_id))).scalar_one()
            if count >= limit:
                raise InputError(f"the team has {count} submissions for this test set; the limit is {limit}",
                                 file=file_name)
            other = conn.execute(select(m.users.c.name).select_from(s.join(m.teams, s.c.team_id == m.teams.c.id)
                                                                    .join(m.users, m.teams.c.user_id == m.users.c.id))
                                 .where(and_(s.c.testset_id == testset_id, s.c.system == system,
                                             s.c.team_id != team_id))).first()
            if other is not None:
                raise InputError(f"the system name {system!r} is used by team {other.name!r}; choose another",
                                 file=file_name, column="system")
            sid = conn.execute(insert(s).values(
                testset_id=testset_id, team_id=team_id, system=system, file_name=file_name, sha256=sha256,
                created_at=m.now(), created_by=created_by, is_primary=False, withdrawn=False,
                constrained=constrained, open_source=open_source, bleu=scores.get("bleu"),
                chrf=scores.get("chrf"), scores=json.dumps(scores),
                signatures=json.dumps(dict(scored.get("signatures") or {})), flags=json.dumps(dict(flags)),
                stats=scored.get("stats")).returning(s.c.id)).scalar_one()
            insert_frame(conn, "submission_lines", pd.DataFrame({
                "submission_id": sid, "line": np.arange(1, len(lines) + 1), "text": list(lines)}))
            if primary:
                self._set_primary(conn, sid, True)
        return sid

    def count_submissions(self, testset_id: int, team_id: int) -> int:
        s = m.submissions
        with self.engine.connect() as conn:
            return conn.execute(select(func.count(s.c.id)).where(and_(
                s.c.testset_id == testset_id, s.c.team_id == team_id))).scalar_one()

    def _submission_query(self):
        s, t, u, ts, lpt, c = m.submissions, m.teams, m.users, m.testsets, m.language_pairs, m.campaigns
        return (select(s.c.id, c.c.name.label("campaign"), lpt.c.lp, u.c.name.label("team"), s.c.system,
                       s.c.file_name, s.c.sha256, s.c.created_at, s.c.created_by, s.c.is_primary.label("primary"),
                       s.c.withdrawn, s.c.constrained, s.c.open_source, s.c.bleu, s.c.chrf, s.c.scores,
                       s.c.signatures, s.c.flags, s.c.testset_id)
                .join(t, s.c.team_id == t.c.id).join(u, t.c.user_id == u.c.id)
                .join(ts, s.c.testset_id == ts.c.id).join(lpt, ts.c.lp_id == lpt.c.id)
                .join(c, lpt.c.campaign_id == c.c.id))

    @staticmethod
    def _submission_row(row) -> dict:
        out = dict(row)
        out["created_at"] = as_utc(out["created_at"])
        out["primary"], out["withdrawn"] = bool(out["primary"]), bool(out["withdrawn"])
        for key in ("scores", "signatures", "flags"):
            out[key] = _json(out[key])
        return out

    SUBMISSION_COLUMNS = ["id", "campaign", "lp", "team", "system", "file_name", "sha256", "created_at",
                          "created_by", "primary", "withdrawn", "constrained", "open_source", "bleu", "chrf",
                          "scores", "signatures", "flags", "testset_id"]

    def submissions(self, campaign: str | None = None, lp: str | None = None, team: str | None = None,
                    include_withdrawn: bool = True) -> pd.DataFrame:
        """Submissions (newest last) with scores; filters by campaign, language pair and team."""
        q = self._submission_query().order_by(m.submissions.c.id)
        if campaign:
            q = q.where(m.campaigns.c.name == campaign)
        if lp:
            q = q.where(m.language_pairs.c.lp == lp)
        if team:
            q = q.where(m.users.c.name == team)
        if not include_withdrawn:
            q = q.where(m.submissions.c.withdrawn.is_(False))
        with self.engine.connect() as conn:
            rows = [self._submission_row(r) for r in conn.execute(q).mappings()]
        return pd.DataFrame(rows, columns=self.SUBMISSION_COLUMNS)

    def submission(self, sid: int) -> dict:
        with self.engine.connect() as conn:
            row = conn.execute(self._submission_query().where(m.submissions.c.id == sid)).mappings().first()
        if row is None:
            raise InputError(f"no submission #{sid}")
        return self._submission_row(row)

    def submission_lines(self, sid: int) -> list[str]:
        sl = m.submission_lines
        with self.engine.connect() as conn:
            return list(conn.execute(select(sl.c.text).where(sl.c.submission_id == sid).order_by(sl.c.line)).scalars())

    def submission_stats(self, ids: Sequence[int]) -> dict[int, bytes | None]:
        s = m.submissions
        with self.engine.connect() as conn:
            return dict(conn.execute(select(s.c.id, s.c.stats).where(s.c.id.in_([int(i) for i in ids]))).all())

    def set_bleu_tokenize(self, testset_id: int, bleu_tokenize: str | None, rescored: Mapping[int, dict],
                          **values: Any) -> None:
        """Change a test set's BLEU tokeniser (and any of :meth:`update_testset`'s ``values``) and store
        its submissions' new scores, in one transaction."""
        unknown = set(values) - self.UPDATABLE
        if unknown:
            raise ValueError(f"cannot change {', '.join(sorted(unknown))}")
        with self.engine.begin() as conn:
            conn.execute(update(m.testsets).where(m.testsets.c.id == testset_id)
                         .values(bleu_tokenize=bleu_tokenize, **values))
            for sid, scored in rescored.items():
                self._write_scores(conn, sid, scored)

    @staticmethod
    def _set_primary(conn, sid: int, primary: bool) -> None:
        s = m.submissions
        where = select(s.c.testset_id).where(s.c.id == sid)
        found = conn.execute(where).scalar()
        if found is None:
            raise InputError(f"no submission #{sid}")
        lock_testset(conn, found)  # read again under the lock: another writer may have changed it
        row = conn.execute(select(s.c.testset_id, s.c.team_id, s.c.withdrawn).where(s.c.id == sid)).first()
        if primary:
            if row.withdrawn:
                raise InputError(f"submission #{sid} is withdrawn; it cannot be primary")
            # one primary per team and test set: the new one replaces the old
            conn.execute(update(s).where(and_(s.c.testset_id == row.testset_id, s.c.team_id == row.team_id))
                         .values(is_primary=False))
        conn.execute(update(s).where(s.c.id == sid).values(is_primary=primary))

    def set_primary(self, sid: int, primary: bool = True) -> None:
        with self.engine.begin() as conn:
            self._set_primary(conn, sid, primary)

    def withdraw(self, sid: int) -> None:
        s = m.submissions
        with self.engine.begin() as conn:
            testset_id = conn.execute(select(s.c.testset_id).where(s.c.id == sid)).scalar()
            if testset_id is not None:
                lock_testset(conn, testset_id)
            if conn.execute(select(s.c.id).where(s.c.id == sid)).first() is None:
                raise InputError(f"no submission #{sid}")
            conn.execute(update(s).where(s.c.id == sid).values(withdrawn=True, is_primary=False))

    def primary_outputs(self, campaign: str, lp: str) -> dict[str, list[str]]:
        """System name → output lines of every live primary submission of (campaign, lp)."""
        subs = self.submissions(campaign, lp, include_withdrawn=False)
        subs = subs[subs["primary"]]
        return {str(r.system): self.submission_lines(int(r.id)) for r in subs.itertuples()}

    def revision(self, campaign: str) -> str:
        """Changes whenever a test set, submission, primary flag or withdrawal of ``campaign`` changes."""
        s, ts, lpt, c = m.submissions, m.testsets, m.language_pairs, m.campaigns
        with self.engine.connect() as conn:
            row = conn.execute(
                select(func.count(s.c.id), func.max(s.c.id),
                       func.sum(s.c.id * s.c.is_primary.cast(Integer)),
                       func.sum(s.c.id * s.c.withdrawn.cast(Integer)))
                .select_from(s.join(ts, s.c.testset_id == ts.c.id).join(lpt, ts.c.lp_id == lpt.c.id)
                             .join(c, lpt.c.campaign_id == c.c.id)).where(c.c.name == campaign)).first()
            sets = conn.execute(select(func.count(ts.c.id), func.max(ts.c.id))
                                .select_from(ts.join(lpt, ts.c.lp_id == lpt.c.id).join(c, lpt.c.campaign_id == c.c.id))
                                .where(c.c.name == campaign)).first()
        return "-".join(str(v or 0) for v in (*row, *sets))

    # ---- the campaign's texts ----------------------------------------------------------------
    def campaign_texts(self, campaign: str, lp: str) -> pd.DataFrame:
        """The test set's source and references and the primary submissions as texts rows
        (kind, name, line, text), the shape of :meth:`Store.texts`."""
        try:
            ts = self.testset(campaign, lp)
        except InputError:
            return pd.DataFrame(columns=["kind", "name", "line", "text"])
        source, refs, _ = self.testset_texts(ts["id"])
        parts = [pd.DataFrame({"kind": "source", "name": "source", "line": range(1, len(source) + 1),
                               "text": source})]
        parts += [pd.DataFrame({"kind": "reference", "name": name, "line": range(1, len(lines) + 1), "text": lines})
                  for name, lines in refs.items()]
        parts += [pd.DataFrame({"kind": "hypothesis", "name": system, "line": range(1, len(lines) + 1),
                                "text": lines}) for system, lines in self.primary_outputs(campaign, lp).items()]
        return pd.concat(parts, ignore_index=True)


def merge_texts(stored: pd.DataFrame, extra: pd.DataFrame) -> pd.DataFrame:
    """Texts loaded with ``mtlb texts`` plus the submissions stage's.

    Stored sources and references win as a whole (a test set loaded with ``mtlb texts`` is not
    mixed with another's references); stored system outputs win by name.
    """
    if extra.empty:
        return stored
    have = set(zip(stored["kind"], stored["name"]))
    kinds = set(stored["kind"])
    keep = extra[[(k, n) not in have and (k == "hypothesis" or k not in kinds)
                  for k, n in zip(extra["kind"], extra["name"])]]
    if keep.empty:
        return stored
    merged = pd.concat([stored, keep], ignore_index=True) if not stored.empty else keep.reset_index(drop=True)
    return merged.sort_values(["kind", "name", "line"], kind="stable").reset_index(drop=True)
