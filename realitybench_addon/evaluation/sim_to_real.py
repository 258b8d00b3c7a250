"""Do rankings on rendered frames transfer to real photographs? (the paper's sim-to-real study, Table 14)

`eval report RENDERED_RUNS... --real REAL_RUNS...`: the real runs are runs of one folder of real
photographs (real_photos.py), each matched to the rendered run of the same model: the same provider,
model, blind setting and prompt variant (and, among several such rendered runs, the one with the same
settings). A question is a documentation field a real photo is labelled for (environment.key).

Per question and model, the share of answers right, as the paper defines it:

  rendered   on the documentation-scored frames (the scorer-acceptable frames, as in the fields table),
             but damage_view.severity on the frames where the damage is readable (READABLE_TERMS: sharp,
             visible, resolved; framing not required): no readable term fails, whatever else does
  real       on the photos labelled for it (a photo with several acceptable answers right on any)
  left out   replies cut by the output cap (the provider's finish reason): not scored 0, counted per
             model and side and listed (the paper lists them per model)

Out-of-grammar and failed replies score 0, as everywhere. Intervals: 95% percentile bootstrap
(stats.RESAMPLES, stats.model_rng(seed)) over rendered frames; over measured items on the real side
(a photo's `measured_item`: a tape read in several photos is one item, all its readings drawn
together; a photo without one is its own item). Across the models holding both: Spearman's rho and
Pearson's r with their permutation p (exact up to 8 models; three or more models needed). The
figure per question (plots.py) puts each model at (rendered, real) with both intervals.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from ..answers import counting, stats
from ..answers.items import canonical_json
from ..core.capture_terms import SHARP_TERM
from .errors import EvalError
from .real_photos import STRATUM, is_real_run, labelled_questions
from .scoring import all_field_scores


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


# damage_view's terms that say the damage is readable: sharp at the target, unoccluded, resolved (px per cm and
# the image terms measured on the damage's pixels); not the framing terms (in frame, neighbour panel, distance,
# view angle). The image terms are read off the environment's preset, so a new damage visibility term joins.
READABLE_GEOMETRIC = (SHARP_TERM, "damage_unoccluded", "px_per_cm")
READABLE_QUESTIONS = {"damage_view.severity": "damage_view"}


def readable_terms(environment: str = "damage_view") -> frozenset:
    from ..core.presets import load_environment_preset

    try:
        image = {t.name for t in load_environment_preset(environment).terms if t.kind == "image"}
    except Exception:  # no shipped preset: the two image terms the paper's damage_view had
        image = {"damage_pixels", "damage_contrast"}
    return frozenset({*READABLE_GEOMETRIC, *image})


def readable(item, terms: frozenset) -> bool:
    """A frame whose damage is readable: not gray, no readable term failing (framing terms may fail)."""
    return not counting.is_gray(item) and not set(item.failing_terms) & terms


def _frames(run, question: str, terms: Optional[frozenset]) -> list:
    """(item, row) of the frames a question is scored on, in the run."""
    env, _, key = question.partition(".")
    out = []
    for item, row in zip(run.items, run.rows):
        if item.environment != env or key not in (item.ground_truth or {}):
            continue
        if item.stratum == STRATUM:
            keep = True
        elif question in READABLE_QUESTIONS:
            keep = readable(item, terms)
        else:
            keep = counting.field_counts(item, key, run.rule)
        if keep:
            out.append((item, row))
    return out


def _score(item, row, key: str) -> float:
    values = row.get("values") if row.get("status") == "ok" and row.get("in_grammar") else None
    return all_field_scores(item, values)[key]


def cluster_interval(scores: list[float], clusters: list[str], seed: int,
                     resamples: int = stats.RESAMPLES) -> tuple[Optional[float], Optional[float]]:
    """The 95% percentile interval of the share right, resampling clusters (measured items or, one each, frames)
    with replacement and keeping all of a cluster's readings: sum of the drawn readings / their number."""
    if not scores:
        return None, None
    names = sorted(set(clusters))
    index = {c: n for n, c in enumerate(names)}
    sums, sizes = np.zeros(len(names)), np.zeros(len(names))
    for s, c in zip(scores, clusters):
        sums[index[c]] += s
        sizes[index[c]] += 1
    counts = stats.stratified_counts(["all"] * len(names), resamples, stats.model_rng(seed))
    lo, hi, _ = stats.percentile_interval((counts @ sums) / (counts @ sizes))
    return lo, hi


def side(run, question: str, seed: int, terms: Optional[frozenset] = None) -> dict:
    """One model's share right on one side: value, interval, frames (or photos), items, cut replies left out."""
    key = question.partition(".")[2]
    frames = _frames(run, question, terms)
    kept = [(i, r) for i, r in frames if not r.get("cut_by_output_cap")]
    scores = [_score(i, r, key) for i, r in kept]
    clusters = [i.measured_item or i.frame_id for i, _ in kept]
    lo, hi = cluster_interval(scores, clusters, seed)
    return {"value": float(np.mean(scores)) if scores else None, "lo": lo, "hi": hi, "frames": len(scores),
            "items": len(set(clusters)), "cut_left_out": len(frames) - len(kept)}


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


def sim_to_real(labels, runs, real_labels, real_runs, summaries, real_summaries,
                seed: int = stats.DEFAULT_SEED) -> dict:
    """{"questions": per question, the models' scores, the cut replies left out and the correlations;
    "unmatched": real runs without a rendered counterpart}."""
    matched, unmatched = [], []
    for n, (label, s) in enumerate(zip(real_labels, real_summaries)):
        i = match(labels, summaries, label, s)
        if i is None:
            unmatched.append(label)
        else:
            matched.append((labels[i], runs[i], label, real_runs[n]))
    questions = []
    for env, key in labelled_questions(real_runs[0].items):
        question = f"{env}.{key}"
        terms = readable_terms(READABLE_QUESTIONS[question]) if question in READABLE_QUESTIONS else None
        models = [{"label": rendered_label, "real_run": real_label,
                   "rendered": side(rendered, question, seed, terms), "real": side(real, question, seed)}
                  for rendered_label, rendered, real_label, real in matched]
        photos = [i for i in real_runs[0].items if i.environment == env and key in i.ground_truth]
        cut = [{"label": m["label"], "rendered": m["rendered"]["cut_left_out"], "real": m["real"]["cut_left_out"]}
               for m in models if m["rendered"]["cut_left_out"] or m["real"]["cut_left_out"]]
        questions.append({"question": question, "photos": len(photos),
                          "measured_items": len({i.measured_item or i.frame_id for i in photos}),
                          "rendered_frames_rule": ("readable: no failing " + ", ".join(sorted(terms))
                                                   if terms else "documentation-scored (scorer-acceptable)"),
                          "models": models, "cut_left_out": cut, **_correlation(models)})
    return {"questions": questions, "unmatched": unmatched}


def write_section(out, result: dict) -> tuple[str, list[str]]:
    """(report.md text, files written): sim_to_real.csv and sim_to_real_correlations.csv with their tables."""
    from .tables import ci, fmt, md_table, write_csv

    rows, md_rows = [], []
    for q in result["questions"]:
        for m in q["models"]:
            r, s = m["rendered"], m["real"]
            rows.append([q["question"], m["label"], m["real_run"], r["frames"], r["value"], r["lo"], r["hi"],
                         r["cut_left_out"], s["frames"], s["items"], s["value"], s["lo"], s["hi"], s["cut_left_out"]])
            md_rows.append([q["question"], m["label"], f"{ci(r)} ({r['frames']})",
                            f"{ci(s)} ({s['frames']} photos, {s['items']} items)"])
    write_csv(out / "sim_to_real.csv", ["question", "label", "real_run", "rendered_frames", "rendered", "rendered_lo",
                                        "rendered_hi", "rendered_cut_left_out", "real_photos", "real_items", "real",
                                        "real_lo", "real_hi", "real_cut_left_out"], rows)
    corr_rows = [[q["question"], q["photos"], q["measured_items"], q["models_with_both"], q["spearman_rho"],
                  q["spearman_p"], q["pearson_r"], q["pearson_p"], q["rendered_frames_rule"]]
                 for q in result["questions"]]
    write_csv(out / "sim_to_real_correlations.csv", ["question", "real_photos", "real_items", "models",
                                                     "spearman_rho", "spearman_p", "pearson_r", "pearson_p",
                                                     "rendered_frames"], corr_rows)
    md = ["\n## Rendered frames against real photographs\n"]
    md.append(md_table(["question", "model", "rendered [95% CI] (frames)", "real [95% CI] (photos, items)"], md_rows))
    md.append("\n" + md_table(["question", "real photos", "items", "models", "Spearman rho", "p", "Pearson r", "p"],
                              [[r[0], r[1], r[2], r[3], fmt(r[4]), fmt(r[5], 4), fmt(r[6]), fmt(r[7], 4)]
                               for r in corr_rows]))
    md.append("\nRendered: the field's share right on the documentation-scored (scorer-acceptable) frames; "
              "damage_view.severity on the frames where the damage is readable (" +
              ", ".join(sorted(readable_terms())) + " pass; framing not required). Real: on the photos labelled "
              "for it, a photo with several acceptable answers right on any of them. Intervals: 95% bootstrap over "
              "rendered frames, and over measured items on the real photos (a photo's `measured_item`; several "
              "readings of one item are drawn together). Correlations across the models with both (three or more), "
              "with permutation p values (exact up to 8 models).\n")
    cut = [(q["question"], c) for q in result["questions"] for c in q["cut_left_out"]]
    if cut:
        md.append("Replies cut by the output cap, left out (not scored 0): " + "; ".join(
            f"{question} `{c['label']}` {c['real']} real, {c['rendered']} rendered" for question, c in cut) + ".\n")
    else:
        md.append("No reply was cut by the output cap.\n")
    if result["unmatched"]:
        md.append("Real runs with no rendered run of the same model: " +
                  ", ".join(f"`{u}`" for u in result["unmatched"]) + ".\n")
    return "\n".join(md), ["sim_to_real.csv", "sim_to_real_correlations.csv"]
