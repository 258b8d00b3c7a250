"""Hostile presets and hostile `measure` input: one-line errors with exit 2, never a traceback.

Presets: a term reading a measurement the environment never produces (it used to load, then fail on
every frame and flip accepted frames to reject), and a file that is not UTF-8 (a traceback).
measure: targets without a surface (an empty, a light, a camera: a traceback; a degenerate or
collinear mesh: in-frame and visible fractions of 1.0 for 0 rendered pixels) and a sample count that
cannot fit in memory (killed at ~23 GB).
"""
import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from realitybench_addon.core.presets import (
    PresetError,
    load_environment_preset,
    load_preset,
    measurement_names,
    shipped_presets_dir,
)

ROOT = Path(__file__).resolve().parent.parent
TAPE_GAP_MEASUREMENTS = ("sharp_at_target, crossing_in_frame, crossing_unoccluded, camera_distance, tape_tilt, "
                         "apparent_tilt_deg, viewed_from_blade_front")

UNKNOWN_TERM = """
[terms.crossing_readable]
label = "Crossing readable"
kind = "geometric"
unit = "bool"
comparator = "is_true"
"""

REUSED_MEASUREMENT = """
[terms.close_enough]
label = "Close enough"
kind = "geometric"
unit = "m"
comparator = "<="
threshold = 1.0
measure = "camera_distance"
"""


def run_cli(*args, timeout=300, memory_limit=None):
    def limit():  # a runaway allocation fails fast instead of taking the machine down
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

    return subprocess.run([sys.executable, "-m", "realitybench_addon", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout,
                          preexec_fn=limit if memory_limit else None)


def assert_one_line_error(done, message):
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert message in lines[0], lines[0]


def shipped_text(environment="tape_gap"):
    return (shipped_presets_dir() / f"{environment}.toml").read_text(encoding="utf-8")


def preset_dir(root: Path, name: str, content: bytes) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "tape_gap.toml").write_bytes(content)
    return folder


@pytest.fixture
def hostile_presets(tmp_path):
    """name -> a folder holding one tape_gap.toml."""
    latin1 = shipped_text().replace('label = "Tape lean"', 'label = "Tape lean \xe9"').encode("latin-1")
    return {
        "unknown_term": preset_dir(tmp_path, "unknown_term", (shipped_text() + UNKNOWN_TERM).encode()),
        "latin1": preset_dir(tmp_path, "latin1", latin1),
        "reused": preset_dir(tmp_path, "reused", (shipped_text() + REUSED_MEASUREMENT).encode()),
    }


UNKNOWN_TERM_MESSAGE = (f"unknown_term/tape_gap.toml: terms.crossing_readable: 'crossing_readable' is not a "
                        f"measurement of tape_gap; measurements: {TAPE_GAP_MEASUREMENTS}")
LATIN1_MESSAGE = "latin1/tape_gap.toml: <file>: is not UTF-8 text (byte 0xe9 at offset"


# --- the loader (pure Python) ---------------------------------------------------------------------------


def test_shipped_preset_lists_the_measurements_it_reads():
    assert ", ".join(measurement_names(load_environment_preset("tape_gap"))) == TAPE_GAP_MEASUREMENTS


def test_a_term_reading_no_measurement_is_refused(hostile_presets):
    with pytest.raises(PresetError) as err:
        load_environment_preset("tape_gap", [hostile_presets["unknown_term"]])
    assert err.value.key == "terms.crossing_readable"
    assert str(err.value).endswith(UNKNOWN_TERM_MESSAGE)


@pytest.mark.parametrize("key,term,text", [
    ("measure", "close_enough",
     (shipped_text() + REUSED_MEASUREMENT).replace('"camera_distance"', '"camera_distanse"')),
    ("gray_measure", "tape_tilt", shipped_text().replace('"apparent_tilt_deg"', '"apparent_tilt"')),
])
def test_measure_and_gray_measure_must_name_a_measurement(tmp_path, key, term, text):
    path = tmp_path / "tape_gap.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PresetError) as err:
        load_preset(path)
    assert err.value.key == f"terms.{term}.{key}"
    bad = "camera_distanse" if key == "measure" else "apparent_tilt"
    assert f"'{bad}' is not a measurement of tape_gap; measurements: {TAPE_GAP_MEASUREMENTS}" in str(err.value)


def test_a_new_term_may_reuse_a_known_measurement(hostile_presets):
    preset = load_environment_preset("tape_gap", [hostile_presets["reused"]])
    assert preset.term("close_enough").measurement_key == "camera_distance"
    assert preset.term("close_enough").threshold == 1.0


def test_a_file_that_is_not_utf8_is_refused(hostile_presets):
    with pytest.raises(PresetError) as err:
        load_environment_preset("tape_gap", [hostile_presets["latin1"]])
    assert err.value.key == "<file>"
    assert LATIN1_MESSAGE in str(err.value) and "TOML files must be UTF-8" in str(err.value)


def test_a_preset_of_an_environment_that_does_not_exist_is_refused(tmp_path):
    path = tmp_path / "roof_tiles.toml"
    path.write_text(shipped_text().replace('environment = "tape_gap"', 'environment = "roof_tiles"'), encoding="utf-8")
    with pytest.raises(PresetError) as err:
        load_preset(path)
    assert err.value.key == "environment"
    assert "'roof_tiles' is not a known environment; known: breaker_label, car_plate" in str(err.value)


def test_tuning_an_unknown_term_is_a_preset_error():
    # the sidebar's Apply catches PresetError, not KeyError
    with pytest.raises(PresetError) as err:
        load_environment_preset("tape_gap").with_term("crossing_readable", threshold=1.0)
    assert err.value.key == "terms.crossing_readable"
    assert "no such term in tape_gap; terms: sharp_at_target, crossing_in_frame" in str(err.value)


# --- rescore / export --presets on the command line ----------------------------------------------------


@pytest.fixture(scope="module")
def tiny_set(tmp_path_factory):
    """Two tape_gap frames at 160x120 with one Cycles sample (one of them accepted)."""
    pytest.importorskip("bpy")
    out = tmp_path_factory.mktemp("set") / "set"
    done = run_cli("export", "--env", "tape_gap", "--random", 2, "--positive", 0, "--resolution", "160x120",
                   "--samples", 1, "--recycle-every", 0, "--out", out, timeout=600)
    assert done.returncode == 0, done.stderr
    return out


def snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name,message", [("unknown_term", UNKNOWN_TERM_MESSAGE), ("latin1", LATIN1_MESSAGE)])
def test_rescore_refuses_a_hostile_preset(tiny_set, hostile_presets, name, message):
    before = snapshot(tiny_set)
    verdicts = [json.loads(line)["verdict"] for line in (tiny_set / "metadata.jsonl").read_text().splitlines()]
    assert "accept" in verdicts  # the frame an unknown term used to flip to reject
    done = run_cli("rescore", tiny_set, "--presets", hostile_presets[name])
    assert_one_line_error(done, message)
    assert done.stderr.startswith(f"error: bad preset: {hostile_presets[name]}/tape_gap.toml: ")
    assert done.stdout == ""
    assert snapshot(tiny_set) == before


def test_rescore_with_a_reused_measurement_flips_nothing(tiny_set, hostile_presets):
    done = run_cli("rescore", tiny_set, "--presets", hostile_presets["reused"])
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["frames"] == 2 and report["flipped"] == 0


@pytest.mark.parametrize("name,message", [("unknown_term", UNKNOWN_TERM_MESSAGE), ("latin1", LATIN1_MESSAGE)])
def test_export_refuses_a_hostile_preset_before_touching_the_disk(tmp_path, hostile_presets, name, message):
    pytest.importorskip("bpy")
    out = tmp_path / "out"
    done = run_cli("export", "--env", "tape_gap", "--random", 1, "--positive", 0, "--resolution", "160x120",
                   "--samples", 1, "--recycle-every", 0, "--presets", hostile_presets[name], "--out", out)
    assert_one_line_error(done, message)
    assert done.stderr.startswith(f"error: bad preset: {hostile_presets[name]}/tape_gap.toml: ")
    assert not out.exists()


# --- measure ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_blend(tmp_path_factory):
    """A plate 1.5 m in front of a camera, and in view of it: an empty, a point light, a second camera,
    a quad whose four corners coincide and a triangle whose corners lie on one line."""
    pytest.importorskip("bpy")
    path = tmp_path_factory.mktemp("blend") / "hostile.blend"
    script = f"""
import sys; sys.path.insert(0, {str(ROOT)!r})
import bpy
from realitybench_addon.bl import analytic
scene = analytic.reset_scene()
analytic.uniform_world(scene, 1.0)
analytic.card_with_ink(scene, "Plate", 0.3, 0.2, analytic.frame_matrix((0, 1.5, 0), (0, -1, 0), (1, 0, 0)))
analytic.add_camera(scene, "Cam", (0, 0, 0), (0, 1.5, 0), focal_mm=26.0, sensor_width_mm=36.0, resolution=(160, 120))
for name, data, location in (("Marker", None, (0, 1.2, 0)),
                             ("Lamp", bpy.data.lights.new("LampData", "POINT"), (0.1, 1.2, 0)),
                             ("Cam2", bpy.data.cameras.new("Cam2Data"), (0, 1.2, 0.1))):
    obj = bpy.data.objects.new(name, data)
    obj.location = location
    scene.collection.objects.link(obj)
analytic.add_mesh(scene, "Flat", [(0.05, 1.2, 0.0)] * 4, [(0, 1, 2, 3)])
analytic.add_mesh(scene, "Line", [(0.1, 1.4, 0.02), (0.2, 1.4, 0.04), (0.3, 1.4, 0.06)], [(0, 1, 2)])
bpy.ops.wm.save_as_mainfile(filepath={str(path)!r})
"""
    subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, timeout=120)
    return path


NO_SURFACE = "which has no surface to measure; a target must be a mesh, curve, surface, metaball or text object"


@pytest.mark.parametrize("target,message", [
    ("Marker", f"object 'Marker' is an empty, {NO_SURFACE}"),
    ("Lamp", f"object 'Lamp' is a light, {NO_SURFACE}"),
    ("Cam2", f"object 'Cam2' is a camera, {NO_SURFACE}"),
    ("Flat", "target 'Flat' has no surface to measure: its faces' total area is 0 m^2 "
             "(their corners coincide or lie on one line)"),
    ("Line", "target 'Line' has no surface to measure: its faces' total area is "),
])
def test_measure_refuses_a_target_without_a_surface(hostile_blend, target, message):
    done = run_cli("measure", "--blend", hostile_blend, "--camera", "Cam", "--target", target)
    assert_one_line_error(done, message)
    assert done.stdout == ""
    if target == "Line":  # float32 corners on a line leave rounding noise, far below the plate's 0.06 m^2
        area = float(done.stderr.split("total area is ")[1].split(" m^2")[0])
        assert 0 < area < 1e-8


def test_measure_still_measures_the_plate_in_the_same_file(hostile_blend):
    done = run_cli("measure", "--blend", hostile_blend, "--camera", "Cam", "--target", "Plate")
    assert done.returncode == 0, done.stderr
    m = json.loads(done.stdout)
    assert m["in_frame_fraction"] == 1.0 and m["distance_m"] == pytest.approx(1.5)


def test_measure_refuses_a_sample_count_that_cannot_fit(hostile_blend):
    message = ("--samples-on-target must be a whole number from 10 to 1,000,000 (about 350 bytes of memory each), "
               "not 100000000")
    done = run_cli("measure", "--blend", hostile_blend, "--camera", "Cam", "--target", "Plate",
                   "--samples-on-target", 100_000_000, memory_limit=4 << 30, timeout=120)
    assert_one_line_error(done, message)
    # the largest allowed count runs within the same 4 GiB
    done = run_cli("measure", "--blend", hostile_blend, "--camera", "Cam", "--target", "Plate",
                   "--samples-on-target", 1_000_000, memory_limit=4 << 30, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["n_samples"] >= 1_000_000


def test_api_measure_has_the_same_bound(hostile_blend):
    script = f"""
import sys; sys.path.insert(0, {str(ROOT)!r})
from realitybench_addon import api
for n in (10**8, 5, 2.5, True):
    try:
        api.measure("Plate", "Cam", blend={str(hostile_blend)!r}, n_samples=n)
    except api.RealityBenchError as exc:
        print(exc)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30)))
    assert done.returncode == 0, done.stderr
    prefix = "--samples-on-target must be a whole number from 10 to 1,000,000 (about 350 bytes of memory each), not "
    assert done.stdout.splitlines() == [prefix + "100000000", prefix + "5", prefix + "2.5", prefix + "True"]
