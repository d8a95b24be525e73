"""expert_annotations.context: the partner system of a side-by-side MQM rating (2023+ Google MQM files)

Revision ID: 0011
Revises: 0010
"""
from alembic import op
import sqlalchemy as sa

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("expert_annotations") as batch:
        batch.add_column(sa.Column("context", sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("expert_annotations") as batch:
        batch.drop_column("context")
