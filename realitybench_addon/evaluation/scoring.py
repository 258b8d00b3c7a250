"""One item's reply -> its scores; a run folder -> every item's scores (`eval rescore`).

An item's reply is `ok` (the provider answered), `failed` (it never did: retries exhausted, a
non-retryable error) or `missing` (not asked yet: an interrupted run). Failed and missing items
stay in every denominator: they do not accept and are wrong on every field, exactly like an
out-of-grammar reply. Baseline runs answer acceptability only (documentation: not applicable).

A reply the provider cut at the output cap (finish reason `length`, `max_tokens`, `MAX_TOKENS`)
is marked `cut_by_output_cap`; when it is out of grammar its first problem is CUT_PROBLEM, so the
report counts it apart from replies the model got wrong on its own.
"""
from __future__ import annotations

from typing import Optional

from ..answers import fields as F
from .grammar import parse_reply
from ..answers.items import Item
from .providers import cut_by_output_cap

CUT_PROBLEM = "cut by the output cap (--max-tokens)"


def field_eligible(item: Item, key: str) -> bool:
    return item.documentation_scored or F.all_frames(item.environment, key)


def _field_scores(item: Item, values: dict) -> dict:
    return {key: (F.score_field(item.environment, key, json_type, item.ground_truth.get(key), values.get(key))
                  if field_eligible(item, key) else None)
            for key, json_type in item.keys}


def _frame_documentation(item: Item, scores: dict) -> Optional[float]:
    """The frame's mean field score, on documentation-scored frames (spec: "mean over scorer-accepted
    frames of each frame's mean field score"); None elsewhere."""
    if not item.documentation_scored or not item.keys:
        return None
    return sum(scores[k] for k, _ in item.keys) / len(item.keys)


def score_item(item: Item, reply: Optional[dict], *, baseline: Optional[str] = None,
               provider: Optional[str] = None) -> dict:
    row = {"frame_id": item.frame_id, "environment": item.environment, "stratum": item.stratum,
           "verdict": item.verdict, "acceptability_scored": item.acceptability_scored,
           "documentation_scored": item.documentation_scored}
    if baseline is not None:
        accepts = baseline == "always-accept"
        row.update(status="ok", in_grammar=None, problems=[], model_accepts=accepts, fields=None,
                   documentation=None, lenient_accepts=accepts, lenient_fields=None, lenient_documentation=None,
                   usage=None, error=None, finish_reason=None, cut_by_output_cap=False)
        return row
    status = "missing" if reply is None else ("ok" if reply.get("status") == "ok" else "failed")
    text = reply.get("reply_text") if status == "ok" else None
    finish = (reply or {}).get("finish_reason") if status == "ok" else None
    cut = cut_by_output_cap((reply or {}).get("provider") or provider, finish)
    parsed = parse_reply(text, item.environment, item.keys)
    if status != "ok":
        parsed.problems = ["no reply (request failed)" if status == "failed" else "not asked yet"]
    elif cut and not parsed.in_grammar:
        parsed.problems = [CUT_PROBLEM, *parsed.problems]
    scores = _field_scores(item, parsed.values if parsed.in_grammar else {})
    lenient = _field_scores(item, parsed.lenient_values)
    row.update(status=status, in_grammar=parsed.in_grammar, problems=parsed.problems,
               model_accepts=bool(parsed.in_grammar and parsed.adequate),
               fields=scores, documentation=_frame_documentation(item, scores),
               lenient_accepts=bool(parsed.lenient_adequate), lenient_fields=lenient,
               lenient_documentation=_frame_documentation(item, lenient),
               usage=(reply or {}).get("usage") if status == "ok" else None,
               error=(reply or {}).get("error") if status == "failed" else None,
               finish_reason=finish, cut_by_output_cap=cut)
    return row


def score_run(store) -> tuple[dict, list[Item], list[dict]]:
    """(run config, items, per-item score rows) from a run folder's stored replies; asks nothing."""
    config = store.read_config()
    items, hashes = store.read_items()
    replies = store.read_replies() if config.get("kind") != "baseline" else {}
    baseline = config.get("baseline") if config.get("kind") == "baseline" else None
    rows = [{**score_item(item, replies.get(h), baseline=baseline, provider=config.get("provider")),
             "request_hash": h}
            for item, h in zip(items, hashes)]
    return config, items, rows
