"""The command line's own wording for the structured errors of the layers below (:class:`InputError`
``code``): which option to give. Only ``cli/`` names flags; the web app phrases its own hints."""

from __future__ import annotations

from ..errors import InputError

#: error code -> the command line's whole message (``{value}``: the offending value)
MESSAGES: dict[str, str] = {
    "negative_resamples": "--resamples must be 0 or more",
    "bad_qc_alpha": "--qc-alpha must lie strictly between 0 and 1, not {value}",
    "verdicts_without_stats": "--release-qc-verdicts needs --release-qc (the statistics file)",
}
#: error code -> what to add to the message on the command line
HINTS: dict[str, str] = {
    "worker_stats_not_release": "(--worker-stats)",
    "mixed_mqm": "(one `mtlb ingest` call each)",
    "mixed_pearmut_appraise": "(one `mtlb ingest` call each)",
}


def cli_message(exc: InputError) -> str:
    """The error as the command line prints it: its place and message, and the option that fixes it."""
    code = exc.code or ""
    if code in MESSAGES and not exc.problems:
        where = exc.where() if exc.file or exc.line is not None else ""
        return where + MESSAGES[code].format(value=exc.value)
    hint = HINTS.get(code)
    return f"{exc} {hint}" if hint else str(exc)
