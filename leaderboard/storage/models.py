"""Table definitions of the store (SQLAlchemy Core). Migrations in ``migrations/`` create them.

Judgments are normalised: systems, segments and workers are per (campaign, lp) dimension rows
and judgments reference them by id, so a million judgments stay small and joins stay cheap.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import (
    Boolean, Column, DateTime, Float, ForeignKey, Index, Integer, LargeBinary, MetaData, String, Table, Text,
    UniqueConstraint, false, true,
)


def now() -> datetime:
    """The time the ``DateTime(timezone=True)`` columns are written with: aware, in UTC."""
    return datetime.now(timezone.utc)


metadata = MetaData(naming_convention={
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
})

campaigns = Table(
    "campaigns", metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(200), nullable=False, unique=True),
    Column("description", Text, nullable=False, default=""),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # True when judgment segment ids are 1-based line numbers of the stored test-set texts; off
    # unless an organiser says so (or verifies it): a wrong True pairs texts with the wrong scores
    Column("segments_are_lines", Boolean, nullable=False, server_default=false()),
)

# organisers' marking of human translations per campaign and system name (all language pairs);
# a system without a row is a human translation when WMT naming says so (leaderboard.naming.is_human)
system_marks = Table(
    "system_marks", metadata,
    Column("id", Integer, primary_key=True),
    Column("campaign_id", ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False),
    Column("system", String(200), nullable=False),
    Column("human", Boolean, nullable=False),
    Column("set_by", String(200), nullable=False),
    Column("set_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("campaign_id", "system", name="uq_system_marks_key"),
)

language_pairs = Table(
    "language_pairs", metadata,
    Column("id", Integer, primary_key=True),
    Column("campaign_id", ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False),
    Column("lp", String(40), nullable=False),
    UniqueConstraint("campaign_id", "lp"),
)

systems = Table(
    "systems", metadata,
    Column("id", Integer, primary_key=True),
    Column("lp_id", ForeignKey("language_pairs.id", ondelete="CASCADE"), nullable=False),
    Column("name", String(200), nullable=False),
    UniqueConstraint("lp_id", "name"),
)

segments = Table(
    "segments", metadata,
    Column("id", Integer, primary_key=True),
    Column("lp_id", ForeignKey("language_pairs.id", ondelete="CASCADE"), nullable=False),
    Column("key", String(200), nullable=False),
    Column("doc", String(200)),
    UniqueConstraint("lp_id", "key"),
)

workers = Table(
    "workers", metadata,
    Column("id", Integer, primary_key=True),
    Column("campaign_id", ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False),
    Column("name", String(200), nullable=False),
    UniqueConstraint("campaign_id", "name"),
)

imports = Table(
    "imports", metadata,
    Column("id", Integer, primary_key=True),
    Column("campaign_id", ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False),
    Column("kind", String(40), nullable=False),  # judgments | texts | metric
    Column("file_name", String(500), nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("input_format", String(40), nullable=False),
    Column("rows", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("created_by", String(200)),
)

judgments = Table(
    "judgments", metadata,
    Column("id", Integer, primary_key=True),
    Column("import_id", ForeignKey("imports.id", ondelete="CASCADE"), nullable=False),
    Column("lp_id", ForeignKey("language_pairs.id", ondelete="CASCADE"), nullable=False),
    Column("assessment", String(40), nullable=False),
    Column("worker_id", ForeignKey("workers.id", ondelete="CASCADE"), nullable=False),
    Column("hit", String(200), nullable=False),
    Column("position", Integer, nullable=False),
    Column("segment_id", ForeignKey("segments.id", ondelete="CASCADE"), nullable=False),
    Column("system_id", ForeignKey("systems.id", ondelete="CASCADE"), nullable=False),
    Column("item_type", String(10), nullable=False),
    Column("raw", Float),
    Column("z", Float),
    Column("seconds", Float),
    # the judgment's own document id where it differs from its segment's (NULL: the segment's), e.g. the
    # Appraise assignment marks doc#incomplete / doc#dup that the WMT24 ranking leaves out
    Column("doc", String(200)),
    UniqueConstraint("lp_id", "assessment", "worker_id", "hit", "position", name="uq_judgments_key"),
)
Index("ix_judgments_lp_system", judgments.c.lp_id, judgments.c.system_id)

texts = Table(
    "texts", metadata,
    Column("id", Integer, primary_key=True),
    Column("import_id", ForeignKey("imports.id", ondelete="CASCADE"), nullable=False),
    Column("lp_id", ForeignKey("language_pairs.id", ondelete="CASCADE"), nullable=False),
    Column("kind", String(20), nullable=False),  # source | reference | hypothesis
    Column("name", String(200), nullable=False),  # system name or reference label
    Column("line", Integer, nullable=False),  # 1-based line in the aligned test set
    Column("text", Text, nullable=False),
    UniqueConstraint("lp_id", "kind", "name", "line", name="uq_texts_key"),
)

metric_submissions = Table(
    "metric_submissions", metadata,
    Column("id", Integer, primary_key=True),
    Column("campaign_id", ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False),
    Column("metric", String(200), nullable=False),
    Column("level", String(10), nullable=False),  # system | segment
    Column("higher_is_better", Boolean, nullable=False, default=True),
    Column("owner", String(200)),
    Column("public", Boolean, nullable=False, default=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("sha256", String(64), nullable=False),
)

metric_scores = Table(
    "metric_scores", metadata,
    Column("id", Integer, primary_key=True),
    Column("submission_id", ForeignKey("metric_submissions.id", ondelete="CASCADE"), nullable=False),
    Column("lp", String(40), nullable=False),
    Column("system", String(200), nullable=False),
    Column("segment", String(200)),
    Column("score", Float, nullable=False),
)
Index("ix_metric_scores_submission", metric_scores.c.submission_id)

snapshots = Table(
    "snapshots", metadata,
    Column("id", Integer, primary_key=True),
    Column("campaign_id", ForeignKey("campaigns.id", ondelete="RESTRICT"), nullable=False),
    Column("lp", String(40), nullable=False),
    Column("assessment", String(40), nullable=False),
    Column("version", Integer, nullable=False),
    Column("signature", Text, nullable=False),
    Column("data_hash", String(64), nullable=False),
    Column("payload", Text, nullable=False),  # the ranking JSON exactly as published
    Column("payload_hash", String(64), nullable=False),
    Column("note", Text, nullable=False, default=""),
    Column("published_at", DateTime(timezone=True), nullable=False),
    Column("published_by", String(200), nullable=False),
    UniqueConstraint("campaign_id", "lp", "assessment", "version", name="uq_snapshots_version"),
)

# derived data of a snapshot that its pages show (metric baselines, per-segment scores, QC figures):
# computed at publish time in the snapshot's transaction, or later for older snapshots; never changed
snapshot_artifacts = Table(
    "snapshot_artifacts", metadata,
    Column("id", Integer, primary_key=True),
    Column("snapshot_id", ForeignKey("snapshots.id", ondelete="CASCADE"), nullable=False),
    Column("name", String(80), nullable=False),
    Column("payload", Text, nullable=False),  # JSON
    Column("payload_hash", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("snapshot_id", "name", name="uq_snapshot_artifacts_name"),
)

upload_tokens = Table(
    "upload_tokens", metadata,
    Column("id", Integer, primary_key=True),
    Column("user_id", ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),  # SHA-256 of the token; never the token
    Column("label", String(200), nullable=False, default=""),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("revoked", Boolean, nullable=False, server_default=false()),
)

users = Table(
    "users", metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(200), nullable=False, unique=True),
    Column("password_hash", String(300), nullable=False),
    Column("role", String(40), nullable=False),  # organiser | metric-developer
    Column("created_at", DateTime(timezone=True), nullable=False),
)

# the accounts `mtlb demo` made for a demo store, with their generated passwords: shown by `mtlb demo`
# and on the Log in page of that store, and nowhere else (they exist in no other store)
demo_accounts = Table(
    "demo_accounts", metadata,
    Column("id", Integer, primary_key=True),
    Column("user_id", ForeignKey("users.id", ondelete="CASCADE"), nullable=False, unique=True),
    Column("password", String(200), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

login_throttle = Table(
    "login_throttle", metadata,
    Column("id", Integer, primary_key=True),
    Column("key", String(300), nullable=False, unique=True),  # "user:<name>" or "client:<address>"
    Column("failures", Text, nullable=False),  # JSON list of recent failure times (seconds since epoch)
    Column("locked_until", Float, nullable=False),
    Column("locks", Integer, nullable=False),  # locks so far: each one doubles the next
)

# ---- submissions stage (leaderboard/outputs): test sets, teams, participants' system outputs ----

testsets = Table(
    "testsets", metadata,
    Column("id", Integer, primary_key=True),
    Column("lp_id", ForeignKey("language_pairs.id", ondelete="CASCADE"), nullable=False, unique=True),
    Column("name", String(200), nullable=False),  # e.g. generaltest2022
    Column("segments", Integer, nullable=False),
    Column("starts_at", DateTime(timezone=True)),
    Column("deadline", DateTime(timezone=True)),
    # False: the automatic leaderboard stays hidden from participants until the deadline
    Column("public_before_deadline", Boolean, nullable=False, server_default=true()),
    Column("max_submissions", Integer, nullable=False, server_default="20"),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("created_by", String(200)),
    # sacrebleu's BLEU tokeniser for this test set; NULL: the target language's (leaderboard.languages)
    Column("bleu_tokenize", String(40)),
)

testset_texts = Table(
    "testset_texts", metadata,
    Column("id", Integer, primary_key=True),
    Column("testset_id", ForeignKey("testsets.id", ondelete="CASCADE"), nullable=False),
    Column("kind", String(20), nullable=False),  # source | reference
    Column("name", String(200), nullable=False),  # reference label; "source" for the source
    Column("line", Integer, nullable=False),  # 1-based
    Column("text", Text, nullable=False),
    Column("doc", String(200)),
    UniqueConstraint("testset_id", "kind", "name", "line", name="uq_testset_texts_key"),
)

teams = Table(
    "teams", metadata,
    Column("id", Integer, primary_key=True),
    # the team's account (role "team", token sign-in only): its name is the team's name
    Column("user_id", ForeignKey("users.id", ondelete="CASCADE"), nullable=False, unique=True),
    Column("contact", String(300), nullable=False, default=""),
    Column("institution", String(300), nullable=False, default=""),
    Column("description", Text, nullable=False, default=""),
    Column("verified", Boolean, nullable=False, server_default=false()),
    Column("verified_by", String(200)),
    Column("verified_at", DateTime(timezone=True)),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

submissions = Table(
    "submissions", metadata,
    Column("id", Integer, primary_key=True),
    Column("testset_id", ForeignKey("testsets.id", ondelete="CASCADE"), nullable=False),
    Column("team_id", ForeignKey("teams.id", ondelete="CASCADE"), nullable=False),
    Column("system", String(200), nullable=False),
    Column("file_name", String(500), nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("created_by", String(200)),
    Column("is_primary", Boolean, nullable=False, server_default=false()),
    Column("withdrawn", Boolean, nullable=False, server_default=false()),
    Column("constrained", Boolean),
    Column("open_source", Boolean),
    Column("bleu", Float),
    Column("chrf", Float),
    Column("scores", Text, nullable=False, default="{}"),  # JSON: every score (per reference, TER)
    Column("signatures", Text, nullable=False, default="{}"),  # JSON: sacrebleu signature per score
    Column("flags", Text, nullable=False, default="{}"),  # JSON: warnings found by validation
    Column("stats", LargeBinary),  # segment statistics against all references (npz)
)
Index("ix_submissions_testset_team", submissions.c.testset_id, submissions.c.team_id)
# one primary per team and test set, kept by the database itself (a partial unique index)
Index("uq_submissions_one_primary", submissions.c.testset_id, submissions.c.team_id, unique=True,
      sqlite_where=submissions.c.is_primary, postgresql_where=submissions.c.is_primary)

submission_lines = Table(
    "submission_lines", metadata,
    Column("id", Integer, primary_key=True),
    Column("submission_id", ForeignKey("submissions.id", ondelete="CASCADE"), nullable=False),
    Column("line", Integer, nullable=False),
    Column("text", Text, nullable=False),
    UniqueConstraint("submission_id", "line", name="uq_submission_lines_key"),
)

# ---- expert evaluations (MQM annotations, ESA error spans) -------------------------------
expert_outputs = Table(
    "expert_outputs", metadata,
    Column("id", Integer, primary_key=True),
    Column("import_id", ForeignKey("imports.id", ondelete="CASCADE"), nullable=False),
    Column("lp_id", ForeignKey("language_pairs.id", ondelete="CASCADE"), nullable=False),
    Column("system_id", ForeignKey("systems.id", ondelete="CASCADE"), nullable=False),
    Column("segment_id", ForeignKey("segments.id", ondelete="CASCADE"), nullable=False),
    Column("source", Text, nullable=False),
    Column("target", Text, nullable=False),  # the rated output, span markup removed
    UniqueConstraint("lp_id", "system_id", "segment_id", name="uq_expert_outputs_key"),
)

expert_annotations = Table(
    "expert_annotations", metadata,
    Column("id", Integer, primary_key=True),
    Column("import_id", ForeignKey("imports.id", ondelete="CASCADE"), nullable=False),
    Column("lp_id", ForeignKey("language_pairs.id", ondelete="CASCADE"), nullable=False),
    Column("assessment", String(40), nullable=False),  # mqm | esa
    Column("system_id", ForeignKey("systems.id", ondelete="CASCADE"), nullable=False),
    Column("segment_id", ForeignKey("segments.id", ondelete="CASCADE"), nullable=False),
    Column("rater", String(200), nullable=False),
    Column("category", String(200)),
    Column("severity", String(40), nullable=False),
    Column("span_start", Integer),  # character offsets into the output; NULL: no location (e.g. omission)
    Column("span_end", Integer),
    Column("comment", Text),
    Column("line", Integer, nullable=False),  # line of the uploaded file
    Column("context", String(200)),  # side-by-side MQM: the system rated beside this one (NULL: none)
)
Index("ix_expert_annotations_lp_system", expert_annotations.c.lp_id, expert_annotations.c.system_id)

audit_log = Table(
    "audit_log", metadata,
    Column("id", Integer, primary_key=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("actor", String(200), nullable=False),
    Column("action", String(60), nullable=False),  # e.g. retract-import
    Column("campaign", String(200), nullable=False),  # the name, so the entry outlives the campaign row
    Column("target", String(200), nullable=False),  # what was acted on, e.g. "import #3"
    Column("reason", Text, nullable=False, default=""),
    Column("details", Text, nullable=False, default="{}"),  # JSON: what the target held
)

web_sessions = Table(
    "web_sessions", metadata,
    Column("id", Integer, primary_key=True),
    Column("token_hash", String(64), nullable=False, unique=True),  # SHA-256 of the browser's session id
    Column("user_id", ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("revoked", Boolean, nullable=False, server_default=false()),
)

# ---- collection stage (leaderboard/collect): annotation campaigns run in the service ----------
# One annotation campaign per language pair of a campaign. Its judgments are ordinary `judgments`
# rows of one import (so QC, ranking and publishing read them like any other); the tables below
# hold what only the collection needs: the HITs and their items, the slots (HIT x redundancy) that
# annotators hold one at a time, the annotators with their links, and every answer as given.
collect_campaigns = Table(
    "collect_campaigns", metadata,
    Column("id", Integer, primary_key=True),
    Column("lp_id", ForeignKey("language_pairs.id", ondelete="CASCADE"), nullable=False, unique=True),
    Column("import_id", ForeignKey("imports.id", ondelete="CASCADE"), nullable=False),  # holds the judgments
    Column("protocol", String(10), nullable=False),  # da | esa
    Column("assessment", String(40), nullable=False),  # adequacy | source-based | esa
    Column("context", String(20), nullable=False),  # what is shown with the translation: reference | source
    Column("hit_size", Integer, nullable=False),
    Column("redundancy", Integer, nullable=False),
    Column("seed", Integer, nullable=False),
    Column("timeout_seconds", Integer, nullable=False),  # a held slot returns to the pool after this idle time
    Column("status", String(10), nullable=False),  # open | stopped
    Column("crowd_key", String(64), nullable=False, unique=True),  # the campaign's public crowd link key
    Column("code_pass", String(40), nullable=False),  # completion codes: attention checks passed / failed
    Column("code_fail", String(40), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("created_by", String(200)),
    # cESA and dynamic assignment (0016): fixed HITs or pages chosen per annotator by an allocation rule,
    # and the campaign's settings as JSON (models per item, rule, caps, checks, tokens, assets folder)
    Column("assignment", String(10), nullable=False, server_default="fixed"),
    Column("settings", Text),
)

collect_hits = Table(
    "collect_hits", metadata,
    Column("id", Integer, primary_key=True),
    Column("collect_id", ForeignKey("collect_campaigns.id", ondelete="CASCADE"), nullable=False),
    Column("name", String(200), nullable=False),
    Column("items", Integer, nullable=False),  # items that count (tutorial items not included)
    # task: a fixed HIT; page: one document x the models an allocation rule chose for one annotator;
    # tutorial / check: a tutorial document or an attention check, one slot per annotator who gets it
    Column("kind", String(10), nullable=False, server_default="task"),
    Column("doc_index", Integer),  # page: the document's index in the campaign's documents
    # page: the allocation rule drew the document at random among those with its models (independently of every
    # score so far), which the anytime-valid test may use
    Column("random_item", Boolean, nullable=False, server_default=false()),
    UniqueConstraint("collect_id", "name", name="uq_collect_hits_name"),
)

collect_items = Table(
    "collect_items", metadata,
    Column("id", Integer, primary_key=True),
    Column("hit_id", ForeignKey("collect_hits.id", ondelete="CASCADE"), nullable=False),
    Column("seq", Integer, nullable=False),  # display order, tutorial items first
    Column("position", Integer),  # the judgment's position in the HIT; NULL for tutorial items
    Column("item_type", String(10), nullable=False),
    Column("system_id", ForeignKey("systems.id", ondelete="CASCADE")),  # NULL for tutorial items
    Column("segment_id", ForeignKey("segments.id", ondelete="CASCADE")),
    Column("system", String(200), nullable=False),
    Column("segment", String(200), nullable=False),
    Column("doc", String(200)),
    Column("pair_id", String(200), nullable=False, default=""),
    Column("text", Text, nullable=False),  # the translation shown
    Column("source", Text, nullable=False, default=""),
    Column("reference", Text, nullable=False, default=""),
    Column("note", Text),  # guidance shown with a tutorial item
    Column("meta", Text),  # cESA: JSON {item_id, validation, ...} of the item as the campaign file gave it
    UniqueConstraint("hit_id", "seq", name="uq_collect_items_seq"),
)

collect_annotators = Table(
    "collect_annotators", metadata,
    Column("id", Integer, primary_key=True),
    Column("collect_id", ForeignKey("collect_campaigns.id", ondelete="CASCADE"), nullable=False),
    Column("name", String(200), nullable=False),  # the worker name of their judgments
    Column("worker_id", ForeignKey("workers.id", ondelete="CASCADE"), nullable=False),
    Column("origin", String(20), nullable=False),  # invitation | mturk | prolific | worker
    Column("token_hash", String(64), unique=True),  # SHA-256 of an invitation link's token; never the token
    Column("max_hits", Integer),  # an invitation's HIT quota (NULL: as many as are free); used up when reached
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("decision", String(10)),  # approved | rejected (for payment), NULL: not decided
    Column("decided_by", String(200)),
    Column("decided_at", DateTime(timezone=True)),
    Column("qc_pass", Boolean),  # the worker test over all completed HITs, run when a HIT completes
    Column("qc_p", Float),
    Column("qc_reason", Text),
    UniqueConstraint("collect_id", "name", name="uq_collect_annotators_name"),
)

collect_slots = Table(
    "collect_slots", metadata,
    Column("id", Integer, primary_key=True),
    Column("hit_id", ForeignKey("collect_hits.id", ondelete="CASCADE"), nullable=False),
    Column("slot", Integer, nullable=False),  # 1..redundancy
    Column("holder_id", ForeignKey("collect_annotators.id", ondelete="SET NULL")),
    Column("held_until", DateTime(timezone=True)),
    Column("done", Boolean, nullable=False, server_default=false()),
    UniqueConstraint("hit_id", "slot", name="uq_collect_slots_slot"),
)
Index("ix_collect_slots_free", collect_slots.c.done, collect_slots.c.slot, collect_slots.c.hit_id)

collect_assignments = Table(
    "collect_assignments", metadata,
    Column("id", Integer, primary_key=True),
    Column("hit_id", ForeignKey("collect_hits.id", ondelete="CASCADE"), nullable=False),
    Column("slot_id", ForeignKey("collect_slots.id", ondelete="CASCADE"), nullable=False),
    Column("annotator_id", ForeignKey("collect_annotators.id", ondelete="CASCADE"), nullable=False),
    Column("status", String(10), nullable=False),  # active | done | expired
    Column("platform_assignment", String(200)),  # MTurk assignmentId / Prolific SESSION_ID, when given
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("completed_at", DateTime(timezone=True)),
    Column("qc_pass", Boolean),  # the verdict the completion code was chosen by
    Column("qc_p", Float),
    # a tutorial or attention-check HIT, held beside the annotator's task; its check results (JSON list)
    Column("extra", Boolean, nullable=False, server_default=false()),
    Column("checks", Text),
    # no annotator gets the same HIT twice
    UniqueConstraint("hit_id", "annotator_id", name="uq_collect_assignments_hit_annotator"),
)
# one HIT at a time: at most one active assignment per annotator (and one tutorial or check beside it)
Index("uq_collect_assignments_active", collect_assignments.c.annotator_id, collect_assignments.c.extra, unique=True,
      sqlite_where=collect_assignments.c.status == "active",
      postgresql_where=collect_assignments.c.status == "active")

collect_answers = Table(
    "collect_answers", metadata,
    Column("id", Integer, primary_key=True),
    Column("assignment_id", ForeignKey("collect_assignments.id", ondelete="CASCADE"), nullable=False),
    Column("item_id", ForeignKey("collect_items.id", ondelete="CASCADE"), nullable=False),
    Column("raw", Float, nullable=False),
    Column("spans", Text),  # JSON list of {start, end, severity} (ESA); end exclusive, null offsets: missing content
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("ended_at", DateTime(timezone=True), nullable=False),
    Column("judgment_id", ForeignKey("judgments.id", ondelete="SET NULL")),  # NULL for tutorial items
    # an answer can be changed until its document is submitted (then final); how often it was changed
    Column("final", Boolean, nullable=False, server_default=true()),
    Column("revisions", Integer, nullable=False, server_default="0"),
    # a double submit (two clicks, a retried request) stores one answer
    UniqueConstraint("assignment_id", "item_id", name="uq_collect_answers_item"),
)

# dynamic assignment: how many annotators were given each document x model (given <= the campaign's
# redundancy, enforced by a guarded update) and how many finished it
collect_cells = Table(
    "collect_cells", metadata,
    Column("id", Integer, primary_key=True),
    Column("collect_id", ForeignKey("collect_campaigns.id", ondelete="CASCADE"), nullable=False),
    Column("doc_index", Integer, nullable=False),
    Column("model", String(200), nullable=False),
    Column("given", Integer, nullable=False, server_default="0"),
    Column("done", Integer, nullable=False, server_default="0"),
    # final scores given in the cell (segment scores): count, sum, sum of squares — the allocation rule's
    # running means read from here in one query, whatever the number of answers
    Column("n", Integer, nullable=False, server_default="0"),
    Column("total", Float, nullable=False, server_default="0"),
    Column("total_sq", Float, nullable=False, server_default="0"),
    UniqueConstraint("collect_id", "doc_index", "model", name="uq_collect_cells_cell"),
)
