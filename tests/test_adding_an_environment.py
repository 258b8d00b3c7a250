"""docs/adding-an-environment.md, followed to the letter on a copy of the package.

The page's `file=` blocks are written where they say, its `edit=` block replaces the line it
starts like, and then the new environment runs through the unmodified command line: a frame
without and with a render, and a two-frame export. Every value asserted comes from the run.

Then the suite's tests of every environment (those marked `every_environment`: they iterate the registry) run on
the copy, with the copy's tests, and pass with no other edit: the preset tests, the derived skill / scoring /
feasibility tables, the capture-terms and lot kits, the prompt variants and the row schema (one 64 px render per
environment). The subset is the marked files only, so the run stays at a couple of minutes.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from realitybench_addon.envs import registry
from test_import_contract import import_cycles, violations

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "adding-an-environment.md"
BLOCK = re.compile(r"^```(\w+) (file|edit)=(\S+)\n(.*?)^```\n", re.M | re.S)

pytestmark = pytest.mark.skipif(__import__("importlib").util.find_spec("bpy") is None, reason="needs the bpy wheel")


def doc_blocks() -> list[tuple[str, str, str]]:
    return [(m.group(2), m.group(3), m.group(4)) for m in BLOCK.finditer(DOC.read_text(encoding="utf-8"))]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A copy of the package and its presets with the page's files written and its edit made."""
    root = tmp_path_factory.mktemp("checkout")
    shutil.copytree(ROOT / "realitybench_addon", root / "realitybench_addon",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "presets", root / "presets")
    blocks = doc_blocks()
    assert [(kind, path) for kind, path, _ in blocks] == [
        ("file", "realitybench_addon/envs/roof_vent.py"), ("file", "presets/roof_vent.toml"),
        ("edit", "realitybench_addon/envs/registry.py")]
    for kind, path, text in blocks:
        target = root / path
        if kind == "file":
            assert not target.exists(), f"the page's {path} would overwrite a file of the package"
            target.write_text(text, encoding="utf-8")
        else:
            line = text.splitlines()[0]
            start = line.split("(")[0] + "("
            lines = target.read_text(encoding="utf-8").splitlines(keepends=True)
            hits = [i for i, old in enumerate(lines) if old.startswith(start)]
            assert len(hits) == 1, f"the edit's line starts like {len(hits)} lines of {path}"
            lines[hits[0]] = line + "\n"
            target.write_text("".join(lines), encoding="utf-8")
    return root


MARK = "every_environment"


def marked_test_files(tests: Path) -> list[str]:
    """The test files that use the mark (this file aside: it only names it)."""
    return sorted(f"tests/{p.name}" for p in tests.glob("test_*.py")
                  if p.name != Path(__file__).name and f"mark.{MARK}" in p.read_text(encoding="utf-8"))


def test_the_suites_tests_of_every_environment_pass_with_the_example_added(checkout):
    shutil.copytree(ROOT / "tests", checkout / "tests", ignore=shutil.ignore_patterns("__pycache__", "gui"),
                    dirs_exist_ok=True)
    files = marked_test_files(checkout / "tests")
    assert {"tests/test_shipped_presets.py", "tests/test_environment_tables.py"} <= set(files)
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": str(checkout)}
    # every test but the other ten environments' cases (the suite itself runs those): the example's, the roof
    # environment it is compared with, and the tests that walk the registry inside one test
    others = sorted(set(registry.SPEC_ENVIRONMENTS) - {"rail_attachment"})
    only = " and ".join(f"not {name}" for name in others)
    done = subprocess.run([sys.executable, "-m", "pytest", "-m", MARK, "-k", only, "-v", "-p", "no:cacheprovider",
                           "--rootdir", str(checkout), *files], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=900)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-4000:]
    lines = report.splitlines()
    assert not [line for line in lines if " FAILED" in line or " ERROR" in line], report[-4000:]
    passed = [line.split()[0] for line in lines if "PASSED" in line]

    def tests_of(env: str) -> set[str]:
        return {test.split("[")[0] for test in passed if test.endswith(f"[{env}]")}

    # every test parametrised over a roof environment of the eleven ran on the example too (7 today)
    assert tests_of("rail_attachment") == tests_of("roof_vent") and len(tests_of("roof_vent")) >= 7, report[-4000:]
    # and the row schema, which iterates the registry inside one test, ran on its frames
    assert any("test_every_column_holds_one_kind_of_value_across_environments" in line for line in passed)


def cli(checkout: Path, *args, timeout=600) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-m", "realitybench_addon", *map(str, args)], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_the_new_environment_keeps_the_layers(checkout):
    assert violations(checkout) == []
    assert import_cycles(checkout) == []


def test_frames_measure_every_term_and_know_the_ground_truth(checkout):
    script = r"""
import json, math, sys
from realitybench_addon import pipeline
from realitybench_addon.core.presets import load_environment_preset
from realitybench_addon.envs import registry
from realitybench_addon.envs.roof_poses import on_modules

assert "roof_vent" in registry.available()
preset = load_environment_preset("roof_vent")
cache = pipeline.SceneCache()
out = []
for seed in range(6):
    for index in (0, 1):
        spec = pipeline.plan_frame("roof_vent", seed, "random", index)
        vent = spec.plan.vent
        record = pipeline.run_frame(spec, render=False, preset=preset, cache=cache).record
        again = pipeline.run_frame(pipeline.plan_frame("roof_vent", seed, "random", index), render=False,
                                   preset=preset, cache=pipeline.SceneCache()).record
        out.append({"record": record, "same": json.dumps(record["terms"]) == json.dumps(again["terms"]),
                    "color": vent.color, "on_modules": on_modules(spec.plan.roof, vent.u, vent.v)})
print(json.dumps(out))
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=checkout, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    frames = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(frames) == 12
    geometric = {"sharp_at_target", "vent_in_frame", "vent_unoccluded", "camera_distance"}
    verdicts = set()
    for frame in frames:
        record = frame["record"]
        assert record["ground_truth"] == {"vent_color": frame["color"]}
        assert frame["color"] in ("black", "brown", "gray") and not frame["on_modules"]
        measured = {t["name"] for t in record["terms"] if t["outcome"] not in ("not_applicable", "needs_render")}
        assert measured == geometric, record["terms"]
        m = record["measurements"]
        assert 0.0 <= m["vent_in_frame"] <= 1.0 and 0.0 <= m["vent_unoccluded"] <= 1.0
        assert 0.3 < m["camera_distance"] < 15.0 and m["sharp_at_target"] >= 0.0
        assert frame["same"], "the same frame id measured twice gave other terms"
        assert record["prompt"].count("vent_color") == 1
        verdicts.add(record["verdict"])
    assert "reject" in verdicts and verdicts & {"pending", "accept"}, verdicts


def test_the_command_line_renders_and_exports_it(checkout, tmp_path):
    frame = cli(checkout, "frame", "--env", "roof_vent", "--seed", "0", "--index", "1", "--out", tmp_path / "f",
                "--resolution", "320x240", "--samples", "2")
    assert frame.returncode == 0, frame.stderr[-3000:]
    record = json.loads((tmp_path / "f" / "roof_vent-random-s0-000001.json").read_text())
    assert (tmp_path / "f" / "roof_vent-random-s0-000001.jpg").stat().st_size > 1000
    pixels = record["measurements"]["vent_pixels"]
    in_frame = record["measurements"]["vent_in_frame"]
    assert (pixels > 0) == (in_frame > 0), record["measurements"]  # the mask finds the box where the camera sees it

    export = cli(checkout, "export", "--env", "roof_vent", "--random", "2", "--positive", "0", "--resolution",
                 "320x240", "--samples", "2", "--out", tmp_path / "set")
    assert export.returncode == 0, export.stderr[-3000:]
    rows = [json.loads(line) for line in (tmp_path / "set" / "metadata.jsonl").read_text().splitlines()]
    assert [r["frame_id"] for r in rows] == ["roof_vent-random-s0-000000", "roof_vent-random-s0-000001"]
    assert all((tmp_path / "set" / r["file_name"]).is_file() for r in rows)
    assert json.loads((tmp_path / "set" / "manifest.json").read_text())["complete"] is True
