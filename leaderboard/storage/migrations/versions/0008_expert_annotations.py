"""expert_outputs and expert_annotations: MQM error annotations and ESA error spans

Revision ID: 0008
Revises: 0003
"""
from alembic import op
import sqlalchemy as sa

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def _refs(table: str) -> list:
    return [
        sa.ForeignKeyConstraint(["import_id"], ["imports.id"], name=op.f(f"fk_{table}_import_id_imports"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["lp_id"], ["language_pairs.id"], name=op.f(f"fk_{table}_lp_id_language_pairs"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["system_id"], ["systems.id"], name=op.f(f"fk_{table}_system_id_systems"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["segment_id"], ["segments.id"], name=op.f(f"fk_{table}_segment_id_segments"),
                                ondelete="CASCADE"),
    ]


def upgrade() -> None:
    op.create_table(
        "expert_outputs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("import_id", sa.Integer(), nullable=False),
        sa.Column("lp_id", sa.Integer(), nullable=False),
        sa.Column("system_id", sa.Integer(), nullable=False),
        sa.Column("segment_id", sa.Integer(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("target", sa.Text(), nullable=False),
        *_refs("expert_outputs"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_expert_outputs")),
        sa.UniqueConstraint("lp_id", "system_id", "segment_id", name="uq_expert_outputs_key"),
    )
    op.create_table(
        "expert_annotations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("import_id", sa.Integer(), nullable=False),
        sa.Column("lp_id", sa.Integer(), nullable=False),
        sa.Column("assessment", sa.String(length=40), nullable=False),
        sa.Column("system_id", sa.Integer(), nullable=False),
        sa.Column("segment_id", sa.Integer(), nullable=False),
        sa.Column("rater", sa.String(length=200), nullable=False),
        sa.Column("category", sa.String(length=200), nullable=True),
        sa.Column("severity", sa.String(length=40), nullable=False),
        sa.Column("span_start", sa.Integer(), nullable=True),
        sa.Column("span_end", sa.Integer(), nullable=True),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.Column("line", sa.Integer(), nullable=False),
        *_refs("expert_annotations"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_expert_annotations")),
    )
    op.create_index("ix_expert_annotations_lp_system", "expert_annotations", ["lp_id", "system_id"])


def downgrade() -> None:
    op.drop_index("ix_expert_annotations_lp_system", table_name="expert_annotations")
    op.drop_table("expert_annotations")
    op.drop_table("expert_outputs")
