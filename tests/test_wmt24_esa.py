"""WMT24 ESA ranking as the organisers computed it (`--protocol wmt24-esa`): the sample against the organisers'
numbers, each rule on data built for it, the CLI contract and bad inputs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from leaderboard.cli import main
from leaderboard.human.clusters import cluster_ends, cluster_numbers
from leaderboard.human.selection import wmt24_selection
from leaderboard.ingest import read_judgments

CONTRACT = {"system", "ave", "wins", "losses", "rank_lo", "rank_hi", "cluster"}


def _rank(capsys, *args: str):
    code = main(["rank", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _args(csv: Path, docs: Path, lp: str = "en-cs") -> list[str]:
    return ["--input", str(csv), "--protocol", "wmt24-esa", "--lp", lp, "--documents", str(docs), "--qc", "none",
            "--cluster-rule", "wmt24", "--resamples", "0", "--json"]


def test_sample_reproduces_the_organisers_numbers(shared, capsys):
    now = shared / "wmt-now"
    code, out, _ = _rank(capsys, *_args(now / "esa_generalMT2024_wave2.en-cs.csv", now / "en-cs.docs"))
    assert code == 0
    got = json.loads(out)
    expected = json.loads((now / "esa24.en-cs.expected.json").read_text())
    assert got["lp"] == "en-cs" and {"lp", "systems"} <= set(got)
    assert [s["system"] for s in got["systems"]] == [s["system"] for s in expected["systems"]]
    deviation = 0.0
    for mine, theirs in zip(got["systems"], expected["systems"]):
        assert CONTRACT <= set(mine)
        deviation = max(deviation, abs(mine["ave"] - theirs["ave"]))
        for key in ("wins", "losses", "rank_lo", "rank_hi", "cluster", "n"):
            assert mine[key] == theirs[key], (mine["system"], key)
    assert deviation < 1e-6
    assert "domains:documents@" in got["signature"] and "qc:none" in got["signature"]
    # per-domain scores beside the overall one, whose mean it is
    first = got["systems"][0]
    assert set(first["domains"]) == {"literary", "news", "social", "speech"}
    assert np.mean(list(first["domains"].values())) == pytest.approx(first["ave"], abs=1e-12)


def test_no_worker_qc_by_default_and_tutorials_are_not_ranked(shared, capsys):
    now = shared / "wmt-now"
    args = [a for a in _args(now / "esa_generalMT2024_wave2.en-cs.csv", now / "en-cs.docs") if a not in ("--qc", "none")]
    code, out, _ = _rank(capsys, *args)
    got = json.loads(out)
    assert code == 0 and "qc:none" in got["signature"]
    assert not any("tutorial" in s["system"] for s in got["systems"]) and len(got["systems"]) == 16


def test_the_store_ranks_an_ingested_export_as_the_file(shared, tmp_path, monkeypatch, capsys):
    """Ingest + publish --documents gives the file's ranking: judgment-level document marks survive the store."""
    now = shared / "wmt-now"
    monkeypatch.setenv("MTLB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    from leaderboard.accounts.auth import create_user
    from leaderboard.storage import Store, default_url
    create_user(Store(default_url()), "olga", "organiser-pass", "organiser")
    assert main(["ingest", str(now / "esa_generalMT2024_wave2.en-cs.csv"), "--campaign", "esa24"]) == 0
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("organiser-pass\n"))
    assert main(["publish", "--campaign", "esa24", "--user", "olga", "--password-stdin", "--protocol", "wmt24-esa",
                 "--cluster-rule", "wmt24", "--documents", str(now / "en-cs.docs"), "--resamples", "0"]) == 0
    capsys.readouterr()
    snap = Store(default_url()).snapshot("esa24", "en-cs", "esa")["ranking"]
    code, out, _ = _rank(capsys, *_args(now / "esa_generalMT2024_wave2.en-cs.csv", now / "en-cs.docs"))
    from_file = json.loads(out)
    assert [(s["system"], s["rank_lo"], s["rank_hi"], s["cluster"], s["n"]) for s in snap["systems"]] == \
        [(s["system"], s["rank_lo"], s["rank_hi"], s["cluster"], s["n"]) for s in from_file["systems"]]
    assert [s["ave"] for s in snap["systems"]] == pytest.approx([s["ave"] for s in from_file["systems"]], abs=1e-12)
    assert snap["systems"][0]["domains"] == pytest.approx(from_file["systems"][0]["domains"])


def _appraise(path: Path, rows: list[tuple]) -> Path:
    """rows: (annotator, system, item, type, score, doc, start, end)."""
    lines = [f"{a},{s},{i},{t},eng,ces,{score},{doc},False,[],{start},{end}"
             for a, s, i, t, score, doc, start, end in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_selection_rules(tmp_path):
    path = _appraise(tmp_path / "a.csv", [
        ("r1", "sysA", 1, "TGT", 10, "d1", 100, 300),           # re-rated below: the later end time counts
        ("r1", "sysA", 1, "TGT", 90, "d1", 50, 200),            # earlier in time although later in the file
        ("r1", "sysA", 2, "BAD", 5, "d1#bad", 10, 20),          # not a TGT row
        ("r1", "ende-tutorial1", 3, "TGT", 50, "d2", 10, 20),   # a tutorial system
        ("r2", "sysA", 4, "TGT", 50, "d3#incomplete", 10, 20),  # unusable documents
        ("r2", "sysA", 5, "TGT", 50, "d4#dup", 10, 20),
        ("r2", "sysA", 6, "TGT", 50, "canary", 10, 20),
        ("r2", "sysA", 1, "TGT", 40, "d1", 10, 20),             # another rater of item 1
    ])
    frame = read_judgments(path)
    kept = wmt24_selection(frame)
    assert sorted(zip(kept["worker"], kept["segment"], kept["raw"])) == [("r1", "1", 10.0), ("r2", "1", 40.0)]
    # the position is the finishing order: the rating that ended last has the highest position
    r1 = frame[(frame["worker"] == "r1") & (frame["segment"] == "1")]
    assert r1.loc[r1["position"].idxmax(), "raw"] == 10.0


def test_domain_means_wins_need_the_higher_score_and_the_wmt24_cluster_rule():
    from leaderboard.human.ranking import rank_judgments
    rng = np.random.default_rng(5)
    rows = []
    quality = {"good": 90.0, "also-good": 89.5, "bad": 60.0}
    for seg in range(60):
        doc = f"test-en-news_d{seg // 10}" if seg < 40 else f"test-en-speech_d{seg // 10}"
        for system, q in quality.items():
            rows.append({"campaign": "c", "lp": "en-cs", "assessment": "esa", "worker": f"w{seg % 3}",
                         "hit": f"w{seg % 3}", "position": seg * 3 + len(rows) % 3 + 1, "segment": str(seg),
                         "system": system, "item_type": "SYSTEM",
                         "raw": float(np.clip(round(q + rng.normal(0, 6)), 0, 100)), "doc": doc})
    frame = pd.DataFrame(rows)
    frame["position"] = np.arange(1, len(frame) + 1)
    result = rank_judgments(frame, protocol="wmt24-esa", cluster_rule="wmt24", n_resamples=0)[0]
    by = {s["system"]: s for s in result["systems"]}
    for name in quality:
        part = frame[frame["system"] == name]
        news = part[part["doc"].str.contains("news")]["raw"].mean()
        speech = part[part["doc"].str.contains("speech")]["raw"].mean()
        assert by[name]["ave"] == pytest.approx((news + speech) / 2, abs=1e-12)   # not the plain mean
        assert by[name]["domains"] == pytest.approx({"news": news, "speech": speech})
    # p(a, b) = p(b, a): per domain scipy's default two-sided test, Stouffer across domains
    a, b = "good", "bad"
    zs = []
    for dom in ("news", "speech"):
        x = frame[(frame["system"] == a) & frame["doc"].str.contains(dom)].sort_values("segment")["raw"]
        y = frame[(frame["system"] == b) & frame["doc"].str.contains(dom)].sort_values("segment")["raw"]
        zs.append(stats.norm.ppf(1 - stats.wilcoxon(x.to_numpy(), y.to_numpy()).pvalue))
    p = 1 - stats.norm.cdf(sum(zs) / np.sqrt(2))
    assert result["pvalues"][a][b] == pytest.approx(p, rel=1e-9)
    assert result["pvalues"][b][a] == 1.0                      # the lower score never wins
    assert by["bad"]["losses"] == 2 and by["bad"]["rank_lo"] == 3 and by["good"]["wins"] == 1
    assert [by[s]["cluster"] for s in ("good", "also-good", "bad")] == [1, 1, 2]


def test_wmt24_cluster_rule_boundaries():
    p = np.array([[np.nan, 0.2, 0.01, 0.01],
                  [0.2, np.nan, 0.05, 0.01],
                  [0.01, 0.05, np.nan, 0.06],
                  [0.01, 0.01, 0.06, np.nan]])
    # after position 2: every pair across has p <= 0.05 (0.05 itself counts: "p > 0.05" keeps them together)
    assert cluster_ends(p, 0.05, "wmt24").tolist() == [False, True, False, True]
    assert cluster_numbers(cluster_ends(p, 0.05, "wmt24")).tolist() == [1, 1, 2, 2]
    assert cluster_ends(p, 0.05, "strict").tolist() == [False, False, False, True]  # strict needs p < 0.05


def _second_pair(now: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The sample relabelled as en-de (eng,deu), with its documents as en-de.docs."""
    text = (now / "esa_generalMT2024_wave2.en-cs.csv").read_text(encoding="utf-8").replace(",eng,ces,", ",eng,deu,")
    csv = tmp_path / "esa.en-de.csv"
    csv.write_text(text, encoding="utf-8")
    docs = tmp_path / "en-de.docs"
    shutil.copy(now / "en-cs.docs", docs)
    return csv, docs


def test_several_pairs_give_a_list(shared, tmp_path, capsys):
    now = shared / "wmt-now"
    csv, docs = _second_pair(now, tmp_path)
    code, out, _ = _rank(capsys, "--input", str(now / "esa_generalMT2024_wave2.en-cs.csv"), str(csv),
                         "--protocol", "wmt24-esa", "--documents", str(now / "en-cs.docs"), str(docs),
                         "--cluster-rule", "wmt24", "--resamples", "0", "--json")
    assert code == 0
    got = json.loads(out)
    assert isinstance(got, list) and [r["lp"] for r in got] == ["en-cs", "en-de"]
    assert [s["ave"] for s in got[0]["systems"]] == pytest.approx([s["ave"] for s in got[1]["systems"]])


def test_bad_documents(shared, tmp_path, capsys):
    now = shared / "wmt-now"
    sample = now / "esa_generalMT2024_wave2.en-cs.csv"
    code, _, err = _rank(capsys, *_args(sample, tmp_path / "missing.docs"))
    assert code == 2 and "missing.docs" in err and "documents file not found" in err
    # a pair absent from the documents
    csv, _ = _second_pair(now, tmp_path)
    code, _, err = _rank(capsys, "--input", str(sample), str(csv), "--protocol", "wmt24-esa",
                         "--documents", str(now / "en-cs.docs"), "--resamples", "0", "--json")
    assert code == 2 and "no documents list for language pair 'en-de'" in err and "en-cs.docs" in err
    # a judged document the list does not have
    short = tmp_path / "en-cs.docs"
    short.write_text("".join(line for line in (now / "en-cs.docs").read_text().splitlines(keepends=True)
                             if "speech" not in line), encoding="utf-8")
    code, _, err = _rank(capsys, *_args(sample, short))
    assert code == 2 and "is not in the documents list" in err and "test-en-speech" in err and str(short) in err
    # malformed lines: wrong field count, empty domain, a document under two domains, control characters
    for body, line, what in (("canary\tcanary\nnews\n", 2, "expected 2 tab-separated fields"),
                             ("canary\tcanary\n\td1\n", 2, "empty domain"),
                             ("news\td1\nnews\td1\nsocial\td1\n", 3, "listed under domain 'news' on line 1"),
                             ("news\td\x011\n", 1, "control character")):
        bad = tmp_path / "bad.docs"
        bad.write_text(body, encoding="utf-8")
        code, _, err = _rank(capsys, *_args(sample, bad))
        assert code == 2 and f"bad.docs, line {line}" in err and what in err, err


def test_bad_documents_store_nothing(shared, tmp_path, monkeypatch, capsys):
    now = shared / "wmt-now"
    monkeypatch.setenv("MTLB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    from leaderboard.accounts.auth import create_user
    from leaderboard.storage import Store, default_url
    create_user(Store(default_url()), "olga", "organiser-pass", "organiser")
    assert main(["ingest", str(now / "esa_generalMT2024_wave2.en-cs.csv"), "--campaign", "esa24"]) == 0
    bad = tmp_path / "en-cs.docs"
    bad.write_text("canary\tcanary\nnews\ttest-en-news_x.1\n", encoding="utf-8")
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("organiser-pass\n"))
    assert main(["publish", "--campaign", "esa24", "--user", "olga", "--password-stdin", "--protocol", "wmt24-esa",
                 "--documents", str(bad), "--resamples", "0"]) == 2
    assert "is not in the documents list" in capsys.readouterr().err
    assert Store(default_url()).snapshots("esa24").empty


def test_bad_appraise_times_are_refused(tmp_path, capsys):
    path = tmp_path / "a.csv"
    path.write_text("r1,sysA,1,TGT,eng,ces,50,d1,False,[],10,20\nr1,sysA,2,TGT,eng,ces,50,d1,False,[],10,soon\n",
                    encoding="utf-8")
    code, _, err = _rank(capsys, "--input", str(path), "--protocol", "wmt24-esa", "--resamples", "0")
    assert code == 2 and "line 2" in err and "end time (field 12)" in err


def test_other_protocols_keep_their_output(shared, capsys):
    """No per-domain keys unless domains are known; the default protocol's JSON keys are as before."""
    code, out, _ = _rank(capsys, "--input", str(shared / "wmt-now" / "esa_generalMT2024_wave2.en-cs.csv"),
                         "--protocol", "wmt25-signed-rank", "--qc", "none", "--resamples", "0", "--json")
    got = json.loads(out)
    assert code == 0 and "domains" not in got["systems"][0] and "domain_score" not in got
    assert set(got) == {"lp", "assessment", "signature", "systems", "pvalues", "protocol", "alpha", "cluster_rule"}
    assert "domains:" not in got["signature"]


@pytest.mark.parametrize("score, message", [("inf", "raw score is not a finite number"), ("-inf", "raw score is not a finite number"),
                                            ("nan", "neither a raw score nor a z score"),
                                            ("101", "outside 0-100")])
def test_non_finite_scores_are_refused_and_nothing_is_stored(tmp_path, monkeypatch, capsys, score, message):
    monkeypatch.setenv("MTLB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    path = _appraise(tmp_path / "a.csv", [("r1", "S", 1, "TGT", 50, "d1", 1, 2), ("r1", "S", 2, "TGT", score, "d1", 3, 4)])
    code, _, err = _rank(capsys, "--input", str(path), "--protocol", "wmt24-esa", "--resamples", "0")
    assert code == 2 and "a.csv, line 2, column 'score (field 7)'" in err and message in err
    assert main(["ingest", str(path), "--campaign", "bad"]) == 2
    from leaderboard.storage import Store, default_url
    assert Store(default_url()).judgments("bad").empty


def test_documents_add_per_domain_scores_to_any_protocol():
    """With a documents list, a DA ranking carries per-domain means of its own score; its order and Ave z stay."""
    from leaderboard.human.ranking import rank_judgments
    rng = np.random.default_rng(9)
    rows = [{"campaign": "c", "lp": "cs-en", "assessment": "adequacy", "worker": f"w{w}", "hit": f"w{w}",
             "position": i + 1, "segment": str(seg), "system": system, "item_type": "SYSTEM",
             "raw": float(np.clip(round(q + rng.normal(0, 10)), 0, 100)), "doc": f"doc{seg % 4}"}
            for w in range(3) for i, (seg, (system, q)) in
            enumerate([(seg, sq) for seg in range(40) for sq in (("A", 80.0), ("B", 60.0))])]
    frame = pd.DataFrame(rows)
    docs = {"cs-en": {"doc0": "news", "doc1": "news", "doc2": "social", "doc3": "social"}}
    plain = rank_judgments(frame, standardise="worker", qc="none", n_resamples=0)[0]
    with_docs = rank_judgments(frame, standardise="worker", qc="none", n_resamples=0, documents=docs)[0]
    assert [s["ave_z"] for s in with_docs["systems"]] == [s["ave_z"] for s in plain["systems"]]
    assert with_docs["domain_score"] == "ave_z" and "domains" not in plain["systems"][0]
    seg = pd.DataFrame([{"system": r["system"], "segment": r["segment"], "doc": r["doc"]} for r in rows]
                       ).drop_duplicates(["system", "segment"])
    from leaderboard.human.ranking import rankings, segment_scores
    spec = rankings(frame, standardise="worker", qc="none", n_resamples=0, documents=docs)[0].spec
    scores = segment_scores(frame, spec, "cs-en", "adequacy")
    scores = scores.merge(seg, on=["system", "segment"])
    for s in with_docs["systems"]:
        mine = scores[scores["system"] == s["system"]]
        for domain in ("news", "social"):
            part = mine[mine["doc"].map(docs["cs-en"]) == domain]
            assert s["domains"][domain] == pytest.approx(part["z"].mean(), abs=1e-12)
