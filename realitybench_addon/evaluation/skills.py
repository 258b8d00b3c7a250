"""Documentation fields by the skill they ask for (the paper's Figure 3 and Table 10), as each environment declares
its keys' skills (envs/<env>.py: `DocKey(..., skill=...)`; SKILL_GROUPS collects them from the registry).

    reading      transcribe text or digits in frame
    judgment     a categorical state of the scene
    measurement  read a length off a tape measure

A model's group score is the unweighted mean of its scores on the group's fields (each field over
the frames it is scored on). The groups hold the paper's 24 fields (Table 10): the two keys in
OUTSIDE_PAPER (horizon_peak.own_roof_blocks, ro_board.body_style) are asked and scored as
documentation but are in no group (listed apart, as ungrouped). Fields are sorted within their group by the mean over the model runs.
Spearman's rho across model runs (baselines have no fields) relates the groups to each other and
to acceptability F1, with the number of runs and the permutation p (stats.spearman_p).
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Optional

from ..answers import stats
from ..core.doc_fields import JUDGMENT, MEASUREMENT, READING
from .variants import other_variant

GROUPS = (READING, JUDGMENT, MEASUREMENT)
UNGROUPED = "ungrouped"


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[tuple[str, str], str], frozenset]:
    from ..envs import registry

    keys = list(registry.doc_keys())
    return ({(env, k.name): k.skill for env, k in keys if k.skill is not None},
            frozenset((env, k.name) for env, k in keys if k.skill is None))


def __getattr__(name: str):
    """SKILL_GROUPS: every documentation key with a skill, (environment, key) -> its group, as each environment
    declares it on its key (envs/<env>.py, `DocKey(..., skill=READING)`). OUTSIDE_PAPER: the keys asked and scored
    as documentation in no group (of the eleven, horizon_peak.own_roof_blocks and ro_board.body_style: they are not
    among the paper's 24 fields of Table 10 / Figure 3, so the group scores and their correlations are the paper's;
    the report lists them apart)."""
    if name == "SKILL_GROUPS":
        return _tables()[0]
    if name == "OUTSIDE_PAPER":
        return _tables()[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


CORRELATED = ((READING, JUDGMENT), (READING, MEASUREMENT), (JUDGMENT, MEASUREMENT),
              (READING, "f1"), (JUDGMENT, "f1"), (MEASUREMENT, "f1"))


def group_of(field: str) -> str:
    """'env.key' -> its skill group (UNGROUPED for a key the table does not know, or one OUTSIDE_PAPER)."""
    env, _, key = field.partition(".")
    return _tables()[0].get((env, key), UNGROUPED)


def _mean(values) -> Optional[float]:
    values = [v for v in values if v is not None and math.isfinite(v)]
    return sum(values) / len(values) if values else None


def ordered_fields(field_means: dict[str, Optional[float]]) -> list[str]:
    """Fields grouped by skill (reading, judgment, measurement, then any ungrouped) and sorted within a group by
    the mean over models, highest first (then by name)."""
    order = {g: n for n, g in enumerate((*GROUPS, UNGROUPED))}
    return sorted(field_means, key=lambda f: (order[group_of(f)], -(field_means[f] if field_means[f] is not None
                                                                    else -1.0), f))


def skills(labels: list[str], summaries: list[dict]) -> dict:
    """{"fields": per field (group, mean over models), "models": per model (group scores, F1, documentation),
    "correlations": Spearman across models, "ungrouped": fields outside the table}."""
    models = [(label, s) for label, s in zip(labels, summaries)
              if s.get("kind") != "baseline" and not other_variant(s) and s["metrics"]["fields"]]
    names = sorted({f for _, s in models for f in s["metrics"]["fields"]})
    means = {f: _mean(s["metrics"]["fields"].get(f, {}).get("value") for _, s in models) for f in names}
    fields = [{"field": f, "group": group_of(f), "mean": means[f],
               "models": sum(1 for _, s in models if s["metrics"]["fields"].get(f, {}).get("value") is not None)}
              for f in ordered_fields(means)]
    per_model = []
    for label, s in models:
        values = {f: e.get("value") for f, e in s["metrics"]["fields"].items()}
        per_model.append({"label": label, **{g: _mean(v for f, v in values.items() if group_of(f) == g)
                                            for g in GROUPS},
                          "f1": s["metrics"]["f1"]["value"], "documentation": s["metrics"]["documentation"]["value"]})
    correlations = []
    for x, y in CORRELATED:
        pairs = [(m["label"], m[x], m[y]) for m in per_model if m[x] is not None and m[y] is not None]
        if len(pairs) < 3:
            continue
        xs, ys = [p[1] for p in pairs], [p[2] for p in pairs]
        rho = stats.spearman(xs, ys)
        correlations.append({"x": x, "y": y, "models": len(pairs), "labels": [p[0] for p in pairs],
                             "rho": rho if math.isfinite(rho) else None,
                             "p_permutation": stats.spearman_p(xs, ys) if math.isfinite(rho) else None})
    return {"fields": fields, "models": per_model, "correlations": correlations,
            "ungrouped": [f["field"] for f in fields if f["group"] == UNGROUPED]}


def write_section(out, result: dict) -> tuple[str, list[str]]:
    """(report.md text, files written): skills.csv, skill_fields.csv, skill_correlations.csv and the tables."""
    from .tables import fmt, md_table, write_csv

    write_csv(out / "skill_fields.csv", ["group", "environment", "field", "mean_over_models", "models"],
              [[f["group"], *f["field"].split(".", 1), f["mean"], f["models"]] for f in result["fields"]])
    write_csv(out / "skills.csv", ["label", *GROUPS, "f1", "documentation"],
              [[m["label"], *[m[g] for g in GROUPS], m["f1"], m["documentation"]] for m in result["models"]])
    write_csv(out / "skill_correlations.csv", ["x", "y", "models", "rho", "p_permutation"],
              [[c["x"], c["y"], c["models"], c["rho"], c["p_permutation"]] for c in result["correlations"]])
    files = ["skills.csv", "skill_fields.csv", "skill_correlations.csv"]
    md = ["\n## Skills: reading, judgment, measurement\n"]
    if not result["fields"]:
        md.append("No model run answers documentation questions.\n")
        return "\n".join(md), files
    md.append(md_table(["group", "field", "mean over models", "models"],
                       [[f["group"], f["field"], fmt(f["mean"]), f["models"]] for f in result["fields"]]))
    md.append("\n" + md_table(["model", *GROUPS, "F1", "documentation"],
                              [[m["label"], *[fmt(m[g]) for g in GROUPS], fmt(m["f1"]), fmt(m["documentation"])]
                               for m in result["models"]]))
    if result["correlations"]:
        md.append("\nSpearman's rho across model runs:\n\n")
        md.append(md_table(["x", "y", "models", "rho", "p (permutation)"],
                           [[c["x"], c["y"], c["models"], fmt(c["rho"]), fmt(c["p_permutation"], 4)]
                            for c in result["correlations"]]))
    else:
        md.append("\nCorrelations between groups need three or more model runs with both scores.\n")
    md.append("\nReading: transcribe text or digits; judgment: a categorical state of the scene; measurement: a length "
              "read off a tape measure (each environment's keys declare their group: `DocKey(..., skill=...)`). A group's score is the "
              "mean of the model's field scores in it. Fields are sorted within their group by the mean over "
              "models.\n")
    if result["ungrouped"]:
        md.append(f"Fields outside the paper's 24 skill-group fields (scored as documentation, in no group): "
                  f"{', '.join(f'`{f}`' for f in result['ungrouped'])}.\n")
    return "\n".join(md), files
