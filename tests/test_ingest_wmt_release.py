"""The WMT crowd-DA release importer against the organisers' published segment scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from leaderboard.errors import InputError
from leaderboard.ingest import detect_format, read_judgments
from leaderboard.ingest.wmt_release import read_worker_stats

CASES = [  # (folder, file code, lp, rows published in the release)
    ("wmt22-toen-da", "csen", "cs-en", 25070),
    ("wmt22-toen-da", "lven", "lv-en", 5782),
    ("wmt21-toen-da", "csen", "cs-en", 13069),
]


@pytest.mark.parametrize("folder,code,lp,rows", CASES)
def test_raw_scores_reproduce_published_segment_means(shared, folder, code, lp, rows):
    base = shared / folder
    frame = read_judgments(base / f"ad-{code}-good-stnd.csv", "wmt-stnd",
                           worker_stats=base / f"ad-{code}-trk-mean-sd.txt", lp=lp)
    assert len(frame) == rows
    assert frame["raw"].between(0, 100).all()
    assert np.array_equal(frame["raw"], np.round(frame["raw"]))  # DA raw scores are integers
    seg = pd.read_csv(base / f"ad-seg-scores-{lp}.csv", sep=r"\s+")
    mine = (frame[frame.item_type.isin(["SYSTEM", "REPEAT"])]
            .groupby(["system", "segment"]).agg(raw=("raw", "mean"), z=("z", "mean"), n=("raw", "size"))
            .reset_index())
    seg["SID"] = seg["SID"].astype(str)
    both = seg.merge(mine, left_on=["SYS", "SID"], right_on=["system", "segment"], how="outer",
                     indicator=True)
    assert (both["_merge"] == "both").all()
    np.testing.assert_allclose(both["raw"], both["RAW.SCR"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(both["z"], both["Z.SCR"], rtol=0, atol=1e-9)
    assert (both["n"] == both["N"]).all()


def test_de_en_rows_load_with_integer_raw_scores(shared):
    # de-en's published segment table was built from slightly different data (data README), so
    # only the row count and the integrality of reconstructed raw scores are checked here.
    base = shared / "wmt22-toen-da"
    frame = read_judgments(base / "ad-deen-good-stnd.csv", worker_stats=base / "ad-deen-trk-mean-sd.txt")
    assert len(frame) == 26154 and set(frame.lp) == {"de-en"}
    assert np.array_equal(frame["raw"], np.round(frame["raw"]))


def test_detects_release_format(shared):
    assert detect_format(shared / "wmt22-toen-da" / "ad-csen-good-stnd.csv") == "wmt-stnd"


def test_worker_sd_na_is_accepted(shared):
    stats = read_worker_stats(str(shared / "wmt21-toen-da" / "ad-deen-trk-mean-sd.txt"))
    assert np.isnan(stats.loc["M1106", "sd"])
    assert stats["sd"].notna().sum() == len(stats) - 1


def test_worker_missing_from_stats_is_refused(shared, tmp_path):
    base = shared / "wmt22-toen-da"
    stats = (base / "ad-csen-trk-mean-sd.txt").read_text().splitlines()
    first_worker = (base / "ad-csen-good-stnd.csv").read_text().splitlines()[1].split()[1]
    at = stats.index(f'[1] "{first_worker}"')
    (tmp_path / "stats.txt").write_text("\n".join(stats[:at] + stats[at + 3:]) + "\n")
    with pytest.raises(InputError, match=first_worker) as err:
        read_judgments(base / "ad-csen-good-stnd.csv", "wmt-stnd", worker_stats=tmp_path / "stats.txt")
    assert err.value.column == "WorkerId" and err.value.line >= 2


def test_cli_ingest_of_the_release_into_each_store(shared, db_url, capsys):
    import json

    from leaderboard.cli import main

    base = shared / "wmt22-toen-da"
    rc = main(["ingest", str(base / "ad-csen-good-stnd.csv"), "--worker-stats",
               str(base / "ad-csen-trk-mean-sd.txt"), "--input-format", "wmt-stnd", "--lp", "cs-en",
               "--database-url", db_url, "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["campaign"] == "wmt22-toen-da" and out["lp"] == "cs-en" and out["judgments"] == 25070
    assert out["item_types"] == {"BAD_REF": 2493, "REF": 2483, "REPEAT": 2431, "SYSTEM": 17663}
    # a second identical import is refused and stores nothing more
    assert main(["ingest", str(base / "ad-csen-good-stnd.csv"), "--worker-stats",
                 str(base / "ad-csen-trk-mean-sd.txt"), "--database-url", db_url]) == 2
    assert "already imported" in capsys.readouterr().err
    assert main(["campaigns", "--database-url", db_url, "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert [row["judgments"] for row in listing] == [25070]


def test_lp_filter_reports_what_it_left_out(tmp_path, sqlite_url, capsys):
    import json

    from leaderboard.cli import main

    from formats import small_campaign, write_canonical

    both = __import__("pandas").concat([small_campaign().assign(lp="cs-en"),
                                        small_campaign().assign(lp="de-en", hit=lambda f: f["hit"] + "d")])
    path = write_canonical(both, tmp_path / "two-lps.csv")
    assert main(["ingest", str(path), "--lp", "de-en", "--database-url", sqlite_url, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["lp"] == "de-en" and out["judgments"] == 36 and out["rows_of_other_lps_left_out"] == 36
