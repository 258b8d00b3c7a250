"""A run on disk: the append-only reply log, request hashing, resume, secret scrubbing.

    RUNDIR/run.json       what was asked and how: kind, provider, model, base URL, every generation
                          setting, transport limits, the set (rewritten atomically)
    RUNDIR/items.jsonl    the set's items as asked: frame id, stratum, verdict, ground truth, keys,
                          image and prompt hashes, request hash (rewritten atomically)
    RUNDIR/replies.jsonl  one line per finished request, appended and fsynced as it finishes: the
                          raw reply, raw usage, normalised usage, timing and every attempt
    RUNDIR/scores.jsonl, RUNDIR/summary.json   derived by scoring (`eval rescore` rewrites them)

A reply line is whole or absent (a torn last line is cut off on resume). Requests are keyed by a
hash of (protocol version, provider, model, generation settings, prompt, image hash; a blind request
names its frame instead of an image; a prompt variant other than the benchmark's names itself): a rerun of
the same command asks only what has no `ok` line yet; failed requests are asked again.

No API key is ever written: every row passes through `scrub` (core/secrets.py) first: every run of 8 or
more characters of any form of the run's secrets (as is, stripped, and escaped as repr, JSON and URL
encoding escape it: an error message or an echoing server may hold any of them, or a part) is replaced.
"""
from __future__ import annotations

import hashlib
import json
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Optional

from ..setio import append_jsonl, atomic_write, jsonable, read_jsonl
from .errors import EvalError
from ..answers.items import Item, canonical_json
from ..core.prompt import DEFAULT_VARIANT
from ..core import safefs
from ..core.errors import RealityBenchError
from ..core.safe_parse import loads_json, one_line
from ..core.secrets import REDACTED, redact, secret_forms  # noqa: F401 (re-exported)

RUN_JSON = "run.json"
ITEMS = "items.jsonl"
REPLIES = "replies.jsonl"
SCORES = "scores.jsonl"
SUMMARY = "summary.json"

# run.json keys that define what the replies mean: a rerun that differs in one is refused.
IDENTITY = ("kind", "provider", "model", "base_url", "settings", "baseline", "variant", "include_gray", "subset")


def identity_value(config: dict, key: str):
    """A run.json identity value, read as a run written before the key existed was made: the benchmark's
    prompt, gray frames left out, no subset (every frame). Which frames are asked is part of a run's identity:
    resuming with another subset, subset seed or gray choice would mix two sets of items in one run."""
    if key == "variant" and config.get("kind") != "baseline":
        return config.get("variant") or DEFAULT_VARIANT
    if key == "include_gray":
        return bool(config.get("include_gray"))
    if key == "subset":
        subset = config.get("subset")
        return {"name": subset.get("name"), "seed": subset.get("seed")} if isinstance(subset, dict) else None
    return config.get(key)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def package_version() -> str:
    from ..version import __version__

    return __version__


def request_hash(provider: str, model: str, settings: dict, prompt: str, image_sha256: Optional[str],
                 blind_item: Optional[str] = None, variant: str = DEFAULT_VARIANT) -> str:
    """The request's identity. A blind request (no image) also names its frame (`blind_item`): the prompts of
    one environment are identical, and each frame is still asked on its own (an independent sample, and the
    cost of what was really sent). A prompt variant is named too, except the benchmark's own (so the hashes of
    runs made before variants existed stay what they were)."""
    from .providers import PROTOCOL_VERSION

    key = {"protocol": PROTOCOL_VERSION, "provider": provider, "model": model, "settings": settings,
           "prompt": prompt, "image_sha256": image_sha256}
    if blind_item is not None:
        key["blind_item"] = blind_item
    if variant != DEFAULT_VARIANT:
        key["variant"] = variant
    blob = canonical_json(key)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def scrub(value, secrets: Iterable[str]):
    """`value` (a string, or recursively a JSON-like value) with every run of 8 or more characters of any
    form of any of `secrets` (and of any secret registered in core/secrets.py) replaced by [REDACTED]."""
    return redact(value, secrets)


ITEM_FIELDS = {"frame_id": str, "environment": str, "stratum": str, "verdict": str, "keys": list,
               "file_name": str, "image_sha256": str, "prompt_sha256": str, "request_hash": str}


def item_row_problem(row) -> Optional[str]:
    """Why an items.jsonl line cannot be an item (a missing or mistyped field), or None."""
    if not isinstance(row, dict):
        return "not a JSON object"
    for name, kind in ITEM_FIELDS.items():
        if name not in row:
            return f"the field {name!r} is missing"
        if not isinstance(row[name], kind):
            return f"the field {name!r} is not a JSON {'string' if kind is str else 'array'}"
    if not all(isinstance(k, list) and len(k) == 2 and all(isinstance(p, str) for p in k) for k in row["keys"]):
        return "the field 'keys' is not a list of [name, type] pairs"
    if not isinstance(row.get("ground_truth") or {}, dict):
        return "the field 'ground_truth' is not a JSON object"
    for name in ("failing_terms", "gray_terms"):
        if not isinstance(row.get(name) or [], list):
            return f"the field {name!r} is not a JSON array"
    return None


class RunStore:
    def __init__(self, directory, secrets: Iterable[str] = ()):
        self.dir = Path(directory)
        self.secrets = [s for s in secrets if s]
        self._lock = threading.Lock()

    # ---- files ------------------------------------------------------------------------------
    def path(self, name: str) -> Path:
        return self.dir / name

    def exists(self) -> bool:
        return self.path(RUN_JSON).exists()

    def read_config(self) -> dict:
        try:  # through the file and input layers: a linked, piped, huge, deep or BOM'd run.json is refused
            config = loads_json(safefs.read_bytes(self.dir, RUN_JSON, "json"), max_bytes=safefs.CAPS["json"])
        except FileNotFoundError:
            raise EvalError(f"{self.dir} is not a run folder: no {RUN_JSON}") from None
        except (OSError, RealityBenchError) as exc:
            raise EvalError(f"cannot read {self.path(RUN_JSON)}: {one_line(exc)}") from None
        if not isinstance(config, dict):
            raise EvalError(f"{self.path(RUN_JSON)} is not a JSON object: not a run folder")
        return config

    def write_json(self, name: str, data: dict) -> None:
        text = json.dumps(jsonable(scrub(data, self.secrets)), indent=2, ensure_ascii=False) + "\n"
        atomic_write(self.path(name), text.encode("utf-8"))

    def write_jsonl(self, name: str, rows: Iterable[dict]) -> None:
        lines = [json.dumps(jsonable(scrub(r, self.secrets)), ensure_ascii=False, separators=(",", ":"))
                 for r in rows]
        atomic_write(self.path(name), ("\n".join(lines) + ("\n" if lines else "")).encode("utf-8"))

    def open(self, config: dict) -> dict:
        """Create the run folder or resume it; refuse a folder made with other identity settings."""
        if self.dir.exists() and not self.dir.is_dir():
            raise EvalError(f"--out {self.dir} is a file, not a folder")
        if self.exists():
            old = self.read_config()
            differ = [k for k in IDENTITY
                      if canonical_json(identity_value(old, k)) != canonical_json(identity_value(config, k))]
            if differ:
                detail = "; ".join(f"{k}: run has {canonical_json(identity_value(old, k))}, now "
                                   f"{canonical_json(identity_value(config, k))}" for k in differ)
                raise EvalError(f"{self.dir} holds a run made with other settings ({detail}); use another --out")
            config = {**config, "created": old.get("created", config.get("created"))}
        elif self.dir.exists() and any(self.dir.iterdir()):
            raise EvalError(f"--out {self.dir} is not empty and holds no run")
        self.dir.mkdir(parents=True, exist_ok=True)
        read_jsonl(self.path(REPLIES), repair=True)  # cut a torn last line before appending
        self.write_json(RUN_JSON, config)
        return config

    # ---- items ------------------------------------------------------------------------------
    def write_items(self, items: list[Item], hashes: list[str]) -> None:
        self.write_jsonl(ITEMS, [{**item.to_row(), "request_hash": h} for item, h in zip(items, hashes)])

    def read_items(self) -> tuple[list[Item], list[str]]:
        if not self.path(ITEMS).exists():
            raise EvalError(f"{self.dir} is not a run folder: no {ITEMS}")
        items, hashes = [], []
        for number, row in enumerate(read_jsonl(self.path(ITEMS)), 1):
            problem = item_row_problem(row)
            if problem:
                raise EvalError(f"{self.path(ITEMS)} line {number}: {problem}; not a run folder this harness wrote "
                                f"(rerun `eval run` into a new --out)")
            items.append(Item.from_row(row))
            hashes.append(row["request_hash"])
        return items, hashes

    # ---- replies ----------------------------------------------------------------------------
    def append_reply(self, record: dict) -> None:
        with self._lock:
            append_jsonl(self.path(REPLIES), scrub(record, self.secrets))

    def read_replies(self) -> dict[str, dict]:
        """request hash -> its reply: the first `ok` line, else the last failed line."""
        out: dict[str, dict] = {}
        for row in read_jsonl(self.path(REPLIES)):
            if not isinstance(row, dict):
                continue  # not a reply line: its item stays unanswered
            h = row.get("request_hash")
            if h is None:
                continue
            if out.get(h, {}).get("status") == "ok":
                continue
            out[h] = row
        return out

    def reply_lines(self) -> list[dict]:
        return read_jsonl(self.path(REPLIES))
