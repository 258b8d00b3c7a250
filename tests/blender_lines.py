"""The Blender lines RealityBench is tested on, and the interpreter whose bpy wheel is each.

The running interpreter's bpy is one line (the default: 5.2 LTS in `.venv`, or 4.5 LTS where no
Python 3.13 was found); `bash scripts/setup.sh --tests` puts each other line in `.venv-bpy<line>`.
Read without importing bpy: its wheel's version comes from the package metadata.
"""
from __future__ import annotations

import importlib.metadata
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINES = ("4.5", "5.2", "5.3")  # 4.5 LTS on Python 3.11; 5.2 LTS and 5.3 on Python 3.13

# The other lines' runs of this session ({line: process}), kept by the process that started them (conftest.py: the
# session, or xdist's controller), and the folder where each run writes line<N>.out and, once it has ended, line<N>.rc.
LINE_RUNS = pytest.StashKey[dict]()
LINE_DIR = pytest.StashKey[Path]()
LINE_DIR_WORKER_INPUT = "realitybench_line_dir"  # how xdist's controller tells its workers the folder
LINE_FILE = "tests/test_blender_lines.py"
LINE_TESTS = f"{LINE_FILE}::test_bpy_suites_pass_on_each_other_line"


# The longest files (minutes each on two cores), handed out first: under xdist a worker that draws one of them near
# the end would run alone for its whole length while the other waits (longest-first packs two workers tightly).
# xdist keeps this order only with --no-loadscope-reorder (the README's command); by default it hands out the files
# with the most tests first, which put the one-test sidebar flow last.
LONGEST_FILES = ("tests/test_gui_sidebar.py", "tests/test_envs_gauge_label.py", "tests/test_hostile_set.py",
                 "tests/test_legibility.py", "tests/test_envs_roof.py", "tests/test_export.py",
                 "tests/test_adding_an_environment.py")


def selected_lines(nodeids) -> list[str]:
    """The lines whose checks are among `nodeids` ("...::test_bpy_suites_pass_on_each_other_line[4.5]" -> "4.5")."""
    return [nodeid.rsplit("[", 1)[1].rstrip("]") for nodeid in nodeids if nodeid.startswith(LINE_TESTS + "[")]


def line_directory(config) -> Path | None:
    """Where this session's line runs write (None where none started): an xdist worker is told by its controller."""
    worker_input = getattr(config, "workerinput", None)
    if worker_input is not None:
        return Path(worker_input[LINE_DIR_WORKER_INPUT]) if LINE_DIR_WORKER_INPUT in worker_input else None
    return config.stash.get(LINE_DIR, None)


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


# Set in each other line's suite run (tests/test_blender_lines.py): the line's name.
OTHER_LINE_ENV = "REALITYBENCH_OTHER_LINE"


def cases(default_line: int, other_line: int) -> int:
    """How many seeds or frames a many-case test draws: `default_line` where the whole suite runs, `other_line` in
    an other line's run, which checks that the same code builds and measures under another Blender (the default
    line is where the many cases are checked)."""
    return other_line if os.environ.get(OTHER_LINE_ENV) else default_line
