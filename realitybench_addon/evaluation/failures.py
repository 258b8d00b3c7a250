"""What a failed request says, fit for one line on a terminal.

The provider's own message is dug out of its error body (OpenAI, Anthropic and Gemini all nest it
as `error.message`; Gemini sometimes in a list; vLLM-like servers put `message` or `detail` at the
top), whitespace is collapsed to one line, every form of the run's secrets is replaced, and so is
anything shaped like a credential (an Authorization, x-api-key or x-goog-api-key value, a bearer
token, an `sk-...`, `AIza...` or `hf_...` key: an echoing proxy may hold another key than ours).
Only then is it cut to DETAIL_CHARS, so a cut never leaves part of a key behind.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterable, Optional

from .runs import REDACTED, RunStore, scrub, secret_forms

DETAIL_CHARS = 300
CREDENTIALS = [
    re.compile(r"(?i)\b((?:proxy-)?authorization|x-api-key|x-goog-api-key|api[_-]key|access[_-]token)"
               r"(\\?[\"']?\s*[:=]\s*\\?[\"']?)(?:(?:bearer|basic)\s+)?(?!\[REDACTED\]|bearer\b|basic\b)"
               r"[^\s\"',;}&\]\\]+"),
    re.compile(r"(?i)\b(bearer|basic)(\s+)(?!\[REDACTED\])[^\s\"',;}&\]\\]+"),
    re.compile(r"(?i)([?&]key)(=)(?!\[REDACTED\])[^\s\"'&]+"),
]
KEY_SHAPES = re.compile(r"\b(?:sk-[A-Za-z0-9_\-]{16,}|AIza[0-9A-Za-z_\-]{30,}|hf_[A-Za-z0-9]{20,})")


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` without the run's secrets (every form) and without anything shaped like a credential."""
    text = scrub(text, secret_forms(secrets)) if secrets else text
    for pattern in CREDENTIALS:
        text = pattern.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    return KEY_SHAPES.sub(REDACTED, text)


def provider_message(body) -> Optional[str]:
    """The provider's message from an error body (parsed JSON or its text), or None when it holds none."""
    data = body
    if isinstance(body, str):
        try:
            data = json.loads(body)
        except ValueError:
            return None
    if isinstance(data, list) and data:
        data = data[0]
    if not isinstance(data, dict):
        return None
    error = data.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    for value in (error, data.get("message"), data.get("detail")):
        if isinstance(value, str) and value.strip():
            return value
    return None


def one_line(text, secrets: Iterable[str] = (), limit: int = DETAIL_CHARS) -> str:
    line = redact(" ".join(str(text).split()), secrets)  # redacted before the cut: no half key left
    return line if len(line) <= limit else line[:limit - 3] + "..."


def detail(body, secrets: Iterable[str] = (), limit: int = DETAIL_CHARS) -> str:
    """The provider's message from an error body, else the body itself, on one short line ('' for none)."""
    if body is None or body == "":
        return ""
    message = provider_message(body)
    return one_line(message if message is not None else body if isinstance(body, str) else json.dumps(body),
                    secrets, limit)


def incomplete_run(run_dir, summary: dict, secrets: Iterable[str] = ()) -> str:
    """The one-line error of a run that finished with failed (or unasked) items: how many, and the first
    failure with what the provider said."""
    parts = []
    if summary["failed"]:
        parts.append(f"{summary['failed']} of {summary['items']} items failed")
    if summary["missing"]:
        parts.append(f"{summary['missing']} of {summary['items']} items were not asked")
    text = "; ".join(parts)
    if summary["failed_items"]:
        first = summary["failed_items"][0]
        lines = [r for r in RunStore(run_dir).read_replies().values() if r.get("frame_id") == first["frame_id"]]
        said = detail(lines[0].get("raw_response"), secrets) if lines else ""
        text += f"; the first, {first['frame_id']}: {one_line(first['error'] or 'failed', secrets)}"
        text += f" ({said})" if said else ""
    return (f"{text}; the run is kept in {Path(run_dir)} (its numbers in summary.json); rerun the same command to "
            f"ask the failed items again")
