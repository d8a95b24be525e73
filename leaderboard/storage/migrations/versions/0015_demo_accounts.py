"""demo_accounts: the organiser and metric-developer accounts `mtlb demo` makes for a demo store

Revision ID: 0015
Revises: 0014
"""
from alembic import op
import sqlalchemy as sa

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "demo_accounts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE",
                                                       name="fk_demo_accounts_user_id_users"), nullable=False),
        sa.Column("password", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_demo_accounts"),
        sa.UniqueConstraint("user_id", name="uq_demo_accounts_user_id"),
    )


def downgrade() -> None:
    op.drop_table("demo_accounts")
