"""Scratch strokes (core/damage.py `scratch_strokes`): inside their mark's band whatever the mark, varied in
depth (clear coat, primer, metal), width and continuity, and a pure function of the mark."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bake_support import bake_on_objects
from realitybench_addon.core import damage as dmg


def _grid_around(mark: dmg.Mark, m_per_px: float = 0.001):
    reach = mark.a + mark.b + 0.01
    axis = np.arange(-reach, reach, m_per_px)
    return np.meshgrid(mark.d + axis, mark.z + axis[::-1])


@settings(max_examples=60, deadline=None)
@given(a=st.floats(0.02, 0.3), b=st.floats(0.005, 0.06), angle=st.floats(-40.0, 40.0),
       seed=st.integers(0, 2 ** 31 - 2), paint=st.tuples(*[st.floats(0.0, 1.0)] * 3))
def test_strokes_stay_in_their_band(a, b, angle, seed, paint):
    mark = dmg.Mark("scratch", 1.0, 0.6, a, b, angle, 0.0, seed)
    D, Z = _grid_around(mark)
    colour, cover = dmg.scratch_strokes(mark, D, Z, paint, np.random.default_rng(seed))
    u, v = dmg._local(mark, D, Z)
    band = (np.abs(u) <= a) & (np.abs(v) <= b)
    assert cover[~band].max(initial=0.0) == 0.0
    assert 0.0 <= cover.min() and cover.max() <= 1.0
    assert np.isfinite(colour).all() and colour.min() >= 0.0 and colour.max() <= 1.0


def test_strokes_vary_in_depth_and_keep_their_contrast():
    colours = {}
    for paint in ((0.5, 0.03, 0.03), (0.8, 0.8, 0.78)):  # a dark red, a white
        found = set()
        for seed in range(40):
            mark = dmg.Mark("scratch", 1.0, 0.6, 0.12, 0.02, 5.0, 0.0, seed)
            D, Z = _grid_around(mark, 0.0005)
            colour, cover = dmg.scratch_strokes(mark, D, Z, paint, np.random.default_rng(seed))
            found |= {tuple(np.round(c, 3)) for c in colour[cover > 0]}
            again = dmg.scratch_strokes(mark, D, Z, paint, np.random.default_rng(seed))
            assert np.array_equal(again[1], cover) and np.array_equal(again[0], colour)
        assert len(found) == 3, paint  # through the clear coat, to the primer, to the metal
        colours[paint] = found
    lum = lambda c: float(np.dot(c, [0.2126, 0.7152, 0.0722]))  # noqa: E731
    red, white = colours[(0.5, 0.03, 0.03)], colours[(0.8, 0.8, 0.78)]
    assert min(lum(c) for c in red) > 2.5 * lum((0.5, 0.03, 0.03))  # light on a dark paint
    assert max(lum(c) for c in white) < 0.5 * lum((0.8, 0.8, 0.78))  # dark on a light one
    through_clear = max(red, key=lambda c: c[0] - c[1])
    assert through_clear[0] > through_clear[1] + 0.05  # the paint's own colour shows in a clear-coat scratch


def test_a_stroke_tapers_at_its_ends_and_its_width_wanders():
    u = np.linspace(-0.2, 0.2, 4001)
    spreads = []
    for seed in range(30):
        width = dmg.stroke_width(u, -0.15, 0.12, 0.004, np.random.default_rng(seed))
        assert width.min() >= 0.0 and width.max() <= 0.004
        assert np.all(width[(u < -0.15) | (u > 0.12)] == 0.0)
        ends = (np.abs(u + 0.15) < 0.001) | (np.abs(u - 0.12) < 0.001)
        middle = np.abs(u + 0.015) < 0.09
        assert width[ends].max() < 0.25 * 0.004  # thin at the ends, never broken in the middle
        assert width[middle].min() >= 0.35 * 0.004 - 1e-12
        spreads.append(width[middle].std() / width[middle].mean())
    assert np.mean(spreads) > 0.1  # the pressure changes along it (a ruled line: 0)


def test_scratches_are_grooves_in_the_rendered_normal():
    """The damaged panel's material bends its normal along every stroke's walls (a groove catches the light)
    and nowhere away from the marks: baked on the re-meshed panel, the bump's normal leaves the surface's own by
    more than 5 degrees on stroke pixels and by under 0.5 degrees 5 mm or more from any stroke."""
    bpy = pytest.importorskip("bpy")
    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.damage import damage_material
    from realitybench_addon.bl.vehicle import part_object
    from realitybench_addon.core.parking_lot import draw_lot

    for seed in range(60):
        vehicle = draw_lot(np.random.default_rng(seed)).subject.vehicle
        plan = dmg.draw_damage(vehicle, np.random.default_rng(500 + seed))
        if plan.types == ["scratch"]:
            break
    else:
        pytest.fail("no scratch-only damage in 60 seeds")
    rest, damage = dmg.damaged_panel_parts(vehicle, plan)
    scene = reset_scene()
    mat = damage_material("Test_DamagePaint", vehicle, plan)
    every = {m: mat for p in (rest, damage) for m in p.materials}
    objects = [part_object(p.name, p, scene.collection, np.eye(4), every, uv=p.uv) for p in (rest, damage)]
    nodes = mat.node_tree.nodes
    groove = next(n for n in nodes if n.label == "Scratch grooves (base)").outputs["Normal"]
    surface = nodes.new("ShaderNodeNewGeometry").outputs["Normal"]
    d0, d1, z0, z1 = plan.patch
    w, h = int(round((d1 - d0) / 0.001)), int(round((z1 - z0) / 0.001))  # the texture's own 1 mm texels
    baked = {label: px[..., :3] for label, px in
             bake_on_objects(bpy, mat, objects, {"groove": groove, "surface": surface}, w, h).items()}
    a, b = baked["groove"], baked["surface"]
    on_panel = (np.linalg.norm(b, axis=-1) > 0.5) & (np.linalg.norm(a, axis=-1) > 0.5)
    cos = np.sum(a * b, axis=-1) / np.maximum(np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1), 1e-9)
    angle = np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))
    alpha = dmg.damage_texture(plan, vehicle.paint_rgb)[..., 3]
    assert alpha.shape == angle.shape
    strokes = (alpha > 0.2) & on_panel
    far = ~(dmg._box_sum(alpha > 0, 5) > 0) & on_panel
    assert strokes.sum() > 100 and far.sum() > 1000
    assert np.percentile(angle[strokes], 90) > 5.0
    assert angle[far].max() < 0.5
