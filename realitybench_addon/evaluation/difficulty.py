"""Drivers of difficulty: how each score moves with the camera and the target's measurements (the paper's
Section 7, "Drivers of difficulty within an environment").

Each frame's driver values are read from the set's metadata.jsonl row (`eval report --set SET_DIR`, else
the set recorded in the first run's run.json), where the environment records them:

    roll             |camera.pose.roll_deg|: how far the phone is turned about its view axis (degrees)
    pitch            the camera's pitch, degrees above the horizontal (negative: looking down), from
                     camera.camera_to_world (the view direction is minus its third column)
    px_per_text_row  measurements.text_row_px (the labels, the RO board, the breaker card), else
                     digit_height_px (the gauge), else char_cell_px (the plate)
    view_angle       measurements.view_angle: degrees between the view and the target's normal (the
                     board's or card's yaw as seen from the camera)
    gauge_yaw        |measurements.gauge_yaw|: the gauge turned off the slope (slope_gauge)
    apparent_size    the target's bounding box as a fraction of the frame (the first measurement named
                     *_bbox), else target_mask_pixels over the frame's pixels (camera.resolution)
    unoccluded       the target's unoccluded fraction: the first scorer term named *_unoccluded, read
                     from measurements (a yes/no measurement counts as 1/0)

A driver exists in an environment when its value is in the rows. Scores, per model run and frame: each
documentation field where it is scored (answers/counting.py's frames; tape_gap.tilted on every tape
frame), and `acceptability` (the model's verdict agrees with the scorer's, on the frames scored for it).
The runs: model runs asked with the benchmark's prompt and the image (blind runs and other prompt
variants see no image or another question).

Per environment, score and driver, over the frames where both exist (at least MIN_FRAMES, the driver
not constant): for each model, Spearman's rho between the driver and the score, with a 95% interval by
Fisher's z with the Bonett-Wright standard error sqrt((1 + rho^2 / 2) / (n - 3)) (a model whose score
is constant over those frames has no rho and is not counted); the models whose rho is above 0 (the
score rises with the driver), and those whose interval lies above 0 (rises detectably) or below 0
(falls detectably); and the pooled rho: Spearman between the driver and the mean score over the
models per frame (a score constant over those frames for every model gives no row). difficulty.csv
holds every row; report.md the strongest by |pooled rho|; difficulty.png (plots.py) the pooled rho per
score and driver with the models rising.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

import numpy as np

from ..answers import stats
from ..answers.items import sha256_bytes
from .errors import EvalError
from .variants import other_variant

MIN_FRAMES = 8
Z95 = 1.959963984540054
MD_ROWS = 25
ACCEPTABILITY = "acceptability"


def _number(x) -> Optional[float]:
    if isinstance(x, bool):
        return float(x)
    if isinstance(x, (int, float)) and math.isfinite(x):
        return float(x)
    return None


def _roll(row):
    v = _number(((row.get("camera") or {}).get("pose") or {}).get("roll_deg"))
    return None if v is None else abs(v)


def _pitch(row):
    m = (row.get("camera") or {}).get("camera_to_world")
    try:
        z = -float(m[2][2])
    except (TypeError, IndexError, ValueError):
        return None
    return math.degrees(math.asin(max(-1.0, min(1.0, z)))) if math.isfinite(z) else None


def _measurements(row) -> dict:
    m = row.get("measurements")
    return m if isinstance(m, dict) else {}


def _first(row, keys):
    m = _measurements(row)
    for k in keys:
        v = _number(m.get(k))
        if v is not None:
            return v
    return None


def _gauge_yaw(row):
    v = _first(row, ("gauge_yaw",))
    return None if v is None else abs(v)


def _apparent_size(row):
    m = _measurements(row)
    for k, v in m.items():
        if isinstance(k, str) and k.endswith("_bbox") and _number(v) is not None:
            return _number(v)
    pixels = _number(m.get("target_mask_pixels"))
    size = (row.get("camera") or {}).get("resolution")
    try:
        area = float(size[0]) * float(size[1])
    except (TypeError, IndexError, ValueError):
        return None
    return pixels / area if pixels is not None and area > 0 else None


def _unoccluded(row):
    m = _measurements(row)
    names = [k for k in (row.get("terms") or {}) if isinstance(k, str) and k.endswith("_unoccluded")]
    names += [k for k in m if isinstance(k, str) and k.endswith("_unoccluded")]
    for k in names:
        v = _number(m.get(k))
        if v is not None:
            return v
    return None


DRIVERS = (("roll", _roll), ("pitch", _pitch),
           ("px_per_text_row", lambda r: _first(r, ("text_row_px", "digit_height_px", "char_cell_px"))),
           ("view_angle", lambda r: _first(r, ("view_angle",))), ("gauge_yaw", _gauge_yaw),
           ("apparent_size", _apparent_size), ("unoccluded", _unoccluded))


def driver_values(row: dict) -> dict:
    """{driver: value} for the drivers this row records."""
    out = {}
    for name, fn in DRIVERS:
        try:
            v = fn(row)
        except (TypeError, ValueError, AttributeError):
            v = None
        if v is not None and math.isfinite(v):
            out[name] = v
    return out


def set_rows(set_dir, items) -> dict:
    """frame id -> its metadata row, for the runs' frames; an EvalError when the folder is another set."""
    from ..setio import METADATA, SetError, read_rows

    path = Path(set_dir)
    if not (path / METADATA).is_file():
        raise EvalError(f"--set {path} holds no {METADATA}: give the exported set the runs asked")
    try:
        rows = {r.get("frame_id"): r for r in read_rows(path)}
    except SetError as exc:
        raise EvalError(f"--set {path}: {exc}") from None
    for item in items:
        row = rows.get(item.frame_id)
        if row is None:
            raise EvalError(f"--set {path} is another set: it lacks frame {item.frame_id}, which the runs asked")
        if sha256_bytes(str(row.get("prompt", "")).encode()) != item.prompt_sha256:
            raise EvalError(f"--set {path} is another set: its frame {item.frame_id} has another prompt than the "
                            f"runs'")
    return {i.frame_id: rows[i.frame_id] for i in items}


def spearman_interval(rho: float, n: int) -> tuple[Optional[float], Optional[float]]:
    """95% interval of Spearman's rho: Fisher's z with the Bonett-Wright standard error."""
    if not math.isfinite(rho) or n <= 3:
        return None, None
    if abs(rho) >= 1:
        return rho, rho
    se = math.sqrt((1 + rho * rho / 2) / (n - 3))
    z = math.atanh(rho)
    return math.tanh(z - Z95 * se), math.tanh(z + Z95 * se)


def _scores(run) -> dict:
    """(environment, score name) -> {frame id: score} for one run."""
    out: dict = {}
    for r in run.rows:
        env, fid = r["environment"], r["frame_id"]
        for key, score in (r.get("fields") or {}).items():
            if score is not None:
                out.setdefault((env, key), {})[fid] = float(score)
        if r.get("acceptability_scored") and r.get("model_accepts") is not None:
            out.setdefault((env, ACCEPTABILITY), {})[fid] = float(r["model_accepts"] == (r["verdict"] == "accept"))
    return out


def difficulty(labels: list[str], runs: list, summaries: list[dict], rows: Optional[dict], source: str) -> dict:
    """{"source", "models", "rows": one per (environment, score, driver)} (see the module docstring)."""
    chosen = [(label, run) for label, run, s in zip(labels, runs, summaries)
              if s.get("kind") == "model" and not (s.get("settings") or {}).get("blind") and not other_variant(s)]
    if rows is None:
        return {"source": None, "why": source, "models": [l for l, _ in chosen], "rows": []}
    drivers = {fid: driver_values(row) for fid, row in rows.items()}
    scores = [(label, _scores(run)) for label, run in chosen]
    columns = sorted({k for _, sc in scores for k in sc})
    out = []
    for env, name in columns:
        for driver, _ in DRIVERS:
            frames = sorted({f for _, sc in scores for f in sc.get((env, name), {}) if driver in drivers.get(f, {})})
            if len(frames) < MIN_FRAMES or len({drivers[f][driver] for f in frames}) < 2:
                continue
            per_model = []
            for label, sc in scores:
                mine = [f for f in frames if f in sc.get((env, name), {})]
                x = [drivers[f][driver] for f in mine]
                y = [sc[(env, name)][f] for f in mine]
                rho = stats.spearman(x, y) if len(mine) >= MIN_FRAMES and len(set(y)) > 1 else math.nan
                lo, hi = spearman_interval(rho, len(mine))
                per_model.append({"label": label, "frames": len(mine), "rho": rho if math.isfinite(rho) else None,
                                  "lo": lo, "hi": hi})
            defined = [m for m in per_model if m["rho"] is not None]
            mean = [float(np.mean([sc[(env, name)][f] for _, sc in scores if f in sc.get((env, name), {})]))
                    for f in frames]
            pooled = stats.spearman([drivers[f][driver] for f in frames], mean) if len(set(mean)) > 1 else math.nan
            if not defined and not math.isfinite(pooled):
                continue  # the score does not vary there: nothing moves with the driver
            out.append({"environment": env, "score": name, "driver": driver, "frames": len(frames),
                        "models": len(defined), "rising": sum(m["rho"] > 0 for m in defined),
                        "rising_detectably": sum(m["lo"] is not None and m["lo"] > 0 for m in defined),
                        "falling_detectably": sum(m["hi"] is not None and m["hi"] < 0 for m in defined),
                        "median_rho": float(np.median([m["rho"] for m in defined])) if defined else None,
                        "pooled_rho": pooled if math.isfinite(pooled) else None, "per_model": per_model})
    return {"source": source, "why": None, "models": [l for l, _ in chosen], "rows": out}


HEAD = ["environment", "score", "driver", "frames", "models", "rising", "rising_detectably", "falling_detectably",
        "median_rho", "pooled_rho"]


def write_section(out, result: dict) -> tuple[str, list[str]]:
    """(report.md text, files written): difficulty.csv (every row and, per model, its rho and interval)."""
    from .tables import fmt, md_table, write_csv

    md = ["\n## Drivers of difficulty\n"]
    if result["source"] is None:
        md.append(f"Not computed: {result['why']}.\n")
        return "\n".join(md), []
    rows = result["rows"]
    write_csv(out / "difficulty.csv", [*HEAD, "label", "model_frames", "rho", "rho_lo", "rho_hi"],
              [[r[h] for h in HEAD] + [m["label"], m["frames"], m["rho"], m["lo"], m["hi"]]
               for r in rows for m in r["per_model"]])
    strongest = sorted([r for r in rows if r["pooled_rho"] is not None], key=lambda r: -abs(r["pooled_rho"]))
    md.append(f"Scores against the camera and the target's measurements, from the set's metadata "
              f"(`{result['source']}`), over {len(result['models'])} model run(s) asked with the image and the "
              f"benchmark's prompt. "
              f"The {min(MD_ROWS, len(strongest))} strongest of {len(rows)} (environment, score, driver) rows by "
              f"|pooled rho|; difficulty.csv holds every row and each model's rho with its interval.\n\n")
    if strongest:
        md.append(md_table(["environment", "score", "driver", "frames", "pooled rho", "median rho (models)",
                            "models rising", "rising (CI > 0)", "falling (CI < 0)"],
                           [[r["environment"], r["score"], r["driver"], r["frames"], fmt(r["pooled_rho"], 2),
                             fmt(r["median_rho"], 2), f"{r['rising']} of {r['models']}", r["rising_detectably"],
                             r["falling_detectably"]] for r in strongest[:MD_ROWS]]))
    md.append("\nScore: a documentation field's score where it is scored, or `acceptability` (the verdict agrees "
              "with the scorer's). Per model: Spearman's rho between the driver and the score over the frames "
              "where both exist, its 95% interval by Fisher's z (Bonett-Wright standard error); models rising: "
              "rho above 0; rising / falling (CI): the interval above / below 0; a model whose score is constant "
              "there is not counted. Pooled rho: the driver against the mean score over the models per frame. "
              f"Rows need at least {MIN_FRAMES} frames. Drivers: roll and pitch of the camera (degrees; |roll|), "
              "px per text row (digit height on the gauge, character cell on the plate), the view angle off the "
              "target's normal, |gauge yaw|, the apparent size (bounding box fraction of the frame) and the "
              "target's unoccluded fraction.\n")
    return "\n".join(md), ["difficulty.csv"]
