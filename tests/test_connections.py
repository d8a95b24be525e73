"""The app's connections send at once (TCP_NODELAY): checked on a real uvicorn server, on the socket the request
arrived on, with the middleware the app is served with and without it."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request


def _nodelay_seen(middleware: list) -> list[int]:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from appserver import free_port

    async def probe(request):
        transport = request.receive.__self__.transport
        return JSONResponse(transport.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    # a listening socket like Streamlit's (no explicit protocol number, so asyncio leaves Nagle on)
    sock = socket.socket(family=socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", free_port()))
    sock.listen(16)
    server = uvicorn.Server(uvicorn.Config(Starlette(routes=[Route("/probe", probe)], middleware=middleware),
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    try:
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/probe"
        return [json.loads(urllib.request.urlopen(url, timeout=10).read()) for _ in range(2)]
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def test_every_connection_sends_at_once():
    from starlette.middleware import Middleware

    from leaderboard.webapp.connections import SendAtOnce
    assert all(_nodelay_seen([])) is False  # the server alone leaves Nagle on (what the middleware is for)
    assert all(v != 0 for v in _nodelay_seen([Middleware(SendAtOnce)]))


def test_the_served_app_has_it():
    """Both entry scripts serve the pages with the middleware and the annotation endpoint."""
    from starlette.middleware import Middleware

    from leaderboard.webapp.annotation_api import AnnotationEndpoint
    from leaderboard.webapp.connections import SendAtOnce
    from leaderboard.webapp.serving import app_options
    middleware = app_options()["middleware"]
    assert all(isinstance(m, Middleware) for m in middleware)
    assert [m.cls for m in middleware] == [SendAtOnce, AnnotationEndpoint] and middleware[1].kwargs == {"base_path": ""}
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    packaged = root / "leaderboard" / "webapp" / "entry" / "app.py"
    assert (root / "app.py").read_text().split('"""', 2)[2] == packaged.read_text().split('"""', 2)[2]
    assert "app = st.App(__file__, **app_options())" in packaged.read_text()
