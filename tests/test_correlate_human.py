"""`mtlb correlate` leaves out human translations that the metric scores do not cover (WMT22 cs-en, de-en)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from leaderboard.cli import main

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
pytestmark = pytest.mark.skipif(not (DATA / "wmt22-general").exists(), reason="../shared/data not present")
REASON = "human translation without metric scores"


def _metrics_tsv(tmp_path: Path) -> Path:
    """The organisers' automatic scores as a WMT metrics TSV (as in the README); no HUMAN-* rows."""
    auto = pd.read_csv(DATA / "wmt22-general" / "automatic-scores.tsv", sep="\t")
    path = tmp_path / "wmt22.metrics.tsv"
    cols = list(auto.columns)
    out = pd.DataFrame({"metric": auto[cols[4]], "lp": auto[cols[0]], "testset": "generaltest2022",
                        "system": auto[cols[1]], "score": auto[cols[5]]})
    assert not out["system"].str.startswith("HUMAN").any()
    out.to_csv(path, sep="\t", header=False, index=False)
    return path


def _rank(tmp_path: Path, capsys, lp: str) -> Path:
    code = main(["rank", "--input", str(DATA / "wmt22-toen-da" / f"ad-{lp.replace('-', '')}-good-stnd.csv"),
                 "--resamples", "0", "--json"])
    assert code == 0
    path = tmp_path / f"{lp}.rank.json"
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    return path


def _correlate(capsys, *argv: str, as_json: bool = True):
    code = main(["correlate", *argv, "--resamples", "0"] + (["--json"] if as_json else []))
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out) if as_json else out


@pytest.mark.parametrize("lp, human, n_mt", [("cs-en", "HUMAN-C", 11), ("de-en", "HUMAN-B", 9)])
def test_unscored_human_left_out_and_reported(tmp_path, capsys, lp, human, n_mt) -> None:
    rank = _rank(tmp_path, capsys, lp)
    ranking = json.loads(rank.read_text())
    assert [s["system"] for s in ranking["systems"] if s["human"]] == [human]
    metrics = _metrics_tsv(tmp_path)
    args = ("--human", str(rank), "--metric-scores", str(metrics), "--lp", lp)
    result = _correlate(capsys, *args)
    assert result["excluded"] == [{"system": human, "reason": REASON}]
    assert result["n_systems"] == n_mt == len(ranking["systems"]) - 1 and human not in result["systems"]
    assert result["skipped"] == []
    in_file = pd.read_csv(metrics, sep="\t", header=None)
    assert {m["metric"] for m in result["metrics"]} == set(in_file.loc[in_file[1] == lp, 0])
    # the same numbers as leaving it out by hand, and as scipy over the MT systems
    by_hand = _correlate(capsys, *args, "--exclude", human, "--include-human")
    assert [m["pearson"] for m in by_hand["metrics"]] == [m["pearson"] for m in result["metrics"]]
    from scipy.stats import pearsonr
    z = {s["system"]: s["ave_z"] for s in ranking["systems"]}
    bleu = in_file[(in_file[1] == lp) & (in_file[0] == "bleu-all")]
    pairs = [(z[next(k for k in z if k.rsplit(".", 1)[0] == name)], score) for name, score in zip(bleu[3], bleu[4])]
    r = pearsonr([p[0] for p in pairs], [p[1] for p in pairs])[0]
    assert next(m for m in result["metrics"] if m["metric"] == "bleu-all")["pearson"] == pytest.approx(r, abs=1e-9)
    text = _correlate(capsys, *args, as_json=False)
    assert f"note: {human} is a human translation" in text and "--include-human" in text
    # --include-human: as before, every metric without the human translation's score is skipped
    kept = _correlate(capsys, *args, "--include-human")
    assert kept["excluded"] == [] and kept["metrics"] == []
    assert {s["metric"] for s in kept["skipped"]} == {m["metric"] for m in result["metrics"]}
    assert all(s["missing"] == [human] for s in kept["skipped"])


def test_organisers_mark_wins_and_other_missing_systems_are_still_reported(tmp_path, capsys) -> None:
    rank = _rank(tmp_path, capsys, "cs-en")
    ranking = json.loads(rank.read_text())
    for s in ranking["systems"]:
        if s["system"] == "HUMAN-C":
            s["human"] = False  # an organiser says this one is an MT system after all
    marked = tmp_path / "marked.json"
    marked.write_text(json.dumps(ranking))
    metrics = _metrics_tsv(tmp_path)
    result = _correlate(capsys, "--human", str(marked), "--metric-scores", str(metrics), "--lp", "cs-en")
    assert result["excluded"] == [] and result["metrics"] == []
    assert all(s["missing"] == ["HUMAN-C"] for s in result["skipped"])
    # an MT system missing from one metric: that metric is skipped, nothing dropped silently
    rows = pd.read_csv(metrics, sep="\t", header=None)
    rows = rows[~((rows[0] == "bleu-all") & (rows[3] == "Online-Y"))]
    fewer = tmp_path / "fewer.tsv"
    rows.to_csv(fewer, sep="\t", header=False, index=False)
    result = _correlate(capsys, "--human", str(rank), "--metric-scores", str(fewer), "--lp", "cs-en")
    assert result["excluded"] == [{"system": "HUMAN-C", "reason": REASON}]
    assert result["skipped"] == [{"metric": "bleu-all", "missing": ["Online-Y.4"]}]
    assert result["n_systems"] == 11
