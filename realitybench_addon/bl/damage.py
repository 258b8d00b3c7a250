"""The damaged panel's material: the car's own paint, replaced by the damage texture's colour where its
alpha says so (scratches to primer or bare metal, rust); dents are geometry (core/damage.py). The paint's road
dirt is kept off the damage and a margin around it (core/damage.py `dirt_keepout`): grime never hides a mark."""
from __future__ import annotations

import bpy
import numpy as np

from ..core.damage import DamagePlan, damage_texture, dirt_keepout
from ..core.vehicle import VehiclePlan
from . import compat
from .materials import pack_on_save
from .materials import math_node
from .vehicle import DIRT_NODE_LABEL, paint_material

DAMAGE_IMAGE = "RB_DamageImage"
KEEPOUT_IMAGE = "RB_DamageDirtKeepout"


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
    keep_dirt_off(mat, plan, uv.outputs["UV"])
    return mat


def keep_dirt_off(mat, plan: DamagePlan, uv_socket) -> None:
    """Multiply the paint's road dirt by (1 - keepout): every use of the dirt amount (colour, roughness, the
    clear coat's dulling) sees it gone over the damage. Outside the patch's UVs (CLIP) the dirt is untouched."""
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    dirt = next((n for n in nodes if n.label == DIRT_NODE_LABEL), None)
    if dirt is None:
        raise RuntimeError(f"material {mat.name} has no {DIRT_NODE_LABEL!r} node")
    keepout = dirt_keepout(plan)
    h, w = keepout.shape
    image = bpy.data.images.new(KEEPOUT_IMAGE, w, h, alpha=False)
    image.colorspace_settings.name = "Non-Color"
    px = np.ones((h, w, 4), np.float32)
    px[..., :3] = keepout[..., None]
    image.pixels.foreach_set(px[::-1].ravel())
    pack_on_save(image)
    tex = nodes.new("ShaderNodeTexImage")
    tex.image = image
    tex.interpolation = "Linear"
    tex.extension = "CLIP"
    links.new(uv_socket, tex.inputs["Vector"])
    targets = [lk.to_socket for lk in dirt.outputs[0].links]
    clean = math_node(nodes, links, "MULTIPLY", dirt.outputs[0], math_node(nodes, links, "SUBTRACT", 1.0,
                                                                            tex.outputs["Color"]))
    clean.node.label = "Road dirt off the damage"
    for socket in targets:
        links.new(clean, socket)
