"""``mtlb rank``: official-style DA rankings with significance clusters and a signature."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING
import re
from pathlib import Path

from ..errors import InputError
from ..ingest import FORMATS, detect_format, read_judgments
from ._common import add_json_flag, pearmut_flags, print_json, print_table

if TYPE_CHECKING:  # annotations only: pandas loads inside the functions
    import pandas as pd


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rank", help="rank systems from DA judgments: scores, pairwise tests, clusters, signature",
        description="Rank the systems of every language pair (and assessment) in the input the way the "
                    "WMT organisers do (docs/method/standardisation.md, docs/method/significance-and-clusters.md, "
                    "docs/method/protocols.md): per-segment averages of SYSTEM and REPEAT "
                    "items, Ave / Ave z / N / N.ALL per system, one-sided tests of every ordered pair, "
                    "wins and rank ranges, clusters. Works straight from the WMT release files.")
    p.set_defaults(func=run)
    if getattr(sub, "listing_only", False):  # `mtlb --help`: the options (and pandas) load with `mtlb rank`
        return
    from ..human.clusters import CLUSTER_RULES
    from ..human.ranking import PROTOCOLS
    from ..human.significance import DEFAULT_SEED
    p.add_argument("inputs", nargs="*", metavar="FILE",
                   help="judgment file(s), as with --input (either or both)")
    p.add_argument("--input", nargs="+", action="extend", default=[], metavar="FILE",
                   help="judgment file(s); several files are pooled (e.g. all language pairs of a year, or one "
                        "Pearmut log per pair)")
    p.add_argument("--campaign", help="Pearmut logs: the campaign id, whose WMT26 form (eng_Latn---isl_Latn v3) names "
                                      "the language pair (default: the log's file name, as Pearmut names it)")
    p.add_argument("--worker-stats", nargs="+", action="extend", metavar="FILE",
                   help="WMT release per-worker mean/sd file(s) giving raw scores back (one for all inputs "
                        "or one per input); default: the ad-<lp>-trk-mean-sd.txt beside a release file, "
                        "when present")
    p.add_argument("--input-format", choices=FORMATS, help="skip format detection")
    p.add_argument("--lp", help="rank only this language pair (default: every pair in the input)")
    p.add_argument("--assessment", help="rank only this assessment (default: every assessment)")
    p.add_argument("--protocol", choices=list(PROTOCOLS), default="wmt-da",
                   help="; ".join(f"{k}: {v.description}" for k, v in PROTOCOLS.items()) + " (default wmt-da)")
    p.add_argument("--score", choices=("z", "raw"), help="override the score the protocol tests and sorts by")
    p.add_argument("--alpha", type=float,
                   help="significance level for wins (default 0.05; the wmt25 protocol: 0.025)")
    p.add_argument("--cluster-rule", choices=CLUSTER_RULES,
                   help="organisers: a cluster ends after position i when that system's wins = N - i "
                        "(published WMT19-23 tables, default); strict: when every system above beats every "
                        "system below; wmt24: unless some system above and some below have p > alpha (the "
                        "WMT24 script); wmt25: where the rank walks do not cross (the WMT25 script, default "
                        "of --protocol wmt25)")
    p.add_argument("--documents", nargs="+", action="extend", metavar="FILE",
                   help="the test set's documents list per language pair (domain<TAB>doc_id per line, the "
                        "WMT24 release's txt/documents/<lp>.docs): a file named <lp>.docs is that pair's, "
                        "LP=FILE names the pair, one file for one pair needs neither. Adds per-domain scores; "
                        "--protocol wmt24-esa ranks by their mean (without it: the domain read from the "
                        "document id). Recorded in the signature")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"seed of the bootstrap intervals and of the approximate randomisation test "
                        f"(default {DEFAULT_SEED}; in the signature)")
    p.add_argument("--resamples", type=int, default=1000,
                   help="bootstrap resamples of the test set's segments for the 95%% intervals of Ave / Ave z "
                        "(MQM: of MQM) and the rank shares (default 1000; 0 = none; in the signature)")
    p.add_argument("--human-system", nargs="+", action="extend", default=[], metavar="PATTERN",
                   help="mark these systems (shell patterns) as human translations; by default WMT naming "
                        "decides (HUMAN-*, Human-*, ref-*, ref.*); shown as \"human\": true")
    p.add_argument("--mt-system", nargs="+", action="extend", default=[], metavar="PATTERN",
                   help="mark these systems as MT systems even when their name looks like a human translation")
    p.add_argument("--trials", type=int, help="approximate randomisation trials (default 1000)")
    p.add_argument("--qc", default="auto", metavar="none|auto|METHOD",
                   help="worker QC before ranking: none; auto (default: none for the WMT release, whose "
                        "files hold only workers who passed, and for the wmt23, wmt24-esa and wmt25 "
                        "protocols, else the QC module's default method); or a method name of `mtlb qc`")
    p.add_argument("--weights", default="google-mqm", metavar="SCHEME",
                   help="MQM input: the named weight scheme (google-mqm: Major 5, Minor 1, Minor "
                        "Fluency/Punctuation 0.1, Non-translation 25; major-minor); recorded in the signature")
    p.add_argument("--mqm-test", choices=("signed-rank", "approx-randomisation"), default="signed-rank",
                   help="MQM input: the paired one-sided test on shared segments (default signed-rank)")
    p.add_argument("--qc-alpha", type=float, default=0.05, help="QC threshold: workers pass when p < this")
    p.add_argument("--exclude-system", nargs="+", action="extend", default=[], metavar="PATTERN",
                   help="leave systems matching these shell patterns out of the ranking (e.g. 'ende-tutorial*'); "
                        "their judgments still count towards worker standardisation; recorded in the signature")
    p.add_argument("--standardise", choices=("keep", "worker"),
                   help="keep: use the z-scores in the file (default when every row has one, as in the "
                        "WMT release); worker: recompute z per worker, lp and assessment from raw")
    p.add_argument("--exclude-ref", action="store_true",
                   help="with --standardise worker: leave REF items out of each worker's mean and sd")
    p.add_argument("--exclude-bad-ref", action="store_true",
                   help="with --standardise worker: leave BAD_REF items out of each worker's mean and sd "
                        "(both exclusions = the release's -no-refs mean/sd file)")
    p.add_argument("--zero-sd", choices=("drop", "one"),
                   help="with --standardise worker: workers whose scores do not vary are dropped "
                        "(default, as WMT19-22) or divided by 1 (the wmt23 protocol's default)")
    add_json_flag(p)


def sibling_worker_stats(path: str) -> str | None:
    """The release's ``ad-<lp>-trk-mean-sd.txt`` next to ``ad-<lp>-good-stnd*.csv``, if it exists."""
    name = Path(path).name
    m = re.match(r"^(.*)-good-stnd(?:-redup)?\.[A-Za-z]+$", name)
    if not m:
        return None
    candidate = Path(path).with_name(f"{m.group(1)}-trk-mean-sd.txt")
    return str(candidate) if candidate.is_file() else None


def load(args: argparse.Namespace) -> tuple[pd.DataFrame, list[str]]:
    """Read and pool the inputs; also return each input's format."""
    from ..schema import concat_judgments
    from .qc import worker_stats_per_input
    frames, formats = [], []
    for path, ws in zip(args.input, worker_stats_per_input(args)):
        fmt = args.input_format or detect_format(path)
        if ws is None and fmt == "wmt-stnd":
            ws = sibling_worker_stats(path)
        if fmt == "pearmut":  # a log names no language pair: --lp, else its WMT26 campaign id
            with pearmut_flags():
                frames.append(read_judgments(path, fmt, lp=args.lp, campaign=args.campaign, assessment=args.assessment))
        else:
            frames.append(read_judgments(path, fmt, worker_stats=ws))
        formats.append(fmt)
    return (concat_judgments(frames) if len(frames) > 1 else frames[0]), formats


def run_mqm(args: argparse.Namespace) -> int:
    """MQM error annotations: MQM scores per system (lower is better), paired tests, clusters."""
    import pandas as pd
    from ..ingest.mqm import read_mqm
    from ..expert.ranking import rank_mqm
    frames = [read_mqm(path, lp=args.lp) for path in args.input]
    errors = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    result = rank_mqm(errors, weights=args.weights, lp=args.lp, test=args.mqm_test,
                      alpha=0.05 if args.alpha is None else args.alpha,
                      cluster_rule=args.cluster_rule or "organisers", seed=args.seed, trials=args.trials or 1000,
                      n_resamples=args.resamples, human_systems=human_overrides(args, errors["system"]))
    if args.json:
        print_json(result[0] if len(result) == 1 else result)
        return 0
    _print_rankings(result, {"mqm": "{:.3f}"}, ["n", "wins"])
    for ranking in result:
        if ranking.get("attention_checks"):
            print(f"{ranking['lp']} attention checks (HOTW-test) found / had: " + ", ".join(
                f"{c['rater']} {c['found']}/{c['checks']}" for c in ranking["attention_checks"]))
    return 0


def human_overrides(args: argparse.Namespace, names) -> dict[str, bool]:
    """System → human flag for the names matching ``--human-system`` / ``--mt-system`` patterns."""
    import fnmatch
    out: dict[str, bool] = {}
    for name in sorted({str(n) for n in names}):
        if any(fnmatch.fnmatchcase(name, p) for p in args.human_system):
            out[name] = True
        if any(fnmatch.fnmatchcase(name, p) for p in args.mt_system):
            out[name] = False
    return out


def _print_rankings(result: list[dict], scores: dict[str, str], counts: list[str]) -> None:
    """The text output of ``mtlb rank``: per ranking its signature line, then cluster, rank range,
    system (human translations with †), each score (``scores``: column → number format) beside its
    95% interval, and the ``counts`` columns."""
    import pandas as pd
    for i, ranking in enumerate(result):
        if i:
            print()
        print(f"{ranking['lp']} {ranking['assessment']}  signature: {ranking['signature']}")
        table = pd.DataFrame(ranking["systems"])
        table.insert(0, "rank", [f"{lo}" if lo == hi else f"{lo}-{hi}"
                                 for lo, hi in zip(table["rank_lo"], table["rank_hi"])])
        table["system"] = _marked(table)
        columns = ["cluster", "rank", "system"]
        for score, fmt in scores.items():
            table[f"{score} 95% CI"] = _ci_text(table, f"{score}_ci", fmt)
            columns += [score, f"{score} 95% CI"]
        if "domains" in table:
            fmt = scores.get(ranking.get("domain_score", ""), "{:.3f}")
            for name in sorted({d for row in table["domains"] for d in (row or {})}):
                table[name] = [None if (row or {}).get(name) is None else fmt.format(row[name])
                               for row in table["domains"]]
                columns.append(name)
        print_table(table[columns + counts])
        _footnote(table)


def _marked(table: pd.DataFrame) -> list[str]:
    return [f"{s} †" if h else str(s) for s, h in zip(table["system"], table.get("human", [False] * len(table)))]


def _ci_text(table: pd.DataFrame, column: str, fmt: str) -> list[str]:
    return ["—" if not ci else f"{fmt.format(ci[0])} … {fmt.format(ci[1])}" for ci in table[column]] \
        if column in table else ["—"] * len(table)


def _footnote(table: pd.DataFrame) -> None:
    if "human" in table and table["human"].any():
        print("† human translation")


def documents_of(args: argparse.Namespace, lps) -> tuple[dict | None, str | None]:
    """The ``--documents`` lists of the language pairs being ranked, and the label naming them in errors."""
    if not args.documents:
        return None, None
    from ..ingest.documents import documents_for
    wanted = [args.lp] if args.lp else sorted({str(x) for x in lps})
    return documents_for(args.documents, wanted), ", ".join(args.documents)


def run_waves(args: argparse.Namespace) -> int:
    """The wmt25 protocol: two ratings per item, from wave tables (README: Input formats) or the WMT25
    human-evaluation JSON lines release (``.jsonl``: each rating's wave is its order)."""
    import pandas as pd
    from ..human.waves import rank_waves
    from ..ingest.humeval_jsonl import read_humeval_jsonl, waves_frame
    from ..ingest.waves import read_waves
    frames = [waves_frame(read_humeval_jsonl(path, lp=args.lp)) if str(path).lower().endswith((".jsonl", ".jsonl.gz"))
              else read_waves(path, lp=args.lp) for path in args.input]
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    if len(frames) > 1:
        dup = frame.duplicated(["lp", "system", "segment", "wave"]).to_numpy()
        if dup.any():
            row = frame[dup].iloc[0]
            raise InputError(f"the same rating (system {row['system']!r}, segment {row['segment']!r}, wave "
                             f"{row['wave']}) is in two inputs", column="wave")
    documents, source = documents_of(args, frame["lp"].unique())
    result = [r.to_dict() for r in rank_waves(frame, alpha=args.alpha, cluster_rule=args.cluster_rule, lp=args.lp,
                                              human_systems=human_overrides(args, frame["system"].unique()),
                                              documents=documents, documents_source=source)]
    if args.json:
        print_json(result[0] if len(result) == 1 else result)
        return 0
    _print_rankings(result, {"ave": "{:.1f}"}, ["n", "n_all", "wins"])
    return 0


def run(args: argparse.Namespace) -> int:
    from ..human.ranking import rank_judgments, resolve_qc
    args.input = [*args.inputs, *args.input]
    if not args.input:
        raise InputError("give the judgment file(s) to rank (FILE ... or --input FILE ...)", column="input")
    if args.protocol == "wmt25":
        return run_waves(args)
    formats = [args.input_format or detect_format(path) for path in args.input]
    if "mqm" in formats:
        if set(formats) != {"mqm"}:
            raise InputError("MQM annotations cannot be pooled with DA judgments in one ranking", column="input")
        return run_mqm(args)
    if args.resamples < 0:
        raise InputError("--resamples must be 0 or more", column="resamples")
    frame, formats = load(args)
    qc = resolve_qc(args.qc, formats, args.protocol)
    documents, source = documents_of(args, frame["lp"].unique())
    result = rank_judgments(
        frame, protocol=args.protocol, alpha=args.alpha, cluster_rule=args.cluster_rule,
        standardise=args.standardise, exclude_ref=args.exclude_ref, exclude_bad_ref=args.exclude_bad_ref,
        zero_sd=args.zero_sd,
        score=args.score, seed=args.seed, trials=args.trials, qc=qc, qc_alpha=args.qc_alpha,
        lp=args.lp, assessment=args.assessment, exclude_systems=args.exclude_system,
        n_resamples=args.resamples, human_systems=human_overrides(args, frame["system"].unique()),
        documents=documents, documents_source=source)
    if args.protocol == "wmt26":
        return _print_wmt26(args, result)
    if args.json:
        print_json(result[0] if len(result) == 1 else result)
        return 0
    _print_rankings(result, {"ave": "{:.1f}", "ave_z": "{:.3f}"}, ["n", "n_all", "wins"])
    return 0


def _print_wmt26(args: argparse.Namespace, result: list[dict]) -> int:
    """The wmt26 protocol's output: one pair as its ranking; several pairs as the rankings and the
    cross-language table (each model's mean per pair)."""
    from ..human.wmt26 import cross_language_dict, cross_language_table
    table = cross_language_table({r["lp"] + ("" if r["assessment"] == "cesa" else f" {r['assessment']}"):
                                  {s["system"]: s["mean"] for s in r["systems"]} for r in result})
    if args.json:
        print_json(result[0] if len(result) == 1 else {"rankings": result,
                                                        "cross_language": cross_language_dict(table)})
        return 0
    _print_rankings(result, {"ave": "{:.2f}"}, ["items", "annotations", "wins"])
    for ranking in result:
        lines = ranking.get("cluster_lines_after") or []
        print(f"{ranking['lp']}: cluster lines after " + (", ".join(lines) if lines else "no model"))
    if len(result) > 1:
        print("\nmean per language pair (pairs by their mean):")
        print_table(table.round(2).reset_index())
    return 0
