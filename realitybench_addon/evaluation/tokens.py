"""Tokens per item and where a run's cost goes (the paper's Table 11).

Per model run, means over the answered items whose usage gives input and output counts:
  prompt    input tokens (image included)
  visible   the reply's own tokens
  thinking  the rest of the billed output
Where a reply reports its thinking tokens (OpenAI's reasoning_tokens, Gemini's thoughtsTokenCount),
visible = output - thinking. Where it reports one output count only (Anthropic; an OpenAI-compatible
server without reasoning_tokens), the visible tokens are estimated as the reply's characters / 4
(rounded; the usual rule of thumb for English and JSON, not the provider's tokenizer), and thinking
as output - that estimate (at least 0). The method column says which, per run.

Prompt share: the part of the set's cost that is input tokens, at the run's prices. Ranks (1 =
cheapest) by output price and by the set's cost, among the priced runs; ties share the lower rank.
"""
from __future__ import annotations

from typing import Optional

CHARS_PER_TOKEN = 4
REPORTED = "reported"
ESTIMATED = f"estimated: output - reply characters / {CHARS_PER_TOKEN}"


def visible_estimate(chars: int) -> int:
    return round(chars / CHARS_PER_TOKEN)


def item_tokens(row: dict) -> Optional[dict]:
    """(prompt, visible, thinking, estimated?) of one answered item, or None without usable counts."""
    u = row.get("usage") or {}
    prompt, output, thinking = u.get("input_tokens"), u.get("output_tokens"), u.get("thinking_tokens")
    if prompt is None or output is None:
        return None
    if thinking is not None:
        return {"prompt": prompt, "visible": max(0, output - thinking), "thinking": thinking, "estimated": False}
    visible = visible_estimate(row.get("reply_chars") or 0)
    return {"prompt": prompt, "visible": visible, "thinking": max(0, output - visible), "estimated": True}


def _ranks(values: dict[str, float]) -> dict[str, int]:
    """label -> 1 + the number of labels strictly below it (ties share the lower rank)."""
    return {label: 1 + sum(1 for w in values.values() if w < v) for label, v in values.items()}


def _method(estimated: int, n: int) -> Optional[str]:
    if not n:
        return None
    if not estimated:
        return REPORTED
    return ESTIMATED if estimated == n else f"mixed: {estimated} of {n} items {ESTIMATED}"


def tokens(labels: list[str], runs: list, summaries: list[dict]) -> list[dict]:
    out = []
    for label, run, s in zip(labels, runs, summaries):
        if s.get("kind") != "model":
            continue
        seen, per_item = set(), []
        for row in run.rows:  # each request once, should two items share one
            if row.get("request_hash") in seen:
                continue
            seen.add(row.get("request_hash"))
            t = item_tokens(row) if row.get("status") == "ok" else None
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
                    **{k: (sum(t[k] for t in per_item) / n if n else None) for k in ("prompt", "visible", "thinking")},
                    "method": _method(sum(t["estimated"] for t in per_item), n),
                    "price_input": (price or {}).get("input"), "price_output": (price or {}).get("output"),
                    "prompt_share": prompt_cost / total if price and total > 0 else None,
                    "cost": (s.get("cost") or {}).get("total") if price else None})
    priced = [r for r in out if r["cost"] is not None]
    by_price, by_cost = _ranks({r["label"]: r["price_output"] for r in priced}), _ranks({r["label"]: r["cost"]
                                                                                          for r in priced})
    for r in out:
        r["rank_by_price"], r["rank_by_cost"] = by_price.get(r["label"]), by_cost.get(r["label"])
    return out


def write_section(out, rows: list[dict], currency) -> tuple[str, list[str]]:
    """(report.md text, files written): tokens.csv and the table."""
    from .tables import fmt, md_table, money, pct, write_csv

    head = ["label", "items", "prompt", "visible", "thinking", "method", "price_input", "price_output",
            "prompt_share", "cost", "rank_by_price", "rank_by_cost"]
    write_csv(out / "tokens.csv", head, [[r[h] for h in head] for r in rows])
    md = ["\n## Tokens per item\n"]
    if not rows:
        md.append("No model run.\n")
        return "\n".join(md), ["tokens.csv"]
    ordered = sorted(rows, key=lambda r: (r["price_output"] is None, r["price_output"] or 0))
    md.append(md_table(["model", "prompt", "visible", "thinking", "thinking from", "prompt share", "set",
                        "rank by price", "rank by set"],
                       [[r["label"], fmt(r["prompt"], 0), fmt(r["visible"], 0), fmt(r["thinking"], 0),
                         r["method"] or "n/a", pct(r["prompt_share"]), money(r["cost"], currency),
                         r["rank_by_price"] or "n/a", r["rank_by_cost"] or "n/a"] for r in ordered]))
    md.append(f"\nMeans per answered item. Visible and thinking tokens: `{REPORTED}` where the reply reports its "
              f"thinking (visible = output - thinking); `{ESTIMATED}` where it reports one output count (visible "
              f"tokens estimated as the reply's characters / {CHARS_PER_TOKEN}, rounded; thinking = output - that, at "
              "least 0). Prompt share: the part of the set's cost that is input tokens. Ranks among priced runs, 1 = "
              "cheapest output price / cheapest set.\n")
    return "\n".join(md), ["tokens.csv"]
