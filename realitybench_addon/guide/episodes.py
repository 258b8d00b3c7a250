"""The episode list of the closed-loop guidance benchmark (`eval guide-episodes`): random frames the scorer rejects
and Suggest a Pose fixes, drawn by seed over every scored environment.

For each environment (registry order), the random stratum's frames of the set seed are taken in index order:
a frame is an episode when it is scored, its geometric terms already reject it (so the start photo is rejected
without a render), and Suggest a Pose (`api.suggest`, as the `suggest` command asks it) fixes it, its image terms
confirmed by its quick render where the environment has them. The first `per_env` such frames of each
environment are kept (`max_tries` frames looked at, at most). Each episode holds the frame's id, the start pose
and capture, the worker's state, and the oracle: Suggest a Pose's move as the grammar's actions (actions.py;
the walk in an order a worker can do in full) and its length. The file is canonical JSON: the same seed,
environments and sizes give the same bytes.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Optional, Sequence, TextIO

import numpy as np

from ..evaluation.errors import EvalError

KIND = "realitybench-guide-episodes"
VERSION = 1
EPISODE_KEYS = ("id", "environment", "set_seed", "stratum", "index", "start", "oracle")


def scored_environments() -> list[str]:
    from ..core.presets import load_environment_preset
    from ..envs import registry

    return [n for n in registry.available() if load_environment_preset(n).acceptability_scored]


def _rounded(value, digits: int = 6):
    if isinstance(value, float):
        return round(value, digits) + 0.0
    if isinstance(value, dict):
        return {k: _rounded(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v, digits) for v in value]
    if isinstance(value, np.generic):
        return _rounded(value.item(), digits)
    return value


def canonical_bytes(data: dict) -> bytes:
    return (json.dumps(_rounded(data), sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def _episode(spec, suggestion: dict) -> dict:
    """One episode of a frame and its suggestion: the start, and the oracle's move as actions."""
    from ..core.phone import Capture
    from .actions import apply_actions, oracle_actions, state_of
    from .simulator import feasible_function

    centre = suggestion["focus_point_m"]
    before = state_of(spec.pose.position, spec.pose.aim, spec.pose.roll_deg, centre, spec.capture)
    after_pose = suggestion["pose_after"]
    capture = Capture.from_dict(suggestion["capture_after"]) if suggestion.get("capture_after") else spec.capture
    after = state_of(after_pose["position_m"], after_pose["aim_m"], after_pose["roll_deg"], centre, capture)
    feasible = feasible_function(spec)
    actions = oracle_actions(before, after, feasible, spec.phone)
    end, records, walked = apply_actions(before, actions, feasible, spec.phone)
    return {"id": spec.frame_id, "environment": spec.environment, "set_seed": spec.set_seed,
            "stratum": spec.stratum, "index": spec.index, "failing_before": list(suggestion["failing_before"]),
            "start": {"pose": spec.pose.to_dict(), "capture": spec.capture.to_dict(), "state": before.to_dict()},
            "oracle": {"actions": actions, "walked_m": walked, "moved_m": suggestion["moved_m"],
                       "hints": suggestion["hints"], "pose_after": after_pose, "state_after": after.to_dict(),
                       "replay_error_m": float(np.linalg.norm(end.position() - after.position())),
                       "clamped": sum(1 for r in records if r["done_share"] < 1.0)}}


def make_episodes(seed: int, per_env: int, environments: Optional[Sequence[str]] = None, *,
                  long_side_px: int = 1600, max_tries: int = 40, render_check: bool = True,
                  progress: Optional[TextIO] = sys.stderr) -> dict:
    """The episode list (a dict; `canonical_bytes` writes it)."""
    from .. import api
    from ..core.terms import Verdict
    from ..pipeline import SHARED_CACHE, plan_frame, run_frame

    scored = scored_environments()
    names = list(environments) if environments else scored
    for name in names:
        if name not in scored:
            raise EvalError(f"{name!r} is not a scored environment; expected some of {', '.join(scored)}")
    episodes, looked = [], {}
    for name in names:
        kept = 0
        for index in range(max_tries):
            if kept >= per_env:
                break
            looked[name] = index + 1
            spec = plan_frame(name, seed, "random", index)
            record = run_frame(spec, long_side_px=long_side_px, render=False, cache=SHARED_CACHE).frame
            if not record.scored or record.verdict is not Verdict.REJECT:
                continue
            suggestion = api.suggest(name, seed, index, long_side_px=long_side_px, render_check=render_check)
            if not suggestion["fixed"]:
                continue
            episodes.append(_episode(spec, suggestion))
            kept += 1
            if progress is not None:
                progress.write(f"[{name}] {spec.frame_id}: an episode ({kept}/{per_env})\n")
                progress.flush()
    return {"kind": KIND, "version": VERSION, "seed": seed, "per_environment": per_env, "environments": names,
            "long_side_px": long_side_px, "render_check": render_check, "max_tries": max_tries,
            "frames_looked_at": looked, "episodes": episodes}


def write_episodes(data: dict, out) -> dict:
    from ..setio import atomic_write

    blob = canonical_bytes(data)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, blob)
    per_env = {}
    for e in data["episodes"]:
        per_env[e["environment"]] = per_env.get(e["environment"], 0) + 1
    return {"episodes_file": str(out), "sha256": hashlib.sha256(blob).hexdigest(), "episodes": len(data["episodes"]),
            "per_environment": per_env, "frames_looked_at": data["frames_looked_at"]}


def load_episodes(path) -> tuple[dict, str]:
    """(the episode list, its file's sha256); one-line EvalErrors for anything else."""
    from ..core import safefs
    from ..core.errors import RealityBenchError
    from ..core.safe_parse import loads_json, one_line

    path = Path(path)
    try:
        blob = safefs.read_path(path, "json")
        data = loads_json(blob, max_bytes=safefs.CAPS["json"])
    except FileNotFoundError:
        raise EvalError(f"{path}: no such episode file (make one with `eval guide-episodes`)") from None
    except (OSError, RealityBenchError) as exc:
        raise EvalError(f"cannot read the episode file {path}: {one_line(exc)}") from None
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise EvalError(f"{path} is not an episode list (`eval guide-episodes` writes one)")
    if not isinstance(data.get("episodes"), list) or not data["episodes"]:
        raise EvalError(f"{path} holds no episodes")
    for number, e in enumerate(data["episodes"], 1):
        missing = [k for k in EPISODE_KEYS if not isinstance(e, dict) or k not in e]
        if missing:
            raise EvalError(f"{path}: episode {number} lacks {missing[0]!r}")
    return data, hashlib.sha256(blob).hexdigest()
