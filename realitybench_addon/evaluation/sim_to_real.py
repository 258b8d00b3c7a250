"""Do rankings on rendered frames transfer to real photographs? (the paper's sim-to-real study)

`eval report RENDERED_RUNS... --real REAL_RUNS...`: the real runs are runs of one folder of real
photographs (real_photos.py), each matched to the rendered run of the same model: the same provider,
model, blind setting and prompt variant (and, among several such rendered runs, the one with the same
settings). A question is a documentation field a real photo is labelled for (environment.key). Per
question and model: the field's score on the rendered frames (documentation-scored, as in the fields
table) and on the real photos labelled for it, each with its 95% bootstrap interval; across the models
holding both, Spearman's rho and Pearson's r with their permutation p (exact up to 8 models; three or
more models needed).
"""
from __future__ import annotations

import math
from typing import Optional

from ..answers import stats
from ..answers.items import canonical_json
from .errors import EvalError
from .real_photos import is_real_run, labelled_questions


def check_runs(labels: list[str], runs: list, real_labels: list[str], real_runs: list) -> None:
    """Rendered runs on the command line, real runs after --real, never the other way round."""
    for label, run in zip(labels, runs):
        if is_real_run(run.items):
            raise EvalError(f"run `{label}` ({run.path}) is a run of real photographs: give it after --real, with "
                            f"the rendered runs of the same models on the command line (`eval rescore` shows its own "
                            f"numbers)")
    for label, run in zip(real_labels, real_runs):
        if not is_real_run(run.items):
            raise EvalError(f"--real run `{label}` ({run.path}) is a run of a rendered set, not of real photographs "
                            f"(a folder of photos with labels: docs/evaluation.md, \"Real photographs\")")
        if run.config.get("kind") != "model":
            raise EvalError(f"--real run `{label}` ({run.path}) is a baseline: it answers no documentation question")


def _key(s: dict) -> tuple:
    return s.get("provider"), s.get("model"), bool((s.get("settings") or {}).get("blind")), s.get("variant")


def match(labels, summaries, real_label: str, real_summary: dict) -> Optional[int]:
    """The index of the rendered run of the same model as a real run; None when there is none."""
    same = [i for i, s in enumerate(summaries) if s.get("kind") == "model" and _key(s) == _key(real_summary)]
    if len(same) > 1:
        exact = [i for i in same if canonical_json(summaries[i].get("settings")) ==
                 canonical_json(real_summary.get("settings"))]
        if len(exact) != 1:
            raise EvalError(f"--real run `{real_label}` matches {len(same)} rendered runs of {real_summary['model']} "
                            f"({', '.join(f'`{labels[i]}`' for i in same)}) and cannot tell which is its counterpart; "
                            f"report one rendered run per model")
        same = exact
    return same[0] if same else None


def _field(summary: dict, question: str) -> dict:
    f = summary["metrics"]["fields"].get(question) or {}
    return {"value": f.get("value"), "lo": f.get("lo"), "hi": f.get("hi"), "frames": f.get("frames", 0)}


def _correlation(models: list[dict]) -> dict:
    pairs = [(m["label"], m["rendered"]["value"], m["real"]["value"]) for m in models
             if m["rendered"]["value"] is not None and m["real"]["value"] is not None]
    out = {"models_with_both": len(pairs), "labels": [p[0] for p in pairs], "spearman_rho": None, "spearman_p": None,
           "pearson_r": None, "pearson_p": None}
    if len(pairs) < 3:
        return out
    xs, ys = [p[1] for p in pairs], [p[2] for p in pairs]
    for name, value, p in (("spearman", stats.spearman(xs, ys), stats.spearman_p),
                           ("pearson", stats.pearson(xs, ys), stats.pearson_p)):
        finite = math.isfinite(value)
        out[f"{name}_{'rho' if name == 'spearman' else 'r'}"] = value if finite else None
        out[f"{name}_p"] = p(xs, ys) if finite else None
    return out


def sim_to_real(labels, summaries, real_labels, real_runs, real_summaries) -> dict:
    """{"questions": per question, the models' scores and the correlations; "unmatched": real runs without a
    rendered counterpart}."""
    matched, unmatched = [], []
    for label, s in zip(real_labels, real_summaries):
        i = match(labels, summaries, label, s)
        if i is None:
            unmatched.append(label)
        else:
            matched.append((labels[i], summaries[i], label, s))
    questions = []
    for env, key in labelled_questions(real_runs[0].items):
        question = f"{env}.{key}"
        models = [{"label": rendered_label, "real_run": real_label, "rendered": _field(rendered, question),
                   "real": _field(real, question)} for rendered_label, rendered, real_label, real in matched]
        photos = sum(1 for i in real_runs[0].items if i.environment == env and key in i.ground_truth)
        questions.append({"question": question, "photos": photos, "models": models, **_correlation(models)})
    return {"questions": questions, "unmatched": unmatched}


def write_section(out, result: dict) -> tuple[str, list[str]]:
    """(report.md text, files written): sim_to_real.csv and sim_to_real_correlations.csv with their tables."""
    from .tables import ci, fmt, md_table, write_csv

    rows, md_rows = [], []
    for q in result["questions"]:
        for m in q["models"]:
            r, s = m["rendered"], m["real"]
            rows.append([q["question"], m["label"], m["real_run"], r["frames"], r["value"], r["lo"], r["hi"],
                         s["frames"], s["value"], s["lo"], s["hi"]])
            md_rows.append([q["question"], m["label"], f"{ci(r)} ({r['frames']})", f"{ci(s)} ({s['frames']})"])
    write_csv(out / "sim_to_real.csv", ["question", "label", "real_run", "rendered_frames", "rendered", "rendered_lo",
                                        "rendered_hi", "real_photos", "real", "real_lo", "real_hi"], rows)
    corr_rows = [[q["question"], q["photos"], q["models_with_both"], q["spearman_rho"], q["spearman_p"],
                  q["pearson_r"], q["pearson_p"]] for q in result["questions"]]
    write_csv(out / "sim_to_real_correlations.csv", ["question", "real_photos", "models", "spearman_rho", "spearman_p",
                                                     "pearson_r", "pearson_p"], corr_rows)
    md = ["\n## Rendered frames against real photographs\n"]
    md.append(md_table(["question", "model", "rendered [95% CI] (frames)", "real [95% CI] (photos)"], md_rows))
    md.append("\n" + md_table(["question", "real photos", "models", "Spearman rho", "p", "Pearson r", "p"],
                              [[r[0], r[1], r[2], fmt(r[3]), fmt(r[4], 4), fmt(r[5]), fmt(r[6], 4)]
                               for r in corr_rows]))
    md.append("\nRendered: the field's score on the documentation-scored frames (the fields table). Real: on the "
              "photos labelled for it, a photo with several acceptable answers right on any of them. Correlations "
              "across the models with both (three or more), with permutation p values (exact up to 8 models).\n")
    if result["unmatched"]:
        md.append("Real runs with no rendered run of the same model: " +
                  ", ".join(f"`{u}`" for u in result["unmatched"]) + ".\n")
    return "\n".join(md), ["sim_to_real.csv", "sim_to_real_correlations.csv"]
