"""Issue 41, trees and shrubs: leaf cards with drawn alpha textures, instanced inside the measured crowns.

What is measured (the crowns' triangles: ray casts, the analytic skyline) is built as before; the render shows
cards, and every point of every card lies inside its crown, so no rendered leaf is where the measurement sees
no crown."""
from __future__ import annotations

import math

import numpy as np
import pytest

from realitybench_addon.core import leaf_texture as lt
from realitybench_addon.core import vegetation as cv
from realitybench_addon.core.surroundings import Tree
from realitybench_addon.core.surroundings_meshes import crown_mesh


def _card_points(cards: dict) -> np.ndarray:
    """Every card's corners, fold line ends and edge midpoints in world space (cards x 10 x 3)."""
    local = np.vstack([cv.CARD_VERTS, (cv.CARD_VERTS[[0, 3, 4]] + cv.CARD_VERTS[[1, 2, 5]]) / 2,
                       (cv.CARD_VERTS[0] + cv.CARD_VERTS[4]) / 2 * [1, 1, 0]])
    t, n = cards["tangents"], cards["normals"]
    b = np.cross(n, t)
    frame = np.stack([t, b, n], 1)  # rows: local x, y, z
    return cards["centers"][:, None] + cards["scales"][:, None, None] * np.einsum("pk,ckj->cpj", local, frame)


CROWNS = {
    "deciduous": (cv.deciduous_tree(3.0, -2.0, 0.5, 9.0, 3.0, 2.5, 4)["leaves"], "broadleaf", 0.3),
    "near_surroundings": (cv.deciduous_tree(20, 5, 0.2, 12.0, 4.0, 3.0, 9, clusters=8, cluster_rings=4,
                                            cluster_segments=7)["leaves"], "broadleaf", 0.3),
    "conifer": (cv.conifer_tree(0, 0, 0, 12, 2.5, 1.0, 5)["leaves"], "needle", 0.32),
    "shrub": (cv.shrub(1, 1, 0, 0.7, 0.9, 3)["leaves"], "broadleaf", 0.3),
    "far_crown": (crown_mesh(Tree(60, -30, 1.0, 14.0, 4.5, 3.0, "deciduous", 0.5, 77)), "broadleaf", 0.55),
    "far_conifer": (crown_mesh(Tree(-50, 40, 2.0, 16.0, 3.0, 2.0, "conifer", 0.5, 78)), "needle", 0.55),
}


@pytest.mark.parametrize("name", list(CROWNS))
def test_every_point_of_every_card_lies_inside_its_crown(name):
    (verts, tris), kind, card_m = CROWNS[name]
    cards = cv.foliage_cards(verts, tris, kind, 11, card_m=card_m)
    assert len(cards["scales"]) >= 20
    assert np.all(cards["scales"] <= card_m + 1e-12) and np.all(cards["scales"] > 0)
    points = _card_points(cards).reshape(-1, 3)
    w = cv.winding_numbers(points, verts, tris)
    assert w.min() > 0.99  # inside at least one closed, outward piece
    # and the proof's premise: each centre is inside a closed piece and further from it than the card reaches
    label = cv.mesh_pieces(tris, len(verts))
    held = np.zeros(len(cards["scales"]), bool)
    for p in np.unique(label):
        own = tris[label == p]
        d, _ = cv.surface_distance(cards["centers"], verts, own)
        held |= (cv.winding_numbers(cards["centers"], verts, own) > 0.99) & (d > cards["scales"] * cv.CARD_RADIUS)
    assert held.all()


def test_winding_and_distance_of_a_known_box():
    v = np.array([[x, y, z] for z in (0, 1) for y in (0, 1) for x in (0, 1)], float)
    q = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]]
    tris = np.array([[a, b, c] for a, b, c, d in q] + [[a, c, d] for a, b, c, d in q])
    pts = np.array([[0.5, 0.5, 0.5], [0.2, 0.5, 0.5], [1.5, 0.5, 0.5], [2.0, 2.0, 2.0]])
    assert cv.winding_numbers(pts, v, tris) == pytest.approx([1, 1, 0, 0], abs=1e-9)
    d, _ = cv.surface_distance(pts, v, tris)
    assert d == pytest.approx([0.5, 0.2, 0.5, math.sqrt(3)], abs=1e-9)


def test_cards_are_deterministic_and_follow_the_crown():
    (verts, tris), kind, card_m = CROWNS["deciduous"]
    a = cv.foliage_cards(verts, tris, kind, cv.mesh_seed(verts), card_m=card_m)
    b = cv.foliage_cards(verts.copy(), tris, kind, cv.mesh_seed(verts.copy()), card_m=card_m)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    other = CROWNS["near_surroundings"][0][0]
    assert cv.mesh_seed(other) != cv.mesh_seed(verts)


def test_undressed_pieces_get_no_cards():
    (verts, tris), kind, card_m = CROWNS["deciduous"]
    label = cv.mesh_pieces(tris, len(verts))
    pieces = np.unique(label)
    assert len(pieces) >= 8  # one per leaf cluster
    dress = np.arange(len(pieces)) == 0
    cards = cv.foliage_cards(verts, tris, kind, 1, card_m=card_m, dress=dress)
    own = tris[label == pieces[0]]
    assert cv.winding_numbers(cards["centers"], verts, own).min() > 0.99


def test_card_instancer_places_each_card_as_face_instancing_reads_it():
    rng = np.random.default_rng(2)
    n = rng.normal(size=(5, 3))
    n /= np.linalg.norm(n, axis=1)[:, None]
    t = np.cross(n, rng.normal(size=(5, 3)))
    t /= np.linalg.norm(t, axis=1)[:, None]
    cards = {"centers": rng.normal(size=(5, 3)), "normals": n, "tangents": t, "scales": rng.uniform(0.1, 1, 5)}
    v, tri = cv.card_instancer(cards)
    c = v[tri]
    assert c.mean(1) == pytest.approx(cards["centers"])
    cross = np.cross(c[:, 1] - c[:, 0], c[:, 2] - c[:, 0])
    assert 0.5 * np.linalg.norm(cross, axis=1) == pytest.approx(cards["scales"] ** 2)
    assert cross / np.linalg.norm(cross, axis=1)[:, None] == pytest.approx(n)
    edge = c[:, 1] - c[:, 0]
    assert edge / np.linalg.norm(edge, axis=1)[:, None] == pytest.approx(t)


@pytest.mark.parametrize("kind", lt.KINDS)
def test_leaf_atlas_has_leaves_with_alpha_and_is_deterministic(kind):
    rgb, alpha = lt.leaf_atlas(kind, 3)
    assert rgb.shape == (512, 512, 3) and alpha.shape == (512, 512) and rgb.dtype == alpha.dtype == np.uint8
    cover = alpha / 255.0
    assert 0.08 < cover.mean() < 0.5  # leaves and gaps
    leaf = rgb[alpha > 200].astype(float)
    assert leaf[:, 1].mean() > leaf[:, 0].mean() and leaf[:, 1].mean() > leaf[:, 2].mean()  # green
    again = lt.leaf_atlas.__wrapped__(kind, 3)
    assert np.array_equal(again[0], rgb) and np.array_equal(again[1], alpha)
    with pytest.raises(ValueError):
        lt.leaf_atlas("cactus")


def test_plants_say_which_leaves_they_carry():
    p = cv.merge_plants([cv.deciduous_tree(0, 0, 0, 9, 3, 2.5, 1), cv.conifer_tree(5, 0, 0, 10, 2, 1, 2),
                         cv.shrub(2, 2, 0, 0.6, 0.8, 3)])
    kinds = p["leaf_kind"]
    assert len(kinds) == len(p["leaves"][1]) == len(p["leaf_shade"])
    assert set(np.unique(kinds)) == {0, 1}


@pytest.mark.slow
def test_built_crowns_are_measured_hidden_from_render_and_cards_are_not_measured():
    pytest.importorskip("bpy")
    import bpy

    from realitybench_addon.bl import raycast
    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl import vegetation as bv

    scene = reset_scene()
    plant = cv.merge_plants([cv.deciduous_tree(0, 0, 0, 9, 3, 2.5, 1), cv.conifer_tree(6, 0, 0, 10, 2, 1, 2)])
    names = bv.add_plants(scene.collection, "T", plant, bv.leaf_material("RB_L"), bv.bark_material("RB_B"))
    measured = {o.name for o in raycast._mesh_objects(scene)}
    assert {"T_Leaves", "T_Wood"} <= measured
    hull = bpy.data.objects["T_Leaves"]
    assert not hull.visible_camera and not hull.visible_shadow
    assert names == ["T_Leaves", "T_Wood"]  # only what is measured (the lot checks those for intersections)
    cards = [o.name for o in scene.objects if o.get(bv.CARD_TAG)]
    assert len(cards) == 4 and not measured & set(cards)
    # the cards show to the camera, in shadows and in reflections (a car window or a module's glass would otherwise
    # mirror the bare branches inside the hidden crown); bounced light does not search them
    card = next(bpy.data.objects[n] for n in cards if n.endswith("_Card"))
    assert card.visible_camera and card.visible_shadow and card.visible_glossy
    assert not card.visible_diffuse and not card.visible_transmission
    # Blender places each instance where `card_instancer` says (centroid, first edge, normal, sqrt(area))
    depsgraph = bpy.context.evaluated_depsgraph_get()
    placed = np.array([np.array(i.matrix_world) for i in depsgraph.object_instances
                       if i.is_instance and i.object.name.startswith("T_BroadleafCards")])
    verts, tris = plant["leaves"]
    expect = cv.foliage_cards(verts, tris[plant["leaf_kind"] == 0], "broadleaf", cv.mesh_seed(verts),
                              card_m=bv.PLANT_CARD_M["broadleaf"])
    assert len(placed) == len(expect["scales"])
    assert placed[:, :3, 3] == pytest.approx(expect["centers"], abs=1e-4)
    assert np.linalg.norm(placed[:, :3, 0], axis=1) == pytest.approx(expect["scales"], rel=1e-3)
    assert placed[:, :3, 0] / expect["scales"][:, None] == pytest.approx(expect["tangents"], abs=1e-3)
    assert placed[:, :3, 2] / expect["scales"][:, None] == pytest.approx(expect["normals"], abs=1e-3)
