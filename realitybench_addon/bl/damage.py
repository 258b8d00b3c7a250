"""The damaged panel's material: the car's own paint, replaced by the damage texture's colour where its
alpha says so (scratches to primer or bare metal, rust); dents are geometry (core/damage.py). The paint's road
dirt is kept off the damage and a margin around it (core/damage.py `dirt_keepout`): grime never hides a mark."""
from __future__ import annotations

import bpy
import numpy as np

from ..core.damage import DamagePlan, damage_texture, dirt_keepout
from ..core.rust_relief import rust_relief
from ..core.vehicle import VehiclePlan
from . import compat
from .materials import pack_on_save
from .materials import coat_input, math_node
from .vehicle import DIRT_NODE_LABEL, paint_material

DAMAGE_IMAGE = "RB_DamageImage"
KEEPOUT_IMAGE = "RB_DamageDirtKeepout"
RELIEF_IMAGE = "RB_DamageRustRelief"
RUST_BUMP_DISTANCE_M = 0.0012  # pits and blisters about a millimetre deep
SCRATCH_GROOVE_M = 0.0003  # a scratch is a groove this deep where the texture's alpha is 1


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
    if "scratch" in plan.types:
        scratch_grooves(mat, tex.outputs["Alpha"], (paint, damaged))
    if "rust" in plan.types:
        rust_bump(mat, plan, uv.outputs["UV"], (paint, damaged))
    keep_dirt_off(mat, plan, uv.outputs["UV"])
    return mat


def scratch_grooves(mat, alpha_socket, bsdfs) -> None:
    """Scratches are cut into the paint: the damage texture's alpha, inverted, is a groove SCRATCH_GROOVE_M deep,
    so a stroke's two walls catch and lose the light as a cut does (flat, they read as "painted on"). The base
    layers take the groove alone; the paint's clear coat takes it over its own orange peel. Where there is no
    mark the normal is the material's own."""
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    coat = coat_input(bsdfs[0], "Normal")
    peel = coat.links[0].from_socket if coat is not None and coat.links else None
    for target in ("base", "coat"):
        if target == "coat" and coat is None:
            continue
        bump = nodes.new("ShaderNodeBump")
        bump.label = f"Scratch grooves ({target})"
        bump.invert = True
        bump.inputs["Strength"].default_value = 1.0
        bump.inputs["Distance"].default_value = SCRATCH_GROOVE_M
        links.new(alpha_socket, bump.inputs["Height"])
        if target == "coat":
            if peel is not None:
                links.new(peel, bump.inputs["Normal"])
            links.new(bump.outputs["Normal"], coat)
            continue
        for bsdf in bsdfs:
            links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])


def rust_bump(mat, plan: DamagePlan, uv_socket, bsdfs) -> None:
    """Pitted rust and a rim of blistered paint round it (`core.rust_relief`): a bump on top of the paint's own
    (its coat's orange peel) for both BSDFs, and the pits' floors darker on the rust's BSDF. The texture's
    alpha, and so the mask and the area, are as before. Outside the patch (EXTEND of a flat border) the relief
    is flat."""
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    relief = rust_relief(plan)
    h, w = relief.shape
    image = bpy.data.images.new(RELIEF_IMAGE, w, h, alpha=False, float_buffer=True)
    image.colorspace_settings.name = "Non-Color"
    px = np.ones((h, w, 4), np.float32)
    px[..., :3] = relief[..., None]
    image.pixels.foreach_set(px[::-1].ravel())
    pack_on_save(image)
    tex = nodes.new("ShaderNodeTexImage")
    tex.image = image
    tex.interpolation = "Cubic"
    tex.extension = "EXTEND"
    links.new(uv_socket, tex.inputs["Vector"])
    bump = nodes.new("ShaderNodeBump")
    bump.inputs["Strength"].default_value = 1.0
    bump.inputs["Distance"].default_value = RUST_BUMP_DISTANCE_M
    links.new(tex.outputs["Color"], bump.inputs["Height"])
    # the pits' floors are dark (the rust's colour times up to 0.45 where the relief is lowest)
    shade = nodes.new("ShaderNodeMapRange")
    shade.clamp = True
    for key, value in (("From Min", 0.1), ("From Max", 0.38), ("To Min", 0.45), ("To Max", 1.0)):
        shade.inputs[key].default_value = value
    links.new(tex.outputs["Color"], shade.inputs["Value"])
    base = compat.principled_input(bsdfs[1], "Base Color")
    colour = base.links[0].from_socket
    darker = nodes.new("ShaderNodeVectorMath")
    darker.operation = "SCALE"
    links.new(colour, darker.inputs[0])
    links.new(shade.outputs["Result"], darker.inputs["Scale"])
    links.new(darker.outputs["Vector"], base)
    coat = coat_input(bsdfs[0], "Normal")
    below = (coat.links if coat is not None else ()) or bsdfs[0].inputs["Normal"].links
    if below:  # the paint's own bump (the orange peel on its coat) under the rust's
        links.new(below[0].from_socket, bump.inputs["Normal"])
    for bsdf in bsdfs:
        for key in ("Normal", "Coat Normal", "Clearcoat Normal"):
            if bsdf.inputs.get(key) is not None:
                links.new(bump.outputs["Normal"], bsdf.inputs[key])


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
