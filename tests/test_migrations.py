"""The alembic migrations build exactly the schema the code declares, on both back ends."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from leaderboard.storage import Store
from leaderboard.storage.models import metadata


def test_migrated_schema_matches_models(db_url):
    store = Store(db_url)
    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    assert diff == []


def test_segments_are_lines_flag(db_url):
    store = Store(db_url)
    store.create_campaign("c")
    assert store.campaign_info("c")["segments_are_lines"] is True
    store.set_segments_are_lines("c", False)
    assert store.campaign_info("c")["segments_are_lines"] is False
