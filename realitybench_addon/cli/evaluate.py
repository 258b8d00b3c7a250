"""`python -m realitybench_addon eval ...`: run, rescore, report, baseline.

    eval run SET|REALDIR --provider openai|anthropic|gemini --model M [--base-url URL] [--api-key-env VAR |
             --no-api-key] [--profile paper|deterministic] [--max-tokens N] [--temperature T|default]
             [--image-detail D|default] [--max-tokens-field F] [--extra JSON] [--blind]
             [--variant verdict-first|verdict-last|no-verdict] [--concurrency N]
             [--rpm N] [--tpm N] [--timeout S] [--deadline S] [--max-wait S] [--max-run-wait S] [--max-reply-bytes N] [--retries N]
             [--label L] --out RUNDIR
    eval rescore RUNDIR [--prices FILE] [--documentation-frames paper|all-terms-pass]
    eval report RUN [RUN ...] --out REPORTDIR [--prices FILE] [--ratings FILE|SET_DIR [--authors NAME,...]
                [--human-rate USD_PER_HOUR]] [--real REAL_RUN ...] [--no-plots]
                [--documentation-frames paper|all-terms-pass]
    eval baseline SET --kind always-accept|always-reject --out RUNDIR

Stdout gets one JSON object; progress goes to stderr; a user error is one `error:` line (exit 2).
`eval run` also ends with one `error:` line and exit 2 when an item failed: the run is kept, and its
numbers are in RUNDIR/summary.json.

The human baseline joins rating/ (the ratings, their seconds) and the runs, so its loader lives here:
evaluation/ never imports rating/ (tests/test_import_contract.py).
"""
from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

from ..answers import counting
from .argtypes import ascii_float, ascii_int
from ..core.prompt import DEFAULT_VARIANT, VARIANTS
from ..evaluation import profiles
from ..evaluation.errors import EvalError

DOCUMENTATION_FRAMES_HELP = ("which frames count for documentation: paper (default; the scorer-acceptable frames: "
                             "accepted, plus car_plate frames whose terms pass; rail attachments missing a lag bolt or "
                             "flashing are out) or all-terms-pass (every frame whose terms all pass, those included)")


INCLUDE_GRAY_HELP = ("also ask (and score) the set's gray frames, for a study of the gray zones; by default they are "
                     "left out, as in the paper (recorded in run.json as include_gray)")


def _add_run_endpoint_args(r) -> None:
    """eval run: the provider, model, server and key."""
    r.add_argument("--provider", required=True, choices=("openai", "anthropic", "gemini"),
                   help="openai: any OpenAI-compatible chat-completions server (OpenAI, vLLM, llama.cpp, Ollama, "
                        "LM Studio, SGLang); anthropic: the Messages API; gemini: generateContent")
    r.add_argument("--model", required=True, help="the model name the server expects")
    r.add_argument("--base-url", default=None,
                   help="API base URL (defaults: https://api.openai.com/v1, https://api.anthropic.com, "
                        "https://generativelanguage.googleapis.com/v1beta; e.g. http://localhost:8000/v1 for vLLM)")
    r.add_argument("--api-key-env", default=None, metavar="VAR",
                   help="environment variable holding the API key (default OPENAI_API_KEY, ANTHROPIC_API_KEY or "
                        "GEMINI_API_KEY); the key itself is never written anywhere")
    r.add_argument("--no-api-key", action="store_true", help="send no key (a local server that needs none)")


def _add_run_settings_args(r) -> None:
    """eval run: the generation settings (a profile, and the flags that override it)."""
    r.add_argument("--profile", default=profiles.DEFAULT, choices=tuple(profiles.PROFILES),
                   help="generation settings: paper (default: the provider's own temperature and image detail, "
                        "a 16384-token cap for thinking models) or deterministic (temperature 0, 1024 tokens, "
                        "openai image detail high: the settings before profiles); the flags below override it")
    r.add_argument("--max-tokens", type=ascii_int, default=None,
                   help="output token limit, thinking included (paper 16384, deterministic 1024)")
    r.add_argument("--max-tokens-field", default=None, choices=("max_tokens", "max_completion_tokens"),
                   help="openai: the body field for --max-tokens (default: max_completion_tokens at OpenAI's own API, "
                        "api.openai.com, whose newer models refuse max_tokens, and for the reasoning models o1, o3, "
                        "o4, gpt-5 anywhere; max_tokens at another --base-url: vLLM, llama.cpp, Ollama, LM Studio, "
                        "SGLang) (recorded in run.json)")
    r.add_argument("--temperature", default=None,
                   help="sampling temperature, or 'default' to send none (paper: none; deterministic: 0)")
    r.add_argument("--image-detail", default=None,
                   help="openai: low | high | auto; gemini: low | medium | high (media resolution); anthropic: "
                        "none; 'default' sends none (paper: none; deterministic: openai high)")
    r.add_argument("--extra", default=None, metavar="JSON",
                   help="a JSON object deep-merged into every request body, e.g. '{\"reasoning_effort\": \"low\"}' "
                        "or '{\"thinking\": {\"type\": \"enabled\", \"budget_tokens\": 8192}}' (anthropic: "
                        "budget_tokens at least 1024 and below --max-tokens, no --temperature) (recorded)")


def _add_run_prompt_args(r) -> None:
    """eval run: what is asked (with or without the image, gray frames, prompt variant, subset)."""
    r.add_argument("--blind", action="store_true", help="send the prompt without the image (what priors alone give)")
    r.add_argument("--include-gray", action="store_true", help=INCLUDE_GRAY_HELP)
    r.add_argument("--variant", default=DEFAULT_VARIANT, choices=VARIANTS,
                   help="the prompt asked: verdict-first (default: the benchmark's), verdict-last (the documentation "
                        "keys first, `adequate` last), no-verdict (the documentation question alone) or verdict-only "
                        "(the verdict alone); each has its own reply grammar (recorded, and part of the request hash)")
    r.add_argument("--subset", default=None, choices=("paper-ablation",),
                   help="ask a subset of the set: paper-ablation, the paper's Table 4 items (25 random and 25 positive "
                        "frames from each of tape_gap, slope_gauge and rail_attachment) (recorded in run.json)")
    r.add_argument("--subset-seed", type=ascii_int, default=0, metavar="N",
                   help="the seed of the --subset draw (default 0): the same seed draws the same frames")


def _add_run_transport_args(r) -> None:
    """eval run: pacing, timeouts, retries and waits."""
    r.add_argument("--concurrency", type=ascii_int, default=4, help="requests in flight at once (default 4)")
    r.add_argument("--rpm", type=ascii_float, default=None, help="requests per minute, retries included (default: no limit)")
    r.add_argument("--tpm", type=ascii_float, default=None,
                   help="tokens per minute, estimated per request as the prompt's characters / 4, the image's pixels "
                        "/ 750 (at most 1600) and --max-tokens, retries included (default: no limit)")
    r.add_argument("--timeout", type=ascii_float, default=600.0,
                   help="seconds one read of a reply may wait for data: a non-streamed reply comes when the model "
                        "has finished thinking (default 600, the providers' SDKs' own)")
    r.add_argument("--deadline", type=ascii_float, default=None, metavar="S",
                   help="seconds one attempt may take in all: connect, headers and body, however slowly the server "
                        "sends (default 900, or --timeout + 60 if larger)")
    r.add_argument("--max-reply-bytes", type=ascii_int, default=None, metavar="N",
                   help="largest reply read; past it reading stops and the item fails, marked truncated "
                        "(default 8388608, 8 MiB)")
    r.add_argument("--retries", type=ascii_int, default=5,
                   help="retries of a request after a failure the server named no wait for (default 5); a wait it "
                        "asks for (Retry-After, Gemini's RetryInfo, Anthropic's rate-limit resets) is not counted")
    r.add_argument("--max-wait", type=ascii_float, default=None, metavar="S",
                   help="the longest one request waits in all between its attempts, whatever the server asks "
                        "(default 3600); a wait past it fails the item at once")
    r.add_argument("--max-run-wait", type=ascii_float, default=None, metavar="S",
                   help="the longest all the run's requests wait together between attempts (default 21600, 6 h); "
                        "once spent, an item that would wait more fails at once and a rerun resumes it")


def _add_run_parser(es) -> None:
    """eval run: ask a model about every frame of a set."""
    r = es.add_parser("run", help="ask a model about every frame of a set; rerun the same command to resume")
    r.add_argument("set", help="an exported set (folder with metadata.jsonl), or a folder of real photographs "
                               "labelled for the documentation questions (docs/evaluation.md, \"Real photographs\")")
    _add_run_endpoint_args(r)
    _add_run_settings_args(r)
    _add_run_prompt_args(r)
    _add_run_transport_args(r)
    r.add_argument("--label", default=None, help="the run's name in reports (default: the model, '(blind)' added)")
    r.add_argument("--out", required=True, help="the run folder (created, or resumed)")


def _add_rescore_parser(es) -> None:
    """eval rescore: recompute a run's scores from its stored replies."""
    rs = es.add_parser("rescore", help="recompute a run's scores from its stored replies (asks nothing)")
    rs.add_argument("run", help="a run folder")
    rs.add_argument("--prices", default=None, help="a dated price file (TOML or JSON) for the cost")
    rs.add_argument("--documentation-frames", default=counting.DEFAULT, choices=counting.RULES,
                    help=DOCUMENTATION_FRAMES_HELP)


def _add_report_parser(es) -> None:
    """eval report: the tables and plots of one or more runs of one set."""
    rp = es.add_parser("report", help="Markdown and CSV tables (and plots) from one or more runs of one set")
    rp.add_argument("runs", nargs="+", help="run folders (model runs, blind runs, baselines)")
    rp.add_argument("--out", required=True, help="the report folder")
    rp.add_argument("--prices", default=None, help="a dated price file (TOML or JSON); without it costs are n/a")
    rp.add_argument("--ratings", default=None, help="human ratings: a ratings file (CSV frame_id,rater,rating or "
                                                     "JSONL), or a rated set folder (its ratings.sqlite)")
    rp.add_argument("--authors", default=None, metavar="NAME,...",
                    help="raters who helped design the scorer: shown, but left out of the non-author pool")
    rp.add_argument("--human-rate", default=None, metavar="USD_PER_HOUR",
                    help="the hourly rate of a rater: the report prices one human pass over the set at it (the "
                         "ratings' median seconds per frame)")
    rp.add_argument("--real", nargs="+", default=[], metavar="REAL_RUN",
                    help="runs of a folder of real photographs, each compared with the rendered run of the same "
                         "model, per labelled question")
    rp.add_argument("--set", default=None, metavar="SET_DIR", dest="set_dir",
                    help="the exported set the runs asked: its metadata (camera, measurements) gives the drivers of "
                         "difficulty (default: the set recorded in the first run's run.json, if it is still there)")
    rp.add_argument("--seed", type=ascii_int, default=None, help="bootstrap seed (default: stats.DEFAULT_SEED)")
    rp.add_argument("--no-plots", action="store_true", help="skip the matplotlib figures")
    rp.add_argument("--documentation-frames", default=counting.DEFAULT, choices=counting.RULES,
                    help=DOCUMENTATION_FRAMES_HELP)
    rp.add_argument("--guide", nargs="+", default=[], metavar="GUIDE_RUN",
                    help="guide runs (`eval guide`): their closed-loop guidance table is added to the report")


def _add_baseline_parser(es) -> None:
    """eval baseline: a run that needs no model."""
    b = es.add_parser("baseline", help="a run that needs no model: always accept or always reject")
    b.add_argument("set", help="an exported set")
    b.add_argument("--kind", required=True, choices=("always-accept", "always-reject"))
    b.add_argument("--out", required=True, help="the run folder")
    b.add_argument("--include-gray", action="store_true", help=INCLUDE_GRAY_HELP)


def add_parser(sub) -> None:
    """The `eval` command and its subcommands (run, rescore, report, baseline, and the guide's)."""
    ev = sub.add_parser("eval", help="ask vision-language models about an exported set, score them, report "
                                     "(see docs/evaluation.md)")
    es = ev.add_subparsers(dest="eval_command", required=True, metavar="EVAL_COMMAND")
    _add_run_parser(es)
    _add_rescore_parser(es)
    _add_report_parser(es)
    _add_baseline_parser(es)
    from ..guide.cli import add_parsers as add_guide_parsers  # eval guide-episodes, guide, guide-report

    add_guide_parsers(es)


def _temperature(text: str):
    if text.strip().lower() in ("default", "none"):
        return None
    try:
        value = float(text)
    except ValueError:
        raise EvalError(f"--temperature must be a number or 'default', got {text!r}") from None
    if not 0 <= value <= 2:
        raise EvalError(f"--temperature must be within 0-2, got {value}")
    return value


def _image_detail(text: str):
    return None if text.strip().lower() in ("default", "none") else text


def settings_overrides(args) -> dict:
    """The generation settings given explicitly on the command line: they override the profile's."""
    given = {"max_tokens": args.max_tokens, "max_tokens_field": args.max_tokens_field}
    out = {k: v for k, v in given.items() if v is not None}
    if args.temperature is not None:
        out["temperature"] = _temperature(args.temperature)
    if args.image_detail is not None:
        out["image_detail"] = _image_detail(args.image_detail)
    return out


def _extra(text):
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise EvalError(f"--extra is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise EvalError("--extra must be a JSON object")
    return value


def _label(text):
    """--label: one line of printable text (it heads report tables and prose; a line break would split them)."""
    if text is not None and (not text.strip() or any(not c.isprintable() for c in text) or len(text) > 200):
        raise EvalError("--label must be one line of printable text, at most 200 characters (no line break, tab "
                        "or control character)")
    return text


def _authors(text) -> tuple[str, ...]:
    if text is None:
        return ()
    names = tuple(n.strip() for n in text.split(","))
    if not all(names):
        raise EvalError(f"--authors takes rater names separated by commas, got {text!r}")
    return names


def _human_rate(text):
    if text is None:
        return None
    try:
        rate = float(text)
    except ValueError:
        rate = math.nan
    if not (math.isfinite(rate) and rate >= 0):
        raise EvalError(f"--human-rate must be a non-negative number of USD per hour, got {text!r}")
    return rate


def _check_rated_set(set_dir: Path, items) -> None:
    """A rated set folder must be the runs' set: every frame the runs asked, with the same image. Checked
    before its database is opened (opening one splits the frames it is given)."""
    from ..answers.items import load_set

    held = {a.item.frame_id: a.item.image_sha256 for a in load_set(set_dir)}
    for item in items:
        if item.frame_id not in held:
            raise EvalError(f"--ratings {set_dir} is another set: it lacks frame {item.frame_id}, which the runs "
                            f"asked; give the ratings of the runs' own set")
        if held[item.frame_id] != item.image_sha256:
            raise EvalError(f"--ratings {set_dir} is another set: its frame {item.frame_id} has another image than "
                            f"the runs'; give the ratings of the runs' own set")


def load_human_ratings(path, items) -> list:
    """Every answer of a ratings file, or of a rated set's database, on the runs' frames, with its seconds."""
    from ..evaluation.human_baseline import HumanRating
    from ..rating.errors import RatingsError
    from ..rating.files import read_ratings_file
    from ..rating.store import DB_NAME, RatingStore

    path = Path(path)
    if path.is_dir():
        if not (path / DB_NAME).is_file():
            raise RatingsError(f"{path} holds no {DB_NAME}: rate the set first (`rate {path}`) or give a ratings file")
        _check_rated_set(path, items)
        frames = {i.frame_id: i.environment for i in items}
        ratings = [r for r in RatingStore(path, frames).ratings() if r.frame_id in frames]
    else:
        ratings = read_ratings_file(path, {i.frame_id: i.keys for i in items})
    return [HumanRating(r.frame_id, r.rater, r.answer, r.seconds) for r in ratings]


def load_rating_split(path, items):
    """The stored tuning / held-out split of a rated set folder (what `ratings DIR --held-out` reads), on the runs'
    frames; None for a ratings file, which carries no split (the report then says so)."""
    from ..rating.store import DB_NAME, RatingStore

    path = Path(path)
    if not (path.is_dir() and (path / DB_NAME).is_file()):
        return None
    frames = {i.frame_id: i.environment for i in items}
    split = RatingStore(path, frames).split()
    return {f: part for f, part in split.items() if f in frames}


def run_command(args) -> dict:
    from ..answers.stats import DEFAULT_SEED

    if args.eval_command.startswith("guide"):
        from ..guide.cli import run_command as guide_command

        return guide_command(args, settings_overrides(args), _extra(args.extra), _label(args.label))
    if args.eval_command == "run":
        from ..evaluation import providers
        from ..evaluation.ask import ask_set
        from ..evaluation.failures import incomplete_run
        from ..evaluation.summary import headline, rescore
        from ..evaluation.transport import (DEFAULT_DEADLINE_S, DEFAULT_MAX_REPLY_BYTES, DEFAULT_MAX_RUN_WAIT_S,
                                            DEFAULT_MAX_WAIT_S, TransportConfig)

        provider = providers.get(args.provider)
        overrides = settings_overrides(args)
        settings = profiles.resolve(args.profile, provider.name, args.model, overrides, blind=args.blind,
                                    extra=_extra(args.extra))
        deadline = max(DEFAULT_DEADLINE_S, args.timeout + 60) if args.deadline is None else args.deadline
        cap = DEFAULT_MAX_REPLY_BYTES if args.max_reply_bytes is None else args.max_reply_bytes
        field_from = None
        if provider.name == "openai":
            if args.max_tokens_field is None:
                field, field_from = providers.default_max_tokens_field(args.base_url, args.model)
                settings = dataclasses.replace(settings, max_tokens_field=field)
            else:
                field_from = "--max-tokens-field"
        transport = TransportConfig(timeout_s=args.timeout, deadline_s=deadline, max_reply_bytes=cap,
                                    max_retries=args.retries, concurrency=args.concurrency, rpm=args.rpm,
                                    tpm=args.tpm, max_wait_s=DEFAULT_MAX_WAIT_S if args.max_wait is None
                                    else args.max_wait,
                                    max_run_wait_s=DEFAULT_MAX_RUN_WAIT_S if args.max_run_wait is None
                                    else args.max_run_wait)
        asked = ask_set(args.set, args.out, provider=provider, model=args.model, base_url=args.base_url,
                        settings=settings, transport=transport, api_key_env=args.api_key_env,
                        no_api_key=args.no_api_key, label=_label(args.label),
                        profile={"name": args.profile, "overrides": overrides}, variant=args.variant,
                        include_gray=args.include_gray, max_tokens_field_from=field_from, subset=args.subset,
                        subset_seed=args.subset_seed)
        summary = rescore(args.out, seed=DEFAULT_SEED)
        if not summary["complete"]:  # a run with failed items is no success, whatever it kept
            raise EvalError(incomplete_run(args.out, summary))
        return {"asked": asked, "profile": args.profile, "settings": settings.to_dict(), "variant": args.variant,
                **headline(summary)}
    if args.eval_command == "rescore":
        from ..evaluation.pricing import load_prices
        from ..evaluation.summary import headline, rescore

        prices = load_prices(args.prices) if args.prices else None
        return headline(rescore(args.run, seed=DEFAULT_SEED, prices=prices, rule=args.documentation_frames))
    if args.eval_command == "report":
        from ..evaluation.pricing import load_prices
        from ..evaluation.report import build_report

        prices = load_prices(args.prices) if args.prices else None
        ratings = None
        if args.ratings is not None:
            ratings = lambda items: load_human_ratings(args.ratings, items)  # noqa: E731
        split = None if args.ratings is None else (lambda items: load_rating_split(args.ratings, items))  # noqa: E731
        made = build_report(args.runs, args.out, prices=prices, ratings=ratings, rating_split=split,
                            seed=DEFAULT_SEED if args.seed is None else args.seed, plots=not args.no_plots,
                            documentation_frames=args.documentation_frames, authors=_authors(args.authors),
                            human_rate=_human_rate(args.human_rate), real_dirs=args.real, set_dir=args.set_dir)
        if args.guide:  # the closed-loop guidance section (guide/report.py), added to report.md
            from ..guide.report import guide_report

            made["guide"] = guide_report(args.guide, args.out, prices=prices, seed=DEFAULT_SEED if args.seed is None
                                         else args.seed, append_to=str(Path(args.out) / "report.md"))["guide"]
        return made
    if args.eval_command == "baseline":
        from ..evaluation.baselines import baseline_run
        from ..evaluation.summary import headline, rescore

        made = baseline_run(args.set, args.out, args.kind, include_gray=args.include_gray)
        return {"baseline": made["baseline"], **headline(rescore(args.out, seed=DEFAULT_SEED))}
    raise EvalError(f"unknown eval command {args.eval_command!r}")
