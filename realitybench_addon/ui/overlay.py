"""The optional viewport overlay: the frame's targets outlined (bounding boxes) in the colour of the
live verdict, and the verdict with the failing terms' labels written in the corner, light text with a shadow
on a dark box (legible on the light grey world). Draw code only reads the live cache."""
from __future__ import annotations

import bpy

from .live import STATE

COLORS = {"accept": (0.2, 0.9, 0.3, 1.0), "pending": (0.95, 0.8, 0.2, 1.0), "gray": (0.7, 0.7, 0.7, 1.0),
          "unscored": (0.3, 0.6, 1.0, 1.0), "reject": (1.0, 0.25, 0.2, 1.0)}
# the corner text is drawn on a dark backdrop, in lighter tints of the verdict colours
TEXT_COLORS = {"accept": (0.45, 1.0, 0.5, 1.0), "pending": (1.0, 0.88, 0.35, 1.0), "gray": (0.85, 0.85, 0.85, 1.0),
               "unscored": (0.55, 0.78, 1.0, 1.0), "reject": (1.0, 0.55, 0.5, 1.0)}
BACKDROP = (0.0, 0.0, 0.0, 0.65)
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


def verdict_text(result: dict, most: int = 3) -> str:
    """The corner line: the verdict and the failing terms by their labels (as the sidebar names them)."""
    labels = {term["name"]: term.get("label") or term["name"] for term in result.get("terms", ())}
    failing = [labels.get(name, name) for name in result.get("failing_terms", ())]
    text = f"RealityBench: {result['verdict'].upper()}"
    if failing:
        more = f" (+{len(failing) - most} more)" if len(failing) > most else ""
        text += "  failing: " + ", ".join(failing[:most]) + more
    return text


def _backdrop(x: float, y: float, w: float, h: float) -> None:
    """A dark translucent box under the text: readable on the light grey world and on bright objects."""
    import gpu
    from gpu_extras.batch import batch_for_shader

    from ..bl import compat

    shader = compat.uniform_color_shader()
    coords = [(x, y, 0.0), (x + w, y, 0.0), (x + w, y + h, 0.0), (x, y + h, 0.0)]
    batch = batch_for_shader(shader, "TRIS", {"pos": coords}, indices=((0, 1, 2), (0, 2, 3)))
    gpu.state.blend_set("ALPHA")
    shader.bind()
    shader.uniform_float("color", BACKDROP)
    batch.draw(shader)
    gpu.state.blend_set("NONE")


def draw_verdict() -> None:
    if not _enabled():
        return
    import blf

    result = STATE.result
    text = verdict_text(result)
    blf.size(0, 16) if bpy.app.version >= (4, 0, 0) else blf.size(0, 16, 72)
    width, height = blf.dimensions(0, text)
    pad = 6
    _backdrop(20 - pad, 60 - pad, width + 2 * pad, height + 2 * pad)
    blf.enable(0, blf.SHADOW)
    blf.shadow(0, 3, 0.0, 0.0, 0.0, 1.0)
    blf.shadow_offset(0, 1, -1)
    blf.color(0, *TEXT_COLORS.get(result["verdict"], (1, 1, 1, 1)))
    blf.position(0, 20, 60, 0)
    blf.draw(0, text)
    blf.disable(0, blf.SHADOW)


def register() -> None:
    _HANDLES.append(bpy.types.SpaceView3D.draw_handler_add(draw_targets, (), "WINDOW", "POST_VIEW"))
    _HANDLES.append(bpy.types.SpaceView3D.draw_handler_add(draw_verdict, (), "WINDOW", "POST_PIXEL"))


def unregister() -> None:
    while _HANDLES:
        bpy.types.SpaceView3D.draw_handler_remove(_HANDLES.pop(), "WINDOW")
