"""Store judgment files: every format (DA judgments, Appraise ESA with its error spans, Pearmut logs with
their spans and texts, MQM annotations), every file validated before anything is written, then one
transaction. ``mtlb ingest`` and the Organiser page's upload both call :func:`read_files` and
:func:`store_read`; ``mtlb texts`` and its upload, :func:`read_texts` and :func:`store_texts`."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import pandas as pd

from ..errors import InputError


@dataclass(frozen=True)
class InputFile:
    """A file to read: where it is, and the name messages and the import log give it (an upload's
    own name rather than its temporary copy)."""
    path: Path
    name: str

    @classmethod
    def of(cls, path: str | Path, name: str | None = None) -> "InputFile":
        return cls(Path(path), name or str(path))


@dataclass
class ReadFiles:
    """Validated files, ready to store: DA judgments (``kind="judgments"``) or MQM annotations (``"mqm"``)."""
    kind: str
    files: list[InputFile]
    formats: list[str]
    frame: pd.DataFrame
    sha256: str
    campaign: str | None = None            # MQM: the campaign they go into
    warnings: list[str] = field(default_factory=list)
    spans: pd.DataFrame | None = None      # error spans stored with the judgments
    span_assessment: str = "esa"
    span_outputs: pd.DataFrame | None = None
    pearmut_reports: list[dict] = field(default_factory=list)

    @property
    def file_name(self) -> str:
        return ", ".join(Path(f.name).name for f in self.files)


def sha256_of(paths: Sequence[str | Path]) -> str:
    """One digest of the files' bytes, in order (read in blocks)."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def read_files(files: Sequence[InputFile], *, input_format: str | None = None,
               worker_stats: InputFile | None = None, campaign: str | None = None, lp: str | None = None,
               assessment: str | None = None) -> ReadFiles:
    """Read and validate ``files`` (nothing is stored). ``input_format`` None: detected per file.

    Options win over the files (see :func:`leaderboard.ingest.read_judgments`): ``campaign``
    relabels, ``lp`` / ``assessment`` keep only matching judgments. MQM files are stored on their own
    (not with DA judgments); Appraise exports and Pearmut logs bring their error spans.
    """
    from ..ingest import detect_format
    if not files:
        raise InputError("no files to store", code="no_files")
    formats = [input_format or detect_format(f.path, name=f.name) for f in files]
    if "mqm" in formats:
        if set(formats) != {"mqm"}:
            raise InputError("MQM annotation files cannot be stored together with DA judgment files; "
                             "store them separately", code="mixed_mqm")
        return _read_mqm(files, campaign=campaign, lp=lp)
    return _read_judgments(files, formats, worker_stats=worker_stats, campaign=campaign, lp=lp,
                           assessment=assessment)


def _read_mqm(files: Sequence[InputFile], *, campaign: str | None, lp: str | None) -> ReadFiles:
    from ..ingest.mqm import read_mqm
    frames = [read_mqm(f.path, lp=lp, name=f.name) for f in files]
    errors = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    return ReadFiles("mqm", list(files), ["mqm"] * len(files), errors, sha256_of([f.path for f in files]),
                     campaign=campaign or Path(files[0].path).resolve().parent.name or "campaign")


def _read_judgments(files: Sequence[InputFile], formats: list[str], *, worker_stats: InputFile | None,
                    campaign: str | None, lp: str | None, assessment: str | None) -> ReadFiles:
    from ..ingest import raw_score_warnings, read_judgments
    from ..schema import concat_judgments
    stats = None
    if worker_stats is not None:
        if any(fmt != "wmt-stnd" for fmt in formats):
            bad = next(f for f, fmt in zip(files, formats) if fmt != "wmt-stnd")
            raise InputError("a worker mean/sd file applies only to the WMT release format (wmt-stnd)",
                             file=bad.name, code="worker_stats_not_release", column="worker_stats")
        from ..ingest.wmt_release import read_worker_stats
        stats = read_worker_stats(str(worker_stats.path), name=worker_stats.name)
    frames, logs = [], []
    for f, fmt in zip(files, formats):
        if fmt == "pearmut":  # judgments, and the error spans and texts they were given on
            from ..ingest.pearmut_log import DEFAULT_ASSESSMENT, read_pearmut_log
            logs.append(read_pearmut_log(f.path, campaign=campaign, lp=lp,
                                         assessment=assessment or DEFAULT_ASSESSMENT, name=f.name))
            frames.append(logs[-1].judgments)
            continue
        frames.append(read_judgments(f.path, fmt, worker_stats=stats if fmt == "wmt-stnd" else None,
                                     campaign=campaign, lp=lp, assessment=assessment, name=f.name))
    frame = concat_judgments(frames) if len(frames) > 1 else frames[0]  # one file: its keys are checked
    frame.attrs.update(
        rows_of_other_lps=sum(int(f.attrs.get("rows_of_other_lps", 0)) for f in frames),
        rows_of_other_assessments=sum(int(f.attrs.get("rows_of_other_assessments", 0)) for f in frames),
        campaigns_replaced=sorted({c for f in frames for c in f.attrs.get("campaigns_replaced", [])}))
    out = ReadFiles("judgments", list(files), formats, frame, sha256_of([f.path for f in files]),
                    warnings=[w for f, fmt in zip(frames, formats) for w in raw_score_warnings(f, fmt)])
    if "appraise" in formats:
        from ..ingest.esa import read_esa_spans
        spans = pd.concat([read_esa_spans(str(f.path), str(fr["campaign"].iloc[0]), name=f.name)
                           for f, fr, fmt in zip(files, frames, formats) if fmt == "appraise"], ignore_index=True)
        if lp:
            spans = spans[spans["lp"] == lp]
        out.spans = spans
    if logs:
        if out.spans is not None:
            raise InputError("Appraise exports and Pearmut logs cannot be stored together; store them separately",
                             code="mixed_pearmut_appraise")
        out.spans = pd.concat([log.spans for log in logs], ignore_index=True)
        out.span_assessment = str(frames[0]["assessment"].iloc[0])
        out.span_outputs = pd.concat([log.items.assign(campaign=log.campaign, lp=log.lp) for log in logs],
                                     ignore_index=True)
        out.pearmut_reports = [log.report for log in logs]
    return out


def store_read(store: Any, read: ReadFiles, *, created_by: str | None = None,
               progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Store what :func:`read_files` read, in one transaction; a summary of what was stored.

    Judgments: ``campaign``, ``lp`` (one name, or a sorted list), ``judgments``, ``files``,
    ``input_format``, ``workers``, ``systems``, ``item_types``, ``raw_scores``, the rows left out or
    relabelled on request, ``warnings``, ``error_spans`` (and ``pearmut``: what each log held). MQM:
    ``campaign``, ``lp``, ``annotations``, ``outputs``, ``systems``, ``raters``, ``segments``.
    """
    names = [f.name for f in read.files]
    if read.kind == "mqm":
        from ..storage.expert import save_mqm
        errors = read.frame
        summary = save_mqm(store, read.campaign, errors, file_name=read.file_name, sha256=read.sha256,
                           created_by=created_by)
        return {"campaign": read.campaign,
                "lp": summary["lps"][0] if len(summary["lps"]) == 1 else summary["lps"],
                "annotations": summary["annotations"], "outputs": summary["outputs"], "files": names,
                "input_format": "mqm", "systems": int(errors["system"].nunique()),
                "raters": int(errors["rater"].nunique()), "segments": int(errors["segment"].nunique())}
    also = None
    n_spans = 0 if read.spans is None else len(read.spans)
    if n_spans or read.span_outputs is not None:
        from ..storage.expert import esa_span_writer
        also = esa_span_writer(read.spans, assessment=read.span_assessment, outputs=read.span_outputs)
    frame = read.frame
    summary = store.load_judgments(frame, file_name=read.file_name, input_format=",".join(sorted(set(read.formats))),
                                   sha256=read.sha256, created_by=created_by, progress=progress, also=also)
    formats = read.formats
    result: dict[str, Any] = {
        "campaign": summary["campaigns"][0] if len(summary["campaigns"]) == 1 else summary["campaigns"],
        "lp": summary["lps"][0] if len(set(summary["lps"])) == 1 else sorted(set(summary["lps"])),
        "judgments": summary["judgments"],
        "files": names,
        "input_format": formats[0] if len(set(formats)) == 1 else formats,
        "workers": int(frame["worker"].nunique()),
        "systems": int(frame["system"].nunique()),
        "item_types": {k: int(v) for k, v in frame["item_type"].value_counts().sort_index().items()},
        "raw_scores": int(frame["raw"].notna().sum()),
        "rows_of_other_lps_left_out": int(frame.attrs.get("rows_of_other_lps", 0)),
        "warnings": list(read.warnings),
        "error_spans": n_spans,
        "rows_of_other_assessments_left_out": int(frame.attrs.get("rows_of_other_assessments", 0)),
        "campaign_labels_replaced": list(frame.attrs.get("campaigns_replaced", [])),
    }
    if read.pearmut_reports:
        reports = read.pearmut_reports
        result["pearmut"] = reports if len(reports) > 1 else reports[0]
    return result



def read_texts(files: Sequence[InputFile], *,
               progress: Callable[[int, str], None] | None = None) -> list[tuple[Any, list[str], str]]:
    """Read and check a test set's sources, references and system outputs (WMT file names): names,
    encoding, equal line counts per language pair. ``(name parts, lines, file name)`` per file, for
    :func:`store_texts`; ``progress(done, name)`` after each file."""
    from ..ingest.texts import check_aligned, parse_text_name, read_lines
    parsed = []
    for i, f in enumerate(files):
        parsed.append((parse_text_name(f.name), read_lines(f.path, name=f.name), f.name))
        if progress is not None:
            progress(i + 1, f.name)
    check_aligned(parsed)
    return parsed


def store_texts(store: Any, campaign: str, parsed: list[tuple[Any, list[str], str]], *,
                created_by: str | None = None) -> list[dict[str, Any]]:
    """Store what :func:`read_texts` read in one transaction: one ``{"lp", "kind", "name", "lines"}`` per file."""
    store.load_texts(campaign, [(info.lp, info.kind, info.name, lines, Path(name).name)
                                for info, lines, name in parsed], created_by=created_by)
    return [{"lp": info.lp, "kind": info.kind, "name": info.name, "lines": len(lines)} for info, lines, _ in parsed]
