"""A run's scores and headline numbers from its stored replies (`eval rescore`; asks nothing).

Writes RUNDIR/scores.jsonl (one row per item: status, grammar, decision, field scores, the
lenient diagnostics, usage, finish reason) and RUNDIR/summary.json (every metric with its 95%
stratified bootstrap interval, per environment and per field, grammar problems, the replies cut
by the output cap, usage, failed items).

Gray frames (counting.is_gray) are scored only in a run asked with `--include-gray` (run.json
`include_gray`): a run without it (an older run that asked them too) leaves them out here, so
grammar, cost and the fields counted on every frame (tape_gap.tilted) are over the paper's frames.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from . import metrics as M
from ..answers import counting, stats
from ..answers.items import Item
from ..core.prompt import DEFAULT_VARIANT, VARIANTS
from .errors import EvalError
from .pricing import PriceTable, cost, usage_totals
from .runs import RUN_JSON, SCORES, SUMMARY, RunStore
from .scoring import score_run


@dataclass
class RunData:
    path: Path
    config: dict
    items: list[Item]
    rows: list[dict]
    table: M.ScoreTable
    rule: str = counting.DEFAULT  # which frames count for documentation (answers/counting.py)
    gray_items: tuple = ()  # gray frames the run holds but does not score (not asked with --include-gray)

    @property
    def gray_left_out(self) -> int:
        return len(self.gray_items)

    @property
    def label(self) -> str:
        return str(self.config.get("label") or self.path)

    @property
    def include_gray(self) -> bool:
        return bool(self.config.get("include_gray"))

    @property
    def variant(self) -> str:
        """The prompt variant asked (a run from before variants asked the benchmark's prompt)."""
        return self.config.get("variant") or DEFAULT_VARIANT


def config_problem(config: dict) -> Optional[str]:
    """Why run.json cannot describe a run (a missing or mistyped field), or None."""
    kind = config.get("kind")
    if kind not in ("model", "baseline"):
        return "the field 'kind' is missing" if kind is None else f"'kind' is {kind!r}, not 'model' or 'baseline'"
    if kind == "baseline" and config.get("baseline") not in ("always-accept", "always-reject"):
        return "a baseline run without 'baseline': always-accept or always-reject"
    if kind == "model":
        for name in ("provider", "model"):
            if not isinstance(config.get(name), str) or not config[name]:
                return f"the field {name!r} is missing"
        if not isinstance(config.get("settings"), dict):
            return "the field 'settings' is missing"
        if config.get("variant") is not None and config["variant"] not in VARIANTS:
            return f"'variant' is {str(config['variant'])[:40]!r}, not one of {', '.join(VARIANTS)}"
    return None


def load_run(run_dir, rule: str = counting.DEFAULT) -> RunData:
    store = RunStore(run_dir)
    problem = config_problem(store.read_config())
    if problem:
        raise EvalError(f"{store.path(RUN_JSON)}: {problem}; not a run folder this harness wrote")
    config, items, rows = score_run(store, counting.check_rule(rule))
    gray: tuple = ()
    if not config.get("include_gray"):
        gray = tuple(i for i in items if counting.is_gray(i))
        kept = [(i, r) for i, r in zip(items, rows) if not counting.is_gray(i)]
        items, rows = [i for i, _ in kept], [r for _, r in kept]
    if not items:
        raise EvalError(f"{run_dir} holds no items (an empty run): its items.jsonl lists no frame; rerun `eval run` "
                        f"or `eval baseline` into it, or leave it out")
    return RunData(Path(run_dir), config, items, rows, M.ScoreTable(rows), rule, gray)


def run_summary(run: RunData, *, seed: int = stats.DEFAULT_SEED, resamples: int = stats.RESAMPLES,
                prices: Optional[PriceTable] = None) -> dict:
    t = run.table
    boot = stats.stratified_counts(t.strata, resamples, stats.model_rng(seed)) if resamples else None
    statuses = Counter(r["status"] for r in run.rows)
    # each out-of-grammar reply once, by its first problem (scores.jsonl lists them all)
    problems = Counter(r["problems"][0] for r in run.rows if r["status"] == "ok" and r["problems"])
    lenient = M.all_metrics(t.lenient()) if t.answers_grammar else None
    replies = RunStore(run.path).path("replies.jsonl")
    totals = usage_totals(run.rows, RunStore(run.path).reply_lines() if replies.exists() and
                          run.config.get("kind") == "model" else None)
    out = {"run": str(run.path), "label": run.label, "kind": run.config.get("kind"),
           "provider": run.config.get("provider"), "model": run.config.get("model"),
           "baseline": run.config.get("baseline"), "settings": run.config.get("settings"),
           "variant": run.variant if run.config.get("kind") == "model" else None,
           "items": t.n, "answered": statuses.get("ok", 0), "failed": statuses.get("failed", 0),
           "missing": statuses.get("missing", 0),
           "complete": statuses.get("failed", 0) == 0 and statuses.get("missing", 0) == 0,
           "failed_items": [{"frame_id": r["frame_id"], "error": r["error"]} for r in run.rows
                            if r["status"] == "failed"],
           "documentation_frames": run.rule,
           "gray_frames": {"included": run.include_gray, "left_out": run.gray_left_out},
           "metrics": M.summarize(t, boot),
           "environments": M.by_environment(t, boot),
           "grammar": {"in_grammar_share": M.estimate(M.grammar_share(t), None)["value"],
                       "problems": dict(problems.most_common()),
                       "cut_by_output_cap": sum(1 for r in run.rows if r.get("cut_by_output_cap")),
                       "lenient_diagnostics": None if lenient is None else {
                           k: M.estimate(v, None)["value"] for k, v in lenient.items() if k != "grammar"}},
           "usage": totals,
           "bootstrap": {"seed": seed, "resamples": resamples, "level": stats.LEVEL,
                         "strata": dict(sorted(Counter(t.strata).items()))}}
    if prices is not None:
        price = prices.find(run.config.get("model") or "", run.config.get("provider"))
        out["cost"] = {"currency": prices.currency, "total": cost(totals, price) if run.config.get("kind") != "baseline"
                       else 0.0, "price": None if price is None else vars(price), "prices_file": prices.path}
    return out


def rescore(run_dir, *, seed: int = stats.DEFAULT_SEED, prices: Optional[PriceTable] = None,
            rule: str = counting.DEFAULT) -> dict:
    run = load_run(run_dir, rule)
    summary = run_summary(run, seed=seed, prices=prices)
    store = RunStore(run_dir)
    store.write_jsonl(SCORES, run.rows)
    store.write_json(SUMMARY, summary)
    return summary


def headline(summary: dict) -> dict:
    """The few numbers the CLI prints."""
    m = summary["metrics"]
    return {"run": summary["run"], "label": summary["label"], "items": summary["items"],
            "answered": summary["answered"], "failed": summary["failed"], "missing": summary["missing"],
            "complete": summary["complete"], "failed_items": summary["failed_items"][:20],
            **{k: m[k] for k in ("f1", "precision", "recall", "false_accept", "miss", "documentation")},
            "in_grammar_share": summary["grammar"]["in_grammar_share"],
            "grammar_problems": summary["grammar"]["problems"],
            "cut_by_output_cap": summary["grammar"]["cut_by_output_cap"], "usage": summary["usage"],
            "gray_frames": summary["gray_frames"],
            **({"cost": summary["cost"]} if "cost" in summary else {})}
