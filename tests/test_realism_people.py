"""The technician holding the RO board (issue 20; the MPFB2 body since issue 41, tests/test_body_model.py):
deterministic per board, the mannequin a few thousand triangles, inside the footprint the lot places it with, hands over the written face only within
`grip_boxes` (the thumb behind), no body part through the board, and the boards themselves unchanged."""
import math

import numpy as np
import pytest

from realitybench_addon.core import person
from realitybench_addon.core.ro_board import (BOARD_FRAME_M, BOARD_SIZE_M, board_grips, draw_board, grip_boxes,
                                              technician_footprint, technician_look, technician_parts)

BOARDS = [draw_board(np.random.default_rng(seed), (1.5 * seed % 7, -2.0), 47.0 * seed % 360 - 180, "driver")
          for seed in range(60)]


def _person_meshes(parts):
    return [(key, v, t) for key, meshes in parts.items() if key != "frame" for v, t in meshes]


def _in_board_frame(board, points):
    center, right, up, normal = board.frame
    d = np.asarray(points) - center
    return d @ right, d @ up, d @ normal


def test_the_same_board_gives_the_same_person():
    for board in BOARDS[:5]:
        a, b = technician_parts(board), technician_parts(board)
        assert a.keys() == b.keys()
        for key in a:
            for x, y in zip(a[key], b[key]):
                for u, v in zip(x, y) if isinstance(x, tuple) else [(x, y)]:
                    assert np.array_equal(u, v)


def test_looks_vary_between_boards():
    looks = [technician_look(board) for board in BOARDS]
    assert {look.top for look in looks} == {"shirt", "vest"}
    assert {look.gloves for look in looks} == {"", "nitrile", "work"}
    assert {look.headwear for look in looks} == {"cap", "hair"}
    assert {look.weight_leg for look in looks} == {1, -1}
    assert len({look.skin for look in looks}) >= 4
    assert max(abs(look.head_yaw_deg) for look in looks) > 10


def _mannequin(board):
    """The smooth mannequin (core/person.person_parts) that stands in where the MPFB2 body data is absent."""
    return person.person_parts(technician_look(board), board.feet_xy, board.facing_deg, board_grips(board))


def test_a_few_thousand_smooth_triangles():
    for board in BOARDS:
        meshes = _person_meshes(_mannequin(board))
        triangles = sum(len(t) for _, _, t in meshes)
        assert 4000 < triangles < 8000, triangles
        for _, v, t in meshes:
            assert t.min() >= 0 and t.max() < len(v) and np.isfinite(v).all()


def _signed_volume(v, t):
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    return float(np.einsum("ij,ij->i", a - v.mean(0), np.cross(b - v.mean(0), c - v.mean(0))).sum() / 6)


def test_closed_shapes_face_outwards():
    parts = _mannequin(BOARDS[3])
    for key in ("skin", "shirt", "trousers", "boots"):
        for v, t in parts[key]:
            assert _signed_volume(v, t) > 0, key


def test_the_footprint_bounds_the_person():
    for board in BOARDS:
        box = technician_footprint(board)
        a = math.radians(box.heading_deg)
        along, across = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        for key, v, _ in _person_meshes(technician_parts(board)):
            d = v[:, :2] - [box.x, box.y]
            assert np.abs(d @ along).max() <= box.half_l, key
            assert np.abs(d @ across).max() <= box.half_w, key
            assert v[:, 2].min() >= -1e-9 and v[:, 2].max() <= box.z1, key


def test_only_the_fingers_cover_the_face_and_only_within_grip_boxes():
    bw, bh = BOARD_SIZE_M
    for board in BOARDS:
        boxes = grip_boxes(board)
        covering = {0: 0, 1: 0}
        for key, v, _ in _person_meshes(technician_parts(board)):
            x, y, z = _in_board_frame(board, v)
            over = (np.abs(x) < bw / 2) & (np.abs(y) < bh / 2) & (z > 0)
            for k, (x0, y0, x1, y1) in enumerate(boxes):
                inside = over & (x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)
                covering[k] += int(inside.sum())
                over &= ~inside
            assert not over.any(), (key, x[over], y[over])
        assert min(covering.values()) > 20  # each hand's fingers do wrap onto the face


def test_the_thumbs_press_on_the_back():
    bw, bh = BOARD_SIZE_M
    board = BOARDS[7]
    for grip in board_grips(board):
        v, _ = person.gripping_hand(grip)["hand"]
        x, y, z = _in_board_frame(board, v)
        behind = (np.abs(x) < bw / 2) & (np.abs(y) < bh / 2) & (z < -BOARD_FRAME_M)
        assert behind.sum() > 10
        assert z[behind].max() < -BOARD_FRAME_M and z[behind].min() > -BOARD_FRAME_M - 0.03  # touching, not far


def test_no_body_part_passes_through_the_board():
    """Away from the gripped corners, nothing of the person lies within the board's slab."""
    bw, bh = BOARD_SIZE_M
    f = BOARD_FRAME_M
    for board in BOARDS:
        x0, _, _, _ = grip_boxes(board)[0]
        for key, v, _ in _person_meshes(technician_parts(board)):
            x, y, z = _in_board_frame(board, v)
            corner = (np.abs(x) > x0 - 0.005) & (y > bh / 2 - 0.06)
            slab = (np.abs(x) < bw / 2 + f) & (np.abs(y) < bh / 2 + f) & (z > -f - 0.002) & (z < 0.002) & ~corner
            assert not slab.any(), key


# The boards (where the technician stands, the target's centre and what is written) as the code before the
# person was built drew them (computed with the untouched checkout): planning is unchanged.
BEFORE = {0: ("329196", "1HGKZL8X4LR490025", (3.131225, -3.025221), -38.222159, (3.415697, -3.249257, 1.245455)),
          24: ("196058", "1GCYA0J32R6305891", (5.655279, -0.259126), 93.193523, (5.637562, 0.058415, 1.156206)),
          31: ("941670", "1FMZ777RXKD381764", (-2.729099, -0.411205), 84.588233, (-2.694729, -0.048401, 1.109731)),
          57: ("514288", "2HG2CN6Y7P8001888", (0.754656, -2.498576), 25.149568, (1.064431, -2.353139, 1.282785))}


@pytest.mark.parametrize("index", sorted(BEFORE))
def test_the_boards_are_where_they_were(index):
    from realitybench_addon import pipeline

    board = pipeline.plan_frame("ro_board", 101, "random", index).plan.extras["board"]
    ro, vin, feet, facing, center = BEFORE[index]
    assert (board.ro, board.vin) == (ro, vin)
    assert board.feet_xy == pytest.approx(feet, abs=1e-6)
    assert board.facing_deg == pytest.approx(facing, abs=1e-6)
    assert board.frame[0] == pytest.approx(center, abs=1e-6)


@pytest.mark.slow
def test_cloth_is_heathered_and_creased_down_the_garment():
    """"Smooth gray figure with no fabric detail": the yarn's flecks show at a pixel or two at 2 m, and creases
    run down a garment (longer along z than across)."""
    bpy = pytest.importorskip("bpy")
    from bake_support import bake_emission
    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.person import CREASE_LABEL, HEATHER_SPREAD, fabric_material

    reset_scene()
    mat = fabric_material("Test_Shirt", (0.2, 0.2, 0.21))
    bsdf = mat.node_tree.nodes.get("Principled BSDF")
    color = bake_emission(bpy, mat, 0.0, 0.0, 0.1, 100, bsdf.inputs["Base Color"].links[0].from_socket, wall=True)
    relative = color.std() / color.mean()
    assert 0.04 < relative < 2 * HEATHER_SPREAD  # flecks 1 mm a texel resolves; no more than the spread
    mat = fabric_material("Test_Trousers", (0.045, 0.075, 0.14), roughness=0.9, weave_per_m=1500.0, strength=0.18)
    creases = next(n for n in mat.node_tree.nodes if n.label == CREASE_LABEL).outputs[0]
    height = bake_emission(bpy, mat, 0.0, 0.0, 0.6, 120, creases, wall=True)  # rows run up the wall (z)
    down, across = np.abs(np.diff(height, axis=0)).mean(), np.abs(np.diff(height, axis=1)).mean()
    assert down < 0.6 * across, (down, across)


def _rim_to_centre(bpy, mat) -> float:
    """A sphere of `mat` rendered (Cycles, orthographic) under a uniform white sky: the mean brightness of its
    rim (0.85-0.97 of the radius) over its centre's (within 0.5). A matte cloth lit evenly is about as bright
    at its rim as in its middle."""
    from realitybench_addon.bl.analytic import reset_scene

    scene = bpy.context.scene
    bpy.ops.mesh.primitive_uv_sphere_add(radius=1.0, segments=64, ring_count=32)
    obj = bpy.context.active_object
    bpy.ops.object.shade_smooth()
    obj.data.materials.append(mat)
    cam = bpy.data.objects.new("RimCamera", bpy.data.cameras.new("RimCamera"))
    scene.collection.objects.link(cam)
    scene.camera = cam
    cam.location, cam.rotation_euler = (0.0, -6.0, 0.0), (math.pi / 2, 0.0, 0.0)
    cam.data.type, cam.data.ortho_scale = "ORTHO", 2.4
    scene.world = bpy.data.worlds.new("RimSky")
    scene.world.use_nodes = True
    scene.world.node_tree.nodes["Background"].inputs["Color"].default_value = (1.0, 1.0, 1.0, 1.0)
    scene.render.engine, scene.cycles.samples, scene.cycles.device = "CYCLES", 32, "CPU"
    scene.render.resolution_x = scene.render.resolution_y = 96
    scene.render.resolution_percentage = 100
    scene.view_settings.view_transform = "Standard"
    bpy.ops.render.render()
    result = bpy.data.images["Render Result"]
    path = bpy.app.tempdir + "rim.png"
    result.save_render(path)
    px = np.array(bpy.data.images.load(path).pixels[:]).reshape(96, 96, 4)[..., :3].mean(axis=2)
    reset_scene()
    yy, xx = np.mgrid[0:96, 0:96]
    r = np.hypot(xx - 47.5, yy - 47.5) / 40.0
    return float(px[(r > 0.85) & (r < 0.97)].mean() / px[r < 0.5].mean())


def test_dark_cloth_has_no_glowing_rim():
    """"Fuzzy glowing clothes" (a blind panel, 2026-12-07): 4.x's sheen is a white microfibre layer, and at 0.4 it
    lit dark trousers with a bright rim. The sheen is tinted by the cloth's colour and weaker now."""
    bpy = pytest.importorskip("bpy")
    if bpy.app.version < (4, 0, 0):
        pytest.skip("3.x's sheen is another model")
    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.person import fabric_material

    reset_scene()
    trousers = (0.045, 0.075, 0.14)
    assert _rim_to_centre(bpy, fabric_material("Test_Trousers", trousers, roughness=0.9)) < 1.15
    old = fabric_material("Test_OldTrousers", trousers, roughness=0.9)  # the old sheen: 0.4 of white
    bsdf = old.node_tree.nodes.get("Principled BSDF")
    bsdf.inputs["Sheen Weight"].default_value = 0.4
    bsdf.inputs["Sheen Tint"].default_value = (1.0, 1.0, 1.0, 1.0)
    assert _rim_to_centre(bpy, old) > 1.25


def test_boots_stand_on_soles_with_a_welt():
    """Each boot's upper sits on its sole (nothing of it below SOLE_M), and the sole is a closed, outward-facing
    slab from the ground up SOLE_M whose outline reaches at least WELT_M beyond everything of the upper above it:
    from a phone's height the welt's ledge shows round the boot."""
    for board in BOARDS[:4]:
        for parts in (_mannequin(board), technician_parts(board)):
            soles = parts["soles"]
            assert len(soles) == 2
            upper = np.concatenate([u for u, _ in parts["boots"]])
            upper = upper[upper[:, 2] < 0.1]
            centres = np.array([v[-1, :2] for v, _ in soles])  # each sole's last vertex: its top's centre
            nearest = np.argmin(np.linalg.norm(upper[:, None, :2] - centres[None], axis=2), axis=1)
            for k, (v, t) in enumerate(soles):
                assert v[:, 2].min() == pytest.approx(0.0, abs=1e-9)
                assert v[:, 2].max() == pytest.approx(person.SOLE_M, abs=1e-9)
                a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
                assert np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0 > 0  # outward: positive volume
                edges = np.sort(np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]]), axis=1)
                assert (np.unique(edges, axis=0, return_counts=True)[1] == 2).all()  # closed
                rim = v[(v[:, 2] > 0.01)][:-1, :2]  # its top outline, counter-clockwise (the centre last)
                mine = upper[nearest == k]
                assert mine[:, 2].min() >= person.SOLE_M - 1e-9
                edge = np.roll(rim, -1, axis=0) - rim
                inward = np.column_stack([-edge[:, 1], edge[:, 0]]) / np.linalg.norm(edge, axis=1)[:, None]
                depth = ((mine[:, None, :2] - rim[None]) * inward[None]).sum(axis=2).min(axis=1)
                assert depth.min() > 0.9 * person.WELT_M
