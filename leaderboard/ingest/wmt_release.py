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
from .textio import check_text, read_bytes, read_text

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

    Text columns are handled as integer codes into their distinct values throughout (a year holds
    a million rows but only thousands of distinct HITs, workers, systems and segments), so no step
    touches a million Python strings; they come out as pandas categoricals, which validation turns
    into the canonical text columns.
    """
    label = name or str(path)
    data = read_bytes(path, label)
    check_text(data, label, nul_ok=False)  # refuses undecodable bytes with their line
    header = data[: data.find(b"\n") if b"\n" in data else len(data)].decode("utf-8-sig").split()
    missing = [c for c in STND_COLUMNS if c not in header]
    if missing:
        raise InputError("not a WMT good-stnd file: missing column(s) " + ", ".join(missing),
                         file=label, line=1)
    body = _parse_arrow(data, header)
    if body is None:  # not plain tab-separated, or unusual cells: pandas, whose errors carry line numbers
        body = _columns_of(_parse_pandas(data, header, label))
    del data
    n = len(body["score"])
    if n == 0:
        raise InputError("no judgments found (only a header)", file=label)
    z = _score(body["score"], label)
    worker_codes, worker_names = body["WorkerId"]
    hit_codes, hit_names = body["HITId"]
    # a HIT can be done by several workers (MTurk assignments): order and time are per assignment
    assignment = hit_codes.astype(np.int64) * max(len(worker_names), 1) + worker_codes
    position, size = _cumcount(assignment)
    out = pd.DataFrame({
        "campaign": _categorical(np.zeros(n, dtype=np.int32), np.array([campaign or "wmt"], dtype=object)),
        "lp": _categorical(*_lp_codes(body["Input.src"], body["Input.trg"])),
        "assessment": _categorical(body["Input.item"][0],
                                   np.array([ASSESSMENTS.get(k, k) for k in body["Input.item"][1]], dtype=object)),
        "worker": _categorical(worker_codes, worker_names),
        "hit": _categorical(hit_codes, hit_names),
        "segment": _categorical(*body["sid"]),
        "system": _categorical(*body["sys_id"]),
        "item_type": _categorical(*body["type"]),
        "doc": _categorical(*body["rid"]),
        LINE: np.arange(2, n + 2),
    })
    out["position"] = position + 1
    out["z"] = z
    out["seconds"] = _numbers(body["time"]) / size
    if worker_stats is not None:
        out["raw"] = _raw_from_codes(z, worker_codes, worker_names, worker_stats, label)
    out.attrs["source_columns"] = SOURCE_COLUMNS
    return out


_TEXT_COLUMNS = ("HITId", "WorkerId", "Input.src", "Input.trg", "Input.item", "sys_id", "rid", "type", "sid")
#: a text column as (codes per row, distinct values); ``score`` and ``time`` are number arrays or text
_Columns = dict


def _parse_arrow(data: bytes, header: list[str]) -> _Columns | None:
    """Parse a tab-separated body with Arrow's multi-threaded reader, text columns dictionary-encoded
    (codes and distinct values straight from the parser) and ``score`` / ``time`` as numbers.

    ``None`` when the file does not fit that shape (another separator, a cell that is not a number,
    a ragged row...): the pandas reader then takes it and reports the line of any problem.
    """
    first_nl = data.find(b"\n")
    second = data[first_nl + 1: data.find(b"\n", first_nl + 1)]
    if first_nl < 0 or b"\t" not in second or second.count(b"\t") != len(header) - 1 \
            or len(set(header)) != len(header):
        return None
    import pyarrow as pa
    import pyarrow.csv as pcsv
    types = {c: pa.dictionary(pa.int32(), pa.string()) for c in _TEXT_COLUMNS}
    types.update(score=pa.float64(), time=pa.float64())
    try:
        table = pcsv.read_csv(
            pa.py_buffer(data), read_options=pcsv.ReadOptions(skip_rows=1, column_names=header),
            parse_options=pcsv.ParseOptions(delimiter="\t"),
            convert_options=pcsv.ConvertOptions(column_types=types, include_columns=list(types),
                                                null_values=[], strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    table = table.unify_dictionaries()
    out: _Columns = {}
    for c in _TEXT_COLUMNS:
        column = table.column(c)
        if column.num_chunks == 0:
            out[c] = (np.zeros(0, dtype=np.int32), np.zeros(0, dtype=object))
            continue
        dictionary = column.chunk(0).dictionary
        codes = np.concatenate([chunk.indices.to_numpy() for chunk in column.chunks])
        out[c] = (codes, np.asarray(dictionary.to_pylist(), dtype=object))
    for c in ("score", "time"):
        out[c] = table.column(c).to_numpy()
    return out


def _parse_pandas(data: bytes, header: list[str], label: str) -> pd.DataFrame:
    """Any whitespace-separated body, the text columns as text and the numbers as pandas infers them
    (pandas' reader names the line of a problem)."""
    text_cols = {c: str for c in _TEXT_COLUMNS}
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
    # whitespace-separated: an empty last field can only be an absent one (Arrow's path counts exactly)
    last = body[header[-1]]
    short = np.flatnonzero((last.isna() | (last.astype(str) == "")).to_numpy())
    if short.size:
        raise InputError(f"found fewer than the header's {len(header)} fields", file=label, line=int(short[0]) + 2)
    return body


def _columns_of(body: pd.DataFrame) -> _Columns:
    """The pandas reader's frame in the shape :func:`_parse_arrow` gives."""
    out: _Columns = {}
    for c in _TEXT_COLUMNS:
        codes, uniques = pd.factorize(body[c])
        out[c] = (codes, np.asarray(uniques, dtype=object))
    out["score"] = body["score"]
    out["time"] = body["time"]
    return out


def _categorical(codes: np.ndarray, values: np.ndarray) -> pd.Categorical:
    """Rows as codes into distinct text values (values that are equal are merged into one category)."""
    merged, distinct = pd.factorize(np.asarray(values, dtype=object))
    if len(distinct) < len(values):
        codes = merged[codes]
    return pd.Categorical.from_codes(codes, categories=pd.Index(distinct, dtype=object), validate=False)


def _lp_codes(src: tuple[np.ndarray, np.ndarray], trg: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``<src>-<trg>`` per row, built on the distinct (source, target) pairs."""
    pair = src[0].astype(np.int64) * max(len(trg[1]), 1) + trg[0]
    codes, pairs = pd.factorize(pair)
    names = [f"{src[1][p // max(len(trg[1]), 1)].strip()}-{trg[1][p % max(len(trg[1]), 1)].strip()}" for p in pairs]
    return codes, np.asarray(names, dtype=object)


def _cumcount(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's 0-based order among the rows with its key, and the number of rows with its key."""
    codes, _ = pd.factorize(keys)
    counts = np.bincount(codes)
    order = np.argsort(codes, kind="stable")
    starts = np.cumsum(counts) - counts
    position = np.empty(len(codes), dtype=np.int64)
    position[order] = np.arange(len(codes)) - np.repeat(starts, counts)
    return position, counts[codes]


def _numbers(values) -> np.ndarray:
    """A column as floats; cells that are not numbers become NaN."""
    if isinstance(values, np.ndarray) and values.dtype.kind == "f":
        return values
    return pd.to_numeric(values, errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def _score(values, label: str) -> np.ndarray:
    z = _numbers(values)
    bad = np.flatnonzero(np.isnan(z))
    if bad.size:
        cell = values[bad[0]] if isinstance(values, np.ndarray) else values.iloc[bad[0]]
        raise InputError(f"score is not a finite number: {plain(cell)!r}", file=label, line=int(bad[0]) + 2,
                         column="score")
    return z


def _raw_from_codes(z: np.ndarray, codes: np.ndarray, names: np.ndarray, stats: pd.DataFrame,
                    label: str) -> np.ndarray:
    """raw = z * sd + mean per worker, snapped to whole numbers when within tolerance; on worker codes
    (``names[codes]``), so the look-up runs once per distinct worker."""
    names = np.asarray([str(w) for w in names], dtype=object)
    empty = np.flatnonzero(np.isin(codes, np.flatnonzero(np.char.strip(names.astype(str)) == "")))
    if empty.size:
        raise InputError("empty value", file=label, line=int(empty[0]) + 2, column="WorkerId")
    found = stats.reindex(pd.Index(names, dtype=object))
    mean_of = found["mean"].to_numpy(dtype=float)
    unknown = np.flatnonzero(np.isin(codes, np.flatnonzero(np.isnan(mean_of))))
    if unknown.size:
        i = int(unknown[0])
        raise InputError(f"worker {names[codes[i]]} has no entry in the worker mean/sd file",
                         file=label, line=i + 2, column="WorkerId")
    mean = mean_of[codes]
    sd = found["sd"].to_numpy(dtype=float)[codes]
    raw = np.where(np.isnan(sd), mean, z * sd + mean)
    snapped = np.round(raw)
    close = np.abs(raw - snapped) <= SNAP_TOLERANCE
    return np.where(close, snapped, raw)
