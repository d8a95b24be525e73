"""Write a built batch: ``hits.csv``, the Mechanical Turk upload CSV and one HTML task page per HIT.

``DIR/hits.csv``: one row per item (:data:`leaderboard.hits.builder.HIT_COLUMNS`).
``DIR/mturk-upload.csv``: one row per HIT for MTurk's "publish batch": ``hit``, ``lp``,
``assessment``, ``campaign`` and per item k = 1..100 ``item_k_system``, ``item_k_segment``,
``item_k_type``, ``item_k_pair``, ``item_k_text`` and (adequacy) ``item_k_ref``. MTurk echoes
these back as ``Input.<name>`` columns of the batch results, which is what
:mod:`leaderboard.ingest.mturk` reads (docs/formats-mturk.md).
``DIR/html/<hit>.html``: a self-contained page showing one item per screen with a 0–100 slider
without numbers (ticks at 25 / 50 / 75), posting ``score_k`` and ``time_k`` (seconds); all text is
HTML-escaped and the page holds no item type, system or pair, so a worker cannot tell the
quality-control items from the source. ``DIR/batch.json``: lp, assessment, seed, counts.
"""

from __future__ import annotations

import html
import io
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ..ingest.textio import read_text
from .builder import HIT_COLUMNS, HIT_SIZE
from .degrade import target_language

ITEM_FIELDS = {"system": "system", "segment": "segment", "type": "item_type", "pair": "pair_id",
               "text": "text", "ref": "reference"}
LANGUAGE_NAMES = {
    "en": "English", "de": "German", "cs": "Czech", "fr": "French", "es": "Spanish", "ru": "Russian",
    "zh": "Chinese", "ja": "Japanese", "uk": "Ukrainian", "pl": "Polish", "hr": "Croatian", "is": "Icelandic",
    "lv": "Latvian", "liv": "Livonian", "sah": "Yakut", "he": "Hebrew", "ko": "Korean", "hi": "Hindi",
    "it": "Italian", "pt": "Portuguese", "nl": "Dutch", "fi": "Finnish", "et": "Estonian", "lt": "Lithuanian",
    "tr": "Turkish", "ro": "Romanian", "kk": "Kazakh", "gu": "Gujarati", "ta": "Tamil", "km": "Khmer",
    "ps": "Pashto", "ar": "Arabic", "th": "Thai",
}


def upload_frame(hits: pd.DataFrame, lp: str, assessment: str, campaign: str = "") -> pd.DataFrame:
    """One row per HIT with the ``item_k_*`` columns of the module docstring (MTurk input CSV)."""
    fields = dict(ITEM_FIELDS)
    if assessment != "adequacy":
        fields.pop("ref")
    ordered = hits.sort_values(["hit", "position"], kind="stable")
    hit_ids = ordered["hit"].drop_duplicates().to_list()
    k = ordered.groupby("hit", sort=False).cumcount().to_numpy() + 1
    if (ordered.groupby("hit", sort=False).size() != HIT_SIZE).any():
        raise ValueError("every HIT must have 100 items")
    columns: dict[str, object] = {"hit": hit_ids, "lp": lp, "assessment": assessment, "campaign": campaign}
    values = {name: ordered[col].astype(str).to_numpy().reshape(len(hit_ids), HIT_SIZE)
              for name, col in fields.items()}
    assert (k.reshape(len(hit_ids), HIT_SIZE) == np.arange(1, HIT_SIZE + 1)).all()
    for i in range(HIT_SIZE):
        for name in fields:
            columns[f"item_{i + 1}_{name}"] = values[name][:, i]
    return pd.DataFrame(columns)


def statement(assessment: str, lp: str) -> str:
    """The sentence the slider agrees or disagrees with (docs/method/da.md#what-a-judge-sees)."""
    if assessment == "adequacy":
        return "The black text adequately expresses the meaning of the grey text."
    lang = target_language(lp)
    return f"The text is fluent {LANGUAGE_NAMES.get(lang, lang)}."


_STYLE = """
body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
.ref{color:#777;font-size:1.15rem}.hyp{color:#000;font-size:1.15rem}.statement{font-weight:600}
.scale{display:flex;justify-content:space-between;font-size:.9rem;color:#555}
input[type=range]{width:100%}#progress{color:#555}.hidden{display:none}
textarea{width:100%;height:8rem}
"""

_SCRIPT = """
(function(){
  var items=document.querySelectorAll('section.item'), n=items.length, cur=0, shown=Date.now();
  var next=document.getElementById('next'), done=document.getElementById('done');
  var params=new URLSearchParams(window.location.search);
  var aid=params.get('assignmentId'), to=params.get('turkSubmitTo');
  var form=document.getElementById('task');
  if(aid){document.getElementById('assignmentId').value=aid;}
  if(to){form.action=to.replace(/\\/$/,'')+'/mturk/externalSubmit';}
  function show(i){
    for(var j=0;j<n;j++){items[j].classList.toggle('hidden', j!==i);}
    document.getElementById('progress').textContent=(i+1)+' / '+n;
    next.disabled=true; shown=Date.now();
  }
  Array.prototype.forEach.call(items,function(sec){
    var slider=sec.querySelector('input[type=range]');
    slider.addEventListener('input',function(){
      sec.querySelector('input.score').value=slider.value; next.disabled=false;});
  });
  next.addEventListener('click',function(){
    var sec=items[cur];
    var t=sec.querySelector('input.time');
    t.value=((Date.now()-shown)/1000).toFixed(1);
    if(cur+1<n){cur+=1;show(cur);}
    else{next.classList.add('hidden');done.classList.remove('hidden');
      for(var j=0;j<n;j++){items[j].classList.add('hidden');}
      document.getElementById('progress').textContent='';}
  });
  form.addEventListener('submit',function(ev){
    if(aid==='ASSIGNMENT_ID_NOT_AVAILABLE'){ev.preventDefault();return;}
    if(!to){ev.preventDefault();
      var rows=['item,score,seconds'];
      for(var j=0;j<n;j++){rows.push((j+1)+','+items[j].querySelector('input.score').value+','
        +items[j].querySelector('input.time').value);}
      var out=document.getElementById('answers');out.value=rows.join('\\n');out.classList.remove('hidden');}
  });
  show(0);
})();
"""


def render_hit_page(items: pd.DataFrame, hit: str, assessment: str, lp: str) -> str:
    """One HIT's task page (items in position order); every text is HTML-escaped."""
    esc = html.escape
    lang = esc(target_language(lp), quote=True)
    sentence = esc(statement(assessment, lp))
    parts = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Translation assessment {esc(hit)}</title>", f"<style>{_STYLE}</style>", "</head>", "<body>",
        '<form id="task" method="post" action="">',
        '<input type="hidden" name="assignmentId" id="assignmentId" value="">',
        f'<input type="hidden" name="hit" value="{esc(hit, quote=True)}">',
        "<p>Read each text and move the slider to say how much you agree with the statement. "
        "There is one text per screen; you cannot go back.</p>",
        '<p id="progress"></p>',
        '<datalist id="marks"><option value="25"></option><option value="50"></option>'
        '<option value="75"></option></datalist>',
    ]
    ordered = items.sort_values("position", kind="stable")
    for k, (text, ref) in enumerate(zip(ordered["text"].astype(str), ordered["reference"].astype(str)), start=1):
        parts.append(f'<section class="item hidden" id="item-{k}">')
        if assessment == "adequacy":
            parts.append(f'<p class="ref" lang="{lang}">{esc(ref)}</p>')
        parts.append(f'<p class="hyp" lang="{lang}">{esc(text)}</p>')
        parts.append(f'<p class="statement">{sentence}</p>')
        parts.append(f'<input type="range" min="0" max="100" step="1" value="50" list="marks" '
                     f'aria-label="agreement with the statement, item {k}">')
        parts.append('<div class="scale"><span>strongly disagree</span><span>strongly agree</span></div>')
        parts.append(f'<input type="hidden" class="score" name="score_{k}" value="">')
        parts.append(f'<input type="hidden" class="time" name="time_{k}" value="">')
        parts.append("</section>")
    parts += [
        '<button type="button" id="next" disabled>Next</button>',
        '<div id="done" class="hidden"><p>Thank you. That was the last text.</p>'
        '<button type="submit">Submit</button></div>',
        '<textarea id="answers" class="hidden" readonly></textarea>',
        "</form>", f"<script>{_SCRIPT}</script>", "</body>", "</html>",
    ]
    return "\n".join(parts) + "\n"


def write_batch(hits: pd.DataFrame, out_dir: str | os.PathLike, *, lp: str, assessment: str,
                campaign: str = "", seed: int | None = None, html_pages: bool = True) -> dict:
    """Write hits.csv, mturk-upload.csv, html/<hit>.html and batch.json; returns the manifest."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    hits[list(HIT_COLUMNS)].to_csv(out / "hits.csv", index=False)
    upload_frame(hits, lp, assessment, campaign).to_csv(out / "mturk-upload.csv", index=False)
    if html_pages:
        pages = out / "html"
        pages.mkdir(exist_ok=True)
        for hit, items in hits.groupby("hit", sort=True):
            (pages / f"{hit}.html").write_text(render_hit_page(items, str(hit), assessment, lp), encoding="utf-8")
    types = hits["item_type"].value_counts()
    genuine = hits[hits["item_type"] == "SYSTEM"]
    manifest = {
        "lp": lp, "assessment": assessment, "campaign": campaign, "seed": seed,
        "hits": int(hits["hit"].nunique()), "items": int(len(hits)),
        "item_types": {t: int(types.get(t, 0)) for t in ("SYSTEM", "REPEAT", "REF", "BAD_REF")},
        "systems": {str(s): int(n) for s, n in genuine["system"].value_counts().sort_index().items()},
        "segments_shown": int(genuine["segment"].nunique()),
        "files": ["hits.csv", "mturk-upload.csv"] + (["html/"] if html_pages else []),
    }
    (out / "batch.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return manifest


def read_batch(folder: str | os.PathLike) -> tuple[pd.DataFrame, dict]:
    """The batch :func:`write_batch` wrote to ``folder``: hits.csv (positions as integers) and the
    manifest of batch.json (empty when there is none)."""
    out = Path(folder)
    if not (out / "hits.csv").exists():
        raise InputError("no hits.csv here", file=str(out), code="no_batch")
    meta = {}
    if (out / "batch.json").exists():
        try:
            meta = json.loads(read_text(out / "batch.json"))
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", file=str(out / "batch.json"), line=exc.lineno) from None
    try:
        hits = pd.read_csv(io.StringIO(read_text(out / "hits.csv")), dtype=str, keep_default_na=False)
    except pd.errors.ParserError as exc:
        raise InputError(f"not a CSV table ({exc})", file=str(out / "hits.csv")) from None
    missing = [c for c in HIT_COLUMNS if c not in hits.columns]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}", file=str(out / "hits.csv"), column=missing[0])
    bad = ~hits["position"].str.fullmatch(r"\d+")
    if bad.any():
        raise InputError(f"position {hits['position'][bad].iloc[0]!r} is not a whole number",
                         file=str(out / "hits.csv"), line=int(bad.to_numpy().argmax()) + 2, column="position")
    return hits.assign(position=hits["position"].astype(int)), meta
