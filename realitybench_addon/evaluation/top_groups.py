"""Top groups: the leader on a metric and the model runs not detectably worse than it.

The leader is the model run (baselines left out) with the highest value (a tie goes to the run
listed first). Another run is in the top group when the 95% interval of its paired difference
from the leader (report.paired: one shared stratified resample of the frames both hold, 2,000
resamples) reaches zero or above: the data cannot tell it is worse.
"""
from __future__ import annotations

import math

from .variants import other_variant

METRICS = ("f1", "documentation")


def _difference(pairs: list[dict], label: str, leader: str, metric: str):
    """(difference label - leader, lo, hi) from the paired results, or None where it is undefined."""
    for p in pairs:
        d = p["metrics"].get(metric)
        if d is None:
            continue
        if (p["a"], p["b"]) == (label, leader):
            return d["difference"], d["lo"], d["hi"]
        if (p["a"], p["b"]) == (leader, label):
            return 0.0 - d["difference"], 0.0 - d["hi"], 0.0 - d["lo"]  # 0.0 - x: no -0.0 in the tables
    return None


def top_groups(labels: list[str], summaries: list[dict], pairs: list[dict]) -> dict:
    """metric -> {"leader", "value", "rows": one per model run with a value, "top_group": labels}."""
    out = {}
    for metric in METRICS:
        runs = [(label, s["metrics"][metric]["value"]) for label, s in zip(labels, summaries)
                if s.get("kind") != "baseline" and not other_variant(s) and s["metrics"][metric]["value"] is not None]
        if not runs:
            continue
        leader, best = max(runs, key=lambda r: r[1])  # max keeps the first of equals
        rows = []
        for label, value in runs:
            if label == leader:
                rows.append({"label": label, "value": value, "difference": 0.0, "lo": None, "hi": None,
                             "in_top_group": True, "why": "leader"})
                continue
            d = _difference(pairs, label, leader, metric)
            if d is None or not all(math.isfinite(x) for x in d):
                rows.append({"label": label, "value": value, "difference": None, "lo": None, "hi": None,
                             "in_top_group": False, "why": "no paired interval (undefined on the shared frames)"})
                continue
            diff, lo, hi = d
            inside = hi >= 0
            rows.append({"label": label, "value": value, "difference": diff, "lo": lo, "hi": hi,
                         "in_top_group": inside, "why": "interval reaches 0" if inside else "interval below 0"})
        rows.sort(key=lambda r: -r["value"])
        out[metric] = {"leader": leader, "value": best, "rows": rows,
                       "top_group": [r["label"] for r in rows if r["in_top_group"]]}
    return out


def write_section(out, result: dict) -> tuple[str, list[str]]:
    """(report.md text, files written): top_groups.csv and one table per metric."""
    from .tables import fmt, md_table, write_csv

    head = ["metric", "label", "value", "leader", "difference", "lo", "hi", "in_top_group", "why"]
    write_csv(out / "top_groups.csv", head, [[metric, r["label"], r["value"], g["leader"], r["difference"], r["lo"],
                                              r["hi"], r["in_top_group"], r["why"]]
                                             for metric, g in result.items() for r in g["rows"]])
    md = ["\n## Top groups\n"]
    if not result:
        md.append("No model run has an F1 or a documentation score.\n")
    for metric, g in result.items():
        md.append(f"{metric}: `{g['leader']}` leads ({fmt(g['value'])}); top group: "
                  + ", ".join(f"`{label}`" for label in g["top_group"]) + ".\n\n")
        md.append(md_table(["model", metric, "difference from the leader [95% CI]", "in the top group"],
                           [[r["label"], fmt(r["value"]),
                             "leader" if r["why"] == "leader" else
                             (f"{fmt(r['difference'])} [{fmt(r['lo'])}, {fmt(r['hi'])}]" if r["difference"] is not None
                              else r["why"]), "yes" if r["in_top_group"] else "no"] for r in g["rows"]]))
        md.append("")
    md.append("\nThe leader and every model run whose paired 95% interval of the difference from it reaches 0: not "
              "detectably worse (the paired differences above; baselines left out).\n")
    return "\n".join(md), ["top_groups.csv"]
