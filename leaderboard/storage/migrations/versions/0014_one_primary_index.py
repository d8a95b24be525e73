"""submissions: one primary per team and test set, as a partial unique index

Older stores may hold several primaries of one team and test set (concurrent writers could leave
them): the newest (highest id) stays primary, the others become contrastive, before the index is
built.

Revision ID: 0014
Revises: 0013
"""
from alembic import op
import sqlalchemy as sa

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    s = sa.table("submissions", sa.column("id", sa.Integer), sa.column("testset_id", sa.Integer),
                 sa.column("team_id", sa.Integer), sa.column("is_primary", sa.Boolean))
    keep = sa.select(sa.func.max(s.c.id)).where(s.c.is_primary).group_by(s.c.testset_id, s.c.team_id)
    op.execute(sa.update(s).where(sa.and_(s.c.is_primary, s.c.id.not_in(keep)))
               .values(is_primary=False))
    op.create_index("uq_submissions_one_primary", "submissions", ["testset_id", "team_id"], unique=True,
                    sqlite_where=sa.text("is_primary"), postgresql_where=sa.text("is_primary"))


def downgrade() -> None:
    op.drop_index("uq_submissions_one_primary", table_name="submissions")
