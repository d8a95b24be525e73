"""What the app is served with beside its pages (the keyword arguments of its ``st.App``): the annotation
endpoint below the configured base path, and connections that send at once."""

from __future__ import annotations

from typing import Any


def app_options() -> dict[str, Any]:
    """``routes`` and ``middleware`` for ``st.App`` (read when ``streamlit run`` loads the app, after the
    command line's options are in Streamlit's configuration)."""
    from starlette.middleware import Middleware
    from streamlit import config

    from .annotation_api import routes
    from .connections import SendAtOnce
    return {"routes": routes(config.get_option("server.baseUrlPath") or ""), "middleware": [Middleware(SendAtOnce)]}
