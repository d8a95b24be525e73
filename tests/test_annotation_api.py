"""The annotation endpoint over real HTTP: uvicorn on a free port serving the route as the app mounts it (below a
base path), a cESA campaign from the Pearmut sample in SQLite, and requests as the page component sends them.
The page itself, in Chromium through a served app, is in ``test_browser_cesa.py``."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

LP = "eng_Latn-ces_Latn"


@pytest.fixture()
def endpoint(tmp_path: Path, shared: Path, monkeypatch):
    """(address, store, [link of annotator 1, link of annotator 2], link of a DA campaign's annotator)."""
    import uvicorn
    from starlette.applications import Starlette

    from leaderboard.collect.campaigns import create_cesa
    from leaderboard.collect.links import invitation_links
    from leaderboard.collect.plan import from_pearmut
    from leaderboard.storage import Store
    from starlette.middleware import Middleware

    from leaderboard.webapp.annotation_api import AnnotationEndpoint
    from appserver import free_port

    url = f"sqlite:///{tmp_path / 'api.sqlite'}"
    monkeypatch.setenv("DATABASE_URL", url)
    store = Store(url)
    _, plan = from_pearmut(shared / "pearmut" / "dynamic" / "campaign.json")
    plan.welcome, plan.checks = [], []
    plan.settings.update(check_prob=0.0, docs_per_user=None, max_annotators=None, checks=0)
    create_cesa(store, "pm", LP, plan, seed=1, redundancy=2)
    links = [{"t": link["url"].split("t=")[1]} for link in invitation_links(store, "pm", LP, 2, "http://x.invalid")]
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(Starlette(middleware=[Middleware(AnnotationEndpoint, base_path="/base/")]), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/base/mtlb-api/cesa", store, links
    server.should_exit = True
    thread.join(10)


def _post(address: str, body, *, raw: bytes | None = None, method: str = "POST") -> tuple[int, dict]:
    data = raw if raw is not None else json.dumps(body).encode()
    request = urllib.request.Request(address, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        text = exc.read()
        return exc.code, (json.loads(text) if text.startswith(b"{") else {})


def _declared_too_long(address: str, length: int) -> int:
    """The status of a request that declares a body longer than the endpoint takes (answered before it is sent)."""
    import http.client
    from urllib.parse import urlsplit
    parts = urlsplit(address)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    conn.putrequest("POST", parts.path)
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", str(length))
    conn.endheaders()
    status = conn.getresponse().status
    conn.close()
    return status


def _answers(task: dict, score: float = 70) -> list[dict]:
    return [{"item": t["item"], "score": score, "spans": []} for s in task["page"]["segments"]
            for t in s["translations"]]


def test_a_page_its_drafts_and_its_submit(endpoint):
    from leaderboard.storage import collect_cesa as cdb
    address, store, (mine, _) = endpoint
    status, first = _post(address, {"link": mine, "kind": "page"})
    assert status == 200 and first["state"] == "page"
    task = first["task"]
    # what the page draws, without the model names, and where to send the next answer
    assert task["api"] == "../../mtlb-api/cesa" and task["link"] == mine
    page = task["page"]
    assignment = page["assignment_id"]
    items = [t["item"] for s in page["segments"] for t in s["translations"]]
    assert all(not k.startswith("_") for s in page["segments"] for t in s["translations"] for k in t)
    assert len(items) == len(set(items)) > 0
    # a draft is stored as it is given
    status, saved = _post(address, {"link": mine, "kind": "draft", "assignment": assignment,
                                    "answers": [{"item": items[0], "score": 33, "spans": []}]})
    assert (status, saved) == (200, {"saved": 1})
    drafts = cdb.answer_rows(store, assignment)  # (item, raw, spans, final)
    assert [raw for _, raw, _, _ in drafts] == [33] and not any(final for *_, final in drafts)
    # a submit with a translation unscored: refused, named, the same page sent back with the draft; nothing final
    status, back = _post(address, {"link": mine, "kind": "submit", "assignment": assignment,
                                   "answers": _answers(task)[1:]})
    assert status == 409 and "has no score yet" in back["error"]
    assert back["task"]["page"]["assignment_id"] == assignment
    given = {t["item"]: t["given"] for s in back["task"]["page"]["segments"] for t in s["translations"]}
    assert given[items[0]]["score"] == 33
    assert store.judgments("pm").empty
    # the whole page: stored as judgments, and the next page comes back in the same answer
    status, nxt = _post(address, {"link": mine, "kind": "submit", "assignment": assignment,
                                  "answers": _answers(task, 81)})
    assert status == 200 and nxt["state"] == "page"
    assert (nxt["task"]["page"]["assignment_id"], nxt["task"]["page"]["page"]) != (assignment, page["page"])
    judged = store.judgments("pm")
    assert len(judged) == len(items) and (judged["raw"] == 81).all()
    # the same submit again stores nothing more
    status, again = _post(address, {"link": mine, "kind": "submit", "assignment": assignment,
                                    "answers": _answers(task, 81)})
    assert status == 409 and "no longer yours" in again["error"] and len(store.judgments("pm")) == len(items)


def test_what_is_refused_stores_nothing(endpoint):
    from leaderboard.storage import collect as db
    from leaderboard.storage import collect_cesa as cdb
    from leaderboard.webapp.annotation_api import MAX_BODY
    address, store, (mine, other) = endpoint
    task = _post(address, {"link": mine, "kind": "page"})[1]["task"]
    assignment = task["page"]["assignment_id"]
    cid = db.collection(store, "pm", LP)["id"]
    before = db.annotator_count(store, cid)
    # a forged or damaged link
    for link in ({"t": "A" * 32}, {"t": "short"}, {"c": "no-such-key", "workerId": "W1"}):
        status, body = _post(address, {"link": link, "kind": "page"})
        assert status == 403 and ("not valid" in body["error"] or "does not belong" in body["error"])
    assert db.annotator_count(store, cid) == before
    # a crowd preview (no worker id yet) holds nothing
    key = db.collection(store, "pm", LP)["crowd_key"]
    status, body = _post(address, {"link": {"c": key, "assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE"}, "kind": "page"})
    assert status == 403 and db.annotator_count(store, cid) == before
    # another annotator's page
    status, body = _post(address, {"link": other, "kind": "submit", "assignment": assignment,
                                   "answers": _answers(task)})
    assert status == 409 and "no longer yours" in body["error"]
    status, body = _post(address, {"link": other, "kind": "draft", "assignment": assignment,
                                   "answers": _answers(task)})
    assert status == 409 and "no longer yours" in body["error"]
    # a score out of range, named
    bad = _answers(task)
    bad[0]["score"] = 101
    status, body = _post(address, {"link": mine, "kind": "submit", "assignment": assignment, "answers": bad})
    assert status == 409 and "0 to 100, got 101" in body["error"]
    assert cdb.answer_rows(store, assignment) == [] and store.judgments("pm").empty
    # malformed requests
    assert _post(address, None, raw=b"{not json")[0] == 400
    assert _post(address, {"kind": "page"})[0] == 400
    assert _post(address, {"link": {"t": 5}, "kind": "page"})[0] == 400
    assert _post(address, {"link": mine, "kind": "delete"})[0] == 400
    assert _declared_too_long(address, MAX_BODY + 1) == 413
    assert _post(address, None, raw=b"", method="GET")[0] == 405
    assert _post(address.replace("/base", ""), {"link": mine, "kind": "page"})[0] == 404
    assert cdb.answer_rows(store, assignment) == [] and store.judgments("pm").empty


def test_a_link_of_another_protocol_opens_no_page(endpoint, tmp_path):
    from leaderboard.collect import campaigns
    from leaderboard.collect.links import invitation_links
    from collecting import write_testset
    address, store, _ = endpoint
    paths = write_testset(tmp_path / "testset", n_lines=20, seed=2)
    sources = campaigns.sources_from_files([str(p) for p in paths["hyps"]], str(paths["ref"]), "de-en",
                                           src=str(paths["src"]), docs=str(paths["docs"]))
    campaigns.create(store, "da", "de-en", sources, protocol="da", hits=1, hit_size=20, seed=1)
    token = invitation_links(store, "da", "de-en", 1, "http://x.invalid")[0]["url"].split("t=")[1]
    status, body = _post(address, {"link": {"t": token}, "kind": "page"})
    assert status == 403 and "contrastive" in body["error"]
    from leaderboard.collect.service import open_invitation
    from leaderboard.storage import collect_cesa as cdb
    assert cdb.annotator_assignments(store, open_invitation(store, token).id) == []  # no HIT was claimed
