"""Test support for the ratings tools: exported-set look-alikes scored by the real presets.

`make_scored_set` writes metadata.jsonl rows the way `export` does (terms, measurements, verdict,
prompt, ground truth) plus small JPEGs; each frame's verdict comes from the shipped preset applied
to its measurements, so rescoring and gray suggestions see what they would in a real set.
"""
from __future__ import annotations

import io
import json
from pathlib import Path

from PIL import Image

from realitybench_addon.core.presets import load_environment_preset
from realitybench_addon.core.prompt import build_prompt
from realitybench_addon.core.terms import evaluate
from realitybench_addon.envs import registry

GROUND_TRUTH = {
    "rail_attachment": {"lag_present": True, "flashing_present": True},
    "damage_view": {"damage_types": ["dent"], "severity": "minor"},
    "car_view": {"side": "front", "body_style": "sedan"},
    "slope_gauge": {"reading_deg": 22.4, "on_module": True},
}


def passing_measurements(environment: str) -> dict:
    """A value for every term of the environment's preset that passes it."""
    out = {}
    for t in load_environment_preset(environment).terms:
        if t.comparator == ">=":
            out[t.measurement_key] = float(t.threshold)
        elif t.comparator == "<=":
            out[t.measurement_key] = float(t.threshold) / 2
        elif t.comparator == "between":
            out[t.measurement_key] = sum(t.threshold) / 2
        else:
            out[t.measurement_key] = t.comparator == "is_true"
    return out


def scored_row(environment: str, index: int, overrides: dict, stratum: str = "random") -> dict:
    preset = load_environment_preset(environment)
    measurements = {**passing_measurements(environment), **overrides}
    results, verdict = evaluate(preset.terms, measurements)
    frame_id = f"{environment}-{stratum}-s0-{index:06d}"
    return {"file_name": f"{environment}/{frame_id}.jpg", "slot": index, "frame_id": frame_id,
            "environment": environment, "stratum": stratum,
            "terms": {r.name: {k: v for k, v in r.to_dict().items() if k != "name"} for r in results},
            "measurements": measurements, "verdict": verdict.verdict.value, "scored": verdict.scored,
            "failing_terms": list(verdict.failing), "gray_terms": list(verdict.gray), "unscored_reason": None,
            "ground_truth": GROUND_TRUTH[environment],
            "prompt": build_prompt(registry.get(environment).prompt_parts)}


def make_scored_set(directory, frames: list[tuple[str, int, dict]], stratum_of=None) -> Path:
    """frames: (environment, index, measurement overrides). Images are 160x120, a colour per frame."""
    directory = Path(directory)
    lines = []
    for n, (env, index, overrides) in enumerate(frames):
        stratum = stratum_of(env, index) if stratum_of else "random"
        row = scored_row(env, index, overrides, stratum)
        (directory / env).mkdir(parents=True, exist_ok=True)
        buf = io.BytesIO()
        Image.new("RGB", (160, 120), ((37 * n) % 256, (91 * n) % 256, (53 * n + 7) % 256)).save(buf, "JPEG")
        (directory / row["file_name"]).write_bytes(buf.getvalue())
        lines.append(json.dumps(row))
    (directory / "metadata.jsonl").write_text("\n".join(lines) + "\n")
    return directory


def distance_set(directory, n: int = 20) -> Path:
    """rail_attachment frames whose camera distance alone decides the verdict: 0.5 m .. 2.4 m."""
    return make_scored_set(directory, [("rail_attachment", i, {"camera_distance": 0.5 + 0.1 * i}) for i in range(n)])


def database_snapshot(set_dir):
    """Every row of every table of the set's ratings database, read with SQLite itself (None when there
    is none): what "nothing changed" is checked against."""
    import sqlite3

    path = Path(set_dir) / "ratings.sqlite"
    if not path.exists():
        return None
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)  # reading never makes one
    try:
        tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        return {t: sorted(db.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in tables}
    finally:
        db.close()


# A small scored set (rail_attachment and slope_gauge) that the hostile and guard tests of the rating server share.
HOSTILE_FRAMES = ([("rail_attachment", i, {"camera_distance": 0.6 + 0.2 * i}) for i in range(4)]
                  + [("slope_gauge", i, {"view_angle": 10.0 + 10.0 * i}) for i in range(3)])

