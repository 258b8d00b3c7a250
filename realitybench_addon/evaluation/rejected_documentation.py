"""Documentation on the frames the scorer rejects, against the frames it accepts (random frames only).

A model is asked the documentation question on every frame, so its fields can be scored on the
random frames the scorer rejects as well (answers/counting.py: a failing term, on a frame the
documentation rule does not drop). Per model, the mean field score of a frame on the scorer-
acceptable random frames, the same on the scorer-rejected random frames, and the gap (accepted
minus rejected); the same per field. The positive stratum is left out: it holds accepted frames
only, and would tilt the comparison towards them. Out-of-grammar and failed replies score 0.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Optional

from ..answers import counting
from .scoring import all_field_scores

ALL_FIELDS = "*"  # the row of a frame's mean field score


def _mean(values: list[float]) -> Optional[float]:
    return sum(values) / len(values) if values else None


def _gap(a: Optional[float], b: Optional[float]) -> Optional[float]:
    return None if a is None or b is None else a - b


def gaps(run, rule: str) -> list[dict]:
    """One model's rows: per field (and ALL_FIELDS), the accepted and rejected means, their frames and the gap."""
    by_class: dict = defaultdict(lambda: defaultdict(list))
    for item, row in zip(run.items, run.rows):
        cls = counting.documentation_class(item, rule)
        if item.stratum != "random" or cls is None or not item.keys:
            continue
        scores = all_field_scores(item, row.get("values") if row.get("in_grammar") else None)
        for key, value in scores.items():
            by_class[(item.environment, key)][cls].append(value)
        by_class[(ALL_FIELDS, ALL_FIELDS)][cls].append(sum(scores.values()) / len(scores))
    out = []
    for (env, key), classes in sorted(by_class.items(), key=lambda kv: (kv[0] != (ALL_FIELDS, ALL_FIELDS), kv[0])):
        acc, rej = classes[counting.ACCEPTABLE], classes[counting.REJECTED]
        out.append({"environment": env, "field": key, "accepted": _mean(acc), "accepted_frames": len(acc),
                    "rejected": _mean(rej), "rejected_frames": len(rej), "gap": _gap(_mean(acc), _mean(rej))})
    return out


def rejected_documentation(labels: list[str], runs: list, summaries: list[dict], rule: str) -> dict:
    """{"rows": per model and field, "fields": per field, the mean over models of each column}."""
    rows = []
    for label, run, s in zip(labels, runs, summaries):
        if s.get("kind") != "model":
            continue
        rows += [{"label": label, **g} for g in gaps(run, rule)]
    by_field = defaultdict(list)
    for r in rows:
        by_field[(r["environment"], r["field"])].append(r)
    fields = []
    for (env, key), group in by_field.items():
        mean = {c: _mean([r[c] for r in group if r[c] is not None]) for c in ("accepted", "rejected", "gap")}
        fields.append({"environment": env, "field": key, "models": len(group), **mean})
    return {"rows": rows, "fields": fields}


def write_section(out, result: dict) -> tuple[str, list[str]]:
    """(report.md text, files written): rejected_documentation.csv and two tables."""
    from .tables import fmt, md_table, write_csv

    head = ["label", "environment", "field", "accepted", "accepted_frames", "rejected", "rejected_frames", "gap"]
    write_csv(out / "rejected_documentation.csv", head, [[r[h] for h in head] for r in result["rows"]])
    md = ["\n## Documentation on scorer-rejected frames (random frames)\n"]
    overall = [r for r in result["rows"] if r["field"] == ALL_FIELDS]
    if not overall:
        md.append("No model run answers documentation on random frames.\n")
        return "\n".join(md), ["rejected_documentation.csv"]
    md.append(md_table(["model", "scorer-acceptable (frames)", "scorer-rejected (frames)", "gap"],
                       [[r["label"], f"{fmt(r['accepted'])} ({r['accepted_frames']})",
                         f"{fmt(r['rejected'])} ({r['rejected_frames']})", fmt(r["gap"])] for r in overall]))
    per_field = [f for f in result["fields"] if f["field"] != ALL_FIELDS]
    labels = list(dict.fromkeys(r["label"] for r in overall))
    gap = {(r["label"], r["environment"], r["field"]): r["gap"] for r in result["rows"]}
    md.append("\nPer field (the mean over models, then each model's gap):\n\n")
    md.append(md_table(["field", "accepted", "rejected", "gap", *[f"gap: {label}" for label in labels]],
                       [[f"{f['environment']}.{f['field']}", fmt(f["accepted"]), fmt(f["rejected"]), fmt(f["gap"]),
                         *[fmt(gap.get((label, f["environment"], f["field"]))) for label in labels]]
                        for f in sorted(per_field, key=lambda f: (f["environment"], f["field"]))]))
    md.append("\nEvery field scored against the ground truth on the random frames the scorer accepts and on those it "
              "rejects (a failing term); gap = accepted - rejected. Out-of-grammar and failed replies score 0. The "
              "positive stratum is left out.\n")
    return "\n".join(md), ["rejected_documentation.csv"]
