"""What use leaves on a dry-erase board (pure): the ghosts of earlier writing wiped sideways, a film of wiping
swirls and grime under the thumbs, as a factor on the board's texture (core/ro_board.board_texture). Issue 41: a
blind panel called the clean board "perfectly clean and flat", "no texture or wear"."""
from __future__ import annotations

import numpy as np

from . import lettering, noise

WEAR_STREAM = 22  # the board's wear comes from its seed and this, so the writing's draws stay as they were
GHOST_OPACITY = (0.3, 0.5)  # erased marker left on the board (of a stroke's ink, after the wipe spread it)
HAZE_DARKENING = (0.01, 0.025)  # the film a dry-erase board takes on: wiping swirls, at most this much darker
SMUDGE_DARKENING = (0.03, 0.07)  # where thumbs and fingers rub below the grips
GHOST_CLEAR_MM = 3.0  # no ghost within this of the written rows' ink boxes (fading in over as much again)


def _coarse_field(shape: tuple[int, int], field, feature_px: float, step: int = 4) -> np.ndarray:
    """`field(x, y)` over (h, w) pixels, x and y in units of `feature_px`, computed every `step` pixels and
    resized smoothly: noise that varies over tens of pixels costs a sixteenth."""
    from PIL import Image

    h, w = shape
    y, x = np.mgrid[0:h + step:step, 0:w + step:step] / feature_px
    coarse = Image.fromarray(np.asarray(field(x, y), np.float32), "F")
    size = (x.shape[1] * step, x.shape[0] * step)
    return np.asarray(coarse.resize(size, Image.BILINEAR), float)[:h, :w]


def _clear_of(boxes, shape: tuple[int, int], margin_px: float) -> np.ndarray:
    """(h, w): 0 inside each box grown by `margin_px`, rising to 1 over another `margin_px` outside it."""
    y, x = np.mgrid[0:shape[0], 0:shape[1]] + 0.5
    out = np.ones(shape)
    for x0, y0, x1, y1 in boxes:
        gap = np.hypot(np.maximum(np.maximum(x0 - x, x - x1), 0.0), np.maximum(np.maximum(y0 - y, y - y1), 0.0))
        out = np.minimum(out, noise.smoothstep(gap / margin_px - 1.0))
    return out


def _wiped_sideways(ink: np.ndarray, width_px: int) -> np.ndarray:
    """`ink` (h, w, c) averaged along each row over `width_px` pixels: the smear a wipe across the board leaves."""
    width_px = max(1, width_px)
    padded = np.pad(ink, ((0, 0), (width_px // 2, width_px - width_px // 2), (0, 0)), mode="edge")
    total = np.cumsum(np.pad(padded, ((0, 0), (1, 0), (0, 0))), axis=1)
    return (total[:, width_px:width_px + ink.shape[1]] - total[:, :ink.shape[1]]) / width_px


def board_wear(seed: int, shape: tuple[int, int], px_per_mm: float, top_px: float, ink, written: list,
               alphabet: str) -> np.ndarray:
    """What use leaves on a dry-erase board, as a (h, w, 3) factor <= 1 on its colours: the ghosts of
    earlier writing wiped sideways (blurred, smeared and broken, and kept GHOST_CLEAR_MM clear of the
    `written` boxes (x0, y0, x1, y1 px), so the writing the terms measure reads as it did), a film of
    wiping swirls, and grime under the thumbs. Drawn from the board's own stream (its `seed` and WEAR_STREAM);
    `top_px` is where the writing area begins (below the printed header), `ink` the marker colour whose ghosts
    are left, `alphabet` what the ghosts were written in."""
    from PIL import Image, ImageFilter

    rng = np.random.default_rng([seed, WEAR_STREAM])
    h, w = shape
    mm = px_per_mm
    ghost = Image.new("RGB", (w, h), (255, 255, 255))
    for _ in range(int(rng.integers(2, 5))):
        text = "".join(rng.choice(list(alphabet), size=int(rng.integers(4, 12))))
        cap = float(rng.uniform(14.0, 26.0)) * mm
        lettering.draw_text(ghost, text, float(rng.uniform(0.0, 0.5)) * w,
                            float(rng.uniform(top_px + cap + 4 * mm, h - 4 * mm)), cap, color=ink, style="hand",
                            rng=rng)
    blurred = 1.0 - np.asarray(ghost.filter(ImageFilter.GaussianBlur(1.0 * mm)), float) / 255.0
    seed = int(rng.integers(0, 2 ** 31 - 1))
    kept = noise.smoothstep(1.5 * _coarse_field((h, w), lambda x, y: noise.fbm(x, y, seed, octaves=3), 20.0 * mm)
                            + 0.45)
    kept = kept * _clear_of(written, (h, w), GHOST_CLEAR_MM * mm)
    left = _wiped_sideways(blurred, int(float(rng.uniform(8.0, 14.0)) * mm)) * kept[..., None]  # the ink left
    factor = 1.0 - float(rng.uniform(*GHOST_OPACITY)) * left
    seed = int(rng.integers(0, 2 ** 31 - 1))
    swirl = _coarse_field((h, w), lambda x, y: noise.fbm(x + 0.6 * y, y - 0.3 * x, seed, octaves=4), 30.0 * mm)
    factor = factor * (1.0 - float(rng.uniform(*HAZE_DARKENING)) * noise.smoothstep(swirl + 0.5))[..., None]
    for side in ("left", "right"):  # a thumb's grime just inside each top corner
        inset = float(rng.uniform(8.0, 20.0)) * mm
        cx = inset if side == "left" else w - inset
        cy = top_px + float(rng.uniform(0.0, 25.0)) * mm
        r = float(rng.uniform(10.0, 22.0)) * mm
        blob = np.exp(-(((np.arange(w) - cx) / r) ** 2)[None, :] - (((np.arange(h) - cy) / (0.7 * r)) ** 2)[:, None])
        factor = factor * (1.0 - float(rng.uniform(*SMUDGE_DARKENING)) * blob)[..., None]
    return factor
