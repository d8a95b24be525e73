"""Build a crowd-DA HIT batch: ``mtlb hits build`` writes it into a folder; the Organiser page (from
uploaded outputs) and the Test sets page (from the primary submissions) offer its files to download."""

from __future__ import annotations

import io
import json
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd


def build_batch(sources: Any, out: str | os.PathLike, *, lp: str, assessment: str, n_hits: int | None,
                seed: int, campaign: str = "", hit_prefix: str = "H",
                html_pages: bool = True) -> tuple[pd.DataFrame, dict]:
    """The HITs of ``sources`` (:func:`leaderboard.hits.builder.build_hits`) written into ``out``
    (hits.csv, mturk-upload.csv, html/, batch.json): the HITs and the batch manifest."""
    from ..hits.builder import build_hits
    from ..hits.export import write_batch
    hits = build_hits(sources, assessment, n_hits, seed, hit_prefix=hit_prefix)
    return hits, write_batch(hits, out, lp=lp, assessment=assessment, campaign=campaign, seed=seed,
                             html_pages=html_pages)


def batch_files(sources: Any, *, lp: str, assessment: str, n_hits: int | None, seed: int, campaign: str = "",
                html_pages: bool = True) -> dict[str, Any]:
    """:func:`build_batch` in a temporary folder, returned to download: ``manifest``, the bytes of
    ``hits.csv`` and ``mturk-upload.csv``, ``first_hit`` (the first HIT's items) and, with
    ``html_pages``, ``html.zip`` (the HIT pages and batch.json)."""
    with tempfile.TemporaryDirectory(prefix="mtlb-hits-") as folder:
        out = Path(folder) / "batch"
        hits, manifest = build_batch(sources, out, lp=lp, assessment=assessment, n_hits=n_hits, seed=seed,
                                     campaign=campaign, html_pages=html_pages)
        files = {"manifest": manifest, "hits.csv": (out / "hits.csv").read_bytes(),
                 "mturk-upload.csv": (out / "mturk-upload.csv").read_bytes(),
                 "first_hit": hits[hits["hit"] == hits["hit"].iloc[0]].reset_index(drop=True)}
        if html_pages:
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
                for page in sorted((out / "html").glob("*.html")):
                    zf.write(page, f"html/{page.name}")
                zf.writestr("batch.json", json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
            files["html.zip"] = buf.getvalue()
        return files
