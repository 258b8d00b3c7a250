"""Threshold and gray-range tuning in the sidebar: the edited preset, user presets on disk."""
from __future__ import annotations

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


def edited(settings, base):
    """`base` with the sidebar's thresholds and gray ranges; validated like a file (PresetError)."""
    preset = base
    for item in settings.terms:
        threshold = (item.threshold, item.threshold_hi) if item.comparator == "between" else item.threshold
        gray = (item.gray_lo, item.gray_hi) if item.has_gray else None
        preset = preset.with_term(item.name, threshold=threshold, gray=gray)
    return preset


def shipped(environment: str):
    return api.shipped_preset(environment)


def saved(environment: str):
    return api.saved_preset(environment, user_presets_dir())
