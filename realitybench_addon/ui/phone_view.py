"""The "Phone view": what the phone saw at the last render (the JPEG as the phone saved it) with the target mask
and the failing terms' regions drawn on it, in the sidebar and in an Image Editor; thumbnails of an exported
set's JPEGs for Browse Set.

Public interface (the sidebar's operators and panels call these):

- `record_render(image_path, mask_path, failing_terms, caption=...)` after a render: loads the JPEG and the
  target mask PNG as Blender images ("RealityBench Phone Frame", "RealityBench Target Mask") and composes
  "RealityBench Phone View" (`core.phone_view.compose`). `failing_terms` holds term ids, or mappings
  {"name": id, "label": shown name, "region": "target" or a mask PNG's path} for terms that fail somewhere.
- `clear_phone_view()` when the frame it showed no longer stands (another scene, a moved camera).
- `draw_phone_view(layout, context)`: the composed frame at the panel's width, its legend, and "Open in
  Image Editor" (`realitybench.open_phone_view`).
- `draw_set_thumbnail(layout, context, jpeg_path)` / `load_thumbnail(jpeg_path)`: an exported JPEG's thumbnail.

The pictures are made by `api.phone_view` and `api.picture_preview`. Previews are made there, not by Blender's
preview job, so they exist at once, also headless, and follow pixels written from Python. Draw code never
loads or writes data: a thumbnail not loaded yet is loaded by a one-shot timer.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Iterable, Optional

import bpy

from .. import api

VIEW_IMAGE = "RealityBench Phone View"
FRAME_IMAGE = "RealityBench Phone Frame"
MASK_IMAGE = "RealityBench Target Mask"
NO_VIEW = "No phone view yet: Check Acceptability renders the frame the phone would save"
KEEP_THUMBNAILS = 8  # loaded set JPEGs kept (each holds its preview); older ones are removed
_THUMBNAILS: list[str] = []  # absolute paths of the set JPEGs loaded here, oldest first
_THUMBNAIL_ERRORS: dict[str, str] = {}
_PENDING: set[str] = set()


class RB_PhoneView(bpy.types.PropertyGroup):
    """The last render recorded for the phone view (Scene.realitybench_phone_view)."""

    image_path: bpy.props.StringProperty(name="Frame", subtype="FILE_PATH",
                                         description="The JPEG as the phone saved it")
    mask_path: bpy.props.StringProperty(name="Target mask", subtype="FILE_PATH",
                                        description="The target's mask (white on black)")
    failing: bpy.props.StringProperty(name="Failing terms", description="JSON: name, label, region of each")
    caption: bpy.props.StringProperty(name="Caption", description="What was rendered (frame, verdict)")
    target_pixels: bpy.props.IntProperty(name="Target pixels", min=0)


def _failing_items(failing_terms: Iterable) -> list[dict]:
    items = []
    for term in failing_terms:
        term = {"name": term} if isinstance(term, str) else dict(term)
        if "name" not in term:
            raise api.RealityBenchError(f"a failing term needs a name: {term!r}")
        region = term.get("region")
        items.append({"name": str(term["name"]), "label": str(term.get("label") or term["name"]),
                      "region": None if region is None else str(region)})
    return items


def record_render(image_path, mask_path, failing_terms: Iterable = (), *, caption: str = "", scene=None):
    """Remember a render for the phone view and compose its picture; returns the composed Blender image.
    Raises api.RealityBenchError (one line) for a missing or unreadable picture or a mask of another frame."""
    scene = scene or bpy.context.scene
    items = _failing_items(failing_terms)
    view, target_pixels = api.phone_view(image_path, mask_path, [t["region"] for t in items if t["region"]],
                                         names=(FRAME_IMAGE, MASK_IMAGE, VIEW_IMAGE))
    state = scene.realitybench_phone_view
    state.image_path = str(Path(image_path).absolute())
    state.mask_path = str(Path(mask_path).absolute()) if mask_path else ""
    state.failing, state.caption, state.target_pixels = json.dumps(items), caption, target_pixels
    _tag_redraw()
    return view


def clear_phone_view(scene=None) -> None:
    """Forget the recorded render (its images stay in the file's data until unused)."""
    scene = scene or bpy.context.scene
    state = scene.realitybench_phone_view
    state.image_path = state.mask_path = state.failing = state.caption = ""
    state.target_pixels = 0
    view = bpy.data.images.get(VIEW_IMAGE)
    if view is not None:
        bpy.data.images.remove(view)
    _tag_redraw()


def _tag_redraw() -> None:
    for window in getattr(bpy.context.window_manager, "windows", ()):
        for area in window.screen.areas:
            if area.type in ("VIEW_3D", "IMAGE_EDITOR"):
                area.tag_redraw()


def _icon_scale(context) -> float:
    """template_icon's scale (20 px units at UI scale 1): a square as wide as the region (the picture is fitted
    into it, its aspect kept)."""
    region = getattr(context, "region", None)
    ui_scale = getattr(getattr(context, "preferences", None), "view", None)
    ui_scale = ui_scale.ui_scale if ui_scale is not None else 1.0
    width = (region.width if region is not None else 300) - 44  # the panel's and a box's margins
    return max(3.0, width / (20.0 * ui_scale))


def draw_phone_view(layout, context) -> None:
    """The last render as the phone saved it, with the target (magenta) and where the failing terms fail
    (red); a legend; Open in Image Editor."""
    state = getattr(context.scene, "realitybench_phone_view", None)
    view = bpy.data.images.get(VIEW_IMAGE)
    if state is None or not state.image_path or view is None:
        layout.label(text="No render yet", icon="INFO")
        layout.label(text="Check Acceptability makes one")
        return
    col = layout.column(align=True)
    if state.caption:
        col.label(text=state.caption, icon="CAMERA_DATA")
    preview = view.preview
    if preview is not None and preview.icon_id:  # a square as wide as the sidebar: the frame fits its width
        col.template_icon(icon_value=preview.icon_id, scale=_icon_scale(context))
    col.label(text=f"{view.size[0]} x {view.size[1]} px, as saved")
    col.label(text=f"Magenta: target ({state.target_pixels:,} px)")
    for item in json.loads(state.failing or "[]"):
        col.label(text=("Red: " if item["region"] else "Not shown: ") + item["label"], icon="CANCEL")
    layout.operator("realitybench.open_phone_view", text="Open in Image Editor", icon="IMAGE_DATA")


def _forget_old_thumbnails() -> None:
    while len(_THUMBNAILS) > KEEP_THUMBNAILS:
        old = _find_loaded(_THUMBNAILS.pop(0))
        if old is not None and old.users == 0:
            bpy.data.images.remove(old)


def _find_loaded(path: str):
    for image in bpy.data.images:
        if image.source == "FILE" and bpy.path.abspath(image.filepath) == path:
            return image
    return None


def load_thumbnail(jpeg_path):
    """Load an exported JPEG and give it a preview (its pixels are then freed; the preview stays)."""
    path = str(Path(jpeg_path).absolute())
    image = api.picture_preview(path)
    if path in _THUMBNAILS:
        _THUMBNAILS.remove(path)
    _THUMBNAILS.append(path)
    _THUMBNAIL_ERRORS.pop(path, None)
    _forget_old_thumbnails()
    return image


def _load_later(path: str):
    _PENDING.discard(path)
    try:
        load_thumbnail(path)
    except api.RealityBenchError as exc:
        _THUMBNAIL_ERRORS[path] = str(exc)
    _tag_redraw()
    return None  # one shot


def draw_set_thumbnail(layout, context, jpeg_path) -> None:
    """The exported JPEG's thumbnail, or a line saying it is being loaded (a timer loads it: draw code may
    not load data) or why there is none."""
    path = str(Path(jpeg_path).absolute())
    image = _find_loaded(path)
    preview = image.preview if image is not None else None
    if preview is not None and preview.is_image_custom and preview.icon_id:
        layout.template_icon(icon_value=preview.icon_id, scale=_icon_scale(context))
        return
    if path in _THUMBNAIL_ERRORS:
        layout.label(text=_THUMBNAIL_ERRORS[path], icon="ERROR")
        return
    if path not in _PENDING and not bpy.app.background:
        _PENDING.add(path)
        bpy.app.timers.register(functools.partial(_load_later, path), first_interval=0.0)
    layout.label(text="Loading the thumbnail…", icon="IMAGE_DATA")


def _largest(areas, kind: Optional[str] = None):
    areas = [a for a in areas if kind is None or a.type == kind]
    return max(areas, key=lambda a: a.width * a.height, default=None)


def _split_for_image(context, window):
    """Split the 3D view (the one the button is in, else the largest) and make its right part an Image
    Editor; None if Blender refused the split (the view too small)."""
    screen = window.screen
    area = context.area if getattr(context.area, "type", "") == "VIEW_3D" else _largest(screen.areas, "VIEW_3D")
    area = area or _largest(screen.areas)
    region = next(r for r in area.regions if r.type == "WINDOW")
    before = set(screen.areas)
    with context.temp_override(window=window, screen=screen, area=area, region=region):
        bpy.ops.screen.area_split(direction="VERTICAL", factor=0.5)
    added = [a for a in screen.areas if a not in before]
    if not added:
        return None
    added[0].type = "IMAGE_EDITOR"
    return added[0]


class RB_OT_open_phone_view(bpy.types.Operator):
    """Show the phone view (the last render as the phone saved it, target and failing regions drawn on it)
    in an Image Editor: the open one, or a new one split off the 3D view"""

    bl_idname = "realitybench.open_phone_view"
    bl_label = "Open Phone View in Image Editor"
    bl_options = {"REGISTER"}

    @classmethod
    def poll(cls, context):
        if VIEW_IMAGE in bpy.data.images:
            return True
        cls.poll_message_set(NO_VIEW)  # greyed in menus and F3, with the reason in its tooltip
        return False

    def execute(self, context):
        view = bpy.data.images.get(VIEW_IMAGE)
        if view is None:
            self.report({"ERROR"}, NO_VIEW)
            return {"CANCELLED"}
        window = context.window
        if window is None or window.screen is None:
            self.report({"ERROR"}, "The phone view opens in Blender's window: run Blender with its interface")
            return {"CANCELLED"}
        area = _largest(window.screen.areas, "IMAGE_EDITOR") or _split_for_image(context, window)
        if area is None:
            self.report({"ERROR"}, "No room for an Image Editor: make the 3D view wider and try again")
            return {"CANCELLED"}
        area.spaces.active.image = view
        area.tag_redraw()
        self.report({"INFO"}, f"{VIEW_IMAGE} in the Image Editor")
        return {"FINISHED"}


@bpy.app.handlers.persistent
def on_load_post(*_args) -> None:
    """A reopened file's phone view is composed again from its pictures, or forgotten if they are gone."""
    scene = bpy.context.scene
    state = getattr(scene, "realitybench_phone_view", None)
    if state is None or not state.image_path:
        return
    try:
        record_render(state.image_path, state.mask_path or None, json.loads(state.failing or "[]"),
                      caption=state.caption, scene=scene)
    except (api.RealityBenchError, ValueError):
        clear_phone_view(scene)


CLASSES = (RB_PhoneView, RB_OT_open_phone_view)


def attach() -> None:
    bpy.types.Scene.realitybench_phone_view = bpy.props.PointerProperty(type=RB_PhoneView)


def detach() -> None:
    if hasattr(bpy.types.Scene, "realitybench_phone_view"):
        del bpy.types.Scene.realitybench_phone_view
