"""A folder of real photographs labelled for the matched documentation questions, asked like a set.

The folder is a Hugging Face imagefolder: `metadata.jsonl` (one JSON object per photo) beside the
images, anywhere inside the folder. A row:

    {"file_name": "tape/bench_01.jpg", "environment": "tape_gap",
     "ground_truth": {"reading_in": 31.25}, "frame_id": "bench_01", "prompt": "..."}

  file_name     required: the photo's path inside the folder (JPEG, PNG, GIF or WebP, sent byte for byte)
  environment   required: the environment whose question the photo answers (its keys, its prompt)
  ground_truth  required: the labelled keys only, each a value of the key's JSON type, or
                {"any_of": [value, ...]} where the photo shows more than one acceptable answer
  frame_id      optional: a plain name, unique in the folder (default: file_name without its suffix,
                "/" turned into "-")
  prompt        optional: the text asked (default: the environment's prompt); a lab may name its own
                object in place of the scene's, keeping the environment's keys and reply grammar
  measured_item optional: the object measured (a plain name), when several photos show one item (a tape
                read in several photos): the report's intervals on real photos are bootstrapped over
                measured items, not photos (default: each photo its own item)

Other columns are kept out of the way. Only the labelled keys are scored (answers/counting.py); the
model is asked, and must answer in grammar, every key of the environment. Acceptability is not
scored: a photo has no scene state for the scorer. Every problem is one SetError naming the file,
the line and what is wrong; nothing is asked or written before the whole folder passes.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..answers import fields as F
from ..answers.items import AskItem, Item, sha256_bytes
from ..core.prompt import build_prompt
from ..core import safefs
from ..core.safe_parse import one_line
from ..core.rescoring import RULE_PREFIX
from ..setio import METADATA, SetError, scan_jsonl
from .grammar import type_problem

STRATUM = "real"
UNSCORED_REASON = f"{RULE_PREFIX} on real photographs (no scene state to score them against)"
REQUIRED = ("file_name", "environment", "ground_truth")
# what a provider accepts, told by the file's first bytes (never by its name)
MAGIC = ((b"\xff\xd8\xff", "image/jpeg"), (b"\x89PNG\r\n\x1a\n", "image/png"), (b"GIF87a", "image/gif"),
         (b"GIF89a", "image/gif"))
_PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\Z")


def is_real_folder(directory) -> bool:
    """A folder whose metadata rows carry no `slot` (every exported row has one) holds real photographs."""
    path = Path(directory) / METADATA
    if not path.is_file():
        return False
    parsed, damaged, _ = scan_jsonl(path)
    rows = [value for _, value, _ in parsed]
    return bool(rows or damaged) and not any(isinstance(r, dict) and "slot" in r for r in rows)


def media_type(data: bytes):
    for magic, kind in MAGIC:
        if data.startswith(magic):
            return kind
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _image(root: Path, name) -> tuple[Path, bytes, str]:
    if not isinstance(name, str) or not name.strip():
        raise ValueError("file_name is missing or empty")
    if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name) or ".." in re.split(r"[/\\]", name):
        raise ValueError(f"file_name {name[:120]!r} must be a path inside the folder (no leading /, no ..)")
    path = root / name
    try:  # read from the descriptor the file layer checked: no link below the folder, no pipe, a size cap
        data = safefs.read_bytes(root, name.replace("\\", "/"), "image")
    except safefs.SetError as exc:
        if path.is_dir() and not path.is_symlink():
            raise ValueError(f"file_name {name[:120]!r} is a folder, not a photo") from None
        raise ValueError(f"file_name {name[:120]!r}: {one_line(exc)}") from None
    except OSError:
        raise ValueError(f"the photo {name[:120]!r} is missing") from None
    kind = media_type(data)
    if kind is None:
        raise ValueError(f"the photo {name[:120]!r} is not a JPEG, PNG, GIF or WebP image (convert it to JPEG)")
    return path, data, kind


def _environment(name):
    from ..envs import registry

    if not isinstance(name, str) or not name:
        raise ValueError("environment is missing or not a string")
    try:
        return registry.get(name)
    except registry.UnknownEnvironment as exc:
        raise ValueError(str(exc)) from None


def _truth(environment: str, truth, types: dict) -> dict:
    if not isinstance(truth, dict) or not truth:
        raise ValueError("ground_truth must be a JSON object with at least one labelled key")
    for key, value in truth.items():
        if key not in types:
            raise ValueError(f"ground_truth key {key!r} is not a key of {environment} "
                             f"({', '.join(types)})")
        options = F.acceptable_truths(value)
        if isinstance(value, dict) and options is None:
            raise ValueError(f"ground_truth {key!r}: an object must be {{\"any_of\": [value, ...]}}")
        if options is not None and not options:
            raise ValueError(f"ground_truth {key!r}: any_of lists no value")
        for option in (value,) if options is None else options:
            problem = type_problem(environment, key, types[key], option)
            if problem:
                raise ValueError(f"ground_truth {problem}")
    return truth


def _frame_id(row: dict, file_name: str) -> str:
    given = row.get("frame_id")
    if given is None:
        stem = str(Path(file_name).with_suffix("")).replace("\\", "/").replace("/", "-")
        given = re.sub(r"[^A-Za-z0-9_.-]", "_", stem).lstrip(".-") or "photo"
    if not isinstance(given, str) or not _PLAIN.match(given) or ".." in given:
        raise ValueError(f"frame_id {str(given)[:80]!r} is not a plain name (letters, digits, _ . -)")
    return given


def _ask_item(root: Path, row) -> AskItem:
    if not isinstance(row, dict):
        raise ValueError(f"a JSON {type(row).__name__}, not an object")
    missing = [k for k in REQUIRED if k not in row]
    if missing:
        raise ValueError(f"lacks {', '.join(missing)}")
    path, data, kind = _image(root, row["file_name"])
    env = _environment(row["environment"])
    keys = tuple((k.name, k.json_type) for k in env.prompt_parts.keys)
    truth = _truth(env.name, row["ground_truth"], dict(keys))
    prompt = row.get("prompt")
    if prompt is None:
        prompt = build_prompt(env.prompt_parts)
    elif not isinstance(prompt, str) or not prompt.strip():
        raise ValueError("prompt must be a non-empty string (or left out for the environment's own)")
    measured = row.get("measured_item")
    if measured is not None and (not isinstance(measured, str) or not _PLAIN.match(measured)):
        raise ValueError(f"measured_item {str(measured)[:80]!r} is not a plain name (letters, digits, _ . -)")
    item = Item(frame_id=_frame_id(row, row["file_name"]), environment=env.name, stratum=STRATUM,
                verdict="unscored", failing_terms=(), gray_terms=(), ground_truth=truth, keys=keys,
                file_name=row["file_name"], image_sha256=sha256_bytes(data),
                prompt_sha256=sha256_bytes(prompt.encode()), unscored_reason=UNSCORED_REASON,
                measured_item=measured)
    return AskItem(item, prompt, path, kind)


def load_real_photos(directory) -> list[AskItem]:
    """Every photo of a real-photo folder, sorted by frame id; a SetError naming the first problem."""
    root = Path(directory).resolve()
    path = Path(directory) / METADATA
    where = f"real-photo folder {path}"
    parsed, damaged, _ = scan_jsonl(path)
    if damaged:
        number, why = damaged[0]
        raise SetError(f"{where} line {number}: {why}")
    if not parsed:
        raise SetError(f"{where} holds no photos")
    items: list[AskItem] = []
    first_line: dict[str, int] = {}
    for number, row, _ in parsed:
        try:
            a = _ask_item(root, row)
        except ValueError as exc:
            raise SetError(f"{where} line {number}: {exc}") from None
        seen = first_line.setdefault(a.item.frame_id, number)
        if seen != number:
            raise SetError(f"{where} line {number}: frame_id {a.item.frame_id} again (first on line {seen}); give "
                           f"each photo its own frame_id")
        items.append(a)
    items.sort(key=lambda a: a.item.frame_id)
    return items


def is_real_run(items) -> bool:
    return bool(items) and all(i.stratum == STRATUM for i in items)


def labelled_questions(items) -> list[tuple[str, str]]:
    """(environment, key) of every question a real photo of `items` is labelled for, sorted."""
    return sorted({(i.environment, k) for i in items if i.stratum == STRATUM for k in i.ground_truth})
