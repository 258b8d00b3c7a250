"""How far a rendered image is from a reference of the same frame: SSIM and PSNR, over the whole frame or over
a mask (the target, which is what a reviewer reads). Pure numpy, on the 8-bit display images the export writes.

SSIM follows Wang et al. (2004): luminance (Rec. 709 weights of the display values), an 11-tap Gaussian
window of sigma 1.5, C1 = (0.01 L)^2 and C2 = (0.03 L)^2 with L = 255. Over the frame it is the mean of the
SSIM map less a window's radius at the edges, as scikit-image's `structural_similarity(gaussian_weights=True,
sigma=1.5, use_sample_covariance=False)` gives it (the tests check the same value); over a mask it is the
mean of the map over the masked pixels. PSNR over a mask is from the mean squared error of those pixels.
"""
from __future__ import annotations

import math

import numpy as np

PEAK = 255.0
WINDOW_SIGMA = 1.5
WINDOW_RADIUS = 5  # 11 taps
C1 = (0.01 * PEAK) ** 2
C2 = (0.03 * PEAK) ** 2
LUMA = np.array([0.2126, 0.7152, 0.0722])


def luminance(image: np.ndarray) -> np.ndarray:
    """(H, W) float64 luminance of an (H, W, 3) or (H, W) image of 0..255 values."""
    image = np.asarray(image, np.float64)
    if image.ndim == 2:
        return image
    if image.ndim != 3 or image.shape[2] < 3:
        raise ValueError(f"an image is (H, W) or (H, W, 3), not {image.shape}")
    return image[..., :3] @ LUMA


def _gaussian_blur(x: np.ndarray) -> np.ndarray:
    """Separable Gaussian blur with reflected edges."""
    t = np.arange(-WINDOW_RADIUS, WINDOW_RADIUS + 1, dtype=np.float64)
    w = np.exp(-0.5 * (t / WINDOW_SIGMA) ** 2)
    w /= w.sum()
    r = WINDOW_RADIUS
    padded = np.pad(x, r, mode="reflect")
    rows = sum(w[k] * padded[:, k:k + x.shape[1]] for k in range(2 * r + 1))  # along x, still padded in y
    return sum(w[k] * rows[k:k + x.shape[0], :] for k in range(2 * r + 1))


def ssim_map(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per-pixel SSIM of two images of the same size (luminance)."""
    x, y = luminance(a), luminance(b)
    if x.shape != y.shape:
        raise ValueError(f"images differ in size: {x.shape} and {y.shape}")
    mx, my = _gaussian_blur(x), _gaussian_blur(y)
    sxx = _gaussian_blur(x * x) - mx * mx
    syy = _gaussian_blur(y * y) - my * my
    sxy = _gaussian_blur(x * y) - mx * my
    return ((2 * mx * my + C1) * (2 * sxy + C2)) / ((mx * mx + my * my + C1) * (sxx + syy + C2))


def _mask(mask, shape) -> np.ndarray | None:
    if mask is None:
        return None
    mask = np.asarray(mask, bool)
    if mask.shape != shape:
        raise ValueError(f"the mask is {mask.shape}, the image {shape}")
    return mask


def ssim(a: np.ndarray, b: np.ndarray, mask=None) -> float:
    """Mean SSIM over the frame, or over `mask` (NaN for an empty mask)."""
    m = ssim_map(a, b)
    mask = _mask(mask, m.shape)
    if mask is None:
        r = WINDOW_RADIUS
        return float(m[r:-r, r:-r].mean())
    return float(m[mask].mean()) if mask.any() else math.nan


def psnr(a: np.ndarray, b: np.ndarray, mask=None) -> float:
    """PSNR in dB over all channels, or over the pixels of `mask` (inf for identical pixels, NaN for an empty
    mask)."""
    x, y = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if x.shape != y.shape:
        raise ValueError(f"images differ in size: {x.shape} and {y.shape}")
    mask = _mask(mask, x.shape[:2])
    err = (x - y) ** 2
    if mask is not None:
        if not mask.any():
            return math.nan
        err = err[mask]
    mse = float(err.mean())
    return math.inf if mse == 0 else 10.0 * math.log10(PEAK * PEAK / mse)
