"""The exported set on disk: atomic files, the append-only metadata log, the manifest.

Layout (a Hugging Face `imagefolder` set):
    DIR/metadata.jsonl         one row per finished frame (`file_name` first), appended + fsynced
                               only after the frame's image is complete
    DIR/<environment>/<frame id>.jpg
    DIR/manifest.json          the command, config, counts, discards, timings (rewritten atomically)
A row is whole or absent: a torn last line (a kill mid-append) is ignored and truncated on
resume; a `.partial` file is never presented as a frame. Anything else that is wrong with the log
(a damaged line in the middle, a row without its keys, a `file_name` that leaves the set) is
damage, not a crash artefact: readers stop with a `SetError` naming the line, and
`export --repair` keeps every good row and re-renders only the bad ones.

A set is a folder people pass around, so nothing in it is trusted: every row's image path must be
`ENVIRONMENT/FRAME_ID.jpg` with plain names, and must resolve (links followed) inside the set. Every
file of a set is read and written through core/safefs.py (no link below the folder the user named is ever
followed, regular files only, a size cap per kind, writes by create-new-then-rename), and every line is
parsed by core/safe_parse.py (lines end at b"\n" only; depth, length and integer limits).
"""
from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import numpy as np

from .core import safefs
from .core.safe_parse import InputError, loads_json, split_lines
from .core.safefs import SetError

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


def _split(path: Path, root) -> tuple[Path, str]:
    """(root, path relative to it): `root` is the folder the user named (links below it are never followed);
    without one, the file's own folder."""
    path = Path(path)
    if root is None:
        return path.parent, path.name
    return Path(root), path.relative_to(root).as_posix()


def atomic_write(path: Path, data: bytes, *, root=None) -> None:
    """Temporary file (created new, no link followed), fsync, rename: readers see the old file or the whole
    new one. With `root` (the set's folder), no folder between it and the file may be a link."""
    safefs.write_atomic(*_split(path, root), data)


def append_jsonl(path: Path, row: dict, *, root=None) -> None:
    """Append one JSON line to `path` and fsync it: after a kill the line is whole or torn, never half-synced.
    The file is opened without following a link (see `atomic_write` for `root`)."""
    line = json.dumps(jsonable(row), ensure_ascii=False, separators=(",", ":")) + "\n"
    safefs.append(*_split(path, root), line.encode("utf-8"))


def append_row(directory: Path, row: dict) -> None:
    append_jsonl(Path(directory) / METADATA, row)


# Names that are one plain path component: no separator, no "..", no leading dot.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\Z")
ROW_KEYS = ("file_name", "frame_id", "environment", "stratum", "slot")
REPAIR_HINT = "rerun the export's own command with --repair to keep the good rows and re-render the rest"


def row_problem(row, directory: Path, root: Path | None = None) -> str | None:
    """Why a metadata row cannot be trusted, or None. The image must be ENVIRONMENT/FRAME_ID.jpg inside
    `directory` (links followed; `root` is the folder already resolved), so a row can never point a reader
    at another file."""
    if not isinstance(row, dict):
        return f"a JSON {type(row).__name__}, not an object"
    missing = [k for k in ROW_KEYS if k not in row]
    if missing:
        return f"lacks {', '.join(missing)}"
    for key in ("frame_id", "environment", "stratum"):
        if not isinstance(row[key], str) or not _PLAIN_NAME.match(row[key]) or ".." in row[key]:
            return f"{key} {str(row[key])[:80]!r} is not a plain name"
    if not isinstance(row["slot"], int) or isinstance(row["slot"], bool) or row["slot"] < 0:
        return f"slot {str(row['slot'])[:80]!r} is not a non-negative integer"
    expected = f"{row['environment']}/{row['frame_id']}.jpg"
    if row["file_name"] != expected:
        return f"file_name {str(row['file_name'])[:120]!r} is not {expected!r}"
    root = root or directory.resolve()
    if not (root / expected).resolve().is_relative_to(root):
        return f"file_name {expected!r} leads outside the set (through a link)"
    return None


def image_path(directory: Path, row: dict) -> Path:
    """The image of a row already checked by `read_rows`, checked again at the moment of use (a link
    can be swapped in after the rows were read). To read the image, use `read_image` or `open_image`:
    they open it without following links, so a swap after this check gains nothing."""
    root = Path(directory).resolve()
    path = (root / row["file_name"]).resolve()
    if not path.is_relative_to(root):
        raise SetError(f"{Path(directory) / METADATA}: frame {row['frame_id']}: image leads outside the set")
    return path


def read_image(directory: Path, row: dict) -> bytes:
    """The bytes of a row's image, read from a descriptor opened below the set without following any link
    (an environment folder swapped for a link to outside is refused, whenever it is swapped)."""
    return safefs.read_bytes(directory, _image_name(directory, row), "image")


def open_image(directory: Path, row: dict):
    """A row's image as a binary file object (see `read_image`), for a server that streams it."""
    return safefs.open_file(directory, _image_name(directory, row), "image")


def _image_name(directory: Path, row: dict) -> str:
    name = row.get("file_name") if isinstance(row, dict) else None
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*/[A-Za-z0-9_][A-Za-z0-9_.-]*", name) \
            or ".." in name:
        raise SetError(f"{Path(directory) / METADATA}: image {str(name)[:120]!r} is not ENVIRONMENT/FRAME_ID.jpg")
    return name


def read_rows(directory: Path, *, repair: bool = False) -> list[dict]:
    """Every row of a set, each checked by `row_problem`; with `repair`, cut a torn last line off the file
    so appends stay clean. A damaged row anywhere is a SetError naming its line."""
    directory = Path(directory)
    try:
        rows = read_jsonl(directory / METADATA, repair=repair)
    except SetError as exc:
        raise SetError(f"{exc}; {REPAIR_HINT}") from None
    first_line: dict = {}
    root = directory.resolve()
    for number, row in enumerate(rows, 1):
        problem = row_problem(row, directory, root)
        if problem is None and first_line.setdefault(row["frame_id"], number) != number:
            problem = f"frame {row['frame_id']} again (first on line {first_line[row['frame_id']]})"
        if problem:
            raise SetError(f"{directory / METADATA} line {number}: {problem}; {REPAIR_HINT}")
    return rows


def scan_jsonl(path: Path) -> tuple[list[tuple[int, object, bytes]], list[tuple[int, str]], int]:
    """Every line of a JSONL file, forgiving: (line number, value, the line's bytes) for each parsed line,
    (line number, why) for each damaged one, and the byte length of the whole lines. A last line without
    its newline is torn, not damaged: it is left out of both lists and of the length."""
    path = Path(path)
    try:
        data = safefs.read_bytes(path.parent, path.name, "metadata")
    except FileNotFoundError:
        data = b""
    lines, _torn = split_lines(data)  # only b"\n" ends a line; a torn last line (a kill mid-append) is left out
    parsed, damaged, whole_end = [], [], 0
    for number, body in enumerate(lines, 1):
        line = body + b"\n"
        whole_end += len(line)
        try:
            parsed.append((number, loads_json(body), line))
        except InputError as exc:
            damaged.append((number, str(exc)))
    return parsed, damaged, whole_end


def read_jsonl(path: Path, *, repair: bool = False) -> list[dict]:
    """Every line of an append-only JSONL file. A torn last line (no newline: a kill mid-append) is
    ignored, and with `repair` cut off; a damaged whole line is a SetError naming it."""
    path = Path(path)
    parsed, damaged, whole_end = scan_jsonl(path)
    if damaged:
        number, why = damaged[0]
        more = f" (and {len(damaged) - 1} more)" if len(damaged) > 1 else ""
        raise SetError(f"{path} line {number} is damaged: {why}{more}")
    if repair and path.exists() and whole_end < path.stat().st_size:
        safefs.truncate(path.parent, path.name, whole_end)
    return [value for _, value, _ in parsed]


def write_manifest(directory: Path, manifest: dict) -> None:
    atomic_write(directory / MANIFEST, (json.dumps(jsonable(manifest), indent=2) + "\n").encode())


def read_manifest(directory: Path) -> dict | None:
    path = Path(directory) / MANIFEST
    try:
        data = safefs.read_bytes(directory, MANIFEST, "manifest")
    except FileNotFoundError:
        return None
    try:
        manifest = loads_json(data, max_bytes=safefs.CAPS["manifest"])
    except InputError as exc:
        raise SetError(f"{path} is damaged ({exc})") from None
    if not isinstance(manifest, dict):
        raise SetError(f"{path} is damaged (not a JSON object)")
    return manifest


def remove_partials(directory: Path) -> int:
    """Remove every `.NAME.partial` left by a killed write, below `directory` without entering links."""
    count = 0
    for _, _, files, dir_fd in os.fwalk(directory, follow_symlinks=False):
        for name in files:
            if name.startswith(".") and name.endswith(".partial"):
                os.unlink(name, dir_fd=dir_fd)  # the name itself, never a link's target
                count += 1
    return count
