"""A stored frame's verdict under a (changed) preset: no scene, no render, only its measurements.

Used by `rescore` (verdict flips after a preset edit) and by `ratings` (the scorer against the
raters' majority, before and after a gray-range edit).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from .presets import Preset, load_environment_preset
from .terms import TermResult, VerdictResult, evaluate

RULE_PREFIX = "acceptability is not scored"


def row_verdict(preset: Preset, row: dict) -> tuple[list[TermResult], VerdictResult]:
    """Re-evaluate an exported row's measurements. A scene rule that excluded the frame (a missing
    lag bolt) still excludes it; the preset's own `acceptability_scored = false` is re-read."""
    unscored = row.get("unscored_reason")
    if unscored and unscored.startswith(RULE_PREFIX):
        unscored = None
    if not preset.acceptability_scored:
        unscored = unscored or f"{RULE_PREFIX} for {preset.environment}"
    return evaluate(preset.terms, row["measurements"], unscored)


def presets_for(environments: Iterable[str], directories: Iterable[Path] = ()) -> dict[str, Preset]:
    """environment -> its preset from `directories` (first match) or the shipped ones; PresetError if bad."""
    directories = [Path(d) for d in directories]
    return {env: load_environment_preset(env, directories) for env in sorted(set(environments))}
