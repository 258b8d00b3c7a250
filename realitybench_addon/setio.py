"""The exported set on disk: atomic files, the append-only metadata log, the manifest.

Layout (a Hugging Face `imagefolder` set):
    DIR/metadata.jsonl         one row per finished frame (`file_name` first), appended + fsynced
                               only after the frame's image is complete
    DIR/<environment>/<frame id>.jpg
    DIR/manifest.json          the command, config, counts, discards, timings (rewritten atomically)
A row is whole or absent: a torn last line (a kill mid-append) is ignored and truncated on
resume; a `.partial` file is never presented as a frame.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np

METADATA = "metadata.jsonl"
MANIFEST = "manifest.json"


def jsonable(value):
    """NaN and infinity become null; numpy scalars become Python numbers; tuples become lists."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return value if math.isfinite(value) else None
    return value


def atomic_write(path: Path, data: bytes) -> None:
    """Temporary file, fsync, rename: readers see the old file or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.partial")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(path)


def append_jsonl(path: Path, row: dict) -> None:
    """Append one JSON line to `path` and fsync it: after a kill the line is whole or torn, never half-synced."""
    line = json.dumps(jsonable(row), ensure_ascii=False, separators=(",", ":")) + "\n"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def append_row(directory: Path, row: dict) -> None:
    append_jsonl(directory / METADATA, row)


def read_rows(directory: Path, *, repair: bool = False) -> list[dict]:
    """Every whole row; with `repair`, cut a torn last line off the file so appends stay clean."""
    return read_jsonl(directory / METADATA, repair=repair)


def read_jsonl(path: Path, *, repair: bool = False) -> list[dict]:
    """Every whole line of an append-only JSONL file; with `repair`, cut a torn last line off."""
    if not path.exists():
        return []
    data = path.read_bytes()
    rows, good_end = [], 0
    for line in data.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            break
        good_end += len(line)
    if repair and good_end < len(data):
        with open(path, "r+b") as fh:
            fh.truncate(good_end)
    return rows


def write_manifest(directory: Path, manifest: dict) -> None:
    atomic_write(directory / MANIFEST, (json.dumps(jsonable(manifest), indent=2) + "\n").encode())


def read_manifest(directory: Path) -> dict | None:
    path = directory / MANIFEST
    return json.loads(path.read_text()) if path.exists() else None


def remove_partials(directory: Path) -> int:
    count = 0
    for path in directory.rglob(".*.partial"):
        path.unlink()
        count += 1
    return count
