"""Operators: thin wrappers over `api` (the same functions headless scripts call)."""
from __future__ import annotations

import json
import math

import bpy

from .. import api


def _json(data) -> str:
    def clean(v):
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [clean(x) for x in v]
        return None if isinstance(v, float) and not math.isfinite(v) else v
    return json.dumps(clean(data))


class RB_OT_measure(bpy.types.Operator):
    """Measure the target's geometric terms from the active camera"""

    bl_idname = "realitybench.measure"
    bl_label = "Measure Target"
    bl_options = {"REGISTER"}

    target: bpy.props.StringProperty(name="Target", description="Object(s) to measure, comma-separated; "
                                     "empty: the sidebar's target")
    camera: bpy.props.StringProperty(name="Camera", description="Camera object; empty: the scene camera")
    render: bpy.props.BoolProperty(name="Render", description="Also render and compute the image terms", default=False)

    def execute(self, context):
        settings = context.window_manager.realitybench
        target = self.target or settings.target
        names = [n.strip() for n in target.split(",") if n.strip()]
        if not names:
            self.report({"ERROR"}, "No target: name the object to measure")
            return {"CANCELLED"}
        try:
            result = api.measure(names, self.camera or None, unit_length_m=settings.unit_length_m, axis=settings.axis,
                                 render=self.render)
        except api.RealityBenchError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        settings.last_result = _json(result)
        self.report({"INFO"}, f"{', '.join(names)}: in frame {result['in_frame_fraction']:.0%}, "
                              f"unoccluded {result['unoccluded_fraction']:.0%}, view angle {result['view_angle_deg']:.1f} deg")
        return {"FINISHED"}


class RB_OT_demo_scene(bpy.types.Operator):
    """Replace the current scene with the demo scene (a label on a wall, an occluder and a cable)"""

    bl_idname = "realitybench.demo_scene"
    bl_label = "Build Demo Scene"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        from ..bl.analytic import demo_scene
        from ..bl.camera import ensure_camera, look_at
        from mathutils import Matrix

        scene = demo_scene()
        cam = ensure_camera(scene)
        cam.matrix_world = Matrix(look_at((0.2, -0.8, 1.6), (0.0, 0.0, 1.5)).tolist())
        cam.data.lens = 26.0
        bpy.context.window_manager.realitybench.target = "Label"
        self.report({"INFO"}, "Demo scene built; target 'Label'")
        return {"FINISHED"}


CLASSES = (RB_OT_measure, RB_OT_demo_scene)
