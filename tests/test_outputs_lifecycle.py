"""The lifecycle closes: primary submissions become the campaign's system outputs.

Test set → team submissions → primaries → HIT batch (no file arguments) → crowd results → human
ranking → BLEU/chrF baselines of the metrics page and the evaluation package, all under the
primaries' system names.
"""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pandas as pd
import pytest

from leaderboard.cli import main
from leaderboard.storage import Store

N = 120
WORDS = ("the a house car tree river city road light water stone field garden window door table chair book "
         "letter music song bird fish horse cloud rain snow wind sun moon star").split()


def run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


@pytest.fixture()
def campaign(tmp_path, capsys):
    rng = np.random.default_rng(21)
    ref = [" ".join(rng.choice(WORDS, 10)) for _ in range(N)]
    src = [f"Satz {i} " + " ".join(rng.choice(WORDS, 4)) for i in range(N)]
    (tmp_path / "t.de-en.src.de").write_text("\n".join(src) + "\n")
    (tmp_path / "t.de-en.ref.A.en").write_text("\n".join(ref) + "\n")
    db = ["--database-url", f"sqlite:///{tmp_path / 'db.sqlite'}"]
    run(["testset", "add", "--campaign", "shared", "--lp", "de-en", "--source", str(tmp_path / "t.de-en.src.de"),
         "--ref", str(tmp_path / "t.de-en.ref.A.en"), *db], capsys)
    ids = {}
    for team, p in (("Alpha", 0.1), ("Beta", 0.3), ("Gamma", 0.5)):
        run(["team", "add", team, "--verified", *db], capsys)
        r = np.random.default_rng(len(team))
        for version, extra in (("v1", 0.2), ("v2", 0.0)):
            lines = [" ".join(w if r.random() > p + extra else r.choice(WORDS) for w in line.split()) for line in ref]
            path = tmp_path / f"{team}-{version}.txt"
            path.write_text("\n".join(lines) + "\n")
            out = json.loads(run(["outputs", "submit", str(path), "--campaign", "shared", "--lp", "de-en", "--team",
                                  team, "--system", f"{team}-{version}", "--json", *db], capsys))
            ids[(team, version)] = out["id"]
    for team in ("Alpha", "Beta", "Gamma"):
        run(["outputs", "primary", str(ids[(team, "v2")]), *db], capsys)
    return {"db": db, "url": db[1], "tmp": tmp_path, "ids": ids, "ref": ref, "src": src}


PRIMARIES = {"Alpha-v2", "Beta-v2", "Gamma-v2"}


def test_primaries_are_the_campaigns_system_outputs(campaign):
    texts = Store(campaign["url"]).texts("shared", "de-en")
    hyps = texts[texts["kind"] == "hypothesis"]
    assert set(hyps["name"]) == PRIMARIES  # contrastive v1 submissions are not system outputs
    assert texts[texts["kind"] == "reference"].sort_values("line")["text"].tolist() == campaign["ref"]
    assert texts[texts["kind"] == "source"].sort_values("line")["text"].tolist() == campaign["src"]
    assert hyps.groupby("name")["line"].max().tolist() == [N, N, N]


def test_withdrawn_primary_leaves_the_system_outputs(campaign, capsys):
    run(["outputs", "withdraw", str(campaign["ids"][("Gamma", "v2")]), *campaign["db"]], capsys)
    texts = Store(campaign["url"]).texts("shared", "de-en", kind="hypothesis")
    assert set(texts["name"]) == PRIMARIES - {"Gamma-v2"}


def test_hits_from_primaries_to_human_ranking_to_metric_baselines(campaign, capsys):
    from leaderboard.publish.snapshots import rank
    from leaderboard.publish.metric_eval import baseline_scores
    db, tmp = campaign["db"], campaign["tmp"]
    batch = tmp / "batch"
    manifest = json.loads(run(["hits", "build", "--lp", "de-en", "--assessment", "adequacy", "--campaign", "shared",
                               "--from-primaries", "--seed", "4", "--hits", "6", "--out", str(batch), "--json", *db],
                              capsys))
    assert set(manifest["systems"]) == PRIMARIES
    hits = pd.read_csv(batch / "hits.csv", keep_default_na=False)
    store = Store(campaign["url"])
    outputs = {s: store.texts("shared", "de-en", kind="hypothesis").query("name == @s").sort_values("line")["text"]
               .tolist() for s in PRIMARIES}
    genuine = hits[hits["item_type"] == "SYSTEM"]
    assert all(outputs[r.system][int(r.segment) - 1] == r.text for r in genuine.itertuples())
    refs = hits[hits["item_type"] == "REF"]
    assert all(campaign["ref"][int(r.segment) - 1] == r.text for r in refs.itertuples())
    # the crowd answers the batch; its results load back into the same campaign
    results = tmp / "results.csv"
    run(["simulate", "--hits", str(batch), "--assignments", "2", "--out", str(results), "--seed", "3"], capsys)
    run(["ingest", str(results), "--campaign", "shared", *db], capsys)
    ranking = rank(store.judgments("shared", "de-en"), qc="none")[0]
    judged = [s["system"] for s in ranking["systems"]]
    assert set(judged) == PRIMARIES
    # the metrics page scores the judged systems from the primaries (no file shuffling)
    scores, _, signatures = baseline_scores(store.texts("shared", "de-en"), judged, lp="de-en")
    board = json.loads(run(["outputs", "leaderboard", "--campaign", "shared", "--lp", "de-en", "--json", *db], capsys))
    for metric, label in (("bleu", "BLEU"), ("chrf", "chrF")):
        mine = scores[scores["metric"] == label].set_index("system")["score"].to_dict()
        assert mine == {s["system"]: s[metric] for s in board["systems"]}
    assert signatures["BLEU"] == board["signatures"]["bleu"]


def test_ranked_names_with_wmt_index_match_primaries(campaign):
    from leaderboard.naming import match_systems
    from leaderboard.publish.metric_eval import baseline_inputs
    texts = Store(campaign["url"]).texts("shared", "de-en")
    hyps, streams = baseline_inputs(texts, ["Alpha-v2.3", "Beta-v2.7", "HUMAN-A"])
    # the only reference cannot be both the human system's output and the reference of the others:
    # the human translation is then left out and every MT primary is scored against reference A
    assert set(hyps) == {"Alpha-v2.3", "Beta-v2.7"}
    assert len(streams) == 1 and len(streams[0]) == len(hyps["Alpha-v2.3"])
    assert match_systems(["Alpha-v2.3", "Beta-v2.7"], PRIMARIES) == {"Alpha-v2.3": "Alpha-v2", "Beta-v2.7": "Beta-v2"}


def test_evaluation_package_includes_primaries(campaign, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", campaign["url"])
    from leaderboard.webapp import state
    from leaderboard.webapp.metrics_views import evaluation_package
    data = evaluation_package(campaign["url"], "shared", ("de-en",), state.data_token(campaign["url"], "shared"))
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = set(zf.namelist())
        for system in PRIMARIES:
            path = f"shared/system-outputs/de-en/shared.de-en.hyp.{system}.en"
            assert path in names
        assert "shared/references/shared.de-en.ref.A.en" in names and "shared/sources/shared.de-en.src.de" in names
        assert not any("-v1." in n for n in names)


def test_hits_from_primaries_refuses_without_primaries(tmp_path, capsys):
    db = ["--database-url", f"sqlite:///{tmp_path / 'e.sqlite'}"]
    (tmp_path / "s.txt").write_text("a\nb\n")
    (tmp_path / "r.txt").write_text("x\ny\n")
    run(["testset", "add", "--campaign", "c", "--lp", "de-en", "--source", str(tmp_path / "s.txt"), "--ref",
         str(tmp_path / "r.txt"), *db], capsys)
    code = main(["hits", "build", "--lp", "de-en", "--assessment", "adequacy", "--campaign", "c", "--from-primaries",
                 "--out", str(tmp_path / "b"), *db])
    assert code == 2 and "no primary submissions" in capsys.readouterr().err
    code = main(["hits", "build", "--lp", "de-en", "--assessment", "adequacy", "--out", str(tmp_path / "b")])
    assert code == 2 and "--from-primaries" in capsys.readouterr().err
