"""Test helpers for the collection stage: a small aligned test set written as WMT-named files."""

from __future__ import annotations

from pathlib import Path

import numpy as np

WORDS = ("the council approved a new plan for the river bridge after long talks with local farmers who feared "
         "higher costs and lost land while the mayor promised fair prices clean water better roads and more jobs "
         "for young people in every village of the region during the next five years").split()


def write_testset(folder: Path, n_lines: int = 60, systems: dict[str, float] | None = None, seed: int = 0,
                  lp: str = "de-en", docs_every: int = 6) -> dict:
    """Source, reference, document ids and system outputs of ``n_lines`` lines under ``folder``.

    Each system's output is the reference with a share of its words replaced by other words
    (``systems``: name → share), so the systems' true order is known. Returns the paths.
    """
    systems = systems or {"good": 0.1, "fair": 0.35, "poor": 0.7}
    rng = np.random.default_rng(seed)
    src_lang, tgt_lang = lp.split("-")
    folder.mkdir(parents=True, exist_ok=True)
    refs = [" ".join(rng.choice(WORDS, int(rng.integers(6, 16)))) for _ in range(n_lines)]
    sources = [f"Quelle {k + 1}: " + " ".join(reversed(r.split())) for k, r in enumerate(refs)]
    paths = {"ref": folder / f"test.{lp}.ref.A.{tgt_lang}", "src": folder / f"test.{lp}.src.{src_lang}",
             "docs": folder / f"test.{lp}.docs", "hyps": []}
    paths["ref"].write_text("\n".join(refs) + "\n", encoding="utf-8")
    paths["src"].write_text("\n".join(sources) + "\n", encoding="utf-8")
    paths["docs"].write_text("\n".join(f"doc{k // docs_every + 1}" for k in range(n_lines)) + "\n", encoding="utf-8")
    for name, share in systems.items():
        lines = []
        for ref in refs:
            words = ref.split()
            swap = rng.random(len(words)) < share
            lines.append(" ".join(str(rng.choice(WORDS)) if s else w for w, s in zip(words, swap)))
        path = folder / f"test.{lp}.hyp.{name}.{tgt_lang}"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths["hyps"].append(path)
    return paths
