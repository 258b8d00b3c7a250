"""Build a `VehiclePlan` in Blender: every part of `core/vehicle_geometry.vehicle_geometry` as its own object
(panels are separate targets), placed by a world matrix, with car-paint, glass, rubber, chrome and
lamp materials.

Object names are `<prefix>_<part>` (`Car0_door_front_left`, `Car0_glass_right`, `Car0_tyres`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import bpy
import numpy as np

from ..core.vehicle import VehiclePlan
from ..core.vehicle_geometry import vehicle_geometry
from ..core.vehicle_loft import Part
from . import materials as mats
from .meshes import mesh_object

SMOOTH_ANGLE_DEG = 32.0  # loft facets smooth up to this crease angle; sharper edges (caps, boxes) stay sharp
FLAT_PARTS = ("headlights", "taillights", "lights_amber", "grille", "mirrors", "handles", "roof_rails",
              "trim_strips", "seats", "soft_top", "windshield_frame", "underbody", "bed")


@dataclass
class BuiltVehicle:
    prefix: str
    plan: VehiclePlan
    matrix: np.ndarray  # vehicle frame -> world
    objects: dict[str, str] = field(default_factory=dict)  # part -> object name

    def names(self, parts=None) -> list[str]:
        return [self.objects[p] for p in (parts or self.objects) if p in self.objects]

    @property
    def body(self) -> list[str]:
        """Every object of the vehicle (the whole car as a target)."""
        return list(self.objects.values())


def _set_input(bsdf, name: str, value) -> None:
    socket = bsdf.inputs.get(name)
    if socket is not None:
        socket.default_value = value


def paint_material(name: str, rgb, metallic: float):
    """Car paint: a base coat (metallic flake as partial metalness) under a glossy clear coat."""
    mat = mats.principled(name, tuple(rgb), roughness=0.32 if metallic > 0.3 else 0.22, metallic=0.55 * metallic,
                          specular=0.5)
    bsdf = mat.node_tree.nodes.get("Principled BSDF")
    _set_input(bsdf, "Coat Weight", 1.0)
    _set_input(bsdf, "Coat Roughness", 0.04)
    return mat


# Shared materials: key -> (colour, roughness, metallic, specular)
SHARED = {
    "glass": ((0.012, 0.014, 0.018), 0.03, 0.0, 0.9),
    "trim": ((0.018, 0.018, 0.02), 0.55, 0.0, 0.3),
    "chassis": ((0.012, 0.012, 0.012), 0.9, 0.0, 0.1),
    "inner": ((0.004, 0.004, 0.004), 1.0, 0.0, 0.0),
    "tyre": ((0.018, 0.018, 0.018), 0.75, 0.0, 0.25),
    "wheel_dark": ((0.02, 0.02, 0.022), 0.6, 0.3, 0.3),
    "wheel_metal": ((0.55, 0.56, 0.58), 0.28, 1.0, 0.5),
    "headlight": ((0.75, 0.76, 0.78), 0.08, 0.9, 0.8),
    "indicator": ((0.8, 0.3, 0.02), 0.2, 0.0, 0.6),
    "taillight": ((0.45, 0.008, 0.01), 0.12, 0.0, 0.7),
    "interior": ((0.03, 0.03, 0.032), 0.85, 0.0, 0.2),
    "seat": ((0.05, 0.045, 0.04), 0.7, 0.0, 0.3),
    "softtop": ((0.015, 0.015, 0.017), 0.95, 0.0, 0.1),
    "bedliner": ((0.025, 0.025, 0.027), 0.9, 0.0, 0.15),
}


def shared_material(key: str):
    name = f"RB_Car_{key}"
    mat = bpy.data.materials.get(name)
    if mat is None:
        color, rough, metal, spec = SHARED[key]
        mat = mats.principled(name, color, roughness=rough, metallic=metal, specular=spec)
    return mat


def part_object(name: str, part: Part, collection, matrix, materials: dict, *, smooth: bool = True,
                uv: np.ndarray | None = None):
    obj = mesh_object(name, part.vertices, part.triangles, collection, matrix=matrix,
                      materials=[materials[m] for m in part.materials], face_materials=part.face_material,
                      smooth=smooth)
    if smooth and hasattr(obj.data, "set_sharp_from_angle"):
        obj.data.set_sharp_from_angle(angle=math.radians(SMOOTH_ANGLE_DEG))
    elif smooth and hasattr(obj.data, "use_auto_smooth"):  # Blender < 4.1
        obj.data.use_auto_smooth = True
        obj.data.auto_smooth_angle = math.radians(SMOOTH_ANGLE_DEG)
    if uv is not None:
        layer = obj.data.uv_layers.new(name="UVMap")
        loops = part.triangles.ravel()
        layer.data.foreach_set("uv", np.asarray(uv, np.float32)[loops].ravel())
    return obj


def build_vehicle(scene, plan: VehiclePlan, prefix: str, matrix: np.ndarray, *, replace_parts: dict | None = None,
                  extra_materials: dict | None = None) -> BuiltVehicle:
    """All parts of `plan` as objects `<prefix>_<part>` at `matrix` (vehicle frame -> world).

    `replace_parts`: part name -> list of (suffix, Part, uv) built instead of the plan's part (a damaged
    panel re-meshed finely, split into its damaged and undamaged faces)."""
    col = scene.collection
    geometry = vehicle_geometry(plan)
    materials = {key: shared_material(key) for key in SHARED}
    materials["paint"] = paint_material(f"{prefix}_Paint", plan.paint_rgb, plan.metallic)
    materials.update(extra_materials or {})
    built = BuiltVehicle(prefix, plan, np.asarray(matrix, float))
    for name, part in geometry.parts.items():
        if replace_parts and name in replace_parts:
            for suffix, sub, uv in replace_parts[name]:
                obj = part_object(f"{prefix}_{suffix}", sub, col, matrix, materials, uv=uv)
                built.objects[suffix] = obj.name
            continue
        obj = part_object(f"{prefix}_{name}", part, col, matrix, materials, smooth=name not in FLAT_PARTS)
        built.objects[name] = obj.name
    return built


def placement_matrix(x: float, y: float, heading_deg: float) -> np.ndarray:
    """Vehicle frame -> world: the car's nose pointing along `heading_deg` (0 = +X, 90 = +Y)."""
    h = math.radians(heading_deg)
    m = np.eye(4)
    m[:3, 0] = [math.cos(h), math.sin(h), 0.0]
    m[:3, 1] = [-math.sin(h), math.cos(h), 0.0]
    m[:3, 3] = [x, y, 0.0]
    return m
