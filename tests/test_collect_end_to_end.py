"""From a test set and three submissions of known quality, through simulated annotators, to a published ranking.

The test set is the first 300 lines of the WMT22 Czech→English general test set (source and reference
B). The three teams' primary submissions are the reference with 10%, 35% and 70% of its words
replaced by words of other lines, so their true order is known. Everything runs through ``mtlb``:
test set, teams, submissions, ``collect create --from-primaries``, ``collect simulate`` (eight
annotators, two of them random clickers), ``collect status``, ``publish``. The published ranking must
order the three submissions as their quality does, and the random clickers must fail the worker test,
both in the collection's status and in the QC the ranking applied.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from leaderboard.cli import main

LINES = 300
SHARES = {"careful": 0.10, "hasty": 0.35, "broken": 0.70}


def _run(capsys, *argv: str) -> dict:
    capsys.readouterr()
    assert main(list(argv)) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _corrupt(lines: list[str], share: float, rng: np.random.Generator) -> list[str]:
    pool = np.asarray(" ".join(lines).split())  # an array: rng.choice converts a list anew on every draw
    out = []
    for line in lines:
        words = line.split()
        swap = rng.random(len(words)) < share
        out.append(" ".join(str(rng.choice(pool)) if s else w for w, s in zip(words, swap)))
    return out


@pytest.mark.slow
def test_submissions_to_published_ranking(shared, tmp_path, capsys, monkeypatch):
    g = shared / "wmt22-general"
    source = (g / "sources" / "generaltest2022.cs-en.src.cs").read_text(encoding="utf-8").splitlines()[:LINES]
    reference = (g / "references" / "generaltest2022.cs-en.ref.B.en").read_text(encoding="utf-8").splitlines()[:LINES]
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "test.cs-en.src.cs").write_text("\n".join(source) + "\n", encoding="utf-8")
    (folder / "test.cs-en.ref.B.en").write_text("\n".join(reference) + "\n", encoding="utf-8")
    db = ["--database-url", f"sqlite:///{tmp_path / 'store.sqlite'}"]
    _run(capsys, "testset", "add", "--campaign", "e2e", "--lp", "cs-en", "--source", str(folder / "test.cs-en.src.cs"),
         "--ref", str(folder / "test.cs-en.ref.B.en"), *db, "--json")
    rng = np.random.default_rng(11)
    for team, share in SHARES.items():
        path = folder / f"test.cs-en.hyp.{team}.en"
        path.write_text("\n".join(_corrupt(reference, share, rng)) + "\n", encoding="utf-8")
        assert main(["team", "add", team, "--verified", *db]) == 0
        _run(capsys, "outputs", "submit", str(path), "--campaign", "e2e", "--lp", "cs-en", "--team", team,
             "--primary", *db, "--json")

    made = _run(capsys, "collect", "create", "--campaign", "e2e", "--lp", "cs-en", "--protocol", "da",
                "--from-primaries", "--hits", "12", "--seed", "3", *db, "--json")
    codes = {k: made.pop(k) for k in ("code_pass", "code_fail")}
    assert made == {"campaign": "e2e", "lp": "cs-en", "protocol": "da", "hits": 12, "items": 1200}
    done = _run(capsys, "collect", "simulate", "--campaign", "e2e", "--lp", "cs-en", "--annotators", "8",
                "--random-share", "0.25", "--seed", "2", *db, "--json")
    assert done == {"hits_done": 12, "judgments": 1200}
    status = _run(capsys, "collect", "status", "--campaign", "e2e", "--lp", "cs-en", *db, "--json")
    assert status["hits_total"] == status["hits_done"] == 12
    # the completion codes the README says create and status print, in their JSON too (issue 42.9)
    assert {k: status[k] for k in codes} == codes and len(set(codes.values())) == 2
    verdicts = {a["annotator"]: a for a in status["annotators"]}
    # kinds_for(8, 0.25): the first two simulated annotators are the random clickers
    random = {"inv-0001", "inv-0002"}
    assert all(verdicts[w]["qc_pass"] is False and verdicts[w]["qc_p"] > 0.05 for w in random)
    assert all(v["qc_pass"] is True and v["qc_p"] < 0.05 for w, v in verdicts.items() if w not in random)
    assert sum(v["items_done"] for v in verdicts.values()) == 1200

    monkeypatch.setattr("sys.stdin", io.StringIO("organiser-password\n"))
    assert main(["user", "add", "olga", "--role", "organiser", "--password-stdin", *db]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("organiser-password\n"))
    published = _run(capsys, "publish", "--campaign", "e2e", "--user", "olga", "--password-stdin", *db, "--json")
    assert [(p["lp"], p["assessment"], p["version"]) for p in published["published"]] == [("cs-en", "adequacy", 1)]
    assert "qc:paired-t@0.05" in published["published"][0]["signature"]
    ranking = _run(capsys, "published", "--campaign", "e2e", "--lp", "cs-en", "--format", "json", *db)
    ranking = ranking[0] if isinstance(ranking, list) else ranking
    ranking = ranking.get("ranking", ranking)
    assert [s["system"] for s in ranking["systems"]] == ["careful", "hasty", "broken"]
    # the three differ significantly: three clusters
    assert [s["cluster"] for s in ranking["systems"]] == [1, 2, 3]
    # the ranking applied the same worker test and left out exactly the random clickers
    from leaderboard.publish.artifacts import payload_frame
    from leaderboard.storage import Store
    qc = Store(db[1]).snapshot_artifact("e2e", "cs-en", "adequacy", 1, "qc")
    report = payload_frame(qc["report"])
    assert qc["label"] == "paired-t@0.05"
    assert set(report.loc[~report["passed"].astype(bool), "worker"]) == random
    assert qc["summary"]["workers_total"] == 8 and qc["summary"]["workers_kept"] == 6
