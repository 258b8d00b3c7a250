"""Image terms: read off a rendered frame inside a target's object-index mask.

Inputs are numpy arrays: `rgb` a linear (scene-referred) float image (H, W, 3) from the
render, `display` the final phone image scaled to [0, 1], and `mask` a boolean (H, W)
array of the target's pixels from Cycles' IndexOB pass rendered with the same camera.
"""
from __future__ import annotations

import numpy as np

REC709 = np.array([0.2126, 0.7152, 0.0722])
# Inside a label, the paper is the bright end of the luminance distribution and the ink
# the dark end; percentiles keep a few stray pixels (anti-aliased edges, noise) out.
PAPER_PERCENTILE = 90.0
INK_PERCENTILE = 5.0
SATURATED_LEVEL = 250.0 / 255.0


def luminance(rgb: np.ndarray) -> np.ndarray:
    return np.asarray(rgb, float)[..., :3] @ REC709


def _masked(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    mask = np.asarray(mask, bool)
    if mask.shape != values.shape[:2]:
        raise ValueError(f"mask shape {mask.shape} does not match image shape {values.shape[:2]}")
    return values[mask]


def paper_luminance(rgb: np.ndarray, mask: np.ndarray) -> float:
    """Linear luminance of the label's paper (nan if the mask is empty)."""
    lum = _masked(luminance(rgb), mask)
    return float(np.percentile(lum, PAPER_PERCENTILE)) if lum.size else float("nan")


def weber_contrast(rgb: np.ndarray, mask: np.ndarray) -> float:
    """(paper - ink) / paper inside the mask, from linear luminance (nan if the mask is empty)."""
    lum = _masked(luminance(rgb), mask)
    if lum.size == 0:
        return float("nan")
    paper = float(np.percentile(lum, PAPER_PERCENTILE))
    ink = float(np.percentile(lum, INK_PERCENTILE))
    return (paper - ink) / paper if paper > 0 else 0.0


def saturated_fraction(display: np.ndarray, mask: np.ndarray, level: float = SATURATED_LEVEL) -> float:
    """Fraction of mask pixels with any channel at or above `level` in the final image (blown)."""
    px = _masked(np.asarray(display, float)[..., :3], mask)
    return float(np.mean(np.any(px >= level, axis=1))) if len(px) else float("nan")


def pixel_count(mask: np.ndarray) -> int:
    return int(np.count_nonzero(mask))


def pixel_share(mask: np.ndarray) -> float:
    mask = np.asarray(mask, bool)
    return pixel_count(mask) / mask.size


def _boundary_pairs(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (inside pixel, outside neighbour) across the mask's boundary (4-neighbourhood)."""
    mask = np.asarray(mask, bool)
    h, w = mask.shape
    flat = np.arange(h * w).reshape(h, w)
    inside, outside = [], []
    for a, b in ((mask[:, :-1], mask[:, 1:]), (mask[:-1, :], mask[1:, :])):
        ia = flat[:, :-1] if a.shape[1] == w - 1 else flat[:-1, :]
        ib = flat[:, 1:] if a.shape[1] == w - 1 else flat[1:, :]
        step_out = a & ~b
        step_in = ~a & b
        inside += [ia[step_out], ib[step_in]]
        outside += [ib[step_out], ia[step_in]]
    return np.concatenate(inside), np.concatenate(outside)


def edge_contrast(rgb: np.ndarray, mask: np.ndarray) -> float:
    """Mean relative luminance step across the target's boundary: |L_in - L_out| / max(L_in, L_out).

    Each boundary pixel of the mask is paired with its outside 4-neighbour; a target
    that blends into its background scores near 0, a black wire on white near 1.
    """
    lum = luminance(rgb).ravel()
    inside, outside = _boundary_pairs(mask)
    if inside.size == 0:
        return float("nan")
    a, b = lum[inside], lum[outside]
    top = np.maximum(np.maximum(a, b), 1e-9)
    return float(np.mean(np.abs(a - b) / top))


def laplacian_variance(rgb: np.ndarray, mask: np.ndarray, pad: int = 2) -> float:
    """Variance of the 4-neighbour Laplacian of luminance over the target's bounding-box crop.

    A sharpness cross-check for the blur term: it falls as the target blurs.
    """
    mask = np.asarray(mask, bool)
    rows, cols = np.nonzero(mask)
    if rows.size == 0:
        return float("nan")
    lum = luminance(rgb)
    r0, r1 = max(rows.min() - pad, 0), min(rows.max() + pad + 1, mask.shape[0])
    c0, c1 = max(cols.min() - pad, 0), min(cols.max() + pad + 1, mask.shape[1])
    crop = lum[r0:r1, c0:c1]
    if min(crop.shape) < 3:
        return 0.0
    lap = crop[1:-1, :-2] + crop[1:-1, 2:] + crop[:-2, 1:-1] + crop[2:, 1:-1] - 4 * crop[1:-1, 1:-1]
    return float(lap.var())


def quad_mask(shape: tuple[int, int], corners_px) -> np.ndarray:
    """Pixels (H, W) whose centres lie inside a convex quad given by its four corners (image px, x right,
    y down, in order around it): the image region of a flat rectangle seen through a pinhole."""
    corners = np.asarray(corners_px, float)
    mask = np.zeros(shape, bool)
    if corners.shape != (4, 2) or not np.all(np.isfinite(corners)):
        return mask
    h, w = shape
    c0, r0 = np.floor(corners.min(axis=0)).astype(int)
    c1, r1 = np.ceil(corners.max(axis=0)).astype(int)
    c0, r0, c1, r1 = max(c0, 0), max(r0, 0), min(c1 + 1, w), min(r1 + 1, h)
    if c0 >= c1 or r0 >= r1:
        return mask
    ys, xs = np.mgrid[r0:r1, c0:c1] + 0.5
    sides = []
    for a, b in zip(corners, np.roll(corners, -1, axis=0)):
        sides.append((b[0] - a[0]) * (ys - a[1]) - (b[1] - a[1]) * (xs - a[0]))
    sides = np.stack(sides)
    mask[r0:r1, c0:c1] = np.all(sides >= 0, axis=0) | np.all(sides <= 0, axis=0)
    return mask


REGION_PIXELS_MIN = 24  # a region with fewer target pixels has no paper and ink to tell apart


def region_contrasts(rgb: np.ndarray, target_mask: np.ndarray, regions_px, min_pixels: int = REGION_PIXELS_MIN
                     ) -> np.ndarray:
    """Weber contrast inside each quad region (its corners in image px) and the target's mask: each line of
    writing judged on its own, so a glare that washes out one row is not hidden by darker rows elsewhere.
    nan for a region with fewer than `min_pixels` pixels in the image (off frame, or too small to have any)."""
    target_mask = np.asarray(target_mask, bool)
    out = []
    for corners in regions_px:
        region = quad_mask(target_mask.shape, corners) & target_mask
        out.append(weber_contrast(rgb, region) if region.sum() >= min_pixels else float("nan"))
    return np.asarray(out, float)


# ---------------------------------------------------------------------------------------------
# A region against its surround, in colour (damage_view: is the damage visibly there?)

D65_WHITE = np.array([0.95047, 1.0, 1.08883])
SRGB_TO_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375],
                        [0.2126729, 0.7151522, 0.0721750],
                        [0.0193339, 0.1191920, 0.9503041]])


def display_to_lab(display: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of a final image's sRGB-encoded values in [0, 1] (H, W, 3+) -> (H, W, 3): L* in 0..100."""
    rgb = np.clip(np.asarray(display, float)[..., :3], 0.0, 1.0)
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = linear @ SRGB_TO_XYZ.T / D65_WHITE
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)


def window_counts(mask: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """For every pixel, how many pixels of `mask` lie in the (2k+1)^2 square around it (clipped at the edges),
    and whether that square lies whole inside the image; by a summed-area table, in O(pixels)."""
    mask = np.asarray(mask, bool)
    h, w = mask.shape
    integral = np.zeros((h + 1, w + 1), np.int64)
    integral[1:, 1:] = mask.cumsum(0).cumsum(1)
    r0 = np.clip(np.arange(h) - k, 0, h)[:, None]
    r1 = np.clip(np.arange(h) + k + 1, 0, h)[:, None]
    c0 = np.clip(np.arange(w) - k, 0, w)[None, :]
    c1 = np.clip(np.arange(w) + k + 1, 0, w)[None, :]
    counts = integral[r1, c1] - integral[r0, c1] - integral[r1, c0] + integral[r0, c0]
    return counts, (r1 - r0) * (c1 - c0) == (2 * k + 1) ** 2


def dilate(mask: np.ndarray, k: int) -> np.ndarray:
    """`mask` grown by k pixels (a (2k+1)^2 square around every pixel of it)."""
    mask = np.asarray(mask, bool)
    if k <= 0:
        return mask.copy()
    return window_counts(mask, k)[0] > 0


RING_SHARE = 0.25  # the surround ring's width: this share of the region's equivalent size (sqrt of its pixels)...
RING_MIN_PX = 3  # ...and at least this many pixels
RING_PIXELS_MIN = 12  # fewer surround pixels than this: no surround to compare with (nan)


def surround_ring(region: np.ndarray, surround: np.ndarray, share: float = RING_SHARE,
                  min_px: int = RING_MIN_PX) -> np.ndarray:
    """The pixels of `surround` that border `region`: within max(min_px, share * sqrt(region's pixels)) of it,
    not in it. Its width follows the region's size in the image, so the same mark at another distance is
    compared with the same strip of panel around it."""
    region = np.asarray(region, bool)
    k = max(min_px, int(round(share * np.sqrt(region.sum()))))
    return dilate(region, k) & ~region & np.asarray(surround, bool)


def color_differences(display: np.ndarray, region: np.ndarray, surround: np.ndarray) -> np.ndarray:
    """CIELAB Delta E (1976) of every `region` pixel from the median colour of the `surround` ring around it
    (surround_ring), read on the final image; empty when the ring has fewer than RING_PIXELS_MIN pixels."""
    region = np.asarray(region, bool)
    ring = surround_ring(region, surround)
    if ring.sum() < RING_PIXELS_MIN or not region.any():
        return np.zeros(0)
    lab = display_to_lab(display)
    reference = np.median(lab[ring], axis=0)
    return np.linalg.norm(lab[region] - reference, axis=1)


def distinct_pixels(differences: np.ndarray, delta_e_min: float) -> int:
    """How many of a region's pixels differ from their surround by at least `delta_e_min`."""
    return int(np.count_nonzero(np.asarray(differences) >= delta_e_min))


def distinct_contrast(differences: np.ndarray, percentile: float) -> float:
    """The region's colour difference from its surround at `percentile` of its pixels (nan with no surround)."""
    differences = np.asarray(differences)
    return float(np.percentile(differences, percentile)) if differences.size else float("nan")
