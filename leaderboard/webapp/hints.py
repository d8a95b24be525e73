"""The web app's own hints for the structured errors of the layers below (:class:`InputError` ``code``):
what to choose on the page. The lower layers name neither flags nor controls; ``cli/_hints.py`` is the
command line's counterpart."""

from __future__ import annotations

from ..errors import InputError

#: error code -> what to add to the message on a page
HINTS: dict[str, str] = {
    "unknown_format": "(choose one under “Format”)",
    "worker_stats_not_release": "(leave the worker mean/sd file empty)",
    "no_lp": "(type it under “Language pair”)",
    "all_workers_failed_qc": "(“Worker QC”: none, or a higher “QC threshold p <”)",
    "missing_z": "(standardise per worker)",
    "no_testset": "(organisers release one on the Test sets page)",
    "no_texts": "(store them on the Upload texts tab first)",
    "no_systems": "(store human judgments, or a test set with primary submissions, first)",
}


def web_message(exc: InputError) -> str:
    """The message of ``exc`` (without its place) and the page's hint for its code."""
    hint = HINTS.get(exc.code or "")
    return f"{exc.message} {hint}" if hint else exc.message
