"""Metric submissions: every format, malformed input with locations, validation, WMT20 real data, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from leaderboard.cli import main
from leaderboard.errors import InputError
from metrics.submissions import read_submission, validate_submission

SYSTEMS = ["A", "B", "C", "D", "E", "F"]
SEGMENTS = ["1", "2", "3"]
HUMAN = pd.DataFrame({"lp": "cs-en", "system": SYSTEMS, "z": [0.5, 0.3, 0.1, 0.0, -0.2, -0.4]})
CAMPAIGN = {"cs-en": set(SYSTEMS)}

# format name → (level, header line or None, row renderer)
FORMATS = {
    "tsv-sys5": ("system", None, lambda r: f"M\tcs-en\tt22\t{r['system']}\t{r['score']}"),
    "tsv-sys6": ("system", None, lambda r: f"M\tcs-en\tt22\tA\t{r['system']}\t{r['score']}"),
    "tsv-seg6": ("segment", None, lambda r: f"M\tcs-en\tt22\t{r['system']}\t{r['segment']}\t{r['score']}"),
    "tsv-seg7": ("segment", None, lambda r: f"M\tcs-en\tt22\tdoc1\t{r['system']}\t{r['segment']}\t{r['score']}"),
    "csv-sys": ("system", "metric,lp,system,score", lambda r: f"M,cs-en,{r['system']},{r['score']}"),
    "csv-seg": ("segment", "metric,lp,system,segment,score",
                lambda r: f"M,cs-en,{r['system']},{r['segment']},{r['score']}"),
}


def _rows(level: str) -> list[dict]:
    """Scores that agree with HUMAN (higher is better)."""
    human = dict(zip(HUMAN["system"], HUMAN["z"]))
    if level == "system":
        return [{"system": s, "segment": None, "score": round(20 + 10 * human[s], 4)} for s in SYSTEMS]
    return [{"system": s, "segment": g, "score": round(20 + 10 * human[s] + int(g), 4)}
            for s in SYSTEMS for g in SEGMENTS]


def _write(tmp_path: Path, fmt: str, rows: list[dict] | None = None, *, name: str | None = None,
           edit=None) -> tuple[Path, int]:
    """Write a file in ``fmt``; ``edit(lines)`` may corrupt it. Returns (path, line offset of data)."""
    level, header, render = FORMATS[fmt]
    lines = [render(r) for r in (rows if rows is not None else _rows(level))]
    if edit is not None:
        edit(lines)
    offset = 1 if header else 0
    text = "\n".join(([header] if header else []) + lines) + "\n"
    path = tmp_path / (name or f"{fmt}.{'csv' if header else 'tsv'}")
    path.write_text(text, encoding="utf-8")
    return path, offset


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_valid_file_round_trips_and_validates(tmp_path: Path, fmt: str) -> None:
    level = FORMATS[fmt][0]
    path, offset = _write(tmp_path, fmt)
    frame = read_submission(path)
    rows = _rows(level)
    assert frame.attrs["level"] == level
    assert list(frame["system"]) == [r["system"] for r in rows]
    assert np.allclose(frame["score"], [r["score"] for r in rows])
    assert list(frame["line"]) == list(range(1 + offset, len(rows) + 1 + offset))
    if level == "segment":
        assert list(frame["segment"]) == [r["segment"] for r in rows]
    summary = validate_submission(frame, CAMPAIGN, {"cs-en": set(SEGMENTS)}, True, HUMAN)
    (group,) = summary["groups"]
    assert group["systems"] == 6 and group["segments"] == (3 if level == "segment" else 0)
    # scores are an increasing linear function of the human z (plus a per-segment constant): r = 1
    assert group["pearson_human"] == pytest.approx(1.0, abs=1e-9)
    assert summary["level"] == level


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_wrong_column_count_names_line(tmp_path: Path, fmt: str) -> None:
    def edit(lines):
        lines[3] = lines[3].rsplit("\t" if "\t" in lines[3] else ",", 1)[0]  # drop the score column
    path, offset = _write(tmp_path, fmt, edit=edit)
    with pytest.raises(InputError) as err:
        read_submission(path, level=FORMATS[fmt][0])
    assert err.value.file == str(path) and err.value.line == 4 + offset
    assert "columns" in err.value.message


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("bad", ["NaN", "nan", "inf", "", "NA", "1,5x"])
def test_nan_or_bad_score_names_line_and_column(tmp_path: Path, fmt: str, bad: str) -> None:
    if bad == "1,5x" and fmt.startswith("csv"):
        bad = "1.5x"
    def edit(lines):
        sep = "\t" if "\t" in lines[2] else ","
        lines[2] = lines[2].rsplit(sep, 1)[0] + sep + bad
    path, offset = _write(tmp_path, fmt, edit=edit)
    with pytest.raises(InputError) as err:
        read_submission(path, level=FORMATS[fmt][0])
    assert (err.value.file, err.value.line, err.value.column) == (str(path), 3 + offset, "score")


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_duplicate_rows_name_both_lines(tmp_path: Path, fmt: str) -> None:
    path, offset = _write(tmp_path, fmt, edit=lambda lines: lines.append(lines[1]))
    n = len(_rows(FORMATS[fmt][0]))
    with pytest.raises(InputError) as err:
        read_submission(path)
    assert err.value.file == str(path) and err.value.line == n + 1 + offset
    assert f"first given on line {2 + offset}" in err.value.message


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_unknown_system_names_line_and_column(tmp_path: Path, fmt: str) -> None:
    rows = _rows(FORMATS[fmt][0])
    rows[4] = {**rows[4], "system": "Online-X"}
    path, offset = _write(tmp_path, fmt, rows)
    frame = read_submission(path)
    campaign = {"cs-en": set(SYSTEMS) | {"Online-X.2", "Online-X.3"}}  # ambiguous without the index
    with pytest.raises(InputError) as err:
        validate_submission(frame, campaign, None, True, None)
    assert (err.value.file, err.value.line, err.value.column) == (str(path), 5 + offset, "system")
    assert "'Online-X'" in err.value.message and "did you mean Online-X.2, Online-X.3" in err.value.message


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_names_without_index_match_like_correlate(tmp_path: Path, fmt: str) -> None:
    """The evaluation package names systems without the campaign's .N index: accepted, stored as .N."""
    rows = [{**r, "system": {"A": "A", "B": "B"}.get(r["system"], r["system"])} for r in _rows(FORMATS[fmt][0])]
    path, _ = _write(tmp_path, fmt, rows)
    frame = read_submission(path)
    campaign = {"cs-en": {"A.4", "B.0", "C", "D", "E", "F"}}
    summary = validate_submission(frame, campaign, None, True, None)
    assert summary["names"] == {"cs-en": {"A": "A.4", "B": "B.0"}}
    from metrics.submissions import with_campaign_names
    assert set(with_campaign_names(frame, summary["names"])["system"]) == campaign["cs-en"]


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_empty_file(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"empty-{fmt}"
    path.write_text("" if "tsv" in fmt else "\n \n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_submission(path)
    assert err.value.file == str(path) and "empty" in err.value.message


def test_header_only_csv(tmp_path: Path) -> None:
    path = tmp_path / "h.csv"
    path.write_text("metric,lp,system,score\n", encoding="utf-8")
    with pytest.raises(InputError, match="no scores") as err:
        read_submission(path)
    assert err.value.line == 1


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_bad_utf8_names_line(tmp_path: Path, fmt: str) -> None:
    path, offset = _write(tmp_path, fmt)
    lines = path.read_bytes().split(b"\n")
    lines[2 + offset] = lines[2 + offset].replace(b"M", b"M\xe9", 1)
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(InputError) as err:
        read_submission(path)
    assert err.value.file == str(path) and err.value.line == 3 + offset and "UTF-8" in err.value.message


def test_ambiguous_six_columns(tmp_path: Path) -> None:
    sys6, _ = _write(tmp_path, "tsv-sys6")
    seg6, _ = _write(tmp_path, "tsv-seg6")
    assert read_submission(sys6).attrs["level"] == "system"
    assert read_submission(seg6).attrs["level"] == "segment"
    # a system-level file whose systems are numbers: the file name or --level decides
    rows = [{"system": str(i), "segment": None, "score": float(i)} for i in range(3)]
    named, _ = _write(tmp_path, "tsv-sys6", rows, name="M.sys.score")
    assert read_submission(named).attrs["level"] == "system"
    other, _ = _write(tmp_path, "tsv-sys6", rows, name="scores.txt")
    assert read_submission(other, level="system").attrs["level"] == "system"
    with pytest.raises(InputError, match="a system-level WMT file has 5 or 6 columns, not 7") as err:
        read_submission(_write(tmp_path, "tsv-seg7")[0], level="system")
    assert err.value.line == 1


def test_canonical_header_errors(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("metric,lp,system,score,comment\nM,cs-en,A,1,hi\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_submission(path)
    assert (err.value.line, err.value.column) == (1, "comment")
    path.write_text("metric,lp,score\nM,cs-en,1\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_submission(path)
    assert (err.value.line, err.value.column) == (1, "system")
    path.write_text("metric,lp,system,score\nM,cs-en,,1\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_submission(path)
    assert (err.value.line, err.value.column) == (2, "system")


# ---- validation against the campaign -----------------------------------------------------------

def _frame(level: str = "system", **changes) -> pd.DataFrame:
    rows = _rows(level)
    frame = pd.DataFrame([{"metric": "M", "lp": "cs-en", "testset": "t22", "refset": None, "doc": None,
                           **r, "line": i + 1} for i, r in enumerate(rows)])
    return frame


def test_missing_system_is_an_error() -> None:
    frame = _frame()
    with pytest.raises(InputError, match=r"no scores for 1 campaign system\(s\).*: F") as err:
        validate_submission(frame[frame["system"] != "F"], CAMPAIGN, file="f.tsv")
    assert err.value.column == "system" and err.value.file == "f.tsv"


def test_human_translations_follow_the_organisers_marks() -> None:
    frame = _frame()
    without_f = frame[frame["system"] != "F"]
    # F is not named like a human translation: marked as one, a metric need not score it
    summary = validate_submission(without_f, CAMPAIGN, human_systems={"F": True})
    assert summary["humans_not_scored"] == {"cs-en": ["F"]}
    # a HUMAN-named system the organisers marked as MT must be scored like any system
    campaign = {"cs-en": CAMPAIGN["cs-en"] | {"HUMAN-B"}}
    assert validate_submission(frame, campaign)["humans_not_scored"] == {"cs-en": ["HUMAN-B"]}
    with pytest.raises(InputError, match=r"no scores for 1 campaign system\(s\).*: HUMAN-B"):
        validate_submission(frame, campaign, human_systems={"HUMAN-B": False})


def test_unknown_lp_and_segments() -> None:
    frame = _frame("segment")
    with pytest.raises(InputError, match="language pair 'cs-en' is not in the campaign") as err:
        validate_submission(frame, {"de-en": set(SYSTEMS)})
    assert err.value.line == 1 and err.value.column == "lp"
    with pytest.raises(InputError, match="unknown segment '3'") as err:
        validate_submission(frame, CAMPAIGN, {"cs-en": {"1", "2"}})
    assert err.value.line == 3 and err.value.column == "segment"
    with pytest.raises(InputError, match=r"system 'A' lacks scores for 1 segment\(s\).*e\.g\. 4"):
        validate_submission(frame, CAMPAIGN, {"cs-en": {"1", "2", "3", "4"}})
    # without a segment list every system must still score the same segments
    with pytest.raises(InputError, match=r"system 'B' lacks scores for 1 segment\(s\).*e\.g\. 2"):
        validate_submission(frame.drop(index=4), CAMPAIGN)


def test_nan_in_frame_is_refused_by_validation() -> None:
    frame = _frame()
    frame.loc[2, "score"] = np.nan
    with pytest.raises(InputError) as err:
        validate_submission(frame, CAMPAIGN)
    assert (err.value.line, err.value.column) == (3, "score")


def test_direction_against_human_scores() -> None:
    frame = _frame()
    assert validate_submission(frame, CAMPAIGN, higher_is_better=True, human=HUMAN)["groups"][0]["pearson_human"] > 0.99
    with pytest.raises(InputError, match="declared lower-is-better but correlate negatively") as err:
        validate_submission(frame, CAMPAIGN, higher_is_better=False, human=HUMAN)
    assert err.value.column == "score"
    flipped = frame.assign(score=-frame["score"])
    validate_submission(flipped, CAMPAIGN, higher_is_better=False, human=HUMAN)
    # no declared direction: nothing to check, the (raw) correlation is still reported
    summary = validate_submission(flipped, CAMPAIGN, higher_is_better=None, human=HUMAN)
    assert summary["groups"][0]["pearson_human"] == pytest.approx(-1.0)
    # too few systems for a reliable sign: no check
    few = {"cs-en": {"A", "B", "C"}}
    validate_submission(frame[frame["system"].isin(few["cs-en"])], few, higher_is_better=False, human=HUMAN)


def test_direction_of_known_metrics() -> None:
    ter = _frame().assign(metric="TER", score=lambda f: 80 - f["score"])  # raw error rate, lower is better
    validate_submission(ter, CAMPAIGN, higher_is_better=False, human=HUMAN)
    with pytest.raises(InputError, match="TER is declared higher-is-better, but as an error rate"):
        validate_submission(ter, CAMPAIGN, higher_is_better=True)
    negated = ter.assign(score=-ter["score"])  # the WMT release form
    validate_submission(negated, CAMPAIGN, higher_is_better=True, human=HUMAN)
    with pytest.raises(InputError, match="as a negated error rate"):
        validate_submission(negated, CAMPAIGN, higher_is_better=False)
    bleu = _frame().assign(metric="BLEU")
    with pytest.raises(InputError, match="BLEU is declared lower-is-better"):
        validate_submission(bleu, CAMPAIGN, higher_is_better=False)


# ---- the WMT20 Metrics release ------------------------------------------------------------------

@pytest.fixture(scope="module")
def wmt20(shared: Path) -> Path:
    return shared / "wmt20-metrics"


def _human(wmt20: Path, lp: str) -> pd.DataFrame:
    raw = pd.read_csv(wmt20 / f"metrics-ad-sys-scores-{lp}.csv", sep=r"\s+")
    return pd.DataFrame({"lp": lp, "system": raw["SYS"], "z": raw["Z.SCR"]})


def test_wmt20_release_reads_and_reproduces_published_pearson(wmt20: Path) -> None:
    frame = read_submission(wmt20 / "metric-sys-scores.tsv")
    assert len(frame) == 668 and frame.attrs["level"] == "system" and frame.attrs["format"] == "wmt-tsv"
    assert set(frame["refset"]) == {"newstest2020"}
    published = pd.read_csv(wmt20 / "published-correlations.tsv", sep="\t")
    for lp in ("cs-en", "en-cs"):
        human = _human(wmt20, lp)
        mt = set(human["system"]) - {"Human-A.0"}
        part = frame[(frame["lp"] == lp) & frame["system"].isin(mt)]
        complete = part.groupby("metric")["system"].nunique()
        part = part[part["metric"].isin(complete[complete == len(mt)].index)]
        summary = validate_submission(part, {lp: mt}, None, True, human)
        ours = {g["metric"]: g["pearson_human"] for g in summary["groups"]}
        pub = published[(published["lp"] == lp) & (published["metric"] != "HUMAN_RAW")]
        assert len(pub) >= 20
        for row in pub.itertuples():
            assert ours[row.metric] == pytest.approx(row.pearson, abs=0.0006), (lp, row.metric)


def test_wmt20_human_translation_is_an_unknown_system(wmt20: Path) -> None:
    path = wmt20 / "metric-sys-scores.tsv"
    frame = read_submission(path)
    human = _human(wmt20, "cs-en")
    expected_line = next(i for i, ln in enumerate(path.read_text().splitlines(), 1)
                         if "\tcs-en\t" in ln and "\tHuman-A.0\t" in ln)
    with pytest.raises(InputError) as err:
        validate_submission(frame[frame["lp"] == "cs-en"], {"cs-en": set(human["system"])}, None, True, human)
    assert (err.value.line, err.value.column) == (expected_line, "system")
    assert "Human-A.0" in err.value.message


# ---- CLI ---------------------------------------------------------------------------------------

def test_cli_submit_wmt20(wmt20: Path, capsys) -> None:
    path = str(wmt20 / "metric-sys-scores.tsv")
    args = ["submit", path, "--lp", "cs-en", "--systems-from", str(wmt20 / "metrics-ad-sys-scores-cs-en.csv")]
    assert main([*args, "--metric", "chrF", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rows"] == 12 and out["stored"] is None
    assert out["groups"][0]["pearson_human"] == pytest.approx(0.872, abs=0.0006)  # published chrF r
    assert main([*args, "--metric", "TER", "--lower-is-better"]) == 2
    assert "TER is declared lower-is-better" in capsys.readouterr().err
    assert main([*args, "--metric", "NOPE"]) == 2
    assert "no rows with metric 'NOPE'" in capsys.readouterr().err


def test_cli_submit_systems_from_rank_json(tmp_path: Path, capsys) -> None:
    rank = {"lp": "cs-en", "systems": [{"system": s, "z": z} for s, z in zip(HUMAN["system"], HUMAN["z"])]}
    (tmp_path / "rank.json").write_text(json.dumps(rank), encoding="utf-8")
    path, _ = _write(tmp_path, "csv-seg")
    assert main(["submit", str(path), "--systems-from", str(tmp_path / "rank.json"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["level"] == "segment" and out["groups"][0]["segments"] == 3
    assert out["groups"][0]["pearson_human"] == pytest.approx(1.0)
    assert main(["submit", str(path), "--systems-from", str(tmp_path / "rank.json"), "--lower-is-better"]) == 2
    assert "correlate negatively" in capsys.readouterr().err
    seg_file = tmp_path / "t.cs-en.src.cs"
    seg_file.write_text("a\nb\n", encoding="utf-8")
    assert main(["submit", str(path), "--systems-from", str(tmp_path / "rank.json"),
                 "--segments-from", str(seg_file)]) == 2
    assert "line 4, column 'segment': unknown segment '3'" in capsys.readouterr().err


def test_cli_submit_stores_into_campaign(tmp_path: Path, sqlite_url: str, capsys) -> None:
    from formats import small_campaign, write_canonical
    from leaderboard.ingest import read_judgments
    from leaderboard.storage import Store

    judgments = read_judgments(write_canonical(small_campaign(), tmp_path / "j.csv"))
    store = Store(sqlite_url)
    store.load_judgments(judgments, file_name="j.csv", input_format="canonical")
    systems = sorted(judgments.loc[judgments["item_type"] == "SYSTEM", "system"].unique())
    path = tmp_path / "m.csv"
    path.write_text("metric,lp,system,score\n" + "".join(f"M,cs-en,{s},{i}.5\n" for i, s in enumerate(systems)),
                    encoding="utf-8")
    campaign = judgments["campaign"].iloc[0]
    assert main(["submit", str(path), "--campaign", campaign, "--database-url", sqlite_url, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    (sid,) = out["stored"]
    stored = store.metric_scores(sid)
    assert list(stored["system"]) == systems and list(stored["score"]) == [i + 0.5 for i in range(len(systems))]
    # an unknown system stores nothing
    before = len(store.metric_submissions(campaign, include_private=True))
    path.write_text("metric,lp,system,score\nM,cs-en,ghost,1\n", encoding="utf-8")
    assert main(["submit", str(path), "--campaign", campaign, "--database-url", sqlite_url]) == 2
    assert "line 2, column 'system': unknown system 'ghost'" in capsys.readouterr().err
    assert len(store.metric_submissions(campaign, include_private=True)) == before


def test_wmt_system_score_files_are_read_through_the_guards(tmp_path):
    """`mtlb submit --systems-from ad-sys-scores-…`: read like every other file (gzip, encoding), and a
    malformed Z.SCR cell is refused with its line and column, not as an internal error."""
    import gzip

    from leaderboard.errors import InputError
    from metrics.submissions import read_human_systems
    body = "SYS Z.SCR\nA.1 0.25\nB.2 -0.5\n"
    path = tmp_path / "ad-sys-scores-cs-en.csv.gz"
    path.write_bytes(gzip.compress(body.encode()))
    systems, human = read_human_systems(str(path), "cs-en")
    assert systems == {"cs-en": {"A.1", "B.2"}}
    assert human.set_index("system")["z"].to_dict() == {"A.1": 0.25, "B.2": -0.5}
    bad = tmp_path / "bad.csv"
    bad.write_text("SYS Z.SCR\nA.1 0.25\nB.2 oops\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_human_systems(str(bad), "cs-en")
    assert (err.value.line, err.value.column) == (3, "Z.SCR") and "oops" in err.value.message
    with pytest.raises(InputError) as err:
        read_human_systems(str(bad), None)
    assert err.value.code == "no_lp"
