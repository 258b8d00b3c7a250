"""The optional viewport overlay: the frame's targets outlined (bounding boxes) in the colour of the
live verdict, and the verdict written in the corner. Draw code only reads the live cache."""
from __future__ import annotations

import bpy

from .live import STATE

COLORS = {"accept": (0.2, 0.9, 0.3, 1.0), "pending": (0.95, 0.8, 0.2, 1.0), "gray": (0.7, 0.7, 0.7, 1.0),
          "unscored": (0.3, 0.6, 1.0, 1.0), "reject": (1.0, 0.25, 0.2, 1.0)}
_EDGES = [(0, 1), (1, 3), (3, 2), (2, 0), (4, 5), (5, 7), (7, 6), (6, 4), (0, 4), (1, 5), (2, 6), (3, 7)]
_HANDLES = []


def _enabled() -> bool:
    settings = getattr(bpy.context.window_manager, "realitybench", None)
    return bool(settings and settings.show_overlay and STATE.result)


def draw_targets() -> None:
    if not _enabled():
        return
    from gpu_extras.batch import batch_for_shader
    from mathutils import Vector

    from ..bl import compat

    coords = []
    for name in STATE.result.get("targets", []):
        obj = bpy.data.objects.get(name)
        if obj is None:
            continue
        corners = [obj.matrix_world @ Vector(c) for c in obj.bound_box]
        # bound_box order: x-, y-, z- first; reorder to (x, y, z) bits for the edge list above
        ordered = [corners[i] for i in (0, 4, 3, 7, 1, 5, 2, 6)]
        coords += [ordered[i][:] for edge in _EDGES for i in edge]
    if not coords:
        return
    shader = compat.uniform_color_shader()
    batch = batch_for_shader(shader, "LINES", {"pos": coords})
    shader.bind()
    shader.uniform_float("color", COLORS.get(STATE.result["verdict"], (1, 1, 1, 1)))
    batch.draw(shader)


def draw_verdict() -> None:
    if not _enabled():
        return
    import blf

    result = STATE.result
    failing = ", ".join(result["failing_terms"][:3])
    blf.size(0, 16) if bpy.app.version >= (4, 0, 0) else blf.size(0, 16, 72)
    blf.color(0, *COLORS.get(result["verdict"], (1, 1, 1, 1)))
    blf.position(0, 20, 60, 0)
    blf.draw(0, f"RealityBench: {result['verdict'].upper()}" + (f"  failing: {failing}" if failing else ""))


def register() -> None:
    _HANDLES.append(bpy.types.SpaceView3D.draw_handler_add(draw_targets, (), "WINDOW", "POST_VIEW"))
    _HANDLES.append(bpy.types.SpaceView3D.draw_handler_add(draw_verdict, (), "WINDOW", "POST_PIXEL"))


def unregister() -> None:
    while _HANDLES:
        bpy.types.SpaceView3D.draw_handler_remove(_HANDLES.pop(), "WINDOW")
