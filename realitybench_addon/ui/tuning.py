"""Threshold and gray-range tuning in the sidebar: the edited preset, user presets on disk."""
from __future__ import annotations

import re
from pathlib import Path

from .. import api
from ..bl import compat

ROOT_PACKAGE = __package__.rsplit(".", 1)[0]  # realitybench_addon, or bl_ext.<repo>.realitybench


def user_presets_dir() -> Path:
    """Where "Save Preset" writes: the extension's user folder (4.2+) or Blender's config folder."""
    path = Path(compat.user_data_dir(ROOT_PACKAGE)) / "presets"
    path.mkdir(parents=True, exist_ok=True)
    return path


class _Filling:
    """Set while fill() writes the sidebar's fields, whose update callbacks must then stay quiet."""

    active = False


def filling() -> bool:
    return _Filling.active


def fill(settings, preset) -> None:
    """Show `preset`'s numeric terms in the sidebar for editing (without triggering the live update)."""
    _Filling.active = True
    try:
        _fill(settings, preset)
    finally:
        _Filling.active = False


SHARP_TERM = "sharp_at_target"  # core.presets.SHARP_TERM: must equal the preset's blur_limit_px
FIELD_WORDS = {"threshold": "threshold", "threshold[0]": "lower threshold", "threshold[1]": "upper threshold",
               "gray": "gray range", "gray[0]": "gray from", "gray[1]": "gray to"}
_RANGE = re.compile(r"must lie in \[([-+0-9.e]+), ([-+0-9.e]+)\]")


def _fill(settings, preset) -> None:
    settings.terms.clear()
    for term in preset.terms:
        if term.comparator in ("is_true", "is_false"):
            continue
        item = settings.terms.add()
        item.name, item.label, item.unit, item.comparator = term.name, term.label, term.unit, term.comparator
        if term.comparator == "between":
            item.threshold, item.threshold_hi = term.threshold
        else:
            item.threshold = float(term.threshold)
        item.has_gray = term.gray is not None
        if term.gray is not None:
            item.gray_lo, item.gray_hi = term.gray
        item.range_lo, item.range_hi = allowed_range(preset, term)
        item.fixed = (f"equals the environment's blur limit ({preset.blur_limit_px:g} px), set by its phone "
                      "model, not tuned here" if term.name == SHARP_TERM else "")
        item.error = ""


def allowed_range(preset, term) -> tuple[float, float]:
    """The range the preset loader allows for the term's threshold (read from its own refusal)."""
    probe = (-1e30, -1e30) if term.comparator == "between" else -1e30
    try:
        preset.with_term(term.name, threshold=probe, gray=None)
    except api.RealityBenchError as exc:
        found = _RANGE.search(str(exc))
        if found:
            return float(found.group(1)), float(found.group(2))
    return float("-inf"), float("inf")


def _typed(value: float) -> float:
    """A field's value as typed: Blender keeps floats in 32 bits (0.65 reads back 0.6499999762), which six
    significant digits undo, so an unchanged field leaves the preset (and its hash) as it was."""
    return float(f"{value:.6g}")


def _item_changes(item) -> dict:
    threshold = ((_typed(item.threshold), _typed(item.threshold_hi)) if item.comparator == "between"
                 else _typed(item.threshold))
    return {"threshold": threshold,
            "gray": (_typed(item.gray_lo), _typed(item.gray_hi)) if item.has_gray else None}


def field_message(item, exc) -> str:
    """A PresetError about one sidebar field, in the panel's words: the term's label, the field, the range."""
    key = getattr(exc, "key", "")
    text = str(exc)
    prefix = f"{getattr(exc, 'source', '')}: {key}: "
    reason = text[len(prefix):] if text.startswith(prefix) else text
    field = FIELD_WORDS.get(key.rsplit(".", 1)[-1], "value")
    return f"{item.label} {field}: {reason}"


def edited(settings, base):
    """`base` with the sidebar's thresholds and gray ranges; the first invalid field raises PresetError,
    its message naming the term's label, the field and the allowed range (Apply, Save)."""
    preset = base
    for item in settings.terms:
        if item.fixed:
            continue
        try:
            preset = preset.with_term(item.name, **_item_changes(item))
        except api.RealityBenchError as exc:
            raise api.RealityBenchError(field_message(item, exc)) from None
    return preset


def edited_leniently(settings, base):
    """`base` with every valid field's edit; each invalid field keeps `base`'s value and gets its message
    in `item.error` (shown under it), so one bad field never blocks the others."""
    preset = base
    for item in settings.terms:
        message = ""
        if not item.fixed:
            try:
                preset = preset.with_term(item.name, **_item_changes(item))
            except api.RealityBenchError as exc:
                message = field_message(item, exc)
        if item.error != message:
            item.error = message
    return preset


def shipped(environment: str):
    return api.shipped_preset(environment)


def saved(environment: str):
    return api.saved_preset(environment, user_presets_dir())
