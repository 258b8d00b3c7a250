"""The face's skin regions (core/face_tint; issue 41's "mannequin" with a "featureless" face): a flush at the nose,
the cheeks and the ears, shadows under the eyes, stubble on men's jaws, found from the person's own eyes and
lips in any pose; and the skin shader showing them (bl/person.py)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from realitybench_addon.core import body_data
from realitybench_addon.core.face_tint import face_frame, skin_tints
from realitybench_addon.core.geometry import axis_rotation
from realitybench_addon.core.ro_board import draw_board, technician_parts, technician_skin_tints

if body_data.body_dir() is None:
    pytest.fail("MakeHuman's MPFB2 body data is missing: run `bash scripts/setup.sh`", pytrace=False)

BOARDS = [draw_board(np.random.default_rng(seed), (1.5 * seed % 7, -2.0), 47.0 * seed % 360 - 180, "driver")
          for seed in range(8)]
PARTS = {}


def _face(board):
    if board.seed not in PARTS:
        parts = technician_parts(board)
        points = {key: np.concatenate([v for v, _ in parts[key]]) for key in ("skin", "eyes", "sclera", "lips")}
        PARTS[board.seed] = points
    p = PARTS[board.seed]
    return p["skin"], p["eyes"], np.concatenate([p["eyes"], p["sclera"]]), p["lips"]


def _local(skin, iris, balls, lips):
    origin, forward, left, up = face_frame(iris, balls, lips)
    return (skin - origin) @ np.stack([forward, left, up]).T


def test_regions_sit_where_a_face_has_them():
    """On every body: the flush peaks within 2.5 cm of the nose's tip (the face's most forward point between the
    eyes and the mouth); the shadows lie just below the eyes, one each side; a man's stubble covers the chin and
    never the forehead, the eyes, the cheeks or the nose's tip."""
    for board in BOARDS:
        skin, iris, balls, lips = _face(board)
        tints = skin_tints(skin, iris, balls, lips, maleness=1.0, stubble=1.0)
        local = _local(skin, iris, balls, lips)
        mouth_z = float(_local(lips, iris, balls, lips)[:, 2].mean())
        middle = (np.abs(local[:, 1]) < 0.01) & (local[:, 2] < 0.0) & (local[:, 2] > mouth_z)
        nose_tip = local[middle][np.argmax(local[middle, 0])]
        assert np.linalg.norm(local[np.argmax(tints[:, 0])] - nose_tip) < 0.025
        dark = local[tints[:, 1] > 0.5]
        assert len(dark) and (dark[:, 2] < 0.0).all() and (dark[:, 2] > -0.03).all()
        assert (dark[:, 1] > 0.01).any() and (dark[:, 1] < -0.01).any()
        chin = (np.abs(local[:, 1]) < 0.015) & (local[:, 2] < mouth_z - 0.025) & (local[:, 2] > mouth_z - 0.05)
        chin &= local[:, 0] > np.percentile(local[chin, 0], 50)
        assert tints[chin, 2].min() > 0.9
        assert tints[local[:, 2] > 0.0, 2].max() == 0.0  # nothing above the eyes
        cheekbones = (np.abs(local[:, 1]) < 0.045) & (local[:, 2] > mouth_z + 0.025) & (local[:, 0] > -0.02)
        assert tints[cheekbones & (local[:, 2] < 0.0), 2].max() < 0.05  # nor over the cheeks (a soft edge at most)
        assert tints[np.argmin(np.linalg.norm(local - nose_tip, axis=1)), 2] == 0.0


def test_brows_arch_over_the_eyes_and_taper():
    """Each brow lies above its eye (between 0.5 and 3 cm up), reaches 4 to 6 cm out from the middle, has no
    weight across the middle, and is thicker at its head than at its tail."""
    for board in BOARDS:
        skin, iris, balls, lips = _face(board)
        local = _local(skin, iris, balls, lips)
        brow = skin_tints(skin, iris, balls, lips, maleness=0.0)[:, 3]
        on = local[brow > 0.5]
        assert (on[:, 2] > 0.005).all() and (on[:, 2] < 0.03).all()
        assert brow[np.abs(local[:, 1]) < 0.006].max() == 0.0
        for side in (1, -1):
            mine = on[np.sign(on[:, 1]) == side]
            assert 0.04 < np.abs(mine[:, 1]).max() < 0.06
            head, tail = (np.abs(mine[:, 1]) < 0.022), (np.abs(mine[:, 1]) > 0.045)
            assert np.ptp(mine[head, 2]) > np.ptp(mine[tail, 2])


def test_no_beard_on_women_and_none_just_shaved():
    skin, iris, balls, lips = _face(BOARDS[0])
    assert skin_tints(skin, iris, balls, lips, maleness=0.3)[:, 2].max() == 0.0
    assert skin_tints(skin, iris, balls, lips, maleness=1.0, stubble=0.0)[:, 2].max() == 0.0
    half = skin_tints(skin, iris, balls, lips, maleness=1.0, stubble=0.5)[:, 2]
    assert half.max() == pytest.approx(0.5)


def test_a_face_without_eyes_gets_no_regions():
    """The smooth mannequin (no MPFB2 data) has no eyes or lips of its own: every weight is 0, nothing fails."""
    skin, *_ = _face(BOARDS[0])
    assert not skin_tints(skin, np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3)), 1.0).any()


@settings(max_examples=20, deadline=None)
@given(st.floats(-np.pi, np.pi), st.floats(-0.6, 0.6), st.floats(-0.6, 0.6),
       st.tuples(*[st.floats(-50.0, 50.0)] * 3))
def test_the_regions_move_with_the_head(yaw, pitch, roll, shift):
    """A whole person turned and moved anywhere carries the same weights on the same vertices."""
    skin, iris, balls, lips = _face(BOARDS[1])
    rot = (axis_rotation(np.array([0.0, 0.0, 1.0]), yaw) @ axis_rotation(np.array([0.0, 1.0, 0.0]), pitch)
           @ axis_rotation(np.array([1.0, 0.0, 0.0]), roll))
    moved = [p @ rot.T + np.asarray(shift) for p in (skin, iris, balls, lips)]
    assert np.allclose(skin_tints(*moved, maleness=1.0), skin_tints(skin, iris, balls, lips, maleness=1.0),
                       atol=1e-6)


def test_the_board_gives_one_weight_per_skin_vertex():
    board = BOARDS[2]
    parts = technician_parts(board)
    tints = technician_skin_tints(board, parts)
    assert tints.shape == (sum(len(v) for v, _ in parts["skin"]), 4)
    assert np.array_equal(tints, technician_skin_tints(board, technician_parts(board)))
    assert 0.0 <= tints.min() and tints.max() <= 1.0 and tints[:, 0].max() > 0.9


def test_the_skin_shader_shows_the_regions():
    """Baked base colour of the skin over a square whose left edge carries a weight of 1 and right edge 0: the
    flush reddens the left, the shadow darkens it, stubble darkens it in dots, a brow turns it the brow's
    colour."""
    bpy = pytest.importorskip("bpy")
    from bake_support import bake_emission
    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.person import skin_material
    from realitybench_addon.core.face_tint import BROW_ATTRIBUTE, TINT_ATTRIBUTE

    tone, brow_color = (0.5, 0.33, 0.24), (0.03, 0.02, 0.012)
    baked = {}
    for k, region in enumerate(("flush", "shadow", "stubble", "brows")):
        reset_scene()
        mat = skin_material(f"Test_Skin_{region}", tone, brow_color)
        base = mat.node_tree.nodes.get("Principled BSDF").inputs["Base Color"].links[0].from_socket
        weight = {TINT_ATTRIBUTE: np.zeros((4, 3)), BROW_ATTRIBUTE: np.zeros((4, 3))}
        weight[BROW_ATTRIBUTE if region == "brows" else TINT_ATTRIBUTE][[0, 3], k % 3] = 1.0  # the left edge
        baked[region] = bake_emission(bpy, mat, 0.0, 0.0, 0.05, 48, base, rgb=True, point_vectors=weight)
    left, right = (slice(None), slice(0, 6)), (slice(None), slice(-6, None))
    flush = baked["flush"]
    assert (flush[left][..., 0] / flush[left][..., 1]).mean() > 1.15 * (flush[right][..., 0] /
                                                                       flush[right][..., 1]).mean()
    shadow = baked["shadow"].mean(axis=2)
    assert shadow[left].mean() < 0.85 * shadow[right].mean()
    stubble = baked["stubble"].mean(axis=2)
    assert stubble[left].mean() < 0.8 * stubble[right].mean()
    assert stubble[left].std() / stubble[left].mean() > 1.5 * stubble[right].std() / stubble[right].mean()
    brows = baked["brows"].mean(axis=2)
    assert brows[left].mean() < 0.4 * brows[right].mean()
