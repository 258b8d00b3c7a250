"""The technician as MakeHuman's MPFB2 body (core/body_model.py): shaped per person, the torso and head
turned as the look says, the arms brought by two-bone IK to the wrists of the hands that grip the board
(core/person.gripping_hand: the hands stay the measured, tested ones), and dressed by region: each face of the
body goes to the skin, the shirt, the trousers or the boots by the bone that moves it most and where it lies
at rest, and clothes stand off the skin by their thickness and hang loose. The shirt's crew neck leaves the neck
bare; a vest opens down the front, its tape sewn flat on it. Hair or a cap, lips, eyes, nails and boots
complete it (the brows, a flush, shadows and stubble are the skin's shading: core/face_tint).

Returns what core/person.person_parts returns (material key -> list of (vertices, triangles), world
coordinates), so the Blender side builds either the same way.
"""
from __future__ import annotations

import math

import numpy as np

from . import body_model as bm
from .geometry import axis_rotation
from .person import Axes, GripFrame, Look, add_boot, fingernails, gripping_hand, wrist_point

Mesh = tuple[np.ndarray, np.ndarray]

HAND_BONES = ("wrist", "metacarpal", "finger")
FACE_BONES = ("head", "jaw", "neck", "eye", "levator", "oculi", "orbicularis", "oris", "risorius", "special",
              "temporalis", "tongue")
ARM_BONES = ("upperarm", "lowerarm", "shoulder", "clavicle")
LEG_BONES = ("upperleg", "lowerleg", "pelvis", "root")
FOOT_BONES = ("foot", "toe")

# how far each garment stands off the skin (m), and how many passes of smoothing take the body's relief out of
# it (cloth hangs over the hollows; a tight layer keeps them)
THICKNESS_M = {"shirt": 0.011, "trousers": 0.014, "vest": 0.023, "hair": 0.004, "cap": 0.008}
SMOOTHING = {"shirt": 8, "trousers": 8, "vest": 10, "cap": 3}
CLOTHES = ("shirt", "trousers", "vest")
FOLD_M = {"shirt": 0.005, "trousers": 0.008}  # how deep the folds are
BOOT_TOP_M = 0.13  # below this the body is hidden in the boots (core/person's boot shape, on these ankles)
WAIST_ABOVE_PELVIS_M = 0.07  # the trousers' waistband, above the pelvis joint
SHORT_SLEEVE = 0.45  # a short sleeve ends this far down the upper arm (shoulder 0 .. elbow 1)


def _bone_kind(name: str) -> str:
    stem = name.split(".")[0].rstrip("0123456789-")
    for kind, prefixes in (("hand", HAND_BONES), ("foot", FOOT_BONES), ("arm", ARM_BONES), ("leg", LEG_BONES),
                           ("face", FACE_BONES)):
        if stem.startswith(prefixes):
            return kind
    return "torso"  # spine, breast


def _vertex_normals(vertices: np.ndarray, tris: np.ndarray) -> np.ndarray:
    n = np.cross(vertices[tris[:, 1]] - vertices[tris[:, 0]], vertices[tris[:, 2]] - vertices[tris[:, 0]])
    out = np.zeros_like(vertices)
    for k in range(3):
        np.add.at(out, tris[:, k], n)
    length = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(length > 0, length, 1.0)


def _triangles(quads: np.ndarray) -> np.ndarray:
    return np.concatenate([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]])


def _piece(vertices: np.ndarray, normals: np.ndarray, quads: np.ndarray, offset: float) -> Mesh:
    """The quads' own copy of their vertices, pushed `offset` along the normals, as triangles."""
    used, inverse = np.unique(quads, return_inverse=True)
    return vertices[used] + offset * normals[used], _triangles(inverse.reshape(quads.shape))


def _with_hem(mesh: Mesh, normals: np.ndarray, depth: float) -> Mesh:
    """A garment's open border closed down towards the skin under it (a collar, a cuff, a waistband): each
    border edge gets a band `depth` back along the body's normals (per vertex of the mesh), so no gap shows
    between cloth and skin."""
    v, t = mesh
    directed = np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]])
    n = len(v)
    border = directed[~np.isin(directed[:, 1] * n + directed[:, 0], directed[:, 0] * n + directed[:, 1])]
    if not len(border):  # kept in the faces' winding, so the band faces the way the garment does
        return mesh
    inner = len(v) + np.arange(len(border) * 2).reshape(-1, 2)
    ends = border.ravel()
    verts = np.concatenate([v, v[ends] - depth * normals[ends]])
    a, b = border[:, 0], border[:, 1]
    band = np.concatenate([np.stack([b, a, inner[:, 0]], 1), np.stack([b, inner[:, 0], inner[:, 1]], 1)])
    return verts, np.concatenate([t, band])


def _border_edges(t: np.ndarray) -> np.ndarray:
    edges = np.sort(np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]]), axis=1)
    unique, counts = np.unique(edges, axis=0, return_counts=True)
    return unique[counts == 1]


def _smoothed(mesh: Mesh, iterations: int) -> Mesh:
    """Laplacian smoothing over the mesh's edges, its open border held (a collar stays on the neck's skin)."""
    v, t = mesh
    v = v.copy()
    edges = np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]], t[:, [1, 0]], t[:, [2, 1]], t[:, [0, 2]]])
    edges = np.unique(edges, axis=0)
    count = np.bincount(edges[:, 0], minlength=len(v))[:, None].astype(float)
    free = np.ones(len(v), bool)
    free[_border_edges(t).ravel()] = False
    for _ in range(iterations):
        total = np.zeros_like(v)
        np.add.at(total, edges[:, 0], v[edges[:, 1]])
        v[free] = (0.5 * v + 0.5 * total / np.maximum(count, 1.0))[free]
    return v, t


def _straighten_border(mesh: Mesh, iterations: int = 12) -> Mesh:
    """Smooth the open border along itself only: a region cut from quads has a staircase edge (a hairline, a
    collar, a cuff); averaging each border vertex with its two border neighbours makes it a line."""
    v, t = mesh
    border = _border_edges(t)
    if not len(border):
        return mesh
    v = v.copy()
    ends = np.bincount(border.ravel(), minlength=len(v))
    border = border[(ends[border[:, 0]] == 2) & (ends[border[:, 1]] == 2)]  # simple loops only
    for _ in range(iterations):
        total, count = np.zeros_like(v), np.zeros(len(v))
        np.add.at(total, border[:, 0], v[border[:, 1]])
        np.add.at(total, border[:, 1], v[border[:, 0]])
        np.add.at(count, border.ravel(), 1.0)
        moving = count == 2
        v[moving] = 0.5 * v[moving] + 0.25 * total[moving]
    return v, t


def _split_tape(vest: Mesh, tape_quads: np.ndarray) -> dict[str, list[Mesh]]:
    """The vest's faces and its tape's, on one surface: the tape is sewn flat onto the vest. (Built and smoothed
    apart, the vest's smoothing sank it a few millimetres under the tape's edges, whose hems then stood up as
    walls: the tape read as an inflated tube, 2026-12-07.) The tape's edges are straightened along themselves,
    the vest's faces beside them following. `tape_quads` flags the vest's quads, in the order its piece was cut;
    each quad is two triangles, a hem's come after them."""
    v, t = vest
    on_tape = np.zeros(len(t), bool)
    on_tape[:2 * len(tape_quads)] = np.tile(tape_quads, 2)
    v, _ = _straighten_border((v, t[on_tape]))  # the tape's edges follow the body's quads: a staircase
    out = {}
    for key, faces in (("vest", t[~on_tape]), ("stripe", t[on_tape])):
        used, inverse = np.unique(faces, return_inverse=True)
        out[key] = [(v[used], inverse.reshape(faces.shape))]
    return out


def _folds(mesh: Mesh, normals_of, amplitude: float, seed: int) -> Mesh:
    """Cloth's folds: the surface pushed along its normals by a sum of a few waves 7-14 cm long, mostly
    running round the body (their crests horizontal), drawn from `seed`."""
    v, t = mesh
    rng = np.random.default_rng(seed)
    k = rng.normal(0.0, 1.0, (5, 3)) * [0.35, 0.35, 1.0]
    k *= (2 * np.pi / rng.uniform(0.07, 0.14, 5) / np.linalg.norm(k, axis=1))[:, None]
    phase = rng.uniform(0.0, 2 * np.pi, 5)
    wave = np.sin(v @ k.T + phase).sum(axis=1) / np.sqrt(5.0)
    return v + amplitude * wave[:, None] * normals_of(v, t), t


# how loose the clothes hang: least distances (m) from a limb's bones, (at its top joint, middle, end)
TROUSER_LEG_M = (0.092, 0.072, 0.066)
SLEEVE_M = (0.052, 0.046, 0.04)
SHIRT_HANG = 0.97  # below the chest the shirt falls straight: at least this share of the chest's girth


def _nearest_on_path(points: np.ndarray, path: np.ndarray, radii) -> tuple[np.ndarray, np.ndarray]:
    """For each point, its nearest point on a polyline and the least radius there (radii at the path's points)."""
    best_d, best_c, best_r = np.full(len(points), np.inf), np.zeros_like(points), np.zeros(len(points))
    for k in range(len(path) - 1):
        a, b = path[k], path[k + 1]
        t = np.clip((points - a) @ (b - a) / float(np.dot(b - a, b - a)), 0.0, 1.0)
        c = a + t[:, None] * (b - a)
        d = np.linalg.norm(points - c, axis=1)
        closer = d < best_d
        best_d[closer], best_c[closer] = d[closer], c[closer]
        best_r[closer] = (radii[k] + t * (radii[k + 1] - radii[k]))[closer]
    return best_c, best_r


def _loosened(points: np.ndarray, path: np.ndarray, radii) -> np.ndarray:
    """Points pushed out from the path to at least its radius there (a tight limb in a loose tube)."""
    c, r = _nearest_on_path(points, path, radii)
    d = points - c
    length = np.linalg.norm(d, axis=1, keepdims=True)
    return np.where(length < r[:, None], c + d / np.maximum(length, 1e-9) * r[:, None], points)


def clothed_rest(body: bm.Body) -> np.ndarray:
    """The body at rest with its clothes' shape: trouser legs and sleeves as loose tubes round the limbs' bones,
    the shirt hanging straight from the chest (each direction at least SHIRT_HANG of the chest's reach). The
    same vertices, so the rig moves the clothes with the body."""
    rig = body.rig
    kinds = np.array([_bone_kind(n) for n in rig.names])[rig.weight_bones[:, 0]]
    names = np.array(rig.names)[rig.weight_bones[:, 0]]
    v = body.vertices.copy()
    for side, s in (("L", 1), ("R", -1)):
        this = np.sign(v[:, 1]) == s
        legs = this & (kinds == "leg") & (names != "root")
        path = np.array([body.joint(f"{bone}.{side}") for bone in ("upperleg01", "lowerleg01", "foot")])
        v[legs] = _loosened(v[legs], path, TROUSER_LEG_M)
        arms = this & np.isin(names, [f"upperarm01.{side}", f"upperarm02.{side}", f"lowerarm01.{side}",
                                      f"lowerarm02.{side}"])
        path = np.array([body.joint(f"upperarm01.{side}"), body.joint(f"lowerarm01.{side}"),
                         body.joint(f"wrist.{side}")])
        v[arms] = _loosened(v[arms], path, SLEEVE_M)
    # the shirt: the chest's reach per direction round the spine, at the armpits' height
    chest_z = body.joint("upperarm01.L")[2] - 0.13
    axis = np.array([body.joint("spine01")[0], 0.0])
    torso = kinds == "torso"
    rel = v[:, :2] - axis
    angle = np.arctan2(rel[:, 1], rel[:, 0])
    bins = ((angle + np.pi) / (2 * np.pi) * 36).astype(int) % 36
    ring = torso & (np.abs(v[:, 2] - chest_z) < 0.025)
    reach = np.zeros(36)
    np.maximum.at(reach, bins[ring], np.linalg.norm(rel[ring], axis=1))
    reach = np.maximum(reach, np.roll(reach, 1))  # a bin the ring missed takes its neighbour's
    below = torso & (v[:, 2] < chest_z) & (v[:, 2] > body.joint("spine05")[2])
    r = np.linalg.norm(rel[below], axis=1)
    want = np.maximum(r, SHIRT_HANG * reach[bins[below]])
    v[below, :2] = axis + rel[below] * (want / np.maximum(r, 1e-9))[:, None]
    return v


# A crew neck sits at the base of the neck, lower in front (a collar up the neck read as a mannequin's grey sock,
# 2026-12-07): its height above the `neck01` joint at the back and the front, and its half width across.
NECK_LINE_M = (-0.012, -0.05)
NECK_HALF_WIDTH_M = 0.075
# A hi-vis vest opens down the front: a V from the neckline to this far below the shoulders, then the closure's
# gap (half widths, m) to the hem. A closed shell with a flat top edge read as a life jacket.
VEST_V_DEPTH_M = 0.2
VEST_V_HALF_M = (0.08, 0.015)  # at the top of the V, at its foot
VEST_GAP_HALF_M = 0.012
STRIPE_WIDTH_M = 0.05  # its retro-reflective tape: two bands round the body, this wide


def _front_share(rest: np.ndarray, neck: np.ndarray) -> np.ndarray:
    """How far round to the front each point lies about the neck's vertical axis: 1 straight ahead, 0 at the
    sides and behind."""
    rel = rest[:, :2] - neck[:2]
    return np.clip(rel[:, 0] / np.maximum(np.hypot(rel[:, 0], rel[:, 1]), 1e-9), 0.0, 1.0)


def _above_neckline(rest: np.ndarray, neck: np.ndarray) -> np.ndarray:
    """The points a crew neck leaves bare: within its half width of the neck's axis, above the line."""
    front = _front_share(rest, neck)
    line = neck[2] + NECK_LINE_M[0] + (NECK_LINE_M[1] - NECK_LINE_M[0]) * front ** 2
    return (rest[:, 2] > line) & (np.abs(rest[:, 1] - neck[1]) < NECK_HALF_WIDTH_M)


def _vest_opening(rest: np.ndarray, neck: np.ndarray, shoulders: float) -> np.ndarray:
    """The points of the torso a vest leaves open in front: the V and the closure's gap below it."""
    depth = np.clip((shoulders + 0.06 - rest[:, 2]) / VEST_V_DEPTH_M, 0.0, 1.0)
    half = np.where(depth < 1.0, VEST_V_HALF_M[0] + (VEST_V_HALF_M[1] - VEST_V_HALF_M[0]) * depth,
                    VEST_GAP_HALF_M)
    return (rest[:, 0] > neck[0]) & (np.abs(rest[:, 1] - neck[1]) < half)


def face_regions(body: bm.Body, look: Look) -> tuple[np.ndarray, np.ndarray]:
    """Per quad of the body group: a material key (or "" for the hands, which the gripping hands replace) and
    the quads of the vest ("vest" / "stripe" keys, or "")."""
    base, rig = body.base, body.rig
    quads = base.quads[base.face_group == base.groups.index("body")]
    kinds = np.array([_bone_kind(n) for n in rig.names])
    vertex_kind = kinds[rig.weight_bones[:, 0]]
    rest = body.vertices[quads].mean(axis=1)
    # a quad is a hand's when most of its corners are; otherwise by its first corner's strongest bone
    hand_share = (vertex_kind[quads] == "hand").mean(axis=1)
    kind = vertex_kind[quads[:, 0]]
    kind = np.where(hand_share >= 0.5, "hand", np.where(kind == "hand", "arm", kind))
    waist = body.joint("spine05")[2] + WAIST_ABOVE_PELVIS_M
    neck = body.joint("neck01")
    keys = np.full(len(quads), "shirt", dtype=object)
    keys[kind == "hand"] = ""
    keys[((kind == "face") & (rest[:, 2] >= neck[2] + NECK_LINE_M[0])) | _above_neckline(rest, neck)] = "skin"
    lower = np.isin(kind, ["leg", "foot"]) | ((kind == "torso") & (rest[:, 2] < waist))
    keys[lower] = "trousers"
    keys[(kind == "foot") | ((kind == "leg") & (rest[:, 2] < BOOT_TOP_M))] = ""  # inside the boots
    if not look.long_sleeves:
        for side in ("L", "R"):
            s, e = body.joint(f"upperarm01.{side}"), body.joint(f"lowerarm01.{side}")
            along = (rest - s) @ (e - s) / float(np.dot(e - s, e - s))
            this_side = np.sign(rest[:, 1]) == (1 if side == "L" else -1)
            keys[(kind == "arm") & this_side & (along > SHORT_SLEEVE)] = "skin"
    vest = np.full(len(quads), "", dtype=object)
    if look.top == "vest":
        shoulders = body.joint("upperarm01.L")[2]
        on_torso = np.isin(kind, ["torso"]) | ((kind == "arm") & (np.abs(rest[:, 1]) < body.joint("upperarm01.L")[1]))
        band = on_torso & (rest[:, 2] > waist + 0.02) & (rest[:, 2] < shoulders + 0.12) & (keys == "shirt")
        band &= ~_vest_opening(rest, neck, shoulders)
        vest[band] = "vest"
        for z in (waist + 0.1, waist + 0.22):
            vest[band & (rest[:, 2] > z) & (rest[:, 2] < z + STRIPE_WIDTH_M)] = "stripe"
    return keys, vest


def _head_frame(body: bm.Body):
    """Rest-pose head measures: the eyes' centre, the skull's vertical axis point (x, y) and the eye height."""
    eyes = np.concatenate([body.base.vertex_groups["helper-l-eye"], body.base.vertex_groups["helper-r-eye"]])
    eye_center = body.vertices[eyes].mean(axis=0)
    head_pivot = body.joint("head")
    return eye_center, np.array([head_pivot[0] - 0.01, 0.0, eye_center[2]])


def _scalp_keys(body: bm.Body, quads: np.ndarray, keys: np.ndarray, look: Look) -> np.ndarray:
    """Hair (or a cap) over the scalp and the lips, on the skin's quads of the head (the brows are the skin's own
    shading, core/face_tint)."""
    _, pivot = _head_frame(body)
    rest = body.vertices[quads].mean(axis=1)
    rel = rest - pivot
    c = rel[:, 0] / np.maximum(np.hypot(rel[:, 0], rel[:, 1]), 1e-9)  # cos of the angle from the face
    if look.headwear == "cap":
        line = np.where(c > 0, 0.03 + 0.012 * c, 0.03 + 0.03 * c)
        key = "cap"
    else:
        line = np.where(c > 0, 0.028 + 0.022 * c, 0.028 + 0.075 * c)
        key = "hair"
    head = keys == "skin"
    out = keys.copy()
    out[head & (rel[:, 2] > line)] = key
    # the lips: an ellipse round the mouth's muscles (MPFB's `oris` bones), on the front of the face
    mouth = body.joint("oris05")
    across = rest[:, 1] / LIPS_HALF_M[0]
    down = (rest[:, 2] - (mouth[2] - 0.01)) / LIPS_HALF_M[1]  # oris05 sits under the nose
    lips = head & (across ** 2 + down ** 2 < 1.0) & (rest[:, 0] > mouth[0] - 0.012) & (out == "skin")
    out[lips] = "lips"
    return out


BRIM_HALF_ANGLE = 0.75  # a cap's peak spans the front of the head between these angles (rad) from the face
LIPS_HALF_M = (0.022, 0.0085)  # the lips' half width and half height


def _brim(body: bm.Body, rot: np.ndarray, trans: np.ndarray) -> Mesh:
    """A cap's peak: a curved plate from the cap's front edge, forward and a little down, in the head's pose."""
    _, pivot = _head_frame(body)
    skin = np.zeros(len(body.vertices), bool)
    skin[np.unique(body.base.quads[body.base.face_group == body.base.groups.index("body")])] = True
    head_vertices = body.vertices[skin & (body.rig.weight_bones[:, 0] == body.rig.index("head"))]
    z = pivot[2] + 0.042
    ring = head_vertices[np.abs(head_vertices[:, 2] - z) < 0.01] - pivot
    phis = np.linspace(-BRIM_HALF_ANGLE, BRIM_HALF_ANGLE, 13)
    inner, outer = [], []
    for phi in phis:
        d = np.array([math.cos(phi), math.sin(phi), 0.0])
        r = float((ring @ d).max()) + THICKNESS_M["cap"]
        length = 0.07 * max(math.cos(0.5 * math.pi * phi / BRIM_HALF_ANGLE), 0.0) ** 0.6 + 0.003
        inner.append(pivot + r * d + [0, 0, z - pivot[2]])
        outer.append(pivot + (r + length) * d + [0, 0, z - pivot[2] - 0.3 * length - 0.035 * abs(math.sin(phi))])
    top = np.concatenate([inner, outer])
    plate = np.concatenate([top, top - [0, 0, 0.006]])
    m = len(phis)
    quads = [(k, m + k, m + k + 1, k + 1) for k in range(m - 1)]
    tris = [(a, b, c) for a, b, c, d in quads] + [(a, c, d) for a, b, c, d in quads]
    tris = np.array(tris)
    rim = [(m + k, 3 * m + k, 3 * m + k + 1) for k in range(m - 1)] + [(m + k, 3 * m + k + 1, m + k + 1)
                                                                       for k in range(m - 1)]
    faces = np.concatenate([tris, tris[:, ::-1] + 2 * m, np.array(rim)])
    h = body.rig.index("head")
    return plate @ rot[h].T + trans[h], faces


def _boots(body: bm.Body, rot: np.ndarray, trans: np.ndarray) -> dict[str, list[Mesh]]:
    """core/person's work boot on each of the body's feet (the heel under the ankle, the toe along the foot), on
    its rubber sole ("soles"). Smoothing the foot itself leaves toes."""
    flat = Axes(np.zeros(3), np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0]))
    out: dict[str, list[Mesh]] = {"boots": [], "soles": []}
    for side in ("L", "R"):
        b = body.rig.index(f"foot.{side}")
        ankle = rot[b] @ body.heads[b] + trans[b]
        toe = rot[b] @ body.tails[b] + trans[b] - ankle
        toe[2] = 0.0
        toe /= np.linalg.norm(toe)
        add_boot(out, flat, np.array([ankle[0], ankle[1], 0.0]) - 0.02 * toe, toe)
    return out


def _pose(body: bm.Body, look: Look, to_body, grips: tuple[GripFrame, GripFrame]):
    """Bone transforms: the torso turned in two spine joints, the head in the neck and skull, the arms by IK."""
    up, left = np.array([0.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.0])
    yaw, head_yaw, pitch = (math.radians(a) for a in (look.torso_yaw_deg, look.head_yaw_deg, look.head_pitch_deg))
    local = {"spine03": axis_rotation(up, yaw / 2), "spine01": axis_rotation(up, yaw / 2),
             "neck02": axis_rotation(up, head_yaw / 2),
             "head": axis_rotation(up, head_yaw / 2) @ axis_rotation(left, pitch)}
    rot, trans = bm.global_transforms(body, local)
    for side, s, grip in (("L", 1, grips[0]), ("R", -1, grips[1])):
        torso_left = rot[body.rig.index("spine01")] @ left
        pole = -up + s * look.elbow_out * torso_left - 0.25 * np.array([1.0, 0.0, 0.0])
        local.update(bm.arm_rotations(body, rot, trans, side, to_body(wrist_point(grip)), pole))
    return bm.global_transforms(body, local)


def mpfb_person_parts(folder, look: Look, shape: bm.Shape, feet_xy, facing_deg: float,
                      grips: tuple[GripFrame, GripFrame]) -> dict[str, list[Mesh]]:
    """The person at `feet_xy` facing `facing_deg`, hands gripping the two edges (the holder's left first):
    material key -> meshes in world coordinates. Keys: skin, shirt, trousers, boots, soles, lips, eyes,
    sclera, nails (bare hands), and as worn vest, stripe, gloves, cap or hair."""
    body = bm.shaped_body(folder, shape)
    shape_seed = int(1e6 * (shape.muscle + 2 * shape.weight + 3 * shape.height))  # the folds follow the body
    a = math.radians(facing_deg)
    axes = np.array([[math.cos(a), math.sin(a), 0.0], [-math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
    origin = np.array([feet_xy[0], feet_xy[1], 0.0])

    def to_body(p):
        return axes @ (np.asarray(p, float) - origin)

    rot, trans = _pose(body, look, to_body, grips)
    posed = bm.skin(body, rot, trans)
    dressed = bm.skin(body, rot, trans, clothed_rest(body))
    base = body.base
    quads = base.quads[base.face_group == base.groups.index("body")]
    normals = _vertex_normals(dressed, _triangles(quads))
    keys, vest = face_regions(body, look)
    keys = _scalp_keys(body, quads, keys, look)
    out: dict[str, list[Mesh]] = {}
    for key, chosen in [(k, quads[keys == k]) for k in ("skin", "shirt", "trousers", "lips", "hair",
                                                          "cap", "vest")]:
        if key == "vest":  # the vest and its tape, one garment
            chosen = quads[vest != ""]
        if len(chosen):
            piece = _piece(dressed if key in CLOTHES else posed, normals, chosen, THICKNESS_M.get(key, 0.0))
            if key in SMOOTHING:
                piece = _smoothed(piece, SMOOTHING[key])
            if key in FOLD_M:
                piece = _folds(piece, _vertex_normals, FOLD_M[key], shape_seed)
            piece = _straighten_border(piece)
            if key in CLOTHES:
                piece = _with_hem(piece, normals[np.unique(chosen)], THICKNESS_M[key] + 0.004)
            if key == "vest":
                out.update(_split_tape(piece, vest[vest != ""] == "stripe"))
                continue
            out.setdefault(key, []).append(piece)
    out.update(_boots(body, rot, trans))
    if look.headwear == "cap":
        out["cap"].append(_brim(body, rot, trans))
    eyes = np.concatenate([base.quads[base.face_group == base.groups.index(g)] for g in ("helper-l-eye",
                                                                                           "helper-r-eye")])
    ball = body.vertices[eyes].mean(axis=1)
    centre = np.where(ball[:, 1:2] > 0, body.vertices[base.vertex_groups["helper-l-eye"]].mean(axis=0),
                      body.vertices[base.vertex_groups["helper-r-eye"]].mean(axis=0))
    outward = (ball - centre) / np.linalg.norm(ball - centre, axis=1, keepdims=True)
    iris = outward[:, 0] > 0.8
    eye_normals = _vertex_normals(posed, _triangles(eyes))
    out["eyes"] = [_piece(posed, eye_normals, eyes[iris], 0.0)]
    out["sclera"] = [_piece(posed, eye_normals, eyes[~iris], 0.0)]
    to_world = axes.T
    out = {key: [(v @ to_world.T + origin, t) for v, t in meshes] for key, meshes in out.items()}
    hand_key = "gloves" if look.gloves else "skin"
    for grip in grips:
        hand = gripping_hand(grip, 0.0012 if look.gloves else 0.0)
        out.setdefault(hand_key, []).append(hand["hand"])
        if "cuff" in hand:
            out[hand_key].append(hand["cuff"])
        if not look.gloves:
            out.setdefault("nails", []).append(fingernails(grip))
    return out
