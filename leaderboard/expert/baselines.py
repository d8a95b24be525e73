"""Sentence-level BLEU and chrF of an MQM file's outputs against one of its systems (the human reference).

The MQM release carries every rated output's text but no segment-level metric scores. These two
baselines, scored with sacrebleu against the human translation that was rated alongside the
systems, give the meta-evaluation something real to rank (README: MQM / meta-eval). The result
is a WMT segment-level TSV frame: metric, lp, testset, system, segment, score.
"""

from __future__ import annotations

import pandas as pd

from ..errors import InputError
from ..naming import is_human


def reference_system(errors: pd.DataFrame, reference: str | None = None) -> str:
    """The named system, or the one human translation of the file."""
    systems = sorted(errors["system"].astype(str).unique())
    if reference is not None:
        if reference not in systems:
            raise InputError(f"no system {reference!r} in the MQM file (systems: {', '.join(systems)})",
                             column="reference")
        return reference
    humans = [s for s in systems if is_human(s)]
    if len(humans) != 1:
        raise InputError("cannot tell which system is the human reference", column="reference",
                         code="unknown_reference")
    return humans[0]


def sentence_scores(errors: pd.DataFrame, reference: str | None = None, testset: str = "mqm") -> pd.DataFrame:
    """Sentence BLEU and chrF (sacrebleu defaults) of every other system's targets per segment."""
    import sacrebleu
    ref_name = reference_system(errors, reference)
    texts = errors.drop_duplicates(["lp", "system", "segment"])[["lp", "system", "segment", "target"]]
    refs = texts[texts["system"] == ref_name][["lp", "segment", "target"]].rename(columns={"target": "ref"})
    hyps = texts[texts["system"] != ref_name].merge(refs, on=["lp", "segment"], how="inner")
    bleu = sacrebleu.BLEU(effective_order=True)
    chrf = sacrebleu.CHRF()
    rows = []
    for metric, scorer in (("sentBLEU", bleu), ("chrF", chrf)):
        scores = [scorer.sentence_score(h, [r]).score for h, r in zip(hyps["target"], hyps["ref"])]
        rows.append(pd.DataFrame({"metric": metric, "lp": hyps["lp"], "testset": testset, "system": hyps["system"],
                                  "segment": hyps["segment"], "score": scores}))
    return pd.concat(rows, ignore_index=True)
