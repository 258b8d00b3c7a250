"""The "Phone view": the frame as the phone saved it with the target mask and the failing terms' regions
drawn on it, and thumbnails. Pure numpy on (H, W, 3) uint8 pictures, rows top-down; no bpy, no pillow."""
from __future__ import annotations

import numpy as np

from .debug_images import outline
from .errors import RealityBenchError

TARGET_COLOR = (255, 0, 255)  # the target's outline (magenta, as in the export's debug overlays)
TARGET_TINT = 0.25
FAILING_COLOR = (255, 40, 30)  # where a failing term fails: tinted red, outlined in red
FAILING_TINT = 0.45


class PhoneViewError(RealityBenchError, ValueError):
    """A phone view that cannot be made: a missing or unreadable picture, a mask of another frame."""


def srgb_decode(encoded: np.ndarray) -> np.ndarray:
    """sRGB-encoded values (0..1) to linear light: the inverse of `postprocess.srgb_encode`."""
    x = np.clip(np.asarray(encoded, float), 0.0, 1.0)
    return np.where(x <= 0.04045, x / 12.92, np.power((x + 0.055) / 1.055, 2.4))


def fit_mask(mask: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """A boolean mask at `shape` (H, W): nearest-neighbour, so a mask of a render at another scale still lands
    on the same pixels of the frame. Refused when the aspect differs (a mask of another frame)."""
    m = np.asarray(mask, bool)
    if m.ndim != 2:
        raise PhoneViewError(f"a mask is one channel of H x W pixels, not shape {m.shape}")
    h, w = shape
    if m.shape == (h, w):
        return m
    if abs(m.shape[1] / m.shape[0] - w / h) > 0.02:
        raise PhoneViewError(f"the mask ({m.shape[1]}x{m.shape[0]}) is not of this frame ({w}x{h})")
    rows = np.minimum((np.arange(h) + 0.5) * m.shape[0] / h, m.shape[0] - 1).astype(int)
    cols = np.minimum((np.arange(w) + 0.5) * m.shape[1] / w, m.shape[1] - 1).astype(int)
    return m[rows][:, cols]


def thick_outline(mask: np.ndarray, width: int) -> np.ndarray:
    """The mask's edge pixels grown inwards and outwards to about `width` pixels."""
    edge = outline(mask)
    for _ in range(max(0, width - 1)):
        grown = edge.copy()
        grown[1:, :] |= edge[:-1, :]
        grown[:-1, :] |= edge[1:, :]
        grown[:, 1:] |= edge[:, :-1]
        grown[:, :-1] |= edge[:, 1:]
        edge = grown
    return edge


def _tint(img: np.ndarray, where: np.ndarray, color, amount: float) -> None:
    img[where] = np.round(img[where] * (1.0 - amount) + np.asarray(color, float) * amount)


def compose(rgb: np.ndarray, target: np.ndarray | None, regions: list[np.ndarray]) -> np.ndarray:
    """The phone's frame with the target tinted and outlined in magenta and every failing term's region tinted
    and outlined in red (where a region is the target, the red covers the magenta tint; both outlines show)."""
    img = np.asarray(rgb, np.uint8)
    if img.ndim != 3 or img.shape[2] != 3:
        raise PhoneViewError(f"a frame is H x W x 3, not shape {img.shape}")
    h, w = img.shape[:2]
    out = img.astype(float)
    width = max(1, w // 320)  # a line that stays visible when the frame is shown at sidebar width
    target_mask = None if target is None else fit_mask(target, (h, w))
    failing = np.zeros((h, w), bool)
    for region in regions:
        failing |= fit_mask(region, (h, w))
    if target_mask is not None:
        _tint(out, target_mask & ~failing, TARGET_COLOR, TARGET_TINT)
    _tint(out, failing, FAILING_COLOR, FAILING_TINT)
    out = out.astype(np.uint8)
    if failing.any():
        out[thick_outline(failing, width)] = FAILING_COLOR
    if target_mask is not None and target_mask.any():
        out[thick_outline(target_mask, width)] = TARGET_COLOR
    return out


def thumbnail(rgb: np.ndarray, long_side: int = 256) -> np.ndarray:
    """A smaller copy of a picture (box averages over the pixels each thumbnail pixel covers), its long side
    `long_side` pixels; a picture already as small is returned as it is."""
    img = np.asarray(rgb)
    h, w = img.shape[:2]
    scale = long_side / max(h, w)
    if scale >= 1.0:
        return img.copy()
    th, tw = max(1, round(h * scale)), max(1, round(w * scale))
    rows = np.linspace(0, h, th + 1).astype(int)
    cols = np.linspace(0, w, tw + 1).astype(int)
    summed = np.add.reduceat(np.add.reduceat(img.astype(np.float64), rows[:-1], axis=0), cols[:-1], axis=1)
    counts = np.outer(np.diff(rows), np.diff(cols))[..., None]
    return np.round(summed / counts).astype(img.dtype)
