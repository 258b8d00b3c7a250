"""The phone view and Browse Set's thumbnails, headless in the bpy wheel (and in Debian's Blender 3.4.1:
`blender -b --python-exit-code 1 --python-expr` running pytest on this file; docs/sidebar.md): a real JPEG
and mask written by Blender, composed, its pixels checked against the frame as Blender read it."""
import numpy as np
import pytest

from realitybench_addon.core import phone_view as core

bpy = pytest.importorskip("bpy")

import realitybench_addon  # noqa: E402
from realitybench_addon.bl import image_pixels  # noqa: E402
from realitybench_addon.ui import phone_view  # noqa: E402

W, H = 160, 120
TARGET = (slice(40, 80), slice(60, 120))  # rows, columns (top-down) of the target's rectangle
REGION = (slice(10, 30), slice(10, 50))  # another term's region, away from the target


@pytest.fixture(scope="module")
def addon():
    realitybench_addon.register()
    yield
    realitybench_addon.unregister()  # the bpy wheel hangs at exit with operators registered


def _save(rgb: np.ndarray, path, file_format: str) -> None:
    """Write a picture with Blender itself (no pillow in some Blender Pythons), as the renderer does."""
    image = bpy.data.images.new("rb-test-writer", rgb.shape[1], rgb.shape[0], alpha=False)
    rgba = np.ones(rgb.shape[:2] + (4,), np.float32)
    rgba[..., :3] = rgb / 255.0
    image.pixels.foreach_set(rgba[::-1].ravel())
    image.filepath_raw, image.file_format = str(path), file_format
    image.save()
    bpy.data.images.remove(image)


def _mask_png(path, where) -> None:
    mask = np.zeros((H, W, 3), np.uint8)
    mask[where] = 255
    _save(mask, path, "PNG")


@pytest.fixture
def frame(tmp_path):
    """A light grey frame with a gradient and a dark card (the target), as a JPEG; the target's mask PNG."""
    rgb = np.full((H, W, 3), 200, np.uint8)
    rgb[..., 0] = np.linspace(150, 230, W).astype(np.uint8)[None, :]
    rgb[TARGET] = (60, 70, 80)
    jpeg, mask = tmp_path / "frame.jpg", tmp_path / "mask.png"
    _save(rgb, jpeg, "JPEG")
    _mask_png(mask, TARGET)
    return jpeg, mask


def _pixels(name: str) -> np.ndarray:
    return image_pixels.read_rgb(bpy.data.images[name]).astype(int)


def _inner(where, by: int = 4):
    return tuple(slice(s.start + by, s.stop - by) for s in where)


def test_the_target_is_tinted_and_outlined_on_the_frame_as_saved(addon, frame):
    jpeg, mask = frame
    view = phone_view.record_render(jpeg, mask, [], caption="tape_gap-random-s0-000002: ACCEPT")
    assert view.name == phone_view.VIEW_IMAGE and tuple(view.size) == (W, H)
    shown, saved = _pixels(phone_view.VIEW_IMAGE), _pixels(phone_view.FRAME_IMAGE)
    assert saved[_inner(TARGET)].mean() < 100 < saved[REGION].mean()  # the JPEG as Blender read it
    expected = np.round(saved[_inner(TARGET)] * (1 - core.TARGET_TINT) + np.array(core.TARGET_COLOR) *
                        core.TARGET_TINT)
    assert np.abs(shown[_inner(TARGET)] - expected).max() <= 1
    edge = core.thick_outline(image_pixels.read_mask(bpy.data.images[phone_view.MASK_IMAGE]), 1)
    assert edge.sum() > 100 and (shown[edge] == core.TARGET_COLOR).all()
    outside = np.ones((H, W), bool)
    outside[TARGET[0].start - 2:TARGET[0].stop + 2, TARGET[1].start - 2:TARGET[1].stop + 2] = False
    assert (shown[outside] == saved[outside]).all()
    assert len(np.unique(shown.reshape(-1, 3), axis=0)) > 20  # a picture, not one colour
    state = bpy.context.scene.realitybench_phone_view
    assert state.target_pixels == 40 * 60 and state.caption.endswith("ACCEPT")


def test_failing_terms_regions_are_red_where_they_fail(addon, frame, tmp_path):
    jpeg, mask = frame
    region_png = tmp_path / "glare.png"
    _mask_png(region_png, REGION)
    phone_view.record_render(jpeg, mask, [{"name": "in_frame", "label": "In frame", "region": "target"},
                                          {"name": "glare", "label": "Glare", "region": str(region_png)},
                                          "prompt_ok"])
    shown, saved = _pixels(phone_view.VIEW_IMAGE), _pixels(phone_view.FRAME_IMAGE)
    for where in (TARGET, REGION):
        expected = np.round(saved[_inner(where)] * (1 - core.FAILING_TINT) + np.array(core.FAILING_COLOR) *
                            core.FAILING_TINT)
        assert np.abs(shown[_inner(where)] - expected).max() <= 1
    assert (shown[REGION[0].start, REGION[1].start + 5] == core.FAILING_COLOR).all()  # the region's outline
    assert (shown[TARGET[0].start, TARGET[1].start + 5] == core.TARGET_COLOR).all()  # the target's, on top
    assert (shown[100:, :40] == saved[100:, :40]).all()
    import json

    failing = json.loads(bpy.context.scene.realitybench_phone_view.failing)
    assert [(t["label"], t["region"] is not None) for t in failing] == [("In frame", True), ("Glare", True),
                                                                        ("prompt_ok", False)]
    assert region_png.name not in {i.name for i in bpy.data.images}  # a region's mask is read and let go


def test_the_phone_view_has_a_preview_of_the_composed_frame(addon, frame):
    jpeg, mask = frame
    view = phone_view.record_render(jpeg, mask, [])
    preview = view.preview
    assert preview is not None and preview.is_image_custom and tuple(preview.image_size) == (W, H)
    pixels = np.array(preview.image_pixels_float[:]).reshape(H, W, 4)[::-1, :, :3]
    assert np.abs(pixels * 255 - _pixels(phone_view.VIEW_IMAGE)).max() <= 1
    assert tuple(preview.icon_size) == (32, 24)


def test_a_new_render_replaces_the_last_and_clear_forgets_it(addon, frame, tmp_path):
    jpeg, mask = frame
    phone_view.record_render(jpeg, mask, [])
    other = tmp_path / "other.jpg"
    _save(np.full((H * 2, W * 2, 3), 30, np.uint8), other, "JPEG")
    view = phone_view.record_render(other, None, [])  # no target mask: the frame as saved
    assert tuple(view.size) == (2 * W, 2 * H)
    assert np.abs(_pixels(phone_view.VIEW_IMAGE) - 30).max() <= 2
    assert len([i for i in bpy.data.images if i.name.startswith(phone_view.FRAME_IMAGE)]) == 1
    phone_view.clear_phone_view()
    assert phone_view.VIEW_IMAGE not in bpy.data.images
    assert bpy.context.scene.realitybench_phone_view.image_path == ""


def test_missing_pictures_and_masks_of_another_frame_are_one_line_errors(addon, frame, tmp_path):
    jpeg, mask = frame
    with pytest.raises(core.PhoneViewError, match=r"^no such picture: .*nowhere\.jpg$"):
        phone_view.record_render(tmp_path / "nowhere.jpg", mask, [])
    square = tmp_path / "square.png"
    _save(np.zeros((50, 50, 3), np.uint8), square, "PNG")
    with pytest.raises(core.PhoneViewError, match=r"the mask \(50x50\) is not of this frame \(160x120\)"):
        phone_view.record_render(jpeg, square, [])
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not a jpeg at all")
    with pytest.raises(core.PhoneViewError, match="^cannot read .*junk.jpg"):
        phone_view.record_render(junk, mask, [])


def test_a_mask_of_a_half_scale_render_lands_on_the_same_pixels(addon, frame, tmp_path):
    jpeg, _ = frame
    half = tmp_path / "half.png"
    small = np.zeros((H // 2, W // 2, 3), np.uint8)
    small[20:40, 30:60] = 255
    _save(small, half, "PNG")
    phone_view.record_render(jpeg, half, [])
    assert bpy.context.scene.realitybench_phone_view.target_pixels == 40 * 60
    assert (_pixels(phone_view.VIEW_IMAGE)[40, 70] == core.TARGET_COLOR).all()


def test_a_set_jpeg_gets_a_thumbnail_preview(addon, tmp_path):
    big = np.zeros((600, 800, 3), np.uint8)
    big[:, :400] = (250, 250, 250)
    path = tmp_path / "tape_gap-random-s0-000001.jpg"
    _save(big, path, "JPEG")
    image = phone_view.load_thumbnail(path)
    preview = image.preview
    assert preview.is_image_custom and tuple(preview.image_size) == (256, 192)
    pixels = np.array(preview.image_pixels_float[:]).reshape(192, 256, 4)
    assert pixels[:, :120, 0].mean() > 0.95 and pixels[:, 136:, 0].mean() < 0.05  # left white, right black
    assert not image.has_data  # the full-size pixels are let go; the preview stays


def test_only_the_last_thumbnails_are_kept(addon, tmp_path, monkeypatch):
    monkeypatch.setattr(phone_view, "KEEP_THUMBNAILS", 2)
    paths = []
    for i in range(4):
        paths.append(tmp_path / f"f{i}.jpg")
        _save(np.full((30, 40, 3), 60 * i, np.uint8), paths[-1], "JPEG")
        phone_view.load_thumbnail(paths[-1])
    loaded = {bpy.path.abspath(i.filepath) for i in bpy.data.images if i.source == "FILE"}
    assert {str(p) in loaded for p in paths} == {True, False}
    assert [str(p) in loaded for p in paths] == [False, False, True, True]


def test_open_in_image_editor_splits_the_3d_view_once(addon, frame):
    jpeg, mask = frame
    view = phone_view.record_render(jpeg, mask, [])
    screen = bpy.context.window.screen  # the wheel's factory window (also headless)
    for area in screen.areas:
        if area.type == "IMAGE_EDITOR":
            area.type = "VIEW_3D"
    before = len(screen.areas)
    assert bpy.ops.realitybench.open_phone_view() == {"FINISHED"}
    editors = [a for a in screen.areas if a.type == "IMAGE_EDITOR"]
    assert len(screen.areas) == before + 1 and len(editors) == 1 and editors[0].spaces.active.image == view
    assert bpy.ops.realitybench.open_phone_view() == {"FINISHED"}  # the open editor is reused
    assert len(screen.areas) == before + 1
    phone_view.clear_phone_view()
    with pytest.raises(RuntimeError, match="No phone view yet: Check Acceptability renders"):
        bpy.ops.realitybench.open_phone_view()


def test_a_reopened_file_composes_its_phone_view_again(addon, frame, tmp_path):
    jpeg, mask = frame
    phone_view.record_render(jpeg, mask, [{"name": "in_frame", "label": "In frame", "region": "target"}],
                             caption="saved with the file")
    before = _pixels(phone_view.VIEW_IMAGE)
    blend = tmp_path / "designer.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    bpy.ops.wm.open_mainfile(filepath=str(blend))  # load_post: composed again from the pictures on disk
    assert bpy.context.scene.realitybench_phone_view.caption == "saved with the file"
    assert (_pixels(phone_view.VIEW_IMAGE) == before).all()
    jpeg.unlink()  # the pictures are gone: the phone view is forgotten, not shown blank
    bpy.ops.wm.open_mainfile(filepath=str(blend))
    assert bpy.context.scene.realitybench_phone_view.image_path == ""
    assert phone_view.VIEW_IMAGE not in bpy.data.images


def test_compose_and_thumbnail_are_pure_numpy():
    rgb = np.zeros((9, 12, 3), np.uint8)
    target = np.zeros((9, 12), bool)
    target[3:6, 4:8] = True
    out = core.compose(rgb, target, [])
    assert (out[4, 5:7] == np.round(np.array(core.TARGET_COLOR) * core.TARGET_TINT)).all()
    assert (out[3, 4] == core.TARGET_COLOR).all() and (out[0, 0] == 0).all()
    small = core.thumbnail(np.arange(16 * 8 * 3, dtype=np.uint8).reshape(8, 16, 3), 8)
    block = np.arange(16 * 8 * 3).reshape(8, 16, 3)[:2, :2, 0]  # the first thumbnail pixel covers 2 x 2
    assert small.shape == (4, 8, 3) and small[0, 0, 0] == np.round(block.mean())
    from realitybench_addon.core.postprocess import srgb_encode

    levels = np.arange(256) / 255.0  # what the Image Editor shows is what the phone saved, every 8-bit level
    assert (np.round(srgb_encode(core.srgb_decode(levels)) * 255) == np.arange(256)).all()
