"""Turn user files into validated canonical judgment frames.

``read_judgments`` is the single entry point used by the CLI, the app and the store: it detects
the format from the content (or takes ``input_format``), parses, fills campaign / lp / assessment
defaults, validates (:func:`leaderboard.schema.validate_judgments`) and returns the frame.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError
from .textio import decode, read_bytes

if TYPE_CHECKING:  # the readers import pandas: loaded when a file is read, not with the package
    import pandas as pd

FORMATS: tuple[str, ...] = ("canonical", "wmt-stnd", "appraise", "wmt23", "mturk", "mqm", "pearmut")
#: formats holding expert error annotations rather than DA judgments (read by leaderboard.expert)
ANNOTATION_FORMATS: tuple[str, ...] = ("mqm",)


def detect_format(path: str | os.PathLike, name: str | None = None) -> str:
    """Name the format of ``path`` from its content (Parquet by extension)."""
    from .appraise import looks_like_appraise
    from .canonical import looks_like_canonical
    from .wmt_release import looks_like_stnd
    label = name or str(path)
    p = Path(path)
    if p.suffix.lower() in (".parquet", ".pq"):
        return "canonical"
    if not p.exists():
        raise InputError("file not found", file=label)
    raw = read_bytes(p, label, limit=64 * 1024)
    try:
        head = decode(raw, label, nul_ok=False)
    except InputError:
        # the 64 KB cut may split a multi-byte character; sniff on the complete lines only
        head = decode(raw[: raw.rfind(b"\n") + 1], label, nul_ok=False)
    head = head[: head.rfind("\n") + 1] or head
    from .pearmut_log import looks_like_pearmut_log
    if looks_like_pearmut_log(head):
        return "pearmut"
    if looks_like_stnd(head):
        return "wmt-stnd"
    from .mturk import looks_like_mturk
    if looks_like_mturk(head):
        return "mturk"
    from .mqm import looks_like_mqm
    if looks_like_mqm(head):
        return "mqm"
    if looks_like_canonical(head):
        return "canonical"
    if looks_like_appraise(head):
        return "appraise"
    from .wmt23 import looks_like_wmt23
    if looks_like_wmt23(head):
        return "wmt23"
    raise InputError(
        f"cannot tell the format from the content; name it ({' | '.join(FORMATS)})", file=label, line=1,
        code="unknown_format",
    )


def read_judgments(
    path: str | os.PathLike,
    input_format: str | None = None,
    *,
    worker_stats: str | os.PathLike | pd.DataFrame | None = None,
    campaign: str | None = None,
    lp: str | None = None,
    assessment: str | None = None,
    name: str | None = None,
) -> pd.DataFrame:
    """Read and validate one judgment file; ``name`` is the label used in error messages.

    Options given by the caller win over the file (the same rule for every format):

    * ``campaign`` names the campaign of every judgment; campaign labels in the file (a canonical
      ``campaign`` column, MTurk's ``Input.campaign``) are replaced, and listed in
      ``attrs["campaigns_replaced"]``. Without it: the file's labels, else its folder name.
    * ``lp`` and ``assessment`` keep only the judgments of that language pair / assessment when
      the file names them (a Pearmut log names neither: ``lp`` is its pair, else the one its WMT26
      campaign id names; ``assessment`` defaults to ``cesa``) (the rest is counted in ``attrs["rows_of_other_lps"]`` /
      ``attrs["rows_of_other_assessments"]``; a file holding none is refused) and set them when
      the file does not.
    """
    import pandas as pd

    from ..schema import validate_judgments
    from .appraise import read_appraise
    from .canonical import read_canonical
    from .wmt_release import read_stnd, read_worker_stats
    label = name or str(path)
    fmt = input_format or detect_format(path, label)
    if fmt not in FORMATS:
        raise InputError(f"unknown input format {fmt!r} (choose from {', '.join(FORMATS)})", file=label)
    if fmt in ANNOTATION_FORMATS:
        raise InputError(f"this is an {fmt.upper()} error-annotation file, not DA judgments; read it with "
                         "leaderboard.expert (mtlb rank / mtlb ingest / mtlb meta-eval accept it)", file=label)
    default_campaign = campaign or Path(path).resolve().parent.name or "campaign"
    if fmt == "wmt-stnd":
        stats = worker_stats
        if stats is not None and not isinstance(stats, pd.DataFrame):
            stats = read_worker_stats(str(stats))
        frame = read_stnd(str(path), stats, campaign=default_campaign, name=label)
        if stats is None:
            frame["raw"] = float("nan")
    elif fmt == "appraise":
        frame = read_appraise(str(path), campaign=default_campaign, assessment=assessment, name=label)
    elif fmt == "wmt23":
        from .wmt23 import read_wmt23
        frame = read_wmt23(str(path), campaign=default_campaign, assessment=assessment, name=label)
    elif fmt == "pearmut":
        from .pearmut_log import DEFAULT_ASSESSMENT, read_pearmut_log
        log = read_pearmut_log(path, campaign=campaign, lp=lp, assessment=assessment or DEFAULT_ASSESSMENT, name=label)
        frame = log.judgments
        frame.attrs["pearmut"] = log.report
    elif fmt == "mturk":
        from .mturk import read_mturk
        frame = read_mturk(str(path), campaign=default_campaign, name=label, assessment=assessment)
    else:
        frame = read_canonical(str(path), name=label, defaults={
            "campaign": default_campaign, "lp": lp, "assessment": assessment or "adequacy"})
    if worker_stats is not None and fmt != "wmt-stnd":
        raise InputError("a worker mean/sd file applies only to the WMT release format (wmt-stnd)", file=label,
                         column="worker_stats", code="worker_stats_not_release")
    replaced: list[str] = []
    if campaign is not None and "campaign" in frame.columns:
        replaced = sorted({str(c) for c in frame["campaign"].unique()} - {campaign})
        frame["campaign"] = campaign
    frame, other_lps = _keep_only(frame, "lp", lp, "language pair", label)
    frame, other_assessments = _keep_only(frame, "assessment", assessment, "assessment", label)
    result = validate_judgments(frame, file=label)
    # left out or relabelled on request (--lp, --assessment, --campaign): reported, not hidden
    result.attrs.update(rows_of_other_lps=other_lps, rows_of_other_assessments=other_assessments,
                        campaigns_replaced=replaced)
    if "pearmut" in frame.attrs:
        result.attrs["pearmut"] = frame.attrs["pearmut"]
    return result


def _keep_only(frame: pd.DataFrame, column: str, wanted: str | None, what: str,
               label: str) -> tuple[pd.DataFrame, int]:
    """The rows whose ``column`` equals ``wanted`` (all rows when not asked) and how many were left out."""
    if wanted is None or column not in frame.columns:
        return frame, 0
    keep = frame[column].astype(str) == wanted
    if not keep.any():
        found = sorted(frame[column].astype(str).unique())[:10]
        raise InputError(f"no judgments for {what} {wanted!r}; the file holds {', '.join(found)}",
                         file=label, column=column)
    return frame[keep], int((~keep).sum())


def raw_score_warnings(frame: pd.DataFrame, input_format: str) -> list[str]:
    """Warnings about judgments stored without a raw 0–100 score (their Ave will be empty).

    A WMT release (``wmt-stnd``) holds only z-scores; the raw scores come from its per-worker
    mean/sd file, so without that file every Ave of the ranking is empty.
    """
    missing = int(frame["raw"].isna().sum()) if "raw" in frame.columns else len(frame)
    if not missing:
        return []
    if input_format == "wmt-stnd":
        return [f"no raw scores: the WMT release holds z-scores only, and without its worker mean/sd file "
                f"(ad-<lp>-trk-mean-sd.txt) none of the {missing:,} judgments has a raw score, so "
                "Ave will be empty in every ranking; to add them later, retract this import "
                "and store the file again with its mean/sd file"]
    return [f"{missing:,} of {len(frame):,} judgments have no raw score; Ave will leave them out "
            "(empty when no judgment of a system has one)"]
