"""The sky and the sun of an outdoor scene: a Hosek-Wilkie sky whose sun sits exactly where the sun lamp
shines from, so shadows and the sky's bright spot agree. The lamp is named RB_Sun (the scene cache
checks for it to know a scene is built)."""
from __future__ import annotations

import math

import bpy
import numpy as np
from mathutils import Matrix

from . import materials as mats

SUN = "RB_Sun"


def sun_direction(elevation_deg: float, azimuth_deg: float) -> np.ndarray:
    """Unit vector towards the sun; azimuth 0 is -Y (the roof scene's downslope), 90 is +X."""
    el, az = math.radians(elevation_deg), math.radians(azimuth_deg)
    return np.array([math.cos(el) * math.sin(az), -math.cos(el) * math.cos(az), math.sin(el)])


def sun_matrix(direction: np.ndarray) -> Matrix:
    z = direction / np.linalg.norm(direction)  # a sun lamp shines along its local -Z
    x = np.cross([0.0, 0.0, 1.0], z)
    x = x / np.linalg.norm(x) if np.linalg.norm(x) > 1e-6 else np.array([1.0, 0.0, 0.0])
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2] = x, np.cross(z, x), z
    return Matrix(m.tolist())


def add_sky_and_sun(scene, direction: np.ndarray, strength: float, *, sky_strength: float = 1.0,
                    angle_deg: float = 0.55):
    """Set `scene`'s world to the sky and add the sun lamp; returns the lamp object."""
    scene.world = mats.sky_world("RB_Sky", direction, strength=sky_strength)
    sun = bpy.data.lights.new(SUN, "SUN")
    sun.energy = strength
    sun.angle = math.radians(angle_deg)
    sun_obj = bpy.data.objects.new(SUN, sun)
    sun_obj.matrix_world = sun_matrix(direction)
    scene.collection.objects.link(sun_obj)
    return sun_obj
