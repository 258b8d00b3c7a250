"""An exported set -> the items a model is asked about: image, prompt, labels, documentation keys.

The set is a Hugging Face imagefolder written by `export` (docs/export.md): `metadata.jsonl`
(one row per frame) plus `<environment>/<frame id>.jpg`. Only the columns named here are read.

Which frames count for what is decided in one place, counting.py: acceptability on the frames the
scorer accepts or rejects; documentation on the scorer-acceptable frames (the paper's rule, the
default; car_plate frames whose terms pass included, rail attachments missing a part not), or on
every frame whose terms all pass (`--documentation-frames all-terms-pass`).

The documentation keys (name and JSON type) are the set's ground-truth keys, in order, typed by
the environment registry's prompt parts where it knows the key, else by the ground-truth value.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional

from ..setio import METADATA, SetError, image_path, read_image, read_rows
from . import counting

JSON_TYPES = ("boolean", "number", "string", "array")


@dataclass(frozen=True)
class Item:
    frame_id: str
    environment: str
    stratum: str  # random | positive
    verdict: str  # accept | reject | gray | unscored
    failing_terms: tuple[str, ...]
    gray_terms: tuple[str, ...]
    ground_truth: dict
    keys: tuple[tuple[str, str], ...]  # (name, json type) of each documentation key, in the prompt's order
    file_name: str
    image_sha256: str
    prompt_sha256: str
    unscored_reason: Optional[str] = None  # why acceptability is not scored (None when it is, or not recorded)
    measured_item: Optional[str] = None  # a real photo's measured object (real_photos.py): several photos, one item

    @property
    def acceptability_scored(self) -> bool:
        return self.verdict in ("accept", "reject")

    @property
    def documentation_scored(self) -> bool:
        """Under the default rule (counting.DEFAULT); scoring passes the report's rule to counting itself."""
        return counting.documentation_counts(self)

    @property
    def stratum_key(self) -> str:
        """The bootstrap stratum: an environment's random frames, or one environment's positive stratum."""
        return f"{self.environment}/{self.stratum}"

    def to_row(self) -> dict:
        row = asdict(self)
        row["keys"] = [list(k) for k in self.keys]
        row["failing_terms"] = list(self.failing_terms)
        row["gray_terms"] = list(self.gray_terms)
        return row

    @classmethod
    def from_row(cls, row: dict) -> "Item":
        return cls(frame_id=row["frame_id"], environment=row["environment"], stratum=row["stratum"],
                   verdict=row["verdict"], failing_terms=tuple(row.get("failing_terms") or ()),
                   gray_terms=tuple(row.get("gray_terms") or ()), ground_truth=row.get("ground_truth") or {},
                   keys=tuple((k[0], k[1]) for k in row["keys"]), file_name=row["file_name"],
                   image_sha256=row["image_sha256"], prompt_sha256=row["prompt_sha256"],
                   unscored_reason=row.get("unscored_reason"), measured_item=row.get("measured_item"))


@dataclass(frozen=True)
class AskItem:
    """An item with what is sent: the prompt and the image file (a rendered frame is a JPEG)."""

    item: Item
    prompt: str
    image_path: Path
    media_type: str = "image/jpeg"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def infer_json_type(value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        return "array"
    return "string"


def registry_types(environment: str) -> dict[str, str]:
    """name -> JSON type from the environment's prompt parts; {} for an environment the registry does not build."""
    from ..envs import registry

    try:
        env = registry.get(environment)
    except registry.UnknownEnvironment:
        return {}
    return {k.name: k.json_type for k in env.prompt_parts.keys}


def documentation_keys(environment: str, ground_truth: dict,
                       cache: Optional[dict] = None) -> tuple[tuple[str, str], ...]:
    if cache is not None and environment not in cache:
        cache[environment] = registry_types(environment)
    types = cache[environment] if cache is not None else registry_types(environment)
    keys = []
    for name, value in ground_truth.items():
        json_type = types.get(name) or infer_json_type(value)
        if json_type not in JSON_TYPES:
            raise SetError(f"environment {environment!r}: key {name!r} has unknown JSON type {json_type!r}")
        keys.append((name, json_type))
    return tuple(keys)


REQUIRED = ("file_name", "frame_id", "environment", "stratum", "verdict", "ground_truth", "prompt")


def load_set(directory) -> list[AskItem]:
    """Every frame of an exported set, sorted by frame id; a SetError that names anything missing or damaged."""

    directory = Path(directory)
    if not directory.is_dir():
        raise SetError(f"set folder {directory} does not exist")
    if not (directory / METADATA).exists():
        raise SetError(f"{directory} is not an exported set: no {METADATA}")
    try:
        rows = read_rows(directory)
    except OSError as exc:
        raise SetError(f"cannot read {directory / METADATA}: {exc}") from None
    if not rows:
        raise SetError(f"{directory / METADATA} holds no frames")
    cache: dict = {}
    items, seen = [], set()
    for number, row in enumerate(rows, 1):
        missing = [k for k in REQUIRED if k not in row]
        if missing:
            raise SetError(f"{directory / METADATA}: row {number} lacks {', '.join(missing)}")
        if row["frame_id"] in seen:
            raise SetError(f"{directory / METADATA}: frame {row['frame_id']} appears twice")
        seen.add(row["frame_id"])
        try:
            path = image_path(directory, row)
            image = read_image(directory, row)  # no link followed, a regular file within the cap (safefs.py)
        except OSError:
            raise SetError(f"frame {row['frame_id']}: image {directory / row['file_name']} is missing") from None
        ground_truth = row["ground_truth"] or {}
        item = Item(frame_id=row["frame_id"], environment=row["environment"], stratum=row["stratum"],
                    verdict=row["verdict"], failing_terms=tuple(row.get("failing_terms") or ()),
                    gray_terms=tuple(row.get("gray_terms") or ()), ground_truth=ground_truth,
                    keys=documentation_keys(row["environment"], ground_truth, cache), file_name=row["file_name"],
                    image_sha256=sha256_bytes(image), prompt_sha256=sha256_bytes(row["prompt"].encode()),
                    unscored_reason=row.get("unscored_reason"))
        items.append(AskItem(item, row["prompt"], path))
    items.sort(key=lambda a: a.item.frame_id)
    return items


def canonical_json(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
