"""The Blender lines RealityBench is tested on, and the interpreter whose bpy wheel is each.

The running interpreter's bpy is one line (the default: 5.2 LTS in `.venv`, or 4.5 LTS where no
Python 3.13 was found); `bash scripts/setup.sh --tests` puts each other line in `.venv-bpy<line>`.
Read without importing bpy: its wheel's version comes from the package metadata.
"""
from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINES = ("4.5", "5.2", "5.3")  # 4.5 LTS on Python 3.11; 5.2 LTS and 5.3 on Python 3.13


def running_line() -> str | None:
    """The line of this interpreter's bpy wheel ("5.2"), or None without one."""
    try:
        version = importlib.metadata.version("bpy")
    except importlib.metadata.PackageNotFoundError:
        return None
    return ".".join(version.split(".")[:2])


def line_python(line: str) -> Path:
    """The interpreter whose bpy is Blender `line` (it may not exist: see scripts/setup.sh)."""
    if line == running_line():
        return Path(sys.executable)
    return ROOT / f".venv-bpy{line}" / "bin" / "python"


def other_lines() -> tuple[str, ...]:
    """The lines tested beside the running one."""
    return tuple(line for line in LINES if line != running_line())
