"""A standing person as smooth meshes (pure numpy): lofted rings along limb axes, a head with a face's
rough shape (brow, nose, ears, a cap or short hair), a torso with shoulders and chest, arms bent by
two-bone IK to where the hands must be, trousers and boots; and a hand that grips a thin board by a
side edge, fingers curled over its front within a given box, the thumb behind.

Everything is (vertices, triangles) in world coordinates, grouped by material key. What the person wears
and how they stand (`Look`) is drawn from a Generator; the geometry is a pure function of the look and of
where the feet and hands are, so the same plan always gives the same arrays.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Mesh = tuple[np.ndarray, np.ndarray]  # (V, 3) float vertices, (T, 3) int triangles

UPPER_ARM_M, FOREARM_M = 0.29, 0.25
SHOULDER_HALF_M, SHOULDER_Z_M = 0.15, 1.375  # the arm's joint, inside the torso's shoulder
HIP_HALF_M = 0.095


@dataclass(frozen=True)
class Look:
    """What the person wears and how they stand: colours are linear RGB; angles in degrees."""
    skin: tuple[float, float, float]
    top: str  # "shirt" | "vest" (a hi-vis vest over the shirt)
    shirt: tuple[float, float, float]
    vest: tuple[float, float, float]
    long_sleeves: bool
    trousers: tuple[float, float, float]
    boots: tuple[float, float, float]
    gloves: str  # "" | "nitrile" | "work"
    glove_color: tuple[float, float, float]
    headwear: str  # "cap" | "hair"
    hair_or_cap: tuple[float, float, float]
    weight_leg: int  # +1: the weight on the left leg, -1: on the right
    hip_shift_m: float  # towards the weight leg
    torso_yaw_deg: float
    head_yaw_deg: float
    head_pitch_deg: float  # positive: looking down
    elbow_out: float  # how far the elbows point out (0: tucked in)


SKIN_TONES = ((0.62, 0.43, 0.33), (0.52, 0.34, 0.24), (0.42, 0.26, 0.17), (0.3, 0.18, 0.11), (0.19, 0.11, 0.07),
              (0.12, 0.07, 0.045))
# navy, chambray, mid blue, khaki, green, grey, red; then navy, charcoal, khaki and denim trousers
WORK_SHIRTS = ((0.03, 0.05, 0.12), (0.28, 0.36, 0.5), (0.16, 0.24, 0.38), (0.28, 0.24, 0.15), (0.04, 0.07, 0.05),
               (0.2, 0.2, 0.21), (0.25, 0.03, 0.03))
HI_VIS = ((0.6, 0.9, 0.0), (0.95, 0.16, 0.01))  # fluorescent yellow-green, orange
TROUSERS = ((0.02, 0.025, 0.04), (0.035, 0.035, 0.038), (0.2, 0.16, 0.09), (0.035, 0.052, 0.095))
BOOTS = ((0.015, 0.014, 0.013), (0.06, 0.033, 0.016), (0.12, 0.072, 0.035))  # black, brown, worn tan leather
NITRILE = ((0.03, 0.06, 0.35), (0.012, 0.012, 0.014))
WORK_GLOVES = ((0.3, 0.25, 0.17), (0.1, 0.1, 0.11))
HAIR = ((0.012, 0.009, 0.007), (0.05, 0.03, 0.016), (0.2, 0.14, 0.07), (0.25, 0.24, 0.22))
CAPS = ((0.02, 0.03, 0.08), (0.015, 0.015, 0.016), (0.3, 0.02, 0.02), (0.2, 0.2, 0.2))


def draw_look(rng: np.random.Generator) -> Look:
    def pick(options):
        return tuple(float(v) for v in options[int(rng.integers(len(options)))])

    top = "vest" if rng.random() < 0.35 else "shirt"
    glove_roll = rng.random()
    gloves = "nitrile" if glove_roll < 0.25 else "work" if glove_roll < 0.4 else ""
    return Look(pick(SKIN_TONES), top, pick(WORK_SHIRTS), pick(HI_VIS), bool(rng.random() < 0.6), pick(TROUSERS),
                pick(BOOTS), gloves, pick(NITRILE if gloves == "nitrile" else WORK_GLOVES),
                "cap" if rng.random() < 0.5 else "hair", pick(CAPS) if rng.random() < 0.5 else pick(HAIR),
                1 if rng.random() < 0.5 else -1, float(rng.uniform(0.01, 0.03)), float(rng.uniform(-6, 6)),
                float(rng.uniform(-18, 18)), float(rng.uniform(-4, 10)), float(rng.uniform(0.05, 0.3)))


# ---------------------------------------------------------------------------------------------
# Shapes

def _unit(v) -> np.ndarray:
    v = np.asarray(v, float)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _sgnpow(x: np.ndarray, p: float) -> np.ndarray:
    return np.sign(x) * np.abs(x) ** p


def loft(path, radii, side_hint, seg: int = 12, exponent: float = 2.0, caps: bool = True) -> Mesh:
    """A tube through `path` (N, 3): ring i a superellipse (exponent 2: an ellipse) of half-axes radii[i]
    (N,) or (N, 2), the first along `side_hint` (a vector or (N, 3), made perpendicular to the path),
    the second across; the ends closed by a fan. Rings that shrink to ~0 make a rounded end."""
    path = np.asarray(path, float)
    n = len(path)
    radii = np.asarray(radii, float)
    radii = np.column_stack([radii, radii]) if radii.ndim == 1 else radii
    tangent = np.gradient(path, axis=0)
    tangent = _unit(tangent)
    hint = np.broadcast_to(np.asarray(side_hint, float), (n, 3))
    a = _unit(hint - np.sum(hint * tangent, axis=1, keepdims=True) * tangent)
    b = np.cross(tangent, a)
    theta = 2 * np.pi * np.arange(seg) / seg
    ca, sb = _sgnpow(np.cos(theta), 2.0 / exponent), _sgnpow(np.sin(theta), 2.0 / exponent)
    verts = (path[:, None, :] + radii[:, 0, None, None] * ca[None, :, None] * a[:, None, :]
             + radii[:, 1, None, None] * sb[None, :, None] * b[:, None, :]).reshape(-1, 3)
    i = np.arange(n - 1)[:, None] * seg
    j = np.arange(seg)[None, :]
    j1 = (j + 1) % seg
    q0, q1, q2, q3 = i + j, i + j1, i + seg + j1, i + seg + j
    tris = np.concatenate([np.stack([q0, q1, q2], -1).reshape(-1, 3), np.stack([q0, q2, q3], -1).reshape(-1, 3)])
    if caps:
        start, end = len(verts), len(verts) + 1
        verts = np.concatenate([verts, path[:1], path[-1:]])
        tris = np.concatenate([tris, np.stack([np.full(seg, start), (j1 % seg).ravel(), j.ravel()], -1),
                               np.stack([np.full(seg, end), (n - 1) * seg + j.ravel(), (n - 1) * seg + j1.ravel()],
                                        -1)])
    return verts, tris.astype(np.int64)


def rounded_path(points, radii, per_segment: int = 4, end_rings: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """A polyline through `points` with its corners eased (a quadratic curve over the middle of each joint)
    and hemispherical ends: the path and its radii (per point, (N,) or (N, 2)) for `loft`."""
    points = np.asarray(points, float)
    radii = np.asarray(radii, float)
    path, rad = [], []
    for k in range(len(points) - 1):
        p, q, rp, rq = points[k], points[k + 1], radii[k], radii[k + 1]
        for t in np.linspace(0.0, 1.0, per_segment, endpoint=False):
            if k > 0 and t < 0.3:  # ease the corner at p: a quadratic from the previous segment's 85 %
                prev = points[k - 1]
                a0, a1 = prev + 0.85 * (p - prev), p + 0.3 * (q - p)
                s = 0.5 + t / 0.6
                path.append((1 - s) ** 2 * a0 + 2 * s * (1 - s) * p + s ** 2 * a1)
            else:
                path.append(p + t * (q - p))
            rad.append(rp + t * (rq - rp))
    path.append(points[-1])
    rad.append(radii[-1])
    path, rad = np.array(path), np.array(rad)
    # hemispherical ends: rings stepping back along the end tangents, shrinking on a circle
    head_dir, tail_dir = _unit(path[0] - path[1]), _unit(path[-1] - path[-2])
    r0, r1 = np.atleast_1d(rad[0]), np.atleast_1d(rad[-1])
    angles = np.linspace(0.0, np.pi / 2, end_rings + 1)[1:]
    pre = [path[0] + math.sin(t) * r0.min() * head_dir for t in angles[::-1]]
    post = [path[-1] + math.sin(t) * r1.min() * tail_dir for t in angles]
    pre_r = [np.maximum(rad[0] * math.cos(t), 1e-4) for t in angles[::-1]]
    post_r = [np.maximum(rad[-1] * math.cos(t), 1e-4) for t in angles]
    return np.array(pre + list(path) + post), np.array(pre_r + list(rad) + post_r)


def capsule(points, radii, side_hint, seg: int = 10, per_segment: int = 4, exponent: float = 2.0,
            end_rings: int = 3) -> Mesh:
    path, rad = rounded_path(points, radii, per_segment, end_rings)
    return loft(path, rad, side_hint, seg, exponent)


def merge(meshes: list[Mesh]) -> Mesh:
    verts, tris, offset = [], [], 0
    for v, t in meshes:
        verts.append(v)
        tris.append(t + offset)
        offset += len(v)
    return np.concatenate(verts), np.concatenate(tris)


def two_bone_elbow(shoulder, wrist, pole, upper: float = UPPER_ARM_M, lower: float = FOREARM_M) -> np.ndarray:
    """Where the elbow goes for a shoulder and a wrist, bent towards `pole` (a direction); an arm that
    cannot reach lies straight (its segments scaled to the distance)."""
    shoulder, wrist = np.asarray(shoulder, float), np.asarray(wrist, float)
    d = float(np.linalg.norm(wrist - shoulder))
    axis = (wrist - shoulder) / d
    if d >= upper + lower:
        return shoulder + axis * d * upper / (upper + lower)
    a = (upper ** 2 - lower ** 2 + d ** 2) / (2 * d)
    h = math.sqrt(max(upper ** 2 - a ** 2, 0.0))
    p = np.asarray(pole, float) - np.dot(pole, axis) * axis
    return shoulder + a * axis + h * _unit(p)


# ---------------------------------------------------------------------------------------------
# The hand gripping a board's side edge

@dataclass(frozen=True)
class GripFrame:
    """A side edge's top end (world) with the grip's axes: `out` along the face away from the board's centre,
    `up` along the edge, `normal` out of the face; `over` is how far the fingers may reach over the face
    (inwards), `low` how far below the top corner, `back` the board's depth behind its face."""
    origin: np.ndarray
    out: np.ndarray
    up: np.ndarray
    normal: np.ndarray
    over: float
    low: float
    back: float

    def world(self, o, u, n) -> np.ndarray:
        local = np.column_stack([np.atleast_1d(o), np.atleast_1d(u), np.atleast_1d(n)]).astype(float)
        return self.origin + local @ np.stack([self.out, self.up, self.normal])


FINGER_R_M = 0.0066
WRIST_GRIP = (0.042, -0.028, -0.1)  # the wrist in the grip frame (out, up, normal)


def _curled_fingers(grip: GripFrame, r: float):
    """The index, middle and ring fingers over the board's face (finger radius `r`): per finger its knuckle's
    height along the edge, its own radius, its height over the face and its tip's reach (grip-frame out)."""
    tip_o = -grip.over + r + 0.0012
    pitch = (grip.low - 2 * r - 0.002) / 2
    for k, (u_knuckle, radius) in enumerate(((0.006, r), (-0.012, r * 1.04), (-0.03, r * 0.98))):
        yield u_knuckle, radius, -r - 0.001 - k * pitch, tip_o


def gripping_hand(grip: GripFrame, glove_m: float = 0.0) -> dict[str, Mesh]:
    """A hand holding the board's side edge near its top: the palm beside the edge, facing it, the index, middle
    and ring fingers curled round the edge onto the face (tips within `over`, all within `low` of the top),
    the little finger against the edge, the thumb pressed on the back. Keys: "hand", "cuff" (a glove's)."""
    r = FINGER_R_M + glove_m
    side = grip.up
    parts = []
    for u_knuckle, radius, u, tip_o in _curled_fingers(grip, r):
        points = grip.world([0.026, 0.02, 0.004, tip_o], [u_knuckle, 0.5 * (u + u_knuckle), u, u],
                            [-0.02, 0.008, radius + 0.004, radius + 0.0012])
        parts.append(capsule(points, [radius * 1.08, radius, radius * 0.95, radius * 0.9], side, seg=8, per_segment=2,
                             end_rings=2))
    little = grip.world([0.026, 0.019, 0.01], [-0.046, -0.05, -0.05], [-0.02, 0.004, 0.008])
    parts.append(capsule(little, [r * 0.95, r * 0.85, r * 0.8], side, seg=8, per_segment=2, end_rings=2))
    thumb_r = 0.0085 + glove_m
    thumb = grip.world([0.034, 0.012, -0.018], [-0.045, -0.04, -0.03], [-0.075, -0.04, -grip.back - thumb_r - 0.001])
    parts.append(capsule(thumb, [thumb_r * 1.3, thumb_r, thumb_r * 0.9], side, seg=8, per_segment=2, end_rings=2))
    wrist = np.array(WRIST_GRIP)
    palm_points = grip.world([wrist[0], 0.036, 0.028], [wrist[1], -0.022, -0.018], [wrist[2], -0.055, -0.018])
    palm_radii = np.array([[0.027, 0.019], [0.04, 0.017], [0.041, 0.013]]) + glove_m
    parts.append(capsule(palm_points, palm_radii, side, seg=12, per_segment=2))
    out = {"hand": merge(parts)}
    if glove_m:
        cuff = grip.world([wrist[0] + 0.003, wrist[0] + 0.006], [wrist[1], wrist[1] - 0.005],
                          [wrist[2], wrist[2] - 0.05])
        out["cuff"] = loft(cuff, [[0.031, 0.024], [0.033, 0.026]], side, seg=12)
    return out


NAIL_LENGTH_M = 0.011  # a fingernail along the finger, ending this far back from the tip's cap
NAIL_HALF_ANGLE = 0.65  # and round it (rad either side of the finger's back)


def fingernails(grip: GripFrame) -> Mesh:
    """The nails of the three fingers curled over the board's face (bare hands only): thin curved plates on
    each finger's back, just behind the tip, 0.3 mm proud of its skin; the fingers as `gripping_hand` lays them."""
    plates = []
    for _, finger_r, u, tip_o in _curled_fingers(grip, FINGER_R_M):
        radius = finger_r * 0.9  # the finger's radius at its tip (gripping_hand's last ring)
        centre_n = finger_r + 0.0012
        along = tip_o + radius * 0.6 + np.linspace(0.0, NAIL_LENGTH_M, 4)
        theta = np.linspace(-NAIL_HALF_ANGLE, NAIL_HALF_ANGLE, 4)
        o, th = np.meshgrid(along, theta, indexing="ij")
        r = radius + 0.0003
        verts = grip.world(o.ravel(), (u + r * np.sin(th)).ravel(), (centre_n + r * np.cos(th)).ravel())
        i, j = np.meshgrid(np.arange(3), np.arange(3), indexing="ij")
        q = (i * 4 + j).ravel()
        tris = np.concatenate([np.stack([q, q + 4, q + 5], 1), np.stack([q, q + 5, q + 1], 1)])
        plates.append((verts, tris))
    return merge(plates)


def wrist_point(grip: GripFrame) -> np.ndarray:
    return grip.world(*WRIST_GRIP)[0]


# ---------------------------------------------------------------------------------------------
# The head

# (height above the head's centre, half-width, half-depth, forward offset) from crown to chin
_HEAD_PROFILE = np.array([
    (0.118, 0.004, 0.004, -0.012), (0.112, 0.035, 0.045, -0.012), (0.095, 0.060, 0.075, -0.012),
    (0.07, 0.073, 0.092, -0.01), (0.035, 0.078, 0.099, -0.006), (0.0, 0.077, 0.098, 0.0),
    (-0.035, 0.072, 0.092, 0.006), (-0.065, 0.063, 0.083, 0.012), (-0.09, 0.056, 0.072, 0.02),
    (-0.11, 0.042, 0.056, 0.03), (-0.122, 0.024, 0.034, 0.042), (-0.126, 0.003, 0.005, 0.05)])


def _head_points(t: np.ndarray, phi: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """Head-local points (forward, left, up) at profile parameter t (0 crown .. 1 chin) and azimuth phi
    (0 = the face), the surface pushed out by `scale` about the centre."""
    s = np.linspace(0.0, 1.0, len(_HEAD_PROFILE))
    z, hw, hd, cf = (np.interp(t, s, _HEAD_PROFILE[:, i]) for i in range(4))
    c, sn = np.cos(phi), np.sin(phi)
    front = np.where(c > 0, 0.96, 1.0)  # the face a little flatter than the back of the head
    f = cf + hd * front * _sgnpow(c, 0.85)
    return np.stack([f, hw * _sgnpow(sn, 0.9), z], -1) * scale


def _head_grid(t: np.ndarray, seg: int, scale: float = 1.0, t_max=None) -> Mesh:
    """A grid over the head's surface: rings at t (scaled per azimuth by t_max(phi) when given)."""
    phi = 2 * np.pi * np.arange(seg) / seg
    tt = t[:, None] * (t_max(phi) if t_max is not None else np.ones(seg))[None, :]
    verts = _head_points(tt, phi[None, :].repeat(len(t), 0), scale).reshape(-1, 3)
    n = len(t)
    i = np.arange(n - 1)[:, None] * seg
    j = np.arange(seg)[None, :]
    j1 = (j + 1) % seg
    q0, q1, q2, q3 = i + j, i + j1, i + seg + j1, i + seg + j
    tris = np.concatenate([np.stack([q0, q2, q1], -1).reshape(-1, 3), np.stack([q0, q3, q2], -1).reshape(-1, 3)])
    return verts, tris


def head_parts(look: Look) -> dict[str, list[Mesh]]:
    """The head in its own frame (forward, left, up; origin at its centre): skin (head, nose, brow, ears)
    and the cap or hair."""
    t = 0.5 - 0.5 * np.cos(np.linspace(0.0, np.pi, 16))  # rings denser at crown and chin
    skin = [_head_grid(t, 20)]
    nose = np.array([[0.088, 0.0, 0.01], [0.1, 0.0, -0.012], [0.109, 0.0, -0.033], [0.099, 0.0, -0.043]])
    skin.append(capsule(nose, [[0.006, 0.005], [0.008, 0.006], [0.011, 0.008], [0.012, 0.006]], [0, 1, 0], seg=8,
                        per_segment=2))
    for s in (1, -1):
        brow = np.array([[0.09, 0.004 * s, 0.026], [0.088, 0.03 * s, 0.028], [0.07, 0.06 * s, 0.026]])
        skin.append(capsule(brow, [[0.006, 0.008], [0.007, 0.008], [0.005, 0.006]], [0, 0, 1], seg=6, per_segment=2))
        ear = np.array([[-0.004, 0.074 * s, 0.026], [-0.012, 0.082 * s, 0.004], [-0.006, 0.078 * s, -0.022]])
        skin.append(capsule(ear, [[0.016, 0.006], [0.02, 0.007], [0.012, 0.006]], [1, 0, 0], seg=8, per_segment=2,
                            end_rings=2))
    # the eyes: dark, glossy almonds set under the brow (they read as the face's shadows, not as a stare)
    eyes = [capsule([[0.079, s * 0.026, 0.009], [0.079, s * 0.04, 0.009]], [[0.0065, 0.011], [0.006, 0.01]],
                    [0, 0, 1], seg=6, per_segment=1, end_rings=2) for s in (1, -1)]
    out = {"skin": skin, "eyes": eyes}
    if look.headwear == "cap":
        crown = _head_grid(np.linspace(0.0, 0.36, 7), 20, 1.07)
        brim_phi = np.linspace(-1.0, 1.0, 11)  # a peak over the face only
        rim = _head_points(np.full_like(brim_phi, 0.36), brim_phi, 1.07)
        length = 0.068 * np.cos(brim_phi * np.pi / 2.1) ** 0.6
        reach = length[:, None] * np.column_stack([np.cos(brim_phi), np.sin(brim_phi), np.full_like(brim_phi, -0.25)])
        edge = rim + reach
        top, bottom = np.concatenate([rim, edge]), np.concatenate([rim, edge]) - [0, 0, 0.006]
        m = len(brim_phi)
        quads = [(k, k + 1, m + k + 1, m + k) for k in range(m - 1)]
        tri = [(a, b, c) for a, b, c, d in quads] + [(a, c, d) for a, b, c, d in quads]
        tri = np.array(tri)
        brim = (np.concatenate([top, bottom]), np.concatenate([tri, tri[:, ::-1] + 2 * m,
                                                             *[np.array([(m + k, m + k + 1, 3 * m + k + 1),
                                                                         (m + k, 3 * m + k + 1, 3 * m + k)])
                                                               for k in range(m - 1)]]))
        out["cap"] = [crown, brim]
    else:
        def hairline(phi):  # high over the brow, above the ears, low at the nape
            c = np.cos(phi)
            return np.where(c > 0, 0.34 + 0.12 * (1 - c), 0.46 + 0.16 * -c)

        out["hair"] = [_head_grid(np.linspace(0.0, 1.0, 8), 20, 1.035, hairline)]
    return out


# ---------------------------------------------------------------------------------------------
# The whole body

def _body_frame(feet, facing_deg: float):
    a = math.radians(facing_deg)
    fwd = np.array([math.cos(a), math.sin(a), 0.0])
    left = np.array([-math.sin(a), math.cos(a), 0.0])
    feet = np.array([feet[0], feet[1], 0.0])
    return feet, fwd, left, np.array([0.0, 0.0, 1.0])


# torso rings (height, half-width, half-depth, forward offset), waist to the base of the neck
_TORSO = np.array([(0.84, 0.165, 0.108, -0.005), (0.95, 0.158, 0.1, 0.0), (1.06, 0.162, 0.104, 0.006),
                   (1.17, 0.172, 0.113, 0.016), (1.26, 0.18, 0.118, 0.02), (1.34, 0.186, 0.112, 0.014),
                   (1.41, 0.182, 0.1, 0.0), (1.455, 0.14, 0.08, -0.006), (1.49, 0.075, 0.06, 0.0)])


@dataclass(frozen=True)
class Axes:
    """An origin and three axes: `at(f, l, z)` is the point f forward, l left and z up of the origin."""
    origin: np.ndarray
    fwd: np.ndarray
    left: np.ndarray
    up: np.ndarray

    def at(self, f, l, z) -> np.ndarray:
        f, l, z = np.broadcast_arrays(np.asarray(f, float), np.asarray(l, float), np.asarray(z, float))
        return self.origin + f[..., None] * self.fwd + l[..., None] * self.left + z[..., None] * self.up


def _add_leg(out: dict, look: Look, body: Axes, s: int) -> None:
    """One trouser leg and boot: the weight leg straight under the hip, the other knee eased forward, its
    foot out a little."""
    hip_l = look.weight_leg * look.hip_shift_m
    bearing = s == look.weight_leg
    knee_f = 0.0 if bearing else 0.045
    foot_f, foot_l = (0.0, s * 0.1) if bearing else (0.05, s * 0.13)
    hip = body.at(0.0, s * HIP_HALF_M + hip_l, 0.88)
    knee = body.at(knee_f, s * 0.095 + 0.5 * hip_l, 0.5)
    ankle = body.at(foot_f, foot_l, 0.1)
    path, rad = rounded_path([hip, knee, ankle], [0.098, 0.066, 0.058], per_segment=3, end_rings=1)
    out["trousers"].append(loft(path, rad, body.left, seg=12))
    toe_yaw = math.radians(s * (6 if bearing else 14))
    add_boot(out, body, body.at(foot_f, foot_l, 0.0), math.cos(toe_yaw) * body.fwd + math.sin(toe_yaw) * body.left)


# A work boot stands on a rubber sole this thick, which sticks out this far round the leather above it (a welt:
# from a phone's height the ledge and its shadow are what tell a boot from a glossy lump, 2026-12-07).
SOLE_M = 0.022
WELT_M = 0.005


def add_boot(out: dict, body: Axes, heel: np.ndarray, toe_dir: np.ndarray) -> None:
    """A work boot on the ground at `heel` (its heel's bottom) pointing along `toe_dir`: the leather upper and its
    shaft in out["boots"], the sole (`_sole`) in out["soles"]."""
    up = body.up
    along = np.array([-0.075, -0.04, 0.03, 0.1, 0.17, 0.2])
    centers = heel + along[:, None] * toe_dir + np.array([0.075, 0.072, 0.058, 0.045, 0.036, 0.03])[:, None] * up
    halves = np.array([[0.035, 0.06], [0.045, 0.072], [0.047, 0.058], [0.05, 0.045], [0.045, 0.036], [0.03, 0.02]])
    boot, tris = loft(centers, halves, np.cross(up, toe_dir), seg=12, exponent=2.6)
    boot[:, 2] = np.maximum(boot[:, 2], heel[2] + SOLE_M)  # the upper sits flat on its sole
    out["boots"].append((boot, tris))
    shaft = heel + np.array([[-0.02, 0.03], [-0.015, 0.17]]) @ np.stack([toe_dir, up])
    out["boots"].append(loft(shaft, [[0.052, 0.058], [0.055, 0.06]], body.left, seg=12))
    out.setdefault("soles", []).append(_sole(np.concatenate([boot, out["boots"][-1][0]])[:, :2], heel[2]))


def _convex_outline(points: np.ndarray) -> np.ndarray:
    """The convex hull of 2-D points, counter-clockwise (Andrew's monotone chain)."""
    pts = sorted(set(map(tuple, np.round(points, 9))))

    def half(seq):
        chain = []
        for p in seq:
            while len(chain) >= 2 and ((chain[-1][0] - chain[-2][0]) * (p[1] - chain[-2][1])
                                       - (chain[-1][1] - chain[-2][1]) * (p[0] - chain[-2][0])) <= 0:
                chain.pop()
            chain.append(p)
        return chain

    lower, upper = half(pts), half(pts[::-1])
    return np.array(lower[:-1] + upper[:-1])


def _sole(footprint: np.ndarray, ground: float) -> Mesh:
    """A sole under an upper whose vertices project onto `footprint` (N, 2): the outline of their convex hull
    pushed WELT_M outward, as a closed slab from the ground up SOLE_M."""
    ring = _convex_outline(footprint)
    n = len(ring)
    edge = np.roll(ring, -1, axis=0) - ring
    normal = _unit(np.column_stack([edge[:, 1], -edge[:, 0], np.zeros(n)]))[:, :2]  # outward: counter-clockwise
    corner = normal + np.roll(normal, 1, axis=0)  # each vertex out along its two edges' mean normal ...
    corner *= (WELT_M / np.maximum(np.sum(corner * normal, axis=1), 1e-6))[:, None]  # ... far enough for both
    ring = ring + corner
    bottom, top = np.column_stack([ring, np.full(n, ground)]), np.column_stack([ring, np.full(n, ground + SOLE_M)])
    centre = ring.mean(axis=0)
    verts = np.concatenate([bottom, top, [[*centre, ground], [*centre, ground + SOLE_M]]])
    i, j = np.arange(n), (np.arange(n) + 1) % n
    tris = np.concatenate([np.stack([i, j, n + j], 1), np.stack([i, n + j, n + i], 1),
                           np.stack([np.full(n, 2 * n + 1), n + i, n + j], 1), np.stack([np.full(n, 2 * n), j, i], 1)])
    return verts, tris.astype(np.int64)


def _torso_axes(look: Look, body: Axes) -> Axes:
    """The torso's frame: turned by torso_yaw about the hips' centre, shifted with them."""
    hip_l = look.weight_leg * look.hip_shift_m
    yaw = math.radians(look.torso_yaw_deg)
    fwd, left = body.fwd, body.left
    t_fwd, t_left = math.cos(yaw) * fwd + math.sin(yaw) * left, -math.sin(yaw) * fwd + math.cos(yaw) * left
    return Axes(body.at(0.0, hip_l * 0.6, 0.0), t_fwd, t_left, body.up)


def _add_vest(out: dict, torso: Axes, centers: np.ndarray) -> None:
    """An open shell over the shirt, straps over the shoulders, reflective bands."""
    rows = slice(1, 7)
    shell = _TORSO[rows, 1:3] + [0.012, 0.012]
    out["vest"] = [loft(centers[rows], shell, torso.left, seg=24, exponent=2.5, caps=False)]
    out["stripe"] = []
    for z in (0.98, 1.1):
        k = np.interp(z, _TORSO[:, 0], np.arange(len(_TORSO)))
        half = np.array([np.interp(k, np.arange(len(_TORSO)), _TORSO[:, i]) for i in (1, 2)]) + 0.015
        ring = torso.at(np.full(2, np.interp(z, _TORSO[:, 0], _TORSO[:, 3])), np.zeros(2), np.array([z, z + 0.05]))
        out["stripe"].append(loft(ring, [half, half], torso.left, seg=24, exponent=2.5))
    for s in (1, -1):
        strap = torso.at(np.array([0.1, 0.07, 0.0, -0.07, -0.09]), s * np.array([0.1, 0.108, 0.11, 0.108, 0.1]),
                         np.array([1.3, 1.445, 1.48, 1.445, 1.3]))  # the ends inside the vest
        out["vest"].append(capsule(strap, np.tile([0.03, 0.008], (5, 1)), torso.left, seg=8, per_segment=2,
                                   end_rings=1))
        out["stripe"].append(capsule(strap, np.tile([0.014, 0.0115], (5, 1)), torso.left, seg=8, per_segment=2,
                                     end_rings=1))


def _add_head(out: dict, look: Look, torso: Axes) -> None:
    """The head's parts, turned and tipped on the neck."""
    t_fwd, t_left, up = torso.fwd, torso.left, torso.up
    head_parts_local = head_parts(look)
    hy, hp = math.radians(look.head_yaw_deg), math.radians(look.head_pitch_deg)
    h_fwd = math.cos(hy) * t_fwd + math.sin(hy) * t_left
    h_left = -math.sin(hy) * t_fwd + math.cos(hy) * t_left
    h_fwd, h_up = math.cos(hp) * h_fwd - math.sin(hp) * up, math.sin(hp) * h_fwd + math.cos(hp) * up
    head_center = torso.at(0.015, 0.0, 1.55) + 0.1 * h_up
    rot = np.stack([h_fwd, h_left, h_up])
    for key, meshes in head_parts_local.items():
        out.setdefault(key, []).extend((v @ rot + head_center, t) for v, t in meshes)


def _add_arm(out: dict, look: Look, torso: Axes, s: int, grip: GripFrame) -> None:
    """Shoulder to the gripping hand's wrist, the elbow by two-bone IK, bent down and a little out; the hand."""
    t_fwd, t_left, up = torso.fwd, torso.left, torso.up
    shoulder = torso.at(-0.01, s * SHOULDER_HALF_M, SHOULDER_Z_M)
    wrist = wrist_point(grip)
    pole = -up + s * look.elbow_out * t_left - 0.25 * t_fwd
    elbow = two_bone_elbow(shoulder, wrist, pole)
    radii = np.array([0.056, 0.048, 0.042, 0.028])
    points = [shoulder, shoulder + 0.55 * (elbow - shoulder), elbow, wrist]
    sleeve_hint = np.cross(_unit(wrist - elbow), up) + 1e-3 * t_left
    if look.long_sleeves:
        out["shirt"].append(capsule(points, np.column_stack([radii, radii * [1, 1, 1, 0.8]]) + 0.005,
                                    sleeve_hint, seg=12, per_segment=3))
    else:  # the bare arm from inside the sleeve, the sleeve over the shoulder to mid upper arm
        bare = [shoulder + 0.3 * (elbow - shoulder)] + points[1:]
        out["skin"].append(capsule(bare, np.column_stack([radii, radii * [1, 1, 1, 0.75]]), sleeve_hint, seg=12,
                                   per_segment=3))
        out["shirt"].append(capsule([shoulder, shoulder + 0.5 * (elbow - shoulder)], [0.064, 0.058], sleeve_hint,
                                    seg=12, per_segment=2))
    hand_key = "gloves" if look.gloves else "skin"
    hand = gripping_hand(grip, 0.0012 if look.gloves else 0.0)
    out.setdefault(hand_key, []).append(hand["hand"])
    if "cuff" in hand:
        out[hand_key].append(hand["cuff"])


def person_parts(look: Look, feet_xy, facing_deg: float, grips: tuple[GripFrame, GripFrame]) -> dict[str, list[Mesh]]:
    """The person standing at `feet_xy` facing `facing_deg`, hands gripping the two edges (the holder's left
    hand first): material key -> meshes, world coordinates. Keys: skin, shirt, trousers, boots, and as worn
    vest, stripe, gloves, cap, hair; eyes."""
    body = Axes(*_body_frame(feet_xy, facing_deg))
    out: dict[str, list[Mesh]] = {"skin": [], "shirt": [], "trousers": [], "boots": []}
    for s in (1, -1):
        _add_leg(out, look, body, s)
    hip_l = look.weight_leg * look.hip_shift_m
    pelvis = body.at(np.zeros(3), np.full(3, hip_l), np.array([0.76, 0.86, 0.93]))
    out["trousers"].append(loft(pelvis, [[0.165, 0.105], [0.178, 0.112], [0.152, 0.1]], body.left, seg=16,
                                exponent=2.4))
    torso = _torso_axes(look, body)
    centers = torso.at(_TORSO[:, 3], np.zeros(len(_TORSO)), _TORSO[:, 0])
    out["shirt"].append(loft(centers, _TORSO[:, 1:3], torso.left, seg=24, exponent=2.5))
    if look.top == "vest":
        _add_vest(out, torso, centers)
    neck = torso.at([0.005, 0.012], [0.0, 0.0], [1.44, 1.56])
    out["skin"].append(loft(neck, [[0.062, 0.062], [0.056, 0.058]], torso.left, seg=12))
    _add_head(out, look, torso)
    for s, grip in zip((1, -1), grips):
        _add_arm(out, look, torso, s, grip)
    return out


def triangle_count(parts: dict[str, list[Mesh]]) -> int:
    return sum(len(tris) for meshes in parts.values() for _, tris in meshes)
