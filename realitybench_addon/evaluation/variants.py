"""Does asking for the verdict change what a model says it sees? (the paper's re-ask study)

The benchmark's prompt asks for the verdict first, so a model could reject a frame and then report a
defect to justify it. Re-asking the same frames with the verdict last, or with no verdict at all
(`eval run --variant`), tests that: if the defect claims stay, the misreadings are the model's.

A defect claim is the documentation answer that reports what the requirement rejects (misreading.py:
tape tilted; gauge not on the module; lag bolt or flashing missing). Runs are compared in pairs: the
same provider, model and settings (blind included), the earlier variant first (verdict-first,
verdict-last, no-verdict, verdict-only); two runs of one variant give the run-to-run noise ("rerun"). Per pair and
environment, over the frames both runs answer in grammar (an out-of-grammar reply says nothing about
what the model saw): the claims under each, the frames claimed under one only, and the exact McNemar
p (none where one asks the verdict alone); where both ask for a verdict, the same for rejections (the
paper's Table 4 "rejects first / alone" against a verdict-only run); and the documentation score of each
on the documentation-scored frames both hold (out of grammar scores 0).

`eval run --subset paper-ablation` draws the paper's 150 items for this study (subsets.py).

Runs of one model with different variants but other settings too cannot be compared: the settings
would confound the variant. That is refused with one line naming the runs and the setting.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Optional

from ..answers import stats
from ..answers.items import canonical_json
from ..core.prompt import DEFAULT_VARIANT, NO_VERDICT, VARIANTS, VERDICT_ONLY
from .errors import EvalError
from .misreading import DEFECTS, reports_defect

ALL = "all"


def other_variant(summary: dict) -> bool:
    """A model run asked with another prompt than the benchmark's: in the per-run tables and the comparison
    below, never in the analyses across models (one model would count twice, and a no-verdict run has no F1)."""
    return (summary.get("variant") or DEFAULT_VARIANT) != DEFAULT_VARIANT


def _model_key(s: dict) -> tuple:
    return s.get("provider"), s.get("model"), bool((s.get("settings") or {}).get("blind"))


def _settings_difference(a: dict, b: dict) -> str:
    sa, sb = a.get("settings") or {}, b.get("settings") or {}
    for key in sorted(set(sa) | set(sb)):
        if canonical_json(sa.get(key)) != canonical_json(sb.get(key)):
            return f"{key}: {canonical_json(sa.get(key))} against {canonical_json(sb.get(key))}"
    return "none"


def _same_settings(a: dict, b: dict) -> bool:
    return canonical_json(a.get("settings")) == canonical_json(b.get("settings"))


def pairs(labels: list[str], summaries: list[dict]) -> tuple[list[tuple[int, int]], list[str]]:
    """(index pairs to compare, notes): model runs of one model and settings, the earlier variant first."""
    groups = defaultdict(list)
    for i, s in enumerate(summaries):
        if s.get("kind") == "model":
            groups[_model_key(s)].append(i)
    found, notes = [], []
    for members in groups.values():
        for i in members:
            if summaries[i]["variant"] == DEFAULT_VARIANT:
                continue  # a benchmark run needs no partner
            partners = [j for j in members if j != i and _same_settings(summaries[i], summaries[j])]
            others = [j for j in members if summaries[j]["variant"] != summaries[i]["variant"]]
            if partners:
                continue
            if others:  # asked of the same model, but with other settings: the variant would be confounded
                j = others[0]
                raise EvalError(f"runs `{labels[i]}` ({summaries[i]['variant']}) and `{labels[j]}` "
                                f"({summaries[j]['variant']}) ask {summaries[i]['model']} with other settings as well "
                                f"as another prompt variant ({_settings_difference(summaries[i], summaries[j])}), so "
                                f"the variants cannot be compared; ask both with the same --profile and flags, or "
                                f"report them apart")
            notes.append(f"`{labels[i]}` ({summaries[i]['variant']}) has no run of the same model and settings with "
                         f"another variant to compare with.")
        for n, i in enumerate(members):
            for j in members[n + 1:]:
                if _same_settings(summaries[i], summaries[j]):
                    a, b = sorted((i, j), key=lambda k: (VARIANTS.index(summaries[k]["variant"]), k))
                    found.append((a, b))
    return sorted(found), notes


def _counts(pairs_of_flags: list[tuple[bool, bool]]) -> dict:
    a_only = sum(1 for x, y in pairs_of_flags if x and not y)
    b_only = sum(1 for x, y in pairs_of_flags if y and not x)
    return {"a": sum(x for x, _ in pairs_of_flags), "b": sum(y for _, y in pairs_of_flags), "a_only": a_only,
            "b_only": b_only, "p_exact": stats.mcnemar_exact(a_only, b_only) if pairs_of_flags else None}


def _mean(values: list[float]) -> Optional[float]:
    return sum(values) / len(values) if values else None


def compare(run_a, run_b) -> list[dict]:
    """One row per environment with defect claims (and `all` pooled) for one pair of runs."""
    rows_b = {r["frame_id"]: r for r in run_b.rows}
    both = [(r, rows_b[r["frame_id"]]) for r in run_a.rows
            if r["frame_id"] in rows_b and r["environment"] in DEFECTS]
    verdicts = NO_VERDICT not in (run_a.variant, run_b.variant)
    documents = VERDICT_ONLY not in (run_a.variant, run_b.variant)  # the verdict alone reports no defect
    out = []
    for env in [*(e for e in DEFECTS if any(ra["environment"] == e for ra, _ in both)), ALL]:
        held = [(ra, rb) for ra, rb in both if env in (ALL, ra["environment"])]
        answered = [(ra, rb) for ra, rb in held if ra.get("values") is not None and rb.get("values") is not None]
        claims = _counts([(reports_defect(ra["environment"], ra["values"]),
                           reports_defect(rb["environment"], rb["values"])) for ra, rb in answered])
        if not documents:
            claims = {k: None for k in claims}
        rejects = _counts([(not ra["model_accepts"], not rb["model_accepts"]) for ra, rb in answered]) \
            if verdicts else {}  # a prompt without a verdict has no rejections
        documented = [(ra, rb) for ra, rb in held
                      if ra["documentation"] is not None and rb["documentation"] is not None]
        out.append({"environment": env, "frames": len(held), "in_grammar_both": len(answered),
                    **{f"claims_{k}": v for k, v in claims.items()},
                    **{f"rejects_{k}": rejects.get(k) for k in claims},
                    "documentation_frames": len(documented),
                    "documentation_a": _mean([ra["documentation"] for ra, _ in documented]),
                    "documentation_b": _mean([rb["documentation"] for _, rb in documented])})
    return out


def variant_comparisons(labels: list[str], runs: list, summaries: list[dict]) -> dict:
    """{"pairs": one entry per compared pair with its rows, "notes": runs left without a partner}."""
    found, notes = pairs(labels, summaries)
    out = []
    for i, j in found:
        rows = compare(runs[i], runs[j])
        if rows[-1]["frames"]:
            out.append({"a": labels[i], "b": labels[j], "variant_a": runs[i].variant, "variant_b": runs[j].variant,
                        "comparison": "rerun" if runs[i].variant == runs[j].variant else "variant", "rows": rows})
    return {"pairs": out, "notes": notes}


HEAD = ["a", "b", "variant_a", "variant_b", "comparison", "environment", "frames", "in_grammar_both", "claims_a",
        "claims_b", "claims_a_only", "claims_b_only", "claims_p_exact", "rejects_a", "rejects_b", "rejects_a_only",
        "rejects_b_only", "rejects_p_exact", "documentation_frames", "documentation_a", "documentation_b"]


def _md_row(r: dict, fmt) -> list:
    variants = (f"{r['variant_a']} twice (rerun)" if r["comparison"] == "rerun"
                else f"{r['variant_a']} / {r['variant_b']}")
    rejects = ("n/a" if r["rejects_a"] is None
               else f"{r['rejects_a']} / {r['rejects_b']} ({fmt(r['rejects_p_exact'], 4)})")
    claims = r["claims_a"] is not None
    return [r["a"], r["b"], variants, r["environment"], r["in_grammar_both"],
            f"{r['claims_a']} / {r['claims_b']}" if claims else "n/a",
            f"{r['claims_a_only']} / {r['claims_b_only']}" if claims else "n/a", fmt(r["claims_p_exact"], 4), rejects,
            f"{fmt(r['documentation_a'])} / {fmt(r['documentation_b'])}"]


def write_section(out, result: dict) -> tuple[str, list[str]]:
    """(report.md text, files written): variants.csv and its table; nothing when no pair was compared."""
    from .tables import fmt, md_table, write_csv

    if not result["pairs"] and not result["notes"]:
        return "", []
    flat = [{**{k: p[k] for k in HEAD[:5]}, **row} for p in result["pairs"] for row in p["rows"]]
    md = ["\n## Prompt variants: defect claims with the verdict asked first, last, not at all or alone\n"]
    if flat:
        write_csv(out / "variants.csv", HEAD, [[r[h] for h in HEAD] for r in flat])
        md.append(md_table(["a", "b", "variants", "environment", "in grammar (both)", "claims a / b",
                            "a only / b only", "p (exact)", "rejects a / b (p)", "documentation a / b"],
                           [_md_row(r, fmt) for r in flat]))
        md.append("\nA defect claim: tape tilted, gauge not on the module, lag bolt or flashing missing. Counted on "
                  "the frames both runs answer in grammar; a only / b only: frames claimed under one prompt and not "
                  "the other, with the exact McNemar p. Rejects: the same for rejections, where both prompts ask for "
                  "a verdict. Documentation: each run's score on the documentation-scored frames both hold. A rerun "
                  "(one variant twice) shows the run-to-run noise.\n")
    md += [f"\n{n}\n" for n in result["notes"]]
    return "\n".join(md), ["variants.csv"] if flat else []
