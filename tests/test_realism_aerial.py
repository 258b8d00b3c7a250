"""Aerial perspective (issue 41): the haze model's draws and fractions (pure), then in the bpy wheel: a far surface
renders as the model's share of the sky's own glow, a surface nearer than the start renders exactly as before,
and every material of an outdoor pipeline scene (leaf cards through their cut-out) has the air mixed in."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from realitybench_addon.core import aerial
from realitybench_addon.core.rng import scene_rng, stage_rng


def _haze(env: str, index: int) -> aerial.HazePlan:
    return aerial.draw_haze(stage_rng(scene_rng(0, f"{env}/random", index), "haze"))


def test_haze_draws_are_deterministic_log_uniform_and_vary_by_scene():
    assert _haze("car_view", 3) == _haze("car_view", 3)
    plans = [_haze(f"env{i % 11}", i) for i in range(600)]
    km = np.array([p.visibility_m for p in plans]) / 1000
    lo, hi = aerial.VISIBILITY_KM
    assert lo <= km.min() and km.max() <= hi
    assert km.min() < lo * 1.1 and km.max() > hi * 0.9
    # log-uniform: the median is the geometric mean, half the days hazier than 15.5 km
    assert np.median(km) == pytest.approx(math.sqrt(lo * hi), rel=0.08)
    assert len({p.visibility_m for p in plans}) > 550


def test_haze_fraction_is_zero_within_the_start_and_follows_koschmieder_beyond():
    plan = aerial.HazePlan(visibility_m=10000.0)
    assert plan.extinction_length_m == pytest.approx(10000.0 / 3.912)
    near = aerial.haze_fraction(np.linspace(0.0, aerial.HAZE_START_M, 50), plan)
    assert np.all(near == 0.0)
    start = aerial.HAZE_START_M
    assert aerial.haze_fraction(start + plan.extinction_length_m, plan) == pytest.approx(1 - math.exp(-1))
    # at the visibility (beyond the start) only 2 % of a surface's contrast is left
    assert aerial.haze_fraction(start + plan.visibility_m, plan) == pytest.approx(0.98, abs=0.001)
    far = aerial.haze_fraction(np.linspace(start, 50000.0, 200), plan)
    assert np.all(np.diff(far) > 0) and far[-1] < 1.0
    # a clearer day hazes less at every distance
    clear = aerial.HazePlan(visibility_m=30000.0)
    assert np.all(aerial.haze_fraction(np.linspace(start + 1, 5000, 20), clear)
                  < aerial.haze_fraction(np.linspace(start + 1, 5000, 20), plan))


@settings(max_examples=200, deadline=None)
@given(st.floats(-180, 180), st.floats(-89.9, 89.9))
def test_airlight_looks_along_the_view_azimuth_never_below_the_horizon_floor(azimuth_deg, elevation_deg):
    az, el = math.radians(azimuth_deg), math.radians(elevation_deg)
    view = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
    d = aerial.airlight_direction(view * 37.0)
    assert np.linalg.norm(d) == pytest.approx(1.0)
    floor = math.sin(math.radians(aerial.HORIZON_MIN_ELEVATION_DEG))
    assert d[2] >= floor - 1e-12
    # same azimuth: the horizontal parts point the same way
    assert d[0] * view[1] - d[1] * view[0] == pytest.approx(0.0, abs=1e-9) and np.dot(d[:2], view[:2]) >= 0
    if elevation_deg >= aerial.HORIZON_MIN_ELEVATION_DEG:
        assert d == pytest.approx(view)
    else:  # raised exactly to the floor
        assert math.degrees(math.asin(d[2])) == pytest.approx(aerial.HORIZON_MIN_ELEVATION_DEG)
    # straight down has no azimuth: the zenith's glow
    assert aerial.airlight_direction([0.0, 0.0, -2.0]) == pytest.approx([0.0, 0.0, 1.0])


# -- in Blender -----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bpy():
    return pytest.importorskip("bpy")


ELEVATION_DEG, FOV_DEG, SIZE = 5.0, 3.0, 24


def _render(bpy, plane_m: float | None, plan: aerial.HazePlan | None, albedo: float = 0.0):
    """Linear RGB of a narrow view 5 degrees up (every pixel above the airlight's floor), of the sky alone or of
    a matte wall (black by default) `plane_m` away that fills the view, with the air of `plan` mixed into its
    material."""
    from mathutils import Matrix

    from realitybench_addon.bl import materials as mats
    from realitybench_addon.bl import sky
    from realitybench_addon.bl.aerial import add_aerial_perspective
    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.camera import look_at
    from realitybench_addon.bl.meshes import mesh_object
    from realitybench_addon.bl.render import render_frame

    scene = reset_scene()
    sun = np.array([0.5, -0.6, 0.62]) / np.linalg.norm([0.5, -0.6, 0.62])
    sky.add_sky_and_sun(scene, sun, 3.0)
    el = math.radians(ELEVATION_DEG)
    view = np.array([0.0, math.cos(el), math.sin(el)])
    if plane_m is not None:
        half = plane_m * 0.2
        u, w = np.array([1.0, 0.0, 0.0]), np.cross(view, [1.0, 0.0, 0.0])
        c = view * plane_m
        verts = np.array([c - half * u - half * w, c + half * u - half * w, c + half * u + half * w,
                          c - half * u + half * w])
        matte = mats.principled("Matte", (albedo,) * 3, roughness=1.0, specular=0.0)
        mesh_object("Wall", verts, [[0, 1, 2, 3]], scene.collection, materials=[matte])
    if plan is not None:
        add_aerial_perspective(scene, plan)
    cam = bpy.data.objects.new("HazeCam", bpy.data.cameras.new("HazeCam"))
    scene.collection.objects.link(cam)
    cam.data.sensor_width = 36.0
    cam.data.lens = 18.0 / math.tan(math.radians(FOV_DEG) / 2)
    cam.data.clip_end = 10000.0
    cam.matrix_world = Matrix(look_at(np.zeros(3), view, up=np.array([0.0, 0.0, 1.0])).tolist())
    scene.render.resolution_x = scene.render.resolution_y = SIZE
    return render_frame(scene, cam, samples=4, denoise=False).linear_rgb


def test_a_far_wall_renders_as_the_models_share_of_the_skys_glow_and_a_near_one_as_before(bpy):
    plan = aerial.HazePlan(visibility_m=8000.0)
    sky_only = _render(bpy, None, None)
    for distance in (600.0, 3000.0):
        wall = _render(bpy, distance, plan)
        ratio = wall.mean(axis=(0, 1)) / sky_only.mean(axis=(0, 1))
        expected = float(aerial.haze_fraction(distance, plan))
        # the wall's corners are up to 0.03 % further than its middle; the three channels fade alike
        assert ratio == pytest.approx([expected] * 3, rel=0.02), (distance, ratio, expected)
    # nearer than the start the black wall stays black: the air adds nothing there
    assert _render(bpy, aerial.HAZE_START_M - 20.0, plan).max() == 0.0
    # and without the air a far black wall is black too (what the mix adds is all of the glow)
    assert _render(bpy, 3000.0, None).max() == 0.0


def test_a_near_lit_wall_renders_bit_for_bit_as_without_the_air(bpy):
    """The glow is no light: a lit grey wall nearer than the start samples its light exactly as before (were the
    glow in Cycles' light list, every surface's noise would change, measured image terms with it)."""
    plan = aerial.HazePlan(visibility_m=8000.0)
    near = aerial.HAZE_START_M - 30.0
    before, after = _render(bpy, near, None, albedo=0.4), _render(bpy, near, plan, albedo=0.4)
    assert before.mean() > 0.05
    assert np.array_equal(before, after)


def test_every_material_of_an_outdoor_pipeline_scene_takes_the_scenes_air(bpy):
    from realitybench_addon import pipeline
    from realitybench_addon.bl.aerial import GROUP_NAME, HAZED

    spec = pipeline.plan_frame("car_view", 0, "random", 0)
    pipeline.SceneCache().get(spec)
    expected = aerial.draw_haze(stage_rng(scene_rng(0, "car_view/random", spec.scene_index), "haze"))
    scene = bpy.context.scene
    used = {s.material for o in scene.objects for s in o.material_slots if s.material is not None}
    assert len(used) > 20

    def see_through(mat):  # nothing but a Transparent BSDF (a car's inner shell): the air is in what shows through
        surface = mat.node_tree.nodes["Material Output"].inputs["Surface"]
        return surface.links[0].from_node.bl_idname == "ShaderNodeBsdfTransparent"

    clear = {m for m in used if see_through(m)}
    assert clear and all(m.get(HAZED) is None for m in clear)
    assert {m.name: m.get(HAZED) for m in used - clear} == {m.name: expected.visibility_m for m in used - clear}
    cards = [m for m in used if m.name.endswith("Cards")]
    assert cards, "the lot's trees wear leaf cards"
    for mat in cards:  # the cut-out stays transparent: the air goes into the leaf, under the alpha mix
        out = mat.node_tree.nodes["Material Output"].inputs["Surface"].links[0].from_node
        sides = [out.inputs[i].links[0].from_node.bl_idname for i in (1, 2)]
        assert sides == ["ShaderNodeBsdfTransparent", "ShaderNodeGroup"], mat.name
        air = out.inputs[2].links[0].from_node
        assert air.bl_idname == "ShaderNodeGroup" and air.node_tree.name == GROUP_NAME
        assert air.inputs[0].links[0].from_node.bl_idname == "ShaderNodeMixShader"  # the leaf under the air
    # one group for the scene, with the glow in it
    groups = {n.node_tree for m in used for n in m.node_tree.nodes if n.bl_idname == "ShaderNodeGroup"}
    assert len(groups) == 1
    assert any(n.bl_idname == "ShaderNodeEmission" for n in next(iter(groups)).nodes)
    # a material hazed once is not hazed again; one that gives light of its own is left as it is
    from realitybench_addon.bl import materials as mats
    from realitybench_addon.bl.aerial import haze_material

    hazed = next(iter(used - clear))
    assert not haze_material(hazed, next(iter(groups)))
    lamp = mats.principled("Lamp", (0.9, 0.9, 0.8))
    mats.set_input(lamp.node_tree.nodes["Principled BSDF"], "Emission Strength", 5.0)
    mats.set_input(lamp.node_tree.nodes["Principled BSDF"], "Emission Color", (1.0, 0.9, 0.7, 1.0))
    assert not haze_material(lamp, next(iter(groups)))
    # indoors (breaker_label's utility room has a sky outside its window) nothing is hazed
    pipeline.SceneCache().get(pipeline.plan_frame("breaker_label", 0, "random", 0))
    assert not any(m.get(HAZED) for m in bpy.data.materials)
