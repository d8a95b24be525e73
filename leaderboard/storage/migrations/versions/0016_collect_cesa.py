"""collect: contrastive ESA pages, dynamic assignment, in-task checks, answers revisable until final

Revision ID: 0016
Revises: 0015
"""
from alembic import op
import sqlalchemy as sa

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("collect_campaigns") as batch:
        batch.add_column(sa.Column("assignment", sa.String(length=10), nullable=False, server_default="fixed"))
        batch.add_column(sa.Column("settings", sa.Text(), nullable=True))
    with op.batch_alter_table("collect_hits") as batch:
        batch.add_column(sa.Column("kind", sa.String(length=10), nullable=False, server_default="task"))
        batch.add_column(sa.Column("doc_index", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("random_item", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("collect_items") as batch:
        batch.add_column(sa.Column("meta", sa.Text(), nullable=True))
    op.drop_index("uq_collect_assignments_active", table_name="collect_assignments")
    with op.batch_alter_table("collect_assignments") as batch:
        batch.add_column(sa.Column("extra", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("checks", sa.Text(), nullable=True))
    op.create_index("uq_collect_assignments_active", "collect_assignments", ["annotator_id", "extra"], unique=True,
                    sqlite_where=sa.text("status = 'active'"), postgresql_where=sa.text("status = 'active'"))
    with op.batch_alter_table("collect_answers") as batch:
        batch.add_column(sa.Column("final", sa.Boolean(), nullable=False, server_default=sa.true()))
        batch.add_column(sa.Column("revisions", sa.Integer(), nullable=False, server_default="0"))
    op.create_table(
        "collect_cells",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("collect_id", sa.Integer(), nullable=False),
        sa.Column("doc_index", sa.Integer(), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("given", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("done", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("n", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("total", sa.Float(), nullable=False, server_default="0"),
        sa.Column("total_sq", sa.Float(), nullable=False, server_default="0"),
        sa.ForeignKeyConstraint(["collect_id"], ["collect_campaigns.id"],
                                name=op.f("fk_collect_cells_collect_id_collect_campaigns"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_collect_cells")),
        sa.UniqueConstraint("collect_id", "doc_index", "model", name="uq_collect_cells_cell"),
    )


def downgrade() -> None:
    op.drop_table("collect_cells")
    with op.batch_alter_table("collect_answers") as batch:
        batch.drop_column("revisions")
        batch.drop_column("final")
    op.drop_index("uq_collect_assignments_active", table_name="collect_assignments")
    with op.batch_alter_table("collect_assignments") as batch:
        batch.drop_column("checks")
        batch.drop_column("extra")
    op.create_index("uq_collect_assignments_active", "collect_assignments", ["annotator_id"], unique=True,
                    sqlite_where=sa.text("status = 'active'"), postgresql_where=sa.text("status = 'active'"))
    with op.batch_alter_table("collect_items") as batch:
        batch.drop_column("meta")
    with op.batch_alter_table("collect_hits") as batch:
        batch.drop_column("random_item")
        batch.drop_column("doc_index")
        batch.drop_column("kind")
    with op.batch_alter_table("collect_campaigns") as batch:
        batch.drop_column("settings")
        batch.drop_column("assignment")
