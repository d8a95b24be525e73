"""snapshot_artifacts: what the pages of a published snapshot need, computed at publish time

Revision ID: 0010
Revises: 0008
"""
from alembic import op
import sqlalchemy as sa

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "snapshot_artifacts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("snapshot_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("payload_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["snapshot_id"], ["snapshots.id"],
                                name=op.f("fk_snapshot_artifacts_snapshot_id_snapshots"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_snapshot_artifacts")),
        sa.UniqueConstraint("snapshot_id", "name", name="uq_snapshot_artifacts_name"),
    )


def downgrade() -> None:
    op.drop_table("snapshot_artifacts")
