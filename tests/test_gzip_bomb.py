"""A 1 GB gzip bomb (1 MB on disk) is refused through ``mtlb outputs submit`` and through what the Teams
page's submit runs (the upload written to a temporary file, then the same service function), with the
limit named and a peak resident memory under 500 MB, measured by the kernel (``ru_maxrss``) for a fresh
process. The limit is configurable (MTLB_MAX_TEXT_BYTES)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from leaderboard.outputs import service
from leaderboard.storage import Store

PEAK_LIMIT_MB = 500
GB = 1000**3

# runs a command in a child and reports the child's peak RSS (kB on Linux) and its output
MEASURE = """
import json, resource, subprocess, sys
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"code": proc.returncode, "stderr": proc.stderr, "stdout": proc.stdout, "peak_kb": peak}))
"""

# what the Teams page runs on "Validate and submit": uploaded_path(upload) then service.submit
TEAMS_PAGE = """
import sys
from pathlib import Path
from leaderboard.errors import InputError
from leaderboard.outputs.service import submit
from leaderboard.storage import Store
from leaderboard.webapp.pages.organiser import uploaded_path

class Upload:  # the shape of Streamlit's UploadedFile that uploaded_path uses
    def __init__(self, path):
        self.name, self._data = Path(path).name, Path(path).read_bytes()
    def getbuffer(self):
        return memoryview(self._data)

try:
    with uploaded_path(Upload(sys.argv[1])) as path:
        submit(Store(sys.argv[2]), path, campaign="C", lp="de-en", team="T", label="bomb.txt.gz")
except InputError as exc:
    print(exc, file=sys.stderr)
    sys.exit(2)
"""


def gzip_bomb(path: Path, size: int = GB, member: int = 10 * 1000**2) -> Path:
    """Text lines ("a" * 99 + newline) in gzip members of ``member`` bytes each, ``size`` bytes in all."""
    block = (b"a" * 99 + b"\n") * (member // 100)
    comp = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    one = comp.compress(block) + comp.flush()
    with open(path, "wb") as fh:
        for _ in range(size // member):
            fh.write(one)
    return path


@pytest.fixture(scope="module")
def bomb(tmp_path_factory) -> Path:
    path = gzip_bomb(tmp_path_factory.mktemp("bomb") / "bomb.txt.gz")
    assert path.stat().st_size < 5 * 1000**2
    return path


@pytest.fixture()
def task(db_url, tmp_path):
    (tmp_path / "src.txt").write_text("eins\nzwei\ndrei\n")
    (tmp_path / "ref.txt").write_text("one\ntwo\nthree\n")
    store = Store(db_url)
    service.add_testset(store, "C", "de-en", tmp_path / "src.txt", [tmp_path / "ref.txt"])
    service.add_team(store, "T", verified=True)
    return db_url


def measured(argv: list[str], env: dict | None = None) -> dict:
    out = subprocess.run([sys.executable, "-c", MEASURE, *argv], capture_output=True, text=True,
                         env={**os.environ, **(env or {})}, timeout=600)
    return json.loads(out.stdout)


def assert_refused_within_memory(result: dict, limit_text: str) -> None:
    assert result["code"] == 2, result
    assert "bomb.txt.gz" in result["stderr"] and limit_text in result["stderr"], result["stderr"]
    assert "Traceback" not in result["stderr"], result["stderr"]
    peak_mb = result["peak_kb"] / 1024
    print(f"peak RSS {peak_mb:.0f} MB")
    assert peak_mb < PEAK_LIMIT_MB, f"peak RSS {peak_mb:.0f} MB"


def test_outputs_submit_refuses_a_gzip_bomb_within_memory(task, bomb):
    result = measured([sys.executable, "-m", "leaderboard.cli", "outputs", "submit", str(bomb), "--campaign", "C",
                       "--lp", "de-en", "--team", "T", "--database-url", task])
    assert_refused_within_memory(result, "MTLB_MAX_TEXT_BYTES")
    assert service.OutputStore(Store(task)).submissions("C").empty


def test_teams_page_submit_refuses_a_gzip_bomb_within_memory(task, bomb):
    result = measured([sys.executable, "-c", TEAMS_PAGE, str(bomb), task])
    assert_refused_within_memory(result, "MTLB_MAX_TEXT_BYTES")
    assert service.OutputStore(Store(task)).submissions("C").empty


def test_the_limit_is_configurable(task, tmp_path):
    small = gzip_bomb(tmp_path / "bomb.txt.gz", size=2 * 1000**2, member=1000**2)
    result = measured([sys.executable, "-m", "leaderboard.cli", "outputs", "submit", str(small), "--campaign", "C",
                       "--lp", "de-en", "--team", "T", "--database-url", task],
                      env={"MTLB_MAX_TEXT_BYTES": "1000000"})
    assert result["code"] == 2 and "more than 1,000,000 bytes" in result["stderr"], result
