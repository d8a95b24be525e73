"""The annotation endpoint: the contrastive-ESA page's drafts and submits, answered over plain HTTP beside the
Streamlit app by the same server (a middleware of the app's ``st.App``, see :mod:`leaderboard.webapp.serving`).

Why not through Streamlit: a value sent by a component reruns the whole page script on the server (the
navigation, the annotator's page, the component's arguments serialised again and compared), about 35–80 ms of
CPU per annotated page, which caps one app process well below the annotators a WMT campaign runs at once. Here
a draft or a submit costs the collection service's own work (one pooled connection per request) and the next
page's arguments, nothing else.

Who may ask: the request carries the annotator's link parameters (an invitation token, or a crowd key and
the platform's worker id), checked exactly as the page checks them (:func:`leaderboard.collect.service.open_link`);
a link that opens no annotator, a preview, or another protocol's campaign gets 403 and nothing is stored. What
the endpoint answers with is what the page would show (:func:`leaderboard.webapp.cesa_view.page_args`).

Requests (JSON, POST, at most :data:`MAX_BODY` bytes): ``{"link": {...}, "kind": "page" | "draft" | "submit",
"assignment": id, "answers": [...]}``. Answers: ``{"state": "page", "task": {...}}`` (the page to draw, also the
same page sent back with notes), ``{"state": "complete" | "none"}`` (the page asks Streamlit for a rerun, which
shows the code or the message), ``{"saved": n}`` for a draft; a refused answer adds ``"error"`` (the message for
the annotator) and the page as the server holds it.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from functools import lru_cache
from typing import Any, Awaitable, Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse

from ..collect import cesa, service
from ..errors import InputError
from ..storage import Store, default_url
from ..storage.collect import one_connection
from .cesa_view import page_args
from .cesa_widget import API_PATH

#: the largest request body taken (a page of four 150-word translations with every word marked is ~60 kB)
MAX_BODY = 1_000_000
#: how long a checked link's annotator is kept (seconds), and how many are kept: an annotator sends two to four
#: requests a page, and the page itself keeps the annotator it opened for the whole browser session
KEEP_SECONDS, KEEP_LINKS = 60.0, 4096
_people: OrderedDict[tuple, tuple[float, service.Annotator]] = OrderedDict()
_people_lock = threading.Lock()


@lru_cache(maxsize=4)
def _store(url: str) -> Store:
    """The store of this process, one object per URL (the collection service keeps per-store caches)."""
    return Store(url)


class AnnotationEndpoint:
    """ASGI middleware in front of the app: requests to the endpoint's path (below the app's base path,
    ``server.baseUrlPath``) are answered here; everything else goes on to Streamlit. In front, because
    Streamlit's own middleware (sessions, gzip, path checks, its router) is of no use to these requests and
    cost about a tenth of the server's CPU under load when they went through it."""

    def __init__(self, app: Callable[..., Awaitable[None]], base_path: str = "") -> None:
        self.app = app
        self.path = "/" + "/".join(part for part in (base_path.strip("/"), API_PATH) if part)

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != self.path:
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        if request.method != "POST":
            response = JSONResponse({"error": "send answers with POST"}, status_code=405, headers={"Allow": "POST"})
        else:
            response = await _endpoint(request)
        await response(scope, receive, send)


def _reply(status: int, body: dict[str, Any]) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})


def _too_large() -> JSONResponse:
    return _reply(413, {"error": f"the request is larger than {MAX_BODY} bytes"})


async def _endpoint(request: Request) -> JSONResponse:
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        return _too_large()
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return _too_large()
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return _reply(400, {"error": "the request is not JSON"})
    status, answer = await run_in_threadpool(respond, data)
    return _reply(status, answer)


def _link(data: Any) -> dict[str, str] | None:
    link = data.get("link") if isinstance(data, dict) else None
    if not isinstance(link, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in link.items()):
        return None
    return link


def respond(data: Any) -> tuple[int, dict[str, Any]]:
    """One request, answered as ``(HTTP status, JSON body)``; what the endpoint runs in a worker thread, on one pooled
    connection from the link's check to the next page (:func:`leaderboard.storage.collect.one_connection`)."""
    link = _link(data)
    if link is None:
        return 400, {"error": "the request names no annotator link"}
    kind = data.get("kind")
    if kind not in ("page", "draft", "submit"):
        return 400, {"error": "kind must be page, draft or submit"}
    store = _store(default_url())
    with one_connection(store):
        return _answer(store, link, kind, data)


def _person(store: Store, link: dict[str, str]) -> service.Annotator | None:
    """The link's annotator, as :func:`leaderboard.collect.service.open_link` finds it, kept a minute per link."""
    key = (store.engine, tuple(sorted(link.items())))  # the engine, not the URL, as the collection storage keys
    now = time.monotonic()
    with _people_lock:
        kept = _people.get(key)
        if kept is not None and now - kept[0] < KEEP_SECONDS:
            _people.move_to_end(key)
            return kept[1]
    person = service.open_link(store, link)
    if person is not None:
        with _people_lock:
            _people[key] = (now, person)
            while len(_people) > KEEP_LINKS:
                _people.popitem(last=False)
    return person


def _answer(store: Store, link: dict[str, str], kind: str, data: dict) -> tuple[int, dict[str, Any]]:
    try:
        person = _person(store, link)
    except InputError as exc:
        return 403, {"error": str(exc)}
    if person is None or person.protocol != "cesa":
        return 403, {"error": "this link opens no contrastive-ESA page"}
    try:
        if kind == "draft":
            return 200, {"saved": cesa.save_drafts(store, person, data.get("assignment"), data.get("answers"))}
        page = cesa.submit_page(store, person, data.get("assignment"), data.get("answers")) if kind == "submit" \
            else cesa.next_page(store, person)
        error = None
    except InputError as exc:
        if kind == "draft":
            return 409, {"error": str(exc)}
        page, error = cesa.next_page(store, person), str(exc)
    answer: dict[str, Any] = {"state": page.state}
    if page.state == "page":
        answer["task"] = page_args(store, person, page, link)
    if error:
        answer["error"] = error
    return (409 if error else 200), answer
