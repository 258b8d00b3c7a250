"""Blur at the target: defocus (circle of confusion) plus motion over the shutter, in pixels."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .optics import PinholeCamera, coc_px, motion_blur_px


@dataclass(frozen=True)
class BlurAtTarget:
    defocus_px: float
    motion_px: float

    @property
    def total_px(self) -> float:
        return self.defocus_px + self.motion_px


def blur_at_target(point, camera: PinholeCamera, *, focal_mm: float, fstop: float, focus_m: float,
                   sensor_width_mm: float, shutter_start=None, shutter_end=None) -> BlurAtTarget:
    """Blur of a target point seen by `camera` (a lens with focus at `focus_m`).

    `shutter_start` / `shutter_end` are camera-to-world matrices at the ends of the
    exposure; without them the camera is steady.
    """
    point = np.asarray(point, float)
    pixel_pitch = sensor_width_mm / max(camera.width, camera.height)
    distance = float(-camera.world_to_camera(point)[0, 2])
    defocus = float(coc_px(distance, focus_m, focal_mm, fstop, pixel_pitch)) if distance > 0 else float("inf")
    motion = 0.0
    if shutter_start is not None and shutter_end is not None:
        a = PinholeCamera(np.asarray(shutter_start, float), camera.focal_px, camera.width, camera.height)
        b = PinholeCamera(np.asarray(shutter_end, float), camera.focal_px, camera.width, camera.height)
        motion = float(motion_blur_px(point[None], a, b)[0])
    return BlurAtTarget(defocus, motion)
