"""Readers of rankings and automatic metric scores given as files (for the comparison across years):
a ranking's JSON, the WMT23 published results log, metric scores as JSON or TSV (with a header, or
the WMT metrics release's six columns). Every file passes the size, gzip and encoding guards of
:mod:`.textio`."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError


def is_published_results(path: str) -> bool:
    """True for the WMT23 DA+SQM results log (``[ces-->ukr]`` blocks), read as published tables."""
    from .textio import decode, read_bytes
    from .wmt23_results import looks_like_wmt23_results
    if not Path(path).is_file():
        return False
    raw = read_bytes(path, path, limit=4096)
    try:
        head = decode(raw[: raw.rfind(b"\n") + 1] or raw, path, nul_ok=False)
    except InputError:
        return False
    return looks_like_wmt23_results(head)


def is_json(path: str) -> bool:
    if path.lower().endswith(".json"):
        return True
    try:
        with open(path, "rb") as fh:
            head = fh.read(256).lstrip()
    except OSError:
        return False
    return head[:1] in (b"[", b"{")


def load_json(path: str) -> Any:
    from .textio import read_text
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg}", file=path, line=exc.lineno) from None


def read_rankings(path: str) -> list[dict]:
    """The rankings of a ranking JSON file (``mtlb rank --json``: a list, one ranking, or {"rankings": [...]})."""
    data = load_json(path)
    if isinstance(data, dict):
        data = data.get("rankings", [data])
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise InputError("expected a ranking's JSON (a list of rankings)", file=path, code="not_a_ranking")
    return data


def read_metric_scores(path: str) -> pd.DataFrame:
    """Automatic scores as a long frame (lp, system, metric, score); lp may be missing."""
    import pandas as pd
    if is_json(path):
        data = load_json(path)
        items = data if isinstance(data, list) else [data]
        rows = []
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("systems"), dict):  # a scoring's JSON
                for system, score in item["systems"].items():
                    rows.append({"lp": item.get("lp"), "system": system,
                                 "metric": item.get("metric", Path(path).stem), "score": score})
            elif isinstance(item, dict) and {"system", "score"} <= set(item):
                rows.append({"lp": item.get("lp"), "system": item["system"],
                             "metric": item.get("metric", Path(path).stem), "score": item["score"]})
            else:
                raise InputError("metric JSON must be a scoring's JSON (lp, metric, systems) or records with "
                                 "system / metric / score", file=path, code="not_metric_scores")
        frame = pd.DataFrame(rows, columns=["lp", "system", "metric", "score"])
    else:
        from .textio import read_text
        text = read_text(path)
        try:
            frame = pd.read_csv(io.StringIO(text), sep="\t", dtype=str, keep_default_na=False)
        except pd.errors.ParserError as exc:
            raise InputError(f"cannot parse: {exc}", file=path) from None
        cols = {c.lower(): c for c in frame.columns}
        if {"system", "score"} <= set(cols):
            frame = frame.rename(columns={cols[c]: c for c in cols})
            if "pair" in frame.columns and "lp" not in frame.columns:
                frame = frame.rename(columns={"pair": "lp"})
            if "metric" not in frame.columns:
                frame["metric"] = Path(path).stem
            if "lp" not in frame.columns:
                frame["lp"] = None
        else:  # WMT metrics release: no header, metric lp testset refset system score
            try:
                frame = pd.read_csv(io.StringIO(text), sep="\t", header=None, dtype=str, keep_default_na=False)
            except pd.errors.ParserError as exc:
                raise InputError(f"cannot parse: {exc}", file=path) from None
            if frame.shape[1] != 6:
                raise InputError("expected a header with system / metric / score columns, or the WMT "
                                 "metrics TSV (metric lp testset refset system score)", file=path, line=1)
            frame.columns = ["metric", "lp", "testset", "refset", "system", "score"]
        frame = frame[["lp", "system", "metric", "score"]]
    score = pd.to_numeric(frame["score"], errors="coerce")
    bad = score.isna() & frame["score"].notna()
    if bad.any():
        raise InputError(f"score {str(frame['score'][bad].iloc[0])!r} is not a number", file=path,
                         line=int(bad.to_numpy().nonzero()[0][0]) + 2, column="score")
    frame = frame.assign(score=score, system=frame["system"].astype(str), metric=frame["metric"].astype(str))
    frame["lp"] = frame["lp"].replace("", None)
    return frame.dropna(subset=["score"])
