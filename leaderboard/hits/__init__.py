"""Crowd DA batches: 100-item HITs with quality-control items, their export and re-import.

``builder`` samples system outputs into HITs (docs/method/hits.md), ``degrade`` makes the bad
references, ``export`` writes ``hits.csv``, the Mechanical Turk upload CSV and one HTML task page
per HIT; :mod:`leaderboard.ingest.mturk` reads the batch results back. ``documents`` makes the
document-level HITs of Error Span Annotation (whole documents, degraded copies as attention checks,
practice items).
"""

from .builder import HIT_COLUMNS, Sources, build_hits, hit_template, read_sources
from .degrade import can_degrade, degrade

__all__ = ["HIT_COLUMNS", "Sources", "build_hits", "hit_template", "read_sources", "can_degrade", "degrade"]
