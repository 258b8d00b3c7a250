"""The phone camera model shared by every environment.

One phone is drawn per scene (its lenses), one capture per frame (lens, zoom,
orientation, capture mode, shutter, shake, focus). `camera_settings` turns the pair
into what Blender's camera needs: the physical focal length (times digital zoom),
the sensor width, the f-stop that keeps the *physical* aperture diameter (so Cycles
renders the phone's depth of field), the focus distance and the shutter poses.

Sensors are 4:3; "sensor width" is the long side. Full-frame equivalence uses the
diagonal (43.27 mm for 36x24 mm).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Optional

import numpy as np

from .geometry import axis_rotation
from .rng import log_uniform

FULL_FRAME_DIAGONAL_MM = 43.2666
SENSOR_ASPECT = 4.0 / 3.0
REFERENCE_LONG_SIDE_PX = 1600

# Capture modes and their probabilities (spec: 70 / 15 / 15).
MIN_FOCUS_M = 0.1  # the nearest a phone's main camera focuses: Suggest a Pose never goes closer
PHONE_REACH_M = 2.1  # the highest a standing worker holds a phone above their feet (arm raised)
STEADY = "steady"
FOCUS_ELSEWHERE = "focus_elsewhere"
HAND_SHAKE = "hand_shake"
CAPTURE_MODES = (STEADY, FOCUS_ELSEWHERE, HAND_SHAKE)
CAPTURE_MODE_PROBABILITIES = (0.70, 0.15, 0.15)

SHAKE_SHUTTER_RANGE_S = (1 / 500, 1 / 25)
STEADY_SHUTTER_RANGE_S = (1 / 1000, 1 / 120)
# Angular rate of a hand-held phone during the exposure (hand tremor and the press),
# and its translation speed; both log-uniform.
SHAKE_RATE_RANGE_DEG_S = (1.0, 8.0)
SHAKE_SPEED_RANGE_M_S = (0.005, 0.05)

LANDSCAPE = "landscape"
PORTRAIT = "portrait"


@dataclass(frozen=True)
class Lens:
    """One lens module of a phone."""

    kind: str  # "main", "ultra_wide" or "telephoto"
    equivalent_focal_mm: float  # full-frame equivalent
    sensor_width_mm: float  # long side of the 4:3 sensor behind this lens
    f_number: float

    @property
    def sensor_height_mm(self) -> float:
        return self.sensor_width_mm / SENSOR_ASPECT

    @property
    def crop_factor(self) -> float:
        diagonal = math.hypot(self.sensor_width_mm, self.sensor_height_mm)
        return FULL_FRAME_DIAGONAL_MM / diagonal

    @property
    def focal_mm(self) -> float:
        """Physical focal length."""
        return self.equivalent_focal_mm / self.crop_factor

    @property
    def aperture_diameter_mm(self) -> float:
        return self.focal_mm / self.f_number


@dataclass(frozen=True)
class Phone:
    main: Lens
    ultra_wide: Optional[Lens] = None
    telephoto: Optional[Lens] = None
    max_digital_zoom: float = 2.0

    def lens(self, kind: str) -> Lens:
        found = {"main": self.main, "ultra_wide": self.ultra_wide, "telephoto": self.telephoto}.get(kind)
        if found is None:
            raise ValueError(f"this phone has no {kind} lens")
        return found

    def to_dict(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_dict(data: dict) -> "Phone":
        lenses = {k: (Lens(**data[k]) if data.get(k) else None) for k in ("main", "ultra_wide", "telephoto")}
        return Phone(max_digital_zoom=float(data.get("max_digital_zoom", 2.0)), **lenses)


def draw_phone(rng: np.random.Generator) -> Phone:
    """Draw a phone: main lens 24-28 mm equivalent, sensor 5.6-9.8 mm, f/1.6-2.4."""
    main = Lens("main", rng.uniform(24.0, 28.0), rng.uniform(5.6, 9.8), rng.uniform(1.6, 2.4))
    ultra_wide = None
    telephoto = None
    if rng.random() < 0.6:
        ultra_wide = Lens("ultra_wide", rng.uniform(13.0, 16.0), rng.uniform(4.0, 6.4), rng.uniform(2.0, 2.4))
    if rng.random() < 0.4:
        telephoto = Lens("telephoto", rng.uniform(48.0, 120.0), rng.uniform(4.0, 6.4), rng.uniform(2.2, 2.8))
    return Phone(main, ultra_wide, telephoto, max_digital_zoom=float(rng.choice([2.0, 5.0, 10.0])))


@dataclass(frozen=True)
class Capture:
    """How one frame is taken."""

    lens: str = "main"
    zoom: float = 1.0  # digital zoom (crop), >= 1
    orientation: str = LANDSCAPE
    mode: str = STEADY
    shutter_s: float = 1 / 250
    # Hand shake over the exposure: rotation rate about `shake_axis` (camera frame) and
    # translation speed along `shake_direction` (camera frame). Zero when steady.
    shake_rate_deg_s: float = 0.0
    shake_axis: tuple[float, float, float] = (1.0, 0.0, 0.0)
    shake_speed_m_s: float = 0.0
    shake_direction: tuple[float, float, float] = (1.0, 0.0, 0.0)
    # Focus distance as a multiple of the target distance: 1 focuses on the target.
    focus_factor: float = 1.0

    def to_dict(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_dict(data: dict) -> "Capture":
        data = dict(data)
        for key in ("shake_axis", "shake_direction"):
            if key in data:
                data[key] = tuple(float(v) for v in data[key])
        return Capture(**data)


def _unit_vector(rng: np.random.Generator, flatten_z: bool = False) -> tuple[float, float, float]:
    v = rng.normal(size=3)
    if flatten_z:
        v[2] *= 0.2  # shake mostly turns the phone about axes in the image plane
    v /= np.linalg.norm(v)
    return tuple(float(x) for x in v)


def draw_capture(rng: np.random.Generator, phone: Phone, *, landscape_share: float = 0.5,
                 zoom_share: float = 0.15) -> Capture:
    """Draw the capture of one frame with the phone: lens, zoom, orientation, mode, shutter, shake, focus."""
    lenses = ["main"] + [k for k in ("ultra_wide", "telephoto") if getattr(phone, k) is not None]
    weights = np.array([0.8] + [0.1] * (len(lenses) - 1))
    lens = str(rng.choice(lenses, p=weights / weights.sum()))
    zoom = 1.0
    if lens == "main" and rng.random() < zoom_share:
        zoom = log_uniform(rng, 1.2, min(3.0, phone.max_digital_zoom))
    orientation = LANDSCAPE if rng.random() < landscape_share else PORTRAIT
    mode = str(rng.choice(CAPTURE_MODES, p=CAPTURE_MODE_PROBABILITIES))
    if mode == HAND_SHAKE:
        shutter = log_uniform(rng, *SHAKE_SHUTTER_RANGE_S)
        rate = log_uniform(rng, *SHAKE_RATE_RANGE_DEG_S)
        speed = log_uniform(rng, *SHAKE_SPEED_RANGE_M_S)
    else:
        shutter = log_uniform(rng, *STEADY_SHUTTER_RANGE_S)
        rate = 0.0
        speed = 0.0
    axis = _unit_vector(rng, flatten_z=True)
    direction = _unit_vector(rng)
    focus_factor = 1.0
    if mode == FOCUS_ELSEWHERE:
        # Autofocus locked on something nearer or farther than the target.
        focus_factor = log_uniform(rng, 0.15, 0.6) if rng.random() < 0.5 else log_uniform(rng, 1.8, 20.0)
    return Capture(lens, zoom, orientation, mode, shutter, rate, axis, speed, direction, focus_factor)


@dataclass(frozen=True)
class CameraSettings:
    """What a Blender camera needs, in Blender's units (mm, m, s)."""

    focal_mm: float  # physical focal length x digital zoom
    sensor_width_mm: float  # the long side; Blender's AUTO fit puts it on the long image side
    fstop: float  # keeps the physical aperture diameter at any digital zoom
    focus_distance_m: float
    shutter_s: float
    resolution: tuple[int, int]  # (width, height) in px

    @property
    def focal_px(self) -> float:
        return self.focal_mm / self.sensor_width_mm * max(self.resolution)

    @property
    def pixel_pitch_mm(self) -> float:
        return self.sensor_width_mm / max(self.resolution)

    @property
    def aperture_diameter_mm(self) -> float:
        return self.focal_mm / self.fstop

    def to_dict(self) -> dict:
        d = asdict(self)
        d["focal_px"] = self.focal_px
        return d


def frame_resolution(orientation: str, long_side_px: int = REFERENCE_LONG_SIDE_PX) -> tuple[int, int]:
    short = int(round(long_side_px / SENSOR_ASPECT))
    if orientation == LANDSCAPE:
        return (long_side_px, short)
    if orientation == PORTRAIT:
        return (short, long_side_px)
    raise ValueError(f"unknown orientation {orientation!r}; expected {LANDSCAPE!r} or {PORTRAIT!r}")


def camera_settings(phone: Phone, capture: Capture, target_distance_m: float,
                    long_side_px: int = REFERENCE_LONG_SIDE_PX) -> CameraSettings:
    """Blender camera settings for `capture` with `phone`, aimed at a target `target_distance_m` away."""
    if target_distance_m <= 0:
        raise ValueError(f"target distance must be positive, got {target_distance_m}")
    if capture.zoom < 1.0:
        raise ValueError(f"digital zoom must be >= 1, got {capture.zoom}")
    lens = phone.lens(capture.lens)
    return CameraSettings(
        focal_mm=lens.focal_mm * capture.zoom,
        sensor_width_mm=lens.sensor_width_mm,
        fstop=lens.f_number * capture.zoom,
        focus_distance_m=target_distance_m * capture.focus_factor,
        shutter_s=capture.shutter_s,
        resolution=frame_resolution(capture.orientation, long_side_px),
    )


def shutter_poses(camera_to_world: np.ndarray, capture: Capture) -> tuple[np.ndarray, np.ndarray]:
    """Camera-to-world matrices at the start and end of the exposure.

    The phone turns by shake_rate * shutter about `shake_axis` and moves
    shake_speed * shutter along `shake_direction` (both in the camera frame),
    centred on the nominal pose.
    """
    m = np.asarray(camera_to_world, float)
    angle = math.radians(capture.shake_rate_deg_s * capture.shutter_s)
    shift = capture.shake_speed_m_s * capture.shutter_s
    poses = []
    for sign in (-0.5, 0.5):
        pose = m.copy()
        pose[:3, :3] = m[:3, :3] @ axis_rotation(capture.shake_axis, sign * angle)
        pose[:3, 3] = m[:3, 3] + m[:3, :3] @ (np.asarray(capture.shake_direction) * sign * shift)
        poses.append(pose)
    return poses[0], poses[1]


def capture_alternatives(phone: Phone, capture: Capture) -> list[tuple[Capture, str]]:
    """Other ways the worker can take the same photo with this phone, each with its instruction: turn the phone
    the other way, go back to the main camera at 1x, the ultra-wide (more in frame from close), the telephoto
    or a 2x zoom (bigger writing from where they stand). Suggest a Pose tries them when moving alone fails."""
    flip = LANDSCAPE if capture.orientation == PORTRAIT else PORTRAIT
    out = [(replace(capture, orientation=flip),
            "turn the phone sideways (landscape)" if flip == LANDSCAPE else "hold the phone upright (portrait)")]
    if capture.lens != "main" or capture.zoom != 1.0:
        out.append((replace(capture, lens="main", zoom=1.0), "switch to the main camera at 1x"))
    if phone.ultra_wide is not None and capture.lens != "ultra_wide":
        out.append((replace(capture, lens="ultra_wide", zoom=1.0), "switch to the ultra-wide camera (0.5x)"))
    if phone.telephoto is not None and capture.lens != "telephoto":
        out.append((replace(capture, lens="telephoto", zoom=1.0), "switch to the telephoto camera"))
    elif phone.max_digital_zoom >= 2.0 and not (capture.lens == "main" and capture.zoom >= 2.0):
        out.append((replace(capture, lens="main", zoom=2.0), "zoom in to 2x"))
    return out
