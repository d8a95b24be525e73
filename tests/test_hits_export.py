"""`mtlb hits build`: files written, MTurk upload CSV, HTML task pages, determinism and refused input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from leaderboard.cli import main
from leaderboard.hits.builder import HIT_COLUMNS
from test_hits_structure import check_layout

TRICKY = 'Tom & "Jerry" <script>alert(1)</script> it\'s'


def write_inputs(folder: Path, n_systems: int = 4, n_lines: int = 60, lp: str = "cs-en") -> tuple[list[str], str]:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    hyps = []
    for s in range(n_systems):
        lines = [" ".join(f"s{s}l{g}w{i}" for i in range(int(rng.integers(3, 25)))) for g in range(n_lines)]
        lines[3] = TRICKY
        path = folder / f"newstest.{lp}.hyp.Sys-{s}.en"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        hyps.append(str(path))
    ref = folder / f"newstest.{lp}.ref.A.en"
    ref.write_text("\n".join(f"reference {g} & <b>" for g in range(n_lines)) + "\n", encoding="utf-8")
    return hyps, str(ref)


def build(tmp_path: Path, out: str, *extra: str, assessment: str = "adequacy") -> tuple[int, Path]:
    hyps, ref = write_inputs(tmp_path / "in")
    rc = main(["hits", "build", "--lp", "cs-en", "--assessment", assessment, "--hyp", *hyps, "--ref", ref,
               "--hits", "3", "--seed", "5", "--out", str(tmp_path / out), *extra])
    return rc, tmp_path / out


def test_build_writes_hits_upload_and_pages(tmp_path, capsys):
    rc, out = build(tmp_path, "batch", "--json", "--campaign", "demo")
    assert rc == 0
    manifest = json.loads(capsys.readouterr().out)
    assert manifest["hits"] == 3 and manifest["items"] == 300
    assert manifest["item_types"] == {"SYSTEM": 210, "REPEAT": 30, "REF": 30, "BAD_REF": 30}
    hits = pd.read_csv(out / "hits.csv", dtype=str, keep_default_na=False)
    assert tuple(hits.columns) == HIT_COLUMNS
    hits["position"] = hits["position"].astype(int)
    check_layout(hits, n_systems=4)
    assert set(hits["system"]) == {f"Sys-{s}" for s in range(4)}

    upload = pd.read_csv(out / "mturk-upload.csv", dtype=str, keep_default_na=False)
    assert len(upload) == 3 and upload.shape[1] == 4 + 100 * 6
    assert set(upload["campaign"]) == {"demo"} and set(upload["lp"]) == {"cs-en"}
    for _, row in upload.iterrows():
        items = hits[hits["hit"] == row["hit"]].sort_values("position")
        for k in (1, 37, 100):
            item = items.iloc[k - 1]
            assert row[f"item_{k}_text"] == item["text"] and row[f"item_{k}_type"] == item["item_type"]
            assert row[f"item_{k}_system"] == item["system"] and row[f"item_{k}_segment"] == item["segment"]
            assert row[f"item_{k}_pair"] == item["pair_id"] and row[f"item_{k}_ref"] == item["reference"]

    pages = sorted((out / "html").glob("*.html"))
    assert [p.stem for p in pages] == sorted(hits["hit"].unique())
    page = pages[0].read_text(encoding="utf-8")
    assert page.count('<section class="item') == 100
    assert page.count('type="range" min="0" max="100"') == 100
    assert re.findall(r'<option value="(\d+)">', page) == ["25", "50", "75"]
    assert all(f'name="score_{k}"' in page for k in range(1, 101))
    # nothing tells the worker which item is a control, and the raw text never reaches the markup
    for secret in ("BAD_REF", "REPEAT", "SYSTEM", "Sys-0", "-bad", "-rep"):
        assert secret not in page
    escaped = "Tom &amp; &quot;Jerry&quot; &lt;script&gt;alert(1)&lt;/script&gt; it&#x27;s"
    for path in pages:
        text = path.read_text(encoding="utf-8")
        assert "<script>alert" not in text and "<b>" not in text
        shown = set(hits.loc[hits["hit"] == path.stem, "text"])
        assert (escaped in text) == (TRICKY in shown)
        assert "reference 1 &amp; &lt;b&gt;" in text or "reference 1 " not in text
    assert any(TRICKY in set(hits.loc[hits["hit"] == p.stem, "text"]) for p in pages)


def test_fluency_upload_has_no_reference(tmp_path):
    rc, out = build(tmp_path, "fl", "--no-html", assessment="fluency")
    assert rc == 0 and not (out / "html").exists()
    upload = pd.read_csv(out / "mturk-upload.csv", dtype=str, keep_default_na=False)
    assert upload.shape[1] == 4 + 100 * 5 and not any(c.endswith("_ref") for c in upload.columns)
    hits = pd.read_csv(out / "hits.csv", dtype=str, keep_default_na=False)
    assert (hits["reference"] == "").all()


def test_same_seed_same_files(tmp_path):
    build(tmp_path, "a")
    build(tmp_path, "b")
    for name in ("hits.csv", "mturk-upload.csv", "batch.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    for page in (tmp_path / "a" / "html").glob("*.html"):
        assert page.read_bytes() == (tmp_path / "b" / "html" / page.name).read_bytes()


def _run_error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    return capsys.readouterr().err


def test_bad_inputs_name_file_and_line(tmp_path, capsys):
    hyps, ref = write_inputs(tmp_path / "in")
    base = ["hits", "build", "--lp", "cs-en", "--assessment", "adequacy", "--ref", ref, "--out", str(tmp_path / "o")]
    short = Path(hyps[1])
    short.write_text("\n".join(short.read_text(encoding="utf-8").splitlines()[:50]) + "\n", encoding="utf-8")
    err = _run_error(capsys, base + ["--hyp", *hyps])
    assert str(short) in err and "line 51" in err and "50 lines" in err

    hyps, ref = write_inputs(tmp_path / "in2")
    bad = Path(hyps[0])
    bad.write_bytes(b"fine line\nsecond\n\xff\xfe broken\n")
    err = _run_error(capsys, ["hits", "build", "--lp", "cs-en", "--assessment", "adequacy", "--ref", ref,
                              "--out", str(tmp_path / "o"), "--hyp", *hyps])
    assert str(bad) in err and "line 3" in err and "UTF-8" in err

    Path(hyps[0]).write_text("", encoding="utf-8")
    err = _run_error(capsys, ["hits", "build", "--lp", "cs-en", "--assessment", "adequacy", "--ref", ref,
                              "--out", str(tmp_path / "o"), "--hyp", *hyps])
    assert "empty" in err and hyps[0] in err

    hyps, ref = write_inputs(tmp_path / "in3")
    err = _run_error(capsys, ["hits", "build", "--lp", "de-en", "--assessment", "adequacy", "--ref", ref,
                              "--out", str(tmp_path / "o"), "--hyp", *hyps])
    assert "not de-en" in err
    odd = tmp_path / "in3" / "outputs.txt"
    odd.write_text("a b c\n", encoding="utf-8")
    err = _run_error(capsys, ["hits", "build", "--lp", "cs-en", "--assessment", "adequacy", "--ref", ref,
                              "--out", str(tmp_path / "o"), "--hyp", str(odd)])
    assert "<testset>.<lp>" in err
    err = _run_error(capsys, ["hits", "build", "--lp", "cs-en", "--assessment", "adequacy", "--ref", ref,
                              "--out", str(tmp_path / "o"), "--hits", "0", "--hyp", *hyps])
    assert "--hits" in err


def test_results_of_a_built_batch_load_back_through_the_cli(tmp_path, capsys):
    rc, out = build(tmp_path, "batch")
    assert rc == 0
    results = tmp_path / "results.csv"
    assert main(["simulate", "--hits", str(out), "--out", str(results), "--good", "2", "--random", "1",
                 "--lenient", "0", "--harsh", "0", "--assignments", "2", "--seed", "3"]) == 0
    from leaderboard.ingest import read_judgments
    frame = read_judgments(results)
    assert len(frame) == 600 and frame["worker"].nunique() == 3
    hits = pd.read_csv(out / "hits.csv", dtype=str, keep_default_na=False)
    assert set(zip(frame["system"], frame["segment"])) == set(zip(hits["system"], hits["segment"]))
