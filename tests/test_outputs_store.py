"""Storage of the submissions stage on both back ends (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from leaderboard.errors import InputError
from leaderboard.outputs import service
from leaderboard.outputs.scoring import unpack_stats
from leaderboard.storage import Store
from leaderboard.storage.outputs import OutputStore

N = 30


@pytest.fixture()
def files(tmp_path):
    rng = np.random.default_rng(2)
    words = "one two three four five six seven eight nine ten".split()
    ref = [" ".join(rng.choice(words, 7)) for _ in range(N)]
    out = {"src": tmp_path / "s.txt", "ref": tmp_path / "r.txt", "hyp": tmp_path / "h.txt", "hyp2": tmp_path / "h2.txt"}
    out["src"].write_text("\n".join(f"zdroj {i}" for i in range(N)) + "\n")
    out["ref"].write_text("\n".join(ref) + "\n")
    out["hyp"].write_text("\n".join(" ".join(line.split()[:-1]) for line in ref) + "\n")
    out["hyp2"].write_text("\n".join(line.replace("one", "eleven") for line in ref) + "\n")
    return out


def test_round_trip_on_both_back_ends(db_url, files):
    store = Store(db_url)
    deadline = datetime.now(timezone.utc) + timedelta(days=1)
    service.add_testset(store, "C", "cs-en", files["src"], [files["ref"]], deadline=deadline, max_submissions=3)
    out = OutputStore(store)
    ts = out.testset("C", "cs-en")
    assert ts["segments"] == N and ts["references"] == ["r"] and ts["max_submissions"] == 3
    assert abs((ts["deadline"] - deadline).total_seconds()) < 1 and ts["deadline"].tzinfo is not None
    service.add_team(store, "T", verified=True, contact="t@example.org")
    with pytest.raises(InputError, match="taken"):
        service.add_team(store, "T")
    before = out.revision("C")
    a = service.submit(store, files["hyp"], campaign="C", lp="cs-en", team="T")
    b = service.submit(store, files["hyp2"], campaign="C", lp="cs-en", team="T", system="T-2", primary=True)
    assert out.revision("C") != before
    stats = unpack_stats(out.submission_stats([a["id"]])[a["id"]])
    assert stats["bleu"].shape == (N, 10) and stats["chrf"].shape == (N, 18)
    assert out.submission_lines(b["id"]) == files["hyp2"].read_text().splitlines()
    # one primary per team: a new primary replaces the old
    rev = out.revision("C")
    out.set_primary(a["id"])
    assert out.revision("C") != rev
    subs = out.submissions("C")
    assert dict(zip(subs["id"], subs["primary"])) == {a["id"]: True, b["id"]: False}
    texts = store.texts("C", "cs-en")
    assert set(texts.loc[texts["kind"] == "hypothesis", "name"]) == {"T"}
    # the limit is checked in the writing transaction too
    service.submit(store, files["hyp2"], campaign="C", lp="cs-en", team="T", system="T-3")
    with pytest.raises(InputError, match="limit is 3"):
        service.submit(store, files["hyp"], campaign="C", lp="cs-en", team="T")
    assert len(out.submissions("C")) == 3
    board = service.leaderboard(store, "C", "cs-en")
    assert [s["system"] for s in board["systems"]] == ["T"] and board["hidden"] is False


def test_texts_loaded_with_mtlb_texts_win(db_url, files):
    store = Store(db_url)
    service.add_testset(store, "C", "cs-en", files["src"], [files["ref"]])
    store.load_texts("C", [("cs-en", "reference", "B", ["other"] * N, "x.ref.B.en"),
                           ("cs-en", "hypothesis", "T", ["stored"] * N, "x.hyp.T.en")])
    service.add_team(store, "T", verified=True)
    service.add_team(store, "U", verified=True)
    service.submit(store, files["hyp"], campaign="C", lp="cs-en", team="T", primary=True)
    service.submit(store, files["hyp2"], campaign="C", lp="cs-en", team="U", primary=True)
    texts = store.texts("C", "cs-en")
    refs = texts[texts["kind"] == "reference"]
    assert set(refs["name"]) == {"B"}  # the stored references are not mixed with the test set's
    hyps = texts[texts["kind"] == "hypothesis"]
    assert hyps[hyps["name"] == "T"]["text"].unique().tolist() == ["stored"]
    assert hyps[hyps["name"] == "U"]["text"].tolist() == files["hyp2"].read_text().splitlines()
    assert texts[texts["kind"] == "source"]["text"].tolist() == files["src"].read_text().splitlines()
