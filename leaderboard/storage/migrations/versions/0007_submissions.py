"""submissions stage: test sets, teams, participants' system outputs and their lines

Revision ID: 0007
Revises: 0003
"""
from alembic import op
import sqlalchemy as sa

revision = "0007"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "testsets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("lp_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("segments", sa.Integer(), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deadline", sa.DateTime(timezone=True), nullable=True),
        sa.Column("public_before_deadline", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.Column("max_submissions", sa.Integer(), server_default="20", nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(length=200), nullable=True),
        sa.ForeignKeyConstraint(["lp_id"], ["language_pairs.id"], name=op.f("fk_testsets_lp_id_language_pairs"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_testsets")),
        sa.UniqueConstraint("lp_id", name=op.f("uq_testsets_lp_id")),
    )
    op.create_table(
        "testset_texts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("testset_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("line", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("doc", sa.String(length=200), nullable=True),
        sa.ForeignKeyConstraint(["testset_id"], ["testsets.id"], name=op.f("fk_testset_texts_testset_id_testsets"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_testset_texts")),
        sa.UniqueConstraint("testset_id", "kind", "name", "line", name="uq_testset_texts_key"),
    )
    op.create_table(
        "teams",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("contact", sa.String(length=300), nullable=False),
        sa.Column("institution", sa.String(length=300), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("verified", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("verified_by", sa.String(length=200), nullable=True),
        sa.Column("verified_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_teams_user_id_users"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_teams")),
        sa.UniqueConstraint("user_id", name=op.f("uq_teams_user_id")),
    )
    op.create_table(
        "submissions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("testset_id", sa.Integer(), nullable=False),
        sa.Column("team_id", sa.Integer(), nullable=False),
        sa.Column("system", sa.String(length=200), nullable=False),
        sa.Column("file_name", sa.String(length=500), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(length=200), nullable=True),
        sa.Column("is_primary", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("withdrawn", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("constrained", sa.Boolean(), nullable=True),
        sa.Column("open_source", sa.Boolean(), nullable=True),
        sa.Column("bleu", sa.Float(), nullable=True),
        sa.Column("chrf", sa.Float(), nullable=True),
        sa.Column("scores", sa.Text(), nullable=False),
        sa.Column("signatures", sa.Text(), nullable=False),
        sa.Column("flags", sa.Text(), nullable=False),
        sa.Column("stats", sa.LargeBinary(), nullable=True),
        sa.ForeignKeyConstraint(["testset_id"], ["testsets.id"], name=op.f("fk_submissions_testset_id_testsets"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["team_id"], ["teams.id"], name=op.f("fk_submissions_team_id_teams"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_submissions")),
    )
    op.create_index("ix_submissions_testset_team", "submissions", ["testset_id", "team_id"])
    op.create_table(
        "submission_lines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("line", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["submission_id"], ["submissions.id"],
                                name=op.f("fk_submission_lines_submission_id_submissions"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_submission_lines")),
        sa.UniqueConstraint("submission_id", "line", name="uq_submission_lines_key"),
    )


def downgrade() -> None:
    op.drop_table("submission_lines")
    op.drop_index("ix_submissions_testset_team", table_name="submissions")
    op.drop_table("submissions")
    op.drop_table("teams")
    op.drop_table("testset_texts")
    op.drop_table("testsets")
