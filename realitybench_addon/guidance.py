"""Suggest a Pose: move a failing camera to a nearby pose whose geometric terms pass.

The search scores poses with the same scoring as the live check (pipeline.check_camera) on the built
scene; `api.suggest_pose` is its entry point for the sidebar and headless scripts.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .core.errors import RealityBenchError


def suggest_pose(environment: str, seed: int = 0, index: int = 0, *, camera: Optional[str] = None,
                 stratum: str = "random", budget: int = 80) -> dict:
    """Move the camera to a nearby pose whose geometric terms pass: a greedy local search over moves
    towards / away from the target, orbits about it and height changes, re-aiming at the target after
    each move. Returns what changed (distance, orbit, height) and the before / after verdicts."""
    import math

    import bpy
    from mathutils import Matrix

    from .bl.measure import camera_capture
    from .bl.scene_data import scene_and_camera
    from .core.optics import look_at
    from .envs import registry
    from .pipeline import SHARED_CACHE, check_camera, plan_frame

    scene, cam = scene_and_camera(camera)
    spec = plan_frame(environment, seed, stratum, index)
    env = registry.get(environment)
    target = np.asarray(env.target_point(spec.plan, spec.target), float)
    capture = camera_capture(cam)
    focus_factor = capture.focus_factor if capture is not None else 1.0

    def place(position) -> None:
        cam.animation_data_clear()
        cam.matrix_world = Matrix(look_at(position, target).tolist())
        cam.data.dof.focus_distance = float(np.linalg.norm(position - target)) * focus_factor
        bpy.context.view_layer.update()

    def score(position):
        place(position)
        try:
            result = check_camera(spec, cam, render=False, cache=SHARED_CACHE, build=False)
        except LookupError as exc:
            raise RealityBenchError(str(exc)) from None
        geometric = [t for t in result["terms"] if t["kind"] == "geometric"]
        failing = [t for t in geometric if t["outcome"] in ("fail", "not_applicable")]
        return (-len(failing), -sum(1 for t in geometric if t["outcome"] == "gray")), result

    start = np.array(cam.matrix_world.translation)
    best_pos = start
    best, before = score(start)  # aiming at the target is the first, cheapest fix
    evaluations = 1
    while best[0] < 0 and evaluations < budget:
        offset = best_pos - target
        candidates = []
        for scale in (0.6, 0.8, 1.25):
            candidates.append(target + offset * scale)
        for angle in (-25, -10, 10, 25):
            a = math.radians(angle)
            rot = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
            candidates.append(target + rot @ offset)
        for dz in (-0.2, 0.2):
            candidates.append(best_pos + np.array([0.0, 0.0, dz]))
        improved = False
        for position in candidates:
            s, _ = score(position)
            evaluations += 1
            if s > best:
                best, best_pos, improved = s, position, True
            if evaluations >= budget:
                break
        if not improved:
            break
    best_score, after = score(best_pos)
    d0, d1 = np.linalg.norm(start - target), np.linalg.norm(best_pos - target)
    yaw = math.degrees(math.atan2(*(best_pos - target)[:2][::-1]) - math.atan2(*(start - target)[:2][::-1]))
    yaw = (yaw + 180) % 360 - 180
    return {"moved_m": float(np.linalg.norm(best_pos - start)), "closer_by_m": float(d0 - d1),
            "orbit_deg": float(yaw), "height_change_m": float(best_pos[2] - start[2]),
            "evaluations": evaluations, "before": before["verdict"], "after": after["verdict"],
            "failing_before": before["failing_terms"], "failing_after": after["failing_terms"],
            "geometric_pass": best_score[0] == 0}
