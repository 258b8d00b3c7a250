"""One BVH over the whole scene, built once per scene state and reused for every ray cast.

`mathutils.bvhtree` on a prebuilt tree is ~50x cheaper than `scene.ray_cast`. The cache
is keyed by a fingerprint of the scene (each mesh object's name, data, transform and
size); a depsgraph handler (registered with the add-on) also drops it when geometry
changes, which catches edits the fingerprint cannot see.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

import bmesh
import bpy
import numpy as np
from mathutils import Vector
from mathutils.bvhtree import BVHTree

from .scene_data import SURFACE_TYPES, world_vertices

_CACHE: dict[str, "SceneBVH"] = {}


@dataclass
class SceneBVH:
    tree: BVHTree
    face_owner: np.ndarray  # face index -> index into `names`
    names: list[str]
    fingerprint: tuple
    face_count: int

    def first_hits(self, origin: np.ndarray, points: np.ndarray, margin: float = 1e-4) -> np.ndarray:
        """For each point, the name index of the first object hit on the way from `origin` to it (-1: none)."""
        origin_v = Vector(origin)
        ray_cast = self.tree.ray_cast
        owner = self.face_owner
        out = np.full(len(points), -1, np.int64)
        deltas = np.asarray(points, float) - origin
        dists = np.linalg.norm(deltas, axis=1)
        for i, (delta, dist) in enumerate(zip(deltas.tolist(), dists.tolist())):
            if dist <= 0:
                continue
            hit = ray_cast(origin_v, Vector(delta), dist * (1 + margin) + margin)
            if hit[2] is not None:
                out[i] = owner[hit[2]]
        return out

    def name_index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            return -2  # never equals a hit


def _instanced_only(obj) -> bool:
    """True for what a render never shows in place: an instancer hidden in renders, and the original of an
    object instanced on its parent's vertices or faces (only its instances render). Neither is measured;
    nor are the instances: grass tufts, too low to hide a target (`core.grass`), and leaf cards and render copies
    of far crowns, all inside crowns that are measured (`bl.vegetation`, `core.vegetation`)."""
    if obj.instance_type in ("VERTS", "FACES") and not obj.show_instancer_for_render:
        return True
    return obj.parent is not None and obj.parent.instance_type in ("VERTS", "FACES")


def _mesh_objects(scene):
    return [o for o in scene.objects if o.type in SURFACE_TYPES and o.visible_get() and not _instanced_only(o)]


def scene_fingerprint(scene) -> tuple:
    """What the BVH depends on: each surface's name, data, size, transform (exact: a copied Matrix compares
    by value, far cheaper than rounding its 16 floats) and modifiers."""
    items = []
    for o in _mesh_objects(scene):
        data = o.data
        size = len(data.vertices) if o.type == "MESH" else 0
        modifiers = o.modifiers
        items.append((o.name, data.name if data else "", size, o.matrix_world.copy(),
                      tuple(m.name for m in modifiers) if len(modifiers) else ()))
    return (scene.name, scene.frame_current, tuple(items))


def build_scene_bvh(scene, depsgraph=None) -> SceneBVH:
    """One tree over every visible surface in world space. The evaluated meshes are moved to world space and
    joined in a BMesh, all in C: building the tree from Python lists of vertices and triangles cost twice as
    much (a roof scene's 35,000 triangles: some 45 ms against 20)."""
    depsgraph = depsgraph or bpy.context.evaluated_depsgraph_get()
    names, face_counts = [], []
    joined = bmesh.new()
    try:
        for obj in _mesh_objects(scene):
            evaluated = obj.evaluated_get(depsgraph)
            mesh = evaluated.to_mesh()
            try:
                if mesh is None or len(mesh.polygons) == 0:
                    continue
                _to_world(mesh, evaluated.matrix_world)  # the evaluated copy, not the object's own mesh
                before = len(joined.faces)
                joined.from_mesh(mesh)  # appends: the faces keep the objects' order
                names.append(obj.name)
                face_counts.append(len(joined.faces) - before)  # what it kept, should it drop a bad face
            finally:
                evaluated.to_mesh_clear()
        if not names:
            raise LookupError(f"scene {scene.name!r} has no visible geometry to ray-cast against")
        tree = BVHTree.FromBMesh(joined)
    finally:
        joined.free()
    face_owner = np.repeat(np.arange(len(names)), face_counts)
    return SceneBVH(tree, face_owner, names, scene_fingerprint(scene), int(face_owner.size))


def _to_world(mesh, matrix) -> None:
    """Move a (temporary) mesh's vertices to world space as `scene_data.world_vertices` computes them: in double
    precision, so a hit is the one a tree of `world_triangles` would give."""
    # Through MeshVertex.co, not the "position" attribute: written that way, 8 of the 44 comparison frames (all
    # in the parking lot) changed, for a cause not found (the object's own and evaluated meshes read back intact).
    mesh.vertices.foreach_set("co", world_vertices(mesh, matrix).astype(np.float32).ravel())


_FROZEN: set = set()  # scenes whose geometry a caller has promised not to change (geometry_frozen)


@contextlib.contextmanager
def geometry_frozen(scene):
    """Within this block the caller promises that only cameras move in `scene` (Suggest a Pose's search): its
    BVH is brought up to date once and then used without fingerprinting the scene on every ray cast (some
    20 ms a call in the parking lot)."""
    scene_bvh(scene)
    _FROZEN.add(scene.name)
    try:
        yield
    finally:
        _FROZEN.discard(scene.name)


def scene_bvh(scene, depsgraph=None) -> SceneBVH:
    """The cached BVH of `scene`, rebuilt only when the scene changed."""
    cached = _CACHE.get(scene.name)
    if cached is not None and scene.name in _FROZEN:
        return cached
    fingerprint = scene_fingerprint(scene)
    if cached is not None and cached.fingerprint == fingerprint:
        return cached
    built = build_scene_bvh(scene, depsgraph)
    _CACHE[scene.name] = built
    return built


def invalidate(scene_name: str | None = None) -> None:
    if scene_name is None:
        _CACHE.clear()
    else:
        _CACHE.pop(scene_name, None)


@bpy.app.handlers.persistent  # survives file loads, which would otherwise drop it
def on_depsgraph_update(scene, depsgraph) -> None:
    """Handler: drop the scene's BVH when any geometry changed (never writes Blender data). A placed
    camera reports a geometry update too, though it casts no surface: it must not cost a rebuild."""
    if scene.name in _CACHE and any(u.is_updated_geometry and not _is_surfaceless_object(u.id)
                                    for u in depsgraph.updates):
        invalidate(scene.name)


def _is_surfaceless_object(datablock) -> bool:
    """A camera or light (the object or its data), which no ray can hit."""
    if isinstance(datablock, bpy.types.Object):
        return datablock.type not in SURFACE_TYPES
    return isinstance(datablock, (bpy.types.Camera, bpy.types.Light))


def inside_geometry(scene, point, reach_m: float = 2.0) -> bool:
    """Is `point` enclosed by geometry? Cast six axis rays; most of them hitting a back face
    (the surface normal pointing away from the ray's origin) within `reach_m` means inside."""
    bvh = scene_bvh(scene)
    origin = Vector(tuple(float(c) for c in point))
    back = 0
    for axis in range(3):
        for sign in (1.0, -1.0):
            direction = Vector(tuple(sign if i == axis else 0.0 for i in range(3)))
            location, normal, _index, _dist = bvh.tree.ray_cast(origin, direction, reach_m)
            if location is not None and normal.dot(direction) > 0:
                back += 1
    return back >= 4
