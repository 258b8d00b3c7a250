"""The standard capture terms of a target, their names and their values (pure; no bpy).

Nearly every environment judges a photo of its target first by three terms: the target sharp (defocus plus motion
blur at its point, in px, within the preset's blur limit), in frame (the share of its surface samples inside the
frame) and unoccluded (the share the camera sees directly). Their names follow one pattern, the target's name
first: `sharp_at_target`, `<target>_in_frame`, `<target>_unoccluded`. `envs/measurements.capture_terms` measures
them on a frame; a preset's `sharp_at_target` inherits its threshold from `blur_limit_px` (core/presets.py).
"""
from __future__ import annotations

SHARP_TERM = "sharp_at_target"


def capture_term_names(target: str) -> tuple[str, str, str]:
    """(sharp, in frame, unoccluded) term names of `target` ("vent" -> sharp_at_target, vent_in_frame, ...)."""
    return SHARP_TERM, f"{target}_in_frame", f"{target}_unoccluded"


def capture_values(target: str, blur_px: float, in_frame=None, unoccluded=None) -> dict:
    """The measurements of the standard terms, keyed by their names; in frame and unoccluded only where given
    (a share in [0, 1], or a bool for a single point)."""
    sharp, framed, seen = capture_term_names(target)
    values: dict = {sharp: blur_px}
    if in_frame is not None:
        values[framed] = in_frame
    if unoccluded is not None:
        values[seen] = unoccluded
    return values


def target_capture_terms(names) -> tuple[str, ...]:
    """The standard capture terms of the target among term `names`, in their order: `sharp_at_target`, and each
    `<t>_in_frame` whose `<t>_unoccluded` is there too (the pair `capture_term_names(t)` makes). An in-frame term
    of something else (`neighbour_panel_in_frame`, `module_glass_in_frame`) has no such pair and is left out."""
    names = list(names)
    targets = {name[: -len("_in_frame")] for name in names if name.endswith("_in_frame")}
    pairs = {n for t in targets if capture_term_names(t)[2] in names for n in capture_term_names(t)[1:]}
    return tuple(n for n in names if n == SHARP_TERM or n in pairs)
