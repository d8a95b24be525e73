"""The bulk judgment loader: rows come back in the order they were given (grouped by language pair)
on both back ends, awkward text survives the COPY format, and a PostgreSQL role that may not skip
the per-row foreign-key triggers stores exactly the same rows."""

from __future__ import annotations

import uuid

import numpy as np
import pandas as pd
import pytest
from sqlalchemy import create_engine, text

from conftest import PG_URL
from formats import small_campaign
from leaderboard.schema import validate_judgments
from leaderboard.storage import Store


def mixed_frame() -> pd.DataFrame:
    """Two language pairs interleaved, hits with COPY's escape sequences written out (a real tab or newline
    in an id is refused by validation), backslashes, quotes and non-ASCII text."""
    a = small_campaign(n_workers=3, n_items=20, seed=1)
    b = small_campaign(n_workers=2, n_items=20, seed=2).assign(lp="de-en")
    frame = pd.concat([a, b], ignore_index=True).sample(frac=1.0, random_state=3).reset_index(drop=True)
    odd = ["tab\\there", "back\\slash", 'quote"d', "naïve — 字", "new\\nline", r"\N"]
    frame["hit"] = frame["hit"] + "-" + np.array(odd)[np.arange(len(frame)) % len(odd)]
    frame.loc[frame.index % 3 == 0, "raw"] = np.nan
    frame["z"] = np.linspace(-2.5, 2.5, len(frame)) / 3.0  # values with long decimal expansions
    return validate_judgments(frame.assign(campaign="bulk"))


def expected_order(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.iloc[np.argsort(frame["lp"].to_numpy(), kind="stable")].reset_index(drop=True)


def test_rows_come_back_in_file_order_with_exact_values(db_url):
    frame = mixed_frame()
    store = Store(db_url)
    store.load_judgments(frame, file_name="mixed.csv", input_format="canonical")
    back = store.judgments("bulk")
    pd.testing.assert_frame_equal(back, expected_order(frame), check_dtype=False)
    assert (back["z"].to_numpy() == expected_order(frame)["z"].to_numpy()).all()  # bit for bit


@pytest.fixture()
def plain_role_url(pg_url):
    """The pg_url database, reached through a new role that is not a superuser and has no grant on
    session_replication_role."""
    role = "mtlb_plain_" + uuid.uuid4().hex[:8]
    schema = "public"
    admin = create_engine(pg_url)
    Store(pg_url)  # migrate as the owner
    with admin.begin() as conn:
        conn.execute(text(f'CREATE ROLE "{role}" LOGIN'))
        conn.execute(text(f'GRANT USAGE ON SCHEMA "{schema}" TO "{role}"'))
        conn.execute(text(f'GRANT ALL ON ALL TABLES IN SCHEMA "{schema}" TO "{role}"'))
        conn.execute(text(f'GRANT ALL ON ALL SEQUENCES IN SCHEMA "{schema}" TO "{role}"'))
    yield pg_url.replace("postgres@", f"{role}@", 1)
    with admin.begin() as conn:
        conn.execute(text(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '{role}'"))
        conn.execute(text(f'DROP OWNED BY "{role}"'))
    admin.dispose()
    admin = create_engine(PG_URL)  # a role belongs to the server: dropped from another database
    with admin.begin() as conn:
        conn.execute(text(f'DROP ROLE "{role}"'))
    admin.dispose()


def test_role_without_trigger_rights_stores_the_same(plain_role_url):
    frame = mixed_frame()
    store = Store(plain_role_url)
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT current_setting('is_superuser')")).scalar() == "off"
    store.load_judgments(frame, file_name="mixed.csv", input_format="canonical")
    pd.testing.assert_frame_equal(store.judgments("bulk"), expected_order(frame), check_dtype=False)
    from leaderboard.errors import InputError
    with pytest.raises(InputError, match="already stored"):  # the unique key still holds
        store.load_judgments(frame.iloc[:5], file_name="again.csv", input_format="canonical")
    store.engine.dispose()
