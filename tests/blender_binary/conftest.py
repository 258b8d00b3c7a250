"""Inner smoke suite: runs INSIDE a real Blender executable (Debian's Blender 3.4.1 in CI).

Launched by tests/test_blender_binary.py through pytest-blender, which zips
realitybench_addon, installs it into a throw-away user scripts folder with
`bpy.ops.preferences.addon_install` and enables it with `addon_utils.enable` (reads
`bl_info`, calls `register()`): the legacy add-on path of Blender < 4.2.

Collection guard. These tests need the bpy of a Blender *binary*; in the venv `bpy` is
the 4.5 wheel, where they would test the wrong thing. Inside a Blender binary `bpy` is
imported before any script runs and `bpy.app.binary_path` is the executable; the wheel
reports an empty `binary_path` (and plain Python has no `bpy` imported yet). So:
  - a directory run from the venv (`pytest tests`, `pytest tests/blender_binary`) does
    not collect the test files at all (`collect_ignore_glob` below);
  - naming a file explicitly skips it at module level (see test_smoke.py).
No change to tests/conftest.py or the project's pytest configuration is needed.
"""
from __future__ import annotations

import os
import sys

import pytest

ADDON = "realitybench_addon"
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def inside_blender_binary() -> bool:
    bpy = sys.modules.get("bpy")
    return bpy is not None and bool(getattr(bpy.app, "binary_path", ""))


INSIDE = inside_blender_binary()

if not INSIDE:
    collect_ignore_glob = ["test_*.py"]


def pytest_report_header(config):
    if not INSIDE:
        return "realitybench blender_binary: not inside a Blender executable; nothing collected"
    import addon_utils
    import bpy

    mod = sys.modules.get(ADDON)
    where = getattr(mod, "__file__", None) or "not loaded"
    return (f"realitybench blender_binary: Blender {bpy.app.version_string} at {bpy.app.binary_path}; "
            f"add-on {ADDON} enabled={addon_utils.check(ADDON)[1]} from {where}")


def raise_error(exc):
    """addon_utils' handle_error: fail loudly instead of printing the traceback."""
    raise exc


def ensure_enabled():
    """Make sure the add-on is enabled the way Blender enables a legacy add-on; return its module.

    Normally pytest-blender has installed and enabled it already. Run any other way (a plain
    `blender -b --python-expr "import pytest; pytest.main([...])"`), the working tree is put on
    sys.path and enabled through addon_utils all the same. A file load that resets the
    preferences (wm.read_factory_settings) disables it; this enables it again.
    """
    import addon_utils

    if not addon_utils.check(ADDON)[1]:
        if ADDON not in sys.modules and REPO_ROOT not in sys.path:
            try:
                import importlib.util

                found = importlib.util.find_spec(ADDON) is not None
            except (ImportError, ValueError):
                found = False
            if not found:
                sys.path.insert(0, REPO_ROOT)
        addon_utils.enable(ADDON, default_set=True, handle_error=raise_error)
    return sys.modules[ADDON]


@pytest.fixture
def addon():
    """The enabled add-on module."""
    return ensure_enabled()
