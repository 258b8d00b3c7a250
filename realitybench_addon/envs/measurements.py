"""The measurements every environment shares: a target's visibility, a point's, and blur at a point.

Each reads the frame's camera through `FrameContext.pinhole()` (one pinhole model per frame and
render size) and Blender's ray casts through bl/measure.py. Environment modules combine these into
their own terms; nothing here knows a particular scene.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

import numpy as np

from ..core import geometry
from ..core.capture_terms import capture_values
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


def unoccluded_in_frame(ctx: FrameContext, points_world: np.ndarray, names: Sequence[str]) -> tuple[float, float]:
    """Of a target's surface samples `points_world`, the target made of the objects `names`:
    (share in frame, share of the in-frame samples the camera sees directly; nan when none is in frame).
    Seen directly: the ray from the camera meets nothing but the target on its way to the sample (the same
    ray cast as every `*_unoccluded` term, `bl.measure.visibility`). The target's parts hiding one another
    (a car's near side hiding its far side) are not occlusion; anything else in between (another car, a
    person, a pole) is. Rays are cast for the in-frame samples only."""
    camera = ctx.pinhole()
    points = np.atleast_2d(np.asarray(points_world, float))
    inside = camera.in_frame(points)
    if not inside.any():
        return 0.0, float("nan")
    return float(inside.mean()), float(point_visibility(ctx, points[inside], list(names)).mean())


def blur_at(ctx: FrameContext, point_world) -> float:
    """Defocus plus motion blur (px) at a world point, for the frame's phone capture."""
    from ..bl.measure import blur_for_camera, camera_capture

    return blur_for_camera(ctx.camera, ctx.scene, ctx.pinhole(), np.asarray(point_world, float),
                           camera_capture(ctx.camera)).total_px


def capture_terms(ctx: FrameContext, target: str, point_world, in_frame=None, unoccluded=None) -> dict:
    """The standard capture terms of `target` (core/capture_terms.py): `sharp_at_target`, the blur at
    `point_world`, and `<target>_in_frame` / `<target>_unoccluded` where given (usually a `group_measurements`
    result's "in_frame" and "unoccluded")."""
    return capture_values(target, blur_at(ctx, point_world), in_frame, unoccluded)


GLYPH_GRID = (0.2, 0.5, 0.8)  # where in a glyph's ink box (each axis) its visibility rays end


def glyph_measurements(ctx: FrameContext, boxes_m: Sequence[tuple[float, float, float, float]], frame,
                       names: list[str], heights_m: Sequence[float]) -> dict:
    """Each written character, from its ink box (x0, y0, x1, y1) in a flat surface's frame
    (`frame` = (centre, right, up) in world space, metres, y up) and its row's cap height (`heights_m`):
      visible    every one of nine points spread over its box is in frame and nothing but the surface
                 `names` stands between it and the camera: a hand over one character of a VIN hides that
                 character even when 94% of the board is in view
      height_px  its row's cap height projected into the image at its centre: the size a reader sees it
                 at there (a slanted plate's far characters are smaller; a dash's short ink is not)."""
    from ..bl.measure import visibility
    from ..core.optics import px_per_unit

    if not boxes_m:
        return {"visible": np.zeros(0, bool), "height_px": np.zeros(0)}
    center, right, up = (np.asarray(v, float) for v in frame)
    boxes = np.asarray(boxes_m, float)
    fx, fy = np.meshgrid(GLYPH_GRID, GLYPH_GRID)
    xs = boxes[:, [0]] + (boxes[:, [2]] - boxes[:, [0]]) * fx.ravel()  # (glyphs, 9)
    ys = boxes[:, [1]] + (boxes[:, [3]] - boxes[:, [1]]) * fy.ravel()
    points = center + xs[..., None] * right + ys[..., None] * up  # (glyphs, 9, 3)
    camera = ctx.pinhole()
    flat = points.reshape(-1, 3)
    seen = camera.in_frame(flat) & visibility(ctx.scene, camera, flat, names)
    middles = center + 0.5 * (boxes[:, [0]] + boxes[:, [2]]) * right + 0.5 * (boxes[:, [1]] + boxes[:, [3]]) * up
    heights = [px_per_unit(camera, m, up, h) for m, h in zip(middles, heights_m)]
    return {"visible": seen.reshape(len(boxes), -1).all(axis=1), "height_px": np.asarray(heights, float)}


@dataclass(frozen=True)
class WrittenField:
    """One documented string on a surface: what is written, each inked character's ink box (x0, y0, x1, y1)
    in the surface's frame (metres, y up), and the size a reader judges it by (its cap height or row pitch)."""

    name: str  # "vin", "characters", "entries[3].name"
    text: str  # as drawn
    boxes_m: tuple
    height_m: float


@dataclass(frozen=True)
class WrittenSurface:
    """A flat surface with documented writing: its world frame (centre, right, up, normal), the objects it is
    made of (a ray that ends on them is not blocked), and its documented fields."""

    frame: tuple
    names: tuple
    fields: tuple


def glyph_terms(ctx: FrameContext, surface: WrittenSurface, px_min: Optional[dict] = None) -> dict:
    """The per-character terms of a surface's documented writing:
      glyphs_visible  share of its characters fully in frame and uncovered (glyph_measurements)
      KEY             for each KEY of `px_min` (default {"glyph_px_min": None}): the smallest projected size of
                      the characters of those fields (None: all of them)
      hidden_glyphs   "field[k]" of each character not fully visible, for reviewers."""
    glyphs = [(f.name, k, box, f.height_m) for f in surface.fields for k, box in enumerate(f.boxes_m)]
    center, right, up = surface.frame[:3]
    seen = glyph_measurements(ctx, [g[2] for g in glyphs], (center, right, up), list(surface.names),
                              [g[3] for g in glyphs])
    out = {"glyphs_visible": float(seen["visible"].mean()) if len(glyphs) else float("nan")}
    for key, fields in (px_min or {"glyph_px_min": None}).items():
        sizes = [h for g, h in zip(glyphs, seen["height_px"]) if fields is None or g[0] in fields]
        out[key] = float(min(sizes)) if sizes else float("nan")
    out["hidden_glyphs"] = [f"{name}[{k}]" for (name, k, _, _), ok in zip(glyphs, seen["visible"]) if not ok]
    return out


FIELD_PAD = 0.2  # a field's contrast region: its characters' ink boxes, padded by this share of its height


def field_regions_px(ctx: FrameContext, surface: WrittenSurface, pad: float = FIELD_PAD) -> list[np.ndarray]:
    """Each documented field's region in the image: the union of its characters' ink boxes, padded by `pad` of
    its height so that the paper around the writing is in it, projected to four corners (image px)."""
    center, right, up = (np.asarray(v, float) for v in surface.frame[:3])
    camera = ctx.pinhole()
    regions = []
    for f in surface.fields:
        boxes = np.asarray(f.boxes_m, float)
        if boxes.size == 0:
            regions.append(np.full((4, 2), np.nan))
            continue
        p = pad * f.height_m
        x0, y0 = boxes[:, 0].min() - p, boxes[:, 1].min() - p
        x1, y1 = boxes[:, 2].max() + p, boxes[:, 3].max() + p
        corners = [center + x * right + y * up for x, y in ((x0, y1), (x1, y1), (x1, y0), (x0, y0))]
        regions.append(camera.project(np.array(corners))[0])
    return regions


def field_contrast_terms(ctx: FrameContext, surface: WrittenSurface, display: np.ndarray,
                         target_mask: np.ndarray) -> dict:
    """The contrast of each documented field on its own, in the phone's image as a reader sees it:
      field_contrast_min  the lowest Weber contrast (of display luminance) of any field big enough to have paper
                          and ink in the image
      faintest_field      that field's name, for reviewers
    A glare across a few rows of a glossy card washes them out while the label's whole-mask contrast, set by its
    darkest rows, still passes. Measured on the final image, not the linear render: the tone curve compresses
    highlights, so writing under a glare that keeps a third of its linear contrast shows only a sliver of it."""
    from ..core.image_terms import region_contrasts

    contrasts = region_contrasts(display, target_mask, field_regions_px(ctx, surface))
    if not np.isfinite(contrasts).any():
        return {"field_contrast_min": float("nan"), "faintest_field": None}
    k = int(np.nanargmin(contrasts))
    return {"field_contrast_min": float(contrasts[k]), "faintest_field": surface.fields[k].name}
