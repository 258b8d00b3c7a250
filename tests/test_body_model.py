"""The technician's body is MakeHuman's MPFB2 mesh (issue 41: "faceless mannequin"): the data is fetched by
`scripts/setup.sh` (pinned wheel hash, CC0 licence checked), shaped by the macro targets, skinned by its own
rig, the arms brought by IK exactly to the measured gripping hands' wrists; and it stays inside what the lot
plans for a person."""
import dataclasses
import math
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from realitybench_addon.core import body_data, body_model as bm, mpfb_person
from realitybench_addon.core.errors import RealityBenchError
from realitybench_addon.core.person import wrist_point
from realitybench_addon.core.ro_board import (board_grips, draw_board, technician_look, technician_parts,
                                              technician_shape)

FOLDER = body_data.body_dir()
if FOLDER is None:
    pytest.fail("MakeHuman's MPFB2 body data is missing: run `bash scripts/setup.sh` (it runs "
                "`python -m realitybench_addon fetch-body`)", pytrace=False)

BOARDS = [draw_board(np.random.default_rng(seed), (1.5 * seed % 7, -2.0), 47.0 * seed % 360 - 180, "driver")
          for seed in range(40)]
AVERAGE = bm.Shape(0.5, 0.5, 0.5, 0.5, (1 / 3, 1 / 3, 1 / 3))


def test_the_data_is_the_pinned_cc0_files():
    assert "CC0" in (FOLDER / "LICENSE.md").read_text(encoding="utf-8")
    assert body_data.complete(FOLDER)
    base = bm.load_base(str(FOLDER))
    assert len(base.vertices) == 19158 and len(base.quads) == 18486
    assert len(bm.load_rig(str(FOLDER), len(base.vertices)).names) == 163


def test_a_wheel_with_another_hash_is_refused(tmp_path):
    wheel = tmp_path / body_data.BODY_WHEEL_FILE
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(body_data.WHEEL_ROOT + "LICENSE.md", "CC0")
    with pytest.raises(ValueError, match="SHA-256"):
        body_data.unpack_wheel(wheel, tmp_path / "dest")
    assert not (tmp_path / "dest").exists()


def test_a_wrong_body_dir_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv(body_data.BODY_DIR_ENV, str(tmp_path))
    with pytest.raises(RealityBenchError, match="lacks 64 of the body files"):
        body_data.body_dir()


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["3dobjs/base.obj", "rigs/standard/rig.default.json", "rigs/standard/weights.default.json",
                        "targets/macrodetails/caucasian-male-young.target.gz"]), st.binary(max_size=400))
def test_damaged_data_is_named_not_a_traceback(tmp_path_factory, damaged, content):
    """Any of the files read replaced by arbitrary bytes: shaping a body gives a RealityBenchError (or, where
    the bytes happen to parse, a body), never another exception."""
    folder = tmp_path_factory.mktemp("body")
    for name in body_data.needed_files():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        if name == damaged:
            (folder / name).write_bytes(content)
        else:
            (folder / name).symlink_to(FOLDER / name)
    try:
        bm.shaped_body(folder, bm.Shape(1.0, 0.5, 0.5, 0.5, (0.0, 0.0, 1.0)))
    except RealityBenchError as exc:
        assert str(folder) in str(exc)


@pytest.mark.parametrize("gender", [0.0, 0.3, 1.0])
def test_shape_weights_mix_each_slider(gender):
    shape = bm.Shape(gender, 0.7, 0.2, 0.5, (0.2, 0.3, 0.5))
    weights = bm.shape_weights(shape)
    ethnic = sum(w for name, w in weights.items() if name.endswith("-young.target.gz"))
    universal = sum(w for name, w in weights.items() if "/universal-" in name)
    assert ethnic == pytest.approx(1.0) and universal == pytest.approx(1.0)
    assert not any("/height/" in name for name in weights)  # height 0.5: no height target
    assert {name.split("/")[-1].split("-")[1] for name in weights if "/universal-" in name} == (
        {"female", "male"} if 0 < gender < 1 else {"male" if gender else "female"})


def test_bodies_differ_and_stand_on_the_ground():
    heights = []
    for board in BOARDS[:12]:
        body = bm.shaped_body(FOLDER, technician_shape(board))
        skin = body.vertices[np.unique(body.base.quads[body.base.face_group == 0])]
        assert skin[:, 2].min() == pytest.approx(0.0, abs=1e-9)
        heights.append(skin[:, 2].max())
    assert 1.45 < min(heights) and max(heights) < 1.78 and max(heights) - min(heights) > 0.08, heights


def test_no_rotation_leaves_the_body_as_it_is():
    body = bm.shaped_body(FOLDER, AVERAGE)
    rot, trans = bm.global_transforms(body, {})
    assert np.abs(bm.skin(body, rot, trans) - body.vertices).max() < 1e-12


@settings(max_examples=60, deadline=None)
@given(st.floats(0.15, 0.5), st.floats(-0.35, 0.35), st.floats(0.95, 1.5), st.sampled_from(["L", "R"]),
       st.floats(0.0, 0.4))
def test_ik_puts_the_wrist_on_any_reachable_target(forward, across, height, side, elbow_out):
    body = bm.shaped_body(FOLDER, AVERAGE)
    rot, trans = bm.global_transforms(body, {})
    s = 1 if side == "L" else -1
    target = np.array([forward, s * abs(across), height])
    shoulder = body.joint(f"upperarm01.{side}")
    reach = np.linalg.norm(body.joint(f"lowerarm01.{side}") - shoulder) + np.linalg.norm(
        body.joint(f"wrist.{side}") - body.joint(f"lowerarm01.{side}"))
    if np.linalg.norm(target - shoulder) > 0.97 * reach:
        return
    local = bm.arm_rotations(body, rot, trans, side, target, [0.0, s * elbow_out, -1.0])
    rot, trans = bm.global_transforms(body, local)
    w = body.rig.index(f"wrist.{side}")
    assert np.linalg.norm(rot[w] @ body.heads[w] + trans[w] - target) < 1e-6
    for r in rot:  # rigid: every bone's transform is a rotation
        assert np.allclose(r @ r.T, np.eye(3), atol=1e-9) and np.linalg.det(r) == pytest.approx(1.0)


def test_the_arms_end_at_the_gripping_hands():
    """The posed forearm's wrist joint is where core/person's gripping hand has its wrist, for every board."""
    for board in BOARDS:
        look, shape, grips = technician_look(board), technician_shape(board), board_grips(board)
        body = bm.shaped_body(FOLDER, shape)
        a = math.radians(board.facing_deg)
        axes = np.array([[math.cos(a), math.sin(a), 0.0], [-math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
        origin = np.array([*board.feet_xy, 0.0])
        rot, trans = mpfb_person._pose(body, look, lambda p: axes @ (np.asarray(p) - origin), grips)
        for side, grip in zip(("L", "R"), grips):
            w = body.rig.index(f"wrist.{side}")
            wrist = axes.T @ (rot[w] @ body.heads[w] + trans[w]) + origin
            assert np.linalg.norm(wrist - wrist_point(grip)) < 1e-6


def test_dressed_by_region():
    """Skin shows only at the head, neck and hands (and forearms under short sleeves); the body's own hands are
    replaced by the gripping hands; every garment is there."""
    for board in BOARDS[:10]:
        look = technician_look(board)
        parts = technician_parts(board)
        for key in ("skin", "shirt", "trousers", "boots", "soles", "lips", "eyes", "sclera"):
            assert parts[key], key
        assert bool(parts.get("vest")) == (look.top == "vest")
        assert bool(parts.get("cap")) == (look.headwear == "cap") and bool(parts.get("hair")) == (
            look.headwear == "hair")
        feet = np.array([*board.feet_xy])
        for v, _ in parts["skin"]:
            low = v[:, 2] < 0.9  # nothing of the skin below the hips: trousers and boots cover the legs
            assert not (low & (np.linalg.norm(v[:, :2] - feet, axis=1) < 0.3)).any()
        triangles = sum(len(t) for key, meshes in parts.items() if key != "frame" for _, t in meshes)
        assert 15000 < triangles < 40000, triangles


def _rest_regions(board, **look_changes):
    look = dataclasses.replace(technician_look(board), **look_changes)
    body = bm.shaped_body(FOLDER, technician_shape(board))
    keys, vest = mpfb_person.face_regions(body, look)
    quads = body.base.quads[body.base.face_group == body.base.groups.index("body")]
    return body, keys, vest, body.vertices[quads].mean(axis=1)


def test_a_crew_neck_leaves_the_neck_bare():
    """The shirt ends at the base of the neck, lower in front than behind: no cloth up the neck (a collar at the
    jaw read as a mannequin's sock), and the skin reaches further down at the front than at the back."""
    for board in BOARDS[:6]:
        body, keys, _, rest = _rest_regions(board)
        neck = body.joint("neck01")
        near_axis = np.abs(rest[:, 1] - neck[1]) < 0.04
        assert not ((keys == "shirt") & near_axis & (rest[:, 2] > neck[2])).any()
        bare = (keys == "skin") & near_axis & (rest[:, 2] < neck[2] + 0.1)
        front, back = bare & (rest[:, 0] > neck[0] + 0.03), bare & (rest[:, 0] < neck[0] - 0.02)
        assert rest[front, 2].min() < rest[back, 2].min() - 0.025
        assert rest[back, 2].min() == pytest.approx(neck[2] + mpfb_person.NECK_LINE_M[0], abs=0.02)


def test_a_vest_opens_down_the_front():
    """A vest leaves its V and the closure's gap open down the front middle and covers both sides of the chest;
    it lies over the shirt only."""
    for board in BOARDS[:6]:
        body, keys, vest, rest = _rest_regions(board, top="vest")
        neck = body.joint("neck01")
        worn = vest != ""
        across = rest[:, 1] - neck[1]
        in_front = rest[:, 0] > neck[0]
        assert not (worn & in_front & (np.abs(across) < mpfb_person.VEST_GAP_HALF_M)).any()
        chest = in_front & (np.abs(rest[:, 2] - (body.joint("upperarm01.L")[2] - 0.05)) < 0.02)
        assert (worn & chest & (across > 0.05)).any() and (worn & chest & (across < -0.05)).any()
        assert not (worn & chest & (np.abs(across) < 0.03)).any()  # the V, at the chest
        assert not (worn & (keys != "shirt")).any()  # never over the bare neck or the arms' skin


def test_the_tape_is_sewn_flat_on_the_vest():
    """The tape's faces lie on the vest's own surface (one smoothed garment split by colour): every vertex on the
    tape's edges is a vertex of the vest's, so no edge of it stands proud of the cloth round it; two bands."""
    board = next(b for b in BOARDS if technician_look(b).top == "vest")
    parts = technician_parts(board)
    vest = np.concatenate([v for v, _ in parts["vest"]])
    (tape, faces), = parts["stripe"]
    edge_vertices = np.unique(mpfb_person._border_edges(faces))
    distance = np.array([np.linalg.norm(vest - p, axis=1).min() for p in tape[edge_vertices]])
    assert len(edge_vertices) > 50 and distance.max() < 1e-9
    heights = np.unique(np.round(tape[:, 2], 2))
    assert heights.max() - heights.min() > 0.1  # the bands 12 cm apart
