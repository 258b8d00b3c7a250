"""The worker in the scene (bpy): applies a turn's actions where a worker can be and renders the new photo.

Where a worker can be is the environment's `pose_feasible` (on the roof, in the lot, never inside the
building) and Blender's check that the phone is not inside geometry, as Suggest a Pose searches; the moves
themselves are pure (actions.py). The photo is made by `pipeline.render_and_measure`, the export's one path:
the frame's spec with the worker's pose and capture, at the episode's long side and the run's render
settings, scored under the shipped preset.
"""
from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Optional

import numpy as np

from .actions import WorkerState, apply_actions


def frame_spec(episode: dict):
    from ..pipeline import plan_frame

    return plan_frame(episode["environment"], episode["set_seed"], episode["stratum"], episode["index"])


def feasible_function(spec):
    """position -> why a worker cannot hold the phone there (None: they can), in the frame's built scene."""
    import bpy

    from ..bl.raycast import inside_geometry
    from ..envs import registry
    from ..pipeline import SHARED_CACHE

    env = registry.get(spec.environment)
    SHARED_CACHE.get(spec)
    scene = bpy.context.scene

    def feasible(position) -> Optional[str]:
        reason = env.pose_feasible(spec.plan, spec.target, np.asarray(position, float))
        if reason is None and inside_geometry(scene, np.asarray(position, float)):
            reason = "inside geometry"
        return reason
    return feasible


def move(episode: dict, state: WorkerState, actions) -> tuple[WorkerState, list, float]:
    """A reply's actions applied in the episode's scene, each clamped to where a worker can be."""
    spec = frame_spec(episode)
    return apply_actions(state, actions, feasible_function(spec), spec.phone)


def render(episode: dict, state: WorkerState, settings, long_side_px: int, device: str = "cpu") -> dict:
    """The photo the worker takes in `state`, made and scored as the export makes a frame. Returns its JPEG bytes,
    sha256, verdict, failing terms and timings."""
    from ..envs.base import FieldPose
    from ..pipeline import render_and_measure

    spec = frame_spec(episode)
    position, aim, roll = state.pose()
    pose = FieldPose(tuple(float(v) for v in position), tuple(float(v) for v in aim), float(roll), spec.pose.posture)
    result = render_and_measure(replace(spec, pose=pose, capture=state.capture), settings,
                                long_side_px=long_side_px, device=device)
    record = result.frame
    verdict = record.verdict.value if hasattr(record.verdict, "value") else str(record.verdict)
    return {"jpeg": result.jpeg, "sha256": hashlib.sha256(result.jpeg).hexdigest(), "verdict": verdict,
            "accepted": verdict == "accept", "failing_terms": list(record.failing_terms),
            "gray_terms": list(record.gray_terms), "discard_reason": result.discard_reason,
            "render_s": round(float(result.timings.get("render_s", 0.0)), 3)}
