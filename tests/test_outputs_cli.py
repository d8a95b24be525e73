"""The command line of the submissions stage: contracts, validation of uploads, teams, primaries, export."""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import func, select

from leaderboard.cli import main
from leaderboard.storage import Store
from leaderboard.storage import models as m

N = 40
WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau "
         "upsilon phi chi psi omega").split()


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture()
def task(tmp_path, capsys):
    """A test set 'task' / en-de with two references, three verified teams and one unverified."""
    rng = np.random.default_rng(5)
    ref_a = [" ".join(rng.choice(WORDS, 9)) for _ in range(N)]
    ref_b = [" ".join(rng.choice(WORDS, 9)) for _ in range(N)]
    src = [f"Quelle {i} " + " ".join(rng.choice(WORDS, 3)) for i in range(N)]

    def noisy(p: float, seed: int) -> list[str]:
        r = np.random.default_rng(seed)
        return [" ".join(w if r.random() > p else r.choice(WORDS) for w in line.split()) for line in ref_a]

    files = {"src": tmp_path / "test.en-de.src.en", "A": tmp_path / "test.en-de.ref.A.de",
             "B": tmp_path / "test.en-de.ref.B.de"}
    for key, lines in (("src", src), ("A", ref_a), ("B", ref_b)):
        files[key].write_text("\n".join(lines) + "\n", encoding="utf-8")
    outputs = {}
    for name, p in (("good", 0.1), ("fair", 0.3), ("poor", 0.6)):
        outputs[name] = tmp_path / f"{name}.txt"
        outputs[name].write_text("\n".join(noisy(p, len(name))) + "\n", encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    db = ["--database-url", url]
    code, out, err = run(["testset", "add", "--campaign", "task", "--lp", "en-de", "--source", str(files["src"]),
                          "--ref", str(files["A"]), str(files["B"]), "--json", *db], capsys)
    assert code == 0, err
    for team in ("T1", "T2", "T3"):
        assert run(["team", "add", team, "--verified", "--json", *db], capsys)[0] == 0
    assert run(["team", "add", "Pending", "--json", *db], capsys)[0] == 0
    return {"db": db, "url": url, "files": files, "outputs": outputs, "tmp": tmp_path, "ref_a": ref_a, "src": src,
            "testset": json.loads(out)}


def submit(task, capsys, path, team="T1", *extra):
    return run(["outputs", "submit", str(path), "--campaign", "task", "--lp", "en-de", "--team", team, "--json",
                *extra, *task["db"]], capsys)


def stored_counts(url: str) -> tuple[int, int]:
    store = Store(url)
    with store.engine.connect() as conn:
        return (conn.execute(select(func.count()).select_from(m.submissions)).scalar_one(),
                conn.execute(select(func.count()).select_from(m.submission_lines)).scalar_one())


def test_testset_add_contract(task):
    ts = task["testset"]
    assert ts["campaign"] == "task" and ts["lp"] == "en-de" and ts["segments"] == N
    assert ts["references"] == ["A", "B"] and ts["max_submissions"] == 20 and ts["deadline"] is None
    assert ts["testset"] == "test" and ts["bleu_tokenize"] == "13a"


def test_team_add_contract(tmp_path, capsys):
    db = ["--database-url", f"sqlite:///{tmp_path / 'x.sqlite'}"]
    code, out, _ = run(["team", "add", "Lab", "--verified", "--json", *db], capsys)
    assert code == 0 and json.loads(out)["name"] == "Lab" and json.loads(out)["verified"] is True
    code, out, _ = run(["team", "add", "Other", "--json", *db], capsys)
    assert json.loads(out)["verified"] is False
    # adding it again changes nothing (a setup script may run twice); --verified verifies it
    code, out, _ = run(["team", "add", "Lab", "--json", *db], capsys)
    assert code == 0 and json.loads(out)["created"] is False and json.loads(out)["verified"] is True
    code, out, _ = run(["team", "add", "Other", "--verified", "--json", *db], capsys)
    assert json.loads(out)["verified"] is True and json.loads(out)["created"] is False
    run(["team", "verify", "Other", "--undo", *db], capsys)
    # a name that belongs to another kind of account is refused
    from leaderboard.accounts.auth import create_user
    create_user(Store(db[1]), "olga", "organiser-pass", "organiser")
    code, _, err = run(["team", "add", "olga", "--json", *db], capsys)
    assert code == 2 and "taken" in err and "organiser" in err
    code, out, _ = run(["team", "list", "--json", *db], capsys)
    assert [t["name"] for t in json.loads(out)] == ["Lab", "Other"]
    # teams are accounts of the app: mtlb user list still works and shows them with their role
    code, out, _ = run(["user", "list", "--json", *db], capsys)
    assert {(u["name"], u["role"]) for u in json.loads(out)} == {("Lab", "team"), ("Other", "team"),
                                                                 ("olga", "organiser")}


def test_submit_contract_and_scores(task, capsys):
    from sacrebleu.metrics import BLEU, CHRF
    code, out, err = submit(task, capsys, task["outputs"]["good"], "T1", "--system", "my-sys")
    assert code == 0, err
    result = json.loads(out)
    assert {"id", "team", "system", "valid", "scores", "signatures"} <= set(result)
    assert result["team"] == "T1" and result["system"] == "my-sys" and result["valid"] is True
    hyp = task["outputs"]["good"].read_text().splitlines()
    refs = [task["files"][k].read_text().splitlines() for k in "AB"]
    assert result["scores"]["bleu"] == BLEU().corpus_score(hyp, refs).score
    assert result["scores"]["chrf"] == CHRF().corpus_score(hyp, refs).score
    assert result["scores"]["bleu-A"] == BLEU().corpus_score(hyp, refs[:1]).score
    assert result["scores"]["chrf-B"] == CHRF().corpus_score(hyp, refs[1:]).score
    assert result["signatures"]["bleu"].startswith("BLEU|nrefs:2|") and "tok:13a" in result["signatures"]["bleu"]
    assert result["signatures"]["chrf-A"].startswith("chrF2|nrefs:1|")
    # without --system: the team's name (the file name is not a WMT name)
    code, out, _ = submit(task, capsys, task["outputs"]["fair"], "T2")
    assert json.loads(out)["system"] == "T2"


def test_gzip_submission_is_accepted(task, capsys):
    gz = task["tmp"] / "good.txt.gz"
    gz.write_bytes(gzip.compress(task["outputs"]["good"].read_bytes()))
    code, out, err = submit(task, capsys, gz)
    assert code == 0, err
    plain = json.loads(submit(task, capsys, task["outputs"]["good"])[1])
    assert json.loads(out)["scores"] == plain["scores"]


def _bad_files(task) -> dict[str, tuple[Path, str, int | None]]:
    """name → (file, text expected in the error, line expected in the error)."""
    tmp, good = task["tmp"], task["outputs"]["good"].read_text().splitlines()
    cases = {}
    short = tmp / "short.txt"
    short.write_text("\n".join(good[:-3]) + "\n")
    cases["short"] = (short, f"has {N - 3} lines", N - 2)
    long = tmp / "long.txt"
    long.write_text("\n".join(good + ["one more"]) + "\n")
    cases["long"] = (long, f"has {N + 1} lines", N + 1)
    utf = tmp / "latin1.txt"
    utf.write_bytes(("\n".join(good[:7]) + "\nstra\xdfe caf\xe9\n").encode("latin-1") +
                    ("\n".join(good[8:]) + "\n").encode())
    cases["latin1"] = (utf, "not valid UTF-8", 8)
    empty = tmp / "empty.txt"
    empty.write_text("")
    cases["empty"] = (empty, "empty", None)
    blank = tmp / "blank.txt"
    blank.write_text("\n" * N)
    cases["blank"] = (blank, "empty", None)
    cases["source"] = (task["files"]["src"], "identical to the source", 1)
    cases["reference"] = (task["files"]["B"], "identical to reference 'B'", 1)
    cases["directory"] = (tmp, "directory", None)
    return cases


@pytest.mark.parametrize("case", ["short", "long", "latin1", "empty", "blank", "source", "reference", "directory"])
def test_invalid_files_are_refused_with_file_and_line(task, capsys, case):
    path, text, line = _bad_files(task)[case]
    before = stored_counts(task["url"])
    code, out, err = submit(task, capsys, path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err  # one line
    assert str(path) in err and text in err
    if line is not None:
        assert f"line {line}" in err
    assert stored_counts(task["url"]) == before


def test_deadline_limit_and_verification(task, capsys, tmp_path):
    good = task["outputs"]["good"]
    # an unverified team, an unknown team
    code, _, err = submit(task, capsys, good, "Pending")
    assert code == 2 and "not verified" in err and str(good) in err
    code, _, err = submit(task, capsys, good, "Nobody")
    assert code == 2 and "no team named" in err
    assert stored_counts(task["url"]) == (0, 0)
    # after verification the team may submit
    assert run(["team", "verify", "Pending", *task["db"]], capsys)[0] == 0
    assert submit(task, capsys, good, "Pending")[0] == 0
    # the limit: two valid submissions per team
    assert run(["testset", "set", "--campaign", "task", "--lp", "en-de", "--max-submissions", "2", "--json",
                *task["db"]], capsys)[0] == 0
    assert submit(task, capsys, good, "T1")[0] == 0
    assert submit(task, capsys, task["outputs"]["fair"], "T1")[0] == 0
    before = stored_counts(task["url"])
    code, _, err = submit(task, capsys, task["outputs"]["poor"], "T1")
    assert code == 2 and "limit is 2" in err
    assert stored_counts(task["url"]) == before
    # a system name another team uses
    code, _, err = submit(task, capsys, good, "T2", "--system", "T1")
    assert code == 2 and "used by team 'T1'" in err
    # the deadline has passed
    code, out, _ = run(["testset", "set", "--campaign", "task", "--lp", "en-de", "--deadline", "2001-01-01T00:00:00Z",
                        "--json", *task["db"]], capsys)
    assert json.loads(out)["deadline"] == "2001-01-01T00:00:00+00:00"
    code, _, err = submit(task, capsys, good, "T3")
    assert code == 2 and "deadline" in err and "2001-01-01" in err
    assert stored_counts(task["url"]) == before


def test_deadline_on_add_and_a_start_in_the_future(tmp_path, capsys, task):
    db = ["--database-url", f"sqlite:///{tmp_path / 'y.sqlite'}"]
    src, ref = task["files"]["src"], task["files"]["A"]
    code, out, _ = run(["testset", "add", "--campaign", "c", "--lp", "en-de", "--source", str(src), "--ref", str(ref),
                        "--deadline", "2000-06-30", "--json", *db], capsys)
    assert code == 0 and json.loads(out)["deadline"] == "2000-06-30T00:00:00+00:00"
    run(["team", "add", "T", "--verified", *db], capsys)
    code, _, err = run(["outputs", "submit", str(task["outputs"]["good"]), "--campaign", "c", "--lp", "en-de",
                        "--team", "T", *db], capsys)
    assert code == 2 and "deadline" in err
    code, _, err = run(["testset", "add", "--campaign", "c", "--lp", "en-fr", "--source", str(src), "--deadline",
                        "tomorrow", *db], capsys)
    assert code == 2 and "ISO 8601" in err
    code, _, err = run(["testset", "add", "--campaign", "c", "--lp", "en-de", "--source", str(src), *db], capsys)
    assert code == 2 and "already has a test set" in err


def test_testset_refuses_misaligned_references(tmp_path, capsys, task):
    short = tmp_path / "short.ref"
    short.write_text("\n".join(task["ref_a"][:10]) + "\n")
    db = ["--database-url", f"sqlite:///{tmp_path / 'z.sqlite'}"]
    code, _, err = run(["testset", "add", "--campaign", "c", "--lp", "en-de", "--source", str(task["files"]["src"]),
                        "--ref", str(short), *db], capsys)
    assert code == 2 and str(short) in err and "line 11" in err
    code, out, _ = run(["testset", "list", "--json", *db], capsys)
    assert json.loads(out) == []


def test_leaderboard_primary_withdraw_and_contract(task, capsys):
    ids = {}
    for team, name in (("T1", "poor"), ("T2", "good"), ("T3", "fair")):
        ids[team] = json.loads(submit(task, capsys, task["outputs"][name], team)[1])["id"]
    # T1 also submits a better contrastive system: without a primary its best counts
    ids["T1b"] = json.loads(submit(task, capsys, task["outputs"]["good"], "T1", "--system", "T1-contrastive")[1])["id"]
    code, out, _ = run(["outputs", "leaderboard", "--campaign", "task", "--lp", "en-de", "--json", *task["db"]], capsys)
    board = json.loads(out)
    assert board["lp"] == "en-de"
    chrf = [s["chrf"] for s in board["systems"]]
    assert chrf == sorted(chrf, reverse=True)
    assert {s["team"]: s["system"] for s in board["systems"]} == {"T1": "T1-contrastive", "T2": "T2", "T3": "T3"}
    for s in board["systems"]:
        assert {"team", "system", "bleu", "chrf", "bleu_ci", "chrf_ci", "cluster"} <= set(s)
    # marking the weaker one primary puts it on the board instead
    code, out, _ = run(["outputs", "primary", str(ids["T1"]), "--json", *task["db"]], capsys)
    assert json.loads(out)["primary"] is True
    board = json.loads(run(["outputs", "leaderboard", "--campaign", "task", "--lp", "en-de", "--json", *task["db"]],
                           capsys)[1])
    assert {s["team"]: s["system"] for s in board["systems"]}["T1"] == "T1"
    assert [s["team"] for s in board["systems"]] == ["T2", "T3", "T1"]
    # one primary per team: marking the other moves the flag
    run(["outputs", "primary", str(ids["T1b"]), *task["db"]], capsys)
    listed = json.loads(run(["outputs", "list", "--campaign", "task", "--team", "T1", "--json", *task["db"]],
                            capsys)[1])
    assert {s["id"]: s["primary"] for s in listed} == {ids["T1"]: False, ids["T1b"]: True}
    # a team may not touch another team's submission
    code, _, err = run(["outputs", "primary", str(ids["T2"]), "--team", "T1", *task["db"]], capsys)
    assert code == 2 and "another team" in err
    # withdrawn: off the board
    run(["outputs", "withdraw", str(ids["T3"]), *task["db"]], capsys)
    board = json.loads(run(["outputs", "leaderboard", "--campaign", "task", "--lp", "en-de", "--json", *task["db"]],
                           capsys)[1])
    # T1's primary is now the same output as T2's: equal scores, one cluster (sacrebleu's p for identical
    # outputs is 1/1001, but neither scores higher, so neither is better)
    assert {s["team"] for s in board["systems"]} == {"T1", "T2"}
    first, second = board["systems"]
    assert first["chrf"] == second["chrf"] and first["cluster"] == second["cluster"] == 1
    assert board["pvalues"]["chrf"][first["system"]][second["system"]] == pytest.approx(1 / 1001)
    # CSV and LaTeX renderings
    code, out, _ = run(["outputs", "leaderboard", "--campaign", "task", "--lp", "en-de", "--format", "latex",
                        *task["db"]], capsys)
    assert code == 0 and "\\begin{tabular}" in out and "T1-contrastive" in out
    code, out, _ = run(["outputs", "leaderboard", "--campaign", "task", "--lp", "en-de", "--format", "csv",
                        *task["db"]], capsys)
    assert out.splitlines()[0].startswith("rank,team,system,chrf")


def test_hidden_until_deadline_flag(task, capsys):
    assert run(["testset", "set", "--campaign", "task", "--lp", "en-de", "--deadline", "2999-01-01",
                "--leaderboard", "hidden-until-deadline", *task["db"]], capsys)[0] == 0
    submit(task, capsys, task["outputs"]["good"])
    board = json.loads(run(["outputs", "leaderboard", "--campaign", "task", "--lp", "en-de", "--json", *task["db"]],
                           capsys)[1])
    assert board["hidden"] is True and len(board["systems"]) == 1  # organisers (the CLI) still see it


def test_references_added_later_rescore_submissions(tmp_path, capsys, task):
    from sacrebleu.metrics import CHRF
    db = ["--database-url", f"sqlite:///{tmp_path / 'later.sqlite'}"]
    run(["testset", "add", "--campaign", "c", "--lp", "en-de", "--source", str(task["files"]["src"]), *db], capsys)
    run(["team", "add", "T", "--verified", *db], capsys)
    code, out, _ = run(["outputs", "submit", str(task["outputs"]["good"]), "--campaign", "c", "--lp", "en-de",
                        "--team", "T", "--json", *db], capsys)
    assert code == 0 and json.loads(out)["scores"] == {}
    code, out, _ = run(["testset", "refs", str(task["files"]["A"]), "--campaign", "c", "--lp", "en-de", "--json",
                        *db], capsys)
    assert json.loads(out)["rescored"] == 1
    listed = json.loads(run(["outputs", "list", "--campaign", "c", "--json", *db], capsys)[1])
    hyp = task["outputs"]["good"].read_text().splitlines()
    assert listed[0]["chrf"] == CHRF().corpus_score(hyp, [task["ref_a"]]).score


def test_team_tokens_sign_in_as_team_and_can_be_revoked(task, capsys):
    from leaderboard.accounts.auth import authenticate, authenticate_token
    store = Store(task["url"])
    code, out, _ = run(["team", "token", "T1", "--json", *task["db"]], capsys)
    token = json.loads(out)["token"]
    assert authenticate_token(store, token) == {"name": "T1", "role": "team"}
    assert authenticate(store, "T1", "any password at all") is None  # teams have no password
    with store.engine.connect() as conn:
        hashes = conn.execute(select(m.upload_tokens.c.token_hash)).scalars().all()
    assert token not in hashes and all(len(h) == 64 for h in hashes)
    code, out, _ = run(["team", "token", "T1", "--revoke", "--json", *task["db"]], capsys)
    assert json.loads(out)["revoked"] == 1
    assert authenticate_token(store, token) is None


def test_show_and_export(task, capsys):
    a = json.loads(submit(task, capsys, task["outputs"]["good"], "T1", "--primary")[1])["id"]
    b = json.loads(submit(task, capsys, task["outputs"]["poor"], "T2")[1])["id"]
    code, out, _ = run(["outputs", "show", str(a), "--compare", str(b), "--json", *task["db"]], capsys)
    rows = json.loads(out)
    assert len(rows) == N and rows[0]["source"] == task["src"][0] and rows[0]["ref A"] == task["ref_a"][0]
    good = task["outputs"]["good"].read_text().splitlines()
    assert [r[f"#{a} T1/T1"] for r in rows] == good
    assert any(not r["same"] for r in rows)
    zpath = task["tmp"] / "all.zip"
    code, out, _ = run(["outputs", "export", "--campaign", "task", "--out", str(zpath), "--json", *task["db"]], capsys)
    assert code == 0
    with zipfile.ZipFile(zpath) as zf:
        names = zf.namelist()
        assert "test/sources/test.en-de.src.en" in names
        assert {"test/references/test.en-de.ref.A.de", "test/references/test.en-de.ref.B.de"} <= set(names)
        assert f"test/submissions/en-de/{a}.T1.T1.de" in names and f"test/submissions/en-de/{b}.T2.T2.de" in names
        assert "test/system-outputs/en-de/test.en-de.hyp.T1.de" in names  # the primary only
        assert not any(".hyp.T2." in n for n in names)
        assert zf.read("test/system-outputs/en-de/test.en-de.hyp.T1.de").decode().splitlines() == good
        manifest = zf.read("submissions.csv").decode()
        assert manifest.splitlines()[0].startswith("id,campaign,lp,team,system")
        assert io.StringIO(manifest).read().count("\n") == 3
