"""`mtlb autorank` end to end: the JSON contract, several pairs, the selection and its export, refused inputs."""

from __future__ import annotations

import gzip
import json
import shutil

import pandas as pd
import pytest

from leaderboard.cli import main


def run(capsys, *argv):
    code = main(["autorank", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture()
def now(shared):
    return shared / "wmt-now"


def test_wmt24_json_contract_and_published_values(capsys, now):
    r = run_json(capsys, "--protocol", "wmt24", "--input", now / "autorank24.cs-uk.csv")
    assert set(r) == {"lp", "systems"} and r["lp"] == "cs-uk"
    pub = pd.read_csv(now / "autorank24.cs-uk.published.csv").set_index("system")
    assert [s["system"] for s in r["systems"]] == pub.sort_values("AutoRank").index.tolist()
    for s in r["systems"]:
        assert set(s) == {"system", "autorank", "metrics"}
        assert abs(s["autorank"] - pub.at[s["system"], "AutoRank"]) < 1e-6
        assert s["metrics"] == {"MetricX-23-XL": pytest.approx(pub.at[s["system"], "metricx"], abs=1e-12),
                                "CometKiwi-DA-XL": pytest.approx(-pub.at[s["system"], "cometkiwi_negated"], abs=1e-12)}


def test_wmt25_json_contract_from_jsonl(capsys, now, tmp_path):
    folder = now / "autorank25-en-it_IT"
    files = sorted(folder.glob("*.jsonl"))
    # a gzip-compressed file reads the same; the system is the file stem
    packed = tmp_path / "Shy.jsonl.gz"
    packed.write_bytes(gzip.compress((folder / "Shy.jsonl").read_bytes()))
    files = [packed if f.name == "Shy.jsonl" else f for f in files]
    r = run_json(capsys, "--protocol", "wmt25", "--input", *files, "--lp", "en-it_IT", "--no-reference")
    assert set(r) == {"lp", "systems"} and r["lp"] == "en-it_IT" and len(r["systems"]) == 33
    first = r["systems"][0]
    assert first["system"] == "Shy" and f"{first['autorank']:.1f}" == "1.0"
    assert set(first["metrics"]) == {"GEMBA-ESA-CMDA", "GEMBA-ESA-GPT4.1", "MetricX-24-Hybrid-XL", "XCOMET-XL"}
    printed = {s["system"]: f"{s['autorank']:.1f}" for s in r["systems"]}
    # published_table.tex: CommandA-WMT 2.6, Gemini-2.5-Pro 4.4, GPT-4.1 4.5, Mistral-7B 33.0
    assert (printed["CommandA-MT"], printed["Gemini-2.5-Pro"], printed["GPT-4.1"], printed["Mistral-7B"]) == \
        ("2.6", "4.4", "4.5", "33.0")
    assert f"{first['metrics']['MetricX-24-Hybrid-XL']:.1f}" == "-4.7"
    with_kiwi = run_json(capsys, "--protocol", "wmt25", "--input", *files, "--lp", "en-it_IT")
    assert "CometKiwi-XL" in with_kiwi["systems"][0]["metrics"]


def test_several_pairs_give_a_list_like_mtlb_rank(capsys, now, tmp_path):
    frame = pd.read_csv(now / "autorank24.cs-uk.csv")
    both = pd.concat([frame, frame.assign(lp="en-xx")])
    path = tmp_path / "two.csv"
    both.to_csv(path, index=False)
    r = run_json(capsys, "--protocol", "wmt24", "--input", path)
    assert isinstance(r, list) and [p["lp"] for p in r] == ["cs-uk", "en-xx"]
    assert r[0]["systems"] == r[1]["systems"]
    one = run_json(capsys, "--protocol", "wmt24", "--input", path, "--lp", "en-xx")
    assert isinstance(one, dict) and one["lp"] == "en-xx"


def test_selection_shown_and_exported(capsys, now, tmp_path):
    pub = pd.read_csv(now / "autorank24.cs-uk.published.csv")
    types = tmp_path / "types.csv"
    pub[["system", "type"]].to_csv(types, index=False)
    out_csv, out_json = tmp_path / "sel.csv", tmp_path / "sel.json"
    r = run_json(capsys, "--protocol", "wmt24", "--input", now / "autorank24.cs-uk.csv", "--system-types", types,
                 "--select", "--export", out_csv)
    chosen = {s["system"]: s["human_eval"] for s in r["systems"]}
    assert chosen == dict(zip(pub["system"], pub["human_eval"] == "Yes"))
    table = pd.read_csv(out_csv)
    assert list(table.columns[:4]) == ["lp", "position", "system", "autorank"]
    assert dict(zip(table["system"], table["human_eval"])) == chosen
    assert set(table["type"]) == {"closed", "open", "constrained"}
    code, _, err = run(capsys, "--protocol", "wmt24", "--input", now / "autorank24.cs-uk.csv", "--system-types",
                       types, "--select", "--export", out_json)
    assert code == 0, err
    assert json.loads(out_json.read_text())["systems"][0]["type"] == "closed"
    # the type column may also sit in the metrics CSV itself
    inline = tmp_path / "inline.csv"
    pd.read_csv(now / "autorank24.cs-uk.csv").merge(pub[["system", "type"]]).to_csv(inline, index=False)
    r2 = run_json(capsys, "--protocol", "wmt24", "--input", inline, "--select")
    assert {s["system"]: s["human_eval"] for s in r2["systems"]} == chosen
    code, out, _ = run(capsys, "--protocol", "wmt24", "--input", inline, "--select")
    assert code == 0 and "selected for human evaluation: 11 of 20" in out


def bad(capsys, *argv) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    assert out == ""
    return err


def test_refused_system_level_csv(capsys, now, tmp_path):
    lines = (now / "autorank24.cs-uk.csv").read_text().splitlines()
    f = tmp_path / "m.csv"

    def with_line(i, text):
        copy = list(lines)
        copy[i] = text
        f.write_text("\n".join(copy) + "\n")
        return f

    err = bad(capsys, "--protocol", "wmt24", "--input", with_line(3, "cs-uk,IOL-Research,,0.6813"))
    assert "m.csv" in err and "line 4" in err and "MetricX-23-XL" in err and "missing for IOL-Research" in err
    err = bad(capsys, "--protocol", "wmt24", "--input", with_line(3, "cs-uk,IOL-Research,NaN,0.6813"))
    assert "line 4" in err and "column 'MetricX-23-XL'" in err
    err = bad(capsys, "--protocol", "wmt24", "--input", with_line(5, "cs-uk,GPT-4,1.4,inf"))
    assert "line 6" in err and "column 'CometKiwi-DA-XL'" in err
    err = bad(capsys, "--protocol", "wmt24", "--input", with_line(5, "cs-uk,GPT-4,1.4,high"))
    assert "line 6" in err and "not a number" in err
    err = bad(capsys, "--protocol", "wmt24", "--input", with_line(0, "lp,name,MetricX-23-XL,CometKiwi-DA-XL"))
    assert "line 1" in err and "column 'system'" in err
    err = bad(capsys, "--protocol", "wmt24", "--input", with_line(0, "lp,system,MetricX-23-XL,COMET"))
    assert "CometKiwi-DA-XL is missing" in err
    err = bad(capsys, "--protocol", "wmt24", "--input", with_line(4, "cs-uk,IOL-Research,1.2,0.6"))
    assert "line 5" in err and "twice" in err
    err = bad(capsys, "--protocol", "wmt24", "--input", with_line(4, "cs-uk,GPT-4,1.2"))
    assert "line 5" in err and "columns" in err
    f.write_text("")
    assert "empty" in bad(capsys, "--protocol", "wmt24", "--input", f)
    f.write_text("lp,system,MetricX-23-XL,CometKiwi-DA-XL\n")
    assert "no rows" in bad(capsys, "--protocol", "wmt24", "--input", f)
    err = bad(capsys, "--protocol", "wmt24", "--input", now / "autorank24.cs-uk.csv", "--lp", "en-de")
    assert "en-de" in err and "autorank24.cs-uk.csv" in err
    err = bad(capsys, "--protocol", "wmt24", "--input", now / "autorank24.cs-uk.csv", "--select")
    assert "type" in err


def test_refused_jsonl(capsys, now, tmp_path):
    src = now / "autorank25-en-it_IT"
    folder = tmp_path / "scores"
    shutil.copytree(src, folder)
    target = folder / "GPT-4.1.jsonl"
    original = target.read_text().splitlines()
    args = ["--protocol", "wmt25", "--input", *sorted(folder.glob("*.jsonl")), "--lp", "en-it_IT", "--no-reference"]

    def broken(i, text):
        copy = list(original)
        copy[i] = text
        target.write_text("\n".join(copy) + "\n")

    broken(2, original[2][:50])
    err = bad(capsys, *args)
    assert "GPT-4.1.jsonl" in err and "line 3" in err and "JSON" in err
    broken(4, original[4].replace('"XCOMET-XL": [', '"XCOMET-XL": [NaN, ', 1))
    err = bad(capsys, *args)
    assert "line 5" in err and "NaN" in err
    broken(4, original[4].replace('"XCOMET-XL": [', '"XCOMET-XL": ["high", ', 1))
    err = bad(capsys, *args)
    assert "line 5" in err and "column 'metric_scores.XCOMET-XL'" in err and "not a number" in err
    broken(4, original[4].replace('"XCOMET-XL": [', '"XCOMET-XL": [true, ', 1))
    assert "column 'metric_scores.XCOMET-XL'" in bad(capsys, *args)
    broken(4, original[4].replace('"XCOMET-XL": [', '"XCOMET-XL": [1e400, ', 1))
    assert "line 5" in bad(capsys, *args)
    broken(4, original[4].replace('"XCOMET-XL": [', '"XCOMET-XL": [1e308, 1e308, ', 1))
    assert "too large" in bad(capsys, *args)
    broken(4, original[4].replace('"XCOMET-XL": [', '"XCOMET-XL": "null", "x": [', 1))
    assert "column 'metric_scores.XCOMET-XL'" in bad(capsys, *args)
    obj = json.loads(original[6])
    del obj["metric_scores"]["GEMBA-ESA-CMDA"]
    broken(6, json.dumps(obj))
    err = bad(capsys, *args)
    assert "line 7" in err and "GEMBA-ESA-CMDA" in err
    obj = json.loads(original[6])
    del obj["document_id"]
    broken(6, json.dumps(obj))
    assert "line 7" in bad(capsys, *args)
    target.write_text("")
    err = bad(capsys, *args)
    assert "GPT-4.1.jsonl" in err and "empty" in err
    target.write_text("\n".join(original) + "\n")
    err = bad(capsys, "--protocol", "wmt25", "--input", *sorted(folder.glob("*.jsonl")), "--lp", "en-de_DE")
    assert "en-de_DE" in err and "jsonl" in err
    # a second copy of one system: the same scores twice
    shutil.copy(target, tmp_path / "GPT-4.1.jsonl")
    err = bad(capsys, *args, "--input", tmp_path / "GPT-4.1.jsonl")
    assert "twice" in err and "GPT-4.1" in err


def test_null_scores_are_missing_values_and_counted(capsys, now, tmp_path):
    """WMT25's files hold null where a judge returned nothing: the organisers average what is present.
    The means are recomputed here from the JSON itself, skipping the nulls."""
    folder = tmp_path / "scores"
    shutil.copytree(now / "autorank25-en-it_IT", folder)
    target = folder / "GPT-4.1.jsonl"
    lines = target.read_text().splitlines()
    docs = [json.loads(line) for line in lines]
    whole = docs[3]["metric_scores"]
    n_whole = len(whole["XCOMET-XL"])
    whole["GEMBA-ESA-CMDA"] = None
    docs[5]["metric_scores"]["XCOMET-XL"][0] = None
    docs[5]["metric_scores"]["XCOMET-XL"][-1] = None
    target.write_text("\n".join(json.dumps(d) for d in docs) + "\n")
    args = ["--protocol", "wmt25", "--input", *sorted(folder.glob("*.jsonl")), "--lp", "en-it_IT", "--no-reference"]
    code, out, err = run(capsys, *args, "--json")
    assert code == 0
    result = json.loads(out)
    gpt = next(s for s in result["systems"] if s["system"] == "GPT-4.1")
    for metric in ("GEMBA-ESA-CMDA", "XCOMET-XL"):
        present = [v for d in docs if d["language_pair"] == "en-it_IT" for v in (d["metric_scores"][metric] or [])
                   if v is not None]
        assert gpt["metrics"][metric] == pytest.approx(sum(present) / len(present), rel=1e-12)
    holes = {h["metric"]: h for h in result["null_scores"]}
    assert holes["GEMBA-ESA-CMDA"]["null_documents"] == 1 and holes["GEMBA-ESA-CMDA"]["null_paragraphs"] == n_whole
    assert holes["XCOMET-XL"]["null_paragraphs"] == 2 and holes["XCOMET-XL"]["null_documents"] == 0
    assert all(h["system"] == "GPT-4.1" for h in result["null_scores"])
    assert "null scores left out" in err and "GPT-4.1" in err
    code, out, _ = run(capsys, *args)
    assert code == 0 and "null scores left out: GPT-4.1 XCOMET-XL: 2 paragraph(s)" in out
    # a system whose every score of a metric is null has no value of it: refused, naming it
    for d in docs:
        d["metric_scores"]["XCOMET-XL"] = None
    target.write_text("\n".join(json.dumps(d) for d in docs) + "\n")
    err = bad(capsys, *args)
    assert "XCOMET-XL is missing for GPT-4.1" in err and "GPT-4.1.jsonl" in err


def test_a_file_without_the_pair_is_left_out_with_a_note(capsys, now, tmp_path):
    folder = now / "autorank25-en-it_IT"
    other = tmp_path / "Elsewhere.jsonl"
    line = json.loads((folder / "Shy.jsonl").read_text().splitlines()[0])
    other.write_text(json.dumps({**line, "language_pair": "cs-de_DE"}) + "\n")
    code, out, err = run(capsys, "--protocol", "wmt25", "--input", *sorted(folder.glob("*.jsonl")), other,
                         "--lp", "en-it_IT", "--no-reference", "--json")
    assert code == 0 and "Elsewhere.jsonl" in err
    assert len(json.loads(out)["systems"]) == 33


def test_campaign_mode_uses_the_stored_metric_scores(capsys, tmp_path, db_url):
    """Scores stored with `mtlb submit` for a test set's systems (no human judgment yet) give the same
    AutoRank as the file, and the submissions' constrained / open-source flags drive the selection
    (SQLite and PostgreSQL)."""
    from leaderboard.cli import main as mtlb
    db = ["--database-url", db_url]
    words = "one two three four five six seven eight nine ten".split()
    rng = __import__("numpy").random.default_rng(1)
    ref = [" ".join(rng.choice(words, 8)) for _ in range(30)]
    (tmp_path / "src.txt").write_text("\n".join(f"src {i}" for i in range(30)) + "\n")
    (tmp_path / "ref.txt").write_text("\n".join(ref) + "\n")
    assert mtlb(["testset", "add", "--campaign", "C", "--lp", "en-de", "--source", str(tmp_path / "src.txt"),
                 "--ref", str(tmp_path / "ref.txt"), *db]) == 0
    systems = {"Alpha": ["--constrained"], "Beta": ["--open-source"], "Gamma": [], "Delta": ["--constrained"],
               "Eps": ["--open-source"], "Zeta": []}
    for i, (name, flags) in enumerate(systems.items()):
        out = tmp_path / f"{name}.txt"
        out.write_text("\n".join(" ".join(line.split()[: 8 - i % 3] + [words[i]]) for line in ref) + "\n")
        assert mtlb(["team", "add", f"team{i}", "--verified", *db]) == 0
        assert mtlb(["outputs", "submit", str(out), "--campaign", "C", "--lp", "en-de", "--team", f"team{i}",
                     "--system", name, "--primary", *flags, *db]) == 0
    capsys.readouterr()
    metricx = {"Alpha": 1.5, "Beta": 1.0, "Gamma": 2.5, "Delta": 4.0, "Eps": 3.0, "Zeta": 9.0}
    kiwi = {"Alpha": 0.70, "Beta": 0.72, "Gamma": 0.60, "Delta": 0.55, "Eps": 0.66, "Zeta": 0.30}
    lines = ["metric,lp,system,score"] + [f"MetricX-23-XL,en-de,{s},{v}" for s, v in metricx.items()]
    (tmp_path / "mx.csv").write_text("\n".join(lines) + "\n")
    lines = ["metric,lp,system,score"] + [f"CometKiwi-DA-XL,en-de,{s},{v}" for s, v in kiwi.items()]
    (tmp_path / "kiwi.csv").write_text("\n".join(lines) + "\n")
    assert mtlb(["submit", str(tmp_path / "mx.csv"), "--campaign", "C", "--lower-is-better", *db]) == 0
    assert mtlb(["submit", str(tmp_path / "kiwi.csv"), "--campaign", "C", *db]) == 0
    capsys.readouterr()
    stored = run_json(capsys, "--protocol", "wmt24", "--campaign", "C", "--lp", "en-de", "--select", *db)
    # by hand: N = 6; MetricX best 1.0, worst 9.0; CometKiwi best 0.72, worst 0.30
    expected = {s: (1 + 6 * (metricx[s] - 1.0) / 8.0 + 1 + 6 * (0.72 - kiwi[s]) / 0.42) / 2 for s in metricx}
    assert {s["system"]: pytest.approx(expected[s["system"]], abs=1e-12) for s in stored["systems"]} == \
        {s: expected[s] for s in expected}
    # positions: Beta, Alpha, Eps, Gamma, Delta, Zeta; closed keeps 1-2, open 1-4; Zeta lies past a gap > 1.5
    assert [s["system"] for s in stored["systems"]] == ["Beta", "Alpha", "Eps", "Gamma", "Delta", "Zeta"]
    assert {s["system"]: s["human_eval"] for s in stored["systems"]} == {
        "Beta": True, "Alpha": True, "Eps": True, "Gamma": False, "Delta": True, "Zeta": False}
    assert {s["system"]: s["type"] for s in stored["systems"]}["Beta"] == "open"
    wide = tmp_path / "wide.csv"
    wide.write_text("lp,system,MetricX-23-XL,CometKiwi-DA-XL\n"
                    + "".join(f"en-de,{s},{metricx[s]},{kiwi[s]}\n" for s in metricx))
    from_file = run_json(capsys, "--protocol", "wmt24", "--input", wide)
    assert [(s["system"], s["autorank"]) for s in from_file["systems"]] == \
        [(s["system"], s["autorank"]) for s in stored["systems"]]
    err = bad(capsys, "--protocol", "wmt25", "--campaign", "C", "--lp", "en-de", *db)
    assert "GEMBA-ESA-CMDA" in err
    # the published human ranking of the pair beside AutoRank (names matched without their .N index)
    from leaderboard.storage import Store
    ranking = {"lp": "en-de", "assessment": "adequacy", "signature": "s", "pvalues": {},
               "systems": [{"system": "Delta.3", "ave": 71.5, "rank_lo": 1, "rank_hi": 2},
                           {"system": "Beta.1", "ave": 70.0, "rank_lo": 1, "rank_hi": 2}]}
    Store(db_url).publish("C", "en-de", "adequacy", ranking, data_hash="h", publisher="olga")
    both = run_json(capsys, "--protocol", "wmt24", "--campaign", "C", "--lp", "en-de", "--human", *db)
    human = {s["system"]: (s["human_rank"], s["human_score"]) for s in both["systems"]}
    assert human["Delta"] == ([1, 2], 71.5) and human["Beta"] == ([1, 2], 70.0) and human["Zeta"] == (None, None)


def test_wmt25_chrf_only_targets_and_any_case_names(capsys, tmp_path):
    """en-bho_IN ranks by chrF++ alone (other metrics in the file are ignored); names match in any case."""
    means = {"A": 40.0, "B": 55.0, "C": 47.5, "D": 30.0}
    for system, mean in means.items():
        docs = [{"language_pair": "en-bho_IN", "domain": "news", "document_id": f"d{i}",
                 "metric_scores": {"CHRF++": [mean - 2, mean + 2], "XCOMET-XL": [0.1 * i, 0.2]}} for i in range(3)]
        (tmp_path / f"{system}.jsonl").write_text("\n".join(json.dumps(d) for d in docs) + "\n")
    r = run_json(capsys, "--protocol", "wmt25", "--input", *sorted(tmp_path.glob("*.jsonl")), "--lp", "en-bho_IN")
    assert [s["system"] for s in r["systems"]] == ["B", "C", "A", "D"]
    assert all(set(s["metrics"]) == {"chrF++"} for s in r["systems"])
    assert r["systems"][0]["metrics"]["chrF++"] == 55.0
    # robust z: median 43.75, spread max - P25 = 55 - 37.5 = 17.5; one metric, so AutoRank is linear in chrF++
    assert [round(s["autorank"], 9) for s in r["systems"]] == [1.0, round(1 + 3 * 7.5 / 25, 9),
                                                               round(1 + 3 * 15 / 25, 9), 4.0]


def test_wmt25_selection_from_a_types_file(capsys, now, tmp_path):
    folder = now / "autorank25-en-it_IT"
    unconstrained = {"Shy", "CommandA-MT", "Gemini-2.5-Pro", "GPT-4.1", "GemTrans", "UvA-MT", "DeepSeek-V3",
                     "Mistral-Medium", "Qwen3-235B", "Claude-4", "CommandA", "ONLINE-B", "TowerPlus-72B",
                     "AyaExpanse-32B", "ONLINE-W", "EuroLLM-22B", "Gemma-3-27B", "Llama-4-Maverick", "ONLINE-G"}
    types = tmp_path / "types.csv"
    types.write_text("lp,system,type\n" + "".join(
        f"en-it_IT,{p.stem},{'unconstrained' if p.stem in unconstrained else 'constrained'}\n"
        for p in folder.glob("*.jsonl")))
    r = run_json(capsys, "--protocol", "wmt25", "--input", *sorted(folder.glob("*.jsonl")), "--lp", "en-it_IT",
                 "--no-reference", "--system-types", types, "--select")
    chosen = [s for s in r["systems"] if s["human_eval"]]
    assert len(chosen) == 18
    constrained = [s["system"] for s in r["systems"] if s["type"] == "constrained"]
    assert [s["system"] for s in chosen if s["type"] == "constrained"] == constrained[:8]
    rest = [s["system"] for s in r["systems"] if s["system"] not in constrained[:8]]
    assert [s["system"] for s in chosen if s["system"] not in constrained[:8]] == rest[:10]
