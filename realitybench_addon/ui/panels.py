"""Sidebar panels: display only; every button runs an operator."""
from __future__ import annotations

import json

import bpy

READOUTS = (
    ("in_frame_fraction", "In frame", "{:.0%}"),
    ("unoccluded_fraction", "Unoccluded", "{:.0%}"),
    ("bbox_fraction", "BBox of frame", "{:.1%}"),
    ("view_angle_deg", "View angle", "{:.1f}°"),
    ("distance_m", "Distance", "{:.2f} m"),
    ("px_per_unit", "Px per unit", "{:.1f} px"),
    ("blur_at_target_px", "Blur at target", "{:.2f} px"),
    ("weber_contrast", "Weber contrast", "{:.2f}"),
    ("saturated_fraction", "Saturated", "{:.0%}"),
)


class RB_PT_measure(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "RealityBench"
    bl_label = "Measure"

    def draw(self, context):
        settings = context.window_manager.realitybench
        layout = self.layout
        layout.operator("realitybench.demo_scene", icon="SCENE_DATA")
        layout.prop(settings, "target")
        row = layout.row(align=True)
        row.prop(settings, "unit_length_m")
        row.prop(settings, "axis", text="")
        row = layout.row(align=True)
        row.operator("realitybench.measure", icon="CAMERA_DATA").render = False
        row.operator("realitybench.measure", text="With Render", icon="RENDER_STILL").render = True
        if not settings.last_result:
            return
        result = json.loads(settings.last_result)
        col = layout.column(align=True)
        for key, label, fmt in READOUTS:
            value = result.get(key)
            if value is not None:
                split = col.split(factor=0.55)
                split.label(text=label)
                split.label(text=fmt.format(value))


CLASSES = (RB_PT_measure,)
