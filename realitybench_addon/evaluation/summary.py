"""A run's scores and headline numbers from its stored replies (`eval rescore`; asks nothing).

Writes RUNDIR/scores.jsonl (one row per item: status, grammar, decision, field scores, the
lenient diagnostics, usage, finish reason) and RUNDIR/summary.json (every metric with its 95%
stratified bootstrap interval, per environment and per field, grammar problems, the replies cut
by the output cap, usage, failed items).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from . import metrics as M
from ..answers import stats
from ..answers.items import Item
from .pricing import PriceTable, cost, usage_totals
from .runs import SCORES, SUMMARY, RunStore
from .scoring import score_run


@dataclass
class RunData:
    path: Path
    config: dict
    items: list[Item]
    rows: list[dict]
    table: M.ScoreTable

    @property
    def label(self) -> str:
        return self.config.get("label") or str(self.path)


def load_run(run_dir) -> RunData:
    store = RunStore(run_dir)
    config, items, rows = score_run(store)
    return RunData(Path(run_dir), config, items, rows, M.ScoreTable(rows))


def run_summary(run: RunData, *, seed: int = stats.DEFAULT_SEED, resamples: int = stats.RESAMPLES,
                prices: Optional[PriceTable] = None) -> dict:
    t = run.table
    boot = stats.stratified_counts(t.strata, resamples, stats.model_rng(seed)) if resamples else None
    statuses = Counter(r["status"] for r in run.rows)
    # each out-of-grammar reply once, by its first problem (scores.jsonl lists them all)
    problems = Counter(r["problems"][0] for r in run.rows if r["status"] == "ok" and r["problems"])
    lenient = M.all_metrics(t.lenient()) if t.answers_grammar else None
    totals = usage_totals(run.rows)
    out = {"run": str(run.path), "label": run.label, "kind": run.config.get("kind"),
           "provider": run.config.get("provider"), "model": run.config.get("model"),
           "baseline": run.config.get("baseline"), "settings": run.config.get("settings"),
           "items": t.n, "answered": statuses.get("ok", 0), "failed": statuses.get("failed", 0),
           "missing": statuses.get("missing", 0),
           "complete": statuses.get("failed", 0) == 0 and statuses.get("missing", 0) == 0,
           "failed_items": [{"frame_id": r["frame_id"], "error": r["error"]} for r in run.rows
                            if r["status"] == "failed"],
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


def rescore(run_dir, *, seed: int = stats.DEFAULT_SEED, prices: Optional[PriceTable] = None) -> dict:
    run = load_run(run_dir)
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
            **({"cost": summary["cost"]} if "cost" in summary else {})}
