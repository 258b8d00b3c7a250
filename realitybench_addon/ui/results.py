"""What a Check result or a suggestion was computed for, and whether it still holds.

Each stored result carries a key: the frame (environment, seed, index, stratum), the camera as it was held
(pose matrix, lens, sensor, focus) and the thresholds (the edited preset's content hash, else the shipped one's). The panels
compare it with the key of now: a result made for another frame, another camera or other thresholds is
marked stale with what changed, and Apply refuses a suggestion made for another frame.
"""
from __future__ import annotations

from typing import Optional

import bpy

TOLERANCE = 1e-4  # 0.1 mm, 1e-4 of a rotation, 1e-4 mm of lens: a float32 round trip is not a move


def camera_state(cam) -> Optional[dict]:
    """The camera as held, in the form the background job and the key take it."""
    if cam is None or cam.type != "CAMERA":
        return None
    data = cam.data
    return {"matrix": [[float(v) for v in row] for row in cam.matrix_world],
            "lens": data.lens, "sensor_width": data.sensor_width, "sensor_height": data.sensor_height,
            "sensor_fit": data.sensor_fit, "shift_x": data.shift_x, "shift_y": data.shift_y,
            "use_dof": data.dof.use_dof, "fstop": data.dof.aperture_fstop, "focus_distance": data.dof.focus_distance,
            "realitybench_capture": cam.get("realitybench_capture"),
            "realitybench_phone": cam.get("realitybench_phone")}


def camera_fingerprint(cam) -> Optional[list]:
    state = camera_state(cam)
    if state is None:
        return None
    numbers = [v for row in state["matrix"] for v in row] + [state["lens"], state["sensor_width"],
                                                               state["fstop"], state["focus_distance"]]
    return [float(v) for v in numbers] + [float(bool(state["use_dof"]))]


def same_camera(a: Optional[list], b: Optional[list]) -> bool:
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(abs(x - y) <= TOLERANCE for x, y in zip(a, b))


_SHIPPED_HASHES: dict = {}  # environment -> the shipped preset's hash (read once: panels draw often)


def preset_tag(preset, environment: str) -> str:
    """The thresholds' content hash: the shipped preset's when none is edited, so an edit made and undone
    by hand leaves a result standing."""
    if preset is not None:
        return preset.content_hash()
    if environment not in _SHIPPED_HASHES:
        from .. import api

        try:
            _SHIPPED_HASHES[environment] = api.shipped_preset(environment).content_hash()
        except api.RealityBenchError:
            return "shipped"
    return _SHIPPED_HASHES[environment]


def key_now(settings, camera=None) -> dict:
    """The key of the sidebar's frame, camera and thresholds as they are now."""
    from . import live

    cam = camera or bpy.context.scene.camera
    return {"scene": [settings.environment, settings.seed, settings.index, settings.stratum],
            "camera": camera_fingerprint(cam), "preset": preset_tag(live.STATE.preset, settings.environment)}


def scene_words(scene: list) -> str:
    environment, seed, index, stratum = scene
    return f"{environment} seed {seed} frame {index}" + ("" if stratum == "random" else f" ({stratum})")


def stale_reason(stored: Optional[dict], now: dict) -> str:
    """'' while the stored result holds; else what changed, in words."""
    if not stored:
        return ""
    if stored.get("scene") != now["scene"]:
        return f"made for {scene_words(stored['scene'])}"
    if not same_camera(stored.get("camera"), now["camera"]):
        return "the camera moved since"
    if stored.get("preset") != now["preset"]:
        return "the thresholds changed since"
    return ""


def other_scene(stored: Optional[dict], now: dict) -> str:
    """'' when the stored key is this frame's; else one line naming both frames (why Apply refuses)."""
    if not stored or stored.get("scene") == now["scene"]:
        return ""
    return (f"this suggestion was made for {scene_words(stored['scene'])}, not {scene_words(now['scene'])}: "
            "run Suggest a Pose again")


def at_state(cam, state: Optional[dict]) -> bool:
    """Is `cam` where `state` (camera_state) had it? (After Edit > Undo it is not at the applied pose.)"""
    if cam is None or not state:
        return False
    now = camera_state(cam)
    flat = [abs(v - w) <= TOLERANCE for a, b in zip(now["matrix"], state["matrix"]) for v, w in zip(a, b)]
    return all(flat) and abs(now["lens"] - state["lens"]) <= TOLERANCE
