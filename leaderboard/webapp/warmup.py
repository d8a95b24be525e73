"""Warm a fresh app process before it takes visitors: run every page once, headless, in-process.

A new Streamlit process pays on its first session for importing pandas, plotly, scipy and the app's
modules (≈ 1 s) and for filling the process-wide ``st.cache_data`` / ``st.cache_resource`` caches of
the default view (≈ 0.4 s per page). ``mtlb serve`` calls :func:`warm_up` before the server listens,
so the first visitor after a start waits no longer than the next one. The pages run through
Streamlit's own headless runner (``AppTest``), which executes exactly what a visit executes; the
caches it fills are the process-wide ones the server then uses.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from . import navigation

ENTRY_SCRIPT = Path(__file__).resolve().parent / "entry" / "app.py"


@contextmanager
def _quiet_streamlit() -> Iterator[None]:
    """Streamlit warns once per cached function (and per bare-mode call) when no server runtime exists
    yet, which is the point here; hide those warnings while warming."""
    import streamlit  # noqa: F401 - creates Streamlit's loggers, which set their own levels

    loggers = [logging.getLogger(name) for name in list(logging.root.manager.loggerDict)
               if name == "streamlit" or name.startswith("streamlit.")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


def warm_up(script: Path = ENTRY_SCRIPT, pages: list[str] | None = None,
            timeout: float = 120) -> dict[str, dict]:
    """Run the app's pages once (default: every registered page, menu order) on the default view.

    Returns, per url path, ``{"seconds": float, "errors": [str, ...]}``. A page that fails is reported,
    not raised: warming must never keep the server from starting.
    """
    from streamlit.testing.v1 import AppTest

    report: dict[str, dict] = {}
    wanted = pages if pages is not None else list(navigation.SPECS)
    with _quiet_streamlit():
        app = AppTest.from_file(str(script), default_timeout=timeout)
        for i, path in enumerate(wanted):
            start = time.perf_counter()
            errors: list[str] = []
            try:
                if i == 0:
                    app.run()  # the first run opens the store, loads the demo when the store is empty
                app.switch_page(str(navigation.PAGES_DIR / navigation.SPECS[path].file)).run()
                errors = [str(e.value) for e in app.exception]
            except Exception as exc:  # noqa: BLE001 - reported to the caller, the server starts anyway
                errors = [f"{type(exc).__name__}: {exc}"]
            report[path] = {"seconds": round(time.perf_counter() - start, 3), "errors": errors}
    return report
