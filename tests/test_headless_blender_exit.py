"""docs/export.md's headless command in the real Blender binary (Debian's 3.4.1): an export exits 0 and
frees every block Blender allocated (issue 39 item 9: each run used to end with "Not freed memory blocks"),
and a failing one exits 1 with the error named, because the command passes --python-exit-code 1."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BLENDER = os.environ.get("RB_BLENDER_EXECUTABLE", "/usr/bin/blender")
pytestmark = [pytest.mark.blender_binary,
              pytest.mark.skipif(not os.path.isfile(BLENDER), reason=f"no Blender binary at {BLENDER}")]

SCRIPT = ("import sys; sys.path.insert(0, {repo!r}); import realitybench_addon; realitybench_addon.register(); "
          "import bpy; bpy.ops.realitybench.export(environments={env!r}, random=1, positive=0, "
          "resolution='96x72', samples=1, out={out!r})")


def _headless_export(env: str, out: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    """The documented command line (`blender -b --python-exit-code 1 --python-expr ...`), factory settings and
    user folders of its own."""
    environ = dict(os.environ, BLENDER_USER_CONFIG=str(tmp_path / "config"),
                   BLENDER_USER_SCRIPTS=str(tmp_path / "scripts"))
    environ.pop("PYTHONPATH", None)
    return subprocess.run([BLENDER, "-b", "--factory-startup", "--python-exit-code", "1", "--python-expr",
                           SCRIPT.format(repo=str(REPO), env=env, out=str(out))],
                          env=environ, capture_output=True, text=True, timeout=600)


def test_a_headless_export_exits_0_and_frees_all_memory(tmp_path):
    done = _headless_export("tape_gap", tmp_path / "set", tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert "Not freed memory" not in output, output[-3000:]
    rows = [json.loads(line) for line in (tmp_path / "set" / "metadata.jsonl").read_text().splitlines()]
    assert [row["environment"] for row in rows] == ["tape_gap"]


def test_a_failing_headless_export_exits_1_naming_the_problem(tmp_path):
    done = _headless_export("no_such_place", tmp_path / "set", tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output[-3000:]
    assert "no_such_place" in output and "unknown environment" in output.lower(), output[-3000:]
    assert not (tmp_path / "set" / "metadata.jsonl").exists()
