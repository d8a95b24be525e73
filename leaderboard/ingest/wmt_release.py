"""The WMT crowd-DA release (``ad-<lp>-good-stnd.csv`` + ``ad-<lp>-trk-mean-sd.txt``).

The release publishes only worker z-scores; the per-worker mean and sd file (an R print-out)
gives the raw score back: raw = z * sd + mean. Raw DA scores are whole numbers, and the print-out
rounds mean and sd to 7 significant digits, so reconstructed values are snapped to the nearest
integer when they lie within :data:`SNAP_TOLERANCE` of it (all of them do in the WMT21/22
releases); anything further away is kept as computed.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd

from ..errors import InputError
from ..schema import LINE, plain
from .textio import decode, read_bytes, read_text

STND_COLUMNS = ("HITId", "WorkerId", "Input.src", "Input.trg", "Input.item", "hit", "sys_id",
                "rid", "type", "sid", "score", "time")
ASSESSMENTS = {"ad": "adequacy", "fl": "fluency", "da": "adequacy", "sr": "source-based"}
SNAP_TOLERANCE = 0.01
#: canonical column -> the release's column, for error messages
SOURCE_COLUMNS = {"lp": "Input.src/Input.trg", "assessment": "Input.item", "worker": "WorkerId",
                  "hit": "HITId", "segment": "sid", "system": "sys_id", "item_type": "type", "z": "score",
                  "seconds": "time", "doc": "rid"}


def looks_like_stnd(head: str) -> bool:
    """True when the first line is the header of a release ``good-stnd`` file."""
    first = head.splitlines()[0].split() if head.strip() else []
    return first[:3] == ["HITId", "WorkerId", "Input.src"]


def read_worker_stats(path: str, name: str | None = None) -> pd.DataFrame:
    """Parse the R print-out of per-worker mean and sd: ``[1] "ID"`` / ``[1] mean`` / ``[1] sd``.

    Returns a frame indexed by worker with float columns ``mean`` and ``sd`` (``NaN`` for ``NA``).
    """
    label = name or str(path)
    text = read_text(path, label, nul_ok=False)
    values: list[tuple[int, str]] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        m = re.match(r'^\s*\[\d+\]\s+(.*?)\s*$', line)
        if not m:
            raise InputError("expected an R print-out line like '[1] \"M0001\"' or '[1] 61.5'",
                             file=label, line=lineno)
        values.append((lineno, m.group(1)))
    if len(values) % 3:
        raise InputError(f"expected triples of id / mean / sd, found {len(values)} values",
                         file=label, line=values[-1][0] if values else None)
    rows = []
    for i in range(0, len(values), 3):
        (l_id, wid), (l_mean, mean), (l_sd, sd) = values[i: i + 3]
        if not (wid.startswith('"') and wid.endswith('"')):
            raise InputError(f"expected a quoted worker id, got {wid}", file=label, line=l_id)
        rows.append((wid.strip('"'), _num(mean, label, l_mean, "mean"), _num(sd, label, l_sd, "sd")))
    stats = pd.DataFrame(rows, columns=["worker", "mean", "sd"])
    dup = stats["worker"].duplicated()
    if dup.any():
        raise InputError(f"worker {stats['worker'][dup].iloc[0]} appears twice", file=label)
    return stats.set_index("worker")


def _num(text: str, label: str, line: int, what: str) -> float:
    if text == "NA":
        if what == "mean":
            raise InputError("mean is NA", file=label, line=line)
        return float("nan")
    try:
        return float(text)
    except ValueError:
        raise InputError(f"{what} is not a number: {text}", file=label, line=line) from None


def read_stnd(path: str, worker_stats: pd.DataFrame | None = None, campaign: str | None = None,
              name: str | None = None) -> pd.DataFrame:
    """Read a ``good-stnd`` file into canonical columns (plus ``_line``), unvalidated.

    ``position`` is the row's order inside its HIT assignment (HIT and worker; the release keeps
    HIT order); ``seconds`` is the HIT time spread evenly over the assignment's rows, so the sum
    over an assignment gives the release's time.
    """
    label = name or str(path)
    data = read_bytes(path, label)
    decode(data, label, nul_ok=False)  # refuses undecodable bytes with their line
    header = data[: data.find(b"\n") if b"\n" in data else len(data)].decode("utf-8-sig").split()
    missing = [c for c in STND_COLUMNS if c not in header]
    if missing:
        raise InputError("not a WMT good-stnd file: missing column(s) " + ", ".join(missing),
                         file=label, line=1)
    text_cols = {c: str for c in ("HITId", "WorkerId", "Input.src", "Input.trg", "Input.item", "sys_id",
                                   "rid", "type", "sid")}  # score and time: inferred, checked below
    body = _parse_fast(data, header, text_cols)
    if body is None:  # not plain tab-separated, or damaged: the C parser reports line numbers
        try:
            body = pd.read_csv(io.BytesIO(data), sep=r"\s+", dtype=text_cols, keep_default_na=False,
                               header=0, names=header, encoding="utf-8-sig")
        except (pd.errors.ParserError, ValueError) as exc:
            m = re.search(r"line (\d+), saw (\d+)", str(exc))
            if m:
                raise InputError(f"found {m.group(2)} fields but the header has {len(header)}", file=label,
                                 line=int(m.group(1))) from None
            m = re.search(r"line (\d+)", str(exc))
            raise InputError(f"cannot parse: {exc}", file=label, line=int(m.group(1)) if m else None) from None
    if body.empty:
        raise InputError("no judgments found (only a header)", file=label)
    # whitespace-separated: an empty last field can only be an absent one (pyarrow's path counts exactly)
    last = body[header[-1]]
    short = np.flatnonzero((last.isna() | (last.astype(str) == "")).to_numpy())
    if short.size:
        raise InputError(f"found fewer than the header's {len(header)} fields", file=label, line=int(short[0]) + 2)
    n = len(body)
    item = body["Input.item"]
    out = pd.DataFrame({
        "campaign": campaign or "wmt",
        "lp": body["Input.src"].str.strip() + "-" + body["Input.trg"].str.strip(),
        "assessment": item.map({k: ASSESSMENTS.get(k, k) for k in item.unique()}),
        "worker": body["WorkerId"],
        "hit": body["HITId"],
        "segment": body["sid"],
        "system": body["sys_id"],
        "item_type": body["type"],
        "doc": body["rid"],
        LINE: np.arange(2, n + 2),
    })
    # a HIT can be done by several workers (MTurk assignments): order and time are per assignment
    assignment = out.groupby(["hit", "worker"], sort=False)
    out["position"] = assignment.cumcount() + 1
    z = pd.to_numeric(body["score"], errors="coerce").to_numpy()
    bad = np.flatnonzero(np.isnan(z))
    if bad.size:
        raise InputError(f"score is not a finite number: {plain(body['score'].iloc[bad[0]])!r}", file=label,
                         line=int(bad[0]) + 2, column="score")
    out["z"] = z
    hit_time = pd.to_numeric(body["time"], errors="coerce")
    out["seconds"] = hit_time / assignment["hit"].transform("size")
    if worker_stats is not None:
        out["raw"] = reconstruct_raw(z, body["WorkerId"], worker_stats, label)
    out.attrs["source_columns"] = SOURCE_COLUMNS
    return out


def _parse_fast(data: bytes, header: list[str], text_cols: dict) -> pd.DataFrame | None:
    """Parse a tab-separated body with pyarrow's multi-threaded reader; ``None`` when it does not fit."""
    first_nl = data.find(b"\n")
    second = data[first_nl + 1: data.find(b"\n", first_nl + 1)]
    if first_nl < 0 or b"\t" not in second or second.count(b"\t") != len(header) - 1:
        return None
    try:
        body = pd.read_csv(io.BytesIO(data), sep="\t", skiprows=1, header=None, names=header,
                           dtype=text_cols, keep_default_na=False, engine="pyarrow")
    except Exception:  # any parse trouble: fall back to the reporting parser
        return None
    return body


def reconstruct_raw(z: np.ndarray, workers: pd.Series, stats: pd.DataFrame, label: str) -> np.ndarray:
    """raw = z * sd + mean per worker, snapped to whole numbers when within tolerance."""
    empty = np.flatnonzero((workers.astype(str).str.strip() == "").to_numpy())
    if empty.size:
        raise InputError("empty value", file=label, line=int(empty[0]) + 2, column="WorkerId")
    mean = workers.map(stats["mean"])
    unknown = np.flatnonzero(mean.isna().to_numpy())
    if unknown.size:
        i = int(unknown[0])
        raise InputError(f"worker {workers.iloc[i]} has no entry in the worker mean/sd file",
                         file=label, line=i + 2, column="WorkerId")
    sd = workers.map(stats["sd"]).to_numpy(dtype=float)
    raw = np.where(np.isnan(sd), mean.to_numpy(dtype=float), z * sd + mean.to_numpy(dtype=float))
    snapped = np.round(raw)
    close = np.abs(raw - snapped) <= SNAP_TOLERANCE
    return np.where(close, snapped, raw)
