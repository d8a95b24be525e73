"""testsets.bleu_tokenize: the BLEU tokeniser a test set is scored with (NULL: chosen by target language)

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
    with op.batch_alter_table("testsets") as batch:
        batch.add_column(sa.Column("bleu_tokenize", sa.String(length=40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("testsets") as batch:
        batch.drop_column("bleu_tokenize")
