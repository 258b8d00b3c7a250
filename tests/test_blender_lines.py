"""The other Blender lines: the bpy-level suites in each tested line's own wheel.

The default line (bpy 5.2 LTS on Python 3.13, this venv) runs every test. Each other line runs the suites where
Blender itself can differ (`LINE_SUITES`): rendering, the compositor, the CLI and the sidebar's operators; 4.5 LTS
(Python 3.11, numpy 1) also an export and its rebuilt frames, the sidebar's state and the checks of drawn text and
Blender's ray casts.
tests/test_line_records.py checks that every environment's frame gives the same record on each line as on 5.2, where
the environments' build suites and the export's orchestration run. Each line runs in its own venv made by
`bash scripts/setup.sh --tests`. The other lines run at the same time, beside this suite's other tests (they start
when collection ends and are checked last: conftest.py); their many-case tests draw fewer cases
(`blender_lines.cases`).
"""
import json
import os
import re
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import pytest

from blender_lines import (LINE_DIR, LINE_DIR_WORKER_INPUT, LINE_FILE, LINE_TESTS, OTHER_LINE_ENV, line_directory,
                           line_python, other_lines, selected_lines)

ROOT = Path(__file__).resolve().parent.parent
# What can differ on another line is Blender itself: above all the compositor (a stack of effects since 5.3,
# bl/compat.py), rendering, the sidebar's operators and mesh and material building. Every line runs the suites of
# those, which build and render frames of several environments (test_cli, test_sidebar).
RENDER_AND_UI_SUITES = ["tests/test_cli.py", "tests/test_measure_bpy.py", "tests/test_sidebar.py",
                        "tests/test_damage_view_render.py", "tests/test_camera_state.py", "tests/test_phone_view.py",
                        "tests/test_menus.py", "tests/test_postprocess_phone_look.py", "tests/test_render_settings.py",
                        "tests/test_realism_lamps.py", "tests/test_realism_board_gloss.py",
                        "tests/test_mesh_construction.py", "tests/test_meshes_box.py"]
# 4.5 LTS is the oldest line, on Python 3.11 and numpy 1. It also runs an export and its rebuild (test_frame_rebuild),
# the sidebar's state machine, and the checks where Blender's own text and ray casts can differ: drawn text (text
# curves, the LCD's digits, the label's rows) and Blender's ray casts against the skyline the code measures.
OLDEST_LINE_CHECKS = ["tests/test_frame_rebuild.py", "tests/test_sidebar_state.py",
                      "tests/test_envs_gauge_label.py::test_digit_height_term_is_the_projected_height_of_a_drawn_digit",
                      "tests/test_envs_gauge_label.py::test_the_readings_character_boxes_are_where_the_built_lcd_draws_them",
                      "tests/test_envs_gauge_label.py::test_label_terms_are_the_projected_rows_and_bars_as_drawn",
                      "tests/test_breaker_label.py",
                      "tests/test_horizon_peak.py::test_skyline_agrees_with_blender_ray_casts"]
# Not on the other lines: the export's orchestration (worker processes, shards, resume, repair, the guide loop), a
# fresh process's rebuild, the material cache and the set's column kinds are Python's and numpy's, not Blender's,
# and run on the default line. tests/test_line_records.py checks that every environment's record (every column's
# value, every occlusion term the scene's BVH answers) is the same on each line. The environments' build suites
# (geometry, ground truth, every term over many seeds) run on the default line too. (5.2 is an other line only on a
# machine without Python 3.13, where 4.5 is the default.)
OLDEST_LINE_SUITES = RENDER_AND_UI_SUITES + OLDEST_LINE_CHECKS
LINE_SUITES = {"4.5": OLDEST_LINE_SUITES, "5.2": OLDEST_LINE_SUITES, "5.3": RENDER_AND_UI_SUITES}
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
    """The suites of each of `lines` started at once; {line: process}. Each writes its output to line<N>.out in
    `directory` and, when it has ended, its exit status to line<N>.rc (a check in another process, an xdist worker,
    waits for that file). Most of a suite is one Python thread, so the lines and this suite's other tests share two
    cores well: conftest.py starts them when collection ends and runs their checks last."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTHONPATH")}
    env = {k: v for k, v in env.items() if not k.startswith("PYTEST_XDIST")}
    runs = {}
    for line in lines:
        python = line_python(line)
        if not python.exists():
            continue
        suites = LINE_SUITES[line]
        # not niced: a niced line got ~5 % of a core beside two workers, and its tests' subprocess timeouts ran out
        # --durations: where a line's time goes, in its output (the check shows the output's tail on a failure)
        command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=30", *suites]
        with (directory / f"line{line}.out").open("w") as sink:
            process = subprocess.Popen(command, cwd=ROOT, env={**env, OTHER_LINE_ENV: line}, stdout=sink,
                                       stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=_record_exit, args=(process, directory / f"line{line}.rc"), daemon=True).start()
        runs[line] = process
    return runs


def _record_exit(process: subprocess.Popen, path: Path) -> None:
    code = process.wait()
    partial = path.with_suffix(".rc.partial")
    partial.write_text(str(code))
    partial.replace(path)  # whole or absent: the check never reads a half-written status


def stop_line_runs(runs: dict) -> None:
    for process in runs.values():
        if process.poll() is None:
            process.kill()
            process.wait()


def wait_for_exit(directory: Path, line: str, timeout_s: float) -> int | None:
    """The line run's exit status, once it has ended; None if it has not ended within `timeout_s`."""
    status = directory / f"line{line}.rc"
    deadline = time.monotonic() + timeout_s
    while not status.exists():
        if time.monotonic() > deadline:
            return None
        time.sleep(2)
    return int(status.read_text())


@pytest.mark.slow
@pytest.mark.timeout(TIMEOUT_S + 300)
@pytest.mark.parametrize("line", other_lines())
def test_bpy_suites_pass_on_each_other_line(line, request):
    python = line_python(line)
    if not python.exists():
        pytest.skip(f"no {python.parent.parent.name}: run `bash scripts/setup.sh --tests` "
                    f"(needs a Python {'3.11' if line == '4.5' else '3.13'})")
    assert _line_version(python) == line
    directory = line_directory(request.config)
    assert directory is not None and (directory / f"line{line}.out").exists(), \
        f"Blender {line}'s suites were not started (conftest.py starts them when collection ends)"
    code = wait_for_exit(directory, line, TIMEOUT_S)
    text = (directory / f"line{line}.out").read_text()
    tail = "\n".join(text.splitlines()[-40:])
    assert code is not None, f"Blender {line}: still running after {TIMEOUT_S} s\n{tail}"
    counts = _counts(text)
    assert code == 0 and counts.get("failed", 0) == 0, f"Blender {line}: {counts}\n{tail}"
    assert counts.get("passed", 0) >= 100, f"Blender {line} ran too few tests: {counts}\n{tail}"


def test_every_other_line_runs_suites_that_exist():
    assert set(other_lines()) <= set(LINE_SUITES)
    assert all((ROOT / path.split("::")[0]).is_file() for suites in LINE_SUITES.values() for path in suites)


@pytest.mark.slow
def test_the_tests_a_line_runs_alone_exist():
    """A line's suite may name single tests by id: each one must name a test here (a renamed test would leave the
    line running nothing in its place)."""
    nodes = {path for suites in LINE_SUITES.values() for path in suites if "::" in path}
    files = sorted({node.split("::")[0] for node in nodes})
    listed = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *files],
                            cwd=ROOT, capture_output=True, text=True, timeout=600).stdout.splitlines()
    assert nodes <= set(listed), sorted(nodes - set(listed))


def test_the_started_lines_are_read_from_the_checks_ids():
    """xdist's controller sees only node ids: the lines to start are the parameters of the selected checks."""
    ids = [f"{LINE_TESTS}[4.5]", "tests/test_cli.py::test_help[4.5]",
           f"{LINE_FILE}::test_the_tests_a_line_runs_alone_exist", f"{LINE_TESTS}[5.3]"]
    assert selected_lines(ids) == ["4.5", "5.3"]
    assert selected_lines(ids[1:3]) == []


def test_a_worker_reads_the_folder_its_controller_named(tmp_path):
    worker = types.SimpleNamespace(workerinput={LINE_DIR_WORKER_INPUT: str(tmp_path)}, stash={})
    assert line_directory(worker) == tmp_path
    assert line_directory(types.SimpleNamespace(workerinput={}, stash={})) is None
    session = types.SimpleNamespace(stash={LINE_DIR: tmp_path})  # no xdist: the session started them itself
    assert line_directory(session) == tmp_path


def test_a_runs_exit_status_is_written_whole_once_it_ends(tmp_path):
    """A check in another process reads the status file: absent while the run lasts, then its exit code."""
    release = tmp_path / "release"
    script = (f"import pathlib, sys, time\nwhile not pathlib.Path({str(release)!r}).exists(): time.sleep(0.05)\n"
              "sys.exit(3)")
    process = subprocess.Popen([sys.executable, "-c", script])
    try:
        threading.Thread(target=_record_exit, args=(process, tmp_path / "line9.9.rc"), daemon=True).start()
        assert wait_for_exit(tmp_path, "9.9", timeout_s=0.5) is None  # still running: no status yet
        release.touch()
        assert wait_for_exit(tmp_path, "9.9", timeout_s=60) == 3
        assert sorted(p.name for p in tmp_path.iterdir()) == ["line9.9.rc", "release"]  # no partial file left
    finally:
        stop_line_runs({"9.9": process})


def test_the_files_handed_out_first_exist():
    """conftest.py hands the longest files out first by name: a renamed one would silently lose its place."""
    from blender_lines import LONGEST_FILES

    assert all((ROOT / path).is_file() for path in LONGEST_FILES), LONGEST_FILES
