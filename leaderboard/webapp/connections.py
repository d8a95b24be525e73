"""Responses sent at once: TCP_NODELAY on every connection the app serves.

The server (uvicorn, under Streamlit's ``st.App``) writes a response's head and its body separately. On a
connection with Nagle's algorithm on, the body then waits until the client acknowledges the head, and a
client delays that acknowledgement by up to 40 ms: every response on a kept-alive connection (the page's
scripts and styles, the annotation endpoint's answers) arrived 40 ms late. asyncio turns Nagle off itself
only for sockets made with an explicit TCP protocol number, which Streamlit's listening socket is not.
Measured here on a kept-alive connection: 44 ms per request before, under 1 ms after.
"""

from __future__ import annotations

import socket
from typing import Any, Awaitable, Callable

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]


def send_at_once(receive: Receive) -> None:
    """Set TCP_NODELAY on the connection behind an ASGI ``receive`` (uvicorn's protocol object holds its
    transport); where the server does not expose it, nothing changes."""
    transport = getattr(getattr(receive, "__self__", None), "transport", None)
    sock = transport.get_extra_info("socket") if transport is not None else None
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class SendAtOnce:
    """ASGI middleware: :func:`send_at_once` for every HTTP request and WebSocket the app serves."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            send_at_once(receive)
        await self.app(scope, receive, send)
