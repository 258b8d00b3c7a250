"""The same frame ids give the same records on every Blender line.

Each environment's build suites (geometry, ground truth, every term's measurement over many seeds) run on the
default line, 5.2 LTS. On the other lines the record a frame id gives must equal 5.2's, field by field (the Blender
version aside, floats to their last digits): then those suites' checks hold there too, while the other lines run
only the suites where Blender itself differs (rendering, export, the sidebar, drawn text: tests/test_blender_lines.py).
"""
import json

import pytest

from blender_lines import line_python, line_records, other_lines, record_differences, running_line

SEED = 3  # not the seed the suites and the README's export use most
FRAMES = 1  # per environment: every environment's scene is built and measured


@pytest.fixture(scope="module")
def default_records(tmp_path_factory):
    if running_line() is None:
        pytest.skip("no bpy in this interpreter")
    return line_records(running_line(), tmp_path_factory.mktemp("default") / "records.json", FRAMES, SEED)["records"]


@pytest.mark.slow
@pytest.mark.parametrize("line", other_lines())
def test_every_environments_record_equals_the_default_lines(line, default_records, tmp_path):
    if not line_python(line).exists():
        pytest.skip(f"no .venv-bpy{line}: run `bash scripts/setup.sh --tests`")
    records = line_records(line, tmp_path / "records.json", FRAMES, SEED)["records"]
    assert len(default_records) == 11 * FRAMES and records.keys() == default_records.keys()
    differing = {fid: record_differences(default_records[fid], records[fid]) for fid in records}
    differing = {fid: fields for fid, fields in differing.items() if fields}
    assert differing == {}, differing
    # the version is the one field left out of the comparison: it names each line's own Blender
    some = next(iter(records))
    assert records[some]["versions"] != default_records[some]["versions"]


def test_differences_are_found_beyond_the_last_float_digits():
    record = {"versions": {"blender": "5.2.0"}, "verdict": "accept", "terms": [{"name": "camera_distance",
              "value": 1.0}, {"name": "view_angle", "value": float("nan")}], "ground_truth": {"tilted": False}}
    same = json.loads(json.dumps(record).replace("5.2.0", "4.5.15"))
    same["terms"][0]["value"] = 1.0 + 1e-12  # numpy 1 and 2 sum in different orders
    assert record_differences(record, same) == []
    moved = json.loads(json.dumps(same))
    moved["terms"][0]["value"] = 1.001
    moved["ground_truth"]["tilted"] = True
    assert record_differences(record, moved) == ["terms.camera_distance.value", "ground_truth.tilted"]
    assert record_differences(record, {**same, "extra": 1}) == ["(keys)"]
