"""A set of every environment is one table: each metadata.jsonl column holds one kind of value in every
environment's rows, or Arrow refuses the whole log and no `datasets` config of the set loads. Checked on real rows
of all environments (geometric frames and a rendered one each), so a new environment or term that breaks the
table fails here, whatever its name."""
import pytest

pytest.importorskip("bpy")

from realitybench_addon import pipeline  # noqa: E402
from realitybench_addon.core.presets import load_environment_preset  # noqa: E402
from realitybench_addon.dataset_card import infer_features  # noqa: E402
from realitybench_addon.envs import registry  # noqa: E402
from realitybench_addon.export import metadata_row  # noqa: E402


@pytest.fixture(scope="module")
def rows_of_every_environment():
    rows = []
    for env in registry.available():
        preset = load_environment_preset(env)
        for index in range(3):  # one built scene: consecutive indices share it
            result = pipeline.run_frame(pipeline.plan_frame(env, 5, "random", index), long_side_px=64,
                                        render=index == 0, samples=1, denoise=False, preset=preset,
                                        cache=pipeline.SHARED_CACHE)
            rows.append(metadata_row(result.record, index, "0" * 16))
    return rows


@pytest.mark.every_environment
def test_every_column_holds_one_kind_of_value_across_environments(rows_of_every_environment):
    rows = rows_of_every_environment
    assert {r["environment"] for r in rows} == set(registry.available())
    features, conflicts = infer_features(rows)
    assert conflicts == []
    assert {f["name"] for f in features} >= {"image", "frame_id", "terms", "target", "ground_truth", "verdict"}


def test_a_range_threshold_has_its_own_column(rows_of_every_environment):
    by_env = {r["environment"]: r for r in rows_of_every_environment}
    car = by_env["car_view"]["terms"]["camera_distance"]
    tape = by_env["tape_gap"]["terms"]["camera_distance"]
    assert car["comparator"] == "between" and car["threshold"] is None and car["threshold_range"] == [1.5, 3.0]
    assert tape["comparator"] == "<=" and isinstance(tape["threshold"], float) and "threshold_range" not in tape
    # the wire's end of the array is not a face name (car_view's target side is "front", "rear", ...)
    assert by_env["wire_adequacy"]["target"]["array_end"] in (-1, 1) and "side" not in by_env["wire_adequacy"]["target"]
    assert by_env["car_view"]["target"]["side"] in ("front", "rear", "driver", "passenger")
