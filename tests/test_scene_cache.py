"""The scene cache (`pipeline.SceneCache`) reuses a built scene only while that scene is still there.

CI met the class this guards: a test emptied the scene and built another in the same process, the sun lamp the
cache used to look for was there again, and the next frame of the cached scene measured a card that no longer
existed ("no object named 'Panel_Card'"). The cache now stamps the scene it built and keeps the address of every
object it made; the sequences below, drawn by Hypothesis, mix frames with what a test, a script or a user may do to
the scene between them, and every frame must be measured on its own scene, as a fresh process measures it."""
import pytest

bpy = pytest.importorskip("bpy")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from realitybench_addon import pipeline  # noqa: E402
from realitybench_addon.bl.analytic import add_mesh  # noqa: E402
from realitybench_addon.bl.reset import reset_scene  # noqa: E402

ENV = "breaker_label"  # the failing case's environment, and the quickest to build (half a second)
SEEDS = (0, 1)


def spec(seed: int):
    return pipeline.plan_frame(ENV, seed, "random", 0)


def fresh_record(seed: int) -> dict:
    """The frame's geometric record from a scene built for it alone."""
    return pipeline.run_frame(spec(seed), render=False, cache=pipeline.SceneCache()).record


@pytest.fixture(scope="module")
def fresh():
    return {seed: fresh_record(seed) for seed in SEEDS}


def same_measure(record: dict, expected: dict) -> None:
    assert record["frame_id"] == expected["frame_id"]
    assert record["measurements"] == expected["measurements"]
    assert record["verdict"] == expected["verdict"]


def test_frames_of_a_built_scene_reuse_it_through_a_render(fresh):
    cache = pipeline.SceneCache()
    built = cache.get(spec(0))
    assert cache.build_s > 0
    same_measure(pipeline.run_frame(spec(0), render=False, cache=cache).record, fresh[0])
    assert cache.build_s == 0.0 and cache.built is built  # the phone's camera, added, does not count
    pipeline.run_frame(spec(0), long_side_px=64, samples=1, cache=cache)  # a render's rig comes and goes
    assert cache.build_s == 0.0 and cache.get(spec(0)) is built and cache.build_s == 0.0
    add_mesh(bpy.context.scene, "A_Users_Marker", [(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1, 2)])
    assert cache.get(spec(0)) is built and cache.build_s == 0.0  # an addition leaves the build as it was


def delete_target(_cache):
    bpy.data.objects.remove(bpy.data.objects["Panel_Card"], do_unlink=True)


def rename_target(_cache):
    bpy.data.objects["Panel_Card"].name = "Panel_Card_moved"


def empty_the_scene(_cache):
    reset_scene()


def another_cache_builds(_cache):
    """What CI met: another builder empties the scene and builds there (here the other seed's scene)."""
    pipeline.SceneCache().get(spec(1))


def the_same_scene_again(_cache):
    """Another builder builds the very same scene: names and stamp are new, the answer is the same."""
    pipeline.SceneCache().get(spec(0))


DISTURBANCES = [delete_target, rename_target, empty_the_scene, another_cache_builds, the_same_scene_again]


@pytest.mark.parametrize("disturb", DISTURBANCES, ids=lambda f: f.__name__)
def test_a_disturbed_scene_is_built_again(disturb, fresh):
    cache = pipeline.SceneCache()
    cache.get(spec(0))
    disturb(cache)
    same_measure(pipeline.run_frame(spec(0), render=False, cache=cache).record, fresh[0])
    assert cache.build_s > 0
    with pytest.raises(LookupError, match="not built"):  # the sidebar's live readouts never build: they say so
        disturb(cache)
        cache.get(spec(0), build=False)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(st.sampled_from(SEEDS), st.sampled_from(DISTURBANCES)), min_size=1, max_size=6))
def test_any_sequence_of_frames_and_disturbances_measures_each_frame_on_its_own_scene(fresh, steps):
    cache = pipeline.SceneCache()
    for step in steps:
        if isinstance(step, int):
            same_measure(pipeline.run_frame(spec(step), render=False, cache=cache).record, fresh[step])
        else:
            try:
                step(cache)
            except KeyError:  # nothing to delete or rename: the card is already gone
                pass
