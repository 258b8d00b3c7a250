"""What a phone's pipeline does to a photo beyond exposure and the tone curve (pure numpy, no bpy).

`postprocess.develop` runs these stages on every frame, each a pure function of (image, parameters), each a
no-op at strength 0 (the default of a record written before they existed):

  auto_white_balance  the phone judges the light's colour by the surfaces in view that could be grey (concrete,
                  asphalt, paper, walls) and takes most of its cast off: a board in the shade of a blue sky
                  comes out nearly white, as a phone shows it, not blue-grey

  veiling_glare   the lens scatters a little of all the light it sees over the whole frame: a low-contrast
                  wide glow, strongest around the brightest part of the frame (the sky towards the sun)
  lens_flare      a compact very bright source (the sun's disc in frame) leaves a faint tinted ghost on the
                  line through the frame's centre, on the other side of it
  denoise         the phone's noise reduction: an edge-aware (guided) filter of luminance and colour, in
                  linear light, whose strength follows the sensor's noise level; colour noise is removed
                  almost entirely, luminance noise only in part, leaving a faint blotchy texture; then
                  false-colour suppression takes the colour off pixels at steep luminance edges
  local_tone_map  a base-detail split of log luminance (edge-aware base, detail kept) whose base is
                  compressed above a knee: a bright sky keeps its cloud detail instead of clipping
  sharpen         unsharp mask of display luminance: thin light and dark halos along edges, the overshoot
                  soft-limited and never pushed into white (no new blown pixels)

Blurs are box filters by summed areas (a cascade of three approximates a Gaussian), so their cost does not
grow with their radius.
"""
from __future__ import annotations

import math

import numpy as np

from .image_terms import REC709

AWB_LIGHT_RG, AWB_LIGHT_BG = (0.6, 1.5), (0.5, 1.9)  # R/G, B/G of a grey surface under any light a phone expects
AWB_GREY_CHROMA = 0.3  # with the light's estimate taken off, (max - min) / max of a grey surface's linear RGB is below
AWB_MIN_GREY_SHARE = 0.02  # with fewer grey pixels than this share of the frame, the light is left as it is
AWB_MAX_GAIN = 1.6  # no channel is scaled by more than this against green, or less than its inverse
AWB_STEP = 4  # the estimate reads every 4th pixel in each direction
GLARE_SIGMAS = (0.03, 0.12)  # the glow's two widths, as shares of the frame's diagonal (equal weights)
FLARE_SOURCE_MIN = 20.0  # linear level (after exposure) a source must reach to leave a ghost: the sun, not a sky
FLARE_SOURCE_SHARE = 0.002  # ...and it must be compact: at most this share of the frame above half its peak
FLARE_GHOST = (0.65, 0.045)  # the ghost's place (minus this times the source's offset from the centre), radius
FLARE_GHOST_MAX = 0.02  # the ghost's linear level at most (after exposure, mid grey 0.18): a sun glint is faint
FLARE_TINT = np.array([0.75, 1.0, 0.85])  # a ghost from a coated lens is greenish
LUMA_RADIUS, CHROMA_RADIUS = 2, 4  # the denoise windows' half-widths, px
DENOISE_EPS = 1.0  # guided-filter threshold in noise standard deviations: weaker edges are smoothed
CHROMA_EPS = 4.0  # ...and for colour, whose edges a phone trusts to luminance (colour noise goes almost entirely)
FALSE_COLOUR_CONTRAST = 0.5  # log-luminance spread over 5x5 px at which the colour of an edge's pixels is halved
FALSE_COLOUR_FLOOR = 0.01  # linear level added before the log (mid grey 0.18): noise in the dark is no edge
TONE_RADIUS = 0.02  # the base layer's window half-width, share of the diagonal
TONE_EPS = 0.3  # edge-awareness of the base in log luminance: steps above ~this stay in the base
TONE_KNEE, TONE_SOFTNESS = 0.3, 0.5  # base compression starts near knee * tone_white, over softness (log units)
SHARPEN_LIMIT = 0.08  # halo overshoot soft-limited to this (display units)
SHARPEN_WHITE = 0.96  # sharpening never lifts a pixel above this (the blown level is 250/255)


def _along(axis: int, ndim: int, start: int, stop: int) -> tuple:
    """The index tuple of [start:stop] along `axis` of an `ndim`-dimensional array."""
    index = [slice(None)] * ndim
    index[axis] = slice(start, stop)
    return tuple(index)


def box_mean(a: np.ndarray, r: int, axes=(0, 1)) -> np.ndarray:
    """Mean over the (2r+1)-wide window around every pixel along `axes`, edges replicated (summed areas)."""
    out = np.asarray(a, np.float64)
    if r <= 0:
        return out
    for axis in axes:
        pad = [(0, 0)] * out.ndim
        pad[axis] = (r + 1, r)
        c = np.cumsum(np.pad(out, pad, mode="edge"), axis=axis)
        n = out.shape[axis]
        out = c[_along(axis, c.ndim, 2 * r + 1, n + 2 * r + 1)] - c[_along(axis, c.ndim, 0, n)]
        out /= 2 * r + 1
    return out


def gaussian_like(a: np.ndarray, sigma: float) -> np.ndarray:
    """Three box passes whose combined variance is about sigma^2 (a close Gaussian), edges replicated."""
    r = max(0, int(round((math.sqrt(4.0 * sigma * sigma + 1.0) - 1.0) / 2.0)))
    for _ in range(3):
        a = box_mean(a, r)
    return a


def gaussian_kernel(sigma: float) -> np.ndarray:
    """A normalised 1-D Gaussian of standard deviation `sigma`, 3 sigma each side."""
    r = max(1, int(math.ceil(3.0 * sigma)))
    k = np.exp(-0.5 * (np.arange(-r, r + 1) / sigma) ** 2)
    return k / k.sum()


def gaussian_blur(a: np.ndarray, sigma: float) -> np.ndarray:
    """An exact separable Gaussian blur of a 2-D array (small sigma: the sharpening's), edges replicated."""
    k = gaussian_kernel(sigma)
    r = len(k) // 2
    for axis in (0, 1):
        pad = [(0, 0)] * a.ndim
        pad[axis] = (r, r)
        p = np.pad(a, pad, mode="edge")
        n = a.shape[axis]
        out = k[0] * p[_along(axis, p.ndim, 0, n)]
        for i in range(1, len(k)):
            out += k[i] * p[_along(axis, p.ndim, i, i + n)]
        a = out
    return a


def _resize(a: np.ndarray, h: int, w: int) -> np.ndarray:
    """Bilinear resampling of an (h0, w0, ...) array to (h, w, ...), pixel centres aligned."""
    h0, w0 = a.shape[:2]
    y = np.clip((np.arange(h) + 0.5) * h0 / h - 0.5, 0, h0 - 1)
    x = np.clip((np.arange(w) + 0.5) * w0 / w - 0.5, 0, w0 - 1)
    y0, x0 = np.floor(y).astype(int), np.floor(x).astype(int)
    y1, x1 = np.minimum(y0 + 1, h0 - 1), np.minimum(x0 + 1, w0 - 1)
    fy = (y - y0).reshape((-1, 1) + (1,) * (a.ndim - 2))
    fx = (x - x0).reshape((1, -1) + (1,) * (a.ndim - 2))
    cols = a[:, x0] * (1 - fx) + a[:, x1] * fx  # the small image widened first: the full-size work is one pass
    return cols[y0] * (1 - fy) + cols[y1] * fy


def glow(img: np.ndarray, sigmas_px) -> np.ndarray:
    """The mean of Gaussian-like blurs of `img` with standard deviations `sigmas_px`, computed on a copy
    block-averaged by a quarter of the smallest sigma (a glow has no fine structure to lose) and resampled
    back to the image's size once."""
    h, w = img.shape[:2]
    f = max(1, int(min(sigmas_px) // 4))
    hp, wp = -(-h // f) * f, -(-w // f) * f
    padded = np.pad(img, [(0, hp - h), (0, wp - w)] + [(0, 0)] * (img.ndim - 2), mode="edge")
    small = padded.reshape(hp // f, f, wp // f, f, *img.shape[2:]).mean(axis=(1, 3))
    blurred = sum(gaussian_like(small, s / f) for s in sigmas_px) / len(sigmas_px)
    return _resize(blurred, hp, wp)[:h, :w] if f > 1 else blurred


def white_balance_gains(img: np.ndarray, strength: float) -> np.ndarray:
    """Per-channel gains that take `strength` (0..1) of the light's colour cast off `img` (linear), judged by the
    surfaces in view that could be grey (neither the darkest 5 % nor blown):
      1. the light's first estimate: the mean of every pixel whose R/G and B/G a grey surface could show under
         daylight, skylit shade or a lamp (AWB_LIGHT_RG, AWB_LIGHT_BG: a white board in blue shade is in, a
         clear sky, grass, brick and coloured paint are out);
      2. with that taken off, the pixels that come out within AWB_GREY_CHROMA of grey: their mean is the light.
    Each channel is brought towards green's level by `strength` in log space (bounded by AWB_MAX_GAIN), and all
    are scaled so that the grey surfaces keep their luminance (auto exposure, which follows, and the image terms
    read on luminance barely move). (1, 1, 1) at strength 0, or where too little of the frame could be grey to
    judge the light by (a frame of sky or foliage)."""
    sample = np.asarray(img, np.float64)[::AWB_STEP, ::AWB_STEP, :3].reshape(-1, 3)
    if strength <= 0 or len(sample) == 0:
        return np.ones(3)
    lum = sample @ REC709
    top = sample.max(axis=1)
    green = np.maximum(sample[:, 1], 1e-12)
    rg, bg = sample[:, 0] / green, sample[:, 2] / green
    grey = ((lum > np.percentile(lum, 5)) & (top < np.percentile(top, 99.5)) & (sample[:, 1] > 0)
            & (AWB_LIGHT_RG[0] <= rg) & (rg <= AWB_LIGHT_RG[1]) & (AWB_LIGHT_BG[0] <= bg) & (bg <= AWB_LIGHT_BG[1]))
    if grey.mean() < AWB_MIN_GREY_SHARE:
        return np.ones(3)
    light = sample[grey].mean(axis=0)
    balanced = sample * (light[1] / light)
    grey &= balanced.max(axis=1) - balanced.min(axis=1) < AWB_GREY_CHROMA * balanced.max(axis=1)
    if grey.mean() < AWB_MIN_GREY_SHARE:
        return np.ones(3)
    light = sample[grey].mean(axis=0)
    gains = np.clip((light[1] / light) ** float(strength), 1.0 / AWB_MAX_GAIN, AWB_MAX_GAIN)
    return gains * float(light @ REC709) / float((light * gains) @ REC709)  # the grey surfaces keep their luminance


def auto_white_balance(img: np.ndarray, strength: float) -> np.ndarray:
    """`img` (linear) with `strength` of its grey surfaces' colour cast taken off (`white_balance_gains`)."""
    if strength <= 0:
        return img
    return img * white_balance_gains(img, strength)


def veiling_glare(img: np.ndarray, strength: float) -> np.ndarray:
    """`img` (linear) plus `strength` times its glow: the mean of two wide blurs (GLARE_SIGMAS of the diagonal).
    Dark pixels next to a bright sky gain most; a frame without bright parts only loses a little contrast."""
    if strength <= 0:
        return img
    diagonal = math.hypot(*img.shape[:2])
    return img + strength * glow(np.maximum(img, 0.0), [s * diagonal for s in GLARE_SIGMAS])


def flare_source(lum: np.ndarray):
    """The compact very bright source in a frame's linear luminance (after exposure): (row, column, light),
    its light-weighted centre and summed light above half its peak; None without one (FLARE_SOURCE_MIN,
    FLARE_SOURCE_SHARE)."""
    peak = float(lum.max()) if lum.size else 0.0
    if peak < FLARE_SOURCE_MIN:
        return None
    mask = lum >= 0.5 * peak
    if mask.mean() > FLARE_SOURCE_SHARE:
        return None
    ys, xs = np.nonzero(mask)
    weights = lum[ys, xs]
    light = float(weights.sum())
    return float(ys @ weights / light), float(xs @ weights / light), light


def lens_flare(img: np.ndarray, strength: float) -> np.ndarray:
    """A faint ghost of a compact bright source: a soft tinted disc at minus FLARE_GHOST[0] times the source's
    offset from the centre, FLARE_GHOST[1] of the diagonal in radius, carrying `strength` of the source's light
    up to FLARE_GHOST_MAX (at strength 0.04; in proportion to it)."""
    if strength <= 0:
        return img
    source = flare_source(np.asarray(img)[..., :3] @ REC709)
    if source is None:
        return img
    h, w = img.shape[:2]
    sy, sx, light = source
    cy, cx = (h - 1) / 2, (w - 1) / 2
    gy, gx = cy - FLARE_GHOST[0] * (sy - cy), cx - FLARE_GHOST[0] * (sx - cx)
    radius = FLARE_GHOST[1] * math.hypot(h, w)
    d = np.hypot(np.arange(h)[:, None] - gy, np.arange(w)[None, :] - gx)
    t = np.clip((radius - d) / (0.35 * radius), 0.0, 1.0)
    disc = t * t * (3 - 2 * t)
    level = min(strength * light / max(float(disc.sum()), 1.0), FLARE_GHOST_MAX * strength / 0.04)
    return img + level * disc[..., None] * FLARE_TINT


def guided_filter(src: np.ndarray, r: int, eps, guide: np.ndarray | None = None) -> np.ndarray:
    """He et al.'s guided filter of a 2-D array over (2r+1)^2 windows: where the guide (default: `src` itself)
    is flat (its local variance well under `eps`, a scalar or per-pixel array) `src` is averaged; across the
    guide's edges (variance well over it) `src` follows the guide, so its own edges there stay sharp."""
    guide = src if guide is None else guide
    mean_g, mean_s = box_mean(guide, r), box_mean(src, r)
    var = np.maximum(box_mean(guide * guide, r) - mean_g * mean_g, 0.0)
    cov = box_mean(guide * src, r) - mean_g * mean_s if guide is not src else var
    a = cov / (var + eps)
    b = mean_s - a * mean_g
    return box_mean(a, r) * guide + box_mean(b, r)


def denoise(img: np.ndarray, luma: float, chroma: float, shot_noise: float, read_noise: float,
            white: float = math.inf) -> np.ndarray:
    """The phone's noise reduction in linear light: luminance and colour (the image minus its luminance) each
    through a guided filter (colour's guided by luminance) whose threshold is DENOISE_EPS (colour: CHROMA_EPS)
    of the sensor's noise (shot + read) at the local level, blended by `luma` and `chroma` (0: untouched,
    1: fully filtered). Colour uses a wider window. The filters see the image clipped at `white` (the level the
    tone curve maps to white) and their change is added to it: a glint far above white stays white instead of
    taking the colour of a fit across its chromatic-aberration fringes."""
    if luma <= 0 and chroma <= 0:
        return img
    clipped = np.minimum(img, white)
    return img + (_denoise_clipped(clipped, luma, chroma, shot_noise, read_noise) - clipped)


def _denoise_clipped(img: np.ndarray, luma: float, chroma: float, shot_noise: float, read_noise: float) -> np.ndarray:
    lum = img @ REC709
    colour = img - lum[..., None]
    noise_var = shot_noise * np.maximum(box_mean(lum, LUMA_RADIUS), 0.0) + read_noise ** 2
    eps = (DENOISE_EPS ** 2) * np.maximum(noise_var, 1e-12)
    out_lum = lum + luma * (guided_filter(lum, LUMA_RADIUS, eps) - lum) if luma > 0 else lum
    if chroma > 0:  # red and blue minus luminance filtered; green's follows (colour has no luminance)
        eps_c = box_mean(eps, CHROMA_RADIUS - LUMA_RADIUS) * (CHROMA_EPS / DENOISE_EPS) ** 2
        for c in (0, 2):  # guided by luminance: colour edges stay where luminance has an edge, no colour bleeds
            smooth = guided_filter(colour[..., c], CHROMA_RADIUS, eps_c, guide=lum)
            colour[..., c] += chroma * (smooth - colour[..., c])
        colour[..., 1] = -(REC709[0] * colour[..., 0] + REC709[2] * colour[..., 2]) / REC709[1]
        colour *= false_colour_keep(out_lum)[..., None] ** chroma
    return out_lum[..., None] + colour


def false_colour_keep(lum: np.ndarray) -> np.ndarray:
    """The share of colour a phone keeps at each pixel (0..1): its false-colour suppression desaturates pixels at
    steep luminance edges, where colour is the lens's chromatic-aberration fringes and the demosaic's guesses,
    not the scene's. Measured as the spread of log luminance over the pixel's 5x5 neighbourhood (the core of a
    4 px dark line included): a dark shut line on bright paint (spread ~1.5) keeps under a quarter of the colour
    the filter gave it from its fringes, a red car against grey asphalt (~0.2) about 85 %, flat areas all."""
    log_lum = np.log(np.maximum(lum, 0.0) + FALSE_COLOUR_FLOOR)
    mean = box_mean(log_lum, 2)
    spread2 = np.maximum(box_mean(log_lum * log_lum, 2) - mean * mean, 0.0)
    return 1.0 / (1.0 + spread2 / FALSE_COLOUR_CONTRAST ** 2)


def local_tone_map(img: np.ndarray, strength: float, tone_white: float) -> np.ndarray:
    """Hold detail in bright areas: log luminance split into an edge-aware base (guided filter, TONE_RADIUS of
    the diagonal, TONE_EPS) and detail; the base is lowered by `strength` times a soft-plus of its excess over
    log(TONE_KNEE * tone_white), so mid-tones stay, a bright sky comes down and its clouds keep their contrast.
    As in a phone (a coarse grid), the base is found on a copy block-averaged to a quarter of the window: a
    glint of a few pixels barely moves it, and stays blown as it would."""
    if strength <= 0:
        return img
    h, w = img.shape[:2]
    log_lum = np.log(np.maximum(img @ REC709, 1e-6))
    r = max(2, int(round(TONE_RADIUS * math.hypot(h, w))))
    f = max(1, r // 4)
    hp, wp = -(-h // f) * f, -(-w // f) * f
    coarse = np.pad(log_lum, [(0, hp - h), (0, wp - w)], mode="edge").reshape(hp // f, f, wp // f, f).mean(axis=(1, 3))
    base = guided_filter(coarse, max(1, r // f), TONE_EPS ** 2)
    excess = (base - math.log(TONE_KNEE * tone_white)) / TONE_SOFTNESS
    lowered = strength * TONE_SOFTNESS * np.logaddexp(0.0, excess)  # soft-plus: ~0 below the knee
    lowered = _resize(lowered, hp, wp)[:h, :w] if f > 1 else lowered
    return img * np.exp(-lowered)[..., None]


def sharpen(display: np.ndarray, amount: float, sigma: float) -> np.ndarray:
    """Unsharp mask of display luminance: `amount` times (luminance - its Gaussian blur of `sigma` px)
    added to every channel, soft-limited to SHARPEN_LIMIT, and never lifting a pixel above SHARPEN_WHITE
    (a pixel already above it is not brightened)."""
    if amount <= 0:
        return display
    lum = display @ REC709
    delta = amount * (lum - gaussian_blur(lum, sigma))
    delta = SHARPEN_LIMIT * np.tanh(delta / SHARPEN_LIMIT)
    out = display + delta[..., None]
    ceiling = np.maximum(display, SHARPEN_WHITE)
    return np.clip(np.where(delta[..., None] > 0, np.minimum(out, ceiling), out), 0.0, 1.0)
