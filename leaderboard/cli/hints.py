"""The command line's own hints for the structured errors of the layers below (:class:`InputError`
``code``): which option to give. Only ``cli/`` names flags; the web app phrases its own hints."""

from __future__ import annotations

from ..errors import InputError

#: error code -> what to add to the message on the command line
HINTS: dict[str, str] = {
    "worker_stats_not_release": "(--worker-stats)",
    "mixed_mqm": "(one `mtlb ingest` call each)",
    "mixed_pearmut_appraise": "(one `mtlb ingest` call each)",
}


def cli_message(exc: InputError) -> str:
    """The error as the command line prints it: its place and message, and the option that fixes it."""
    text = str(exc)
    hint = HINTS.get(exc.code or "")
    return f"{text} {hint}" if hint else text
