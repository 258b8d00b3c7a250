"""Vegetation materials and objects shared by every outdoor scene: leaves (clumped, shaded per cluster), bark,
and a lawn with mown stripes, patches and dry spots; trees and shrubs built from `core.vegetation` meshes.

Public functions take plain numbers, a collection and materials, never scene plans:

    leaves, bark = leaf_material("RB_LotLeaves"), bark_material("RB_LotBark")
    plants = core.vegetation.merge_plants([deciduous_tree(4, 2, 0, 9, 3, 2.5, seed=11), shrub(1, 1, 0, .6, .8, 12)])
    add_plants(collection, "LotTrees", plants, leaves, bark)
    lawn = lawn_material("RB_LotLawn", (0.09, 0.14, 0.05), stripe_azimuth_deg=30)
"""
from __future__ import annotations

import math

import numpy as np

from . import compat
from . import materials as mats
from .meshes import mesh_object
from .material_cache import reused

LEAF_GREENS = [(0.2, (0.028, 0.055, 0.014)), (0.45, (0.05, 0.09, 0.02)), (0.7, (0.08, 0.115, 0.028)),
               (0.92, (0.12, 0.125, 0.04))]
NEEDLE_GREENS = [(0.2, (0.013, 0.03, 0.015)), (0.55, (0.026, 0.052, 0.025)), (0.9, (0.048, 0.07, 0.034))]


@reused
def leaf_material(name: str, stops=None, *, leaf_scale: float = 9.0, shade_attribute: str = "leaf_shade"):
    """Foliage: the per-cluster shade (a face attribute) and broad noise pick the green from `stops`
    ([(position, rgb)], LEAF_GREENS by default); small Voronoi cells read as leaves, darker and rougher in the
    gaps between them (the self-shadowed inside of the crown), with a strong bump; a faint sheen catches light."""
    stops = stops or LEAF_GREENS
    mat, nodes, links, bsdf = mats.new_material(name)
    coord = nodes.new("ShaderNodeTexCoord").outputs["Object"]
    attr = nodes.new("ShaderNodeAttribute")
    attr.attribute_name = shade_attribute
    shade = mats.weighted_sum(nodes, links, attr.outputs["Fac"], mats.noise_fac(nodes, links, coord, 0.7, 3.0), 0.6)
    color = mats.color_ramp(nodes, links, shade, stops).outputs["Color"]
    cells = nodes.new("ShaderNodeTexVoronoi")
    cells.inputs["Scale"].default_value = leaf_scale
    links.new(coord, cells.inputs["Vector"])
    gaps = mats.map_range(nodes, links, cells.outputs["Distance"], 0.05, 0.9, 1.25, 0.3)
    combine = nodes.new("ShaderNodeCombineColor")
    for channel in ("Red", "Green", "Blue"):
        links.new(gaps, combine.inputs[channel])
    color = mats.mix_rgb(nodes, links, 1.0, color, combine.outputs["Color"], blend="MULTIPLY")
    # a second, coarser layer of clumps: whole sprays of leaves in light or shadow
    sprays = mats.noise_fac(nodes, links, coord, 2.2, 2.0)
    color = mats.mix_rgb(nodes, links, mats.map_range(nodes, links, sprays, 0.4, 0.65, 0.0, 0.5), color,
                     mats.mix_rgb(nodes, links, 1.0, color, (0.55, 0.55, 0.5), blend="MULTIPLY"))
    links.new(color, compat.principled_input(bsdf, "Base Color"))
    invert = nodes.new("ShaderNodeMath")
    invert.operation = "SUBTRACT"
    invert.inputs[0].default_value = 1.0
    links.new(cells.outputs["Distance"], invert.inputs[1])
    mats.bump_normal(nodes, links, bsdf, invert.outputs[0], 0.7, 0.15)
    compat.principled_input(bsdf, "Roughness").default_value = 0.7
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.3
    mat.diffuse_color = (*stops[len(stops) // 2][1], 1.0)
    return mat


@reused
def bark_material(name: str, color=(0.075, 0.058, 0.042)):
    """Bark: vertical furrows (noise stretched along Z) darken and bump the base colour."""
    mat, nodes, links, bsdf = mats.new_material(name)
    coord = nodes.new("ShaderNodeTexCoord").outputs["Object"]
    furrows = mats.noise_fac(nodes, links, mats.scaled_vector(nodes, links, coord, (14.0, 14.0, 1.5)), 3.0, 4.0)
    dark = tuple(c * 0.45 for c in color)
    light = tuple(min(1.0, c * 1.5) for c in color)
    ramp = mats.color_ramp(nodes, links, furrows, [(0.3, dark), (0.55, color), (0.8, light)])
    links.new(ramp.outputs["Color"], compat.principled_input(bsdf, "Base Color"))
    mats.bump_normal(nodes, links, bsdf, furrows, 0.8, 0.02)
    compat.principled_input(bsdf, "Roughness").default_value = 0.92
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.2
    mat.diffuse_color = (*color, 1.0)
    return mat


LAWN_ARGUMENTS = ("color", "stripe_azimuth_deg", "stripe_width_m", "dry", "seed", "stripe_center", "stripe_radius_m")


def _lawn_values(mat, *, color, stripe_azimuth_deg, stripe_width_m, dry, seed, stripe_center, stripe_radius_m):
    """Every value `lawn_material`'s arguments choose, set on its named nodes (one template serves all lawns)."""
    nodes = mat.node_tree.nodes
    rng = np.random.default_rng(abs(int(seed)) + 17)
    nodes["Patches"].inputs["Scale"].default_value = 0.18 + 0.05 * rng.random()
    light = tuple(min(1.0, c * 1.3) for c in color)
    stops = (tuple(c * 0.62 for c in color), color, light,
             (min(1.0, color[0] * 1.6), min(1.0, color[1] * 1.25), color[2] * 0.8))
    for element, rgb in zip(nodes["Lawn colours"].color_ramp.elements, stops):
        element.color = (*rgb, 1.0)
    a = math.radians(stripe_azimuth_deg)
    nodes["Across stripes"].inputs[1].default_value = (-math.sin(a) / stripe_width_m, math.cos(a) / stripe_width_m, 0.0)
    nodes["Stripe light"].inputs[7].default_value = (*light[:3], 1.0)
    nodes["Yard centre"].inputs[1].default_value = (*stripe_center, 0.0)
    yard = nodes["Yard"].inputs
    yard["From Min"].default_value, yard["From Max"].default_value = stripe_radius_m, 2 * stripe_radius_m
    nodes["Dry spots"].inputs["To Max"].default_value = 0.7 * dry
    nodes["Bare soil"].inputs["To Max"].default_value = 0.45 * dry
    mat.diffuse_color = (*color, 1.0)


@reused(varying=LAWN_ARGUMENTS, values=_lawn_values)
def lawn_material(name: str, color, *, stripe_azimuth_deg: float = 0.0, stripe_width_m: float = 0.9,
                  dry: float = 0.35, seed: int = 0, stripe_center=(0.0, 0.0), stripe_radius_m: float = 30.0):
    """A lawn seen from a few metres: patches of lighter and darker grass (broad noise), mown stripes
    `stripe_width_m` wide across `stripe_azimuth_deg` (only on the mown yard: they fade out between
    `stripe_radius_m` and twice that from `stripe_center`), yellow-brown dry spots (`dry` 0..1 of their strength),
    bare-soil flecks and blade-scale noise with a fine bump. Object coordinates (world, for our meshes)."""
    mat, nodes, links, bsdf = mats.new_material(name)
    # the structure here; every value the arguments choose is set by _lawn_values, named nodes
    coord = nodes.new("ShaderNodeTexCoord").outputs["Object"]
    patches = mats.noise_fac(nodes, links, coord, 1.0, 4.0)
    patches.node.name = "Patches"
    blades = mats.noise_fac(nodes, links, coord, 140.0, 2.0)
    fac = mats.weighted_sum(nodes, links, patches, blades, 0.75)
    grey = (0.5, 0.5, 0.5)
    ramp = mats.color_ramp(nodes, links, fac, [(0.36, grey), (0.5, grey), (0.62, grey), (0.74, grey)])
    ramp.name = "Lawn colours"
    color_out = ramp.outputs["Color"]
    # mown stripes: alternate bands along the mowing direction, the lighter ones bend the blades away
    across = nodes.new("ShaderNodeVectorMath")
    across.name = "Across stripes"
    across.operation = "DOT_PRODUCT"
    links.new(coord, across.inputs[0])
    band = nodes.new("ShaderNodeMath")
    band.operation = "PINGPONG"
    band.inputs[1].default_value = 1.0
    links.new(across.outputs["Value"], band.inputs[0])
    stripe = mats.map_range(nodes, links, band.outputs[0], 0.4, 0.6, 0.0, 0.4)
    offset = nodes.new("ShaderNodeVectorMath")
    offset.name = "Yard centre"
    offset.operation = "DISTANCE"
    links.new(mats.scaled_vector(nodes, links, coord, (1.0, 1.0, 0.0)), offset.inputs[0])
    yard = mats.map_range(nodes, links, offset.outputs["Value"], 1.0, 2.0, 1.0, 0.0)
    yard.node.name = "Yard"
    on_yard = nodes.new("ShaderNodeMath")
    on_yard.operation = "MULTIPLY"
    links.new(stripe, on_yard.inputs[0])
    links.new(yard, on_yard.inputs[1])
    stripe = on_yard.outputs[0]
    color_out = mats.mix_rgb(nodes, links, stripe, color_out, grey)
    color_out.node.name = "Stripe light"
    # dry spots and bare soil
    spots = mats.noise_fac(nodes, links, mats.scaled_vector(nodes, links, coord, (1.0, 1.0, 0.0)), 0.55, 3.0)
    dry_fac = mats.map_range(nodes, links, spots, 0.6, 0.72, 0.0, 1.0)
    dry_fac.node.name = "Dry spots"
    color_out = mats.mix_rgb(nodes, links, dry_fac, color_out, (0.2, 0.16, 0.07))
    soil = mats.map_range(nodes, links, mats.noise_fac(nodes, links, coord, 3.5, 2.0), 0.7, 0.78, 0.0, 1.0)
    soil.node.name = "Bare soil"
    color_out = mats.mix_rgb(nodes, links, soil, color_out, (0.09, 0.07, 0.05))
    links.new(color_out, compat.principled_input(bsdf, "Base Color"))
    mats.bump_normal(nodes, links, bsdf, blades, 0.35, 0.02)
    compat.principled_input(bsdf, "Roughness").default_value = 0.95
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.15
    _lawn_values(mat, color=color, stripe_azimuth_deg=stripe_azimuth_deg, stripe_width_m=stripe_width_m, dry=dry,
                 seed=seed, stripe_center=stripe_center, stripe_radius_m=stripe_radius_m)
    return mat


def add_plants(collection, name: str, plants: dict, leaf_mat, bark_mat) -> list[str]:
    """Objects f"{name}_Leaves" (smooth, with the "leaf_shade" face attribute) and f"{name}_Wood" from a
    `core.vegetation` plant dict (one plant or `merge_plants` of many). Returns the names made."""
    names = []
    lv, lt = plants["leaves"]
    if len(lt):
        mesh_object(f"{name}_Leaves", lv, lt, collection, materials=[leaf_mat],
                    face_attributes={"leaf_shade": plants["leaf_shade"]}, smooth=True)
        names.append(f"{name}_Leaves")
    wv, wt = plants["wood"]
    if len(wt):
        mesh_object(f"{name}_Wood", wv, wt, collection, materials=[bark_mat], smooth=True)
        names.append(f"{name}_Wood")
    return names
