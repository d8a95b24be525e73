"""`mtlb rank --json` gives exactly what it gave before the reading and ranking paths were made fast.

tests/data/rank_frozen/ holds the JSON that `mtlb rank --input FILE --json` printed at commit eb13918
(before issue 34's changes) for the WMT21/22 release files in ../shared/data, the shipped demo
campaigns and a small synthetic pooled year (bench/synth_release.py). The same command now must print
the same JSON: the same systems, scores, p-values, clusters and rank shares. Numbers agree to twelve
significant digits rather than to the bit: the bootstrap sums are matrix products, and the BLAS kernel a
CPU selects (its vector width, fused multiply-add) may round their last bit differently on another
machine; every label, order, count and cluster must be equal.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

from leaderboard.cli import main

ROOT = Path(__file__).resolve().parents[1]
FROZEN = Path(__file__).with_name("data") / "rank_frozen"
DEMO = ROOT / "leaderboard" / "demo_data"

RELEASE = [  # (frozen file, release folder, file, extra arguments)
    ("wmt21-toen-da.ad-csen.json", "wmt21-toen-da", "ad-csen-good-stnd.csv", []),
    ("wmt21-toen-da.ad-deen.json", "wmt21-toen-da", "ad-deen-good-stnd.csv", []),
    ("wmt22-toen-da.ad-csen.json", "wmt22-toen-da", "ad-csen-good-stnd.csv", []),
    ("wmt22-toen-da.ad-deen.json", "wmt22-toen-da", "ad-deen-good-stnd.csv", []),
    ("wmt22-toen-da.ad-lven.json", "wmt22-toen-da", "ad-lven-good-stnd.csv", []),
    ("wmt22-toen-da.ad-csen.standardise-worker.json", "wmt22-toen-da", "ad-csen-good-stnd.csv",
     ["--standardise", "worker"]),
]
DEMOS = [
    ("demo.wmt21-cs-en.json", DEMO / "wmt21-cs-en" / "ad-csen-good-stnd.csv.gz"),
    ("demo.wmt22-cs-en.json", DEMO / "wmt22-cs-en" / "ad-csen-good-stnd.csv.gz"),
    ("demo.simulated.json", DEMO / "simulated" / "simulated-campaign.csv.gz"),
]


def differences(got, want, where: str = "") -> list[str]:
    """Where two JSON values differ: structure, strings and integers exactly, floats to 1e-12 relative."""
    if isinstance(want, dict) and isinstance(got, dict):
        if set(got) != set(want):
            return [f"{where}: keys {sorted(set(got) ^ set(want))}"]
        return [d for k in want for d in differences(got[k], want[k], f"{where}.{k}")]
    if isinstance(want, list) and isinstance(got, list):
        if len(got) != len(want):
            return [f"{where}: length {len(got)} != {len(want)}"]
        return [d for i, (g, w) in enumerate(zip(got, want)) for d in differences(g, w, f"{where}[{i}]")]
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        return [] if math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-15) else [f"{where}: {got!r} != {want!r}"]
    return [] if (type(got) is type(want) and got == want) else [f"{where}: {got!r} != {want!r}"]


def assert_as_frozen(got, frozen: str) -> None:
    found = differences(got, json.loads((FROZEN / frozen).read_text(encoding="utf-8")))
    assert not found, "\n".join(found[:20])


def rank_json(capsys, args: list[str]):
    capsys.readouterr()
    assert main(["rank", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("frozen,folder,name,extra", RELEASE, ids=[r[0] for r in RELEASE])
def test_release_files_rank_as_before(shared, capsys, frozen, folder, name, extra):
    got = rank_json(capsys, ["--input", str(shared / folder / name), *extra])
    assert_as_frozen(got, frozen)


@pytest.mark.parametrize("frozen,path", DEMOS, ids=[d[0] for d in DEMOS])
def test_demo_campaigns_rank_as_before(capsys, frozen, path):
    got = rank_json(capsys, ["--input", str(path)])
    assert_as_frozen(got, frozen)


def test_synthetic_pooled_year_ranks_as_before(capsys, tmp_path):
    """Three language pairs in one release-layout file: several rankings from one read."""
    spec = importlib.util.spec_from_file_location("synth_release", ROOT / "bench" / "synth_release.py")
    synth = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(synth)
    path = synth.write_release(tmp_path / "ad-small-good-stnd.csv", n_judgments=20000, n_lps=3, n_systems=6)
    got = rank_json(capsys, ["--input", str(path)])
    assert [r["lp"] for r in got] == ["cs-en", "de-en", "lv-en"]
    assert_as_frozen(got, "synthetic.20k-3lps-6systems.json")


def test_the_comparison_sees_a_changed_number_or_label():
    want = {"systems": [{"system": "A", "ave": 70.123456789, "cluster": 1}]}
    assert not differences({"systems": [{"system": "A", "ave": 70.123456789 * (1 + 1e-15), "cluster": 1}]}, want)
    assert differences({"systems": [{"system": "A", "ave": 70.1234568, "cluster": 1}]}, want)
    assert differences({"systems": [{"system": "B", "ave": 70.123456789, "cluster": 1}]}, want)
    assert differences({"systems": [{"system": "A", "ave": 70.123456789, "cluster": 2}]}, want)
