"""Runs the smoke suite in tests/blender_binary INSIDE the real Blender binary (Debian's 3.4.1).

pytest-blender re-runs pytest inside `blender -b`: it zips realitybench_addon, installs it
into Blender's user scripts folder as a legacy add-on (bpy.ops.preferences.addon_install),
enables it (addon_utils.enable: bl_info + register()), runs the inner suite with Blender's
own Python and pytest (Debian: python3-pytest), then uninstalls it.

Isolation: Blender's user config and scripts folders (BLENDER_USER_CONFIG,
BLENDER_USER_SCRIPTS) and the temp folder point into tmp_path, so the add-on install and the
preferences it saves never touch the developer's Blender; `-c tests/blender_binary/pytest.ini`
keeps the project's pytest configuration and tests/conftest.py out of the inner run.

pytest-blender must NOT be installed into the venv's site-packages: its pytest11 entry
point would then hijack every venv pytest run and re-run it inside Blender. It lives in
its own folder (default .venv/pytest-blender, or $RB_PYTEST_BLENDER_DIR):
    .venv/bin/pip install --no-deps --target .venv/pytest-blender pytest-blender==3.0.8
and only this test's subprocess puts it on PYTHONPATH.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BLENDER = os.environ.get("RB_BLENDER_EXECUTABLE", "/usr/bin/blender")
PLUGIN_DIR = Path(os.environ.get("RB_PYTEST_BLENDER_DIR", REPO / ".venv" / "pytest-blender"))
INNER = "tests/blender_binary"
EXPECTED_PASSED = 10  # every test in test_smoke.py
TIMEOUT_S = 600


def _summary_counts(output: str) -> dict[str, int]:
    """Counts from pytest's final summary line, e.g. '==== 7 passed in 0.31s ===='."""
    lines = [ln for ln in output.splitlines() if re.match(r"^=+ .* in [\d.]+s", ln)]
    if not lines:
        return {}
    return {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", lines[-1])}


@pytest.mark.blender_binary
@pytest.mark.skipif(not os.path.isfile(BLENDER), reason=f"Blender binary not installed at {BLENDER} "
                    "(CI installs Debian's `blender` package; set RB_BLENDER_EXECUTABLE for another path)")
def test_smoke_suite_inside_blender_binary(tmp_path):
    if importlib.util.find_spec("pytest_blender") is None and not (PLUGIN_DIR / "pytest_blender").is_dir():
        pytest.fail(f"pytest-blender is not installed: run `{sys.executable} -m pip install --no-deps "
                    f"--target {PLUGIN_DIR} pytest-blender==3.0.8`")

    # pytest-blender installs every package in the folder it is given: give it just ours.
    addons = tmp_path / "addons"
    shutil.copytree(REPO / "realitybench_addon", addons / "realitybench_addon",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    # Inside the package, as build.py lays out the extension: the installed copy has no repository beside it.
    shutil.copytree(REPO / "presets", addons / "realitybench_addon" / "presets")
    # Options meant for the venv's pytest must not reach Debian's pytest inside Blender.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    for var, sub in (("BLENDER_USER_CONFIG", "config"), ("BLENDER_USER_SCRIPTS", "scripts"), ("TMPDIR", "tmp")):
        (tmp_path / sub).mkdir()
        env[var] = str(tmp_path / sub)
    # Only the plugin goes on the path: a PYTHONPATH holding the working tree would let Blender
    # import the repo's copy instead of the installed add-on.
    env.pop("PYTHONPATH", None)
    if PLUGIN_DIR.is_dir():
        env["PYTHONPATH"] = str(PLUGIN_DIR)
    env["RB_REQUIRE_INSTALLED_ADDON"] = "1"  # the inner suite checks it got the installed copy

    cmd = [sys.executable, "-W", "ignore::DeprecationWarning",  # pytest-blender 3.0.8 reads config.inicfg
           "-m", "pytest", "-p", "pytest-blender",
           "-c", f"{INNER}/pytest.ini", "--rootdir", INNER, "--confcutdir", INNER,
           INNER, "-v", "-rfEX",
           "--blender-executable", BLENDER,
           "--blender-addons-dirs", str(addons)]
    proc = subprocess.run(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=TIMEOUT_S)
    out = proc.stdout
    tail = "\n".join(out.splitlines()[-80:])
    assert proc.returncode == 0, f"inner suite failed (exit {proc.returncode}):\n{tail}"
    assert "realitybench blender_binary: Blender " in out, f"the inner suite did not run inside Blender:\n{tail}"
    counts = _summary_counts(out)
    assert counts == {"passed": EXPECTED_PASSED}, f"{counts}\n{tail}"
