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

import bpy
import numpy as np

from ..core import leaf_texture
from ..core.far_conifers import whorled_tiers
from ..core import vegetation as cv
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
def bark_material(name: str, color=(0.105, 0.09, 0.072)):
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


# Mown stripes, as a roof or a car park shows them: the lighter passes STRIPE_STRENGTH of the way to the light
# green (0.4 left them to an enhanced-contrast eye: "flat grass" to every viewer of horizon_peak)
STRIPE_STRENGTH = 0.75
STRIPE_WANDER = 0.4  # in stripe widths, over some 15 m along a pass
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
    # a mower's passes wander off the straight line (a slow noise, STRIPE_WANDER stripe widths either way)
    flat = mats.scaled_vector(nodes, links, coord, (1.0, 1.0, 0.0))
    wander = mats.map_range(nodes, links, mats.noise_fac(nodes, links, flat, 0.07, 1.0), 0.3, 0.7,
                            -STRIPE_WANDER, STRIPE_WANDER)
    band = nodes.new("ShaderNodeMath")
    band.operation = "PINGPONG"
    band.inputs[1].default_value = 1.0
    links.new(mats.math_node(nodes, links, "ADD", across.outputs["Value"], wander), band.inputs[0])
    stripe = mats.map_range(nodes, links, band.outputs[0], 0.4, 0.6, 0.0, STRIPE_STRENGTH)
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
    `core.vegetation` plant dict (one plant or `merge_plants` of many). The leaves are the measured crown (ray
    casts see it); the render shows leaf cards inside it instead (`dress_crown`). Returns the names of the
    measured objects made (the cards, render-only instances, carry CARD_TAG)."""
    names = []
    lv, lt = plants["leaves"]
    if len(lt):
        hull = mesh_object(f"{name}_Leaves", lv, lt, collection, materials=[leaf_mat],
                           face_attributes={"leaf_shade": plants["leaf_shade"]}, smooth=True)
        names.append(f"{name}_Leaves")
        kinds = plants.get("leaf_kind", np.zeros(len(lt), int))
        for k, kind in enumerate(cv.LEAF_KINDS):
            chosen = np.flatnonzero(kinds == k)
            if len(chosen):
                dress_crown(collection, f"{name}_{kind.title()}", hull, lv, lt[chosen], kind,
                                     card_m=PLANT_CARD_M[kind])
    wv, wt = plants["wood"]
    if len(wt):
        mesh_object(f"{name}_Wood", wv, wt, collection, materials=[bark_mat], smooth=True)
        names.append(f"{name}_Wood")
    return names


# -- leaf cards -----------------------------------------------------------------------------------------------

PLANT_CARD_M = {"broadleaf": 0.3, "needle": 0.32}  # half the side of a full-size card, metres
CARD_TAG = "rb_leaf_cards"  # a custom property on every card instancer and card
RAYS = ("visible_camera", "visible_diffuse", "visible_glossy", "visible_transmission", "visible_volume_scatter",
        "visible_shadow")


def hide_from_render(obj) -> None:
    """Leave `obj` in the scene and in every measurement (its triangles, the ray casts' BVH), but let no render
    ray see it: its leaf cards stand in for it."""
    for ray in RAYS:
        if hasattr(obj, ray):
            setattr(obj, ray, False)


def _atlas_images(kind: str):
    rgb, alpha = leaf_texture.leaf_atlas(kind)
    color = mats.packed_image(f"RB_{kind.title()}CardColor", rgb)
    # the image reads as sRGB (changing a drawn image's colour space drops its pixels): store the coverage
    # sRGB-encoded, so that the texture's linear output is the coverage itself
    a = alpha / 255.0
    encoded = np.where(a <= 0.0031308, 12.92 * a, 1.055 * a ** (1 / 2.4) - 0.055)
    cover = mats.packed_image(f"RB_{kind.title()}CardAlpha",
                              np.repeat((encoded * 255).round().astype(np.uint8)[..., None], 3, axis=2))
    return color, cover


def card_material(name: str, kind: str):
    """Leaf cards: the atlas cell the instance's random picks (`core.leaf_texture`), its colour varied from
    tree to tree (noise over the instance's location) and spray to spray, a little translucent so back-lit
    leaves glow, and transparent outside the drawn leaves (the atlas's alpha)."""
    mat = bpy.data.materials.get(name)
    if mat is not None and mat.get(CARD_TAG) == kind:  # one per scene: every tree's cards share it
        return mat
    mat, nodes, links, bsdf = mats.new_material(name)
    mat[CARD_TAG] = kind
    color_image, alpha_image = _atlas_images(kind)
    info = nodes.new("ShaderNodeObjectInfo")
    local = nodes.new("ShaderNodeTexCoord").outputs["UV"]  # the card's own square, [0, 1]^2
    cell = mats.math_node(nodes, links, "FLOOR", mats.math_node(nodes, links, "MULTIPLY", info.outputs["Random"], 4.0))
    col = mats.math_node(nodes, links, "MODULO", cell, 2.0)
    row = mats.math_node(nodes, links, "FLOOR", mats.math_node(nodes, links, "MULTIPLY", cell, 0.5))
    xyz = nodes.new("ShaderNodeSeparateXYZ")
    links.new(local, xyz.inputs[0])
    uv = nodes.new("ShaderNodeCombineXYZ")
    for axis, offset in (("X", col), ("Y", row)):
        inside = mats.math_node(nodes, links, "MULTIPLY_ADD", xyz.outputs[axis], 0.996, 0.002)
        links.new(mats.math_node(nodes, links, "MULTIPLY", mats.math_node(nodes, links, "ADD", inside, offset), 0.5),
                  uv.inputs[axis])
    textures = []
    for image in (color_image, alpha_image):
        tex = nodes.new("ShaderNodeTexImage")
        tex.image, tex.interpolation, tex.extension = image, "Linear", "EXTEND"
        links.new(uv.outputs[0], tex.inputs["Vector"])
        textures.append(tex)
    trees = mats.noise_fac(nodes, links, info.outputs["Location"], 0.06, 1.0)
    vary = mats.weighted_sum(nodes, links, trees, info.outputs["Random"], 0.7)
    tint = mats.color_ramp(nodes, links, vary, [(0.25, (0.62, 0.62, 0.7)), (0.5, (0.9, 0.95, 0.9)),
                                                 (0.75, (1.25, 1.15, 0.8))]).outputs["Color"]
    base = mats.mix_rgb(nodes, links, 1.0, textures[0].outputs["Color"], tint, blend="MULTIPLY")
    links.new(base, compat.principled_input(bsdf, "Base Color"))
    compat.principled_input(bsdf, "Roughness").default_value = 0.62
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.35
    translucent = nodes.new("ShaderNodeBsdfTranslucent")
    links.new(base, translucent.inputs["Color"])
    leaf = nodes.new("ShaderNodeMixShader")
    leaf.inputs["Fac"].default_value = 0.2
    links.new(bsdf.outputs["BSDF"], leaf.inputs[1])
    links.new(translucent.outputs["BSDF"], leaf.inputs[2])
    cut = nodes.new("ShaderNodeMixShader")
    links.new(textures[1].outputs["Color"], cut.inputs["Fac"])
    links.new(nodes.new("ShaderNodeBsdfTransparent").outputs["BSDF"], cut.inputs[1])
    links.new(leaf.outputs["Shader"], cut.inputs[2])
    links.new(cut.outputs["Shader"], nodes.get("Material Output").inputs["Surface"])
    mat.diffuse_color = (0.05, 0.09, 0.03, 1.0)
    return mat


def add_cards(collection, name: str, cards: dict, material) -> list[str]:
    """An instancer f"{name}" of one triangle per card (`core.vegetation.card_instancer`), hidden in renders,
    and its child f"{name}_Card" (the folded card), face-instanced on every triangle. Neither is measured
    (`bl.raycast` skips instancers and what they instance): every card lies inside its measured crown."""
    if not len(cards["scales"]):
        return []
    iv, it = cv.card_instancer(cards)
    parent = mesh_object(name, iv, it, collection)
    parent.instance_type = "FACES"
    parent.use_instance_faces_scale = True
    parent.instance_faces_scale = 1.0
    parent.show_instancer_for_render = False
    parent.show_instancer_for_viewport = False
    child = mesh_object(f"{name}_Card", cv.CARD_VERTS, cv.CARD_QUADS, collection, materials=[material])
    uv = child.data.uv_layers.new(name="UVMap")
    uv.data.foreach_set("uv", ((cv.CARD_VERTS[cv.CARD_QUADS.ravel(), :2] + 1) / 2).astype(np.float32).ravel())
    child.parent = parent
    # camera, shadows and reflections only: bounced light need not search the cards, but a mirror must see them,
    # or a car window or a module's glass reflects the bare branches inside the crown as a dark hand (issue 41)
    for ray in ("visible_diffuse", "visible_transmission", "visible_volume_scatter"):
        if hasattr(child, ray):
            setattr(child, ray, False)
    for obj in (parent, child):
        obj[CARD_TAG] = True
    return [parent.name, child.name]


def dress_crown(collection, name: str, hull, verts, tris, kind: str, *, card_m: float, dress=None) -> list[str]:
    """Hide the measured crown `hull` from render rays and fill its pieces (`dress`: which, all by default)
    with leaf cards of `kind`, seeded by the crown's own vertices. Returns the names made."""
    hide_from_render(hull)
    cards = cv.foliage_cards(verts, tris, kind, cv.mesh_seed(verts), card_m=card_m, dress=dress)
    return add_cards(collection, f"{name}Cards", cards, card_material(f"RB_{kind.title()}Cards", kind))


SURROUNDINGS_KIND = {"deciduous": "broadleaf", "conifer": "needle"}
# Surroundings conifers this far out get whorls of branches (`core.far_conifers`) inside their tiers: alone beyond
# the cards' reach, under the cards nearer, where the cards alone, fitted inside a thin measured shell, leave a
# tree as a bare stick with tufts.
WHORLS_FROM_M = 40.0


def dress_surroundings_crowns(collection, hull, verts, tris, shade, crown_kind: str, hull_mat, *,
                              card_reach_m: float = math.inf) -> list[str]:
    """The surroundings' merged crowns of one kind (`core.surroundings_meshes`), measured as they are: the
    pieces of trees within the last `core.vegetation.SURROUNDINGS_CARDS` distance get leaf cards, the larger the
    further; the rest render through an instanced copy that no ray cast sees (so `hull` can be hidden from render
    rays whole, and the measured triangles stay one object): a broadleaf crown as it is, a conifer's tiers as
    whorls of branches inside them (`core.far_conifers`). Returns the render-only objects
    made (tagged CARD_TAG): nothing a scene's lists of measured or standing objects should hold. Cards stop at
    `card_reach_m` where that is nearer (their placement is most of a scene's build time)."""
    verts, tris = np.asarray(verts, float), np.asarray(tris, int)
    bands = [(near, min(far, card_reach_m), card_m, denser) for near, far, card_m, denser in cv.SURROUNDINGS_CARDS
             if near < card_reach_m]
    pieces = cv.piece_triangles(tris, len(verts))
    reach = np.array([np.hypot(*verts[tris[own]].reshape(-1, 3)[:, :2].mean(0)) for own in pieces])
    kind = SURROUNDINGS_KIND[crown_kind]
    names = []
    for k, (near, far, card_m, denser) in enumerate(bands):
        dress = (reach >= near) & (reach < far)
        if dress.any():
            hide_from_render(hull)
            cards = cv.foliage_cards(verts, tris, kind, cv.mesh_seed(verts) + k, card_m=card_m, dress=dress,
                                     density=denser * cv.CARD_DENSITY[kind])
            names += add_cards(collection, f"{hull.name}Cards{k}", cards, card_material(f"RB_{kind.title()}Cards",
                                                                                       kind))
    carded = bands[-1][1] if bands else 0.0  # beyond this no piece has cards
    far = [own for own, r in zip(pieces, reach) if r >= carded]
    if crown_kind == "conifer":  # whorls of branches inside each tier: the far ones' body, the nearer under cards
        whorled = [own for own, r in zip(pieces, reach) if r >= min(WHORLS_FROM_M, carded)]
        if whorled:
            hide_from_render(hull)
            names += _render_copy(collection, f"{hull.name}Far", *whorled_tiers(verts, tris, whorled, shade),
                                  hull_mat)
    elif names and far:
        bare = np.concatenate(far)
        names += _render_copy(collection, f"{hull.name}Far", verts, tris[bare], shade[bare], hull_mat)
    return names


def _render_copy(collection, name: str, verts, tris, shade, material) -> list[str]:
    """What only the render sees of a measured mesh: the same triangles, instanced once at the origin by a
    hidden instancer (a triangle with its centroid there, first edge along +X, facing up, area 1)."""
    r = 1 / math.sqrt(3 * math.sqrt(3) / 4)
    ang = np.radians([-150.0, -30.0, 90.0])
    parent = mesh_object(name, np.column_stack([r * np.cos(ang), r * np.sin(ang), np.zeros(3)]), [[0, 1, 2]],
                         collection)
    parent.instance_type = "FACES"
    parent.use_instance_faces_scale = True
    parent.instance_faces_scale = 1.0
    parent.show_instancer_for_render = False
    parent.show_instancer_for_viewport = False
    used = np.unique(tris)
    index = np.zeros(len(verts), int)
    index[used] = np.arange(len(used))
    child = mesh_object(f"{name}_Crowns", verts[used], index[tris], collection, materials=[material],
                        face_attributes={"tree_shade": shade}, smooth=True)
    child.parent = parent
    for obj in (parent, child):
        obj[CARD_TAG] = True
    return [parent.name, child.name]
