"""WMT23 DA+SQM: the published results read back exactly, the 11-column annotation CSV, the `wmt23`
protocol against scipy on data built in that format, and published tables as a comparable year."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.ingest import detect_format, read_judgments
from leaderboard.ingest.wmt23_results import read_wmt23_results
from leaderboard.publish.published_tables import results_rankings

TUPLE = re.compile(r"^\S+ \('(.+)', (\d+), (\S+), (\S+), (\S+)\)$")


def _results(shared: Path) -> Path:
    return shared / "wmt-now" / "WMT23.results.txt"


def test_results_reader_returns_the_files_values(shared):
    path = _results(shared)
    frame = read_wmt23_results(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    # every score line of the file, read here with a plain pattern, equals a row (exact float parse)
    expected = [m.groups() for m in map(TUPLE.match, lines) if m]
    assert len(expected) == len(frame) == 124
    for row, (system, n, z, ave, h) in zip(frame.itertuples(), expected):
        assert (row.system, row.n, row.ave_z, row.ave, row.h) == (system, int(n), float(z), float(ave), float(h))
        assert lines[row.line - 1].endswith(f"('{system}', {n}, {z}, {ave}, {h})")
    assert sorted(frame["lp"].unique()) == ["cs-uk", "de-en", "en-cs", "en-de", "en-ja", "en-zh", "ja-en", "zh-en"]
    cs_uk = frame[frame["lp"] == "cs-uk"]
    assert cs_uk["wins"].tolist() == [11, 11, 11, 6, 6, 6, 6, 6, 3, 1, 1, 1, 1, 0]
    assert cs_uk["cluster"].tolist() == [1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4]
    assert list(zip(cs_uk["rank_lo"], cs_uk["rank_hi"])) == [(1, 3)] * 3 + [(4, 8)] * 5 + [
        (9, 11), (9, 13), (9, 13), (10, 13), (10, 13), (14, 14)]
    # the printed Ave column is the rounded Ave of the score line
    for lp, part in frame.groupby("lp"):
        assert (part["ave"].diff().dropna() <= 0).all()   # ranking order: raw Ave descending
    en_ja = frame[frame["lp"] == "en-ja"].set_index("system")
    assert (en_ja.loc["SKIM", "rank_lo"], en_ja.loc["SKIM", "rank_hi"]) == (2, 5)


def test_results_become_rankings_and_a_comparable_year(shared, capsys):
    rankings = results_rankings(read_wmt23_results(_results(shared)), str(_results(shared)))
    first = rankings[0]
    assert first["lp"] == "cs-uk" and first["signature"].startswith("published|")
    assert first["systems"][2]["system"] == "Human-refA" and first["systems"][2]["human"] is True
    assert main(["longitudinal", "--year", f"2023={_results(shared)}", "--year", f"again={_results(shared)}",
                 "--lp", "cs-uk", "--calibration", "ONLINE-B", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    comparison = result["comparisons"][0]
    assert comparison["lp"] == "cs-uk" and comparison["calibration"]["raw"]["delta"] == 0


def test_published_table_as_a_campaign(shared, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MTLB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    from leaderboard.accounts.auth import create_user
    from leaderboard.storage import Store, default_url
    store = Store(default_url())
    create_user(store, "olga", "organiser-pass", "organiser")
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("organiser-pass\n"))
    assert main(["publish", "--campaign", "wmt23", "--user", "olga", "--password-stdin",
                 "--published-table", str(_results(shared)), "--lp", "en-de", "--json"]) == 0
    published = json.loads(capsys.readouterr().out)["published"]
    assert [(p["lp"], p["version"]) for p in published] == [("en-de", 1)]
    snap = store.snapshot("wmt23", "en-de", "adequacy")["ranking"]
    assert snap["systems"][0]["system"] == "GPT4-5shot" and snap["systems"][0]["rank_lo"] == 1


def _write_wmt23(path: Path, rows: list[list]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    return path


def _campaign(shared: Path, tmp_path: Path, seed: int = 7) -> tuple[Path, pd.DataFrame]:
    """Annotations in the WMT23 CSV format for the cs-uk systems of the published results."""
    systems = [s["system"] for s in results_rankings(read_wmt23_results(_results(shared)), "x")[0]["systems"]][:6]
    rng = np.random.default_rng(seed)
    rows, t = [], 1_690_000_000
    for user in range(5):
        for doc in ("docA", "docB", "docC"):
            for seg in range(1, 9):
                for k, system in enumerate(systems):
                    if rng.random() < 0.15:
                        continue
                    score = 70 if user == 4 else int(np.clip(round(rng.normal(85 - 4 * k, 12)), 0, 100))
                    rows.append([f"u{user}", system, seg, "TGT", "ces", "ukr", score, doc, "False", t, t + 30])
                    t += 60
    path = _write_wmt23(tmp_path / "wmt23.csv", rows)
    frame = pd.DataFrame(rows, columns=["user", "system", "seg", "type", "sl", "tl", "score", "doc", "isdoc", "t0", "t1"])
    return path, frame


def test_reader_maps_the_csv(shared, tmp_path):
    path, raw = _campaign(shared, tmp_path)
    assert detect_format(path) == "wmt23"
    frame = read_judgments(path)
    assert len(frame) == len(raw) and set(frame["lp"]) == {"cs-uk"} and set(frame["item_type"]) == {"SYSTEM"}
    assert frame["segment"].tolist() == [f"{d}:{s}" for d, s in zip(raw["doc"], raw["seg"])]
    assert (frame["seconds"] == 30).all() and frame["raw"].tolist() == raw["score"].astype(float).tolist()
    # a header line, date-time stamps and a document-level row
    text = ("UserID,SystemID,SegmentID,Type,SourceLanguage,TargetLanguage,Score,DocumentID,IsDocument?,StartTime,"
            "EndTime\nu1,S,1,TGT,eng,deu,80,d1,False,2023-08-01 10:00:00,2023-08-01 10:00:42\n"
            "u1,S,1,TGT,eng,deu,70,d1,True,2023-08-01 10:01:00,2023-08-01 10:01:05\n")
    other = tmp_path / "header.csv"
    other.write_text(text, encoding="utf-8")
    read = read_judgments(other, "wmt23")
    assert len(read) == 1 and read["seconds"].iloc[0] == 42 and read["lp"].iloc[0] == "en-de"


@pytest.mark.parametrize("row, column, message", [
    (["u1", "S", "1", "TGT", "ces", "ukr", "80", "d1", "False", "1"], None, "expected 11 comma-separated fields"),
    (["u1", "S", "1", "TGT", "ces", "ukr", "101", "d1", "False", "1", "2"], "Score (field 7)", "from 0 to 100"),
    (["u1", "S", "1", "TGT", "ces", "ukr", "50.5", "d1", "False", "1", "2"], "Score (field 7)", "whole number"),
    (["u1", "S", "1", "TGT", "ces", "ukr", "nan", "d1", "False", "1", "2"], "Score (field 7)", "whole number"),
    (["u1", "S", "1", "XYZ", "ces", "ukr", "50", "d1", "False", "1", "2"], "Type (field 4)", "unknown item type"),
    (["u1", "S", "1", "TGT", "ces", "ukr", "50", "d1", "Maybe", "1", "2"], "IsDocument? (field 9)", "True or False"),
    (["u1", "S", "1", "TGT", "ces", "ukr", "50", "d1", "False", "1", "yesterday"], "EndTime (field 11)", "date"),
    (["u1", "", "1", "TGT", "ces", "ukr", "50", "d1", "False", "1", "2"], "SystemID (field 2)", "empty value"),
    (["u1", "S", "1", "TGT", "ces", "ukr", "50", "d1", "False", "5", "2"], "times (fields 10-11)", "negative time"),
])
def test_malformed_rows(tmp_path, row, column, message):
    good = ["u1", "S", "2", "TGT", "ces", "ukr", "50", "d1", "False", "1", "2"]
    path = _write_wmt23(tmp_path / "bad.csv", [good, row])
    with pytest.raises(InputError) as err:
        read_judgments(path, "wmt23")
    assert err.value.file == str(path) and err.value.line == 2 and err.value.column == column
    assert message in err.value.message


def test_protocol_against_scipy(shared, tmp_path, capsys):
    path, raw = _campaign(shared, tmp_path)
    assert main(["rank", "--input", str(path), "--protocol", "wmt23", "--resamples", "0", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert "qc:none" in got["signature"] and "std:worker-sd0one" in got["signature"]
    # independent computation: z per rater and pair (sample sd; a rater who never varies: sd 1)
    frame = raw.assign(segment=raw["doc"] + ":" + raw["seg"].astype(str), raw=raw["score"].astype(float))
    g = frame.groupby("user")["raw"]
    sd = g.transform(lambda s: s.std(ddof=1)).replace(0.0, 1.0)
    frame["z"] = (frame["raw"] - g.transform("mean")) / sd
    assert frame.loc[frame["user"] == "u4", "z"].eq(0).all()
    frame["h"] = np.minimum(np.round(frame["raw"] / 25) + 1, 4)
    seg = frame.groupby(["system", "segment"])[["raw", "z", "h"]].mean().reset_index()
    table = seg.groupby("system")[["raw", "z", "h"]].mean().sort_values("raw", ascending=False)
    assert [s["system"] for s in got["systems"]] == table.index.tolist()   # sorted by raw Ave
    by = {s["system"]: s for s in got["systems"]}
    for name, row in table.iterrows():
        assert by[name]["ave"] == pytest.approx(row["raw"], abs=1e-12)
        assert by[name]["ave_z"] == pytest.approx(row["z"], abs=1e-12)
        assert by[name]["h"] == pytest.approx(row["h"], abs=1e-12)
    wide = seg.pivot(index="segment", columns="system", values="raw")
    names = table.index.tolist()
    for a in names:
        wins = 0
        for b in names:
            if a == b:
                continue
            shared_segs = wide[[a, b]].dropna()
            p = stats.mannwhitneyu(shared_segs[a], shared_segs[b], alternative="greater", method="asymptotic").pvalue
            assert got["pvalues"][a][b] == pytest.approx(p, rel=1e-9)
            wins += p < 0.05
        assert by[a]["wins"] == wins
    # the organisers' cluster rule: a cluster ends after position i when that system's wins = N - i
    n = len(names)
    ends = [by[s]["wins"] == n - i for i, s in enumerate(names, start=1)]
    clusters = list(np.cumsum([True] + ends[:-1]))
    assert [by[s]["cluster"] for s in names] == clusters


def test_published_table_is_a_year_on_the_across_years_page(shared, tmp_path, monkeypatch):
    """The organisers' WMT23 table, published as a campaign, is compared with a later campaign of the same pair."""
    from test_app_pages import fresh_store, run_app, shown_table
    from leaderboard.publish.snapshots import publish_published_tables, publish_rankings
    from leaderboard.webapp.pages.longitudinal import TRACK_COLUMNS
    store = fresh_store(tmp_path, monkeypatch)
    rankings = results_rankings(read_wmt23_results(_results(shared)), str(_results(shared)))
    publish_published_tables(store, "a-wmt23", rankings, "olga", lp="cs-uk")
    rng = np.random.default_rng(2)
    rows = [{"campaign": "b-later", "lp": "cs-uk", "assessment": "adequacy", "worker": f"w{w}", "hit": f"w{w}",
             "position": seg * 3 + k + 1, "segment": str(seg), "system": system, "item_type": "SYSTEM",
             "raw": float(np.clip(round(q + rng.normal(0, 9)), 0, 100))}
            for w in range(3) for seg in range(20) for k, (system, q) in
            enumerate((("ONLINE-B", 88.0), ("GPT4-5shot", 86.0), ("NLLB_Greedy", 70.0)))]
    from leaderboard.schema import validate_judgments
    store.load_judgments(validate_judgments(pd.DataFrame(rows)), file_name="later.csv", input_format="canonical")
    publish_rankings(store, "b-later", "olga", protocol="wmt23", n_resamples=0)
    at = run_app("longitudinal.py")
    assert at.multiselect(key="years").value == ["a-wmt23", "b-later"]
    tracks = shown_table(at, TRACK_COLUMNS, "best_system")
    first = tracks[tracks.year == "a-wmt23"].iloc[0]
    published = {s["system"]: s for s in rankings[0]["systems"]}
    assert float(first.ave) == pytest.approx(published[first.best_system]["ave"], abs=0.05)
    # its Leaderboard shows the published table with the H score; its System page says no judgments are stored
    from htmltables import page_tables
    at = run_app(params={"campaign": "a-wmt23", "lp": "cs-uk", "assessment": "adequacy"})
    table = page_tables(at)[0]
    assert table["System"].str.replace(" †", "").tolist() == [s["system"] for s in rankings[0]["systems"]]
    assert [float(v) for v in table["H"]] == pytest.approx([s["h"] for s in rankings[0]["systems"]], abs=5e-4)
    at = run_app("system.py", params={"campaign": "a-wmt23", "lp": "cs-uk", "assessment": "adequacy",
                                      "system": "ONLINE-B"})
    assert any("not stored" in i.value for i in at.info)
