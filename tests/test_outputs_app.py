"""AppTest tests of the submissions-stage pages: Teams, Automatic scores, Test sets (organisers)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from htmltables import page_tables
from test_app_pages import ORGANISER, app_env, run_app  # noqa: F401 (fixture)

N = 80
TEAM = 'Lab <em>X & "Y"'  # markup-like characters must stay plain text
WORDS = ("river mountain bright quiet table window garden evening letter music yellow winter summer road city "
         "friend paper green stone voice").split()


def _texts(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    ref = [" ".join(rng.choice(WORDS, 9)) for _ in range(N)]
    src = [f"Quelle {i}" for i in range(N)]

    def noisy(p: float, s: int) -> bytes:
        r = np.random.default_rng(s)
        lines = [" ".join(w if r.random() > p else r.choice(WORDS) for w in line.split()) for line in ref]
        return ("\n".join(lines) + "\n").encode()

    return {"src": ("\n".join(src) + "\n").encode(), "ref": ("\n".join(ref) + "\n").encode(),
            "good": noisy(0.1, 1), "fair": noisy(0.4, 2), "ref_lines": ref}


@pytest.fixture()
def released(app_env):  # noqa: F811
    """A released test set 'Shared' en-de (through the organiser page)."""
    files = _texts()
    at = run_app("testsets.py", user=ORGANISER)
    at.text_input(key="ts_campaign").set_value("Shared")
    at.text_input(key="ts_lp").set_value("en-de")
    at.file_uploader(key="ts_source").set_value(("test.en-de.src.en", files["src"], "text/plain"))
    at.file_uploader(key="ts_refs").set_value([("test.en-de.ref.A.de", files["ref"], "text/plain")])
    at.button(key="FormSubmitter:new_testset-Validate and store the test set").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Stored test set test" in s.value for s in at.success), [e.value for e in at.error]
    return {**app_env, "files": files, "organiser": at}


def _sign_up(name: str = TEAM) -> tuple:
    at = run_app("teams.py")
    at.text_input(key="signup_name").set_value(name)
    at.text_input(key="signup_contact").set_value("lab@example.org")
    at.text_input(key="signup_institution").set_value("University")
    at.text_area(key="signup_description").set_value("Transformer, <script>alert(1)</script>")
    at.button(key="FormSubmitter:team_sign_up-Sign up").click().run()
    assert not at.exception, [e.value for e in at.exception]
    token = at.code[0].value
    return at, token


def _sign_in(at, token: str):
    at.text_input(key="team_token").set_value(token)
    at.button(key="FormSubmitter:team_sign_in-Sign in").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_team_signs_up_is_verified_signs_in_submits_and_marks_primary(released):
    from leaderboard.accounts.auth import token_hash
    from leaderboard.storage.outputs import OutputStore
    store = released["store"]
    at, token = _sign_up()
    assert token.startswith("mtlb_")
    team = OutputStore(store).team(TEAM)
    assert team["verified"] is False and team["contact"] == "lab@example.org"
    assert store.token_user(token_hash(token)) == {"name": TEAM, "role": "team"}
    # signed in but not verified: cannot submit
    _sign_in(at, token)
    assert any("waiting for an organiser" in w.value for w in at.warning)
    assert at.button(key="sub_go").disabled
    # the organiser verifies the team
    org = released["organiser"]
    org.run()
    org.selectbox(key="verify_team").set_value(TEAM)
    org.button(key="verify_go").click().run()
    assert any("is verified" in s.value for s in org.success)
    at.run()
    assert not any("waiting for an organiser" in w.value for w in at.warning)
    # a bad file: the error names the file and line, nothing is stored
    bad = b"\n".join(released["files"]["good"].splitlines()[:50]) + b"\n"
    at.file_uploader(key="sub_file").set_value(("short.txt", bad, "text/plain")).run()
    at.button(key="sub_go").click().run()
    assert any("short" in e.value and "line **51**" in e.value for e in at.error), [e.value for e in at.error]
    assert OutputStore(store).submissions().empty
    # a good file: scored, ranked
    at.file_uploader(key="sub_file").set_value(("mine.txt", released["files"]["good"], "text/plain")).run()
    at.button(key="sub_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    subs = OutputStore(store).submissions()
    assert len(subs) == 1 and subs["system"][0] == TEAM
    from sacrebleu.metrics import CHRF
    hyp = released["files"]["good"].decode().splitlines()
    chrf = CHRF().corpus_score(hyp, [released["files"]["ref_lines"]]).score
    assert any(f"chrF {chrf:.2f}" in s.value for s in at.success)
    assert any("ranked 1 of 1" in i.value for i in at.info)
    # mark it primary
    at.button(key="my_primary").click().run()
    assert OutputStore(store).submissions()["primary"].tolist() == [True]
    # the organiser builds a HIT batch from the primaries (one system: needs 70 lines per HIT; we have 80)
    org.run()
    org.button(key="ph_go").click().run()
    assert not org.exception, [e.value for e in org.exception]
    batch = org.session_state["ph_batch"]
    hits = pd.read_csv(io.BytesIO(batch["hits.csv"]))
    assert set(hits["system"]) == {TEAM} and len(hits) % 100 == 0


def test_automatic_page_shows_board_downloads_and_hides_until_deadline(released):
    from datetime import datetime, timedelta, timezone

    from leaderboard.outputs.service import add_team, submit
    from leaderboard.storage.outputs import OutputStore
    store, files = released["store"], released["files"]
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        for team, key in (("A", "good"), ("B", "fair")):
            add_team(store, team, verified=True)
            path = f"{folder}/{key}.txt"
            open(path, "wb").write(files[key])
            submit(store, path, campaign="Shared", lp="en-de", team=team)
    at = run_app("automatic.py")
    table = page_tables(at)[0]
    assert list(table["Team"]) == ["A", "B"] and list(table["Cluster"]) == [1, 2]
    labels = {b.label for b in at.get("download_button")}
    assert {"Download leaderboard (CSV)", "Download leaderboard (JSON)", "Download leaderboard (LaTeX)"} <= labels
    # rank stability: the board's shares, one chart row per entry; two clusters apart, A ranks first
    at = run_app("automatic.py", params={"tab": "Rank stability"})
    (chart,) = at.get("plotly_chart")
    import base64
    import json
    packed = json.loads(chart.proto.spec)["data"][0]["z"]  # plotly's typed-array form of a numpy matrix
    z = np.frombuffer(base64.b64decode(packed["bdata"]), dtype=packed["dtype"]).reshape(
        [int(v) for v in packed["shape"].split(",")])
    assert z.shape == (2, 2) and np.allclose(z.sum(axis=1), 100) and z[0, 0] > 50
    # hidden until the deadline: participants see a note, organisers the board
    out = OutputStore(store)
    ts = out.testset("Shared", "en-de")
    out.update_testset(ts["id"], deadline=datetime.now(timezone.utc) + timedelta(days=3), public_before_deadline=False)
    at = run_app("automatic.py")
    assert not page_tables(at) and any("hidden until the deadline" in i.value for i in at.info)
    at = run_app("automatic.py", user=ORGANISER)
    assert len(page_tables(at)) == 1 and any("Hidden from participants" in w.value for w in at.warning)
    # the team page does not reveal the rank either
    token = None
    from leaderboard.accounts.auth import issue_upload_token
    token = issue_upload_token(store, "A")
    team_at = _sign_in(run_app("teams.py"), token)
    assert any("hidden until the deadline" in i.value for i in team_at.info)


def test_compare_view_escapes_outputs(released):
    from leaderboard.outputs.diffview import side_by_side_html
    html = side_by_side_html([{"line": 1, "source": "<i>src</i>", "reference": "ref & co",
                               "a": "<script>alert(1)</script> one", "b": "<img src=x onerror=alert(2)> one"}],
                             "#1 <b>team</b>", "#2 other")
    assert "<script>" not in html and "<img" not in html and "<b>team</b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;img src=x onerror=alert(2)&gt;" in html
    assert "ref &amp; co" in html and "&lt;i&gt;src&lt;/i&gt;" in html
    assert 'class="mtlb-delete"' in html and 'class="mtlb-insert"' in html


def test_sign_up_refuses_a_taken_name(released):
    _sign_up("Taken")
    at = run_app("teams.py")
    at.text_input(key="signup_name").set_value("Taken")
    at.text_input(key="signup_contact").set_value("other@example.org")
    at.button(key="FormSubmitter:team_sign_up-Sign up").click().run()
    assert any("taken" in e.value for e in at.error) and not at.code


def test_pages_refuse_the_wrong_roles(released):
    at = run_app("testsets.py")
    assert any("Log in to release test sets" in w.value for w in at.warning)
    at = run_app("testsets.py", user={"name": "mdev", "role": "metric-developer"})
    assert any("Refused" in e.value for e in at.error)
    # a team token does not open the organiser page
    at = run_app("testsets.py", user={"name": "T", "role": "team"})
    assert any("Refused" in e.value for e in at.error)
    # a wrong token is refused
    at = _sign_in(run_app("teams.py"), "mtlb_not-a-token")
    assert any("Unknown or revoked" in e.value for e in at.error)
