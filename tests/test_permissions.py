"""What the product creates on disk is readable by its owner only: the data directory (0700) and
the SQLite database with its WAL and lock files (0600), whatever the umask."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

from leaderboard.storage import Store


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_data_dir_and_database_are_private(tmp_path):
    data = tmp_path / "new" / "nested" / "data"
    env = {**os.environ, "MTLB_DATA_DIR": str(data)}
    env.pop("DATABASE_URL", None)
    script = ("import os; os.umask(0o022)\n"
              "from leaderboard.storage import Store\n"
              "s = Store(); s.create_campaign('c')\n")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    for folder in (tmp_path / "new", tmp_path / "new" / "nested", data):
        assert mode(folder) == 0o700, (folder, oct(mode(folder)))
    files = sorted(p.name for p in data.iterdir())
    assert "mtlb.sqlite" in files
    for name in files:  # the database, its -wal / -shm and the migration lock
        assert mode(data / name) == 0o600, (name, oct(mode(data / name)))


def test_new_sqlite_file_named_in_a_url_is_private(tmp_path):
    old = os.umask(0o022)
    try:
        path = tmp_path / "explicit.sqlite"
        Store(f"sqlite:///{path}").create_campaign("c")
    finally:
        os.umask(old)
    assert mode(path) == 0o600
