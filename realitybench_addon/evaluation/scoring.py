"""One item's reply -> its scores; a run folder -> every item's scores (`eval rescore`).

Which frames and fields are scored is answers/counting.py's rule (`rule`: the paper's by default).
Each row also keeps the in-grammar values (`values`) and the reply's length in characters
(`reply_chars`) for the report's analyses (misreadings, rejected frames, per-item tokens).

An item's reply is `ok` (the provider answered), `failed` (it never did: retries exhausted, a
non-retryable error) or `missing` (not asked yet: an interrupted run). Failed and missing items
stay in every denominator: they do not accept and are wrong on every field, exactly like an
out-of-grammar reply. Baseline runs answer acceptability only (documentation: not applicable).

A run asked with a prompt variant (core/prompt.py; run.json `variant`) is parsed by that variant's
grammar; a no-verdict run answers no acceptability question, so its decisions are None (n/a), not
rejections.

A reply the provider cut at the output cap (finish reason `length`, `max_tokens`, `MAX_TOKENS`)
is marked `cut_by_output_cap`; when it is out of grammar its first problem is CUT_PROBLEM, so the
report counts it apart from replies the model got wrong on its own.
"""
from __future__ import annotations

from typing import Optional

from ..answers import counting
from ..answers import fields as F
from ..core.prompt import DEFAULT_VARIANT, NO_VERDICT, VERDICT_ONLY
from .grammar import parse_reply
from ..answers.items import Item
from .providers import cut_by_output_cap

CUT_PROBLEM = "cut by the output cap (--max-tokens)"


def all_field_scores(item: Item, values: Optional[dict]) -> dict:
    """Every field scored against the ground truth, whatever the frame (None values: out of grammar, all 0)."""
    values = values or {}
    return {key: F.score_field(item.environment, key, json_type, item.ground_truth.get(key), values.get(key))
            for key, json_type in item.keys}


def _field_scores(item: Item, values: dict, rule: str) -> dict:
    scores = all_field_scores(item, values)
    return {key: (scores[key] if counting.field_counts(item, key, rule) else None) for key, _ in item.keys}


def _frame_documentation(item: Item, scores: dict, rule: str) -> Optional[float]:
    """The frame's mean field score, on documentation-scored frames (spec: "mean over scorer-accepted
    frames of each frame's mean field score"), over the fields its ground truth labels (every field of a
    rendered frame; a real photo's labelled ones); None elsewhere."""
    labelled = [scores[k] for k, _ in item.keys if scores[k] is not None]
    if not counting.documentation_counts(item, rule) or not labelled:
        return None
    return sum(labelled) / len(labelled)


def _usage(value) -> Optional[dict]:
    """Normalised usage as stored, each count an int or None (a hand-edited or foreign line may hold anything)."""
    if not isinstance(value, dict):
        return None
    return {k: (v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None)
            for k, v in ((k, value.get(k)) for k in ("input_tokens", "output_tokens", "thinking_tokens"))}


def score_item(item: Item, reply: Optional[dict], *, baseline: Optional[str] = None,
               provider: Optional[str] = None, rule: str = counting.DEFAULT, variant: str = DEFAULT_VARIANT) -> dict:
    row = {"frame_id": item.frame_id, "environment": item.environment, "stratum": item.stratum,
           "verdict": item.verdict, "acceptability_scored": item.acceptability_scored,
           "documentation_scored": counting.documentation_counts(item, rule)}
    if baseline is not None:
        accepts = baseline == "always-accept"
        row.update(status="ok", in_grammar=None, problems=[], model_accepts=accepts, fields=None,
                   documentation=None, lenient_accepts=accepts, lenient_fields=None, lenient_documentation=None,
                   usage=None, error=None, finish_reason=None, cut_by_output_cap=False, values=None,
                   reply_chars=None)
        return row
    if reply is not None and not isinstance(reply, dict):
        reply = {"status": "failed", "error": "the stored reply line is not a JSON object"}
    status = "missing" if reply is None else ("ok" if reply.get("status") == "ok" else "failed")
    text = reply.get("reply_text") if status == "ok" else None
    text = text if isinstance(text, str) or text is None else None
    finish = (reply or {}).get("finish_reason") if status == "ok" else None
    cut = cut_by_output_cap((reply or {}).get("provider") or provider, finish)
    parsed = parse_reply(text, item.environment, item.keys, variant)
    if status != "ok":
        parsed.problems = ["no reply (request failed)" if status == "failed" else "not asked yet"]
    elif cut and not parsed.in_grammar:
        parsed.problems = [CUT_PROBLEM, *parsed.problems]
    scores = _field_scores(item, parsed.values if parsed.in_grammar else {}, rule)
    lenient = _field_scores(item, parsed.lenient_values, rule)
    asked = variant != NO_VERDICT  # no verdict asked: no decision, not a rejection
    if variant == VERDICT_ONLY:  # the verdict alone: no documentation asked, none scored (as a baseline)
        scores = lenient = None
    row.update(status=status, in_grammar=parsed.in_grammar, problems=parsed.problems,
               model_accepts=bool(parsed.in_grammar and parsed.adequate) if asked else None,
               fields=scores, documentation=None if scores is None else _frame_documentation(item, scores, rule),
               lenient_accepts=bool(parsed.lenient_adequate) if asked else None, lenient_fields=lenient,
               lenient_documentation=None if lenient is None else _frame_documentation(item, lenient, rule),
               usage=_usage((reply or {}).get("usage")) if status == "ok" else None,
               error=(reply or {}).get("error") if status == "failed" else None,
               finish_reason=finish, cut_by_output_cap=cut,
               values=dict(parsed.values) if parsed.in_grammar else None,
               reply_chars=len(text) if text is not None else None)
    return row


def score_run(store, rule: str = counting.DEFAULT) -> tuple[dict, list[Item], list[dict]]:
    """(run config, items, per-item score rows) from a run folder's stored replies; asks nothing."""
    config = store.read_config()
    items, hashes = store.read_items()
    replies = store.read_replies() if config.get("kind") != "baseline" else {}
    baseline = config.get("baseline") if config.get("kind") == "baseline" else None
    variant = config.get("variant") or DEFAULT_VARIANT
    rows = [{**score_item(item, replies.get(h), baseline=baseline, provider=config.get("provider"), rule=rule,
                          variant=variant), "request_hash": h}
            for item, h in zip(items, hashes)]
    return config, items, rows
