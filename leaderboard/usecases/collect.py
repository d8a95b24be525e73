"""What an organiser does to an annotation campaign run in the service, on either view
(``mtlb collect reset`` and the Organiser page's "Human evaluation" tab)."""

from __future__ import annotations

from typing import Any


def reset_hit(store: Any, collect_id: int, annotator: str, hit: str, actor: str) -> dict[str, int]:
    """Delete an annotator's answers of one HIT and free it, then judge the annotator again on what is
    left (:func:`leaderboard.collect.quality.check_annotator`): the deleted ``answers`` and ``judgments``."""
    from ..collect.quality import check_annotator
    from ..storage.collect import annotator as annotator_row, reset_assignment
    counts = reset_assignment(store, collect_id, annotator, hit, actor)
    check_annotator(store, annotator_row(store, collect_id=collect_id, name=annotator)["id"])
    return counts
