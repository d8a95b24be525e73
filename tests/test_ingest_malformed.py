"""Every malformed variant of each format is refused with file/line/column and stores nothing."""

from __future__ import annotations


import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.ingest import read_judgments
from leaderboard.storage import Store

from formats import small_campaign, write_appraise, write_canonical, write_wmt_stnd


def _store_rows(url: str) -> int:
    frame = Store(url).campaigns()
    return int(frame["judgments"].sum()) if not frame.empty else 0


def _ingest(url: str, *args: str) -> int:
    return main(["ingest", *args, "--database-url", url, "--json"])


def test_valid_formats_round_trip(tmp_path, sqlite_url, capsys):
    frame = small_campaign()
    canonical = write_canonical(frame, tmp_path / "j.csv")
    appraise = write_appraise(frame.assign(campaign="c2"), tmp_path / "appraise.csv")
    stnd, sd = write_wmt_stnd(frame, tmp_path)
    assert _ingest(sqlite_url, str(canonical)) == 0
    assert _ingest(sqlite_url, str(appraise), "--campaign", "c2") == 0
    assert _ingest(sqlite_url, str(stnd), "--worker-stats", str(sd), "--campaign", "c3") == 0
    out = capsys.readouterr().out
    assert out.count('"judgments": 36') == 3
    stored = Store(sqlite_url).judgments("c3").sort_values(["worker", "position"]).reset_index(drop=True)
    assert stored["raw"].round(9).tolist() == frame["raw"].tolist()  # raw = z*sd + mean round trip


MUTATIONS = ["drop_column", "non_numeric", "out_of_range", "unknown_type", "duplicate", "empty_key",
             "bad_utf8", "header_only", "empty_file", "negative_position"]


def _mutate(text: str, kind: str, row: int) -> tuple[bytes, int | None, str | None]:
    """Damage line ``row`` (1-based data row) of a canonical CSV; return bytes, bad line, column."""
    lines = text.splitlines()
    header = lines[0].split(",")
    line_no = row + 1
    cells = lines[line_no - 1].split(",")
    col = None
    if kind == "drop_column":
        idx = header.index("item_type")
        lines = [",".join(c for i, c in enumerate(line.split(",")) if i != idx) for line in lines]
        return ("\n".join(lines) + "\n").encode(), 1, None
    if kind == "non_numeric":
        col = "raw"; cells[header.index(col)] = "abc"
    elif kind == "out_of_range":
        col = "raw"; cells[header.index(col)] = "100.5"
    elif kind == "unknown_type":
        col = "item_type"; cells[header.index(col)] = "GOLD"
    elif kind == "empty_key":
        col = "worker"; cells[header.index(col)] = ""
    elif kind == "negative_position":
        col = "position"; cells[header.index(col)] = "-3"
    elif kind == "duplicate":
        lines.append(lines[line_no - 1])
        return ("\n".join(lines) + "\n").encode(), len(lines), "position"
    elif kind == "bad_utf8":
        data = ("\n".join(lines) + "\n").encode()
        start = sum(len(x) + 1 for x in lines[: line_no - 1])
        return data[:start] + b"\xff\xfe" + data[start:], line_no, None
    elif kind == "header_only":
        return (lines[0] + "\n").encode(), None, None
    elif kind == "empty_file":
        return b"", None, None
    lines[line_no - 1] = ",".join(cells)
    return ("\n".join(lines) + "\n").encode(), line_no, col


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(MUTATIONS), row=st.integers(1, 36), seed=st.integers(0, 10_000))
def test_malformed_canonical_is_refused_and_store_unchanged(tmp_path, kind, row, seed):
    url = f"sqlite:///{tmp_path / 'm.sqlite'}"
    good = write_canonical(small_campaign(seed=seed).assign(campaign="base"), tmp_path / "base.csv")
    if _store_rows(url) == 0:
        assert _ingest(url, str(good)) == 0
    before = _store_rows(url)
    data, line, column = _mutate(good.read_text(), kind, row)
    bad = tmp_path / f"bad-{kind}.csv"
    bad.write_bytes(data)
    with pytest.raises(InputError) as err:
        read_judgments(bad, "canonical", campaign="other")
    assert err.value.file and "bad-" in err.value.file
    if line is not None:
        assert err.value.line == line, str(err.value)
    if column is not None:
        assert err.value.column == column, str(err.value)
    # the same file through the CLI, together with a good file: nothing at all is stored
    other = write_canonical(small_campaign(seed=seed + 1).assign(campaign="other"), tmp_path / "other.csv")
    assert _ingest(url, str(other), str(bad), "--input-format", "canonical") == 2
    assert _store_rows(url) == before


def test_cli_error_names_file_line_column(tmp_path, sqlite_url, capsys):
    good = write_canonical(small_campaign(), tmp_path / "j.csv")
    data, line, column = _mutate(good.read_text(), "out_of_range", 5)
    bad = tmp_path / "judgments.csv"
    bad.write_bytes(data)
    assert _ingest(sqlite_url, str(bad)) == 2
    err = capsys.readouterr().err
    assert "judgments.csv" in err and f"line {line}" in err and "column 'raw'" in err and "0-100" in err


def test_malformed_wmt_release_variants(tmp_path):
    stnd, sd = write_wmt_stnd(small_campaign(), tmp_path)
    text = stnd.read_text().splitlines()
    # a z score that is not a number
    cells = text[4].split("\t"); cells[10] = "oops"; text_bad = text[:4] + ["\t".join(cells)] + text[5:]
    bad = tmp_path / "bad-stnd.csv"; bad.write_text("\n".join(text_bad) + "\n")
    with pytest.raises(InputError) as err:
        read_judgments(bad, "wmt-stnd", worker_stats=sd)
    assert err.value.line == 5 and err.value.column == "score"
    # an unknown item type
    cells = text[3].split("\t"); cells[8] = "CHECK"; text_bad = text[:3] + ["\t".join(cells)] + text[4:]
    bad.write_text("\n".join(text_bad) + "\n")
    with pytest.raises(InputError) as err:
        read_judgments(bad, "wmt-stnd", worker_stats=sd)
    assert err.value.line == 4 and err.value.column == "type"
    # a missing column in the header
    bad.write_text("\n".join([text[0].replace("sys_id ", "")] + text[1:]) + "\n")
    with pytest.raises(InputError, match="sys_id"):
        read_judgments(bad, "wmt-stnd", worker_stats=sd)
    # a broken mean/sd print-out
    sd_bad = tmp_path / "sd.txt"; sd_bad.write_text('[1] "W0"\n[1] 50\n[1] many\n')
    with pytest.raises(InputError) as err:
        read_judgments(stnd, "wmt-stnd", worker_stats=sd_bad)
    assert err.value.line == 3


def test_malformed_appraise_variants(tmp_path):
    path = write_appraise(small_campaign(), tmp_path / "a.csv")
    lines = path.read_text().splitlines()
    bad = tmp_path / "bad-appraise.csv"
    bad.write_text("\n".join(lines[:6] + [lines[6] + ",extra"] + lines[7:]) + "\n")
    with pytest.raises(InputError) as err:
        read_judgments(bad, "appraise")
    assert err.value.line == 7
    cells = lines[2].split(","); cells[6] = "101"
    bad.write_text("\n".join(lines[:2] + [",".join(cells)] + lines[3:]) + "\n")
    with pytest.raises(InputError) as err:
        read_judgments(bad, "appraise")
    assert err.value.line == 3 and err.value.column == "score (field 7)"
    cells = lines[2].split(","); cells[3] = "XYZ"
    bad.write_text("\n".join(lines[:2] + [",".join(cells)] + lines[3:]) + "\n")
    with pytest.raises(InputError) as err:
        read_judgments(bad, "appraise")
    assert err.value.line == 3


def test_unknown_format_is_refused(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hello world\nthis is not a judgment file\n")
    with pytest.raises(InputError, match="cannot tell the format") as err:
        read_judgments(path)
    assert err.value.code == "unknown_format" and "--" not in err.value.message
    from leaderboard.cli._hints import cli_message
    assert "--input-format" in cli_message(err.value)  # the command line names its option


def test_gzip_input_is_read(tmp_path):
    import gzip
    plain = write_canonical(small_campaign(), tmp_path / "j.csv")
    packed = tmp_path / "j.csv.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert len(read_judgments(packed)) == len(read_judgments(plain))


def _damage(lines: list[str], sep: str, row: int, field: int, value: str) -> list[str]:
    cells = lines[row].split(sep)
    cells[field] = value
    return lines[:row] + [sep.join(cells)] + lines[row + 1:]


# (format, field index, replacement, expected column) per damage kind
STND_DAMAGE = {"score": (10, "n/a", "score"), "type": (8, "GOLD", "type"), "worker": (1, "", "WorkerId")}
APPRAISE_DAMAGE = {"score": (6, "x1", "score (field 7)"), "range": (6, "250", "score (field 7)"), "type": (3, "GOLD", "type (field 4)"),
                   "fields": (9, "[],extra", None)}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fmt=st.sampled_from(["wmt-stnd", "appraise"]), kind=st.sampled_from(["a", "b", "c", "d"]),
       row=st.integers(1, 35), seed=st.integers(0, 1000))
def test_malformed_release_and_appraise_files_are_refused(tmp_path, fmt, kind, row, seed):
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    frame = small_campaign(seed=seed)
    if fmt == "wmt-stnd":
        path, stats = write_wmt_stnd(frame, tmp_path)
        damage = list(STND_DAMAGE.values())[("abcd".index(kind)) % len(STND_DAMAGE)]
        lines, sep, line_no, extra = path.read_text().splitlines(), "\t", row + 1, ["--worker-stats", str(stats)]
    else:
        path = write_appraise(frame, tmp_path / "appraise.csv")
        damage = list(APPRAISE_DAMAGE.values())["abcd".index(kind)]
        lines, sep, line_no, extra = path.read_text().splitlines(), ",", row, []
    field, value, column = damage
    bad = tmp_path / f"bad.{fmt}.csv"
    bad.write_text("\n".join(_damage(lines, sep, line_no - 1, field, value)) + "\n")
    assert _ingest(url, str(bad), "--input-format", fmt, *extra) == 2
    assert _store_rows(url) == 0
    with pytest.raises(InputError) as err:
        read_judgments(bad, fmt, worker_stats=extra[1] if extra else None)
    assert err.value.file and "bad." in err.value.file
    assert err.value.line == line_no, str(err.value)
    if column is not None:
        assert err.value.column == column, str(err.value)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(row=st.integers(0, 1), item=st.integers(1, 8),
       value=st.sampled_from(["", "abc", "101", "-1", "NaN"]))
def test_malformed_mturk_results_are_refused(tmp_path, row, item, value):
    import pandas as pd

    from conftest import ROOT

    example = pd.read_csv(ROOT / "data" / "examples" / "mturk-batch-results.csv", dtype=str,
                          keep_default_na=False)
    column = f"Answer.score_{item}"
    example.loc[row, column] = value
    bad = tmp_path / "bad-mturk.csv"
    example.to_csv(bad, index=False)
    url = f"sqlite:///{tmp_path / 'mt.sqlite'}"
    assert _ingest(url, str(bad), "--campaign", "mt") == 2
    assert _store_rows(url) == 0
    with pytest.raises(InputError) as err:
        read_judgments(bad, "mturk")
    assert err.value.file and "bad-mturk" in err.value.file
    assert err.value.line == row + 2, str(err.value)
    assert err.value.column == column, str(err.value)
