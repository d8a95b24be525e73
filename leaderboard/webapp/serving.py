"""What the app is served with beside its pages (the keyword arguments of its ``st.App``): connections that
send at once, and the annotation endpoint below the configured base path, both in front of Streamlit."""

from __future__ import annotations

from typing import Any


def app_options() -> dict[str, Any]:
    """``middleware`` for ``st.App``, outermost first (read when ``streamlit run`` loads the app, after the
    command line's options are in Streamlit's configuration)."""
    from starlette.middleware import Middleware
    from streamlit import config

    from .annotation_api import AnnotationEndpoint
    from .connections import SendAtOnce
    return {"middleware": [Middleware(SendAtOnce),
                           Middleware(AnnotationEndpoint, base_path=config.get_option("server.baseUrlPath") or "")]}
