"""`eval report`: the paper's tables from one or more runs of one set, in Markdown and CSV.

    REPORTDIR/report.md          every table below, with the definitions and the bootstrap seed
    REPORTDIR/models.csv         per run: false accept, miss, precision, recall, F1 (95% CI),
                                 documentation (95% CI), grammar share, replies cut by the output
                                 cap, cost, mean thinking tokens
    REPORTDIR/environments.csv   per run and environment: F1 (95% CI), false accept, documentation
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
    REPORTDIR/ratings.csv        with --ratings: alpha, raw agreement, scorer vs majority, per rater
    REPORTDIR/report.json        all of it, machine-readable
    REPORTDIR/*.png              with matplotlib (the `plots` extra): F1 and documentation against
                                 cost, the per-field heat map
"""
from __future__ import annotations

import csv
import io
import itertools
import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Optional


from . import metrics as M
from ..answers import stats
from .errors import EvalError
from .plots import COST_METRICS, cost_plot_runs, no_cost_reason
from .pricing import PriceTable
from .ratings import agreement
from .scoring import CUT_PROBLEM
from .summary import RunData, load_run, run_summary

PAIRED_METRICS = ("f1", "false_accept", "miss", "precision", "recall", "documentation", "grammar")


def _fmt(x, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    return f"{x:.{digits}f}"


def _ci(est: dict, digits: int = 3) -> str:
    if est.get("value") is None:
        return "n/a"
    if est.get("lo") is None:
        return _fmt(est["value"], digits)
    return f"{_fmt(est['value'], digits)} [{_fmt(est['lo'], digits)}, {_fmt(est['hi'], digits)}]"


def _money(value, currency) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.2f} {currency}" if value >= 10 else f"{value:.4f} {currency}"


def _md_table(header: list[str], rows: list[list]) -> str:
    def cell(v):
        return str(v).replace("|", "\\|")
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _csv(path: Path, header: list[str], rows: list[list]) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(["" if v is None or (isinstance(v, float) and not math.isfinite(v)) else v for v in r])
    path.write_text(buf.getvalue(), encoding="utf-8")


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
    models = [(label, s) for label, s in zip(labels, summaries) if s.get("kind") != "baseline"]
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


def cost_plots(labels: list[str], summaries: list[dict]) -> dict:
    """Per cost plot: the runs it shows, the baselines drawn as reference lines, and each run left out with why."""
    out = {}
    for metric, _ in COST_METRICS:
        runs = cost_plot_runs(labels, summaries, metric)
        out[metric] = {"plotted": [p[0] for p in runs["points"]],
                       "reference_lines": [label for label, _ in runs["reference_lines"]],
                       "left_out": runs["left_out"]}
    return out


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
    return ("\n" + "\n\n".join(lines) + "\n") if lines else ""


def build_report(run_dirs: list, out_dir, *, prices: Optional[PriceTable] = None, ratings=None,
                 seed: int = stats.DEFAULT_SEED, plots: bool = True) -> dict:
    """The report's tables, figures and report.md in `out_dir`. `ratings`: a function from the runs'
    items to human (frame id, rater, 'accept' | 'reject') triples, for the human-baseline section."""
    if not run_dirs:
        raise EvalError("eval report needs at least one run folder")
    runs = [load_run(d) for d in run_dirs]
    labels = _unique_labels(runs)
    summaries = [run_summary(r, seed=seed, prices=prices) for r in runs]
    for s, label in zip(summaries, labels):
        s["label"] = label
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise EvalError(f"--out {out} is a file, not a folder")
    out.mkdir(parents=True, exist_ok=True)
    notes = []
    sets = {tuple(sorted(r.table.frame_ids)) for r in runs}
    if len(sets) > 1:
        notes.append("The runs do not hold the same frames: each run's numbers are over its own frames; paired "
                     "differences are over the frames both runs hold.")
    cache: dict = {}
    pairs = []
    for (i, a), (j, b) in itertools.combinations(enumerate(runs), 2):
        pairs.append({"a": labels[i], "b": labels[j], **paired(a, b, seed, stats.PAIRED_RESAMPLES, cache)})
    corr = correlations(labels, summaries)
    plotted = cost_plots(labels, summaries)
    rating_result = None
    if ratings is not None:
        rating_result = agreement(ratings(runs[0].items), runs[0].items)
    files = _write_tables(out, labels, summaries, pairs, corr, plotted, rating_result, prices, seed, notes)
    plot_info = {"written": [], "skipped": None}
    if plots:
        from .plots import write_plots

        plot_info = write_plots(out, labels, summaries)
        files += plot_info["written"]
        if plot_info["skipped"]:
            with open(out / "report.md", "a", encoding="utf-8") as fh:
                fh.write(f"\nPlots: {plot_info['skipped']}\n")
    data = {"runs": summaries, "paired": pairs, "correlations": corr, "cost_plots": plotted,
            "ratings": rating_result, "seed": seed, "notes": notes, "plots": plot_info}
    from ..setio import atomic_write, jsonable

    atomic_write(out / "report.json", (json.dumps(jsonable(data), indent=2, ensure_ascii=False) + "\n").encode())
    files.append("report.json")
    return {"out": str(out), "files": sorted(files), "plots": plot_info, "cost_plots": plotted,
            "runs": [{"label": s["label"], "items": s["items"], "failed": s["failed"], "missing": s["missing"],
                      "f1": s["metrics"]["f1"], "documentation": s["metrics"]["documentation"],
                      "false_accept": s["metrics"]["false_accept"], "cost": _cost(s)} for s in summaries]}


def _write_tables(out: Path, labels, summaries, pairs, corr, plotted, rating_result, prices, seed,
                  notes) -> list[str]:
    files = []
    md = ["# RealityBench evaluation report\n"]
    md.append(f"Runs: {', '.join(f'`{l}`' for l in labels)}. Intervals: 95% percentile, stratified bootstrap over "
              f"items ({stats.RESAMPLES:,} resamples; strata: each environment's random frames and each positive "
              f"stratum), seed {seed}; paired differences on one shared resample ({stats.PAIRED_RESAMPLES:,}).\n")
    md += [f"{n}\n" for n in notes]

    # 1. models
    head = ["label", "kind", "provider", "model", "blind", "items", "answered", "failed", "missing"]
    for name in ("false_accept", "miss", "precision", "recall", "f1", "documentation"):
        head += [name, f"{name}_lo", f"{name}_hi"]
    head += ["grammar_share", "cut_by_output_cap", "cost", "currency", "mean_thinking_tokens"]
    rows, md_rows = [], []
    for label, s in zip(labels, summaries):
        m = s["metrics"]
        row = [label, s["kind"], s["provider"], s["model"], bool((s.get("settings") or {}).get("blind")), s["items"],
               s["answered"], s["failed"], s["missing"]]
        for name in ("false_accept", "miss", "precision", "recall", "f1", "documentation"):
            row += [m[name]["value"], m[name].get("lo"), m[name].get("hi")]
        currency = (s.get("cost") or {}).get("currency")
        row += [m["grammar"]["value"], s["grammar"]["cut_by_output_cap"] if s["kind"] != "baseline" else None,
                _cost(s), currency, s["usage"]["mean_thinking_tokens"]]
        rows.append(row)
        md_rows.append([label, f"{s['items']} ({s['failed'] + s['missing']})", _fmt(m["false_accept"]["value"]),
                        _fmt(m["miss"]["value"]), _fmt(m["precision"]["value"]), _fmt(m["recall"]["value"]),
                        _ci(m["f1"]), _ci(m["documentation"]), _fmt(m["grammar"]["value"]),
                        _money(_cost(s), currency),
                        _fmt(s["usage"]["mean_thinking_tokens"], 0)])
    _csv(out / "models.csv", head, rows)
    files.append("models.csv")
    md.append("## Models\n")
    md.append(_md_table(["model", "items (failed)", "false accept", "miss", "precision", "recall", "F1 [95% CI]",
                         "documentation [95% CI]", "in grammar", "cost", "thinking tokens (mean)"], md_rows))
    md.append("\nPrecision over random frames; recall over random + positive strata; false accept over random frames "
              "the scorer rejects; miss over scorer-accepted frames. Gray and unscored frames are left out of "
              "acceptability. Failed requests stay in the denominators (not accepting, wrong on every field). "
              "Out-of-grammar replies count as not accepting and wrong on every field.\n")

    # 2. environments
    envs = sorted({e for s in summaries for e in s["environments"]})
    rows, md_rows = [], []
    for env in envs:
        md_row = [env]
        for label, s in zip(labels, summaries):
            e = s["environments"].get(env)
            if e is None:
                md_row.append("n/a")
                continue
            rows.append([label, env, e["counts"]["acceptability_scored"], e["f1"]["value"], e["f1"].get("lo"),
                         e["f1"].get("hi"), e["false_accept"]["value"], e["false_accept"].get("lo"),
                         e["false_accept"].get("hi"), e["documentation"]["value"], e["documentation"].get("lo"),
                         e["documentation"].get("hi")])
            md_row.append(f"{_ci(e['f1'], 2)} / {_fmt(e['false_accept']['value'], 2)}")
        md_rows.append(md_row)
    _csv(out / "environments.csv", ["label", "environment", "acceptability_scored", "f1", "f1_lo", "f1_hi",
                                    "false_accept", "false_accept_lo", "false_accept_hi", "documentation",
                                    "documentation_lo", "documentation_hi"], rows)
    files.append("environments.csv")
    md.append("\n## Per environment: F1 [95% CI] / false accept\n")
    md.append(_md_table(["environment", *labels], md_rows))

    # 3. fields
    cols = sorted({f for s in summaries for f in s["metrics"]["fields"]})
    rows, md_rows = [], []
    for col in cols:
        md_row = [col]
        frames = None
        for label, s in zip(labels, summaries):
            f = s["metrics"]["fields"].get(col)
            if f is None:
                md_row.append("n/a")
                continue
            env, key = col.split(".", 1)
            frames = f["frames"]
            rows.append([label, env, key, f["frames"], f["value"], f.get("lo"), f.get("hi")])
            md_row.append(_ci(f, 2))
        md_rows.append([md_row[0], frames if frames is not None else "", *md_row[1:]])
    _csv(out / "fields.csv", ["label", "environment", "field", "frames", "score", "lo", "hi"], rows)
    files.append("fields.csv")
    md.append("\n## Documentation per field [95% CI]\n")
    if md_rows:
        md.append(_md_table(["field", "frames", *labels], md_rows))
        md.append("\nFields are scored on documentation-scored frames (the scorer's terms all pass); `tape_gap.tilted` "
                  "on every tape_gap frame. Tolerances: tape reading 1/8 in, gap 1/4 in, gauge 0.2 degrees; text "
                  "upper-cased, letters and digits only; breaker rows matched one to one in any order.\n")
    else:
        md.append("No run answers documentation questions.\n")

    # 4. paired
    rows, md_rows, mc_rows, md_mc = [], [], [], []
    for p in pairs:
        for name, d in p["metrics"].items():
            rows.append([p["a"], p["b"], name, p["frames"], d["a"], d["b"], d["difference"], d["lo"], d["hi"],
                         d["undefined_resamples"]])
            md_rows.append([p["a"], p["b"], name, _fmt(d["difference"]), f"[{_fmt(d['lo'])}, {_fmt(d['hi'])}]"])
        mc = p["mcnemar"]
        mc_rows.append([p["a"], p["b"], mc["frames"], mc["a_right_b_wrong"], mc["a_wrong_b_right"], mc["p_exact"]])
        md_mc.append([p["a"], p["b"], mc["frames"], mc["a_right_b_wrong"], mc["a_wrong_b_right"],
                      _fmt(mc["p_exact"], 4)])
    _csv(out / "paired.csv", ["a", "b", "metric", "frames", "a_value", "b_value", "difference", "lo", "hi",
                              "undefined_resamples"], rows)
    _csv(out / "mcnemar.csv", ["a", "b", "acceptability_scored_frames", "a_right_b_wrong", "a_wrong_b_right",
                               "p_exact"], mc_rows)
    files += ["paired.csv", "mcnemar.csv"]
    md.append("\n## Paired differences (a - b)\n")
    if md_rows:
        md.append(_md_table(["a", "b", "metric", "difference", "95% CI"], md_rows))
    if md_mc:
        md.append("\nExact McNemar test on acceptability (frames one run judges as the scorer does and the other "
                  "does not):\n\n")
        md.append(_md_table(["a", "b", "frames", "a right, b wrong", "a wrong, b right", "p (exact)"], md_mc))
    if not pairs:
        md.append("One run: nothing to pair.\n")

    # 5. cost
    rows, md_rows = [], []
    for label, s in zip(labels, summaries):
        u = s["usage"]
        c = s.get("cost") or {}
        price = c.get("price") or {}
        answered = u["answered"]
        total = c.get("total")
        rows.append([label, s["model"], s["provider"], answered, u["input_tokens"], u["output_tokens"],
                     u["thinking_tokens"], u["thinking_reported_items"], u["mean_thinking_tokens"], price.get("input"),
                     price.get("output"), c.get("currency"), price.get("source"), price.get("date"), total,
                     "baseline: a reference line" if s["kind"] == "baseline" else no_cost_reason(s)])
        md_rows.append([label, u["input_tokens"], u["output_tokens"],
                        "not reported" if u["thinking_tokens"] is None else u["thinking_tokens"],
                        "n/a" if not price else f"{price['input']:g} / {price['output']:g} ({price['date']})",
                        _money(total, c.get("currency"))])
    _csv(out / "cost.csv", ["label", "model", "provider", "answered", "input_tokens", "output_tokens",
                            "thinking_tokens", "thinking_reported_items", "mean_thinking_tokens",
                            "price_input_per_mtok", "price_output_per_mtok", "currency", "price_source",
                            "price_date", "cost", "not_in_cost_plots"], rows)
    files.append("cost.csv")
    md.append("\n## Cost of the whole set\n")
    md.append(_md_table(["model", "input tokens", "output tokens (incl. thinking)", "thinking tokens",
                         "price in / out per Mtok (date)", "cost"], md_rows))
    if prices is None:
        md.append("\nNo price file given (--prices): costs are n/a.\n")
    else:
        md.append(f"\nPrices from `{prices.path}` (check them: list prices change). Thinking tokens are billed at the "
                  "output rate and counted once. Failed requests add nothing.\n")
    md.append(_cost_plot_note(plotted))

    # 6. correlations
    _csv(out / "correlations.csv", ["x", "y", "runs", "rho", "p_permutation"],
         [[c["x"], c["y"], c["runs"], c["rho"], c["p_permutation"]] for c in corr])
    files.append("correlations.csv")
    if corr:
        md.append("\n## Spearman correlations across runs\n")
        md.append(_md_table(["x", "y", "runs", "rho", "p (permutation)"],
                            [[c["x"], c["y"], c["runs"], _fmt(c["rho"]), _fmt(c["p_permutation"], 4)] for c in corr]))
    baselines = [label for label, s in zip(labels, summaries) if s["kind"] == "baseline"]
    if baselines and len(labels) >= 3:
        md.append(f"\nBaselines ({', '.join(f'`{b}`' for b in baselines)}) are kept out of the rank correlations: "
                  "their cost of 0 is no price, and their scores are no model's. A run without a cost is out of the "
                  "correlations with cost.\n")

    # 7. grammar
    rows, md_rows = [], []
    for label, s in zip(labels, summaries):
        g = s["grammar"]
        for problem, count in g["problems"].items():
            rows.append([label, problem, count])
        lenient = g["lenient_diagnostics"] or {}
        others = [(p, c) for p, c in g["problems"].items() if p != CUT_PROBLEM]
        top = ", ".join(f"{p} ({c})" for p, c in others[:3]) or "none"
        cut = "n/a" if s["kind"] == "baseline" else g["cut_by_output_cap"]
        md_rows.append([label, _fmt(g["in_grammar_share"]), cut, _fmt(lenient.get("f1")),
                        _fmt(lenient.get("documentation")), top])
    _csv(out / "grammar.csv", ["label", "problem", "count"], rows)
    files.append("grammar.csv")
    md.append("\n## Grammar\n")
    md.append(_md_table(["model", "in grammar", "cut by the output cap", "lenient F1 (diagnostic)",
                         "lenient documentation (diagnostic)", "most common other problems"], md_rows))
    md.append("\nCut by the output cap: replies the provider stopped at --max-tokens (finish reason `length`, "
              "`max_tokens` or `MAX_TOKENS`), thinking included; they score as out of grammar, but a larger cap "
              "(`--profile paper`) may fix them. The lenient columns parse out-of-grammar replies generously "
              "(code fences, prose, strings for numbers); they are diagnostics, never scores.\n")

    # 8. ratings
    if rating_result is not None:
        r = rating_result
        rows = [["all", r["frames"], r["ratings"], r["krippendorff_alpha_nominal"], r["raw_agreement"],
                 r["scorer_vs_majority"]["agreement"], r["scorer_vs_majority"]["frames"], None]]
        for rater, d in r["per_rater"].items():
            rows.append([rater, d["frames"], d["frames"], None, None, d["agreement_with_scorer"], d["scored_frames"],
                         d["f1"]])
        _csv(out / "ratings.csv", ["rater", "frames", "ratings", "krippendorff_alpha_nominal", "raw_agreement",
                                   "agreement_with_scorer", "scored_frames", "f1_vs_scorer"], rows)
        files.append("ratings.csv")
        md.append("\n## Human ratings\n")
        md.append(f"{r['raters']} raters, {r['frames']} frames, {r['ratings']} ratings. Krippendorff's alpha "
                  f"(nominal): {_fmt(r['krippendorff_alpha_nominal'])}; raw agreement (rater pairs): "
                  f"{_fmt(r['raw_agreement'])}; the scorer agrees with the raters' majority on "
                  f"{_fmt(r['scorer_vs_majority']['agreement'])} of {r['scorer_vs_majority']['frames']} frames.\n\n")
        md.append(_md_table(["rater", "frames", "agreement with scorer", "precision", "recall", "F1 vs scorer"],
                            [[k, d["frames"], _fmt(d["agreement_with_scorer"]), _fmt(d["precision"]),
                              _fmt(d["recall"]), _fmt(d["f1"])] for k, d in r["per_rater"].items()]))
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(md))
    (out / "report.md").write_text(text, encoding="utf-8")
    files.append("report.md")
    return files
