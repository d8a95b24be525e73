"""system_marks: organisers' marking of human translations per campaign and system

Revision ID: 0009
Revises: 0008
"""
from alembic import op
import sqlalchemy as sa

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "system_marks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("system", sa.String(length=200), nullable=False),
        sa.Column("human", sa.Boolean(), nullable=False),
        sa.Column("set_by", sa.String(length=200), nullable=False),
        sa.Column("set_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], name=op.f("fk_system_marks_campaign_id_campaigns"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_system_marks")),
        sa.UniqueConstraint("campaign_id", "system", name="uq_system_marks_key"),
    )


def downgrade() -> None:
    op.drop_table("system_marks")
