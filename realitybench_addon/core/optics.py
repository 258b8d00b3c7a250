"""Camera optics: projection, depth-of-field and motion blur in pixels, px per unit, view angle.

Conventions follow Blender: a camera looks down its local -Z with +Y up and +X right.
Pixel coordinates put (0, 0) at the top-left corner of the frame, x to the right and
y down; a pixel's centre is at (i + 0.5, j + 0.5).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PinholeCamera:
    """A pinhole camera: pose plus intrinsics in pixels (no lens shift, square pixels)."""

    camera_to_world: np.ndarray  # 4x4
    focal_px: float
    width: int
    height: int

    @staticmethod
    def from_sensor(camera_to_world, focal_mm: float, sensor_width_mm: float, width: int, height: int) -> "PinholeCamera":
        """Blender's AUTO sensor fit: the sensor width spans the longer image side."""
        return PinholeCamera(np.asarray(camera_to_world, float), focal_mm / sensor_width_mm * max(width, height),
                             int(width), int(height))

    @property
    def position(self) -> np.ndarray:
        return np.asarray(self.camera_to_world, float)[:3, 3]

    @property
    def forward(self) -> np.ndarray:
        return -np.asarray(self.camera_to_world, float)[:3, 2]

    def world_to_camera(self, points: np.ndarray) -> np.ndarray:
        m = np.asarray(self.camera_to_world, float)
        rot, pos = m[:3, :3], m[:3, 3]
        return (np.atleast_2d(points) - pos) @ rot  # rows: rot.T @ (p - pos)

    def project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pixel coordinates (N, 2) and depth in front of the camera (N,), metres.

        Points with depth <= 0 are behind the camera; their pixel coordinates are nan.
        """
        cam = self.world_to_camera(points)
        depth = -cam[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            u = self.width / 2 + self.focal_px * cam[:, 0] / depth
            v = self.height / 2 - self.focal_px * cam[:, 1] / depth
        uv = np.stack([u, v], axis=1)
        uv[depth <= 0] = np.nan
        return uv, depth

    def in_frame(self, points: np.ndarray) -> np.ndarray:
        uv, depth = self.project(points)
        with np.errstate(invalid="ignore"):
            return (depth > 0) & (uv[:, 0] >= 0) & (uv[:, 0] < self.width) & (uv[:, 1] >= 0) & (uv[:, 1] < self.height)

    def pixel_ray(self, u: float, v: float) -> np.ndarray:
        """World direction (unit) of the ray through pixel coordinate (u, v)."""
        d_cam = np.array([(u - self.width / 2) / self.focal_px, -(v - self.height / 2) / self.focal_px, -1.0])
        d = np.asarray(self.camera_to_world, float)[:3, :3] @ d_cam
        return d / np.linalg.norm(d)


def coc_px(distance_m, focus_m: float, focal_mm: float, fstop: float, pixel_pitch_mm: float):
    """Diameter of the thin-lens circle of confusion, in pixels, for a point at `distance_m`.

    c = A * f * |s - s_f| / (s * (s_f - f)) with aperture diameter A = f / N, all in mm.
    """
    s = np.asarray(distance_m, float) * 1000.0
    sf = focus_m * 1000.0
    if sf <= focal_mm:
        raise ValueError(f"focus distance {focus_m} m is inside the focal length {focal_mm} mm")
    aperture = focal_mm / fstop
    c_mm = aperture * focal_mm * np.abs(s - sf) / (s * (sf - focal_mm))
    return c_mm / pixel_pitch_mm


def motion_blur_px(points: np.ndarray, camera_start: PinholeCamera, camera_end: PinholeCamera) -> np.ndarray:
    """Length in pixels of the streak each point draws between the shutter's start and end poses."""
    a, _ = camera_start.project(points)
    b, _ = camera_end.project(points)
    return np.linalg.norm(b - a, axis=1)


def px_per_unit(camera: PinholeCamera, point, direction, unit_length_m: float) -> float:
    """Pixels spanned by `unit_length_m` along `direction`, centred on `point`."""
    point = np.asarray(point, float)
    direction = np.asarray(direction, float)
    direction = direction / np.linalg.norm(direction)
    half = direction * unit_length_m / 2
    uv, depth = camera.project(np.stack([point - half, point + half]))
    if np.any(depth <= 0):
        return 0.0
    return float(np.linalg.norm(uv[1] - uv[0]))


def view_angle_deg(camera_position, target_point, normal) -> float:
    """Angle between the ray from the target back to the camera and the target's normal (0 = square-on).

    Above 90 degrees the camera sees the back of the surface.
    """
    to_camera = np.asarray(camera_position, float) - np.asarray(target_point, float)
    n = np.asarray(normal, float)
    lengths = float(np.linalg.norm(to_camera) * np.linalg.norm(n))
    if lengths == 0.0:
        return float("nan")  # the camera sits on the target's origin: no direction to measure
    cosine = float(np.dot(to_camera, n) / lengths)
    return math.degrees(math.acos(max(-1.0, min(1.0, cosine))))


def look_at(position, target, up=(0.0, 0.0, 1.0), roll_deg: float = 0.0) -> np.ndarray:
    """Camera-to-world matrix at `position` looking at `target` (Blender camera: -Z forward, +Y up)."""
    position = np.asarray(position, float)
    forward = np.asarray(target, float) - position
    forward /= np.linalg.norm(forward)
    up = np.asarray(up, float)
    if abs(np.dot(forward, up)) > 0.999:
        up = np.array([0.0, 1.0, 0.0]) if abs(forward[1]) < 0.9 else np.array([1.0, 0.0, 0.0])
    right = np.cross(forward, up)
    right /= np.linalg.norm(right)
    true_up = np.cross(right, forward)
    if roll_deg:
        r = np.radians(roll_deg)
        right, true_up = right * np.cos(r) + true_up * np.sin(r), -right * np.sin(r) + true_up * np.cos(r)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = right, true_up, -forward, position
    return m
