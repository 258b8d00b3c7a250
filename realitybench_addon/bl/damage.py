"""The damaged panel's material: the car's own paint, replaced by the damage texture's colour where its
alpha says so (scratches to primer or bare metal, rust); dents are geometry (core/damage.py)."""
from __future__ import annotations

import bpy
import numpy as np

from ..core.damage import DamagePlan, damage_texture
from ..core.vehicle import VehiclePlan
from . import compat
from .materials import pack_on_save
from .vehicle import paint_material

DAMAGE_IMAGE = "RB_DamageImage"


def linear_to_srgb(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0.0, 1.0)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)


def packed_rgba(name: str, rgba_linear: np.ndarray):
    """An 8-bit sRGB image with straight alpha from a linear RGBA float array (row 0 at the top), packed into
    any .blend saved with it."""
    h, w = rgba_linear.shape[:2]
    image = bpy.data.images.new(name, w, h, alpha=True)
    px = np.empty((h, w, 4), np.float32)
    px[..., :3] = linear_to_srgb(rgba_linear[..., :3])
    px[..., 3] = np.clip(rgba_linear[..., 3], 0.0, 1.0)
    px = np.round(px * 255.0) / 255.0  # what the byte buffer will hold
    image.pixels.foreach_set(px[::-1].ravel())
    image.alpha_mode = "STRAIGHT"
    return pack_on_save(image)


def damage_material(name: str, vehicle: VehiclePlan, plan: DamagePlan):
    """Paint (exactly the car's paint BSDF) mixed with a rough damage BSDF by the texture's alpha."""
    mat = paint_material(name, vehicle.paint_rgb, vehicle.metallic)
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    paint = nodes.get("Principled BSDF")
    output = nodes.get("Material Output")
    tex = nodes.new("ShaderNodeTexImage")
    tex.image = packed_rgba(DAMAGE_IMAGE, damage_texture(plan, vehicle.paint_rgb))
    tex.interpolation = "Linear"
    tex.extension = "CLIP"
    uv = nodes.new("ShaderNodeTexCoord")
    links.new(uv.outputs["UV"], tex.inputs["Vector"])
    damaged = nodes.new("ShaderNodeBsdfPrincipled")
    links.new(tex.outputs["Color"], compat.principled_input(damaged, "Base Color"))
    compat.principled_input(damaged, "Roughness").default_value = 0.6
    compat.principled_input(damaged, "Metallic").default_value = 0.0
    mix = nodes.new("ShaderNodeMixShader")
    links.new(tex.outputs["Alpha"], mix.inputs["Fac"])
    links.new(paint.outputs["BSDF"], mix.inputs[1])
    links.new(damaged.outputs["BSDF"], mix.inputs[2])
    links.new(mix.outputs["Shader"], output.inputs["Surface"])
    return mat
