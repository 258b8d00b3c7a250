"""Far conifers (issue 41): whorls of branches inside each measured tier cone. Pure checks over generated trees
(Hypothesis) that every rendered point lies inside the measured crown and the top is the measured top, the
outline's steps between whorls; then the Blender build: far conifers render as whorls, the measured crowns are
hidden from render rays and unchanged."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from realitybench_addon.core import far_conifers as fc
from realitybench_addon.core.surroundings import Tree
from realitybench_addon.core.surroundings_meshes import crown_mesh
from realitybench_addon.core.vegetation import piece_triangles


def _inside(points, verts, tris) -> np.ndarray:
    """Whether each point lies inside the closed triangle mesh: the parity of a +z ray's crossings (the ray is
    nudged off the axis, where the cone's triangles meet)."""
    a, b, c = (verts[tris[:, k]] for k in range(3))
    p = points[:, None, :] + np.array([1.3e-6, 0.7e-6, 0.0])
    d = np.array([0.0, 0.0, 1.0])
    e1, e2 = b - a, c - a
    h = np.cross(d, e2)
    det = np.einsum("tk,tk->t", e1, h)
    ok = np.abs(det) > 1e-15
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    s = p - a
    u = np.einsum("ptk,tk->pt", s, h) * inv
    q = np.cross(s, e1)
    v = np.einsum("k,ptk->pt", d, q) * inv
    t = np.einsum("tk,ptk->pt", e2, q) * inv
    hit = ok & (u >= 0) & (v >= 0) & (u + v <= 1) & (t > 0)
    return hit.sum(axis=1) % 2 == 1


def _surface_points(verts, tris, per_triangle: int = 12, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    w = rng.dirichlet([1.0, 1.0, 1.0], size=(len(tris), per_triangle))
    corners = verts[tris]  # (t, 3, 3)
    points = np.einsum("tpk,tkd->tpd", w, corners).reshape(-1, 3)
    return np.vstack([points, verts])


def _tree(height, radius, base, x, y, seed):
    return Tree(x=x, y=y, base_z=3.0, height_m=height, crown_radius_m=radius, crown_base_m=base, kind="conifer",
                shade=0.5, seed=seed)


@settings(max_examples=40, deadline=None)
@given(st.floats(8.0, 35.0), st.floats(1.2, 5.0), st.floats(0.5, 4.0), st.floats(-900, 900), st.floats(-900, 900),
       st.integers(0, 10**6))
def test_every_whorl_lies_inside_its_measured_tier_and_the_top_is_the_measured_top(height, radius, base, x, y, seed):
    verts, tris = crown_mesh(_tree(height, radius, base, x, y, seed))
    pieces = piece_triangles(tris, len(verts))
    assert len(pieces) == 3  # three measured tiers
    for own in pieces:
        used = np.unique(tris[own])
        index = np.full(len(verts), -1)
        index[used] = np.arange(len(used))
        tier_v, tier_t = verts[used], index[tris[own]]
        v, t, shade = fc.whorled_tier(tier_v, 0.5, seed)
        points = _surface_points(v, t, seed=seed % 1000)
        # a hair inside (1 mm towards the middle of the tier's axis): the leader's apex, which is the measured
        # apex, counts as inside
        centre, bottom, top, _ = fc.tier_frame(tier_v)
        toward = np.array([*centre, (bottom + top) / 2]) - points
        nudged = points + 1e-3 * toward / np.linalg.norm(toward, axis=1, keepdims=True)
        outside = ~_inside(nudged, tier_v, tier_t)
        assert not outside.any(), points[outside][:5]
        assert v[:, 2].max() == pytest.approx(top)  # the leader reaches the measured apex
        assert len(shade) == len(t) and 0.0 <= shade.min() and shade.max() <= 1.0
    merged_v, merged_t, _ = fc.whorled_tiers(verts, tris, pieces, np.full(len(tris), 0.5))
    assert merged_v[:, 2].max() == pytest.approx(verts[:, 2].max())
    assert len(merged_t) == 3 * (fc.WHORLS_PER_TIER * 4 * fc.WHORL_TIPS + 6)


def test_the_outline_steps_in_between_whorls():
    """Seen from the side the rendered outline is a saw: wide at each whorl's tips, narrowing before the next
    whorl starts, where the measured cone's outline is one straight slope."""
    verts, tris = crown_mesh(_tree(20.0, 3.0, 2.0, 300.0, 0.0, 11))
    pieces = piece_triangles(tris, len(verts))
    v, t, _ = fc.whorled_tiers(verts, tris, pieces[:1], np.full(len(tris), 0.5))
    centre, bottom, top, radius = fc.tier_frame(verts[np.unique(tris[pieces[0]])])
    points = _surface_points(v, t, per_triangle=60)
    rho = np.hypot(*(points[:, :2] - centre).T)
    z = points[:, 2]
    heights = np.linspace(bottom + 0.05 * (top - bottom), top - 0.05 * (top - bottom), 40)
    width = np.array([rho[np.abs(z - h) < 0.02 * (top - bottom)].max() for h in heights])
    share = width / fc.measured_radius(heights, bottom, top, radius)
    assert share.max() <= 1.03  # (the band of heights each width is read over is 4 % of the tier)
    # a whorl's tips reach nearly to the measured outline, then the outline narrows inside the measured slope
    # until the next whorl's tips jump out again: one jump per whorl above the first, then the thin leader
    assert share.max() > 0.9
    jumps = int(np.sum(np.diff(share) > 0.12))
    assert jumps >= fc.WHORLS_PER_TIER - 1, np.round(share, 2)
    assert share[-5:].max() < 0.5  # the leader


# -- in Blender -----------------------------------------------------------------------------------------------

def test_far_conifers_render_as_whorls_and_the_measured_crowns_stay_as_they_were():
    """Beyond the cards' reach whorls alone; from WHORLS_FROM_M to there, whorls under the cards; nearer, the
    cards alone. The measured crowns are hidden from render rays and keep every vertex."""
    pytest.importorskip("bpy")
    import bpy

    from realitybench_addon.bl import materials as mats
    from realitybench_addon.bl import vegetation
    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.compat import vertex_positions
    from realitybench_addon.bl.meshes import mesh_object
    from realitybench_addon.core.geometry import merge_meshes
    from realitybench_addon.core.vegetation import SURROUNDINGS_CARDS

    beyond_cards = SURROUNDINGS_CARDS[-1][1]
    far = [_tree(18.0, 3.0, 2.0, beyond_cards + 60.0 + 15 * k, 40.0 * k, k) for k in range(3)]
    middle = [_tree(16.0, 2.5, 2.0, vegetation.WHORLS_FROM_M + 30.0, 5.0, 7)]  # cards and whorls
    near = [_tree(15.0, 2.5, 2.0, vegetation.WHORLS_FROM_M - 15.0, 10.0, 9)]  # cards alone
    trees = far + middle + near
    verts, tris = merge_meshes([crown_mesh(t) for t in trees])
    shade = np.full(len(tris), 0.5)
    scene = reset_scene()
    mat = mats.principled("Needles", (0.03, 0.05, 0.03))
    hull = mesh_object("Crowns_conifer", verts, tris, scene.collection, materials=[mat])
    names = vegetation.dress_surroundings_crowns(scene.collection, hull, verts, tris, shade, "conifer", mat)
    assert not hull.visible_camera  # the measured crowns: hidden from render rays, geometry untouched
    assert np.allclose(vertex_positions(hull.data), verts, atol=1e-4)
    whorls = [n for n in names if n.endswith("Far_Crowns")]
    assert len(whorls) == 1
    rendered = vertex_positions(bpy.data.objects[whorls[0]].data)
    per_tree = 3 * (fc.WHORLS_PER_TIER * 4 * fc.WHORL_TIPS + 6)
    assert len(bpy.data.objects[whorls[0]].data.polygons) == 4 * per_tree  # the far three and the middle one
    reach = np.hypot(rendered[:, 0], rendered[:, 1])
    assert reach.min() > vegetation.WHORLS_FROM_M
    assert rendered[:, 2].max() == pytest.approx(max(t.base_z + t.height_m for t in far + middle), abs=1e-4)
    cards = [bpy.data.objects[n] for n in names if n.endswith("_Card")]
    assert cards, "the middle and near trees wear leaf cards"


def test_with_cards_reaching_less_far_than_the_whorls_every_conifer_beyond_the_cards_is_whorled():
    """No tree falls between cards and whorls: cards stopped at 10 m leave the trees from 10 m on to whorls."""
    pytest.importorskip("bpy")
    import bpy

    from realitybench_addon.bl import materials as mats
    from realitybench_addon.bl import vegetation
    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.meshes import mesh_object
    from realitybench_addon.core.geometry import merge_meshes

    trees = [_tree(12.0, 2.0, 1.5, 25.0, 0.0, 1), _tree(12.0, 2.0, 1.5, 5.0, 3.0, 2)]
    verts, tris = merge_meshes([crown_mesh(t) for t in trees])
    scene = reset_scene()
    mat = mats.principled("Needles", (0.03, 0.05, 0.03))
    hull = mesh_object("Crowns_conifer", verts, tris, scene.collection, materials=[mat])
    names = vegetation.dress_surroundings_crowns(scene.collection, hull, verts, tris, np.full(len(tris), 0.5),
                                                 "conifer", mat, card_reach_m=10.0)
    whorls = [bpy.data.objects[n] for n in names if n.endswith("Far_Crowns")]
    assert len(whorls) == 1 and len(whorls[0].data.polygons) == 3 * (fc.WHORLS_PER_TIER * 4 * fc.WHORL_TIPS + 6)
    assert any(n.endswith("_Card") for n in names)  # the tree at 5 m keeps its cards
