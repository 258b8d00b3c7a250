"""The other Blender lines: the bpy-level suites in each tested line's own wheel.

The default line (bpy 5.2 LTS on Python 3.13, this venv) runs every test; 4.5 LTS (Python 3.11, numpy 1) runs the
suites that build every environment's scene, render and measure frames, export (resume, shards, repair) and drive the
sidebar's operators (`SUITES`); 5.3 (5.2's Python and numpy) the rendering, export and sidebar ones among them
(`LINE_SUITES`). Each runs in its own venv made by `bash scripts/setup.sh --tests`. The other lines run at the same
time, beside this suite's other tests (they start when collection ends and are checked last: conftest.py); they leave
to the default line a few of its heaviest checks (`DEFAULT_LINE_ONLY`), and their many-case tests draw fewer cases
(`blender_lines.cases`).
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from blender_lines import LINE_RUNS, OTHER_LINE_ENV, line_python, other_lines, running_line

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
          "tests/test_render_settings.py", "tests/test_realism_board_gloss.py", "tests/test_realism_walls.py",
          "tests/test_realism_lamps.py"]
# 5.3 runs 5.2's Python and numpy, so what can differ there is Blender itself: above all the compositor (a stack of
# effects since 5.3, bl/compat.py), rendering, the export, the sidebar's operators and the materials. It runs the
# suites of those, which build, render and export every environment too (test_row_schema, test_cli); 4.5 LTS (Python
# 3.11, numpy 1) runs every suite, and the default line every test.
RENDER_AND_UI_SUITES = ["tests/test_cli.py", "tests/test_measure_bpy.py", "tests/test_export.py",
                        "tests/test_sidebar.py", "tests/test_sidebar_state.py", "tests/test_resume_determinism.py",
                        "tests/test_pack_on_save.py", "tests/test_material_cache.py",
                        "tests/test_damage_view_render.py", "tests/test_row_schema.py", "tests/test_frame_rebuild.py",
                        "tests/test_camera_state.py", "tests/test_phone_view.py", "tests/test_menus.py",
                        "tests/test_postprocess_phone_look.py", "tests/test_render_settings.py",
                        "tests/test_guide_loop.py", "tests/test_realism_lamps.py", "tests/test_realism_board_gloss.py",
                        "tests/test_mesh_construction.py", "tests/test_meshes_box.py"]
LINE_SUITES = {"5.3": RENDER_AND_UI_SUITES}
# Left to the default line, where each runs too: more environments of a check the other lines already make on a
# few (the material copies of three more lot scenes, a third fresh-process rebuild) and the harness's scripted
# models, whose bpy part (the guide loop's scene builds) the kill-and-resume test still runs. About a fifth of a
# line's time.
DEFAULT_LINE_ONLY = [
    "tests/test_material_cache.py::test_copied_materials_equal_fresh_ones[car_plate]",
    "tests/test_material_cache.py::test_copied_materials_equal_fresh_ones[damage_view]",
    "tests/test_material_cache.py::test_copied_materials_equal_fresh_ones[ro_board]",
    "tests/test_resume_determinism.py::test_a_frame_in_a_fresh_process_equals_it_after_its_scene_mates[car_view]",
    "tests/test_guide_loop.py::test_scripted_models_against_the_baselines_and_a_hand_computation",
]
TIMEOUT_S = 3000  # both lines run at once, each on about one core


def _counts(output: str) -> dict[str, int]:
    lines = [ln for ln in output.splitlines() if re.search(r"\d+ (passed|failed)", ln)]
    return {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", lines[-1])} if lines else {}


def _line_version(python: Path) -> str:
    version = subprocess.run([str(python), "-c", "import bpy, json; print(json.dumps(bpy.app.version))"],
                             capture_output=True, text=True, timeout=120)
    assert version.returncode == 0, version.stderr
    return ".".join(map(str, json.loads(version.stdout)[:2]))


def start_line_runs(directory: Path, lines) -> dict:
    """The suites of each of `lines` started at once, each writing its output to a file in `directory`; {line:
    (process, output path)}. Most of a suite is one Python thread, so the lines and this suite's other tests share two
    cores well: conftest.py starts them when collection ends and runs their checks last."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTHONPATH")}
    deselect = [arg for node in DEFAULT_LINE_ONLY for arg in ("--deselect", node)]
    runs = {}
    for line in lines:
        python = line_python(line)
        if not python.exists():
            continue
        output = directory / f"line{line}.out"
        suites = LINE_SUITES.get(line, SUITES)
        command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *suites, *deselect]
        with output.open("w") as sink:
            runs[line] = (subprocess.Popen(command, cwd=ROOT, env={**env, OTHER_LINE_ENV: line}, stdout=sink,
                                           stderr=subprocess.STDOUT, text=True), output)
    return runs


def stop_line_runs(runs: dict) -> None:
    for process, _ in runs.values():
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def line_runs(request):
    """The runs conftest.py started when collection ended (it stops what is left at the session's end)."""
    return request.config.stash.get(LINE_RUNS, {})


@pytest.mark.slow
@pytest.mark.timeout(TIMEOUT_S + 300)
@pytest.mark.parametrize("line", other_lines())
def test_bpy_suites_pass_on_each_other_line(line, line_runs):
    python = line_python(line)
    if line not in line_runs:
        pytest.skip(f"no {python.parent.parent.name}: run `bash scripts/setup.sh --tests` "
                    f"(needs a Python {'3.11' if line == '4.5' else '3.13'})")
    assert _line_version(python) == line
    process, output = line_runs[line]
    try:
        process.wait(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    text = output.read_text()
    tail = "\n".join(text.splitlines()[-40:])
    counts = _counts(text)
    assert process.returncode == 0 and counts.get("failed", 0) == 0, f"Blender {line}: {counts}\n{tail}"
    assert counts.get("passed", 0) >= 100, f"Blender {line} ran too few tests: {counts}\n{tail}"


def test_every_slimmer_line_suite_is_one_of_the_suites():
    assert all(set(suites) < set(SUITES) for suites in LINE_SUITES.values())
    assert all(line in other_lines() or line == running_line() for line in LINE_SUITES)


@pytest.mark.slow
def test_the_default_line_only_tests_exist():
    """`--deselect` passes over a name that matches nothing: each one left to the default line is a test here."""
    files = sorted({node.split("::")[0] for node in DEFAULT_LINE_ONLY})
    listed = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *files],
                            cwd=ROOT, capture_output=True, text=True, timeout=600).stdout.splitlines()
    assert set(DEFAULT_LINE_ONLY) <= set(listed), sorted(set(DEFAULT_LINE_ONLY) - set(listed))
