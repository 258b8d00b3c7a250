"""`eval report`: the paper's tables from one or more runs of one set, in Markdown and CSV.

    REPORTDIR/report.md          every table below, with the definitions and the bootstrap seed
    REPORTDIR/models.csv         per run: false accept, miss, precision, recall, F1 (95% CI),
                                 documentation (95% CI), grammar share, replies cut by the output
                                 cap, cost, mean thinking tokens
    REPORTDIR/environments.csv   per run and environment: F1 (95% CI), false accept, documentation, and the
                                 paper's Table 9 row: the share of random frames the scorer accepts
                                 (scorer_acceptable.py; the run's own frames)
    REPORTDIR/fields.csv         per run, environment and field: documentation score (95% CI)
    REPORTDIR/paired.csv         per pair of runs and metric: the difference on one shared resample
                                 (2,000) and its 95% CI
    REPORTDIR/mcnemar.csv        per pair of runs: the exact McNemar test on acceptability
    REPORTDIR/cost.csv           tokens (input, output incl. thinking, thinking), prices with source
                                 and date, cost of the whole set; why a run is out of the cost plots
    REPORTDIR/correlations.csv   Spearman's rho across model runs (F1, documentation, cost) with 3+
                                 runs; baselines are kept out (their cost of 0 is not a price)
    REPORTDIR/grammar.csv        out-of-grammar reasons per run (replies cut by the output cap apart);
                                 lenient-parse diagnostics
    REPORTDIR/ratings.csv        with --ratings: alpha, raw agreement, scorer vs majority, per rater; with a
                                 rated set folder, the scorer vs majority on its held-out frames (Table 13)
    REPORTDIR/human_baseline.csv with --ratings: each rater's F1 [CI] and the runs on the same frames, the
                                 non-author pool, the cost of a human pass (human_baseline.py)
    REPORTDIR/variants.csv       runs of one model asked with other prompt variants: defect claims,
                                 rejections, documentation, exact McNemar (variants.py)
    REPORTDIR/sim_to_real.csv, sim_to_real_correlations.csv   with --real: rendered against real photos
                                 per question and model (cut replies left out, severity on readable frames,
                                 real intervals over measured items), Spearman and Pearson across models
                                 (sim_to_real.py); sim_to_real_<env>_<key>.png the scatter per question
    REPORTDIR/ensembles.csv      the cross-fitted routing's choices (ensembles.py); the ensembles'
                                 numbers are rows of models.csv
    REPORTDIR/misreading.csv     defects reported and rejections on scorer-accepted frames (misreading.py)
    REPORTDIR/rejected_documentation.csv   fields on scorer-rejected vs accepted random frames
    REPORTDIR/skills.csv, skill_fields.csv, skill_correlations.csv   reading / judgment / measurement
    REPORTDIR/top_groups.csv     the leader and the runs not detectably worse, on F1 and documentation
    REPORTDIR/tokens.csv         prompt, visible and thinking tokens per item, prompt share, ranks
    REPORTDIR/difficulty.csv     per environment, score and driver (camera roll and pitch, px per text row,
                                 view angle, gauge yaw, apparent size, unoccluded fraction, from the set's
                                 metadata): per model Spearman's rho [CI], the models rising, the pooled
                                 rho (difficulty.py); difficulty.png its heat map
    REPORTDIR/latency.csv        per model run: seconds per answered item (median, p90, mean, max)
                                 from replies.jsonl's elapsed_s (latency.py)
    REPORTDIR/report.json        all of it, machine-readable
    REPORTDIR/*.png              with matplotlib (the `plots` extra): F1 and documentation against
                                 cost (ensembles as stars; the cost frontier, unpriced runs hollow at the
                                 left edge, the cost range of a human pass and the single rater:
                                 cost_figure.py), the per-field heat map grouped by skill

Which frames count for documentation is answers/counting.py's rule (`documentation_frames`: the
paper's by default); every run of a report is scored by it. Gray frames count nowhere unless a run was
asked with --include-gray (summary.load_run); "Which frames count" says which.
"""
from __future__ import annotations

import itertools
import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional


from . import cost_figure as CF
from . import difficulty as DF
from . import ensembles as E
from . import human_baseline as HB
from . import latency as LT
from . import metrics as M
from . import misreading as MR
from . import rejected_documentation as RD
from . import scorer_acceptable as SA
from . import sim_to_real as SR
from . import skills as SK
from . import tokens as TK
from . import top_groups as TG
from . import variants as V
from ..answers import counting, stats
from ..answers.items import canonical_json
from .errors import EvalError
from .plots import COST_METRICS, cost_plot_runs, ensemble_points, no_cost_reason
from .pricing import PriceTable
from .ratings import agreement
from .scoring import CUT_PROBLEM
from .summary import RunData, load_run, run_summary
from .tables import ci, fmt, md_table, money, write_csv

PAIRED_METRICS = ("f1", "false_accept", "miss", "precision", "recall", "documentation", "grammar")


def _unique_labels(runs: list[RunData]) -> list[str]:
    labels, seen = [], Counter()
    for r in runs:
        seen[r.label] += 1
        labels.append(r.label if seen[r.label] == 1 else f"{r.label} #{seen[r.label]}")
    return labels


def _aligned(run: RunData, frame_ids: list[str]) -> M.ScoreTable:
    index = {f: i for i, f in enumerate(run.table.frame_ids)}
    return M.ScoreTable([run.rows[index[f]] for f in frame_ids])


def paired(a: RunData, b: RunData, seed: int, resamples: int, cache: dict) -> dict:
    """Differences a - b on the frames both runs hold, each metric on one shared stratified resample."""
    common = sorted(set(a.table.frame_ids) & set(b.table.frame_ids))
    ta, tb = _aligned(a, common), _aligned(b, common)
    key = tuple(common)
    if key not in cache:
        cache[key] = stats.stratified_counts(ta.strata, resamples, stats.paired_rng(seed))
    counts = cache[key]
    pa, pb = M.all_metrics(ta), M.all_metrics(tb)
    ba, bb = M.all_metrics(ta, counts), M.all_metrics(tb, counts)
    out = {"frames": len(common), "metrics": {}}
    for name in PAIRED_METRICS:
        va, vb = float(pa[name][0]), float(pb[name][0])
        if not (math.isfinite(va) and math.isfinite(vb)):
            continue
        lo, hi, undefined = stats.percentile_interval(ba[name] - bb[name])
        out["metrics"][name] = {"a": va, "b": vb, "difference": va - vb, "lo": lo, "hi": hi,
                                "undefined_resamples": undefined}
    out["mcnemar"] = None  # a run asked for no verdict has no decisions to compare
    if ta.answers_acceptability and tb.answers_acceptability:
        scored = ta.acc
        right_a = ta.model_accepts == ta.scorer_accepts
        right_b = tb.model_accepts == tb.scorer_accepts
        n_b = int((scored & right_a & ~right_b).sum())
        n_c = int((scored & ~right_a & right_b).sum())
        out["mcnemar"] = {"frames": int(scored.sum()), "a_right_b_wrong": n_b, "a_wrong_b_right": n_c,
                          "p_exact": stats.mcnemar_exact(n_b, n_c)}
    return out


def _value(summary: dict, name: str) -> Optional[float]:
    return summary["metrics"][name]["value"]


def _cost(summary: dict) -> Optional[float]:
    return (summary.get("cost") or {}).get("total")


def correlations(labels: list[str], summaries: list[dict]) -> list[dict]:
    """Spearman's rho across model runs. Baselines stay out: their cost of 0 is no price and their scores are
    no model's, yet each would enter the ranks as one."""
    models = [(label, s) for label, s in zip(labels, summaries) if s.get("kind") != "baseline"
              and not V.other_variant(s)]
    series = {"f1": [_value(s, "f1") for _, s in models],
              "documentation": [_value(s, "documentation") for _, s in models],
              "cost": [_cost(s) for _, s in models]}
    out = []
    for x, y in (("f1", "documentation"), ("f1", "cost"), ("documentation", "cost")):
        pairs = [(label, a, b) for (label, _), a, b in zip(models, series[x], series[y])
                 if a is not None and b is not None and math.isfinite(a) and math.isfinite(b)]
        if len(pairs) < 3:
            continue
        xs, ys = [p[1] for p in pairs], [p[2] for p in pairs]
        rho = stats.spearman(xs, ys)
        out.append({"x": x, "y": y, "runs": len(pairs), "labels": [p[0] for p in pairs], "rho": rho,
                    "p_permutation": stats.spearman_p(xs, ys) if math.isfinite(rho) else None})
    return out


def cost_plots(labels: list[str], summaries: list[dict], ensembles: list[dict] = ()) -> dict:
    """Per cost plot: the runs it shows, the baselines drawn as reference lines, each run left out with why, and
    the ensembles drawn as markers (or left out, with why)."""
    out = {}
    for metric, _ in COST_METRICS:
        runs = cost_plot_runs(labels, summaries, metric)
        marks = ensemble_points(ensembles, metric)
        out[metric] = {"plotted": [p[0] for p in runs["points"]],
                       "reference_lines": [label for label, _ in runs["reference_lines"]],
                       "left_out": runs["left_out"], "ensembles": [p[0] for p in marks["points"]],
                       "ensembles_left_out": marks["left_out"]}
    return out


def _item_identity(item) -> str:
    return canonical_json([item.environment, item.stratum, item.verdict, item.ground_truth, item.image_sha256,
                           item.prompt_sha256])


def check_one_set(labels: list[str], runs: list[RunData]) -> None:
    """Every run must come from one set: the frames two runs share must be the same frames, and each run must
    share frames with the first."""
    first = {i.frame_id: _item_identity(i) for i in runs[0].items}
    for label, run in zip(labels[1:], runs[1:]):
        shared = [i for i in run.items if i.frame_id in first]
        if not shared:
            raise EvalError(f"run `{label}` ({run.path}) shares no frame with `{labels[0]}` ({runs[0].path}): they "
                            f"come from different sets; report the runs of one set together")
        for item in shared:
            if _item_identity(item) != first[item.frame_id]:
                raise EvalError(f"run `{label}` ({run.path}) holds frame {item.frame_id} with another image, prompt "
                                f"or labels than `{labels[0]}` ({runs[0].path}): they come from different sets (or "
                                f"different exports of one); report the runs of one set together")


def _cost_plot_note(plotted: dict) -> str:
    """Which runs the cost plots leave out, and why (a run with no price must not vanish without a word)."""
    lines = []
    for metric, name in COST_METRICS:
        p = plotted[metric]
        if p["left_out"]:
            lines.append(f"Left out of {metric}_vs_cost: " + "; ".join(f"`{r['label']}` ({r['reason']})"
                                                                     for r in p["left_out"]) + ".")
        if p["reference_lines"]:
            lines.append(f"Drawn in {metric}_vs_cost as a level, not a point at cost 0 (a baseline): "
                         + ", ".join(f"`{label}`" for label in p["reference_lines"]) + ".")
        if p.get("ensembles"):
            lines.append(f"Drawn in {metric}_vs_cost as stars (ensembles): "
                         + ", ".join(f"`{label}`" for label in p["ensembles"]) + ".")
        if p.get("ensembles_left_out"):
            lines.append(f"Ensembles left out of {metric}_vs_cost: " + "; ".join(
                f"`{r['label']}` ({r['reason']})" for r in p["ensembles_left_out"]) + ".")
    return ("\n" + "\n\n".join(lines) + "\n") if lines else ""


def _check_report_args(run_dirs: list, ratings, authors, human_rate, documentation_frames: str) -> None:
    if not run_dirs:
        raise EvalError("eval report needs at least one run folder")
    if ratings is None and (authors or human_rate is not None):
        raise EvalError("--authors and --human-rate describe the raters of --ratings: give --ratings SET_DIR or a "
                        "ratings file too")
    if documentation_frames not in counting.RULES:
        raise EvalError(f"--documentation-frames must be one of {', '.join(counting.RULES)}, got "
                        f"{documentation_frames!r}")


@dataclass
class _Loaded:
    """The report's runs and real-photo runs with their labels, checked, and the set's difficulty drivers."""
    runs: list
    labels: list
    real_runs: list
    real_labels: list
    difficulty_rows: Optional[dict]
    difficulty_source: str


def _load_runs(run_dirs: list, real_dirs, documentation_frames: str, set_dir) -> _Loaded:
    runs = [load_run(d, documentation_frames) for d in run_dirs]
    labels = _unique_labels(runs)
    real_runs = [load_run(d, documentation_frames) for d in real_dirs]
    real_labels = _unique_labels(real_runs)
    SR.check_runs(labels, runs, real_labels, real_runs)
    check_one_set(labels, runs)
    difficulty_rows, difficulty_source = _difficulty_rows(runs, set_dir)
    if real_runs:
        check_one_set(real_labels, real_runs)
    return _Loaded(runs, labels, real_runs, real_labels, difficulty_rows, difficulty_source)


def _human_ratings(ratings, rating_split, loaded: _Loaded, summaries: list, authors, human_rate,
                   seed: int) -> tuple[Optional[dict], Optional[dict]]:
    """(the raters' agreement, the human baseline), or (None, None) without ratings."""
    if ratings is None:
        return None, None
    runs, items = loaded.runs, loaded.runs[0].items
    rated = HB.as_human_ratings(ratings(items))
    human = HB.human_baseline(rated, items, loaded.labels, runs, summaries, authors=tuple(authors),
                              rate=human_rate, seed=seed)
    rating_result = agreement([(r.frame_id, r.rater, r.answer) for r in rated if r.answer in HB.DECISIONS],
                              items, split=rating_split(items) if rating_split else None)
    return rating_result, human


def _report_dir(out_dir) -> Path:
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise EvalError(f"--out {out} is a file, not a folder")
    out.mkdir(parents=True, exist_ok=True)
    return out


def _frame_notes(runs: list) -> list[str]:
    if len({tuple(sorted(r.table.frame_ids)) for r in runs}) > 1:
        return ["The runs do not hold the same frames: each run's numbers are over its own frames; paired "
                "differences are over the frames both runs hold."]
    return []


def _all_pairs(labels: list, runs: list, seed: int) -> list[dict]:
    cache: dict = {}
    return [{"a": labels[i], "b": labels[j], **paired(a, b, seed, stats.PAIRED_RESAMPLES, cache)}
            for (i, a), (j, b) in itertools.combinations(enumerate(runs), 2)]


def _analyses(loaded: _Loaded, summaries: list, pairs: list, ensembles: dict, variant_result: dict, human,
              real_result, documentation_frames: str, prices) -> dict:
    """The paper's analyses, by name (report.json's keys)."""
    labels, runs = loaded.labels, loaded.runs
    return {"frames_counted": {**frames_counted(runs[0].items, documentation_frames),
                               "gray": gray_frames(labels, runs)},
            "scorer_acceptable": SA.scorer_acceptable(_with_gray(SA.set_items(runs), runs)),
            "ensembles": ensembles,
            "misreading": MR.misreading(labels, runs, summaries),
            "rejected_documentation": RD.rejected_documentation(labels, runs, summaries, documentation_frames),
            "skills": SK.skills(labels, summaries),
            "top_groups": TG.top_groups(labels, summaries, pairs),
            "tokens": TK.tokens(labels, runs, summaries),
            "variants": variant_result,
            "latency": LT.latency(labels, runs),
            "difficulty": DF.difficulty(labels, runs, summaries, loaded.difficulty_rows, loaded.difficulty_source),
            "cost_figure": CF.cost_figure(labels, summaries, len(runs[0].items), human,
                                          prices.currency if prices is not None else None),
            "human_baseline": human,
            "sim_to_real": real_result}


def _write_report_plots(out: Path, labels: list, summaries: list, analyses: dict, real_result) -> dict:
    """The figures (with matplotlib); where they are skipped, report.md says why."""
    from .plots import write_plots

    plot_info = write_plots(out, labels, summaries, analyses["ensembles"]["ensembles"], analyses["skills"],
                            sim_to_real=real_result, cost_figure=analyses["cost_figure"],
                            difficulty=analyses["difficulty"])
    if plot_info["skipped"]:
        _write_text(out / "report.md", _read_text(out / "report.md") + f"\nPlots: {plot_info['skipped']}\n")
    return plot_info


def _report_result(out: Path, files: list, plot_info: dict, plotted: dict, documentation_frames: str,
                   summaries: list, analyses: dict) -> dict:
    """What build_report returns (the command's stdout)."""
    return {"out": str(out), "files": sorted(files), "plots": plot_info, "cost_plots": plotted,
            "documentation_frames": documentation_frames,
            "scorer_acceptable": {env: e["share"] for env, e in analyses["scorer_acceptable"].items()},
            "runs": [{"label": s["label"], "items": s["items"], "failed": s["failed"], "missing": s["missing"],
                      "f1": s["metrics"]["f1"], "documentation": s["metrics"]["documentation"],
                      "false_accept": s["metrics"]["false_accept"], "cost": _cost(s)} for s in summaries],
            "ensembles": [{"label": e["label"], "f1": e["metrics"]["f1"],
                           "documentation": e["metrics"]["documentation"], "cost": e["cost"]["total"]}
                          for e in analyses["ensembles"]["ensembles"]],
            "top_groups": {m: g["top_group"] for m, g in analyses["top_groups"].items()},
            "variant_pairs": [(p["a"], p["b"]) for p in analyses["variants"]["pairs"]],
            "sim_to_real": None if analyses["sim_to_real"] is None else [
                {k: q[k] for k in ("question", "models_with_both", "spearman_rho", "spearman_p", "pearson_r",
                                   "pearson_p")} for q in analyses["sim_to_real"]["questions"]]}


def build_report(run_dirs: list, out_dir, *, prices: Optional[PriceTable] = None, ratings=None,
                 seed: int = stats.DEFAULT_SEED, plots: bool = True,
                 documentation_frames: str = counting.DEFAULT, authors=(), human_rate: Optional[float] = None,
                 real_dirs=(), rating_split=None, set_dir=None) -> dict:
    """The report's tables, figures and report.md in `out_dir`. `ratings`: a function from the runs'
    items to human ratings (human_baseline.HumanRating, or (frame id, rater, answer) triples), for the
    human-baseline sections; `authors`: raters left out of the non-author pool; `human_rate`: USD per hour
    of one human pass; `rating_split`: a function from the runs' items to the ratings' stored tuning / held-out
    split (frame id -> part; None when the ratings carry none), for the scorer against the raters' majority on the
    held-out frames. `documentation_frames`: which frames count for documentation (answers/counting.py
    RULES). `real_dirs`: runs of a folder of real photographs, compared with the rendered runs. `set_dir`: the
    exported set the runs asked, whose metadata rows give the drivers of difficulty (default: the set recorded in
    the first run's run.json, where it still is)."""
    _check_report_args(run_dirs, ratings, authors, human_rate, documentation_frames)
    loaded = _load_runs(run_dirs, real_dirs, documentation_frames, set_dir)
    runs, labels = loaded.runs, loaded.labels
    summaries = [run_summary(r, seed=seed, prices=prices) for r in runs]
    for s, label in zip(summaries, labels):
        s["label"] = label
    variant_result = V.variant_comparisons(labels, runs, summaries)  # refuses confounded variants early
    real_summaries = [{**run_summary(r, seed=seed), "label": label}
                      for r, label in zip(loaded.real_runs, loaded.real_labels)]
    real_result = (SR.sim_to_real(labels, runs, loaded.real_labels, loaded.real_runs, summaries, real_summaries,
                                  seed=seed) if loaded.real_runs else None)
    rating_result, human = _human_ratings(ratings, rating_split, loaded, summaries, authors, human_rate, seed)
    out = _report_dir(out_dir)
    notes = _frame_notes(runs)
    pairs = _all_pairs(labels, runs, seed)
    corr = correlations(labels, summaries)
    ensembles = E.ensembles(labels, runs, summaries, rule=documentation_frames, seed=seed)
    plotted = cost_plots(labels, summaries, ensembles["ensembles"])
    analyses = _analyses(loaded, summaries, pairs, ensembles, variant_result, human, real_result,
                         documentation_frames, prices)
    files = _write_tables(out, labels, summaries, pairs, corr, plotted, rating_result, prices, seed, notes, analyses,
                          [SA.scorer_acceptable(_with_gray(r.items, [r])) for r in runs])
    plot_info = {"written": [], "skipped": None}
    if plots:
        plot_info = _write_report_plots(out, labels, summaries, analyses, real_result)
        files += plot_info["written"]
    data = {"runs": summaries, "real_runs": real_summaries, "paired": pairs, "correlations": corr,
            "cost_plots": plotted, "ratings": rating_result, "seed": seed, "notes": notes, "plots": plot_info,
            "documentation_frames": documentation_frames, **analyses}
    from ..setio import atomic_write, jsonable

    atomic_write(out / "report.json", (json.dumps(jsonable(data), indent=2, ensure_ascii=False) + "\n").encode())
    files.append("report.json")
    return _report_result(out, files, plot_info, plotted, documentation_frames, summaries, analyses)


def _difficulty_rows(runs: list, set_dir) -> tuple[Optional[dict], str]:
    """(frame id -> metadata row, where they come from), or (None, why not). An explicit --set that is not the
    runs' set is an error; the set a run.json records is used only when it is still there and still the same."""
    items = list({i.frame_id: i for r in runs for i in r.items}.values())
    if set_dir is not None:
        return DF.set_rows(set_dir, items), str(set_dir)
    recorded = runs[0].config.get("set")
    if not recorded:
        return None, "the runs record no set folder; give it with --set SET_DIR"
    try:
        return DF.set_rows(recorded, items), str(recorded)
    except EvalError as exc:
        return None, f"the set the first run recorded cannot be used ({exc}); give it with --set SET_DIR"


def frames_counted(items: list, rule: str) -> dict:
    """How many frames of the set count for what, under `rule` and under the other rule."""
    other = next(r for r in counting.RULES if r != rule)
    return {"rule": rule, "other_rule": other, "frames": len(items),
            "acceptability": sum(i.acceptability_scored for i in items),
            "documentation": sum(counting.documentation_counts(i, rule) for i in items),
            "documentation_other_rule": sum(counting.documentation_counts(i, other) for i in items),
            "excluded_by_scene_rule": sum(counting.excluded_by_scene_rule(i) for i in items),
            "environment_not_scored": sum(i.verdict == "unscored" and not counting.excluded_by_scene_rule(i)
                                          for i in items)}


def _with_gray(items: list, runs: list) -> list:
    """`items` and the gray frames the runs hold but do not score: the scorer-acceptable row counts them (as left
    out of its denominator); a run asked without --include-gray holds none."""
    seen = {i.frame_id for i in items}
    extra = {}
    for r in runs:
        for g in r.gray_items:
            if g.frame_id not in seen:
                extra.setdefault(g.frame_id, g)
    return [*items, *extra.values()]


def gray_frames(labels: list[str], runs: list) -> dict:
    """Whether the runs score the set's gray frames: left out by default (the paper's frames are "after the gray
    zones"), kept by a run asked with `--include-gray`."""
    kept = [l for l, r in zip(labels, runs) if r.include_gray]
    return {"included": "all runs" if len(kept) == len(runs) else "no run" if not kept else "some runs",
            "runs_including_gray": kept,
            "gray_frames_scored": {l: sum(counting.is_gray(i) for i in r.items) for l, r in zip(labels, runs)
                                   if r.include_gray},
            "gray_frames_left_out": {l: r.gray_left_out for l, r in zip(labels, runs) if not r.include_gray}}


def _gray_sentence(g: dict) -> str:
    if g["included"] == "no run":
        left = sum(g["gray_frames_left_out"].values())
        return ("Gray frames are left out of what is asked and scored, as in the paper (its frames are \"after the "
                "gray zones\")" + (f"; the runs held {left} gray frame(s), not scored" if left else "") + ".")
    kept = ", ".join(f"`{l}` ({n})" for l, n in g["gray_frames_scored"].items())
    tail = "" if g["included"] == "all runs" else " The other runs leave them out (the paper's frames)."
    return (f"Gray frames are kept (`eval run --include-gray`, a study of the gray zones) by: {kept} gray frames "
            f"scored; they are out of acceptability, and out of documentation but for the fields scored on every "
            f"frame.{tail}")


def _frames_section(c: dict) -> str:
    head = ("the paper's: the scorer-acceptable frames (accepted, plus the frames of an environment whose "
            "acceptability is not scored, car_plate, whose terms all pass); a frame left out of acceptability by a "
            "scene rule (a rail attachment missing its lag bolt or flashing) does not count"
            if c["rule"] == counting.PAPER else
            "every frame whose terms all pass, frames left out of acceptability by a scene rule (a rail attachment "
            "missing its lag bolt or flashing) included")
    return (f"\n## Which frames count\n\nOf the set's {c['frames']} frames, {c['acceptability']} are scored for "
            f"acceptability (the scorer accepts or rejects them) and {c['documentation']} for documentation. "
            f"Documentation rule `{c['rule']}`: {head}; tape_gap.tilted on every tape_gap frame. Left out of "
            f"acceptability by a scene rule: {c['excluded_by_scene_rule']}; by their environment: "
            f"{c['environment_not_scored']}. Under `--documentation-frames {c['other_rule']}` "
            f"{c['documentation_other_rule']} frames would count for documentation. "
            + (_gray_sentence(c["gray"]) if "gray" in c else "") + "\n")


def _held_out_text(h: Optional[dict]) -> str:
    """The paper's Table 13 "Scorer (held-out)" column, as `ratings DIR --held-out` computes it."""
    if h is None:
        return ("Scorer against the raters' majority on the held-out frames: n/a (a ratings file carries no "
                "tuning / held-out split; give the rated set folder, `--ratings SET_DIR`, whose split is stored).\n\n")

    def cell(g):
        if not g["frames"]:
            return "–"
        lo, hi = g["interval"]
        return f"{g['agreement']:.2f} [{lo:.2f}, {hi:.2f}] ({g['frames']})"

    rows = [[e, cell(g), g["ties_excluded"], g["scorer_unscored_excluded"]] for e, g in h["environments"].items()]
    rows.append(["all", cell(h["all"]), h["all"]["ties_excluded"], h["all"]["scorer_unscored_excluded"]])
    return ("Scorer against the raters' strict majority on the held-out frames with at least "
            f"{h['min_ratings']} ratings, ties excluded (the paper's Table 13; the set's stored split and "
            "answers/majority.py, as `ratings SET_DIR --held-out`; the scorer is the set's verdicts as exported, and "
            "frames the runs did not ask, such as gray frames, are not in it):\n\n"
            + md_table(["environment", "scorer (held-out) [95% CI] (frames)", "ties excluded",
                        "scorer gray/unscored excluded"], rows) + "\n\n")


def _ensemble_row(e: dict) -> list:
    m = e["metrics"]
    return [e["label"], f"{e['items']} ({e['failed']})", fmt(m["false_accept"]["value"]), fmt(m["miss"]["value"]),
            fmt(m["precision"]["value"]), fmt(m["recall"]["value"]), ci(m["f1"]), ci(m["documentation"]),
            fmt(m["grammar"]["value"]), money(e["cost"]["total"], e["cost"]["currency"]), "n/a"]


@dataclass
class _Tables:
    """What the report's tables are written from, and what writing them collects: report.md's parts (`md`)
    and the files written (`files`)."""
    out: Path
    labels: list
    summaries: list
    pairs: list
    corr: list
    plotted: dict
    rating_result: Optional[dict]
    prices: Optional[PriceTable]
    seed: int
    notes: list
    analyses: dict
    own_acceptable: list
    md: list = field(default_factory=list)
    files: list = field(default_factory=list)

    def csv(self, name: str, head: list, rows: list) -> None:
        write_csv(self.out / name, head, rows)
        self.files.append(name)


_SCORED = ("false_accept", "miss", "precision", "recall", "f1", "documentation")
_MODELS_HEAD = (["label", "kind", "provider", "model", "blind", "items", "answered", "failed", "missing"]
                + [c for name in _SCORED for c in (name, f"{name}_lo", f"{name}_hi")]
                + ["grammar_share", "cut_by_output_cap", "cost", "currency", "mean_thinking_tokens"])
_MODELS_MD_HEAD = ["model", "items (failed)", "false accept", "miss", "precision", "recall", "F1 [95% CI]",
                   "documentation [95% CI]", "in grammar", "cost", "thinking tokens (mean)"]
_MODELS_NOTE = ("\nPrecision over random frames; recall over random + positive strata; false accept over random "
                "frames the scorer rejects; miss over scorer-accepted frames. Gray and unscored frames are left out "
                "of acceptability. Failed requests stay in the denominators (not accepting, wrong on every field). "
                "Out-of-grammar replies count as not accepting and wrong on every field.\n")
_ENVIRONMENTS_HEAD = ["label", "environment", "acceptability_scored", "f1", "f1_lo", "f1_hi", "false_accept",
                      "false_accept_lo", "false_accept_hi", "documentation", "documentation_lo", "documentation_hi",
                      "scorer_acceptable", "scorer_accepted_random", "scorer_counted_random"]
_FIELDS_NOTE = ("\nFields are scored on documentation-scored frames (see Which frames count); `tape_gap.tilted` on "
                "every tape_gap frame. Tolerances: tape reading 1/8 in, gap 1/4 in, gauge 0.2 degrees; text "
                "upper-cased, letters and digits only; breaker rows matched one to one in any order.\n")
_COST_HEAD = ["label", "model", "provider", "answered", "input_tokens", "output_tokens", "thinking_tokens",
              "thinking_reported_items", "mean_thinking_tokens", "price_input_per_mtok", "price_output_per_mtok",
              "currency", "price_source", "price_date", "cost", "not_in_cost_plots"]
_GRAMMAR_NOTE = ("\nCut by the output cap: replies the provider stopped at --max-tokens (finish reason `length`, "
                 "`max_tokens` or `MAX_TOKENS`), thinking included; they score as out of grammar, but a larger cap "
                 "(`--profile paper`) may fix them. The lenient columns parse out-of-grammar replies generously "
                 "(code fences, prose, strings for numbers); they are diagnostics, never scores.\n")
_RATINGS_HEAD = ["rater", "frames", "ratings", "krippendorff_alpha_nominal", "raw_agreement", "agreement_with_scorer",
                 "scored_frames", "f1_vs_scorer"]


def _scored_cells(m: dict) -> list:
    return [v for name in _SCORED for v in (m[name]["value"], m[name].get("lo"), m[name].get("hi"))]


def _model_rows(label: str, s: dict) -> tuple[list, list]:
    """A run's models.csv row and its row of the Models table."""
    m = s["metrics"]
    currency = (s.get("cost") or {}).get("currency")
    row = [label, s["kind"], s["provider"], s["model"], bool((s.get("settings") or {}).get("blind")), s["items"],
           s["answered"], s["failed"], s["missing"], *_scored_cells(m),
           m["grammar"]["value"], s["grammar"]["cut_by_output_cap"] if s["kind"] != "baseline" else None,
           _cost(s), currency, s["usage"]["mean_thinking_tokens"]]
    md_row = [label, f"{s['items']} ({s['failed'] + s['missing']})", fmt(m["false_accept"]["value"]),
              fmt(m["miss"]["value"]), fmt(m["precision"]["value"]), fmt(m["recall"]["value"]),
              ci(m["f1"]), ci(m["documentation"]), fmt(m["grammar"]["value"]),
              money(_cost(s), currency), fmt(s["usage"]["mean_thinking_tokens"], 0)]
    return row, md_row


def _ensemble_csv_row(e: dict) -> list:
    """An ensemble's models.csv row: scored like a run; no provider, no thinking of its own."""
    m = e["metrics"]
    return [e["label"], "ensemble", None, None, False, e["items"], e["items"] - e["failed"], e["failed"], 0,
            *_scored_cells(m), m["grammar"]["value"], None, e["cost"]["total"], e["cost"]["currency"], None]


def _models_section(t: _Tables) -> None:
    rows, md_rows = [], []
    for label, s in zip(t.labels, t.summaries):
        row, md_row = _model_rows(label, s)
        rows.append(row)
        md_rows.append(md_row)
    ensembles = t.analyses["ensembles"]["ensembles"]
    for e in ensembles:
        rows.append(_ensemble_csv_row(e))
        md_rows.append(_ensemble_row(e))
    t.csv("models.csv", _MODELS_HEAD, rows)
    t.md += ["## Models\n", md_table(_MODELS_MD_HEAD, md_rows), _MODELS_NOTE]
    if ensembles:
        t.md.append("Ensemble rows (routed, majority) are scored on the frames every member holds; see Ensembles "
                    "below.\n")


def _environment_row(label: str, env: str, e: dict, own: dict) -> list:
    a = own.get(env) or {"share": None, SA.ACCEPTED: 0, "counted": 0}
    return [label, env, e["counts"]["acceptability_scored"], e["f1"]["value"], e["f1"].get("lo"),
            e["f1"].get("hi"), e["false_accept"]["value"], e["false_accept"].get("lo"),
            e["false_accept"].get("hi"), e["documentation"]["value"], e["documentation"].get("lo"),
            e["documentation"].get("hi"), a["share"], a[SA.ACCEPTED], a["counted"]]


def _environments_section(t: _Tables) -> None:
    envs = sorted({e for s in t.summaries for e in s["environments"]})
    acceptable = t.analyses["scorer_acceptable"]  # the set's (every run's frames, each once)
    rows, md_rows = [], []
    for env in envs:
        md_row = [env, SA.cell(acceptable.get(env))]
        for label, s, own in zip(t.labels, t.summaries, t.own_acceptable):  # each run's own frames
            e = s["environments"].get(env)
            if e is None:
                md_row.append("n/a")
                continue
            rows.append(_environment_row(label, env, e, own))
            md_row.append(f"{ci(e['f1'], 2)} / {fmt(e['false_accept']['value'], 2)}")
        md_rows.append(md_row)
    t.csv("environments.csv", _ENVIRONMENTS_HEAD, rows)
    t.md += ["\n## Per environment: F1 [95% CI] / false accept\n",
             md_table(["environment", "scorer-acceptable (%)", *t.labels], md_rows), f"\n{SA.NOTE}\n"]


def _fields_section(t: _Tables) -> None:
    cols = sorted({f for s in t.summaries for f in s["metrics"]["fields"]})
    rows, md_rows = [], []
    for col in cols:
        md_row = [col]
        frames = None
        for label, s in zip(t.labels, t.summaries):
            f = s["metrics"]["fields"].get(col)
            if f is None:
                md_row.append("n/a")
                continue
            env, key = col.split(".", 1)
            frames = f["frames"]
            rows.append([label, env, key, f["frames"], f["value"], f.get("lo"), f.get("hi")])
            md_row.append(ci(f, 2))
        md_rows.append([md_row[0], frames if frames is not None else "", *md_row[1:]])
    t.csv("fields.csv", ["label", "environment", "field", "frames", "score", "lo", "hi"], rows)
    t.md.append("\n## Documentation per field [95% CI]\n")
    if md_rows:
        t.md += [md_table(["field", "frames", *t.labels], md_rows), _FIELDS_NOTE]
    else:
        t.md.append("No run answers documentation questions.\n")


def _paired_section(t: _Tables) -> None:
    rows, md_rows, mc_rows, md_mc = [], [], [], []
    for p in t.pairs:
        for name, d in p["metrics"].items():
            rows.append([p["a"], p["b"], name, p["frames"], d["a"], d["b"], d["difference"], d["lo"], d["hi"],
                         d["undefined_resamples"]])
            md_rows.append([p["a"], p["b"], name, fmt(d["difference"]), f"[{fmt(d['lo'])}, {fmt(d['hi'])}]"])
        mc = p["mcnemar"]
        if mc is None:
            continue
        mc_rows.append([p["a"], p["b"], mc["frames"], mc["a_right_b_wrong"], mc["a_wrong_b_right"], mc["p_exact"]])
        md_mc.append([p["a"], p["b"], mc["frames"], mc["a_right_b_wrong"], mc["a_wrong_b_right"],
                      fmt(mc["p_exact"], 4)])
    t.csv("paired.csv", ["a", "b", "metric", "frames", "a_value", "b_value", "difference", "lo", "hi",
                         "undefined_resamples"], rows)
    t.csv("mcnemar.csv", ["a", "b", "acceptability_scored_frames", "a_right_b_wrong", "a_wrong_b_right",
                          "p_exact"], mc_rows)
    t.md.append("\n## Paired differences (a - b)\n")
    if md_rows:
        t.md.append(md_table(["a", "b", "metric", "difference", "95% CI"], md_rows))
    if md_mc:
        t.md.append("\nExact McNemar test on acceptability (frames one run judges as the scorer does and the other "
                    "does not):\n\n")
        t.md.append(md_table(["a", "b", "frames", "a right, b wrong", "a wrong, b right", "p (exact)"], md_mc))
    if not t.pairs:
        t.md.append("One run: nothing to pair.\n")


def _cost_rows(label: str, s: dict) -> tuple[list, list]:
    """A run's cost.csv row and its row of the Cost table."""
    u = s["usage"]
    c = s.get("cost") or {}
    price = c.get("price") or {}
    total = c.get("total")
    row = [label, s["model"], s["provider"], u["answered"], u["input_tokens"], u["output_tokens"],
           u["thinking_tokens"], u["thinking_reported_items"], u["mean_thinking_tokens"], price.get("input"),
           price.get("output"), c.get("currency"), price.get("source"), price.get("date"), total,
           "baseline: a reference line" if s["kind"] == "baseline" else no_cost_reason(s)]
    md_row = [label, u["input_tokens"], u["output_tokens"],
              "not reported" if u["thinking_tokens"] is None else u["thinking_tokens"],
              "n/a" if not price else f"{price['input']:g} / {price['output']:g} ({price['date']})",
              money(total, c.get("currency"))]
    return row, md_row


def _cost_section(t: _Tables) -> None:
    both = [_cost_rows(label, s) for label, s in zip(t.labels, t.summaries)]
    t.csv("cost.csv", _COST_HEAD, [row for row, _ in both])
    t.md.append("\n## Cost of the whole set\n")
    t.md.append(md_table(["model", "input tokens", "output tokens (incl. thinking)", "thinking tokens",
                          "price in / out per Mtok (date)", "cost"], [md_row for _, md_row in both]))
    if t.prices is None:
        t.md.append("\nNo price file given (--prices): costs are n/a.\n")
    else:
        t.md.append(f"\nPrices from `{t.prices.path}` (check them: list prices change). Thinking tokens are billed at "
                    "the output rate and counted once. Failed requests add nothing.\n")
    t.md.append(_cost_plot_note(t.plotted))
    t.md.append(CF.note(t.analyses["cost_figure"]))


def _correlations_section(t: _Tables) -> None:
    corr = t.corr
    t.csv("correlations.csv", ["x", "y", "runs", "rho", "p_permutation"],
          [[c["x"], c["y"], c["runs"], c["rho"], c["p_permutation"]] for c in corr])
    if corr:
        t.md.append("\n## Spearman correlations across runs\n")
        t.md.append(md_table(["x", "y", "runs", "rho", "p (permutation)"],
                             [[c["x"], c["y"], c["runs"], fmt(c["rho"]), fmt(c["p_permutation"], 4)] for c in corr]))
    baselines = [label for label, s in zip(t.labels, t.summaries) if s["kind"] == "baseline"]
    if baselines and len(t.labels) >= 3:
        t.md.append(f"\nBaselines ({', '.join(f'`{b}`' for b in baselines)}) are kept out of the rank correlations: "
                    "their cost of 0 is no price, and their scores are no model's. A run without a cost is out of "
                    "the correlations with cost.\n")


def _grammar_section(t: _Tables) -> None:
    rows, md_rows = [], []
    for label, s in zip(t.labels, t.summaries):
        g = s["grammar"]
        for problem, count in g["problems"].items():
            rows.append([label, problem, count])
        lenient = g["lenient_diagnostics"] or {}
        others = [(p, c) for p, c in g["problems"].items() if p != CUT_PROBLEM]
        top = ", ".join(f"{p} ({c})" for p, c in others[:3]) or "none"
        cut = "n/a" if s["kind"] == "baseline" else g["cut_by_output_cap"]
        md_rows.append([label, fmt(g["in_grammar_share"]), cut, fmt(lenient.get("f1")),
                        fmt(lenient.get("documentation")), top])
    t.csv("grammar.csv", ["label", "problem", "count"], rows)
    t.md.append("\n## Grammar\n")
    t.md.append(md_table(["model", "in grammar", "cut by the output cap", "lenient F1 (diagnostic)",
                          "lenient documentation (diagnostic)", "most common other problems"], md_rows))
    t.md.append(_GRAMMAR_NOTE)


def _analysis_sections(t: _Tables) -> None:
    """The paper's analyses, each written by its own module."""
    a = t.analyses
    currency = next(((s.get("cost") or {}).get("currency") for s in t.summaries if s.get("cost")), None)
    for text, written in (E.write_section(t.out, a["ensembles"]),
                          TG.write_section(t.out, a["top_groups"]),
                          SK.write_section(t.out, a["skills"]),
                          MR.write_section(t.out, a["misreading"]),
                          V.write_section(t.out, a["variants"]),
                          LT.write_section(t.out, a["latency"]),
                          DF.write_section(t.out, a["difficulty"]),
                          RD.write_section(t.out, a["rejected_documentation"]),
                          TK.write_section(t.out, a["tokens"], currency)):
        t.md.append(text)
        t.files += written


def _ratings_csv_rows(r: dict) -> list:
    rows = [["all", r["frames"], r["ratings"], r["krippendorff_alpha_nominal"], r["raw_agreement"],
             r["scorer_vs_majority"]["agreement"], r["scorer_vs_majority"]["frames"], None]]
    held = r["scorer_vs_majority_held_out"]
    if held is not None:
        rows += [[f"held-out: {e}", g["frames"], None, None, None, g["agreement"], g["frames"], None]
                 for e, g in [*held["environments"].items(), ("all", held["all"])]]
    for rater, d in r["per_rater"].items():
        rows.append([rater, d["frames"], d["frames"], None, None, d["agreement_with_scorer"], d["scored_frames"],
                     d["f1"]])
    return rows


def _ratings_section(t: _Tables) -> None:
    r = t.rating_result
    if r is None:
        return
    t.csv("ratings.csv", _RATINGS_HEAD, _ratings_csv_rows(r))
    t.md.append("\n## Human ratings\n")
    t.md.append(f"{r['raters']} raters, {r['frames']} frames, {r['ratings']} ratings. Krippendorff's alpha "
                f"(nominal): {fmt(r['krippendorff_alpha_nominal'])}; raw agreement (rater pairs): "
                f"{fmt(r['raw_agreement'])}; the scorer agrees with the raters' majority on "
                f"{fmt(r['scorer_vs_majority']['agreement'])} of {r['scorer_vs_majority']['frames']} frames.\n\n")
    t.md.append(_held_out_text(r["scorer_vs_majority_held_out"]))
    t.md.append(md_table(["rater", "frames", "agreement with scorer", "precision", "recall", "F1 vs scorer"],
                         [[k, d["frames"], fmt(d["agreement_with_scorer"]), fmt(d["precision"]),
                           fmt(d["recall"]), fmt(d["f1"])] for k, d in r["per_rater"].items()]))


def _optional_sections(t: _Tables) -> None:
    """The human baseline and sim-to-real, where the report has them."""
    for key, writer in (("human_baseline", HB.write_section), ("sim_to_real", SR.write_section)):
        if t.analyses[key] is not None:
            text, written = writer(t.out, t.analyses[key])
            t.md.append(text)
            t.files += written


def _header(t: _Tables) -> None:
    t.md.append("# RealityBench evaluation report\n")
    t.md.append(f"Runs: {', '.join(f'`{l}`' for l in t.labels)}. Intervals: 95% percentile, stratified bootstrap "
                f"over items ({stats.RESAMPLES:,} resamples; strata: each environment's random frames and each "
                f"positive stratum), seed {t.seed}; paired differences on one shared resample "
                f"({stats.PAIRED_RESAMPLES:,}).\n")
    t.md += [f"{n}\n" for n in t.notes]
    t.md.append(_frames_section(t.analyses["frames_counted"]))


# report.md's sections in order; each writes its CSV files
_SECTIONS = (_header, _models_section, _environments_section, _fields_section, _paired_section, _cost_section,
             _correlations_section, _grammar_section, _analysis_sections, _ratings_section, _optional_sections)


def _write_tables(out: Path, labels, summaries, pairs, corr, plotted, rating_result, prices, seed,
                  notes, analyses, own_acceptable) -> list[str]:
    """`own_acceptable`: per run, the scorer-acceptable row over that run's own frames (environments.csv)."""
    t = _Tables(out, labels, summaries, pairs, corr, plotted, rating_result, prices, seed, notes, analyses,
                own_acceptable)
    for section in _SECTIONS:
        section(t)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(t.md))
    _write_text(out / "report.md", text)
    t.files.append("report.md")
    return t.files


def _write_text(path: Path, text: str) -> None:
    """A report file written whole (created new, renamed over the old one, no link followed)."""
    from ..setio import atomic_write

    atomic_write(path, text.encode("utf-8"))


def _read_text(path: Path) -> str:
    from ..core import safefs

    return safefs.read_path(path, "json").decode("utf-8")
