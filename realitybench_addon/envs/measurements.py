"""The measurements every environment shares: a target's visibility, a point's, and blur at a point.

Each reads the frame's camera through `FrameContext.pinhole()` (one pinhole model per frame and
render size) and Blender's ray casts through bl/measure.py. Environment modules combine these into
their own terms; nothing here knows a particular scene.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ..core import geometry
from .base import FrameContext


def group_measurements(ctx: FrameContext, names: list[str], n_samples: int = 1500, own: Iterable[str] = ()) -> dict:
    """in-frame, unoccluded, seen and bbox fractions of a target made of the objects `names`, for the
    frame's camera. A ray that first meets one of `own` (the surface the target is part of, e.g. the
    panel around a dent) is not blocked."""
    import bpy

    from ..bl.measure import sample_target, visibility

    depsgraph = bpy.context.evaluated_depsgraph_get()
    camera = ctx.pinhole()
    points, _, _ = sample_target(names, depsgraph, n_samples)
    in_frame = camera.in_frame(points)
    visible = visibility(ctx.scene, camera, points, list(names) + list(own), depsgraph)
    return {"in_frame": float(in_frame.mean()), "unoccluded": float(visible.mean()),
            "seen": float((in_frame & visible).mean()),  # in frame and not hidden: what the photo shows of it
            "bbox": geometry.bbox_fraction(camera, points), "camera": camera}


def point_visibility(ctx: FrameContext, points_world: np.ndarray, names: list[str]) -> np.ndarray:
    """Per point: not blocked by anything but the target's own parts `names`."""
    from ..bl.measure import visibility

    return visibility(ctx.scene, ctx.pinhole(), np.atleast_2d(points_world), names)


def blur_at(ctx: FrameContext, point_world) -> float:
    """Defocus plus motion blur (px) at a world point, for the frame's phone capture."""
    from ..bl.measure import blur_for_camera, camera_capture

    return blur_for_camera(ctx.camera, ctx.scene, ctx.pinhole(), np.asarray(point_world, float),
                           camera_capture(ctx.camera)).total_px
