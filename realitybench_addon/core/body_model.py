"""MakeHuman's MPFB2 body (CC0; core/body_data.py finds it) with numpy: the base mesh shaped by the macro
targets (gender, ethnic mix, muscle, weight, height of a young adult), its default skeleton placed on the
shaped mesh the way MPFB places it (joint cubes, vertices and vertex means), and linear blend skinning of
rotations given per bone.

Coordinates are the body's own, in metres: x forward (where the face looks), y to the body's left, z up, the
soles at z = 0 and the ankles' midpoint over the origin. The base mesh's own units are decimetres with y up
and z forward.
"""
from __future__ import annotations

import functools
import gzip
import json
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .body_data import ETHNICITIES
from .errors import RealityBenchError

DM = 0.1  # the base mesh's unit, in metres
INFLUENCES = 4  # bones per vertex kept for skinning (the largest weights, renormalised)


def _to_body(xyz: np.ndarray) -> np.ndarray:
    """Base-mesh axes (x left, y up, z forward) in decimetres -> body axes (forward, left, up) in metres."""
    return np.asarray(xyz, float)[..., [2, 0, 1]] * DM


def _from_blender(xyz) -> np.ndarray:
    """MPFB's Blender axes (x left, y backward, z up) -> body axes (forward, left, up)."""
    x, y, z = np.asarray(xyz, float)
    return np.array([-y, x, z])


@dataclass(frozen=True)
class BaseMesh:
    vertices: np.ndarray  # (N, 3) body axes, metres, unshaped, the mesh's own origin (not yet on the ground)
    quads: np.ndarray  # (F, 4) vertex indices
    face_group: np.ndarray  # (F,) index into `groups`
    groups: tuple[str, ...]
    vertex_groups: dict  # group name -> vertex indices (joint cubes and helpers)


@dataclass(frozen=True)
class Rig:
    names: tuple[str, ...]  # parents before children
    parent: np.ndarray  # (B,) index of the parent, -1 for the root
    head_spec: tuple  # per bone: ("CUBE", group) | ("VERTEX", index) | ("MEAN", indices)
    tail_spec: tuple
    weight_bones: np.ndarray  # (N, INFLUENCES) bone index per vertex
    weight_values: np.ndarray  # (N, INFLUENCES) weights summing to 1 (0 where a vertex has fewer bones)

    def index(self, name: str) -> int:
        return self.names.index(name)


@functools.lru_cache(maxsize=2)
def load_base(folder: str) -> BaseMesh:
    vertices, quads, face_group, groups, vertex_groups = [], [], [], [], {}
    group = -1
    with open(Path(folder) / "3dobjs" / "base.obj", encoding="utf-8") as f:
        for line in f:
            head = line[:2]
            if head == "v ":
                vertices.append(line.split()[1:4])
            elif head == "f ":
                quads.append([int(p.split("/")[0]) - 1 for p in line.split()[1:5]])
                face_group.append(group)
            elif head == "g ":
                groups.append(line.split()[1])
                group = len(groups) - 1
    quads_a = np.array(quads, np.int64)
    face_group_a = np.array(face_group, np.int64)
    for k, name in enumerate(groups):
        vertex_groups[name] = np.unique(quads_a[face_group_a == k])
    return BaseMesh(_to_body(np.array(vertices, float)), quads_a, face_group_a, tuple(groups), vertex_groups)


def _point_spec(spec: dict):
    strategy = spec["strategy"]
    if strategy == "CUBE":
        return ("CUBE", spec["cube_name"])
    if strategy == "VERTEX":
        return ("VERTEX", int(spec["vertex_index"]))
    if strategy == "MEAN":
        return ("MEAN", tuple(int(i) for i in spec["vertex_indices"]))
    raise ValueError(f"rig.default.json: unknown joint strategy {strategy!r}")


@functools.lru_cache(maxsize=2)
def load_rig(folder: str, vertex_count: int) -> Rig:
    rigs = Path(folder) / "rigs" / "standard"
    bones = json.loads((rigs / "rig.default.json").read_text(encoding="utf-8"))
    order: list[str] = []

    def visit(name):
        if name in order:
            return
        parent = bones[name]["parent"]
        if parent:
            visit(parent)
        order.append(name)

    for name in sorted(bones):
        visit(name)
    parent = np.array([order.index(bones[n]["parent"]) if bones[n]["parent"] else -1 for n in order])
    weights = json.loads((rigs / "weights.default.json").read_text(encoding="utf-8"))["weights"]
    dense = np.zeros((vertex_count, len(order)))
    for name, pairs in weights.items():
        if name in order and pairs:
            pairs = np.asarray(pairs, float)
            dense[pairs[:, 0].astype(int), order.index(name)] = pairs[:, 1]
    top = np.argsort(-dense, axis=1)[:, :INFLUENCES]
    values = np.take_along_axis(dense, top, axis=1)
    total = values.sum(axis=1, keepdims=True)
    values = np.where(total > 0, values / np.where(total > 0, total, 1.0), 0.0)
    return Rig(tuple(order), parent, tuple(_point_spec(bones[n]["head"]) for n in order),
               tuple(_point_spec(bones[n]["tail"]) for n in order), top, values)


@functools.lru_cache(maxsize=64)
def load_target(folder: str, relpath: str, vertex_count: int) -> np.ndarray:
    """A morph target as a dense (N, 3) offset in body axes (metres)."""
    offsets = np.zeros((vertex_count, 3))
    with gzip.open(Path(folder) / relpath, "rt", encoding="utf-8") as f:
        rows = [line.split() for line in f if line.strip() and not line.startswith("#")]
    if rows:
        data = np.array(rows, float)
        offsets[data[:, 0].astype(int)] = _to_body(data[:, 1:4])
    return offsets


# ---------------------------------------------------------------------------------------------
# Shape: MakeHuman's macro sliders for a young adult

@dataclass(frozen=True)
class Shape:
    """gender 0 (female) .. 1 (male); muscle, weight and height 0 .. 1 with 0.5 average; ethnic: the mix of
    the three ethnic targets (sums to 1)."""
    gender: float
    muscle: float
    weight: float
    height: float
    ethnic: tuple[float, float, float]


def draw_shape(rng: np.random.Generator) -> Shape:
    mix = rng.dirichlet([0.6, 0.6, 0.6])
    return Shape(float(rng.choice([0.0, 1.0], p=[0.3, 0.7]) * 0.9 + rng.uniform(0.0, 0.1)),
                 float(rng.uniform(0.35, 0.8)), float(rng.uniform(0.3, 0.85)), float(rng.uniform(0.3, 0.5)),
                 tuple(float(v) for v in mix))


def _level_weights(value: float) -> dict[str, float]:
    """A slider 0..1 as weights of MakeHuman's min / average / max targets (piecewise linear about 0.5)."""
    if value < 0.5:
        return {"min": 1.0 - 2.0 * value, "average": 2.0 * value}
    return {"average": 2.0 - 2.0 * value, "max": 2.0 * value - 1.0}


def shape_weights(shape: Shape) -> dict[str, float]:
    """Target file (relative path) -> its weight, for a shape."""
    out: dict[str, float] = {}
    genders = {"female": 1.0 - shape.gender, "male": shape.gender}
    muscles, weights = _level_weights(shape.muscle), _level_weights(shape.weight)
    height = {"min": max(0.0, 1.0 - 2.0 * shape.height), "max": max(0.0, 2.0 * shape.height - 1.0)}
    for gender, g in genders.items():
        if g <= 0:
            continue
        for ethnic, e in zip(ETHNICITIES, shape.ethnic):
            out[f"targets/macrodetails/{ethnic}-{gender}-young.target.gz"] = g * e
        for muscle, m in muscles.items():
            for weight, w in weights.items():
                kind = f"{muscle}muscle-{weight}weight"
                out[f"targets/macrodetails/universal-{gender}-young-{kind}.target.gz"] = g * m * w
                for h, hw in height.items():
                    if hw > 0:
                        out[f"targets/macrodetails/height/{gender}-young-{kind}-{h}height.target.gz"] = g * m * w * hw
    return {name: w for name, w in out.items() if w > 1e-6}



# ---------------------------------------------------------------------------------------------
# The shaped body and its skeleton

@dataclass(frozen=True)
class Body:
    """A shaped body at rest on the ground: vertices, the skeleton's heads and tails (B, 3) and the rig."""
    base: BaseMesh
    rig: Rig
    vertices: np.ndarray
    heads: np.ndarray
    tails: np.ndarray

    def joint(self, bone: str) -> np.ndarray:
        return self.heads[self.rig.index(bone)]


def _place(spec, vertices: np.ndarray, base: BaseMesh) -> np.ndarray:
    kind, what = spec
    if kind == "CUBE":
        return vertices[base.vertex_groups[what]].mean(axis=0)
    if kind == "VERTEX":
        return vertices[what]
    return vertices[list(what)].mean(axis=0)


def shaped_body(folder, shape: Shape) -> Body:
    """The body of `shape` from the MPFB2 data in `folder`; data that does not parse (a damaged or foreign
    folder given as $REALITYBENCH_BODY_DIR) is a RealityBenchError naming the folder, not a traceback."""
    try:
        return _shaped_body(str(folder), shape)
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError, EOFError, zlib.error) as exc:
        raise RealityBenchError(f"the MPFB2 body data in {folder} is unreadable ({type(exc).__name__}: {exc}); "
                                f"fetch it again with `python -m realitybench_addon fetch-body`") from exc


def _shaped_body(folder: str, shape: Shape) -> Body:
    base = load_base(folder)
    n = len(base.vertices)
    vertices = base.vertices.copy()
    for relpath, weight in sorted(shape_weights(shape).items()):
        vertices += weight * load_target(folder, relpath, n)
    rig = load_rig(folder, n)
    body_faces = base.quads[base.face_group == base.groups.index("body")]
    soles = vertices[np.unique(body_faces)][:, 2].min()
    ankles = 0.5 * (_place(("CUBE", "joint-l-ankle"), vertices, base) + _place(("CUBE", "joint-r-ankle"), vertices,
                                                                                 base))
    vertices = vertices - [ankles[0], ankles[1], soles]
    heads = np.array([_place(spec, vertices, base) for spec in rig.head_spec])
    tails = np.array([_place(spec, vertices, base) for spec in rig.tail_spec])
    return Body(base, rig, vertices, heads, tails)


# ---------------------------------------------------------------------------------------------
# Posing

def rotation_between(a, b) -> np.ndarray:
    """The smallest rotation taking direction a to direction b."""
    a = np.asarray(a, float) / np.linalg.norm(a)
    b = np.asarray(b, float) / np.linalg.norm(b)
    v, c = np.cross(a, b), float(np.dot(a, b))
    if c < -1 + 1e-9:  # opposite: half a turn about any perpendicular
        p = np.cross(a, [1.0, 0.0, 0.0] if abs(a[0]) < 0.9 else [0.0, 1.0, 0.0])
        p /= np.linalg.norm(p)
        return 2 * np.outer(p, p) - np.eye(3)
    k = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + k + k @ k / (1 + c)


def global_transforms(body: Body, local: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Each bone's world transform x -> R x + t, from rotations given in the rest frame about each bone's own
    head (a bone not named keeps its rest pose relative to its parent)."""
    count = len(body.rig.names)
    rot, trans = np.zeros((count, 3, 3)), np.zeros((count, 3))
    for b, name in enumerate(body.rig.names):
        r_local = local.get(name, np.eye(3))
        h = body.heads[b]
        r, t = r_local, h - r_local @ h  # x -> R (x - h) + h
        p = body.rig.parent[b]
        if p >= 0:
            r, t = rot[p] @ r, rot[p] @ t + trans[p]
        rot[b], trans[b] = r, t
    return rot, trans


def skin(body: Body, rot: np.ndarray, trans: np.ndarray, rest: np.ndarray | None = None) -> np.ndarray:
    """Linear blend skinning of the body's vertices (or of `rest`, the same vertices moved at rest: a garment)
    by the bones' transforms."""
    rest = body.vertices if rest is None else rest
    idx, w = body.rig.weight_bones, body.rig.weight_values
    moved = np.einsum("nkij,nj->nki", rot[idx], rest) + trans[idx]
    posed = np.einsum("nk,nki->ni", w, moved)
    unweighted = w.sum(axis=1) == 0
    posed[unweighted] = rest[unweighted]
    return posed


def arm_rotations(body: Body, rot: np.ndarray, trans: np.ndarray, side: str, wrist_target, pole) -> dict:
    """Rest-frame rotations of upperarm01.<side> and lowerarm01.<side> that put the wrist joint at
    `wrist_target`, the elbow bent towards `pole` (two-bone IK), the elbow's hinge kept: the upper arm turns
    the rest arm's plane onto the target plane, the forearm then bends in it."""
    from .person import two_bone_elbow

    upper, lower, wrist = (body.rig.index(f"{n}.{side}") for n in ("upperarm01", "lowerarm01", "wrist"))
    s_rest, e_rest, w_rest = body.heads[upper], body.heads[lower], body.heads[wrist]
    parent = body.rig.parent[upper]
    p_rot, p_trans = rot[parent], trans[parent]
    shoulder = p_rot @ s_rest + p_trans
    upper_len, lower_len = np.linalg.norm(e_rest - s_rest), np.linalg.norm(w_rest - e_rest)
    target = np.asarray(wrist_target, float)
    elbow = two_bone_elbow(shoulder, target, pole, upper_len, lower_len)

    def frame(u, w):
        u = u / np.linalg.norm(u)
        n = np.cross(u, w)
        n /= np.linalg.norm(n)
        return np.column_stack([u, n, np.cross(u, n)])

    rest = frame(p_rot @ (e_rest - s_rest), p_rot @ (w_rest - e_rest))
    goal = frame(elbow - shoulder, target - elbow)
    r_upper = p_rot.T @ goal @ rest.T @ p_rot
    q = p_rot @ r_upper
    r_lower = rotation_between(w_rest - e_rest, q.T @ (target - elbow))
    return {f"upperarm01.{side}": r_upper, f"lowerarm01.{side}": r_lower}
