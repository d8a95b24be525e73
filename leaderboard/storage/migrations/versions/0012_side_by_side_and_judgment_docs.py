"""side-by-side MQM context and judgment-level document ids

expert_annotations.context: the partner system of a side-by-side MQM rating (Google's 2023+ files).
judgments.doc: a judgment's own document id where it differs from its segment's (Appraise exports mark
the assignment a rating came from: ``doc#incomplete``, ``doc#dup``; the WMT24 ranking leaves those out).

Revision ID: 0012
Revises: 0011
"""
from alembic import op
import sqlalchemy as sa

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("expert_annotations") as batch:
        batch.add_column(sa.Column("context", sa.String(length=200), nullable=True))
    with op.batch_alter_table("judgments") as batch:
        batch.add_column(sa.Column("doc", sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("judgments") as batch:
        batch.drop_column("doc")
    with op.batch_alter_table("expert_annotations") as batch:
        batch.drop_column("context")
