"""Which BLEU tokeniser a target language gets: the WMT organisers' choice with sacrebleu 2.x.

sacrebleu's command line picks the tokeniser from the target language of ``-l SRC-TGT``: ``zh``
for Chinese, ``ja-mecab`` for Japanese, ``ko-mecab`` for Korean, ``13a`` for everything else; the
WMT22 organisers scored every language pair that way. For scripts written without spaces between
words, for which sacrebleu has no word tokeniser, BLEU on ``13a`` tokens would count whole
sentences as words, so those targets are split into characters (``char``). chrF works on
characters and takes no tokeniser.
"""

from __future__ import annotations

import re

from .errors import InputError

#: sacrebleu's own language → tokeniser map (``BLEU._TOKENIZER_MAP`` in sacrebleu 2.x).
WORD_TOKENISERS: dict[str, str] = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
#: Scripts without spaces between words and without a sacrebleu tokeniser: Thai, Lao, Khmer,
#: Burmese, Tibetan, Dzongkha.
CHARACTER_LANGUAGES: frozenset[str] = frozenset({"th", "lo", "km", "my", "bo", "dz"})
DEFAULT_TOKENISER = "13a"

def split_lp(lp: str) -> tuple[str, str]:
    """``"cs-en"`` → ``("cs", "en")``; the language codes are lower-cased (``en-zh_TW`` → ``zh``)."""
    parts = str(lp).strip().split("-")
    if len(parts) != 2 or not all(re.fullmatch(r"[A-Za-z]{2,3}(?:_[A-Za-z0-9]+)*", p) for p in parts):
        raise InputError(f"language pair {str(lp)!r} is not valid: expected two language codes joined by a hyphen "
                         "(SRC-TGT, source first), such as cs-en (codes of two or three letters)", column="lp")
    src, tgt = (p.split("_", 1)[0].lower() for p in parts)
    return src, tgt


def target_language(lp: str) -> str:
    """The target language code of a language pair."""
    return split_lp(lp)[1]


def bleu_tokeniser(target: str) -> str:
    """The sacrebleu tokeniser name for BLEU into ``target`` (a language code)."""
    lang = target.lower()
    if lang in WORD_TOKENISERS:
        return WORD_TOKENISERS[lang]
    if lang in CHARACTER_LANGUAGES:
        return "char"
    return DEFAULT_TOKENISER


def word_split_by_character(target: str) -> bool:
    """True when words of ``target`` are not separated by spaces (compare outputs character by character)."""
    return target.lower() in WORD_TOKENISERS or target.lower() in CHARACTER_LANGUAGES


#: Languages written right to left (Arabic, Hebrew, Persian, Urdu, Pashto, Yiddish, Dhivehi, Sorani,
#: Sindhi, Uyghur, Syriac), by ISO 639-1 or -3 code.
RIGHT_TO_LEFT: frozenset[str] = frozenset({"ar", "ara", "arz", "he", "heb", "iw", "fa", "fas", "per", "prs", "ur",
                                           "urd", "ps", "pus", "yi", "yid", "dv", "div", "ckb", "sd", "snd", "ug",
                                           "uig", "syr"})


def script_direction(lang: str) -> str:
    """``"rtl"`` for a language written right to left, else ``"ltr"`` (HTML's ``dir`` attribute)."""
    return "rtl" if str(lang).lower().split("_")[0].split("-")[0] in RIGHT_TO_LEFT else "ltr"
