"""Add-on properties: what the sidebar edits, stored on the window manager (not saved in files)."""
from __future__ import annotations

import bpy


class RB_MeasureSettings(bpy.types.PropertyGroup):
    target: bpy.props.StringProperty(name="Target", description="Object to measure (several: comma-separated)")
    unit_length_m: bpy.props.FloatProperty(name="Unit length", description="Length whose pixel span is reported",
                                           default=0.01, min=1e-5, soft_max=1.0, unit="LENGTH", precision=4)
    axis: bpy.props.EnumProperty(name="Axis", items=[("x", "X", ""), ("y", "Y", ""), ("z", "Z", "")], default="y")
    last_result: bpy.props.StringProperty(name="Last result", description="JSON of the last measurement")


CLASSES = (RB_MeasureSettings,)


def attach():
    bpy.types.WindowManager.realitybench = bpy.props.PointerProperty(type=RB_MeasureSettings)


def detach():
    if hasattr(bpy.types.WindowManager, "realitybench"):
        del bpy.types.WindowManager.realitybench
