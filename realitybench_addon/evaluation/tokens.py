"""Tokens per item and where a run's cost goes (the paper's Table 11).

Per model run, means over the answered items whose usage gives input and output counts:
  prompt    input tokens (image included)
  visible   the reply's own tokens
  thinking  the rest of the billed output
Thinking is never guessed. It is known where the reply reports it (OpenAI's reasoning_tokens,
Gemini's thoughtsTokenCount: visible = output - thinking), where the reply shows there was none
(Anthropic without thinking blocks, Gemini without thoughtsTokenCount: visible = output), and where
the reply was counted with the model's own tokenizer installed offline (tokenizer.py: thinking =
output - that count). Otherwise (Anthropic with thinking blocks, an OpenAI-compatible server
without reasoning_tokens and no tokenizer) it is unknown: the item counts for the prompt mean only,
and visible and thinking are means over the items where they are known ("–" when none is). The
`method` column says which, per run, from each reply line's `thinking_from` (providers.py).

Prompt share: the part of the set's cost that is input tokens, at the run's prices. Ranks (1 =
cheapest) by output price and by the set's cost, among the priced runs; ties share the lower rank.
"""
from __future__ import annotations

from collections import Counter
from typing import Optional

REPORTED = "reported"
UNKNOWN = "unknown"
DASH = "–"
BILLED = ("requests", "retries", "timeouts", "may_be_billed_unpriced", "images_re_encoded")  # pricing.billed_totals


def item_tokens(row: dict, source: Optional[str] = None) -> Optional[dict]:
    """(prompt, visible, thinking, how thinking is known) of one answered item, or None without usable counts;
    visible and thinking None where thinking is unknown. `source`: the reply line's `thinking_from`."""
    u = row.get("usage") or {}
    prompt, output, thinking = u.get("input_tokens"), u.get("output_tokens"), u.get("thinking_tokens")
    if prompt is None or output is None:
        return None
    if thinking is None:
        return {"prompt": prompt, "visible": None, "thinking": None, "source": UNKNOWN}
    return {"prompt": prompt, "visible": max(0, output - thinking), "thinking": thinking,
            "source": source or REPORTED}


def _ranks(values: dict[str, float]) -> dict[str, int]:
    """label -> 1 + the number of labels strictly below it (ties share the lower rank)."""
    return {label: 1 + sum(1 for w in values.values() if w < v) for label, v in values.items()}


def _method(sources: list[str]) -> Optional[str]:
    """How thinking is known over a run's items: one way, or each way with its count."""
    if not sources:
        return None
    counts = Counter(sources)
    if len(counts) == 1:
        return sources[0]
    return "; ".join(f"{k}: {v} of {len(sources)} items" for k, v in sorted(counts.items()))


def _mean(values: list) -> Optional[float]:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def _sources(run) -> dict:
    """request hash -> the stored reply line's `thinking_from` (a run folder written before it: none)."""
    path = getattr(run, "path", None)
    if path is None:
        return {}
    from .runs import RunStore

    store = RunStore(path)
    if not store.path("replies.jsonl").exists():
        return {}
    return {h: r.get("thinking_from") for h, r in store.read_replies().items() if isinstance(r, dict)}


def tokens(labels: list[str], runs: list, summaries: list[dict]) -> list[dict]:
    out = []
    for label, run, s in zip(labels, runs, summaries):
        if s.get("kind") != "model":
            continue
        seen, per_item = set(), []
        sources = _sources(run)
        for row in run.rows:  # each request once, should two items share one
            if row.get("request_hash") in seen:
                continue
            seen.add(row.get("request_hash"))
            t = item_tokens(row, sources.get(row.get("request_hash"))) if row.get("status") == "ok" else None
            if t is not None:
                per_item.append(t)
        n = len(per_item)
        price = (s.get("cost") or {}).get("price")
        usage = s["usage"]
        prompt_cost = output_cost = None
        if price:
            prompt_cost = usage["input_tokens"] * price["input"]
            output_cost = usage["output_tokens"] * price["output"]
        total = (prompt_cost or 0) + (output_cost or 0)
        out.append({"label": label, "items": n,
                    **{k: _mean([t[k] for t in per_item]) for k in ("prompt", "visible", "thinking")},
                    "thinking_known": sum(1 for t in per_item if t["thinking"] is not None),
                    "method": _method([t["source"] for t in per_item]),
                    "price_input": (price or {}).get("input"), "price_output": (price or {}).get("output"),
                    "prompt_share": prompt_cost / total if price and total > 0 else None,
                    "cost": (s.get("cost") or {}).get("total") if price else None,
                    **{k: (usage.get("billed") or {}).get(k) for k in BILLED}})
    priced = [r for r in out if r["cost"] is not None]
    by_price, by_cost = _ranks({r["label"]: r["price_output"] for r in priced}), _ranks({r["label"]: r["cost"]
                                                                                          for r in priced})
    for r in out:
        r["rank_by_price"], r["rank_by_cost"] = by_price.get(r["label"]), by_cost.get(r["label"])
    return out


def _dash(x) -> str:
    from .tables import fmt

    return DASH if x is None else fmt(x, 0)


def write_section(out, rows: list[dict], currency) -> tuple[str, list[str]]:
    """(report.md text, files written): tokens.csv and the table."""
    from .tables import fmt, md_table, money, pct, write_csv

    head = ["label", "items", "prompt", "visible", "thinking", "thinking_known", "method", "price_input", "price_output",
            "prompt_share", "cost", "rank_by_price", "rank_by_cost", *BILLED]
    write_csv(out / "tokens.csv", head, [[r[h] for h in head] for r in rows])
    md = ["\n## Tokens per item\n"]
    if not rows:
        md.append("No model run.\n")
        return "\n".join(md), ["tokens.csv"]
    ordered = sorted(rows, key=lambda r: (r["price_output"] is None, r["price_output"] or 0))
    md.append(md_table(["model", "prompt", "visible", "thinking", "thinking from", "prompt share", "set",
                        "rank by price", "rank by set"],
                       [[r["label"], fmt(r["prompt"], 0), _dash(r["visible"]), _dash(r["thinking"]),
                         r["method"] or "n/a", pct(r["prompt_share"]), money(r["cost"], currency),
                         r["rank_by_price"] or "n/a", r["rank_by_cost"] or "n/a"] for r in ordered]))
    md.append(f"\nMeans per answered item. Thinking is never estimated: `{REPORTED}` where the reply reports it "
              "(visible = output - thinking), `no thinking in the reply` where the reply shows none (visible = "
              "output), `output - reply counted with <encoding>` where the model's own tokenizer was installed "
              f"offline; otherwise `{UNKNOWN}`, and visible and thinking are means over the items where thinking is "
              f"known (`{DASH}` where none is). Prompt share: the part of the set's cost that is input tokens. Ranks "
              "among priced runs, 1 = cheapest output price / cheapest set.\n")
    md.append("\n### Requests sent\n")
    md.append(md_table(["model", "requests", "retries", "timed out", "may be billed, unpriced", "images re-encoded"],
                       [[r["label"], *(DASH if r[k] is None else r[k] for k in BILLED)] for r in rows]))
    md.append("\nEvery request of the run's items, reruns included: retries = attempts - requests; timed out: attempts "
              "the server took and did not answer within --timeout; may be billed, unpriced: those and attempts whose "
              "connection broke after sending (the provider may have charged for them and reported nothing, so the "
              "cost leaves them out); images re-encoded: sent resized or recompressed to fit the provider's limits "
              "(replies.jsonl `image_sent`). The cost sums the usage of every attempt that reported one.\n")
    return "\n".join(md), ["tokens.csv"]
