"""No traceback reaches a user: every command that reads files, fed broken inputs, answers with one
line naming the file, exits 2 and stores nothing. Hypothesis picks the breakage and its details
(where an archive is cut, which bytes are overwritten, which encoding, where a NUL lands); a few real
``mtlb`` processes check the same through the console entry point.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import io
import os
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from formats import small_campaign, write_canonical, write_wmt_stnd
from leaderboard.cli import main
from leaderboard.schema import MAX_LENGTH
from leaderboard.storage import Store

#: file-reading commands; FILE is replaced by the broken input
COMMANDS = [
    ["ingest", "FILE"],
    ["rank", "--input", "FILE"],
    ["qc", "--input", "FILE"],
    ["agreement", "--input", "FILE"],
    ["power", "--input", "FILE"],
    ["texts", "--campaign", "fuzz", "FILE"],
    ["submit", "FILE", "--campaign", "fuzz"],
    ["score", "--hyp", "FILE", "--ref", "FILE"],
    ["correlate", "--human", "FILE", "--metric-scores", "FILE", "--lp", "cs-en"],
    ["longitudinal", "--year", "A=FILE"],
    ["span-eval", "--gold", "FILE", "--predictions", "A=FILE"],
    ["error-free-eval", "--gold", "FILE", "--predictions", "A=FILE"],
]


#: breakages that leave plain UTF-8 text, which ``mtlb score`` rightly accepts as system output
PLAIN_TEXT = {"header-only", "huge-line", "json", "nul"}


@functools.lru_cache(maxsize=1)
def valid_inputs() -> dict[str, bytes]:
    """Bytes of small valid inputs (canonical CSV and the WMT release layout) to break."""
    with tempfile.TemporaryDirectory() as tmp:
        frame = small_campaign(n_workers=4, n_items=30)
        canonical = write_canonical(frame, Path(tmp) / "judgments.csv").read_bytes()
        stnd, _stats = write_wmt_stnd(frame, Path(tmp))
        return {"canonical": canonical, "stnd": stnd.read_bytes()}


@pytest.fixture(scope="module")
def valid() -> dict[str, bytes]:
    return valid_inputs()


@pytest.fixture(scope="module")
def store_url(tmp_path_factory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('store') / 'fuzz.sqlite'}"
    Store(url).create_campaign("fuzz")  # so store-backed commands reach the file
    return url


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse usage errors
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def assert_refused(code: int, err: str, command: str, name: str) -> None:
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1, err
    assert lines[0].startswith(f"mtlb {command}: error: "), lines[0]
    assert name in lines[0], (name, lines[0])


def stored_judgments(url: str) -> int:
    frame = Store(url).campaigns()
    return int(frame["judgments"].fillna(0).sum()) if len(frame) else 0


# ---- the broken inputs ------------------------------------------------------------------------
def truncated_gzip(data: bytes, cut: float) -> bytes:
    packed = gzip.compress(data)
    return packed[: max(1, min(len(packed) - 1, int(len(packed) * cut)))]


def corrupt_gzip(data: bytes, where: float, garbage: bytes) -> bytes:
    packed = bytearray(gzip.compress(data))
    start = 10 + int((len(packed) - 10 - len(garbage)) * where)  # after the fixed header
    packed[start: start + len(garbage)] = garbage
    return bytes(packed)


def gunzips(data: bytes) -> bool:
    try:
        gzip.decompress(data)
        return True
    except (OSError, EOFError, zlib.error):
        return False


@st.composite
def broken_inputs(draw) -> tuple[str, str, float, bytes, str]:
    """(kind of breakage, valid input it starts from, a position in [0, 1], garbage bytes, UTF-16 codec)."""
    base = draw(st.sampled_from(["canonical", "stnd"]))
    kind = draw(st.sampled_from(["truncated-gzip", "corrupt-gzip", "utf-16", "latin-1", "nul", "huge-line",
                                 "random-bytes", "empty", "blank", "header-only", "json", "directory",
                                 "dev-null", "dev-zero", "missing"]))
    return kind, base, draw(st.floats(0.0, 1.0)), draw(st.binary(min_size=4, max_size=16)), \
        draw(st.sampled_from(["utf-16", "utf-16-le", "utf-16-be"]))


def materialise(spec, valid: dict[str, bytes], folder: Path) -> Path:
    kind, base, fraction, garbage, utf16 = spec
    data = valid[base]
    text = data.decode("utf-8")
    target = folder / f"ad-fuzz-{kind}.csv"
    if kind == "directory":
        target.mkdir()
        (target / "inside.csv").write_bytes(data)
        return target
    if kind in ("dev-null", "dev-zero"):
        return Path("/" + kind.replace("-", "/"))
    if kind == "missing":
        return target
    if kind == "truncated-gzip":
        content = truncated_gzip(data, fraction)
    elif kind == "corrupt-gzip":
        content = corrupt_gzip(data, fraction, garbage)
        assume(not gunzips(content))  # an overwrite that happens to keep the archive valid is no test
    elif kind == "utf-16":
        content = text.encode(utf16)
    elif kind == "latin-1":
        lines = text.splitlines(keepends=True)
        at = 1 + int(fraction * (len(lines) - 2))
        lines[at] = lines[at].replace("W", "Wé", 1) if "W" in lines[at] else "é" + lines[at]
        content = "".join(lines).encode("latin-1")
    elif kind == "nul":
        at = int(fraction * (len(data) - 1))
        content = data[:at] + b"\x00" + data[at:]
    elif kind == "huge-line":
        longest = max(MAX_LENGTH.values())
        lines = text.splitlines(keepends=True)
        lines[1] = lines[1].replace("W", "W" + "x" * (longest * 50 + int(fraction * 10_000)), 1)
        content = "".join(lines).encode("utf-8")
    elif kind == "random-bytes":
        content = bytes((b * 37 + i) % 256 for i, b in enumerate(garbage * 64))
    elif kind == "empty":
        content = b""
    elif kind == "blank":
        content = b"\n  \n\t\n"
    elif kind == "header-only":
        content = data.split(b"\n", 1)[0] + b"\n"
    else:  # json where a table is expected
        content = b'{"systems": [1, 2, 3], "lp": "cs-en"}\n'
    target.write_bytes(content)
    return target


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(spec=broken_inputs(), command=st.sampled_from(COMMANDS))
def test_broken_inputs_get_one_line_and_status_2(spec, command, store_url, tmp_path_factory, monkeypatch):
    assume(not (command[0] == "score" and spec[0] in PLAIN_TEXT))
    monkeypatch.setenv("DATABASE_URL", store_url)
    monkeypatch.setenv("MTLB_NO_DEMO", "1")
    folder = tmp_path_factory.mktemp("fuzz")
    path = materialise(spec, valid_inputs(), folder)
    argv = [a.replace("FILE", str(path)) for a in command]
    before = stored_judgments(store_url)
    code, _out, err = run_cli(argv)
    assert_refused(code, err, command[0], path.name)
    assert stored_judgments(store_url) == before == 0


def test_column_widths_match_the_store():
    """Validation refuses exactly what the store's columns cannot hold."""
    from leaderboard.storage import models as m
    widths = {"campaign": m.campaigns.c.name, "lp": m.language_pairs.c.lp, "assessment": m.judgments.c.assessment,
              "worker": m.workers.c.name, "hit": m.judgments.c.hit, "segment": m.segments.c.key,
              "system": m.systems.c.name, "item_type": m.judgments.c.item_type, "doc": m.segments.c.doc}
    assert {k: c.type.length for k, c in widths.items()} == MAX_LENGTH


def test_truncated_archive_is_named_as_such(valid, tmp_path):
    """A cut .gz is a truncated archive wherever the cut falls, not a bad score on some line."""
    for cut in (0.05, 0.3, 0.6, 0.95, 0.999):
        path = tmp_path / f"ad-cut{cut}-good-stnd.csv.gz"
        path.write_bytes(truncated_gzip(valid["stnd"] * 40, cut))
        code, _out, err = run_cli(["rank", "--input", str(path)])
        assert_refused(code, err, "rank", path.name)
        assert "truncated gzip archive" in err


def test_all_workers_failing_qc_names_the_way_out(tmp_path):
    """Every worker scores the degraded references above the real ones: QC removes them all."""
    frame = small_campaign(n_workers=3, n_items=60, seed=4)
    frame.loc[frame["item_type"] == "BAD_REF", "raw"] = 90.0
    frame.loc[frame["item_type"] == "REF", "raw"] = 10.0
    path = write_canonical(frame, tmp_path / "flat.csv")
    code, _out, err = run_cli(["rank", "--input", str(path), "--qc", "paired-t"])
    assert code == 2 and "Traceback" not in err
    assert "all 3 worker(s) failed quality control" in err
    assert "--qc none" in err and "--qc-alpha" in err
    code, out, err = run_cli(["rank", "--input", str(path), "--qc", "none", "--json"])
    assert code == 0, err


# ---- real processes ------------------------------------------------------------------------
def mtlb(args: list[str], env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "leaderboard.cli", *args], capture_output=True, text=True,
                          env=env, timeout=120)


def test_real_processes_refuse_broken_inputs(valid, tmp_path):
    env = {**os.environ, "MTLB_DATA_DIR": str(tmp_path / "data"), "MTLB_MAX_INPUT_BYTES": "100000"}
    env.pop("DATABASE_URL", None)
    folder = tmp_path / "inputs"
    folder.mkdir()
    cut = folder / "ad-cut-good-stnd.csv.gz"
    cut.write_bytes(truncated_gzip(valid["stnd"], 0.5))
    utf16 = folder / "judgments-utf16.csv"
    utf16.write_bytes(valid["canonical"].decode("utf-8").encode("utf-16"))
    big = folder / "too-big.csv"
    big.write_bytes(valid["canonical"] * 200)  # over the 100 kB limit set above
    cases = [(["ingest", str(folder)], folder.name, "is a directory"),
             (["ingest", "/dev/zero"], "/dev/zero", "not a regular file"),
             (["rank", "--input", str(cut)], cut.name, "truncated gzip archive"),
             (["ingest", str(utf16)], utf16.name, "UTF-16"),
             (["ingest", str(big)], big.name, "limit"),
             (["ingest", str(folder / "nowhere.csv")], "nowhere.csv", "not found")]
    for args, name, words in cases:
        result = mtlb(args, env)
        assert_refused(result.returncode, result.stderr, args[0], name)
        assert words in result.stderr, result.stderr
    database = tmp_path / "data" / "mtlb.sqlite"
    assert not database.exists() or Store(f"sqlite:///{database}").campaigns().empty
