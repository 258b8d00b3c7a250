"""Ensembles of a report's model runs (not blind, not baselines), scored like one more model.

routed by F1, routed by documentation
    Each environment is answered by the model that scored best on it, chosen on the other half of
    its frames (cross-fitted): every stratum (an environment's random frames, its positive stratum)
    is sorted by frame id and dealt alternately into halves A and B; the choice made on A answers
    B, the choice made on B answers A, so no frame is answered by a model chosen on that frame.
    "Best" is the environment's F1 (or documentation score) on the choosing half; a tie or an
    undefined value goes to the run listed first. Cost: what the routed requests cost, each frame
    at the price of the model that answered it.
majority
    Per frame, every model's vote: accept with a strict majority of the models (an out-of-grammar
    or failed reply votes no, a tie rejects); per key, the answer most models gave in grammar
    (text compared as scored: upper-cased letters and digits; lists as sets; a tie goes to the
    run listed first), scored like a reply. Cost: the sum of every model's cost.

Both are scored on the frames every member holds, by the report's documentation rule. Their
intervals come from the same stratified bootstrap as a model's, with the routing held fixed.
"""
from __future__ import annotations

import json
import math
from collections import defaultdict
from typing import Optional

import numpy as np

from . import metrics as M
from ..answers import fields as F
from ..answers import stats
from .plots import no_cost_reason
from .pricing import item_cost
from .scoring import score_item
from .variants import other_variant

ROUTED = (("f1", "routed by F1"), ("documentation", "routed by documentation"))
MAJORITY = "majority"


def members(labels: list[str], runs: list, summaries: list[dict]) -> list[tuple[str, object, dict]]:
    """(label, run, summary) of every model run asked with the image and the benchmark's prompt."""
    return [(label, run, s) for label, run, s in zip(labels, runs, summaries)
            if s.get("kind") == "model" and not (s.get("settings") or {}).get("blind") and not other_variant(s)]


def halves(items: list) -> dict[str, int]:
    """frame id -> 0 (half A) or 1 (half B): each stratum sorted by frame id and dealt alternately."""
    by_stratum = defaultdict(list)
    for item in items:
        by_stratum[item.stratum_key].append(item.frame_id)
    return {f: n % 2 for ids in by_stratum.values() for n, f in enumerate(sorted(ids))}


def _value(table: M.ScoreTable, metric: str) -> float:
    v = M.acceptability(table)["f1"] if metric == "f1" else M.documentation(table)
    return float(np.ravel(v)[0])


def _best(tables: list[M.ScoreTable], metric: str) -> tuple[int, float]:
    """The index of the best table (ties and undefined values: the first listed) and its value."""
    values = [_value(t, metric) for t in tables]
    key = [v if math.isfinite(v) else -math.inf for v in values]
    best = max(range(len(tables)), key=lambda i: (key[i], -i))
    return best, values[best]


def _aligned(run, frame_ids: list[str]) -> list[dict]:
    index = {f: i for i, f in enumerate(run.table.frame_ids)}
    return [run.rows[index[f]] for f in frame_ids]


def _vote_key(environment: str, key: str, value):
    """What counts as the same answer in a vote: the value as the scorer compares it."""
    if isinstance(value, bool):
        return ("bool", value)
    if F.is_number(value):
        return ("number", float(value))
    if isinstance(value, str):
        return ("text", F.normalise_text(value))
    if isinstance(value, list):
        rule = F.rule(environment, key)
        if rule is not None and rule.kind == "rows":
            return ("rows", tuple(sorted(json.dumps({k: F.normalise_text(v) if isinstance(v, str) else v
                                                     for k, v in sorted(row.items())}) for row in value)))
        return ("set", tuple(sorted({F.normalise_text(v) for v in value})))
    return ("other", json.dumps(value, sort_keys=True))


def majority_row(item, rows: list[dict], rule: str) -> dict:
    """One frame's majority verdict and answer, scored like a reply."""
    votes = sum(bool(r["model_accepts"]) for r in rows)
    answered = [r["values"] for r in rows if r.get("in_grammar") and r.get("values") is not None]
    if answered:
        answer = {"adequate": votes > len(rows) / 2}
        for key, _ in item.keys:
            tally: dict = {}
            for values in answered:  # listed order: the first of tied answers wins
                k = _vote_key(item.environment, key, values.get(key))
                count, first = tally.get(k, (0, values.get(key)))
                tally[k] = (count + 1, first)
            answer[key] = max(tally.values(), key=lambda c: c[0])[1]  # max keeps the first of equals
        reply = {"status": "ok", "reply_text": json.dumps(answer)}
    else:  # no model answered in grammar: nothing to take a majority of
        reply = {"status": "ok", "reply_text": None}
    row = score_item(item, reply, rule=rule)
    row.update(in_grammar=None, usage=None, source=MAJORITY)  # a vote has no grammar share and no usage of its own
    return row


def _price(summary: dict):
    return (summary.get("cost") or {}).get("price")


def _cost(parts: list[tuple[dict, Optional[dict]]], chosen: list[dict]) -> dict:
    """Cost of the ensemble's requests: (summary, usage) of each request; n/a naming the first unpriced model."""
    for s in chosen:
        reason = no_cost_reason(s)
        if reason:
            return {"total": None, "reason": f"`{s['label']}`: {reason}"}
    return {"total": sum(item_cost(usage, _price(s)) for s, usage in parts), "reason": None}


def _summarize(label: str, method: str, rows: list[dict], member_labels: list[str], cost: dict, currency,
               plots: tuple, seed: int, resamples: int, extra: dict) -> dict:
    t = M.ScoreTable(rows)
    boot = stats.stratified_counts(t.strata, resamples, stats.model_rng(seed)) if resamples else None
    failed = sum(1 for r in rows if r["status"] != "ok")
    return {"label": label, "kind": "ensemble", "method": method, "members": member_labels, "items": t.n,
            "failed": failed, "metrics": M.summarize(t, boot), "cost": {**cost, "currency": currency},
            "plots": list(plots), **extra}


def ensembles(labels: list[str], runs: list, summaries: list[dict], *, rule: str, seed: int = stats.DEFAULT_SEED,
              resamples: int = stats.RESAMPLES) -> dict:
    """{"members", "frames", "ensembles": [summary-like dicts], "skipped": why none were built or None}."""
    group = members(labels, runs, summaries)
    if len(group) < 2:
        return {"members": [g[0] for g in group], "frames": 0, "ensembles": [],
                "skipped": "ensembles need two or more model runs asked with the image"}
    common = set(group[0][1].table.frame_ids)
    for _, run, _ in group[1:]:
        common &= set(run.table.frame_ids)
    items = sorted((i for i in group[0][1].items if i.frame_id in common), key=lambda i: i.frame_id)
    frame_ids = [i.frame_id for i in items]
    rows = [_aligned(run, frame_ids) for _, run, _ in group]  # member x frame
    member_labels = [g[0] for g in group]
    currency = next(((s.get("cost") or {}).get("currency") for _, _, s in group if s.get("cost")), None)
    half = halves(items)
    envs = np.array([i.environment for i in items], dtype=object)
    halves_arr = np.array([half[f] for f in frame_ids])
    out = []
    for metric, name in ROUTED:
        picked = [None] * len(items)
        choices = []
        for env in sorted(set(envs.tolist())):
            for scored in (0, 1):
                choose_on = np.flatnonzero((envs == env) & (halves_arr != scored))
                answer = np.flatnonzero((envs == env) & (halves_arr == scored))
                tables = [M.ScoreTable([member_rows[i] for i in choose_on]) for member_rows in rows]
                best, value = _best(tables, metric) if len(choose_on) else (0, math.nan)
                for i in answer:
                    picked[i] = best
                choices.append({"environment": env, "answered_half": "AB"[scored], "frames": len(answer),
                                "chosen": member_labels[best], "chosen_on_half": "AB"[1 - scored],
                                "value_on_choosing_half": value if math.isfinite(value) else None})
        routed_rows = [{**rows[m][i], "source": member_labels[m]} for i, m in enumerate(picked)]
        used = sorted(set(picked))
        cost = _cost([(group[m][2], rows[m][i].get("usage")) for i, m in enumerate(picked)],
                     [group[m][2] for m in used])
        out.append(_summarize(f"{name} (cross-fitted)", f"routed by {metric}", routed_rows, member_labels, cost,
                              currency, (metric,), seed, resamples, {"choices": choices}))
    majority_rows = [majority_row(item, [member_rows[i] for member_rows in rows], rule)
                     for i, item in enumerate(items)]
    cost = _cost([(group[m][2], rows[m][i].get("usage")) for m in range(len(group)) for i in range(len(items))],
                 [g[2] for g in group])
    out.append(_summarize(f"majority of {len(group)} models", MAJORITY, majority_rows, member_labels, cost, currency,
                          ("f1", "documentation"), seed, resamples, {}))
    return {"members": member_labels, "frames": len(items), "ensembles": out, "skipped": None}


def write_section(out, result: dict) -> tuple[str, list[str]]:
    """(report.md text, files written): ensembles.csv (each routing choice) and the routing table."""
    from .tables import fmt, md_table, money, write_csv

    head = ["ensemble", "environment", "answered_half", "frames", "chosen", "chosen_on_half", "value_on_choosing_half"]
    rows = [[e["label"], *[c[h] for h in head[1:]]] for e in result["ensembles"] for c in e.get("choices", [])]
    write_csv(out / "ensembles.csv", head, rows)
    md = ["\n## Ensembles\n"]
    if result["skipped"]:
        md.append(f"None: {result['skipped']}.\n")
        return "\n".join(md), ["ensembles.csv"]
    md.append(f"Members: {', '.join(f'`{m}`' for m in result['members'])}; {result['frames']} frames every member "
              "holds. Their rows in the models table are the ensembles'; their costs:\n\n")
    md.append(md_table(["ensemble", "F1", "documentation", "cost"],
                       [[e["label"], fmt(e["metrics"]["f1"]["value"]), fmt(e["metrics"]["documentation"]["value"]),
                         money(e["cost"]["total"], e["cost"]["currency"]) if e["cost"]["total"] is not None
                         else f"n/a ({e['cost']['reason']})"] for e in result["ensembles"]]))
    for e in result["ensembles"]:
        if not e.get("choices"):
            continue
        md.append(f"\n{e['label']}: the model answering each half of each environment, chosen on the other half "
                  f"(its value there):\n\n")
        by_env: dict = {}
        for c in e["choices"]:
            by_env.setdefault(c["environment"], {})[c["answered_half"]] = (
                f"`{c['chosen']}` ({fmt(c['value_on_choosing_half'])}; {c['frames']} frames)" if c["frames"]
                else "no frames")
        md.append(md_table(["environment", "half A answered by", "half B answered by"],
                           [[env, h.get("A", "n/a"), h.get("B", "n/a")] for env, h in by_env.items()]))
    md.append("\nRouted: each stratum's frames sorted by frame id and dealt alternately into halves A and B; the model "
              "best on an environment's half B (F1, or documentation score; ties and undefined values to the run "
              "listed first) answers its half A, and the other way round. Cost: each routed frame at the price of "
              "the model that answered it. Majority: accept with a strict majority of the models (out of grammar "
              "votes no), each key the answer most models gave in grammar (ties to the run listed first); cost: "
              "every model's. Intervals hold the routing fixed.\n")
    return "\n".join(md), ["ensembles.csv"]
