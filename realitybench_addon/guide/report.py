"""The closed-loop guidance report (pure): per run, per environment and overall.

Per episode (from turns.jsonl and the run's copy of the episode list):
  solved         the episode ended with "done" on a photo the scorer accepts, within the run's K turns
  premature      it ended with "done" on a photo the scorer rejects
  missed         some turn showed an accepted photo and the reply was not "done"
  turns          replies asked (an episode not finished counts the turns it has)
  walked_m       metres the worker walked (actions.walked_m: distance change, arc around, height), summed
  oracle_m       the oracle's walk for the episode (its actions from the start)
Over a group: the share solved, premature, missed, mean turns and metres, each with a 95% percentile interval
from a bootstrap over episodes (2,000 resamples, stratified by environment for "all"; stats.model_rng(seed));
the in-grammar share of the replies; the cost of every attempt the provider billed (pricing.billed_totals of the
group's reply lines, at the run's price) and the cost per solved episode.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Optional

import numpy as np

from ..answers import stats
from ..evaluation.errors import EvalError

RESAMPLES = 2000
METRICS = ("solved", "premature", "missed", "turns", "walked_m")


def episode_rows(episodes: list, by_episode: dict) -> list[dict]:
    rows = []
    for e in episodes:
        turns = by_episode.get(e["id"], [])
        last = turns[-1] if turns else {}
        end = last.get("end") or "open"
        rows.append({"id": e["id"], "environment": e["environment"], "end": end,
                     "solved": float(end == "done" and bool(last.get("accepted"))),
                     "premature": float(end == "done" and not last.get("accepted")),
                     "missed": float(any(t.get("accepted") and not t.get("done") for t in turns)),
                     "turns": float(len(turns)), "walked_m": float(sum(t.get("walked_m") or 0.0 for t in turns)),
                     "oracle_m": float(e["oracle"].get("walked_m") or 0.0),
                     "replies": len(turns), "in_grammar": sum(1 for t in turns if t.get("in_grammar"))})
    return rows


def _interval(values: np.ndarray, counts: np.ndarray) -> tuple[float, float]:
    means = counts @ values / values.size
    lo, hi, _ = stats.percentile_interval(means)
    return lo, hi


def group_stats(rows: list[dict], strata: list, seed: int) -> dict:
    """Each metric's mean and its bootstrap interval over `rows` (resampled within `strata`)."""
    counts = stats.stratified_counts(strata, RESAMPLES, stats.model_rng(seed))
    out = {"episodes": len(rows)}
    for m in METRICS:
        v = np.asarray([r[m] for r in rows], float)
        lo, hi = _interval(v, counts)
        out[m] = {"value": float(v.mean()), "lo": lo, "hi": hi}
    out["oracle_m"] = float(np.mean([r["oracle_m"] for r in rows]))
    out["solved_count"] = int(sum(r["solved"] for r in rows))
    out["open"] = sum(1 for r in rows if r["end"] == "open")
    replies = sum(r["replies"] for r in rows)
    out["in_grammar_share"] = sum(r["in_grammar"] for r in rows) / replies if replies else None
    out["replies"] = replies
    return out


def _cost(config: dict, lines: list, ids: set, prices) -> tuple[Optional[float], dict]:
    from ..evaluation.pricing import billed_totals

    billed = billed_totals([x for x in lines if isinstance(x, dict) and x.get("frame_id") in ids])
    if config.get("baseline"):
        return 0.0, billed
    price = prices.find(config.get("model"), config.get("provider")) if prices is not None else None
    if price is None:
        return None, billed
    return (billed["input_tokens"] * price.input + billed["output_tokens"] * price.output) / 1_000_000, billed


def run_table(run_dir, prices=None, seed: int = stats.DEFAULT_SEED) -> dict:
    """One run's rows: each environment (episode-list order), then all."""
    from .episodes import load_episodes
    from .loop import EPISODES, read_run

    config, by_episode, lines = read_run(run_dir)
    episodes, _ = load_episodes(Path(run_dir) / EPISODES)
    rows = episode_rows(episodes["episodes"], by_episode)
    envs = list(dict.fromkeys(r["environment"] for r in rows))
    groups = [(env, [r for r in rows if r["environment"] == env]) for env in envs] + [("all", rows)]
    table = []
    for name, members in groups:
        g = group_stats(members, [r["environment"] for r in members], seed)
        cost, billed = _cost(config, lines, {r["id"] for r in members}, prices)
        g.update(environment=name, cost=cost, billed=billed,
                 cost_per_solved=(cost / g["solved_count"]) if cost is not None and g["solved_count"] else None)
        table.append(g)
    return {"run": str(run_dir), "label": config.get("label"), "turns": config["guide"]["turns"],
            "episodes_sha256": config["guide"]["episodes_sha256"], "rows": table, "episodes": rows,
            "currency": getattr(prices, "currency", None)}


def _ci(d: dict, digits: int = 3) -> str:
    return f"{d['value']:.{digits}f} [{d['lo']:.{digits}f}, {d['hi']:.{digits}f}]"


def _money(value, currency) -> str:
    return "n/a" if value is None else f"{value:.4f} {currency or ''}".strip()


HEADER = ("| run | environment | episodes | success within K [95% CI] | premature done | missed done | turns used | "
          "walked m (oracle m) | in grammar | cost | cost per solved |")


def markdown(tables: list[dict]) -> str:
    lines = ["## Closed-loop guidance", "",
             "Episodes: random frames the scorer rejects that Suggest a Pose fixes (docs/guidance-benchmark.md). "
             "Success: \"done\" on an accepted photo within K turns; premature: \"done\" on a rejected photo; "
             "missed: an accepted photo shown and not taken. 95% bootstrap intervals over episodes.", "",
             HEADER, "|" + "---|" * 11]
    for t in tables:
        for r in t["rows"]:
            share = "n/a" if r["in_grammar_share"] is None else f"{r['in_grammar_share']:.3f}"
            lines.append(f"| {t['label']} (K={t['turns']}) | {r['environment']} | {r['episodes']} | "
                         f"{_ci(r['solved'])} | {_ci(r['premature'])} | {_ci(r['missed'])} | {_ci(r['turns'], 2)} | "
                         f"{r['walked_m']['value']:.2f} ({r['oracle_m']:.2f}) | {share} | "
                         f"{_money(r['cost'], t['currency'])} | {_money(r['cost_per_solved'], t['currency'])} |")
    return "\n".join(lines) + "\n"


def csv_text(tables: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["run", "turns", "environment", "episodes", "solved", "solved_lo", "solved_hi", "premature",
                "missed", "turns_used", "walked_m", "oracle_m", "in_grammar_share", "cost", "cost_per_solved"])
    for t in tables:
        for r in t["rows"]:
            w.writerow([t["label"], t["turns"], r["environment"], r["episodes"], r["solved"]["value"],
                        r["solved"]["lo"], r["solved"]["hi"], r["premature"]["value"], r["missed"]["value"],
                        r["turns"]["value"], r["walked_m"]["value"], r["oracle_m"], r["in_grammar_share"],
                        r["cost"], r["cost_per_solved"]])
    return buf.getvalue()


def guide_report(run_dirs, out_dir, *, prices=None, seed: int = stats.DEFAULT_SEED, append_to: Optional[str] = None
                 ) -> dict:
    """guide.md and guide.csv in `out_dir` (with `append_to`, the section is added to that Markdown file too:
    `eval report --guide`). Runs of different episode lists are refused."""
    if not run_dirs:
        raise EvalError("the guidance report needs at least one guide run folder")
    tables = [run_table(d, prices, seed) for d in run_dirs]
    shas = {t["episodes_sha256"] for t in tables}
    if len(shas) > 1:
        raise EvalError(f"{tables[0]['run']} and {next(t['run'] for t in tables if t['episodes_sha256'] != tables[0]['episodes_sha256'])} "
                        "guided different episode lists; report runs of one list together")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    text = markdown(tables)
    (out / "guide.md").write_text(text)
    (out / "guide.csv").write_text(csv_text(tables))
    if append_to is not None:
        with open(append_to, "a") as fh:
            fh.write("\n" + text)
    return {"guide": [{"label": t["label"], "rows": {r["environment"]: {
        "episodes": r["episodes"], "success": r["solved"], "premature": r["premature"]["value"],
        "missed": r["missed"]["value"], "turns": r["turns"]["value"], "walked_m": r["walked_m"]["value"],
        "oracle_m": r["oracle_m"], "in_grammar_share": r["in_grammar_share"], "cost": r["cost"],
        "cost_per_solved": r["cost_per_solved"]} for r in t["rows"]}} for t in tables],
        "files": [str(out / "guide.md"), str(out / "guide.csv")]}
