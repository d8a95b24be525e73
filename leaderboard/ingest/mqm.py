"""The MQM TSV layouts of google/wmt-mqm-human-evaluation, read into a validated error frame.

One row per marked error (or one ``No-error`` row for a segment a rater found clean), tab separated,
no quoting, a header line; ``<v>…</v>`` marks the error span in ``target``. Two header generations:

- up to WMT22: ``system doc doc_id seg_id rater source target category severity comment``;
- 2023 on: ``system doc docSegId globalSegId rater source target category severity metadata``, where
  docSegId is the segment's number in its document, globalSegId its number in the test set and
  metadata a JSON log of the rating session (not kept); the header ends with one more, header-only
  column (``# Documentation: …``) that data rows do not have. Documents carry the language pair
  (``news_aj-english.33941:en-de``), which then names the pair.

The 2023+ files add two things the reader interprets:

- severity ``HOTW-test``: an attention check ("hands on the wheel": the rater was shown an output with
  an error planted in it; category ``Found`` or ``Missed`` says whether they marked it). Not an error
  of the system: it weighs 0 in every scheme and is reported per rater by :func:`attention_checks`.
- side-by-side names ``A_with_B``: the raters saw two outputs of a segment side by side, and a
  system paired twice (an odd number of systems) is listed once per partner. ``A_with_B`` is system
  A's output rated beside system B's, so the row is A's, with ``context`` B; its two ratings by one
  rater are two ratings (scored apart, then averaged with the other raters'), never one rating with
  the errors of both. The rule applies when B is itself a system of the file.

The frame keeps every row (spans, categories, severities, raters, comments) with its file line; the
target is stored without the markup and the span as character offsets into it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ..naming import UNSAFE_NAME_CHARS, check_name
from .textio import read_text

COLUMNS: tuple[str, ...] = ("system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category",
                            "severity", "comment")
#: the 2023+ header names of the columns :data:`COLUMNS` calls otherwise
NEW_NAMES: dict[str, str] = {"docsegid": "doc_id", "globalsegid": "seg_id", "metadata": "comment"}
REQUIRED: tuple[str, ...] = ("system", "seg_id", "rater", "category", "severity")
#: columns of :func:`read_mqm`'s frame
FRAME_COLUMNS: tuple[str, ...] = ("lp", "system", "context", "doc", "doc_id", "segment", "rater", "source", "target",
                                  "category", "severity", "comment", "span_start", "span_end", "_line")
#: canonical severities after :func:`normal_severity`
SEVERITIES: tuple[str, ...] = ("major", "minor", "neutral", "no-error", "hotw-test")
#: the attention-check severity (not an error; weight 0)
ATTENTION_CHECK = "hotw-test"
SIDE_BY_SIDE = "_with_"
_SEVERITY_ALIASES = {"noerror": "no-error", "none": "no-error", "noerrors": "no-error", "hotwtest": "hotw-test"}
#: a document id ending in a language pair (``…:en-de``, ``…:en-zh_TW``, ``…:eng_Latn-zho_Hant_TW``)
_DOC_PAIR = re.compile(r":([a-z]{2,3}(?:_[A-Za-z0-9]{2,4})*-[a-z]{2,3}(?:_[A-Za-z0-9]{2,4})*)$")
#: a document id ending in something that is meant as a language pair (``…:xx-yy``), valid or not
_DOC_PAIR_LIKE = re.compile(r":([^:\s]+-[^:\s]+)$")
#: the largest segment number kept (a 32-bit integer column)
MAX_SEGMENT = 2**31 - 1


def normal_severity(value: str) -> str:
    """``'Major'`` → ``'major'``, ``'No-error'`` / ``'no error'`` / ``'No_Error'`` → ``'no-error'``."""
    key = re.sub(r"[\s_\-]+", "", str(value).strip().lower())
    return _SEVERITY_ALIASES.get(key, key if key in ("major", "minor", "neutral") else str(value).strip())


def header_columns(first_line: str) -> list[str]:
    """The header's column names in the reader's terms (lower case; 2023+ names mapped to the older ones;
    a trailing header-only ``# …`` documentation column dropped)."""
    names = [c.strip().lower() for c in first_line.split("\t")]
    while names and names[-1].startswith("#"):
        names.pop()
    return [NEW_NAMES.get(c, c) for c in names]


def normal_category(value: str) -> str:
    """Lower case, no trailing ``!``, no spaces around ``/``: ``'Non-translation!'`` → ``'non-translation'``."""
    text = re.sub(r"\s*/\s*", "/", str(value).strip().lower()).rstrip("!").strip()
    if re.fullmatch(r"non[\s_\-]?translation", text):
        return "non-translation"
    if re.fullmatch(r"no[\s_\-]?error", text):
        return "no-error"
    return text


def looks_like_mqm(head: str) -> bool:
    """True when the first line is a tab-separated header naming the MQM columns (either generation)."""
    first = head.splitlines()[0] if head else ""
    cols = set(header_columns(first))
    return set(REQUIRED) <= cols and "target" in cols


def lp_from_name(path: str | os.PathLike) -> str | None:
    """``mqm_ted_ende.tsv`` → ``en-de``, ``mqm_newstest2020_zhen.tsv`` → ``zh-en`` (None if no pair)."""
    found = re.findall(r"(?:^|[._-])([a-z]{2})([a-z]{2})(?=[._-]|$)", Path(path).name.lower())
    return f"{found[-1][0]}-{found[-1][1]}" if found else None


def strip_spans(target: pd.Series) -> tuple[pd.Series, np.ndarray, np.ndarray]:
    """Targets without ``<v>``/``</v>`` and the first span's [start, end) offsets in the clean text (-1: none)."""
    clean = target.str.replace("<v>", "", regex=False).str.replace("</v>", "", regex=False)
    opened = target.str.find("<v>").to_numpy()
    closed = target.str.find("</v>").to_numpy()
    ok = (opened >= 0) & (closed > opened)
    start = np.where(ok, opened, -1)
    end = np.where(ok, closed - 3, -1)  # the 3 characters of "<v>" come out before the end
    return clean, start.astype(np.int64), end.astype(np.int64)


def _rejoin(fields: list[str]) -> list[str] | None:
    """A standard-layout row with a tab inside source or target: the fixed columns are found around the
    severity (the first field from the 8th on that is one); the text between is split where the target's
    ``<v>`` markup starts, else at the first tab. None when no severity is found."""
    for k in range(7, len(fields)):
        if normal_severity(fields[k]) in SEVERITIES:
            middle = fields[5:k - 1]
            if len(middle) < 2:
                return None
            cut = next((i for i, part in enumerate(middle) if "<v>" in part and i > 0), 1)
            return fields[:5] + ["\t".join(middle[:cut]), "\t".join(middle[cut:]), fields[k - 1], fields[k],
                                 "\t".join(fields[k + 1:])]
    return None


def read_mqm(path: str | os.PathLike, *, lp: str | None = None, name: str | None = None) -> pd.DataFrame:
    """Read and validate an MQM TSV of either header generation; one row per annotation (columns
    :data:`FRAME_COLUMNS`).

    The language pair: the one the documents name (``…:en-de``, 2023+ files), else ``lp``, else the
    file name; with ``lp`` and a file naming its pairs, only the rows of ``lp`` are kept (a file
    without any is refused). Refuses (with file, line and column) a missing header column, a row with
    the wrong number of fields, an empty system / segment id / category, a control character in a
    key column, and a severity outside Major, Minor, Neutral, No-error and HOTW-test (any spelling
    of case, spaces and hyphens). Rows without a rater keep an empty rater: they count as one
    anonymous rater of that segment. Side-by-side names ``A_with_B`` become system A with context B
    (module docstring).
    """
    label = name or str(path)
    text = read_text(path, label, nul_ok=False)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    if not lines:
        raise InputError("the file is empty", file=label)
    original = [c.strip().lower() for c in lines[0].split("\t")]
    header = header_columns(lines[0])
    modern = any(c in NEW_NAMES for c in original)
    missing = [c for c in REQUIRED + ("target",) if c not in header]
    if missing:
        raise InputError(f"not an MQM file: the header lacks {', '.join(missing)} (expected "
                         f"{' '.join(COLUMNS)}, or from 2023: system doc docSegId globalSegId rater source "
                         "target category severity metadata)", file=label, line=1)
    if len(set(header)) != len(header):
        raise InputError("a column name appears twice in the header", file=label, line=1)
    width = len(header)
    rows, numbers = [], []
    for i, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) == width - 1 and header[-1] == "comment":
            fields.append("")  # a trailing empty comment cut off by an editor
        if len(fields) > width and tuple(header) == COLUMNS and normal_severity(fields[8]) not in SEVERITIES:
            fields = _rejoin(fields) or fields  # a tab inside source or target moved the severity right
        if len(fields) != width:
            raise InputError(f"expected {width} tab-separated fields, found {len(fields)} "
                             "(MQM files are not quoted: a tab inside a text breaks the row)", file=label, line=i)
        rows.append(fields)
        numbers.append(i)
    if not rows:
        raise InputError("no annotations found (the file holds only a header)", file=label)
    raw = pd.DataFrame(rows, columns=header)
    for col in COLUMNS:
        if col not in raw.columns:
            raw[col] = ""
    if modern:
        raw["comment"] = ""  # the rating session's JSON log: not an annotator's comment
    line_no = np.asarray(numbers)
    for col in ("system", "seg_id", "category", "severity", "rater", "doc"):
        values = raw[col].str.strip()
        if col != "rater" and col != "doc":
            empty = np.flatnonzero((values == "").to_numpy())
            if empty.size:
                raise InputError("empty value", file=label, line=int(line_no[empty[0]]), column=col)
        raw[col] = values
    for col in ("system", "doc", "doc_id", "seg_id", "rater", "category", "severity"):
        unsafe = np.flatnonzero(raw[col].str.contains(UNSAFE_NAME_CHARS).to_numpy(dtype=bool))
        if unsafe.size:
            check_name(raw[col].iloc[unsafe[0]], "value", file=label, line=int(line_no[unsafe[0]]), column=col)
    _check_numbers(raw, line_no, label, modern)
    severity = raw["severity"].map(normal_severity)
    bad = np.flatnonzero(~severity.isin(SEVERITIES).to_numpy())
    if bad.size:
        raise InputError(f"unknown severity {raw['severity'].iloc[bad[0]]!r} (expected Major, Minor, Neutral, "
                         "No-error or HOTW-test)", file=label, line=int(line_no[bad[0]]), column="severity")
    pairs, keep = _pairs(raw["doc"], lp, label, line_no)
    if keep is not None:
        raw, severity, line_no, pairs = raw[keep], severity[keep], line_no[keep], pairs[keep]
    system, context = split_side_by_side(raw["system"])
    clean, start, end = strip_spans(raw["target"])
    frame = pd.DataFrame({
        "lp": pairs.to_numpy(dtype=object),
        "system": system.to_numpy(dtype=object),
        "context": context.to_numpy(dtype=object),
        "doc": raw["doc"].to_numpy(dtype=object),
        "doc_id": raw["doc_id"].str.strip().to_numpy(dtype=object),
        "segment": raw["seg_id"].to_numpy(dtype=object),
        "rater": raw["rater"].to_numpy(dtype=object),
        "source": raw["source"].to_numpy(dtype=object),
        "target": clean.to_numpy(dtype=object),
        "category": raw["category"].to_numpy(dtype=object),
        "severity": severity.to_numpy(dtype=object),
        "comment": raw["comment"].to_numpy(dtype=object),
        "span_start": start,
        "span_end": end,
        "_line": line_no,
    })
    return frame[list(FRAME_COLUMNS)].reset_index(drop=True)


def _check_numbers(raw: pd.DataFrame, line_no: np.ndarray, label: str, modern: bool) -> None:
    """The segment numbers: from 2023 on (docSegId, globalSegId) whole numbers from 0 to :data:`MAX_SEGMENT`
    written in digits; in the older files an id written as a number must be such a whole number too
    (``1e308``, ``1.5``, ``-1``, ``nan`` would name no segment). Empty docSegId cells are allowed."""
    for col, title in (("doc_id", "docSegId" if modern else "doc_id"), ("seg_id", "globalSegId" if modern else "seg_id")):
        values = raw[col].str.strip()
        digits = values.str.fullmatch(r"\d{1,10}")
        if modern:
            suspect = ~digits & (values != "")
        else:
            suspect = ~digits & values.str.fullmatch(r"(?i)[-+0-9.e]+|[-+]?(?:nan|inf|infinity)")
        big = digits & (pd.to_numeric(values.where(digits, "0")) > MAX_SEGMENT)
        bad = np.flatnonzero((suspect | big).to_numpy(dtype=bool))
        if bad.size:
            raise InputError(f"{title} {values.iloc[bad[0]]!r} is not a whole number from 0 to {MAX_SEGMENT:,}",
                             file=label, line=int(line_no[bad[0]]), column=title)


def _pairs(docs: pd.Series, lp: str | None, label: str, lines: np.ndarray) -> tuple[pd.Series, np.ndarray | None]:
    """Each row's language pair (module docstring) and, when ``lp`` filters a file naming its pairs,
    the rows to keep."""
    named = docs.str.extract(_DOC_PAIR, expand=False)
    meant = docs.str.extract(_DOC_PAIR_LIKE, expand=False)
    wrong = np.flatnonzero((meant.notna() & named.isna()).to_numpy())
    if named.notna().any() and wrong.size:
        raise InputError(f"document {docs.iloc[wrong[0]]!r} names the language pair {meant.iloc[wrong[0]]!r}, which "
                         "is not SRC-TGT language codes (e.g. en-de)", file=label, line=int(lines[wrong[0]]),
                         column="doc")
    if named.notna().any():
        fallback = lp or lp_from_name(label)
        if named.isna().any() and not fallback:
            row = int(np.flatnonzero(named.isna().to_numpy())[0])
            raise InputError("this document does not name its language pair and the file name does not "
                             "either; give the language pair", file=label, line=int(lines[row]), column="doc",
                             code="no_lp")
        pairs = named.fillna(fallback or "")
        if lp is None:
            return pairs, None
        keep = (pairs == lp).to_numpy()
        if not keep.any():
            raise InputError(f"no annotations for language pair {lp!r}; the file holds "
                             f"{', '.join(sorted(pairs.unique()))}", file=label, column="doc")
        return pairs, keep
    lp = lp or lp_from_name(label)
    if not lp:
        raise InputError("the MQM file does not name its language pair; give it", file=label, code="no_lp")
    return pd.Series(lp, index=docs.index), None


def split_side_by_side(names: pd.Series) -> tuple[pd.Series, pd.Series]:
    """(system, context): ``A_with_B`` → (A, B) when B is a system of ``names`` (itself, or as the A of
    another such name); other names are their own system with an empty context."""
    names = names.astype(str)
    parts = names.str.partition(SIDE_BY_SIDE)
    systems = set(names[parts[1] == ""]) | set(parts.loc[parts[1] != "", 0])
    paired = (parts[1] != "") & (parts[0] != "") & parts[2].isin(systems)
    system = names.where(~paired, parts[0])
    context = parts[2].where(paired, "")
    return system, context


def attention_checks(errors: pd.DataFrame) -> pd.DataFrame:
    """Per (lp, rater): the attention checks (``HOTW-test`` rows) they passed (``Found``), missed
    (``Missed``) and their share passed (NaN when they had none)."""
    checks = errors[errors["severity"].astype(str) == ATTENTION_CHECK]
    raters = errors[["lp", "rater"]].drop_duplicates().sort_values(["lp", "rater"])
    outcome = checks["category"].astype(str).str.strip().str.lower()
    counts = (checks.assign(found=(outcome == "found").astype(int), missed=(outcome == "missed").astype(int))
              .groupby(["lp", "rater"], sort=True)[["found", "missed"]].sum().reset_index())
    out = raters.merge(counts, on=["lp", "rater"], how="left").fillna({"found": 0, "missed": 0})
    out["found"] = out["found"].astype(int)
    out["missed"] = out["missed"].astype(int)
    out["checks"] = out["found"] + out["missed"]
    with np.errstate(invalid="ignore", divide="ignore"):
        out["share_found"] = np.where(out["checks"] > 0, out["found"] / out["checks"].clip(lower=1), np.nan)
    return out.reset_index(drop=True)[["lp", "rater", "checks", "found", "missed", "share_found"]]
