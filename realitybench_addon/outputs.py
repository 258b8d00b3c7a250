"""The files a command reads and writes besides a set: its output folder, the .blend it opens or saves, and a
frame's JPEG and JSON record. Each problem is a one-line RealityBenchError that names the path."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

from .core.errors import RealityBenchError
from .setio import atomic_write, jsonable


def ensure_writable_dir(out: str | os.PathLike) -> Path:
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RealityBenchError(f"cannot create output folder {out}: {exc.strerror}") from None
    if not os.access(out, os.W_OK):
        raise RealityBenchError(f"output folder {out} is not writable")
    return out


def check_out_blend(out_blend: str | os.PathLike, flag: str = "--out") -> Path:
    """The .blend file a command will save, checked before any work: not a folder, not a pipe or device, in a
    folder that exists or can be made and is writable."""
    out_blend = Path(out_blend)
    if out_blend.is_dir():
        raise RealityBenchError(f"{flag} {out_blend} is a folder; give the .blend file to write, e.g. "
                                f"{out_blend / 'frame.blend'}")
    if out_blend.exists() and not out_blend.is_file():
        raise RealityBenchError(f"{flag} {out_blend} exists and is not a regular file (a pipe or device); refused")
    ensure_writable_dir(out_blend.parent)
    return out_blend


def open_blend(path: str | os.PathLike) -> None:
    path = Path(path)
    if not path.is_file():
        raise RealityBenchError(f"no such .blend file: {path}")
    import bpy

    try:
        bpy.ops.wm.open_mainfile(filepath=str(path), load_ui=False)
    except RuntimeError as exc:
        raise RealityBenchError(f"cannot open {path}: {str(exc).strip().splitlines()[-1]}") from None


def save_blend(out_blend: str | os.PathLike, *, pack: bool = False) -> None:
    """Save the open scene as `out_blend` (compressed), its images packed into it with `pack`."""
    import bpy

    if pack:
        bpy.ops.file.pack_all()
    bpy.ops.wm.save_as_mainfile(filepath=str(out_blend), compress=True)


def write_record(out: Path, record: dict, jpeg: Optional[bytes] = None) -> None:
    """A frame's JPEG (as `record["file_name"]`, when given) and its record as `<frame id>.json`, atomically."""
    if jpeg is not None:
        atomic_write(out / record["file_name"], jpeg)
    atomic_write(out / f"{record['frame_id']}.json", (json.dumps(jsonable(record), indent=2) + "\n").encode())
