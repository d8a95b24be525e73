"""The command line's own wording for the structured errors of the layers below (:class:`InputError`
``code``): which option to give. Only ``cli/`` names flags; the web app phrases its own hints
(``webapp/hints.py``)."""

from __future__ import annotations

from ..errors import InputError

#: error code -> the command line's whole message (``{value}``: the offending value)
MESSAGES: dict[str, str] = {
    "negative_resamples": "--resamples must be 0 or more",
    "bad_qc_alpha": "--qc-alpha must lie strictly between 0 and 1, not {value}",
    "verdicts_without_stats": "--release-qc-verdicts needs --release-qc (the statistics file)",
    "too_few_hits": "--hits must be at least 1, got {value}",
    "too_few_hits_per_annotator": "--hits-per-annotator must be at least 1, got {value}",
    "bad_random_share": "--random-share must lie between 0 and 1, got {value}",
    "too_few_annotators": "--annotators must be at least 1, got {value}",
    "source_based_without_source": "--source-based shows the source: give the source file (--src), or create the "
                                   "campaign from the primary submissions, whose test set has it",
    "match_twice": "--match maps two systems onto {value!r}",
    "match_unknown": "--match names {value!r}, which no earlier year of the compared pairs holds",
    "too_few_systems": "--systems must be at least 4 (three are shown per item), not {value}",
    "campaign_too_small": "--systems, --segments and --hits-per-worker must be at least 1",
}
#: error code -> what to add to the message on the command line
HINTS: dict[str, str] = {
    "worker_stats_not_release": "(--worker-stats)",
    "mixed_mqm": "(one `mtlb ingest` call each)",
    "mixed_pearmut_appraise": "(one `mtlb ingest` call each)",
    "no_annotator_passed": "(--format appraise holds everyone)",
    "unknown_reference": "(pass --reference)",
    "no_outputs": "(--hyp)",
    "not_a_ranking": "(the output of `mtlb rank --json`)",
    "not_metric_scores": "(the output of `mtlb score --json`)",
    "not_segment_scores": "(the output of `mtlb published --format segments`)",
    "unknown_best_by": "(--best-by)",
    "one_year": "(--year LABEL=FILE twice)",
    "missing_z": "(--standardise worker)",
    "no_raw_to_standardise": "(--worker-stats, or --standardise keep)",
    "no_raw_scores": "(--worker-stats)",
    "all_workers_failed_qc": "(--qc none, or a higher --qc-alpha)",
    "unknown_format": "(pass --input-format)",
    "no_lp": "(pass --lp)",
    "unknown_system": "(`mtlb campaigns human` lists the campaign's systems)",
    "no_testset": "(add one with `mtlb testset add`)",
    "no_judgments": "(`mtlb ingest` stores them)",
    "no_texts": "(store them with `mtlb texts` first)",
    "bad_tie_pairs": "(--tie-pairs: at most (systems - 1) / 2)",
    "negative_workers": "(--good, --lenient, --harsh, --random)",
    "no_workers": "(--good, --lenient, --harsh, --random)",
    "bad_assignments": "(--assignments)",
    "no_batch": "(build the batch with `mtlb hits build`)",
    "no_systems": "(give --systems-from FILE)",
}


def cli_message(exc: InputError) -> str:
    """The error as the command line prints it: its place and message, and the option that fixes it."""
    code = exc.code or ""
    if code in MESSAGES and not exc.problems:
        where = exc.where() if exc.file or exc.line is not None else ""
        return where + MESSAGES[code].format(value=exc.value)
    hint = HINTS.get(code)
    return f"{exc} {hint}" if hint else str(exc)
