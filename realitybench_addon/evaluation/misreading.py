"""Misreading the scene or the requirement (the paper's Table 12).

In three environments the requirement checks a property that a documentation key also asks
about. On a frame the scorer accepts the property holds, so the right verdict is accept, and a
model that reports the defect has misread the scene:

    tape_gap         the tape is tilted              tilted = true
    slope_gauge      the gauge is not on the module  on_module = false
    rail_attachment  the lag bolt or flashing is missing   lag_present = false or flashing_present = false

Per model and environment, over its in-grammar replies on scorer-accepted frames (a reply out of
grammar says nothing about what the model saw): how often it reports the defect; how often it
rejects when it does (the requirement applied to what it read); how many frames it rejects (every
one a wrong rejection here); and what share of those rejections come with the defect reported.
The pooled row adds every model's counts.
"""
from __future__ import annotations

from typing import Optional

from ..core.prompt import DEFAULT_VARIANT

# environment -> (the defect in words, the (key, value) pairs any of which reports it)
DEFECTS: dict[str, tuple[str, tuple[tuple[str, object], ...]]] = {
    "tape_gap": ("tape is tilted", (("tilted", True),)),
    "slope_gauge": ("gauge is not on the module", (("on_module", False),)),
    "rail_attachment": ("lag bolt or flashing missing", (("lag_present", False), ("flashing_present", False))),
}


def reports_defect(environment: str, values: dict) -> bool:
    return any(values.get(key) is value for key, value in DEFECTS[environment][1])


def _ratio(num: int, den: int) -> Optional[float]:
    return num / den if den else None


def counts(rows: list[dict], environment: str) -> dict:
    """The counts behind one model's row in one environment."""
    scored = [r for r in rows if r["environment"] == environment and r["verdict"] == "accept"]
    answers = [r for r in scored if r.get("in_grammar") and r.get("values") is not None]
    reported = [r for r in answers if reports_defect(environment, r["values"])]
    rejected = [r for r in answers if not r["model_accepts"]]
    return {"frames": len(scored), "answers": len(answers), "reports": len(reported),
            "rejects_when_reported": sum(1 for r in reported if not r["model_accepts"]),
            "rejected": len(rejected), "rejected_with_report": sum(1 for r in rejected
                                                                  if reports_defect(environment, r["values"]))}


def shares(c: dict) -> dict:
    return {**c, "reports_defect": _ratio(c["reports"], c["answers"]),
            "rejects_if_reported": _ratio(c["rejects_when_reported"], c["reports"]),
            "rejections_with_defect": _ratio(c["rejected_with_report"], c["rejected"])}


def misreading(labels: list[str], runs: list, summaries: list[dict]) -> dict:
    """{"rows": per model and environment, "pooled": per environment over the models}."""
    rows, pooled = [], {}
    for label, run, s in zip(labels, runs, summaries):
        if s.get("kind") != "model" or (s.get("variant") or DEFAULT_VARIANT) != DEFAULT_VARIANT:
            continue  # the benchmark's prompt only: the prompt-variant section compares the others
        for env in DEFECTS:
            c = counts(run.rows, env)
            if not c["frames"]:
                continue
            rows.append({"label": label, "environment": env, "defect": DEFECTS[env][0], **shares(c)})
            total = pooled.setdefault(env, {k: 0 for k in c})
            for k, v in c.items():
                total[k] += v
    return {"rows": rows, "pooled": [{"label": "all models", "environment": env, "defect": DEFECTS[env][0],
                                      **shares(c)} for env, c in pooled.items()]}


def write_section(out, result: dict) -> tuple[str, list[str]]:
    """(report.md text, files written): misreading.csv and the table."""
    from .tables import md_table, pct, write_csv

    head = ["label", "environment", "defect", "frames", "answers", "reports", "reports_defect",
            "rejects_when_reported", "rejects_if_reported", "rejected", "rejected_with_report",
            "rejections_with_defect"]
    rows = result["rows"] + result["pooled"]
    write_csv(out / "misreading.csv", head, [[r[h] for h in head] for r in rows])
    md = ["\n## Misreading the scene (scorer-accepted frames)\n"]
    if not rows:
        md.append("No model run holds scorer-accepted frames of tape_gap, slope_gauge or rail_attachment.\n")
        return "\n".join(md), ["misreading.csv"]
    md.append(md_table(["model", "environment", "defect reported", "answers", "reports defect", "rejects if reported",
                        "rejected", "of those, defect reported"],
                       [[r["label"], r["environment"], r["defect"], r["answers"], pct(r["reports_defect"]),
                         pct(r["rejects_if_reported"], 1), r["rejected"], pct(r["rejections_with_defect"])]
                        for r in rows]))
    md.append("\nOn frames the scorer accepts, the property the requirement checks holds, so accept is right and a "
              "reported defect is a misreading of the scene. Answers: in-grammar replies (out-of-grammar ones say "
              "nothing about what the model saw). Rejects if reported: the share of reports that come with a "
              "rejection; of those, defect reported: the share of the (wrong) rejections that come with the defect "
              "reported. `all models` pools every model's counts.\n")
    return "\n".join(md), ["misreading.csv"]
