"""The other Blender lines: the bpy-level suites in each tested line's own wheel.

The default line (bpy 5.2 LTS on Python 3.13, this venv) runs every test; each other line (4.5 LTS
on Python 3.11, 5.3 on Python 3.13) runs the suites that build every environment's scene, render and
measure frames, export (resume, shards, repair) and drive the sidebar's operators, in its own venv
made by `bash scripts/setup.sh --tests`.
"""
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from blender_lines import line_python, other_lines

ROOT = Path(__file__).resolve().parent.parent
SUITES = ["tests/test_cli.py", "tests/test_measure_bpy.py", "tests/test_envs_roof.py", "tests/test_envs_lot.py",
          "tests/test_envs_gauge_label.py", "tests/test_breaker_label.py", "tests/test_horizon_peak.py",
          "tests/test_export.py", "tests/test_sidebar.py", "tests/test_resume_determinism.py",
          "tests/test_mesh_construction.py", "tests/test_pack_on_save.py", "tests/test_material_cache.py",
          "tests/test_scene_bvh.py", "tests/test_car_occlusion.py", "tests/test_damage_dirt.py",
          "tests/test_damage_view_render.py", "tests/test_row_schema.py", "tests/test_frame_rebuild.py",
          "tests/test_positive_strata.py", "tests/test_camera_state.py", "tests/test_meshes_box.py",
          "tests/test_capture_terms_and_lot_kit.py", "tests/test_guide_loop.py", "tests/test_phone_view.py",
          "tests/test_menus.py", "tests/test_sidebar_state.py",
          # issue 41's realism round: leaf cards, ground bakes, props, shingles, module cells, clouds, cars,
          # the phone look
          "tests/test_realism_module_cells.py", "tests/test_realism_sky.py", "tests/test_realism_trees.py", "tests/test_realism_ground.py", "tests/test_realism_props.py",
          "tests/test_realism_roof_shingles.py", "tests/test_realism_cars.py", "tests/test_postprocess_phone_look.py",
          "tests/test_render_settings.py"]
TIMEOUT_S = 1500


def _counts(output: str) -> dict[str, int]:
    lines = [ln for ln in output.splitlines() if re.search(r"\d+ (passed|failed)", ln)]
    return {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", lines[-1])} if lines else {}


@pytest.mark.slow
@pytest.mark.parametrize("line", other_lines())
def test_bpy_suites_pass_on_each_other_line(line):
    python = line_python(line)
    if not python.exists():
        pytest.skip(f"no {python.parent.parent.name}: run `bash scripts/setup.sh --tests` "
                    f"(needs a Python {'3.11' if line == '4.5' else '3.13'})")
    version = subprocess.run([str(python), "-c", "import bpy, json; print(json.dumps(bpy.app.version))"],
                             capture_output=True, text=True, timeout=120)
    assert version.returncode == 0, version.stderr
    assert ".".join(map(str, json.loads(version.stdout)[:2])) == line
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTHONPATH")}
    proc = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *SUITES], cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT_S)
    tail = "\n".join(proc.stdout.splitlines()[-40:])
    counts = _counts(proc.stdout)
    assert proc.returncode == 0 and counts.get("failed", 0) == 0, f"Blender {line}: {counts}\n{tail}"
    assert counts.get("passed", 0) >= 100, f"Blender {line} ran too few tests: {counts}\n{tail}"
