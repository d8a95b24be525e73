"""Expert evaluations (MQM, ESA) on the pages: plain functions the pages cache and the tests call.

- :func:`mqm_segment_table` — per-segment MQM of one system with its errors;
- :func:`marked_outputs` — HTML of outputs with their error spans marked (every piece escaped);
- :func:`human_segments` — the human side of the meta-evaluation from what the store holds.
"""

from __future__ import annotations

import html

import pandas as pd

from ..expert.spans import mark_spans


def mqm_segment_table(errors: pd.DataFrame, system: str) -> pd.DataFrame:
    """segment, mqm, raters, errors of one system, worst first."""
    from ..expert.scoring import segment_scores
    seg = segment_scores(errors[errors["system"] == system])
    return seg.drop(columns=["lp", "system"]).sort_values(["mqm", "segment"], ascending=[False, True]) \
        .reset_index(drop=True)


def marked_outputs(spans: pd.DataFrame, texts: pd.DataFrame, segments: list[str], limit: int = 30) -> str:
    """An HTML list: per segment, the output with its spans marked (severity colours) and who marked them.

    ``spans``: segment, rater, severity, category, span_start, span_end; ``texts``: segment, target
    (and optionally source). Outputs, categories and rater names are user data: all escaped.
    """
    by_text = texts.drop_duplicates("segment").set_index("segment")
    items = []
    for seg in segments[:limit]:
        if seg not in by_text.index:
            continue
        mine = spans[spans["segment"] == seg]
        marks = [(None if pd.isna(a) else int(a), None if pd.isna(b) else int(b), str(sev))
                 for a, b, sev in zip(mine["span_start"], mine["span_end"], mine["severity"])
                 if str(sev) != "no-error"]
        labels = sorted({f"{c} ({s})" for c, s in zip(mine["category"].fillna("–"), mine["severity"])
                         if str(s) != "no-error"})
        source = by_text.loc[seg].get("source") if "source" in by_text.columns else None
        items.append(
            "<li style='margin-bottom:0.6em'>"
            f"<b>segment {html.escape(str(seg))}</b>"
            + (f"<div style='color:#555'>{html.escape(str(source))}</div>" if source else "")
            + f"<div>{mark_spans(str(by_text.loc[seg, 'target']), marks)}</div>"
            + (f"<div style='font-size:0.85em;color:#555'>{html.escape('; '.join(labels))}</div>" if labels else "")
            + "</li>")
    return "<ul style='list-style:none;padding-left:0'>" + "".join(items) + "</ul>"


def human_segments(assessment: str, errors: pd.DataFrame | None, judgments: pd.DataFrame | None,
                   lp: str) -> pd.DataFrame:
    """(system, segment, score), higher = better: −MQM for MQM, else the mean raw score per cell."""
    from metrics.metaeval.inputs import human_from_judgments, human_from_mqm
    if assessment == "mqm":
        return human_from_mqm(errors, lp)
    return human_from_judgments(judgments, lp, "raw")
