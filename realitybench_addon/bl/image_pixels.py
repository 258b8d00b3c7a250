"""Blender images as numpy pictures and back: (H, W, 3) uint8, rows top-down (Blender stores rows bottom-up,
RGBA floats), and the phone view and thumbnails made of them (`api.phone_view`, `api.picture_preview`). The same
calls on 3.4 and 4.x/5.x; pillow is not needed (Blender reads and writes the files)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

import bpy
import numpy as np

from ..core.phone_view import PhoneViewError, compose, fit_mask, srgb_decode, thumbnail
from ..core.postprocess import srgb_encode


def load(path: str | Path, name: str | None = None):
    """The image file at `path` as a Blender image, read again from disk (a file rewritten at the same path
    shows its new pixels); named `name` if given."""
    path = Path(path).absolute()
    if not path.is_file():
        raise PhoneViewError(f"no such picture: {path}")
    old = bpy.data.images.get(name) if name else None
    if old is not None and Path(bpy.path.abspath(old.filepath)) != path:
        bpy.data.images.remove(old)  # the name belongs to the newest picture
    try:
        image = bpy.data.images.load(str(path), check_existing=True)
    except RuntimeError as exc:
        raise PhoneViewError(f"cannot read {path}: {str(exc).strip().splitlines()[-1]}") from None
    image.reload()
    if name and image.name != name:
        image.name = name
    if image.size[0] == 0 or image.size[1] == 0:  # (has_data stays False until pixels are read)
        raise PhoneViewError(f"cannot read {path}: not a picture Blender can open")
    return image


def read_rgba(image) -> np.ndarray:
    """An image's pixels, (H, W, 4) floats in 0..1 as stored (display values for 8-bit files), rows top-down."""
    w, h = image.size
    flat = np.empty(w * h * image.channels, np.float32)
    image.pixels.foreach_get(flat)
    return flat.reshape(h, w, image.channels)[::-1]


def read_rgb(image) -> np.ndarray:
    """The display values an image holds, (H, W, 3) uint8: an 8-bit file's bytes; a float Non-Color image
    (`write_rgb`) encoded back to sRGB."""
    rgba = read_rgba(image)
    rgb = rgba[..., :3] if rgba.shape[2] >= 3 else np.repeat(rgba[..., :1], 3, axis=2)
    if image.is_float and image.colorspace_settings.name == "Non-Color":
        rgb = srgb_encode(rgb)
    return np.round(np.clip(rgb, 0.0, 1.0) * 255).astype(np.uint8)


def read_mask(image) -> np.ndarray:
    """A mask picture (white on black) as booleans, rows top-down."""
    return read_rgba(image)[..., 0] > 0.5


def _no_view_transform(image) -> None:
    """Non-Color: Blender then shows the values with the display's encoding alone (sRGB), without the scene's
    view transform (Filmic on 3.4, AgX on 4.x). Set before writing pixels: on a generated image this
    regenerates its buffer."""
    try:
        if image.colorspace_settings.name != "Non-Color":
            image.colorspace_settings.name = "Non-Color"
    except TypeError:  # a colour configuration without that name: Blender's default display then
        pass


def write_rgb(name: str, rgb: np.ndarray):
    """A generated image named `name` (made, or resized in place) that the Image Editor shows with exactly the
    display values `rgb` (as the phone saved them): floats holding their linear light, in a Non-Color image
    (so the display's sRGB encoding gives `rgb` back and no view transform applies). `read_rgb` reads them."""
    h, w = rgb.shape[:2]
    image = bpy.data.images.get(name)
    if image is None or image.source != "GENERATED" or not image.is_float:
        if image is not None:
            bpy.data.images.remove(image)
        image = bpy.data.images.new(name, w, h, alpha=False, float_buffer=True)
    elif tuple(image.size) != (w, h):
        image.scale(w, h)
    _no_view_transform(image)
    rgba = np.ones((h, w, 4), np.float32)
    rgba[..., :3] = srgb_decode(rgb / 255.0)
    image.pixels.foreach_set(rgba[::-1].ravel())
    image.update()
    return image


def set_preview(image, rgb: np.ndarray, long_side: int = 256):
    """Give `image` a preview (the picture at `long_side` px, and a 32 px icon) made here rather than by
    Blender's preview job: it exists at once, in the background too, and follows pixels written from Python."""
    preview = image.preview_ensure()
    for size_attr, pixels_attr, side in (("image_size", "image_pixels_float", long_side),
                                         ("icon_size", "icon_pixels_float", 32)):
        small = thumbnail(rgb, side)
        h, w = small.shape[:2]
        rgba = np.ones((h, w, 4), np.float32)
        rgba[..., :3] = small / 255.0
        setattr(preview, size_attr, (w, h))
        getattr(preview, pixels_attr).foreach_set(rgba[::-1].ravel())
    return preview


def _region_mask(region: str, target_path: Optional[Path], target: Optional[np.ndarray], shape):
    """A failing term's region: the target's mask ("target"), or a mask PNG read and let go again."""
    if region == "target":
        return target
    path = Path(region).absolute()
    if target_path is not None and path == target_path:
        return target
    before = set(bpy.data.images)
    image = load(path)
    try:
        return fit_mask(read_mask(image), shape)
    finally:
        if image not in before:
            bpy.data.images.remove(image)


def compose_phone_view(image_path, mask_path, regions: Sequence[str], frame_name: str, mask_name: str,
                       view_name: str):
    """Load the phone's JPEG (`frame_name`) and the target's mask (`mask_name`, optional), compose the phone view
    (`core.phone_view.compose`: target magenta, `regions` red) into the generated image `view_name` with its
    preview; returns (that image, the target's pixels at the frame's size)."""
    frame = load(image_path, frame_name)
    rgb = read_rgb(frame)
    target_path = Path(mask_path).absolute() if mask_path else None
    target = None
    if target_path is not None:
        mask_image = load(target_path, mask_name)
        target = fit_mask(read_mask(mask_image), rgb.shape[:2])
    masks = [_region_mask(str(r), target_path, target, rgb.shape[:2]) for r in regions]
    composed = compose(rgb, target, [m for m in masks if m is not None])
    view = write_rgb(view_name, composed)
    set_preview(view, composed)
    return view, 0 if target is None else int(target.sum())


def load_with_preview(path):
    """An image file as a Blender image with its preview made at once; its full-size pixels are then freed
    (the preview stays)."""
    image = load(path)
    set_preview(image, read_rgb(image))
    image.buffers_free()
    return image
