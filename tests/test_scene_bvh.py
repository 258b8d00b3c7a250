"""The scene BVH (`bl.raycast.build_scene_bvh`, joined in a BMesh) answers every ray as a tree built the plain
way does: from each object's world-space triangles (`scene_data.world_triangles`) as Python lists. Scenes of
every environment, drawn by seed; rays from around the scene to points on its surfaces. No surface a ray sees has
a twin on another object: two objects with coplanar faces turned the same way fight over the pixel in a render
and tie for the ray."""
import zlib

import numpy as np
import pytest

bpy = pytest.importorskip("bpy")

from mathutils import Vector  # noqa: E402
from mathutils.bvhtree import BVHTree  # noqa: E402

from realitybench_addon import api, pipeline  # noqa: E402
from realitybench_addon.bl import raycast  # noqa: E402
from realitybench_addon.bl.scene_data import world_triangles  # noqa: E402


def reference_tree(scene, depsgraph):
    """(tree, triangle owner, names, vertices, triangles): the build before the BMesh one."""
    verts, tris, owner, names, offset = [], [], [], [], 0
    for obj in raycast._mesh_objects(scene):
        v, t = world_triangles(obj, depsgraph)
        if len(t) == 0:
            continue
        names.append(obj.name)
        verts.append(v)
        tris.append(t + offset)
        owner.append(np.full(len(t), len(names) - 1))
        offset += len(v)
    v, t = np.concatenate(verts), np.concatenate(tris)
    return BVHTree.FromPolygons(v.tolist(), t.tolist(), all_triangles=True), np.concatenate(owner), names, v, t


class FaceTwins:
    """Finds, for a point on one object's surface, another object with a face through it turned the same way."""

    def __init__(self, owner, v, t):
        self.trees, lows, highs = [], [], []
        for index in range(owner.max() + 1):
            mine = t[owner == index]
            used, local = np.unique(mine, return_inverse=True)
            self.trees.append(BVHTree.FromPolygons(v[used].tolist(), local.reshape(-1, 3).tolist(),
                                                   all_triangles=True))
            lows.append(v[used].min(axis=0))
            highs.append(v[used].max(axis=0))
        self.lo, self.hi = np.array(lows) - 1e-4, np.array(highs) + 1e-4

    def twin(self, point, normal, owner_index) -> int:
        """Another object with a face through `point` and through the points half a millimetre round it in the
        plane, turned as `normal`: an overlap, not two panels of one smooth skin meeting along an edge."""
        n = np.array(normal)
        e1 = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(n, e1)
        probes = [point] + [point + 5e-4 * d for d in (e1, -e1, e2, -e2)]
        near = np.flatnonzero(np.all((self.lo <= point) & (point <= self.hi), axis=1))
        for other in near[near != owner_index]:
            found = [self.trees[other].find_nearest(Vector(p), 1e-5) for p in probes]
            if all(f[2] is not None and f[1].dot(normal) > 0.999 for f in found):
                return int(other)
        return -1


@pytest.mark.parametrize("env", sorted(api.environments()))
def test_every_ray_hits_what_the_plain_tree_hits(env):
    rng = np.random.default_rng(zlib.crc32(env.encode()))
    spec = pipeline.plan_frame(env, int(rng.integers(1000)), "random", int(rng.integers(100)))
    pipeline.SceneCache().get(spec)
    scene = bpy.context.scene
    depsgraph = bpy.context.evaluated_depsgraph_get()
    built = raycast.build_scene_bvh(scene, depsgraph)
    tree, owner, names, v, t = reference_tree(scene, depsgraph)
    assert built.names == names

    # rays from points a metre or more off the surfaces to the centroids of random triangles
    picked = t[rng.integers(0, len(t), 600)]
    targets = v[picked].mean(axis=1)
    lo, hi = v.min(axis=0), v.max(axis=0)
    centre = (lo + hi) / 2
    origins = centre + (rng.random((30, 3)) - 0.5) * np.minimum(hi - lo, 80.0)
    origins[:, 2] = np.abs(origins[:, 2]) + 1.0
    twins = FaceTwins(owner, v, t)
    hits = disagreements = facing = 0
    twinned = set()
    for origin in origins:
        got = built.first_hits(origin, targets)
        for target, name_index in zip(targets, got):
            delta = target - origin
            dist = float(np.linalg.norm(delta))
            hit = tree.ray_cast(Vector(origin), Vector(delta), dist * (1 + 1e-4) + 1e-4)
            expected = -1 if hit[2] is None else int(owner[hit[2]])
            hits += expected >= 0
            disagreements += expected != name_index
            if hit[2] is not None:  # the hit's normal faces the same way (inside_geometry counts back faces)
                new = built.tree.ray_cast(Vector(origin), Vector(delta), dist * (1 + 1e-4) + 1e-4)
                facing += (new[1].dot(Vector(delta)) > 0) != (hit[1].dot(Vector(delta)) > 0)
                other = twins.twin(np.array(hit[0]), hit[1], expected)
                if other >= 0:
                    twinned.add((names[expected], names[other]))
    assert hits > 0.5 * len(origins) * len(targets)
    assert disagreements == 0, f"{env}: {disagreements} of {len(origins) * len(targets)} rays disagree"
    assert facing == 0, f"{env}: {facing} hits face the other way"
    assert not twinned, f"{env}: faces on two objects share a plane and a place: {sorted(twinned)}"


def test_face_owner_names_each_objects_faces():
    rng = np.random.default_rng(4)
    pipeline.SceneCache().get(pipeline.plan_frame("rail_attachment", int(rng.integers(1000)), "random", 0))
    scene = bpy.context.scene
    built = raycast.build_scene_bvh(scene, bpy.context.evaluated_depsgraph_get())
    counts = np.bincount(built.face_owner, minlength=len(built.names))
    for name, count in zip(built.names, counts):
        obj = bpy.data.objects[name]
        evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
        mesh = evaluated.to_mesh()
        assert count == len(mesh.polygons), name
        evaluated.to_mesh_clear()
    assert built.face_count == counts.sum()
