"""mt-metrics-eval data folders: `mtlb meta-eval --mtme DIR` on the parity sample laid out the way the
reference tool stores it gives the reference tool's own values, and bad files are refused with their place."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.ingest.mtme import read_mtme

SEGMENTS = range(1801, 2001)


def lay_out(sample, root):
    """The sample's human and metric scores in an MTME test-set folder (segments renumbered 1..200)."""
    human = pd.read_csv(sample / "human.csv")
    seg = pd.read_csv(sample / "seg.tsv", sep="\t", header=None,
                      names=["metric", "lp", "testset", "system", "segment", "score"])
    folder = root / "newstest2020"
    for sub in ("sources", "references", "system-outputs/zh-en", "human-scores", "metric-scores/zh-en"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / "sources" / "zh-en.txt").write_text("".join(f"source {i}\n" for i in SEGMENTS))
    (folder / "references" / "zh-en.refA.txt").write_text("".join(f"ref {i}\n" for i in SEGMENTS))
    systems = sorted(set(human["system"]) | set(seg["system"]))
    lines = []
    for system in systems:
        (folder / "system-outputs" / "zh-en" / f"{system}.txt").write_text("".join(f"out {i}\n" for i in SEGMENTS))
        scores = human[human["system"] == system].set_index("segment")["z"]
        lines += [f"{system}\t{float(scores[i])!r}" if i in scores.index else f"{system}\tNone" for i in SEGMENTS]
    (folder / "human-scores" / "zh-en.mqm.seg.score").write_text("\n".join(lines) + "\n")
    for metric, part in seg.groupby("metric"):
        rows = []
        for system in systems:
            scores = part[part["system"] == system].set_index("segment")["score"]
            rows += [f"{system}\t{float(scores.get(i, 0.0))!r}" for i in SEGMENTS]
        (folder / "metric-scores" / "zh-en" / f"{metric}-refA.seg.score").write_text("\n".join(rows) + "\n")
    return folder


@pytest.fixture()
def folder(shared, tmp_path):
    sample = shared / "mtme-parity-sample"
    if not sample.exists():
        pytest.skip("the mt-metrics-eval parity sample is not available")
    return sample, lay_out(sample, tmp_path)


def test_meta_eval_of_a_folder_gives_the_reference_tools_values(folder, capsys):
    sample, root = folder
    expected = json.loads((sample / "mtme_expected.json").read_text(encoding="utf-8"))
    assert main(["meta-eval", "--mtme", str(root), "--lp", "zh-en", "--draws", "50", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["gold"] == "mqm" and sorted(out["systems"]) == sorted(expected["systems"])
    got = {m["metric"].removesuffix("-refA"): m for m in out["metrics"]}
    assert set(got) == set(expected["metrics"])
    for metric, values in expected["metrics"].items():
        assert got[metric]["acc_eq"] == pytest.approx(values["acc_eq"], abs=1e-9)
        assert got[metric]["spa"] == pytest.approx(values["spa"], abs=1e-4)
        assert got[metric]["sys_accuracy"] == pytest.approx(values["sys_accuracy"], abs=1e-12)
    # the reference the metrics name (refA) would never be a system
    assert out["excluded_systems"]["reference"] == []


def test_reader_keeps_golds_texts_and_references(folder):
    _, root = folder
    data = read_mtme(root, "zh-en")
    assert data.segments == 200 and set(data.human["gold"]) == {"mqm"}
    assert data.references == {f"{m}-refA": "refA" for m in ("BAQ_dyn", "SWSS+METEOR", "TER", "YiSi-2", "chrF")}
    assert data.texts["ref:refA"][0] == "ref 1801" and len(data.texts) == 2 + 9


def test_refusals_name_file_line_and_column(folder):
    _, root = folder
    score = root / "human-scores" / "zh-en.mqm.seg.score"
    lines = score.read_text().splitlines()
    for i, text, column, words in ((5, "DeepMind.381\thigh", "score", "not a number"),
                                   (5, "DeepMind.381\tinf", "score", "finite"),
                                   (5, "DeepMind.381 1.0 2.0", None, "system<TAB>score"),
                                   (201, "DeepMind.381\t1.0", "system", "has 201 lines")):
        broken = list(lines)
        broken[i - 1] = text
        score.write_text("\n".join(broken) + "\n")
        with pytest.raises(InputError) as info:
            read_mtme(root, "zh-en")
        assert info.value.file == str(score) and info.value.column == column and words in info.value.message
        assert info.value.line == (1 if "201 lines" in words else i)
    score.write_text("\n".join(lines) + "\n")
    metric = root / "metric-scores" / "zh-en" / "TER-refA.seg.score"
    rows = metric.read_text().splitlines()
    rows[9] = rows[9].split("\t")[0] + "\tNone"
    metric.write_text("\n".join(rows) + "\n")
    with pytest.raises(InputError) as info:
        read_mtme(root, "zh-en")
    assert (info.value.file, info.value.line, info.value.column) == (str(metric), 10, "score")
    with pytest.raises(InputError, match="sources/en-de.txt"):
        read_mtme(root, "en-de")
    with pytest.raises(InputError, match="esa"):
        read_mtme(root, "zh-en", golds=["esa"])
