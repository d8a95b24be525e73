"""A cheap fingerprint of what is stored, for caches shared by several processes.

Every write the product makes adds a row with a new id (an import, a snapshot, a campaign, a metric
submission) or flips one of a few flags; the fingerprint changes with each of them, so a process
that keys its caches on it sees another process's write on its next read, without a time-to-live.
"""

from __future__ import annotations

from sqlalchemy import Engine, case, func, select

from . import models as m


def data_version(engine: Engine) -> tuple:
    """(max import id, import count, max audit-log id, max snapshot id, max campaign id, campaigns with segments_are_lines,
    max metric submission id, public submissions, max test set id, max output submission id,
    primary and withdrawn output submissions, max and count of collected answers: judgments collected
    in the service arrive without a new import); one round trip of indexed aggregates."""
    c, sub, out = m.campaigns, m.metric_submissions, m.submissions
    query = select(
        select(func.max(m.imports.c.id)).scalar_subquery(),
        select(func.count(m.imports.c.id)).scalar_subquery(),  # a retracted import lowers the count
        select(func.max(m.audit_log.c.id)).scalar_subquery(),
        select(func.max(m.snapshots.c.id)).scalar_subquery(),
        select(func.max(c.c.id)).scalar_subquery(),
        select(func.sum(case((c.c.segments_are_lines, 1), else_=0))).scalar_subquery(),
        select(func.max(sub.c.id)).scalar_subquery(),
        select(func.sum(case((sub.c.public, 1), else_=0))).scalar_subquery(),
        select(func.max(m.testsets.c.id)).scalar_subquery(),
        select(func.max(out.c.id)).scalar_subquery(),
        select(func.sum(case((out.c.is_primary, 1), else_=0))).scalar_subquery(),
        select(func.sum(case((out.c.withdrawn, 1), else_=0))).scalar_subquery(),
        select(func.max(m.collect_answers.c.id)).scalar_subquery(),
        select(func.count(m.collect_answers.c.id)).scalar_subquery(),  # a reset HIT lowers the count
    )
    with engine.connect() as conn:
        return tuple(0 if v is None else int(v) for v in conn.execute(query).one())
