"""``mtlb longitudinal`` end to end on the real WMT21 and WMT22 into-English releases (cs-en, de-en).

Expected values come from the organisers' published tables (ad-sys-scores-<lp>.csv and
ad-seg-scores-<lp>.csv of each year), parsed here independently of the code under test.
"""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import mannwhitneyu

from leaderboard.cli import main

YEARS = {"2021": "wmt21-toen-da", "2022": "wmt22-toen-da"}
LPS = {"cs-en": "csen", "de-en": "deen"}
# data README, "Systems in both years"
SHARED = {
    "cs-en": {"Online-A.5": "Online-A.10", "Online-B.0": "Online-B.0", "Online-G.6": "Online-G.9",
              "Online-W.2": "Online-W.2", "Online-Y.3": "Online-Y.4", "CUNI-DocTransformer.4": "CUNI-DocTransformer.6"},
    "de-en": {"Online-A.12": "Online-A.8", "Online-B.11": "Online-B.0", "Online-G.14": "Online-G.7",
              "Online-W.3": "Online-W.2", "Online-Y.1": "Online-Y.3"},
}
# data README: three WMT21 de-en RAW.SCR values count judgments the release does not contain
WMT21_DEEN_RAW_OFF = {"UF.15", "P3AI.18", "Online-B.11"}


def year_args(shared, lps=("cs-en", "de-en")) -> list[str]:
    args = []
    for label, folder in YEARS.items():
        for lp in lps:
            base = shared / folder
            args += ["--year", f"{label}={base / f'ad-{LPS[lp]}-good-stnd.csv'}:{base / f'ad-{LPS[lp]}-trk-mean-sd.txt'}"]
    return args


def published(shared, label: str, lp: str) -> pd.DataFrame:
    table = pd.read_csv(shared / YEARS[label] / f"ad-sys-scores-{lp}.csv", sep=r"\s+")
    table = table.sort_values("Z.SCR", ascending=False).reset_index(drop=True)
    table["rank"] = np.arange(1, len(table) + 1)
    return table.set_index("SYS")


def segment_raw(shared, label: str, lp: str, system: str) -> np.ndarray:
    seg = pd.read_csv(shared / YEARS[label] / f"ad-seg-scores-{lp}.csv", sep=r"\s+")
    return seg.loc[seg["SYS"] == system, "RAW.SCR"].to_numpy(float)


def run_cli(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(argv)
    return rc, out.getvalue()


@pytest.fixture(scope="module")
def result(shared) -> dict:
    rc, text = run_cli(["longitudinal", *year_args(shared), "--json"])
    assert rc == 0
    return json.loads(text)


def exact(system: str, label: str, lp: str) -> bool:
    """Whether the release reproduces this published row exactly (data README)."""
    if label == "2021" and lp == "de-en":
        return system not in WMT21_DEEN_RAW_OFF
    if label == "2022" and lp == "de-en":
        return system in {"Online-W.2", "Online-B.0"}  # the published table counts a few more judgments
    return True


def check_scores(entry: dict, pub: pd.DataFrame, label: str, lp: str) -> None:
    row = pub.loc[entry["system"]]
    assert entry["rank"] == row["rank"]
    if exact(entry["system"], label, lp):
        assert entry["ave"] == pytest.approx(row["RAW.SCR"], abs=1e-9)
        assert entry["ave_z"] == pytest.approx(row["Z.SCR"], abs=1e-9)
        assert entry["n"] == row["N"] and entry["n_all"] == row["N.ALL"]
    elif label == "2021":  # RAW.SCR and N.ALL count raw-0 copies; z and N agree
        assert entry["ave_z"] == pytest.approx(row["Z.SCR"], abs=1e-9) and entry["n"] == row["N"]
        assert 0.5 < entry["ave"] - row["RAW.SCR"] < 1.0  # the raw-0 copies pull it down and entry["n_all"] < row["N.ALL"]
    else:
        assert entry["ave_z"] == pytest.approx(row["Z.SCR"], abs=1e-3)
        assert entry["ave"] == pytest.approx(row["RAW.SCR"], abs=1.0)
        assert 0 < row["N"] - entry["n"] <= 25


@pytest.mark.parametrize("lp", ["cs-en", "de-en"])
def test_best_system_per_year_equals_published_tables(result, shared, lp):
    track = next(t for t in result["tracks"] if t["lp"] == lp)
    assert [y["label"] for y in track["years"]] == ["2021", "2022"]
    for year in track["years"]:
        pub = published(shared, year["label"], lp)
        assert year["best"]["system"] == pub.index[0]  # the top of the published Ave z order
        assert year["n_systems"] == len(pub)
        check_scores(year["best"], pub, year["label"], lp)


@pytest.mark.parametrize("lp", ["cs-en", "de-en"])
def test_systems_in_both_years_with_published_scores_and_ranks(result, shared, lp):
    comp = next(c for c in result["comparisons"] if c["lp"] == lp)
    assert (comp["from"], comp["to"]) == ("2021", "2022")
    got = {s["from"]["system"]: s["to"]["system"] for s in comp["shared_systems"]}
    assert got == SHARED[lp]
    pub21, pub22 = published(shared, "2021", lp), published(shared, "2022", lp)
    for s in comp["shared_systems"]:
        check_scores(s["from"], pub21, "2021", lp)
        check_scores(s["to"], pub22, "2022", lp)
        assert s["raw"]["difference"] == pytest.approx(s["to"]["ave"] - s["from"]["ave"], abs=1e-12)
        assert s["gain_if_benchmark"] == pytest.approx(
            comp["best"]["to"]["ave"] - comp["best"]["from"]["ave"] + s["from"]["ave"] - s["to"]["ave"], abs=1e-9)
        assert "z" not in s  # z is not compared across campaigns
    # not the same systems (data README): never paired by the name rule
    names = set(got) | set(got.values())
    assert not names & {"CUNI-Transformer2018.1", "CUNI-Transformer.7", "HUMAN.0", "HUMAN-C", "HUMAN-B"}


def test_no_calibration_run_is_stated_plainly(result):
    for comp in result["comparisons"]:
        assert comp["calibration"] is None
        assert "share no calibration run" in comp["statement"] and "NOT gains" in comp["statement"]
        assert comp["campaigns"] == {"from": "wmt21-toen-da", "to": "wmt22-toen-da"}
        assert comp["same_campaign"] is False
    notes = " ".join(result["notes"])
    assert "raw" in notes and "standardised within each" in notes


def test_significance_matches_mann_whitney_on_the_published_segment_scores(result, shared):
    # cs-en reproduces the published segment table exactly in both years
    comp = next(c for c in result["comparisons"] if c["lp"] == "cs-en")
    for s in comp["shared_systems"]:
        a = segment_raw(shared, "2021", "cs-en", s["from"]["system"])
        b = segment_raw(shared, "2022", "cs-en", s["to"]["system"])
        hi, lo = (b, a) if b.mean() >= a.mean() else (a, b)
        p = mannwhitneyu(hi, lo, alternative="greater").pvalue
        assert s["raw"]["p"] == pytest.approx(p, rel=1e-9)
        assert s["raw"]["n_from"] == len(a) and s["raw"]["n_to"] == len(b)
    online_a = next(s for s in comp["shared_systems"] if s["name"] == "Online-A")
    assert online_a["raw"]["stars"] == "***" and online_a["raw"]["higher"] == "from"


def test_calibrated_gain_with_a_named_benchmark(shared, capsys):
    rc = main(["longitudinal", *year_args(shared, ["cs-en"]), "--lp", "cs-en", "--calibration", "Online-B", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    (comp,) = out["comparisons"]
    pub21, pub22 = published(shared, "2021", "cs-en"), published(shared, "2022", "cs-en")
    cal = comp["calibration"]["raw"]
    best21, best22 = pub21.index[0], pub22.index[0]  # Online-B is top in neither year
    expect = (pub22.loc[best22, "RAW.SCR"] - pub21.loc[best21, "RAW.SCR"]
              + pub21.loc["Online-B.0", "RAW.SCR"] - pub22.loc["Online-B.0", "RAW.SCR"])
    assert cal["gain"] == pytest.approx(expect, abs=1e-9)
    assert cal["delta"] == pytest.approx(pub21.loc["Online-B.0", "RAW.SCR"] - pub22.loc["Online-B.0", "RAW.SCR"], abs=1e-9)
    assert comp["calibration"]["z"] is None
    assert "assumes" in comp["statement"]


def test_text_report_and_errors(shared, capsys):
    rc = main(["longitudinal", *year_args(shared, ["cs-en"])])
    text = capsys.readouterr().out
    assert rc == 0 and "Facebook-AI.7" in text and "share no calibration run" in text
    rc = main(["longitudinal", *year_args(shared, ["cs-en"]), "--calibration", "CUNI-Transformer"])
    err = capsys.readouterr().err
    assert rc == 2 and "not judged in both" in err
    rc = main(["longitudinal", *year_args(shared, ["cs-en"])[:2]])
    assert rc == 2 and "two years" in capsys.readouterr().err
    rc = main(["longitudinal", "--year", "2021"])
    assert rc == 2 and "LABEL=FILE" in capsys.readouterr().err


def test_match_override_pairs_differently_named_systems(shared):
    rc, text = run_cli(["longitudinal", *year_args(shared, ["cs-en"]), "--match", "CUNI-Transformer2018=CUNI-Transformer",
                        "--match", "Online-Y.3=", "--json"])
    assert rc == 0
    comp = json.loads(text)["comparisons"][0]
    got = {s["from"]["system"]: (s["to"]["system"], s["via"]) for s in comp["shared_systems"]}
    assert got["CUNI-Transformer2018.1"] == ("CUNI-Transformer.7", "override")
    assert "Online-Y.3" not in got and len(got) == 6


def test_ranking_json_and_metric_inputs(shared, tmp_path):
    files = []
    for label in YEARS:
        pub = published(shared, label, "cs-en").reset_index()
        ranking = [{"lp": "cs-en", "assessment": "adequacy", "systems": [
            {"system": r["SYS"], "ave": r["RAW.SCR"], "ave_z": r["Z.SCR"], "n": int(r["N"]), "n_all": int(r["N.ALL"])}
            for _, r in pub.iterrows()]}]
        files.append(tmp_path / f"rank{label}.json")
        files[-1].write_text(json.dumps(ranking))
    # 2021 BLEU in the WMT metrics TSV layout (invented values), 2022 the organisers' automatic scores
    (tmp_path / "m21.tsv").write_text("".join(f"bleu-all\tcs-en\tnewstest2021\tA\t{s}\t{v}\n" for s, v in
                                              [("Facebook-AI.7", 50.0), ("Online-B.0", 45.0), ("Online-A.5", 47.0)]))
    rc, text = run_cli(["longitudinal", "--year", f"2021={files[0]}", "--year", f"2022={files[1]}",
                        "--metrics", f"2021={tmp_path / 'm21.tsv'}",
                        "--metrics", f"2022={shared / 'wmt22-general' / 'automatic-scores.tsv'}",
                        "--calibration", "Online-B", "--json"])
    assert rc == 0
    comp = json.loads(text)["comparisons"][0]
    assert comp["shared_systems"][0]["raw"]["p"] is None  # no segments in a ranking
    auto = pd.read_csv(shared / "wmt22-general" / "automatic-scores.tsv", sep="\t")
    bleu22 = auto[(auto.pair == "cs-en") & (auto.metric == "bleu-all")].set_index("system")["score"]
    m = comp["metrics"]["bleu-all"]
    assert m["best_from"] == 50.0 and m["best_to"] == pytest.approx(bleu22["Online-W"], abs=1e-12)
    assert m["calibration"]["gain"] == pytest.approx(bleu22["Online-W"] - 50.0 + 45.0 - bleu22["Online-B"], abs=1e-9)
    assert m["top_to"]["score"] == pytest.approx(bleu22.max(), abs=1e-12)


def test_match_applies_across_pairs_and_refuses_typos(shared, capsys):
    # CUNI-Transformer2018 is only in cs-en: the override must not break de-en
    rc = main(["longitudinal", *year_args(shared), "--match", "CUNI-Transformer2018=CUNI-Transformer", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and len(out["comparisons"]) == 2
    rc = main(["longitudinal", *year_args(shared), "--match", "CUNI-Transformer2019=CUNI-Transformer"])
    assert rc == 2 and "CUNI-Transformer2019" in capsys.readouterr().err


def test_calibration_missing_in_one_pair_is_reported_there(shared, capsys):
    rc = main(["longitudinal", *year_args(shared), "--calibration", "CUNI-DocTransformer", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    by_lp = {c["lp"]: c for c in out["comparisons"]}
    assert by_lp["cs-en"]["calibration"]["system"]["to"]["system"] == "CUNI-DocTransformer.6"
    assert by_lp["de-en"]["calibration"] is None and "not judged in both" in by_lp["de-en"]["statement"]
