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


def rescore_rows(rows: list[dict], presets: dict[str, Preset]) -> dict:
    """The verdict of every row under `presets` (environment -> preset) and the rows whose verdict flips."""
    flips, totals = [], {}
    for row in rows:
        env = row["environment"]
        _, verdict = row_verdict(presets[env], row)
        totals[env] = totals.get(env, 0) + 1
        if verdict.verdict.value != row["verdict"]:
            flips.append({"frame_id": row["frame_id"], "from": row["verdict"], "to": verdict.verdict.value,
                          "failing": list(verdict.failing), "gray": list(verdict.gray)})
    by_env = {env: sum(1 for f in flips if f["frame_id"].startswith(env + "-")) for env in totals}
    return {"frames": len(rows), "flipped": len(flips), "flipped_by_environment": by_env, "flips": flips,
            "preset_hashes": {env: p.content_hash() for env, p in presets.items()}}
