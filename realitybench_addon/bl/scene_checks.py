"""Checks of a built scene's geometry that no single builder can make alone (`core.coplanar`)."""
from __future__ import annotations

import numpy as np

from ..core.coplanar import overlapping_tops

UP = 0.9999  # a face is horizontal and upward when its normal's z is above this


def upward_tops(scene, depsgraph) -> dict[str, list]:
    """(z, plan polygon) of every flat upward face of every rendered mesh, by object. A face at its
    object's lowest height is left out (an upward bottom cap lies under its own object, where no ray reaches)."""
    out = {}
    for obj in scene.objects:
        if obj.type != "MESH" or obj.hide_render or not getattr(obj, "visible_camera", True):
            continue
        if obj.instance_type != "NONE" and not obj.show_instancer_for_render:
            continue  # an instancer of grass tufts or leaf cards: its own triangles never render
        evaluated = obj.evaluated_get(depsgraph)
        mesh = evaluated.to_mesh()
        try:
            n = len(mesh.polygons)
            if not n:
                continue
            co = np.empty(len(mesh.vertices) * 3)
            mesh.vertices.foreach_get("co", co)
            world = np.array(obj.matrix_world)
            co = co.reshape(-1, 3) @ world[:3, :3].T + world[:3, 3]
            normal = np.empty(n * 3)
            mesh.polygons.foreach_get("normal", normal)
            normal = normal.reshape(-1, 3) @ np.linalg.inv(world[:3, :3])
            normal /= np.linalg.norm(normal, axis=1, keepdims=True) + 1e-12
            start, total = np.empty(n, int), np.empty(n, int)
            mesh.polygons.foreach_get("loop_start", start)
            mesh.polygons.foreach_get("loop_total", total)
            loop_vertex = np.empty(len(mesh.loops), int)
            mesh.loops.foreach_get("vertex_index", loop_vertex)
            flat_object = np.ptp(co[:, 2]) < 1e-6
            rows = []
            for i in np.nonzero(normal[:, 2] > UP)[0]:
                v = co[loop_vertex[start[i]:start[i] + total[i]]]
                if np.ptp(v[:, 2]) > 1e-6 or (not flat_object and v[0, 2] - co[:, 2].min() < 1e-6):
                    continue
                rows.append((float(v[0, 2]), v[:, :2].copy()))
            if rows:
                out[obj.name] = rows
        finally:
            evaluated.to_mesh_clear()
    return out


def coplanar_overlaps(scene, min_area_m2: float = 2e-3) -> list[tuple[str, str, float, float]]:
    """`core.coplanar.overlapping_tops` of the rendered meshes of `scene` as it is now."""
    import bpy

    return overlapping_tops(upward_tops(scene, bpy.context.evaluated_depsgraph_get()), min_area_m2)
