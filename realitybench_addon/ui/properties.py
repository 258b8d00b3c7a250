"""Add-on properties: what the sidebar edits, stored on the window manager (not saved in files)."""
from __future__ import annotations

import bpy


def _term_edited(self, context):
    """Readouts and verdict follow an edit at once: each valid field counts, an invalid one keeps its last
    valid value and shows why under it (the term, the field, the allowed range)."""
    from . import live, tuning

    settings = context.window_manager.realitybench
    if tuning.filling() or not live.STATE.key:
        return
    live.STATE.preset = tuning.edited_leniently(settings, tuning.shipped(settings.environment))
    live.refresh()


THRESHOLD_TIP = ("The term's threshold, in the unit shown above it (fractions 0-1, shown as a percentage beside "
                 "it). The allowed range is shown under the term; a value outside it is refused there with a "
                 "message, and the readouts keep the last valid value")
GRAY_TIP = ("Values between Gray from and Gray to are unscored (gray), not failing: where raters split. The range "
            "must lie on the failing side of the threshold, within the term's allowed range")


class RB_TermSetting(bpy.types.PropertyGroup):
    """One term's threshold and gray range, as edited in the sidebar."""

    label: bpy.props.StringProperty()
    unit: bpy.props.StringProperty()
    comparator: bpy.props.StringProperty()
    threshold: bpy.props.FloatProperty(name="Threshold", precision=3, update=_term_edited, description=THRESHOLD_TIP)
    threshold_hi: bpy.props.FloatProperty(name="Upper", precision=3, update=_term_edited,
                                          description="The upper end of a 'between' threshold. " + THRESHOLD_TIP)
    has_gray: bpy.props.BoolProperty(name="Gray", description="Values in the gray range are unscored, not failing",
                                     update=_term_edited)
    gray_lo: bpy.props.FloatProperty(name="Gray from", precision=3, update=_term_edited, description=GRAY_TIP)
    gray_hi: bpy.props.FloatProperty(name="Gray to", precision=3, update=_term_edited, description=GRAY_TIP)
    range_lo: bpy.props.FloatProperty(name="Allowed from", description="The lowest value the term allows")
    range_hi: bpy.props.FloatProperty(name="Allowed to", description="The highest value the term allows")
    fixed: bpy.props.StringProperty(name="Fixed", description="Why this term cannot be tuned here ('' if it can)")
    error: bpy.props.StringProperty(name="Error", description="Why the last edit of this term was refused")


def _device_items(self, context):
    from . import capabilities

    return capabilities.device_items(self, context)


def _environment_items(self, context):
    from .. import api

    return [(name, name, f"The {name} environment") for name in api.environments()]


class RB_MeasureSettings(bpy.types.PropertyGroup):
    environment: bpy.props.EnumProperty(name="Environment", items=_environment_items,
                                        description="The environment to build")
    seed: bpy.props.IntProperty(name="Seed", default=0, min=0, description="Set seed")
    index: bpy.props.IntProperty(name="Frame", default=0, min=0,
                                 description="Frame index: frames of one scene share it, each with its own pose")
    stratum: bpy.props.EnumProperty(name="Stratum", items=[("random", "Random", ""), ("positive", "Positive", "")],
                                    default="random")
    browse_dir: bpy.props.StringProperty(name="Set", subtype="DIR_PATH", description="An exported set to browse")
    browse_position: bpy.props.IntProperty(name="Position", default=0, min=0)
    browse_row: bpy.props.StringProperty(name="Browsed frame", description="JSON of the browsed frame's stored row")
    export_environments: bpy.props.StringProperty(name="Environments", default="all",
                                                  description="ENV[,ENV...] or all")
    export_random: bpy.props.IntProperty(name="Random", default=100, min=0, description="Random frames per environment")
    export_positive: bpy.props.IntProperty(name="Positive", default=50, min=0,
                                           description="Scorer-accepted frames where random ones are rarely acceptable")
    export_resolution: bpy.props.StringProperty(name="Resolution", default="1600x1200")
    export_samples: bpy.props.IntProperty(name="Samples", default=16, min=1)
    export_out: bpy.props.StringProperty(name="Output", subtype="DIR_PATH")
    export_seed: bpy.props.IntProperty(name="Set seed", default=0, min=0,
                                       description="The exported set's seed (its own, not the scene's Seed above)")
    denoise: bpy.props.BoolProperty(
        name="Denoise", default=True,
        description="Denoise renders with OpenImageDenoise, as a default export does (Export, Check, Suggest). "
                    "Where this Blender has no OpenImageDenoise, renders are not denoised")
    device: bpy.props.EnumProperty(name="Device", items=_device_items,
                                   description="Where Cycles renders (Export, Check): CPU, or a GPU where one is found")
    look_through: bpy.props.BoolProperty(
        name="Look through the phone", default=True,
        description="After Build Scene and Randomize, set the 3D view to the phone camera's view")
    job_status: bpy.props.StringProperty(name="Running", description="The background Check or Suggest, if any")
    show_overlay: bpy.props.BoolProperty(name="Overlay", default=False,
                                         description="Outline the targets in the viewport and write the verdict")
    draw_count: bpy.props.IntProperty(name="Draws", default=0, min=0,
                                      description="How many times the camera was redrawn (numbers the draws)")
    last_check: bpy.props.StringProperty(name="Last check", description="JSON of the last acceptability check")
    suggestion: bpy.props.StringProperty(name="Suggestion", description="JSON of the last Suggest a Pose")
    suggest_render: bpy.props.BoolProperty(
        name="Confirm with a render", default=True,
        description="Suggest a Pose confirms the image terms (contrast, glare, pixel counts) with a quick render: "
                    "seconds to a minute; off, it answers for the geometric terms alone at once")
    suggestion_undo: bpy.props.StringProperty(name="Camera before Apply",
                                              description="JSON of the camera as it was before Apply (for Undo)")
    terms: bpy.props.CollectionProperty(type=RB_TermSetting)
    rescore_dir: bpy.props.StringProperty(name="Set", subtype="DIR_PATH",
                                          description="An exported set to rescore with the edited thresholds")
    last_rescore: bpy.props.StringProperty(name="Last rescore")
    last_ratings: bpy.props.StringProperty(name="Last ratings", description="JSON: rater agreement and gray "
                                                                            "suggestions for the environment")
    target: bpy.props.StringProperty(name="Target", description="Object to measure (several: comma-separated)")
    unit_length_m: bpy.props.FloatProperty(name="Unit length", description="Length whose pixel span is reported",
                                           default=0.01, min=1e-5, soft_max=1.0, unit="LENGTH", precision=4)
    axis: bpy.props.EnumProperty(name="Axis", items=[("x", "X", ""), ("y", "Y", ""), ("z", "Z", "")], default="y")
    last_result: bpy.props.StringProperty(name="Last result", description="JSON of the last measurement")


CLASSES = (RB_TermSetting, RB_MeasureSettings)


def attach():
    bpy.types.WindowManager.realitybench = bpy.props.PointerProperty(type=RB_MeasureSettings)


def detach():
    if hasattr(bpy.types.WindowManager, "realitybench"):
        del bpy.types.WindowManager.realitybench
