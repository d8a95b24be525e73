"""Copies of stores built once per test process (test helper, not a test module).

Building the demo (loading three campaigns, scoring the shared task's outputs, publishing) takes
seconds; tests that only read it get a copy of one built earlier in the same process."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def copy_store(template: Path, folder: Path) -> Path:
    """Copy the SQLite store ``template`` to ``folder/mtlb.sqlite`` (the app's file under MTLB_DATA_DIR),
    consistently even while it is open, as storage.db copies its schema template."""
    from leaderboard.storage.db import copy_sqlite
    folder.mkdir(parents=True, exist_ok=True)
    target_path = folder / "mtlb.sqlite"
    target = sqlite3.connect(str(target_path))
    try:
        copy_sqlite(template, target)
    finally:
        target.close()
    target_path.chmod(0o600)
    return target_path
