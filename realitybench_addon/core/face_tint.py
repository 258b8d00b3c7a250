"""Where a face's skin changes colour (pure): flushed at the nose, the cheeks and the ears, shadowed under the
eyes, and a man's shaved beard showing as stubble over the jaw, the chin and the upper lip. One even tone over
the whole head read as a mannequin's ("featureless", "waxy": every blind panel of ro_board). The brows are
weights too, soft at their edges and tapered, where quads of hair colour had drawn two dark ovals.

The face's frame comes from the person's own parts, in world coordinates: the irises (the eyeballs' front caps)
against the whole eyeballs give forward, the lips' centre below the eyes gives up. So any pose, any body, the
measured mannequin as much as the MPFB2 body, gets the same regions. Returns per skin vertex four weights in
[0, 1] (flush, shadow, stubble, brows), which the skin's shader reads as point attributes (bl/person.py).
"""
from __future__ import annotations

import numpy as np

from .clouds import smoothstep

TINT_ATTRIBUTE = "rb_skin_tint"  # the point attributes the skin shader reads: (flush, shadow, stubble)...
BROW_ATTRIBUTE = "rb_skin_brows"  # ... and (brows, 0, 0)
FLUSH_SIGMA_M = {"nose": 0.012, "cheek": 0.02, "ear": 0.018}
CHEEK_AT_M = (0.038, -0.028)  # a cheek's centre: this far out from the middle, this far below the eyes
UNDER_EYE_M, UNDER_EYE_SIGMA_M = 0.017, 0.007  # the shadow's centre below each eye, its spread
# the beard: from the nose's base down under the jaw, forward of the ears (face frame, m)
# its top edge: the moustache's this far below the nose's tip; over the cheeks this far above the mouth; the
# sideburns, near the ears, up to this far below the eyes
BEARD_TOP_M = (0.012, 0.012, 0.01)
BEARD_BOTTOM_BELOW_MOUTH_M = 0.075
BEARD_SOFT_M = 0.008
# the brows (face frame, m): from this far out from the middle to this far, their middle line arching from
# BROW_Z_M[0] above the eyes to BROW_Z_M[1] at BROW_PEAK of the way out; thick at the head, thin at the tail
BROW_SPAN_M = (0.012, 0.058)
BROW_Z_M, BROW_PEAK = (0.011, 0.018), 0.62
BROW_HALF_M = (0.0045, 0.0016)
BROW_SOFT_M = 0.0015


def face_frame(iris: np.ndarray, eyeballs: np.ndarray, lips: np.ndarray):
    """(origin at the eyes' middle, forward, left, up) of a face from its iris, eyeball and lip points."""
    origin = iris.mean(axis=0)
    forward = origin - eyeballs.mean(axis=0)
    forward /= np.linalg.norm(forward)
    up = origin - lips.mean(axis=0)
    up -= np.dot(up, forward) * forward
    up /= np.linalg.norm(up)
    return origin, forward, np.cross(up, forward), up


def _gauss(points: np.ndarray, centre: np.ndarray, sigma: float) -> np.ndarray:
    return np.exp(-0.5 * np.sum((points - centre) ** 2, axis=1) / sigma ** 2)


def _surface_point(local: np.ndarray, near: np.ndarray, reach: float) -> np.ndarray:
    """The most forward skin point within `reach` of `near` across the face (left, up): a landmark on the skin."""
    close = np.hypot(local[:, 1] - near[0], local[:, 2] - near[1]) < reach
    pool = local[close] if close.any() else local
    return pool[np.argmax(pool[:, 0])]


def skin_tints(skin: np.ndarray, iris: np.ndarray, eyeballs: np.ndarray, lips: np.ndarray,
               maleness: float, stubble: float = 1.0) -> np.ndarray:
    """(n, 4) weights (flush, shadow, stubble, brows) for the skin points `skin` (world, m). `maleness` 0..1
    scales the beard (none below 0.5, full from 0.8), `stubble` how long it has grown (0 clean shaven .. 1 a day
    or two)."""
    skin = np.asarray(skin, float)
    out = np.zeros((len(skin), 4))
    if not (len(iris) and len(eyeballs) and len(lips) and len(skin)):
        return out
    origin, forward, left, up = face_frame(np.asarray(iris, float), np.asarray(eyeballs, float),
                                           np.asarray(lips, float))
    local = (skin - origin) @ np.stack([forward, left, up]).T  # x forward, y left, z up, from the eyes' middle
    mouth_z = float(((np.asarray(lips, float) - origin) @ up).mean())
    head = (np.abs(local[:, 1]) < 0.11) & (local[:, 2] > mouth_z - 0.12) & (local[:, 2] < 0.14) & (
        local[:, 0] > -0.14)
    if not head.any():
        return out
    face = local[head]
    nose = _surface_point(face, np.array([0.0, 0.55 * mouth_z]), 0.008)
    flush = _gauss(face, nose, FLUSH_SIGMA_M["nose"])
    shadow = np.zeros(len(face))
    ear_x = []
    for side in (1.0, -1.0):
        cheek = _surface_point(face, np.array([side * CHEEK_AT_M[0], CHEEK_AT_M[1]]), 0.01)
        flush = np.maximum(flush, 0.8 * _gauss(face, cheek, FLUSH_SIGMA_M["cheek"]))
        level = face[(np.sign(face[:, 1]) == side) & (np.abs(face[:, 2]) < 0.02)]  # the ear sticks out most there
        ear = level[np.argmax(np.abs(level[:, 1]))]
        ear_x.append(float(ear[0]))
        flush = np.maximum(flush, 0.9 * _gauss(face, ear, FLUSH_SIGMA_M["ear"]))
        under = _surface_point(face, np.array([side * 0.032, -UNDER_EYE_M]), 0.005)
        shadow = np.maximum(shadow, _gauss(face, under, UNDER_EYE_SIGMA_M))
    out[head, 0] = flush
    out[head, 1] = shadow
    ear_x = float(np.mean(ear_x))
    moustache, cheeks, sideburns = nose[2] - BEARD_TOP_M[0], mouth_z + BEARD_TOP_M[1], -BEARD_TOP_M[2]
    top = moustache + (cheeks - moustache) * smoothstep(0.015, 0.03, np.abs(face[:, 1]))
    top = top + (sideburns - top) * smoothstep(ear_x + 0.05, ear_x + 0.025, face[:, 0])
    beard = (smoothstep(top + BEARD_SOFT_M, top - BEARD_SOFT_M, face[:, 2])
             * smoothstep(mouth_z - BEARD_BOTTOM_BELOW_MOUTH_M, mouth_z - BEARD_BOTTOM_BELOW_MOUTH_M + 0.02,
                          face[:, 2])
             * smoothstep(ear_x + 0.01, ear_x + 0.03, face[:, 0]))
    out[head, 2] = beard * smoothstep(0.5, 0.8, maleness) * float(np.clip(stubble, 0.0, 1.0))
    out[head, 3] = _brows(face)
    return out


def _brows(face: np.ndarray) -> np.ndarray:
    """Each brow's weight on the face's points (face frame): 1 inside its arched, tapering band, fading over
    BROW_SOFT_M at its edges and at both ends; only on the front of the brow ridge."""
    along = (np.abs(face[:, 1]) - BROW_SPAN_M[0]) / (BROW_SPAN_M[1] - BROW_SPAN_M[0])
    arch = np.clip(1.0 - ((along - BROW_PEAK) / BROW_PEAK) ** 2, 0.0, 1.0)
    middle = BROW_Z_M[0] + (BROW_Z_M[1] - BROW_Z_M[0]) * arch
    half = BROW_HALF_M[0] + (BROW_HALF_M[1] - BROW_HALF_M[0]) * np.clip(along, 0.0, 1.0)
    across = smoothstep(half + BROW_SOFT_M, half - BROW_SOFT_M, np.abs(face[:, 2] - middle))
    ends = smoothstep(-0.08, 0.06, along) * smoothstep(1.04, 0.9, along)
    return across * ends * (face[:, 0] > -0.02)
