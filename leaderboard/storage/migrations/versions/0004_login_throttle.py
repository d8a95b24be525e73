"""login_throttle: failed-login counters shared by every app process and kept across restarts

Revision ID: 0004
Revises: 0003
"""
from alembic import op
import sqlalchemy as sa

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "login_throttle",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=300), nullable=False),
        sa.Column("failures", sa.Text(), nullable=False),
        sa.Column("locked_until", sa.Float(), nullable=False),
        sa.Column("locks", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_throttle")),
        sa.UniqueConstraint("key", name=op.f("uq_login_throttle_key")),
    )


def downgrade() -> None:
    op.drop_table("login_throttle")
