"""collect: annotation campaigns run in the service (HITs, items, slots, annotators, assignments, answers)

Revision ID: 0013
Revises: 0012
"""
from alembic import op
import sqlalchemy as sa

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('collect_campaigns',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('lp_id', sa.Integer(), nullable=False),
    sa.Column('import_id', sa.Integer(), nullable=False),
    sa.Column('protocol', sa.String(length=10), nullable=False),
    sa.Column('assessment', sa.String(length=40), nullable=False),
    sa.Column('context', sa.String(length=20), nullable=False),
    sa.Column('hit_size', sa.Integer(), nullable=False),
    sa.Column('redundancy', sa.Integer(), nullable=False),
    sa.Column('seed', sa.Integer(), nullable=False),
    sa.Column('timeout_seconds', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('crowd_key', sa.String(length=64), nullable=False),
    sa.Column('code_pass', sa.String(length=40), nullable=False),
    sa.Column('code_fail', sa.String(length=40), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('created_by', sa.String(length=200), nullable=True),
    sa.ForeignKeyConstraint(['import_id'], ['imports.id'], name=op.f('fk_collect_campaigns_import_id_imports'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['lp_id'], ['language_pairs.id'], name=op.f('fk_collect_campaigns_lp_id_language_pairs'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_collect_campaigns')),
    sa.UniqueConstraint('crowd_key', name=op.f('uq_collect_campaigns_crowd_key')),
    sa.UniqueConstraint('lp_id', name=op.f('uq_collect_campaigns_lp_id'))
    )
    op.create_table('collect_annotators',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('collect_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('worker_id', sa.Integer(), nullable=False),
    sa.Column('origin', sa.String(length=20), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=True),
    sa.Column('max_hits', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('decision', sa.String(length=10), nullable=True),
    sa.Column('decided_by', sa.String(length=200), nullable=True),
    sa.Column('decided_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('qc_pass', sa.Boolean(), nullable=True),
    sa.Column('qc_p', sa.Float(), nullable=True),
    sa.Column('qc_reason', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['collect_id'], ['collect_campaigns.id'], name=op.f('fk_collect_annotators_collect_id_collect_campaigns'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['worker_id'], ['workers.id'], name=op.f('fk_collect_annotators_worker_id_workers'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_collect_annotators')),
    sa.UniqueConstraint('collect_id', 'name', name='uq_collect_annotators_name'),
    sa.UniqueConstraint('token_hash', name=op.f('uq_collect_annotators_token_hash'))
    )
    op.create_table('collect_hits',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('collect_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('items', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['collect_id'], ['collect_campaigns.id'], name=op.f('fk_collect_hits_collect_id_collect_campaigns'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_collect_hits')),
    sa.UniqueConstraint('collect_id', 'name', name='uq_collect_hits_name')
    )
    op.create_table('collect_items',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('hit_id', sa.Integer(), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=True),
    sa.Column('item_type', sa.String(length=10), nullable=False),
    sa.Column('system_id', sa.Integer(), nullable=True),
    sa.Column('segment_id', sa.Integer(), nullable=True),
    sa.Column('system', sa.String(length=200), nullable=False),
    sa.Column('segment', sa.String(length=200), nullable=False),
    sa.Column('doc', sa.String(length=200), nullable=True),
    sa.Column('pair_id', sa.String(length=200), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('source', sa.Text(), nullable=False),
    sa.Column('reference', sa.Text(), nullable=False),
    sa.Column('note', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['hit_id'], ['collect_hits.id'], name=op.f('fk_collect_items_hit_id_collect_hits'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['segment_id'], ['segments.id'], name=op.f('fk_collect_items_segment_id_segments'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['system_id'], ['systems.id'], name=op.f('fk_collect_items_system_id_systems'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_collect_items')),
    sa.UniqueConstraint('hit_id', 'seq', name='uq_collect_items_seq')
    )
    op.create_table('collect_slots',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('hit_id', sa.Integer(), nullable=False),
    sa.Column('slot', sa.Integer(), nullable=False),
    sa.Column('holder_id', sa.Integer(), nullable=True),
    sa.Column('held_until', sa.DateTime(timezone=True), nullable=True),
    sa.Column('done', sa.Boolean(), server_default=sa.false(), nullable=False),
    sa.ForeignKeyConstraint(['hit_id'], ['collect_hits.id'], name=op.f('fk_collect_slots_hit_id_collect_hits'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['holder_id'], ['collect_annotators.id'], name=op.f('fk_collect_slots_holder_id_collect_annotators'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_collect_slots')),
    sa.UniqueConstraint('hit_id', 'slot', name='uq_collect_slots_slot')
    )
    with op.batch_alter_table('collect_slots', schema=None) as batch_op:
        batch_op.create_index('ix_collect_slots_free', ['done', 'slot', 'hit_id'], unique=False)

    op.create_table('collect_assignments',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('hit_id', sa.Integer(), nullable=False),
    sa.Column('slot_id', sa.Integer(), nullable=False),
    sa.Column('annotator_id', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('platform_assignment', sa.String(length=200), nullable=True),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('completed_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('qc_pass', sa.Boolean(), nullable=True),
    sa.Column('qc_p', sa.Float(), nullable=True),
    sa.ForeignKeyConstraint(['annotator_id'], ['collect_annotators.id'], name=op.f('fk_collect_assignments_annotator_id_collect_annotators'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['hit_id'], ['collect_hits.id'], name=op.f('fk_collect_assignments_hit_id_collect_hits'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['slot_id'], ['collect_slots.id'], name=op.f('fk_collect_assignments_slot_id_collect_slots'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_collect_assignments')),
    sa.UniqueConstraint('hit_id', 'annotator_id', name='uq_collect_assignments_hit_annotator')
    )
    with op.batch_alter_table('collect_assignments', schema=None) as batch_op:
        batch_op.create_index('uq_collect_assignments_active', ['annotator_id'], unique=True, sqlite_where=sa.text("status = 'active'"), postgresql_where=sa.text("status = 'active'"))

    op.create_table('collect_answers',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('assignment_id', sa.Integer(), nullable=False),
    sa.Column('item_id', sa.Integer(), nullable=False),
    sa.Column('raw', sa.Float(), nullable=False),
    sa.Column('spans', sa.Text(), nullable=True),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('ended_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('judgment_id', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['assignment_id'], ['collect_assignments.id'], name=op.f('fk_collect_answers_assignment_id_collect_assignments'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['item_id'], ['collect_items.id'], name=op.f('fk_collect_answers_item_id_collect_items'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['judgment_id'], ['judgments.id'], name=op.f('fk_collect_answers_judgment_id_judgments'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_collect_answers')),
    sa.UniqueConstraint('assignment_id', 'item_id', name='uq_collect_answers_item')
    )


def downgrade() -> None:
    op.drop_table('collect_answers')
    with op.batch_alter_table('collect_assignments', schema=None) as batch_op:
        batch_op.drop_index('uq_collect_assignments_active', sqlite_where=sa.text("status = 'active'"), postgresql_where=sa.text("status = 'active'"))

    op.drop_table('collect_assignments')
    with op.batch_alter_table('collect_slots', schema=None) as batch_op:
        batch_op.drop_index('ix_collect_slots_free')

    op.drop_table('collect_slots')
    op.drop_table('collect_items')
    op.drop_table('collect_hits')
    op.drop_table('collect_annotators')
    op.drop_table('collect_campaigns')
