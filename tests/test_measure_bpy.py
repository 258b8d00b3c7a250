"""Every geometric and image primitive pinned against analytic scenes, in the bpy wheel."""
import json
import math

import numpy as np
import pytest

bpy = pytest.importorskip("bpy")

from realitybench_addon import api  # noqa: E402
from realitybench_addon.bl import analytic, raycast  # noqa: E402
from realitybench_addon.bl.measure import CAPTURE_PROPERTY  # noqa: E402
from realitybench_addon.bl.render import render_frame  # noqa: E402
from realitybench_addon.core.phone import Capture  # noqa: E402

FOCAL_MM, SENSOR_MM, W, H = 26.0, 36.0, 1600, 1200
F_PX = FOCAL_MM / SENSOR_MM * W


@pytest.fixture
def scene():
    raycast.invalidate()
    return analytic.reset_scene()


def pinhole_uv(points, cam_pos, forward, up):
    """Independent projection for a camera looking along `forward` (unit) with `up`."""
    right = np.cross(forward, up)
    out = []
    for p in np.atleast_2d(points):
        d = np.asarray(p, float) - cam_pos
        z = d @ forward
        out.append([W / 2 + F_PX * (d @ right) / z, H / 2 - F_PX * (d @ up) / z])
    return np.array(out)


def test_rectangle_at_known_distance_and_angle(scene):
    yaw = math.radians(30)
    # the rectangle's normal points back towards the camera, turned 30 degrees about the vertical
    normal = (math.sin(yaw), -math.cos(yaw), 0.0)
    matrix = analytic.frame_matrix((0.0, 2.0, 0.0), normal, (math.cos(yaw), math.sin(yaw), 0.0))
    analytic.add_rectangle(scene, "Rect", 0.4, 0.3, matrix)
    analytic.add_camera(scene, "Cam", (0, 0, 0), (0, 2, 0), focal_mm=FOCAL_MM, sensor_width_mm=SENSOR_MM)
    m = api.measure("Rect", "Cam", unit_length_m=0.01, axis="y")
    assert m["view_angle_deg"] == pytest.approx(30.0, abs=0.5)
    assert m["distance_m"] == pytest.approx(2.0, rel=1e-6)
    # local y is the world vertical here: no foreshortening
    assert m["px_per_unit"] == pytest.approx(F_PX * 0.01 / 2.0, rel=0.01)
    corners = np.array([matrix[:3, :3] @ [sx * 0.2, sy * 0.15, 0] + matrix[:3, 3] for sx in (-1, 1) for sy in (-1, 1)])
    uv = pinhole_uv(corners, np.zeros(3), np.array([0, 1.0, 0]), np.array([0, 0, 1.0]))
    expected_bbox = np.prod(uv.max(axis=0) - uv.min(axis=0)) / (W * H)
    assert m["bbox_fraction"] == pytest.approx(expected_bbox, rel=0.02)
    assert m["in_frame_fraction"] == 1.0 and m["unoccluded_fraction"] == 1.0
    # along local x the unit is foreshortened by the 30-degree turn (to first order)
    mx = api.measure("Rect", "Cam", unit_length_m=0.01, axis="x")
    assert mx["px_per_unit"] == pytest.approx(F_PX * 0.01 / 2.0 * math.cos(yaw), rel=0.01)


def test_occluder_hiding_exactly_half(scene):
    analytic.add_rectangle(scene, "Rect", 0.2, 0.2, analytic.frame_matrix((0, 1.0, 0), (0, -1, 0), (1, 0, 0)),
                           divisions=4)
    # a box whose right face lies on the camera's axis hides the rectangle's x < 0 half
    analytic.add_box(scene, "Box", (0.2, 0.05, 0.3), (-0.1, 0.5, 0.0))
    analytic.add_camera(scene, "Cam", (0, 0, 0), (0, 1, 0), focal_mm=FOCAL_MM, sensor_width_mm=SENSOR_MM)
    m = api.measure("Rect", "Cam")
    assert m["unoccluded_fraction"] == pytest.approx(0.50, abs=0.03)
    assert m["in_frame_fraction"] == 1.0
    assert m["visible_fraction"] == pytest.approx(0.50, abs=0.03)


def test_thin_wire_whose_ends_leave_the_frame(scene):
    analytic.add_wire(scene, "Wire", [(-3.0, 2.0, 0.0), (3.0, 2.0, 0.0)], 0.003)
    analytic.add_camera(scene, "Cam", (0, 0, 0), (0, 2, 0), focal_mm=FOCAL_MM, sensor_width_mm=SENSOR_MM)
    half_width_m = (W / 2) / F_PX * 2.0
    m = api.measure("Wire", "Cam")
    assert m["in_frame_fraction"] == pytest.approx(2 * half_width_m / 6.0, abs=0.02)
    # corner-only sampling would report the wire as out of frame: both ends are outside
    from realitybench_addon.bl.scene_data import pinhole_camera, world_triangles
    from realitybench_addon.core.geometry import sample_surface

    v, t = world_triangles(bpy.data.objects["Wire"], bpy.context.evaluated_depsgraph_get())
    corners, _, _ = sample_surface(v, t, 0)
    assert pinhole_camera(bpy.data.objects["Cam"], scene).in_frame(corners).mean() == 0.0


def thin_lens_blur_px(s, sf, f_mm, n, pitch_mm):
    v = 1 / (1 / f_mm - 1 / (s * 1000))
    vf = 1 / (1 / f_mm - 1 / (sf * 1000))
    return (f_mm / n) * abs(v - vf) / v / pitch_mm


def test_blur_at_target_from_the_blender_camera_and_the_shake(scene):
    analytic.add_rectangle(scene, "Rect", 0.1, 0.1, analytic.frame_matrix((0, 0.5, 0), (0, -1, 0), (1, 0, 0)))
    cam = analytic.add_camera(scene, "Cam", (0, 0, 0), (0, 0.5, 0), focal_mm=5.0, sensor_width_mm=7.0)
    cam.data.dof.use_dof = True
    cam.data.dof.focus_distance = 1.0
    cam.data.dof.aperture_fstop = 2.0
    m = api.measure("Rect", "Cam")
    assert m["defocus_px"] == pytest.approx(thin_lens_blur_px(0.5, 1.0, 5.0, 2.0, 7.0 / W), rel=1e-3)
    assert m["motion_blur_px"] == 0.0
    # hand shake: 6 deg/s for 1/25 s about the camera's vertical axis sweeps the centre by f_px * tan(angle)
    capture = Capture(mode="hand_shake", shutter_s=0.04, shake_rate_deg_s=6.0, shake_axis=(0, 1, 0))
    cam[CAPTURE_PROPERTY] = json.dumps(capture.to_dict())
    m = api.measure("Rect", "Cam")
    f_px = 5.0 / 7.0 * W
    assert m["motion_blur_px"] == pytest.approx(2 * f_px * math.tan(math.radians(6.0 * 0.04 / 2)), rel=1e-3)
    assert m["blur_at_target_px"] == pytest.approx(m["defocus_px"] + m["motion_blur_px"])


def _keyframes(camera_obj):
    from realitybench_addon.bl import compat

    animation = camera_obj.animation_data
    if animation is None or animation.action is None:
        return None
    return sorted((fc.data_path, fc.array_index, [(tuple(k.co), k.interpolation) for k in fc.keyframe_points])
                  for fc in compat.action_fcurves(animation.action))


def test_a_shaken_frame_after_a_shaken_frame_keys_the_camera_as_a_fresh_camera_would(scene):
    """The second of two shaken frames rewrites the first's keyframes in place (no action removed and made);
    its keys, evaluated pose and render equal those of a camera that never shook, on any current frame; a
    steady frame then leaves the camera with no animation at all."""
    from realitybench_addon.bl.camera import apply_capture
    from realitybench_addon.core.optics import look_at
    from realitybench_addon.core.phone import camera_settings, draw_phone

    _card_and_two_cameras(scene)
    phone = draw_phone(np.random.default_rng(0))
    first = Capture(mode="hand_shake", shutter_s=0.05, shake_rate_deg_s=20.0, shake_axis=(0, 1, 0),
                    shake_speed_m_s=0.02, shake_direction=(1, 0, 0))
    second = Capture(mode="hand_shake", shutter_s=0.03, shake_rate_deg_s=35.0, shake_axis=(1, 0, 0),
                     shake_speed_m_s=0.05, shake_direction=(0, 0, 1))
    pose_a = look_at((0.02, -0.1, 0.03), (0, 1.0, 0))
    pose_b = look_at((-0.03, 0.05, -0.02), (0.01, 1.0, 0.01))

    def place(camera_obj, capture, pose):
        apply_capture(scene, camera_obj, camera_settings(phone, capture, 1.0, 64), capture, phone, pose)

    shaken, fresh = bpy.data.objects["Wide"], bpy.data.objects["Tall"]
    scene.frame_set(5)
    place(shaken, first, pose_a)
    action = shaken.animation_data.action
    scene.frame_set(9)  # the second frame keys another current frame
    place(shaken, second, pose_b)
    assert shaken.animation_data.action == action  # rewritten, not replaced
    rewritten_keys, rewritten_pose = _keyframes(shaken), np.array(shaken.matrix_world)
    rewritten = render_frame(scene, shaken, samples=2)
    place(fresh, second, pose_b)
    assert rewritten_keys == _keyframes(fresh)
    assert [[key[0][0] for key in keys] for _, _, keys in rewritten_keys] == [[9.0, 10.0]] * 6
    assert np.array_equal(rewritten_pose, np.array(fresh.matrix_world))
    again = render_frame(scene, fresh, samples=2)
    assert np.array_equal(rewritten.linear_rgb, again.linear_rgb)
    steady = Capture()
    place(shaken, steady, pose_a)
    assert shaken.animation_data is None and not scene.render.use_motion_blur


def test_a_shaken_frame_leaves_an_action_the_camera_shares_with_another_object_alone(scene):
    """Keyframes are rewritten in place only in the camera's own action: one it shares (as Object.copy()
    shares) is let go, as before, and the other object keeps its keys."""
    from realitybench_addon.bl.camera import apply_capture
    from realitybench_addon.core.optics import look_at
    from realitybench_addon.core.phone import camera_settings, draw_phone

    _card_and_two_cameras(scene)
    phone = draw_phone(np.random.default_rng(0))
    shake = Capture(mode="hand_shake", shutter_s=0.05, shake_rate_deg_s=20.0, shake_axis=(0, 1, 0))
    camera = bpy.data.objects["Wide"]

    def place(pose):
        apply_capture(scene, camera, camera_settings(phone, shake, 1.0, 64), shake, phone, pose)

    place(look_at((0.02, -0.1, 0.03), (0, 1.0, 0)))
    shared = camera.animation_data.action
    other = bpy.data.objects["Tall"]
    other.animation_data_create().action = shared
    keys = _keyframes(other)
    place(look_at((-0.03, 0.05, -0.02), (0.01, 1.0, 0.01)))
    assert camera.animation_data.action != shared and _keyframes(other) == keys


def test_rendered_card_contrast_and_mask_alignment(scene):
    analytic.uniform_world(scene, 1.0)
    # the card sits up and to the left of the optical axis, so a flipped mask would be caught
    center = np.array([-0.12, 1.0, 0.08])
    analytic.card_with_ink(scene, "Card", 0.12, 0.08, analytic.frame_matrix(center, (0, -1, 0), (1, 0, 0)),
                           paper=0.8, ink=0.04)
    analytic.add_rectangle(scene, "Backdrop", 3, 3, analytic.frame_matrix((0, 1.2, 0), (0, -1, 0), (1, 0, 0)),
                           analytic.diffuse_material("Grey", (0.3, 0.3, 0.3)))
    analytic.add_camera(scene, "Cam", (0, 0, 0), (0, 1, 0), focal_mm=FOCAL_MM, sensor_width_mm=SENSOR_MM,
                        resolution=(160, 120))
    frame = render_frame(scene, bpy.data.objects["Cam"], samples=16)
    mask = frame.mask(["Card"])
    assert mask.sum() > 50
    terms = api.image_terms(frame, ["Card"])
    assert terms["weber_contrast"] == pytest.approx(1 - 0.04 / 0.8, abs=0.05)
    rows, cols = np.nonzero(mask)
    f_px = FOCAL_MM / SENSOR_MM * 160
    expected = (80 + f_px * center[0] / 1.0, 60 - f_px * center[2] / 1.0)
    assert cols.mean() + 0.5 == pytest.approx(expected[0], abs=1.5)
    assert rows.mean() + 0.5 == pytest.approx(expected[1], abs=1.5)
    # the measured mask area matches the card's projected area
    assert mask.sum() == pytest.approx((0.12 * f_px) * (0.08 * f_px), rel=0.15)


def _card_and_two_cameras(scene):
    analytic.uniform_world(scene, 1.0)
    analytic.card_with_ink(scene, "Card", 0.12, 0.08, analytic.frame_matrix((0, 1.0, 0), (0, -1, 0), (1, 0, 0)),
                           paper=0.8, ink=0.04)
    analytic.add_camera(scene, "Wide", (0, 0, 0), (0, 1, 0), resolution=(64, 48))
    analytic.add_camera(scene, "Tall", (0.05, 0.2, 0.02), (0, 1, 0), resolution=(64, 48))


def _compositor_state(scene):
    """What a render may add to the scene, by kind: compositing trees and nodes, images, the index pass."""
    trees = [g.name for g in bpy.data.node_groups if g.bl_idname == "CompositorNodeTree"]
    own = getattr(scene, "node_tree", None)
    nodes = sorted(n.bl_idname for n in own.nodes) if own is not None else []
    images = sorted(i.name for i in bpy.data.images if i.type not in {"RENDER_RESULT", "COMPOSITING"})
    return trees, nodes, images, scene.view_layers[0].use_pass_object_index


def test_renders_in_a_session_share_one_setup_and_leave_the_scene_as_it_was(scene):
    """`render_session`: the renders of an export keep one compositor set-up and pair of images (adding and
    removing datablocks makes Blender rebuild the depsgraph's relations); pixels and masks are those of
    renders on their own, at any resolution, and the scene is as it was when the session ends."""
    from realitybench_addon.bl.render import render_session

    _card_and_two_cameras(scene)
    before = _compositor_state(scene)
    alone = [render_frame(scene, bpy.data.objects[c], samples=2) for c in ("Wide", "Tall")]
    assert _compositor_state(scene) == before
    with render_session(scene):
        shared = []
        for name, resolution in (("Wide", (64, 48)), ("Tall", (64, 48)), ("Wide", (40, 56))):
            scene.render.resolution_x, scene.render.resolution_y = resolution
            shared.append(render_frame(scene, bpy.data.objects[name], samples=2))
            if len(shared) == 1:
                during = _compositor_state(scene)
                assert during != before and len(during[2]) == len(before[2]) + 2  # the rig's two images
            else:
                assert _compositor_state(scene) == during  # nothing added or removed by later renders
    assert _compositor_state(scene) == before
    for a, b in zip(alone, shared):
        assert np.array_equal(a.linear_rgb, b.linear_rgb) and np.array_equal(a.object_index, b.object_index)
    assert shared[2].linear_rgb.shape == (56, 40, 3) and shared[2].mask(["Card"]).any()


def test_a_session_numbers_pass_indices_once_and_puts_them_back_at_its_end(scene):
    """The mask needs every object numbered; writing a pass index makes the next depsgraph update evaluate
    that object again, so the frames of a session after the first write none, and the objects' own indices
    come back when the session ends (a render on its own puts them back at once)."""
    from realitybench_addon.bl.render import render_session

    _card_and_two_cameras(scene)
    card = bpy.data.objects["Card"]
    card.pass_index = 7
    render_frame(scene, bpy.data.objects["Wide"], samples=2)
    assert card.pass_index == 7
    updated = []

    def record(_scene, depsgraph):
        updated.extend(u.id.name for u in depsgraph.updates if isinstance(u.id, bpy.types.Object))

    with render_session(scene):
        first = render_frame(scene, bpy.data.objects["Wide"], samples=2)
        assert card.pass_index == first.index_of["Card"] != 7
        bpy.context.view_layer.update()
        second = render_frame(scene, bpy.data.objects["Tall"], samples=2)
        bpy.app.handlers.depsgraph_update_post.append(record)
        try:
            bpy.context.view_layer.update()  # evaluates what the render's set-up changed
        finally:
            bpy.app.handlers.depsgraph_update_post.remove(record)
        assert "Card" not in updated and second.index_of == first.index_of
        assert second.mask(["Card"]).any()
    assert card.pass_index == 7


def test_a_session_puts_pass_indices_back_after_a_rename_and_when_its_set_up_is_removed_under_it(scene):
    """Objects are known by their session identity: a renamed object gets its own index back; a rig whose
    images someone removed still puts the indices back before the next render numbers them again,
    so the session's end restores the objects' own indices, not the first rig's numbers."""
    from realitybench_addon.bl.render import render_session

    _card_and_two_cameras(scene)
    card = bpy.data.objects["Card"]
    card.pass_index = 7
    with render_session(scene):
        render_frame(scene, bpy.data.objects["Wide"], samples=2)
        card.name = "Card_Renamed"
        for image in [i for i in bpy.data.images if i.type not in {"RENDER_RESULT", "COMPOSITING"}]:
            bpy.data.images.remove(image)  # the rig's: it is found dead at the next render
        again = render_frame(scene, bpy.data.objects["Wide"], samples=2)
        assert card.pass_index == again.index_of["Card_Renamed"] and again.mask(["Card_Renamed"]).any()
    assert card.pass_index == 7


def test_a_session_survives_the_scene_being_emptied_and_rebuilt(scene):
    from realitybench_addon.bl.render import render_session

    _card_and_two_cameras(scene)
    before = _compositor_state(scene)
    with render_session(scene):
        first = render_frame(scene, bpy.data.objects["Wide"], samples=2)
        scene = analytic.reset_scene()  # what an export does between scenes
        assert _compositor_state(scene)[2] == []  # the rig went with the scene, cleanly
        _card_and_two_cameras(scene)
        again = render_frame(scene, bpy.data.objects["Wide"], samples=2)
    assert np.array_equal(first.linear_rgb, again.linear_rgb)
    assert _compositor_state(scene) == before


def test_bvh_is_cached_until_the_scene_changes(scene):
    analytic.add_rectangle(scene, "Rect", 0.2, 0.2, analytic.frame_matrix((0, 1.0, 0), (0, -1, 0), (1, 0, 0)))
    box = analytic.add_box(scene, "Box", (0.2, 0.05, 0.3), (-0.1, 0.5, 0.0))
    analytic.add_camera(scene, "Cam", (0, 0, 0), (0, 1, 0))
    api.measure("Rect", "Cam")
    first = raycast.scene_bvh(scene)
    api.measure("Rect", "Cam")
    assert raycast.scene_bvh(scene) is first
    box.location.x = 5.0
    bpy.context.view_layer.update()
    assert api.measure("Rect", "Cam")["unoccluded_fraction"] == 1.0
    assert raycast.scene_bvh(scene) is not first


def test_missing_target_and_camera_are_clear_errors(scene):
    analytic.add_rectangle(scene, "Rect", 0.2, 0.2)
    with pytest.raises(api.RealityBenchError, match="no active camera"):
        api.measure("Rect")
    analytic.add_camera(scene, "Cam", (0, -1, 0), (0, 0, 0))
    with pytest.raises(api.RealityBenchError, match="no object named 'Nope'"):
        api.measure("Nope", "Cam")
    with pytest.raises(api.RealityBenchError, match="is a mesh, not a camera"):
        api.measure("Rect", "Rect")


def test_same_seed_same_capture_terms_and_image(tmp_path):
    a = api.demo(tmp_path / "a", seed=3, long_side_px=120, samples=2)
    b = api.demo(tmp_path / "b", seed=3, long_side_px=120, samples=2)
    c = api.demo(tmp_path / "c", seed=4, long_side_px=120, samples=2)
    for key in ("phone", "capture", "camera", "postprocess", "terms"):
        assert a[key] == b[key]
    assert a["capture"] != c["capture"]
    jpg = a["file_name"]
    assert (tmp_path / "a" / jpg).read_bytes() == (tmp_path / "b" / jpg).read_bytes()
    assert not list((tmp_path / "a").glob(".*partial"))


def test_curve_clearance_of_a_sagging_cable(scene):
    from realitybench_addon.bl.measure import curve_clearance

    # a cable sagging to 5 cm above a plane tilted 30 degrees, radius 4 mm
    tilt = math.radians(30)
    normal = np.array([0.0, -math.sin(tilt), math.cos(tilt)])
    pts = [normal * 0.12 - 0.4 * np.array([1, 0, 0]), normal * 0.05, normal * 0.12 + 0.4 * np.array([1, 0, 0])]
    analytic.add_wire(scene, "Cable", pts, 0.004)
    clearance, low = curve_clearance("Cable", [0, 0, 0], normal)
    assert clearance == pytest.approx(0.046, abs=1e-6)
    assert np.allclose(low, normal * 0.05)
    touching = [p - normal * 0.06 for p in pts]
    analytic.add_wire(scene, "Touching", touching, 0.004)
    assert curve_clearance("Touching", [0, 0, 0], normal)[0] == pytest.approx(-0.014, abs=1e-6)
    with pytest.raises(Exception, match="is a mesh, not a curve"):
        analytic.add_rectangle(scene, "Flat", 1, 1)
        curve_clearance("Flat", [0, 0, 0], normal)
