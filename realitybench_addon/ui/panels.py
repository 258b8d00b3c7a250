"""Sidebar panels: display only; every button runs an operator."""
from __future__ import annotations

import json
from pathlib import Path
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


PLAIN_UNITS = ("weber", "luminance", "bool", "")
GRAY_WHY = "unscored: raters split here"


def _bound(value: float, unit: str) -> str:
    """A threshold or range end in the unit the value is shown in (a fraction as a percentage)."""
    if unit == "fraction":
        return f"{value * 100:.4g}%"
    if unit in PLAIN_UNITS:
        return f"{value:g}"
    return f"{value:g} {unit}"


def _format_value(term: dict) -> str:
    value = term["value"]
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    unit = term["unit"]
    if unit == "fraction":
        return f"{value:.1%}" if value < 0.1 else f"{value:.0%}"
    if unit in PLAIN_UNITS:
        return f"{value:.3f}"
    return f"{value:.2f} {unit}"


def _format_threshold(term: dict) -> str:
    c, t, unit = term["comparator"], term["threshold"], term["unit"]
    if c in ("is_true", "is_false"):
        return "yes" if c == "is_true" else "no"
    if c == "between":
        return f"{_bound(t[0], unit)} – {_bound(t[1], unit)}"
    return f"{'≥' if c == '>=' else '≤'} {_bound(t, unit)}"


def _format_gray(term: dict) -> str:
    lo, hi = term["gray"]
    return f"gray {_bound(lo, term['unit'])} – {_bound(hi, term['unit'])}"


def term_labels(terms: list, names) -> str:
    """Term ids as the panel says them: their labels."""
    labels = {t["name"]: t.get("label") or t["name"] for t in terms}
    return ", ".join(labels.get(name, name) for name in names)


# What a line of the sidebar loses to margins: the panel's and a box's padding (px), and an icon (chars).
MARGIN_PX = 36
ICON_CHARS = 4


def wrap(text: str, context, indent: int = 0) -> list:
    """`text` as lines that fit the region's width (the sidebar is narrow; a label is cut, not wrapped). Sized
    for a label inside a box, the deepest the panels draw text, at 7 px a character at UI scale 1."""
    import textwrap

    region = getattr(context, "region", None)
    width = getattr(region, "width", 0) or 300
    view = getattr(getattr(context, "preferences", None), "view", None)
    scale = getattr(view, "ui_scale", 1.0) or 1.0
    chars = max(16, int((width - MARGIN_PX * scale) / (7.0 * scale)) - indent)
    return [line for para in text.splitlines() for line in (textwrap.wrap(para, chars) or [""])]


def wrapped_label(layout, context, text: str, *, max_lines: int = 0, indent: int = 0, icon: str = "NONE") -> None:
    """`text` wrapped to the width (an icon's room kept on every line); at most `max_lines` lines (then a Show
    button gives the whole text)."""
    lines = wrap(text, context, indent + (ICON_CHARS if icon != "NONE" else 0))
    col = layout.column(align=True)
    for k, line in enumerate(lines[:max_lines] if max_lines else lines):
        col.label(text=" " * indent + line, icon=icon if k == 0 else "NONE")


def show_button(layout, title: str, text: str) -> None:
    op = layout.operator("realitybench.show_text", text=f"Show {title}", icon="TEXT")
    op.title, op.text = title, text


def draw_terms(layout, terms: list[dict], hints: Optional[dict] = None) -> None:
    """Two lines a term (the sidebar is narrow): the term with its outcome icon, then value and what passes; a
    gray term its gray range and why; a failing term with a hint from Suggest a Pose what to do."""
    hints = hints or {}
    col = layout.column(align=True)
    for term in terms:
        outcome = term["outcome"]
        icon = {"pass": "CHECKMARK", "fail": "CANCEL", "gray": "QUESTION", "needs_render": "RENDER_STILL",
                "not_applicable": "CANCEL"}[outcome]
        row = col.row(align=True)
        row.alert = outcome in ("fail", "not_applicable")
        row.label(text=term["label"], icon=icon)
        value = "needs render" if outcome == "needs_render" else _format_value(term)
        detail = col.row(align=True)
        detail.alert = row.alert
        detail.label(text=f"    {value}  (pass {_format_threshold(term)})")
        if outcome == "gray" and term.get("gray"):
            col.label(text=f"    {_format_gray(term)}:")
            col.label(text=f"    {GRAY_WHY}")
        if outcome in ("fail", "not_applicable", "gray") and term["name"] in hints:
            col.label(text=f"    → {hints[term['name']]}", icon="INFO")


def draw_job(layout, settings) -> None:
    if settings.job_status:
        layout.label(text=f"{settings.job_status} running (Esc cancels)", icon="SORTTIME")


class RB_PT_environment(_Sidebar, bpy.types.Panel):
    bl_label = "Environment"

    def draw(self, context):
        s = context.window_manager.realitybench
        layout = self.layout
        layout.prop(s, "environment", text="")
        row = layout.row(align=True)
        row.prop(s, "seed")
        row.prop(s, "index")
        col = layout.column(align=True)
        col.operator("realitybench.build_scene", icon="SCENE_DATA")
        col.operator("realitybench.randomize_scene", text="Next Seed (Randomize)", icon="FILE_REFRESH")
        row = layout.row(align=True)
        row.label(text="New:")
        row.operator("realitybench.randomize_camera", text="Pose", icon="CAMERA_DATA").what = "POSE"
        row.operator("realitybench.randomize_camera", text="Phone", icon="OUTLINER_OB_CAMERA").what = "PHONE"
        layout.prop(s, "look_through")
        draw_job(layout, s)


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
            col.label(text=f"{capture['lens'].title()} lens: {lens['equivalent_focal_mm']:.0f} mm equiv.")
            col.label(text=f"f/{lens['f_number']:.1f}, sensor {lens['sensor_width_mm']:.1f} mm")
            col.label(text=f"Zoom {capture['zoom']:.1f}x, {capture['orientation']}")
            col.label(text=f"{capture['mode'].replace('_', ' ').capitalize()}, 1/{1 / capture['shutter_s']:.0f} s")
        else:
            wrapped_label(col, context, "A hand-made camera: its own lens settings are measured")
        col.label(text=f"Focal length {cam.lens:.2f} mm")
        if cam.dof.use_dof:
            col.label(text=f"Focus {cam.dof.focus_distance:.2f} m at f/{cam.dof.aperture_fstop:.1f}")


def draw_suggestion(layout, context, suggestion: dict, stale: str, terms: list) -> None:
    """What Suggest a Pose found (its camera is the frustum named RB_Suggested in the viewport); marked stale,
    and without Apply, when it was made for another frame."""
    box = layout.box()
    if stale:
        box.alert = True
        wrapped_label(box, context, f"Stale suggestion: {stale}", icon="ERROR")
    if suggestion["fixed"]:
        box.label(text="Passes if you:", icon="CHECKMARK")
    elif suggestion["unfixable"]:
        box.label(text="No move fixes this frame", icon="ERROR")
    else:
        box.label(text="Still fails:", icon="ERROR")
        wrapped_label(box, context, term_labels(terms, suggestion["failing_after"]), indent=2)
    for hint in suggestion["hints"]:
        wrapped_label(box, context, "• " + hint, indent=2)
    for term, why in suggestion["unfixable"].items():
        wrapped_label(box, context, f"{term_labels(terms, [term])}: {why}", indent=2)
    row = box.row(align=True)
    if not stale.startswith("made for"):  # Apply refuses another frame's suggestion anyway
        row.operator("realitybench.apply_suggestion", icon="CHECKMARK")
    row.operator("realitybench.dismiss_suggestion", icon="X")


class RB_PT_readouts(_Sidebar, bpy.types.Panel):
    bl_label = "Live Readouts"

    def draw(self, context):
        from . import operators, results
        from .live import STATE

        layout = self.layout
        if STATE.key is None:
            layout.label(text="Build a scene to see its terms", icon="INFO")
            return
        if STATE.error:
            wrapped_label(layout, context, STATE.error, icon="ERROR")
            return
        if STATE.result is None:
            layout.label(text="Computing…")
            return
        s = context.window_manager.realitybench
        suggestion = json.loads(s.suggestion) if s.suggestion else None
        stale = results.stale_reason(suggestion.get("key"), results.key_now(s)) if suggestion else ""
        draw_terms(layout, STATE.result["terms"], suggestion["term_hints"] if suggestion and not stale else None)
        layout.label(text=f"Geometric: {STATE.result['verdict']}  ({STATE.compute_s * 1000:.0f} ms)")
        col = layout.column(align=True)
        col.operator("realitybench.check", icon="RENDER_STILL")
        col.operator("realitybench.suggest_pose", icon="VIEW_CAMERA")
        layout.prop(s, "suggest_render")
        draw_job(layout, s)
        if suggestion is not None:
            draw_suggestion(layout, context, suggestion, stale, STATE.result["terms"])
        elif operators.undo_offered(context):
            layout.operator("realitybench.undo_suggestion", text="Undo the suggested move", icon="LOOP_BACK")
        layout.prop(s, "show_overlay", text="Outline targets")


class RB_PT_check(_Sidebar, bpy.types.Panel):
    bl_label = "Acceptability Check"

    @classmethod
    def poll(cls, context):
        return bool(context.window_manager.realitybench.last_check)

    def draw(self, context):
        from . import phone_link, results

        s = context.window_manager.realitybench
        result = json.loads(s.last_check)
        layout = self.layout
        stale = results.stale_reason(result.get("key"), results.key_now(s))
        if stale:
            warn = layout.box()
            warn.alert = True
            wrapped_label(warn, context, f"Stale: {stale}. Check again for this camera.", icon="ERROR")
            warn.operator("realitybench.check", text="Check Again", icon="RENDER_STILL")
        body = layout.column()
        body.enabled = not stale  # shown greyed: what it was, not what is
        draw_check(body, context, result)
        draw_phone_view = phone_link.function("draw_phone_view")
        if draw_phone_view is not None:
            box = layout.box()
            box.label(text="Phone view", icon="IMAGE_DATA")
            draw_phone_view(box, context)


def draw_check(layout, context, result: dict) -> None:
    box = layout.box()
    box.alert = result["verdict"] == "reject"
    box.label(text=f"Verdict: {result['verdict'].upper()}", icon="CHECKMARK" if result["verdict"] == "accept"
              else "ERROR")
    if result["failing_terms"]:
        wrapped_label(box, context, "Failing: " + term_labels(result["terms"], result["failing_terms"]))
    if result["gray_terms"]:
        wrapped_label(box, context, "Gray: " + term_labels(result["terms"], result["gray_terms"]))
    if result["unscored_reason"]:
        wrapped_label(box, context, "Unscored: " + result["unscored_reason"])
    draw_terms(layout, result["terms"])
    col = layout.column(align=True)
    col.label(text="Ground truth:")
    for key, value in result["ground_truth"].items():
        wrapped_label(col, context, f"{key.replace('_', ' ')}: {value}", indent=2)
    col.label(text="Prompt:")
    wrapped_label(col, context, result["prompt"], max_lines=6, indent=2)
    show_button(layout, "Whole Prompt", result["prompt"])


def _range_text(item) -> str:
    if item.range_lo == float("-inf"):
        return ""
    return f"allowed {_bound(item.range_lo, item.unit)} – {_bound(item.range_hi, item.unit)}"


def draw_term_setting(layout, context, item) -> None:
    """One term's threshold editor: labelled fields, the allowed range, a fraction's percentage, and why a
    field is refused (or cannot change)."""
    box = layout.box()
    what = {">=": "pass at or above", "<=": "pass at or below", "between": "pass between"}.get(item.comparator, "")
    unit = "" if item.unit in PLAIN_UNITS else item.unit
    box.label(text=item.label)
    col = box.column(align=True)
    # the field's label on its own row: beside a number it is cut at the default sidebar width
    col.label(text=f"{what.capitalize()}{f' ({unit})' if unit else ''}:")
    if item.fixed:
        field = col.row()
        field.enabled = False
        field.prop(item, "threshold", text="")
        wrapped_label(box, context, f"Fixed: {item.fixed}", icon="LOCKED")
        return
    col.prop(item, "threshold", text="")
    if item.comparator == "between":
        col.prop(item, "threshold_hi", text="and")
    if item.unit == "fraction":
        shown = f"{item.threshold:.1%}" + (f" – {item.threshold_hi:.1%}" if item.comparator == "between" else "")
        col.label(text=f"  = {shown}")
    col.prop(item, "has_gray", text="Gray range (unscored)")
    if item.has_gray:
        col.prop(item, "gray_lo", text="Gray from")
        col.prop(item, "gray_hi", text="Gray to")
    if _range_text(item):
        col.label(text=f"  {_range_text(item)}")
    if item.error:
        err = box.column(align=True)
        err.alert = True
        wrapped_label(err, context, item.error, icon="ERROR")
        wrapped_label(err, context, "The readouts keep the last valid value")


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
            draw_term_setting(layout, context, item)
        grid = layout.grid_flow(columns=2, align=True)
        for action, icon in (("APPLY", "CHECKMARK"), ("SAVE", "FILE_TICK"), ("LOAD", "FILE_FOLDER"),
                             ("REVERT", "LOOP_BACK")):
            grid.operator("realitybench.preset", text=action.title(), icon=icon).action = action
        draw_rescore(layout, context, s)
        draw_ratings(layout, context, s)


def draw_rescore(layout, context, s) -> None:
    layout.prop(s, "rescore_dir")
    layout.operator("realitybench.rescore_set", icon="FILE_REFRESH")
    if not s.last_rescore:
        return
    report = json.loads(s.last_rescore)
    layout.label(text=f"{report['flipped']} of {report['frames']} frames flip verdict")
    col = layout.column(align=True)
    for flip in report.get("flips", []):
        col.label(text=f"{flip['frame_id']}: {flip['from']} → {flip['to']}")
    if report["flipped"] > len(report.get("flips", [])):
        col.label(text=f"… and {report['flipped'] - len(report['flips'])} more")


def draw_ratings(layout, context, s) -> None:
    layout.operator("realitybench.rater_gray", icon="COMMUNITY")
    ratings = json.loads(s.last_ratings) if s.last_ratings else None
    if not ratings or ratings["environment"] != s.environment:
        return
    alpha = "n/a" if ratings["alpha"] is None else f"{ratings['alpha']:.2f}"
    scorer = ("n/a" if ratings["scorer_agreement"] is None
              else f"{ratings['scorer_agreement']:.0%} of {ratings['scorer_frames']}")
    layout.label(text=f"{ratings['frames']} frames, {ratings['raters']} raters, alpha {alpha}")
    layout.label(text=f"Scorer vs majority (tuning): {scorer}")
    items = {item.name: item for item in s.terms}
    for term, suggested in ratings["suggestions"].items():
        if suggested and term in items:
            row = layout.row(align=True)
            lo, hi = suggested["gray"]
            row.label(text=f"{items[term].label}: gray {_bound(lo, items[term].unit)}–{_bound(hi, items[term].unit)}")
            row.operator("realitybench.use_gray", text="Use").term = term


class RB_PT_browser(_Sidebar, bpy.types.Panel):
    bl_label = "Frame Browser"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        from . import phone_link
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
        thumbnail = phone_link.function("draw_set_thumbnail")
        if thumbnail is not None and stored.get("file_name"):
            thumbnail(layout, context, str(Path(bpy.path.abspath(s.browse_dir)) / stored["file_name"]))
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
            col.label(text=f"{term['label']}: {_format_value(term)}")
            if live:
                col.label(text=f"      live {_format_value(live)}")


class RB_PT_export(_Sidebar, bpy.types.Panel):
    bl_label = "Export"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        from . import capabilities

        s = context.window_manager.realitybench
        layout = self.layout
        layout.prop(s, "export_environments")
        col = layout.column(align=True)
        col.prop(s, "export_random", text="Random frames")
        col.prop(s, "export_positive", text="Positive frames")
        col.prop(s, "export_seed")
        col = layout.column(align=True)
        col.prop(s, "export_resolution")
        col.prop(s, "export_samples")
        draw_render_options(layout, context, s)
        layout.prop(s, "export_out")
        op = layout.operator("realitybench.export", icon="EXPORT")
        op.environments, op.random, op.positive = s.export_environments, s.export_random, s.export_positive
        op.resolution, op.samples, op.seed, op.out = s.export_resolution, s.export_samples, s.export_seed, s.export_out
        op.denoise, op.device = capabilities.denoise(s), capabilities.device(s)


def draw_render_options(layout, context, s) -> None:
    """Denoise and Device: offered as this Blender can render (Export, Check and Suggest use them)."""
    from . import capabilities

    if capabilities.has_denoiser():
        layout.prop(s, "denoise")
    else:
        row = layout.row()
        row.enabled = False
        row.label(text="Denoise: not available", icon="CHECKBOX_DEHLT")
        wrapped_label(layout, context, capabilities.NO_DENOISER, indent=2)
    layout.prop(s, "device")


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
