"""Sidebar panels: display only; every button runs an operator."""
from __future__ import annotations

import json
from typing import Optional

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


class _Sidebar:
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "RealityBench"


def _format_value(term: dict) -> str:
    value = term["value"]
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    unit = term["unit"]
    if unit == "fraction":
        return f"{value:.1%}" if value < 0.1 else f"{value:.0%}"
    if unit in ("weber", "luminance"):
        return f"{value:.3f}"
    return f"{value:.2f} {unit}"


def _format_threshold(term: dict) -> str:
    c, t = term["comparator"], term["threshold"]
    if c in ("is_true", "is_false"):
        return "yes" if c == "is_true" else "no"
    unit = "" if term["unit"] in ("fraction", "weber", "luminance") else f" {term['unit']}"
    if c == "between":
        return f"{t[0]:g}–{t[1]:g}{unit}"
    return f"{c} {t:g}{unit}"


def draw_terms(layout, terms: list[dict], hints: Optional[dict] = None) -> None:
    """Two lines a term (the sidebar is narrow): the term with its outcome icon, then value and threshold; a
    failing term with a hint from Suggest a Pose gets a third line, what to do."""
    hints = hints or {}
    col = layout.column(align=True)
    for term in terms:
        outcome = term["outcome"]
        icon = {"pass": "CHECKMARK", "fail": "CANCEL", "gray": "QUESTION", "needs_render": "RENDER_STILL",
                "not_applicable": "CANCEL"}[outcome]
        row = col.row(align=True)
        row.alert = outcome in ("fail", "not_applicable")
        row.label(text=term["label"], icon=icon)
        value = "needs a render" if outcome == "needs_render" else _format_value(term)
        detail = col.row(align=True)
        detail.alert = row.alert
        detail.label(text=f"      {value}   ({_format_threshold(term)})")
        if outcome in ("fail", "not_applicable", "gray") and term["name"] in hints:
            col.label(text=f"      → {hints[term['name']]}", icon="INFO")


class RB_PT_environment(_Sidebar, bpy.types.Panel):
    bl_label = "Environment"

    def draw(self, context):
        s = context.window_manager.realitybench
        layout = self.layout
        layout.prop(s, "environment", text="")
        row = layout.row(align=True)
        row.prop(s, "seed")
        row.prop(s, "index")
        row = layout.row(align=True)
        row.operator("realitybench.build_scene", icon="SCENE_DATA")
        row.operator("realitybench.randomize_scene", text="Randomize", icon="FILE_REFRESH")
        row = layout.row(align=True)
        row.operator("realitybench.randomize_camera", text="Randomize Pose", icon="CAMERA_DATA").what = "POSE"
        row.operator("realitybench.randomize_camera", text="Randomize Phone", icon="OUTLINER_OB_CAMERA").what = "PHONE"


class RB_PT_phone(_Sidebar, bpy.types.Panel):
    bl_label = "Phone Camera"

    def draw(self, context):
        layout = self.layout
        camera = context.scene.camera
        if camera is None or camera.type != "CAMERA":
            layout.label(text="No active camera", icon="INFO")
            return
        cam = camera.data
        col = layout.column(align=True)
        col.label(text=f"Camera: {camera.name}", icon="CAMERA_DATA")
        capture = json.loads(camera.get("realitybench_capture", "null") or "null")
        phone = json.loads(camera.get("realitybench_phone", "null") or "null")
        if phone and capture:
            lens = phone.get(capture["lens"]) or phone["main"]
            col.label(text=f"Lens: {capture['lens']} {lens['equivalent_focal_mm']:.0f} mm equiv., "
                           f"f/{lens['f_number']:.1f}")
            col.label(text=f"Sensor {lens['sensor_width_mm']:.1f} mm, zoom {capture['zoom']:.1f}x")
            col.label(text=f"{capture['orientation'].title()}, {capture['mode'].replace('_', ' ')}")
            col.label(text=f"Shutter 1/{1 / capture['shutter_s']:.0f} s")
        else:
            col.label(text="A hand-made camera: its own lens settings are measured")
        col.label(text=f"Focal length {cam.lens:.2f} mm")
        if cam.dof.use_dof:
            col.label(text=f"Focus: {cam.dof.focus_distance:.2f} m at f/{cam.dof.aperture_fstop:.1f}")


def draw_suggestion(layout, suggestion: dict) -> None:
    """What Suggest a Pose found (its camera is the frustum named RB_Suggested in the viewport)."""
    box = layout.box()
    if suggestion["fixed"]:
        box.label(text="Passes if you:", icon="CHECKMARK")
    elif suggestion["unfixable"]:
        box.label(text="No move fixes this frame", icon="ERROR")
    else:
        box.label(text="Still fails " + ", ".join(suggestion["failing_after"]), icon="ERROR")
    col = box.column(align=True)
    for hint in suggestion["hints"]:
        col.label(text="• " + hint)
    for term, why in suggestion["unfixable"].items():
        col.label(text=f"{term}: {why}"[:90])
    row = box.row(align=True)
    row.operator("realitybench.apply_suggestion", icon="CHECKMARK")
    row.operator("realitybench.dismiss_suggestion", icon="X")


class RB_PT_readouts(_Sidebar, bpy.types.Panel):
    bl_label = "Live Readouts"

    def draw(self, context):
        from .live import STATE

        layout = self.layout
        if STATE.key is None:
            layout.label(text="Build a scene to see its terms", icon="INFO")
            return
        if STATE.error:
            layout.label(text=STATE.error, icon="ERROR")
            return
        if STATE.result is None:
            layout.label(text="Computing…")
            return
        s = context.window_manager.realitybench
        suggestion = json.loads(s.suggestion) if s.suggestion else None
        draw_terms(layout, STATE.result["terms"], suggestion["term_hints"] if suggestion else None)
        layout.label(text=f"Geometric verdict: {STATE.result['verdict']}  ({STATE.compute_s * 1000:.0f} ms)")
        row = layout.row(align=True)
        row.operator("realitybench.check", icon="RENDER_STILL")
        row.operator("realitybench.suggest_pose", icon="VIEW_CAMERA")
        layout.prop(s, "suggest_render")
        if suggestion is not None:
            draw_suggestion(layout, suggestion)
        elif s.suggestion_undo:
            layout.operator("realitybench.undo_suggestion", text="Undo the suggested move", icon="LOOP_BACK")
        layout.prop(context.window_manager.realitybench, "show_overlay", text="Outline targets in the viewport")


class RB_PT_check(_Sidebar, bpy.types.Panel):
    bl_label = "Acceptability Check"

    @classmethod
    def poll(cls, context):
        return bool(context.window_manager.realitybench.last_check)

    def draw(self, context):
        result = json.loads(context.window_manager.realitybench.last_check)
        layout = self.layout
        box = layout.box()
        box.alert = result["verdict"] == "reject"
        box.label(text=f"Verdict: {result['verdict'].upper()}", icon="CHECKMARK" if result["verdict"] == "accept"
                  else "ERROR")
        if result["failing_terms"]:
            box.label(text="Failing: " + ", ".join(result["failing_terms"]))
        if result["gray_terms"]:
            box.label(text="Gray: " + ", ".join(result["gray_terms"]))
        if result["unscored_reason"]:
            box.label(text="Unscored: " + result["unscored_reason"])
        draw_terms(layout, result["terms"])
        col = layout.column(align=True)
        col.label(text="Ground truth:")
        for key, value in result["ground_truth"].items():
            col.label(text=f"  {key}: {value}")
        col.label(text="Prompt (first lines):")
        for line in result["prompt"].splitlines()[:4]:
            if line:
                col.label(text="  " + line[:70])


class RB_PT_tuning(_Sidebar, bpy.types.Panel):
    bl_label = "Thresholds"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        s = context.window_manager.realitybench
        layout = self.layout
        if not len(s.terms):
            layout.label(text="Build a scene to tune its thresholds", icon="INFO")
            return
        for item in s.terms:
            box = layout.box()
            row = box.row(align=True)
            row.label(text=f"{item.label} ({item.comparator} {item.unit})")
            row = box.row(align=True)
            row.prop(item, "threshold", text="")
            if item.comparator == "between":
                row.prop(item, "threshold_hi", text="")
            row.prop(item, "has_gray", text="Gray")
            if item.has_gray:
                row.prop(item, "gray_lo", text="")
                row.prop(item, "gray_hi", text="")
        row = layout.row(align=True)
        for action, icon in (("APPLY", "CHECKMARK"), ("SAVE", "FILE_TICK"), ("LOAD", "FILE_FOLDER"),
                             ("REVERT", "LOOP_BACK")):
            row.operator("realitybench.preset", text=action.title(), icon=icon).action = action
        layout.prop(s, "rescore_dir")
        layout.operator("realitybench.rescore_set", icon="FILE_REFRESH")
        if s.last_rescore:
            report = json.loads(s.last_rescore)
            layout.label(text=f"{report['flipped']} of {report['frames']} frames flip verdict")
        layout.operator("realitybench.rater_gray", icon="COMMUNITY")
        ratings = json.loads(s.last_ratings) if s.last_ratings else None
        if ratings and ratings["environment"] == s.environment:
            alpha = "n/a" if ratings["alpha"] is None else f"{ratings['alpha']:.2f}"
            scorer = ("n/a" if ratings["scorer_agreement"] is None
                      else f"{ratings['scorer_agreement']:.0%} of {ratings['scorer_frames']}")
            layout.label(text=f"{ratings['frames']} frames, {ratings['raters']} raters, alpha {alpha}")
            layout.label(text=f"Scorer vs majority (tuning): {scorer}")
            labels = {item.name: item.label for item in s.terms}
            for term, suggested in ratings["suggestions"].items():
                if suggested and term in labels:
                    row = layout.row(align=True)
                    lo, hi = suggested["gray"]
                    row.label(text=f"{labels[term]}: gray {lo:g}-{hi:g}")
                    row.operator("realitybench.use_gray", text="Use").term = term


class RB_PT_browser(_Sidebar, bpy.types.Panel):
    bl_label = "Frame Browser"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        from .live import STATE

        s = context.window_manager.realitybench
        layout = self.layout
        layout.prop(s, "browse_dir")
        row = layout.row(align=True)
        row.operator("realitybench.browse", text="", icon="TRIA_LEFT").step = -1
        row.operator("realitybench.browse", text="Show").step = 0
        row.operator("realitybench.browse", text="", icon="TRIA_RIGHT").step = 1
        if not s.browse_row:
            return
        stored = json.loads(s.browse_row)
        layout.label(text=f"{stored['position'] + 1}/{stored['count']}  {stored['frame_id']}")
        layout.label(text=f"Stored verdict: {stored['verdict']}")
        op = layout.operator("realitybench.browse", text="Rebuild Scene and Camera", icon="SCENE_DATA")
        op.step, op.rebuild = 0, True
        live_terms = {}
        if STATE.result is not None and STATE.result["frame_id"] == stored["frame_id"]:
            live_terms = {t["name"]: t for t in STATE.result["terms"]}
            layout.label(text=f"Live verdict: {STATE.result['verdict']}")
        col = layout.column(align=True)
        for name, term in stored["terms"].items():
            live = live_terms.get(name)
            now = f" | live {_format_value(live)}" if live else ""
            col.label(text=f"{term['label']}: {_format_value(term)}{now}")


class RB_PT_export(_Sidebar, bpy.types.Panel):
    bl_label = "Export"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        s = context.window_manager.realitybench
        layout = self.layout
        layout.prop(s, "export_environments")
        row = layout.row(align=True)
        row.prop(s, "export_random")
        row.prop(s, "export_positive")
        row = layout.row(align=True)
        row.prop(s, "export_resolution", text="")
        row.prop(s, "export_samples")
        layout.prop(s, "seed")
        layout.prop(s, "export_out")
        op = layout.operator("realitybench.export", icon="EXPORT")
        op.environments, op.random, op.positive = s.export_environments, s.export_random, s.export_positive
        op.resolution, op.samples, op.seed, op.out = s.export_resolution, s.export_samples, s.seed, s.export_out


class RB_PT_measure(_Sidebar, bpy.types.Panel):
    bl_label = "Measure Any Object"
    bl_options = {"DEFAULT_CLOSED"}

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


CLASSES = (RB_PT_environment, RB_PT_phone, RB_PT_readouts, RB_PT_check, RB_PT_tuning, RB_PT_browser, RB_PT_export,
           RB_PT_measure)
