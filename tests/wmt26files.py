"""Test helper: WMT26-style campaign files (a test set of documents and one JSON-lines file per system), with a
speech document (video), a social document (screenshot) and an English→Egyptian Arabic pair (right to left).

The texts are made up: a reference-like translation per paragraph, and systems that replace a known share
of its words, so their true order is known.
"""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import numpy as np

EN = ("the council approved a new plan for the river bridge after long talks with local farmers who feared higher "
      "costs and lost land while the mayor promised fair prices clean water better roads").split()
CS = ("rada schválila nový plán pro říční most po dlouhých jednáních s místními farmáři kteří se obávali vyšších "
      "nákladů a ztráty půdy zatímco starosta slíbil férové ceny čistou vodu lepší silnice").split()
ARZ = ("المجلس وافق على خطة جديدة للكوبري بعد كلام طويل مع الفلاحين اللي كانوا خايفين من التكاليف والأرض "
       "والعمدة وعد بأسعار كويسة ومية نضيفة وطرق أحسن").split()
SYSTEMS = {"Aurora-MT": 0.05, "Borealis": 0.25, "Cirrus": 0.5, "Dunlin": 0.8}
# the one source paragraph the tests look for (HTML that must stay text)
HOSTILE_SOURCE = "Watch <b>this</b> & <script>alert(1)</script> now"


def png(width: int = 4, height: int = 3, rgb: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    """A small valid PNG image of one colour."""
    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def _sentence(words: list[str], rng: np.random.Generator, n: int) -> str:
    return " ".join(rng.choice(words, n))


def write_wmt26(folder: Path, *, n_news: int = 4, seed: int = 0, instructions: str | None = None) -> dict:
    """Write ``testset.jsonl``, ``systems/<name>.jsonl`` and the media under ``folder``; return the paths and the
    documents per pair."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "videos").mkdir(exist_ok=True)
    (folder / "screenshots").mkdir(exist_ok=True)
    (folder / "videos" / "talk1.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 4)
    (folder / "screenshots" / "post1.png").write_bytes(png())
    docs, refs = [], {}
    pairs = {"eng_Latn-ces_Latn": CS, "eng_Latn-arz_Arab": ARZ}
    for lp, target in pairs.items():
        tgt = lp.split("-")[1]
        for k in range(n_news + 2):
            domain = "news" if k < n_news else ("speech" if k == n_news else "social")
            doc_id = f"{domain}_{k:03d}_example.org.{1000 + k}_{tgt}"
            n_par = 2 + k % 2
            src = [_sentence(EN, rng, int(rng.integers(6, 12))) for _ in range(n_par)]
            if k == 0 and lp == "eng_Latn-ces_Latn":
                src[0] = HOSTILE_SOURCE
            refs[(lp, doc_id)] = [_sentence(target, rng, len(s.split())) for s in src]
            docs.append({
                "doc_id": doc_id, "domain": domain, "src_lang": "eng_Latn", "tgt_lang": tgt,
                "src_text": "\n\n".join(src),
                "video": {"id": "talk1", "path": "videos/talk1.mp4"} if domain == "speech" else None,
                "screenshot": {"id": "post1", "path": "screenshots/post1.png"} if domain == "social" else None,
                "prompt_instruction": "Translate the document.", "multimodal_instruction": None,
                "evaluation_instruction": instructions if instructions is not None else
                f"<div class='white-box' style='color:#333'>Domain {domain}: keep the register of the original.</div>",
                "refs": {}})
    (folder / "testset.jsonl").write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in docs) + "\n",
                                          encoding="utf-8")
    systems = folder / "systems"
    systems.mkdir(exist_ok=True)
    for name, share in SYSTEMS.items():
        lines = []
        for d in docs:
            lp = f"{d['src_lang']}-{d['tgt_lang']}"
            words = pairs[lp]
            paras = []
            for ref in refs[(lp, d["doc_id"])]:
                tokens = ref.split()
                swap = rng.random(len(tokens)) < share
                paras.append(" ".join(str(rng.choice(words)) if s else w for w, s in zip(tokens, swap)))
            lines.append({"doc_id": d["doc_id"], "hypothesis": "".join(f"<p>{p}</p>" for p in paras),
                          "metadata": {}})
        (systems / f"{name}.jsonl").write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n",
                                               encoding="utf-8")
    return {"testset": folder / "testset.jsonl", "systems": systems, "assets": folder, "refs": refs}
