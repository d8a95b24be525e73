"""A submission segment by segment beside the source and the references (and another submission)."""

from __future__ import annotations

import pandas as pd

from ..storage.outputs import OutputStore
from ..storage.store import Store


def segments_frame(store: Store, submission_id: int, compare: int | None = None) -> pd.DataFrame:
    """Columns line, source, ref <label>…, the submission's system; plus the other's and ``same``.

    Both submissions must belong to the same test set. Cells are plain text.
    """
    from ..errors import InputError
    out = OutputStore(store)
    sub = out.submission(int(submission_id))
    source, refs, docs = out.testset_texts(int(sub["testset_id"]))
    frame = pd.DataFrame({"line": range(1, len(source) + 1)})
    if any(d is not None for d in docs):
        frame["doc"] = docs
    frame["source"] = source
    for label, lines in refs.items():
        frame[f"ref {label}"] = lines
    label_a = f"#{sub['id']} {sub['team']}/{sub['system']}"
    frame[label_a] = out.submission_lines(int(sub["id"]))
    if compare is not None:
        other = out.submission(int(compare))
        if other["testset_id"] != sub["testset_id"]:
            raise InputError(f"submissions #{submission_id} and #{compare} are for different test sets")
        label_b = f"#{other['id']} {other['team']}/{other['system']}"
        if label_b == label_a:
            label_b += " (again)"
        frame[label_b] = out.submission_lines(int(other["id"]))
        frame["same"] = frame[label_a] == frame[label_b]
    return frame
