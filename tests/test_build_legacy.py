"""`python build.py --legacy`: the legacy add-on zip for Blender 3.4 (Preferences > Add-ons > Install).

The zip's layout is checked without Blender; then Debian's Blender 3.4.1 installs it as a person would
(bpy.ops.preferences.addon_install + addon_enable) into a temporary user scripts and config folder
(BLENDER_USER_SCRIPTS, BLENDER_USER_CONFIG), and Build Scene runs from the installed copy alone: its
presets are found inside the installed folder, the scene and the phone exist, the thresholds are filled.
"""
from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BLENDER = os.environ.get("RB_BLENDER_EXECUTABLE", shutil.which("blender") or "/usr/bin/blender")
VERSION = tomllib.loads((REPO / "blender_manifest.toml").read_text(encoding="utf-8"))["version"]
ZIP_NAME = f"realitybench-{VERSION}-legacy.zip"


def _build_module():
    spec = importlib.util.spec_from_file_location("rb_build_script", REPO / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def legacy_zip(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("legacy")
    done = subprocess.run([sys.executable, "build.py", "--legacy", "--out", str(out)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert ZIP_NAME in done.stdout
    return out / ZIP_NAME


def _package_files() -> set[str]:
    files = set()
    for source, prefix in ((REPO / "realitybench_addon", "realitybench"), (REPO / "presets", "realitybench/presets")):
        for path in source.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                files.add(f"{prefix}/{path.relative_to(source).as_posix()}")
    return files


def test_legacy_zip_is_one_package_folder_with_presets_and_bl_info(legacy_zip, tmp_path):
    with zipfile.ZipFile(legacy_zip) as archive:
        names = archive.namelist()
        init = archive.read("realitybench/__init__.py").decode()
    assert {name.split("/", 1)[0] for name in names} == {"realitybench"}  # one top folder: the add-on's module
    assert set(names) == _package_files()  # the package and every shipped preset, nothing else
    presets = {n.rsplit("/", 1)[1] for n in names if n.startswith("realitybench/presets/")}
    assert presets == {p.name for p in (REPO / "presets").glob("*.toml")} and len(presets) >= 11
    assert not any(n.endswith("blender_manifest.toml") or "/wheels/" in n or "__pycache__" in n for n in names)
    info = next(ast.literal_eval(node.value) for node in ast.parse(init).body
                if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "bl_info")
    assert info["blender"] == (3, 4, 0) and info["name"] == "RealityBench"
    assert ".".join(map(str, info["version"])) == VERSION
    # the same sources give the same bytes
    again = subprocess.run([sys.executable, "build.py", "--legacy", "--out", str(tmp_path)], cwd=REPO,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert (tmp_path / ZIP_NAME).read_bytes() == legacy_zip.read_bytes()


def test_bl_info_checks_refuse_what_3_4_cannot_install(tmp_path):
    build = _build_module()
    with pytest.raises(build.BuildError, match="at most"):
        build.check_bl_info({"name": "RealityBench", "blender": (4, 2, 0), "version": (0, 1, 0)}, "0.1.0")
    with pytest.raises(build.BuildError, match="bump both"):
        build.check_bl_info({"name": "RealityBench", "blender": (3, 4, 0), "version": (0, 2, 0)}, "0.1.0")
    build.check_bl_info({"name": "RealityBench", "blender": (3, 4, 0), "version": (0, 1, 0)}, "0.1.0")
    init = tmp_path / "__init__.py"
    init.write_text('"""no bl_info here"""\n__version__ = "0.1.0"\n')
    with pytest.raises(build.BuildError, match="no literal bl_info"):
        build.legacy_bl_info(init)
    assert build.legacy_bl_info(REPO / "realitybench_addon" / "__init__.py")["blender"] == (3, 4, 0)


INSIDE_BLENDER = r'''
import json, sys, addon_utils, bpy
zip_path, summary = sys.argv[sys.argv.index("--") + 1:]
assert bpy.ops.preferences.addon_install(filepath=zip_path) == {"FINISHED"}
assert bpy.ops.preferences.addon_enable(module="realitybench") == {"FINISHED"}
module = sys.modules["realitybench"]
settings = bpy.context.window_manager.realitybench
settings.environment, settings.seed, settings.index = "tape_gap", 0, 3
built = bpy.ops.realitybench.build_scene()
from realitybench.core import presets
camera = bpy.context.scene.camera
result = {"built": sorted(built), "file": module.__file__, "presets": str(presets.shipped_presets_dir()),
          "environments": presets.shipped_environments(), "objects": len(bpy.data.objects),
          "camera": camera.name if camera else None, "terms": [t.name for t in settings.terms],
          "enabled": list(addon_utils.check("realitybench")),
          "repo_copy": sorted(m for m in sys.modules if m.startswith("realitybench_addon"))}
assert bpy.ops.preferences.addon_disable(module="realitybench") == {"FINISHED"}
result["after_disable"] = hasattr(bpy.types.WindowManager, "realitybench")
json.dump(result, open(summary, "w"))
'''


@pytest.mark.blender_binary
@pytest.mark.slow
@pytest.mark.skipif(not os.path.isfile(BLENDER), reason=f"no Blender binary at {BLENDER} "
                    "(scripts/setup.sh --tests installs Debian's blender; RB_BLENDER_EXECUTABLE for another)")
def test_legacy_zip_installs_and_builds_a_scene_in_blender_3_4(legacy_zip, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "OCIO")}  # no way to the repo's copy
    for var, sub in (("BLENDER_USER_SCRIPTS", "scripts"), ("BLENDER_USER_CONFIG", "config"), ("TMPDIR", "tmp")):
        (tmp_path / sub).mkdir()
        env[var] = str(tmp_path / sub)
    script, summary = tmp_path / "inside.py", tmp_path / "summary.json"
    script.write_text(INSIDE_BLENDER)
    done = subprocess.run([BLENDER, "-b", "--factory-startup", "--python-exit-code", "1", "--python", str(script),
                           "--", str(legacy_zip), str(summary)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == 0 and summary.is_file(), output[-3000:]
    assert "Traceback" not in output, output[-3000:]
    result = json.loads(summary.read_text())
    installed = tmp_path / "scripts" / "addons" / "realitybench"
    assert Path(result["file"]) == installed / "__init__.py"  # the installed copy, not the checkout's
    assert result["repo_copy"] == []
    assert Path(result["presets"]) == installed / "presets"
    assert len(result["environments"]) >= 11 and "tape_gap" in result["environments"]
    assert result["built"] == ["FINISHED"] and result["camera"] == "RB_Phone" and result["objects"] > 20
    assert "sharp_at_target" in result["terms"]  # the thresholds came from the installed tape_gap preset
    assert result["enabled"] == [True, True]
    assert result["after_disable"] is False
    assert "tape_gap-random-s0-000003" in output  # Build Scene's report names the frame it built
