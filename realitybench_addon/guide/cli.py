"""`eval guide-episodes`, `eval guide` and `eval guide-report` (docs/guidance-benchmark.md).

    eval guide-episodes --seed N --per-env N [--envs A,B] [--max-tries N] [--long-side PX] [--no-render-check]
                        --out EPISODES.json
    eval guide EPISODES.json (--provider P --model M [eval run's model, key and transport flags] |
               --baseline oracle|random-walk|done-at-once) [--turns K] [--samples N] [--no-denoise]
               [--device cpu|gpu|auto] --out RUNDIR
    eval guide-report RUNDIR ... --out REPORTDIR [--prices FILE] [--seed N]
"""
from __future__ import annotations

import dataclasses

from ..cli.argtypes import ascii_float, ascii_int
from ..evaluation import profiles
from ..evaluation.errors import EvalError


def _model_flags(g) -> None:
    g.add_argument("--provider", choices=("openai", "anthropic", "gemini"), default=None,
                   help="as `eval run --provider` (docs/evaluation.md)")
    g.add_argument("--model", default=None, help="the model name the server expects")
    g.add_argument("--base-url", default=None, help="API base URL (as `eval run`)")
    g.add_argument("--api-key-env", default=None, metavar="VAR", help="variable holding the key (never written)")
    g.add_argument("--no-api-key", action="store_true", help="send no key (a local server)")
    g.add_argument("--profile", default=profiles.DEFAULT, choices=tuple(profiles.PROFILES), help="as `eval run`")
    g.add_argument("--max-tokens", type=ascii_int, default=None)
    g.add_argument("--max-tokens-field", default=None, choices=("max_tokens", "max_completion_tokens"))
    g.add_argument("--temperature", default=None)
    g.add_argument("--image-detail", default=None)
    g.add_argument("--extra", default=None, metavar="JSON")
    g.add_argument("--rpm", type=ascii_float, default=None)
    g.add_argument("--tpm", type=ascii_float, default=None)
    g.add_argument("--timeout", type=ascii_float, default=600.0)
    g.add_argument("--deadline", type=ascii_float, default=None, metavar="S")
    g.add_argument("--max-reply-bytes", type=ascii_int, default=None, metavar="N")
    g.add_argument("--retries", type=ascii_int, default=5)
    g.add_argument("--max-wait", type=ascii_float, default=None, metavar="S")
    g.add_argument("--max-run-wait", type=ascii_float, default=None, metavar="S")
    g.add_argument("--label", default=None)


def add_parsers(es) -> None:
    e = es.add_parser("guide-episodes", help="the closed-loop guidance episode list: rejected random frames Suggest "
                                             "a Pose fixes, drawn by seed (docs/guidance-benchmark.md)")
    e.add_argument("--seed", type=ascii_int, default=0, help="the set seed the frames are drawn with (default 0)")
    e.add_argument("--per-env", type=ascii_int, default=5, help="episodes per environment (default 5)")
    e.add_argument("--envs", default=None, help="environments, comma-separated (default: every scored one)")
    e.add_argument("--max-tries", type=ascii_int, default=40, help="frames looked at per environment (default 40)")
    e.add_argument("--long-side", type=ascii_int, default=1600, help="the photos' long side, px (default 1600)")
    e.add_argument("--no-render-check", action="store_true",
                   help="accept Suggest a Pose's fix on its geometric terms alone (no confirming render)")
    e.add_argument("--out", required=True, help="the episode file (JSON) to write")

    g = es.add_parser("guide", help="a model (or a baseline) guides a worker to an acceptable photo, turn by turn; "
                                    "rerun the same command to resume")
    g.add_argument("episodes", help="an episode file (`eval guide-episodes`)")
    g.add_argument("--baseline", default=None, choices=("oracle", "random-walk", "done-at-once"),
                   help="guide with a baseline instead of a model")
    g.add_argument("--seed", type=ascii_int, default=0, help="the random walk's seed (default 0)")
    g.add_argument("--turns", type=ascii_int, default=4, help="K, the replies asked per episode at most (default 4)")
    g.add_argument("--samples", type=ascii_int, default=None, help="Cycles samples (default: the export's)")
    g.add_argument("--no-denoise", action="store_true", help="render without denoising")
    g.add_argument("--device", choices=("cpu", "gpu", "auto"), default="cpu", help="render device (default cpu)")
    _model_flags(g)
    g.add_argument("--out", required=True, help="the run folder (created, or resumed)")

    r = es.add_parser("guide-report", help="the closed-loop guidance table of guide runs")
    r.add_argument("runs", nargs="+", help="guide run folders")
    r.add_argument("--out", required=True, help="the report folder (guide.md, guide.csv)")
    r.add_argument("--prices", default=None, help="a dated price file (TOML or JSON)")
    r.add_argument("--seed", type=ascii_int, default=None, help="bootstrap seed")
    for p in (e, r):  # cli/evaluate.py reads eval run's settings flags of every guide command; these take none
        p.set_defaults(max_tokens=None, max_tokens_field=None, temperature=None, image_detail=None, extra=None,
                       label=None)


def _policy(args, overrides: dict, extra: dict, label):
    """The baseline, or the model with `eval run`'s settings: `overrides` (the flags given over the profile),
    `extra` (--extra) and `label` as cli/evaluate.py reads them."""
    from .baselines import BaselinePolicy, ModelPolicy

    if args.baseline is not None:
        if args.provider or args.model:
            raise EvalError("--baseline guides without a model: leave out --provider and --model")
        return BaselinePolicy(args.baseline, args.seed)
    if not args.provider or not args.model:
        raise EvalError("eval guide needs --provider and --model (or --baseline oracle|random-walk|done-at-once)")
    from ..evaluation import providers
    from ..evaluation.transport import (DEFAULT_DEADLINE_S, DEFAULT_MAX_REPLY_BYTES, DEFAULT_MAX_RUN_WAIT_S,
                                        DEFAULT_MAX_WAIT_S, TransportConfig)

    provider = providers.get(args.provider)
    settings = profiles.resolve(args.profile, provider.name, args.model, overrides, extra=extra)
    if provider.name == "openai" and args.max_tokens_field is None:
        field, _ = providers.default_max_tokens_field(args.base_url, args.model)
        settings = dataclasses.replace(settings, max_tokens_field=field)
    transport = TransportConfig(
        timeout_s=args.timeout, deadline_s=max(DEFAULT_DEADLINE_S, args.timeout + 60) if args.deadline is None
        else args.deadline, max_reply_bytes=args.max_reply_bytes or DEFAULT_MAX_REPLY_BYTES,
        max_retries=args.retries, concurrency=1, rpm=args.rpm, tpm=args.tpm,
        max_wait_s=args.max_wait or DEFAULT_MAX_WAIT_S, max_run_wait_s=args.max_run_wait or DEFAULT_MAX_RUN_WAIT_S)
    return ModelPolicy(provider, args.model, args.base_url, settings, transport, api_key_env=args.api_key_env,
                       no_api_key=args.no_api_key, label=label,
                       profile={"name": args.profile, "overrides": overrides})


def _guide(args, overrides: dict, extra: dict, label) -> dict:
    from ..core.render_settings import RenderSettings
    from .episodes import load_episodes
    from .loop import run_episodes
    from .report import guide_report

    episodes, sha = load_episodes(args.episodes)
    policy = _policy(args, overrides, extra, label)
    if args.samples is not None and args.samples < 1:
        raise EvalError(f"--samples must be at least 1, got {args.samples}")
    settings = RenderSettings().with_(**({"samples": args.samples} if args.samples else {}),
                                      **({"denoise": False} if args.no_denoise else {}))
    counts = run_episodes(episodes, sha, args.out, policy, turns=args.turns, settings=settings, device=args.device)
    summary = guide_report([args.out], args.out)
    if counts["failed"]:
        raise EvalError(f"{counts['failed']} turn(s) failed (see {args.out}/replies.jsonl); finished turns are kept, "
                        f"rerun the same command to resume")
    return {"guided": counts, **summary}


def run_command(args, overrides: dict, extra: dict, label=None) -> dict:
    """The guide commands; `overrides`, `extra`, `label`: `eval run`'s settings flags as cli/evaluate.py reads them."""
    from ..answers.stats import DEFAULT_SEED

    if args.eval_command == "guide-episodes":
        from .episodes import make_episodes, write_episodes

        if args.per_env < 1 or args.max_tries < 1 or args.long_side < 16:
            raise EvalError("--per-env and --max-tries must be at least 1, --long-side at least 16")
        envs = [n.strip() for n in args.envs.split(",")] if args.envs else None
        data = make_episodes(args.seed, args.per_env, envs, long_side_px=args.long_side, max_tries=args.max_tries,
                             render_check=not args.no_render_check)
        return write_episodes(data, args.out)
    if args.eval_command == "guide":
        return _guide(args, overrides, extra, label)
    if args.eval_command == "guide-report":
        from ..evaluation.pricing import load_prices
        from .report import guide_report

        prices = load_prices(args.prices) if args.prices else None
        return guide_report(args.runs, args.out, prices=prices, seed=DEFAULT_SEED if args.seed is None else args.seed)
    raise EvalError(f"unknown eval command {args.eval_command!r}")
