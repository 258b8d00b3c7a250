"""Build a `SurroundingsPlan` in Blender from `core.surroundings_meshes.surroundings_parts` (the same
triangles the analytic skyline uses), with procedural materials: fields and woods on the hills fading into haze with
distance, a mown lawn with dry spots, worn asphalt with a faded centre line, leafy and needled crowns, bark,
weathered siding and roofing, glazed windows in casings, doors and gutters (`bl.facade`), poles.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..core.surroundings import SurroundingsPlan
from ..core.surroundings_meshes import surroundings_parts
from . import compat, facade, vegetation
from . import materials as mats
from .meshes import mesh_object

HAZE = (0.36, 0.43, 0.54)


@dataclass
class BuiltSurroundings:
    plan: SurroundingsPlan
    objects: list[str] = field(default_factory=list)


def _noisy(name: str, stops, scale: float, *, attribute: str | None = None, roughness: float = 0.8,
           bump: float = 0.3, detail: float = 3.0, specular: float = 0.3, haze_from_m: float | None = None):
    """A principled material whose colour is a ramp over noise (plus a face attribute, when given).

    `haze_from_m`: beyond this distance from the origin the colour fades towards the sky's haze
    (aerial perspective, which Cycles does not do without a volume)."""
    mat, nodes, links, bsdf = mats.new_material(name)
    coord = nodes.new("ShaderNodeTexCoord")
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = scale
    noise.inputs["Detail"].default_value = detail
    links.new(coord.outputs["Object"], noise.inputs["Vector"])
    fac = noise.outputs["Fac"]
    if attribute:
        attr = nodes.new("ShaderNodeAttribute")
        attr.attribute_name = attribute
        fac = mats.weighted_sum(nodes, links, attr.outputs["Fac"], fac, 0.6)
    ramp = mats.color_ramp(nodes, links, fac, stops)
    color = ramp.outputs["Color"]
    if haze_from_m is not None:
        length = nodes.new("ShaderNodeVectorMath")
        length.operation = "LENGTH"
        links.new(coord.outputs["Object"], length.inputs[0])
        amount = nodes.new("ShaderNodeMapRange")
        amount.inputs["From Min"].default_value = haze_from_m
        amount.inputs["From Max"].default_value = haze_from_m + 900.0
        amount.inputs["To Min"].default_value = 0.0
        amount.inputs["To Max"].default_value = 0.45
        links.new(length.outputs["Value"], amount.inputs["Value"])
        mixrgb = nodes.new("ShaderNodeMix")
        mixrgb.data_type = "RGBA"
        links.new(amount.outputs["Result"], mixrgb.inputs["Factor"])
        links.new(color, mixrgb.inputs[6])
        mixrgb.inputs[7].default_value = (*HAZE, 1.0)
        color = mixrgb.outputs[2]
    links.new(color, compat.principled_input(bsdf, "Base Color"))
    compat.principled_input(bsdf, "Roughness").default_value = roughness
    compat.principled_input(bsdf, "Specular IOR Level").default_value = specular
    if bump > 0:
        mats.bump_normal(nodes, links, bsdf, noise.outputs["Fac"], bump)
    mat.diffuse_color = (*stops[len(stops) // 2][1], 1.0)
    return mat


def _road(plan: SurroundingsPlan):
    """Asphalt: fine aggregate noise, darker worn wheel tracks, patched and lighter crumbling edges, and a faded
    dashed yellow centre line, all placed in the road's own coordinates (along, across) from the plan."""
    road = plan.road
    mat, nodes, links, bsdf = mats.new_material("RB_Asphalt")
    coord = nodes.new("ShaderNodeTexCoord").outputs["Object"]
    a = math.radians(road.azimuth_deg)

    def dot(direction):
        node = nodes.new("ShaderNodeVectorMath")
        node.operation = "DOT_PRODUCT"
        node.inputs[1].default_value = direction
        links.new(coord, node.inputs[0])
        return node.outputs["Value"]

    def math_node(op, a_socket, b_value):
        node = nodes.new("ShaderNodeMath")
        node.operation = op
        links.new(a_socket, node.inputs[0])
        node.inputs[1].default_value = b_value
        return node.outputs[0]

    along = dot((math.cos(a), math.sin(a), 0.0))
    across = math_node("ABSOLUTE", math_node("SUBTRACT", dot((-math.sin(a), math.cos(a), 0.0)),
                                                          road.offset_m), 0.0)
    grain = mats.noise_fac(nodes, links, coord, 9.0, 3.0)
    patches = mats.noise_fac(nodes, links, coord, 0.25, 3.0)
    base = mats.color_ramp(nodes, links, mats.weighted_sum(nodes, links, grain, patches, 0.5),
                           [(0.3, (0.04, 0.04, 0.042)), (0.55, (0.07, 0.068, 0.066)),
                            (0.75, (0.095, 0.092, 0.088))]).outputs["Color"]
    tracks = mats.map_range(nodes, links, math_node("ABSOLUTE", math_node("SUBTRACT", across,
                                                                                 road.width_m / 4), 0.0),
                               0.25, 0.55, 0.35, 0.0)
    color = mats.mix_rgb(nodes, links, tracks, base, (0.03, 0.03, 0.031))
    edge = mats.map_range(nodes, links, across, road.width_m / 2 - 0.45, road.width_m / 2 - 0.05, 0.0, 0.5)
    color = mats.mix_rgb(nodes, links, edge, color, (0.14, 0.13, 0.115))
    dashes = mats.map_range(nodes, links, math_node("FRACT", math_node("DIVIDE", along, 9.0), 0.0), 0.38, 0.4,
                               1.0, 0.0)
    on_line = mats.map_range(nodes, links, across, 0.07, 0.055, 0.0, 1.0)
    line = math_node("MULTIPLY", on_line, 1.0)
    line_node = line.node
    links.new(dashes, line_node.inputs[1])
    faded = mats.map_range(nodes, links, mats.noise_fac(nodes, links, coord, 1.8, 3.0), 0.3, 0.7, 0.2, 0.7)
    amount = nodes.new("ShaderNodeMath")
    amount.operation = "MULTIPLY"
    links.new(line, amount.inputs[0])
    links.new(faded, amount.inputs[1])
    color = mats.mix_rgb(nodes, links, amount.outputs[0], color, (0.45, 0.36, 0.1))
    links.new(color, compat.principled_input(bsdf, "Base Color"))
    mats.bump_normal(nodes, links, bsdf, grain, 0.15)
    compat.principled_input(bsdf, "Roughness").default_value = 0.85
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.35
    mat.diffuse_color = (0.06, 0.06, 0.06, 1.0)
    return mat


def _scaled(color, k):
    return tuple(min(1.0, c * k) for c in color)


def _materials(plan: SurroundingsPlan) -> dict:
    field_c, forest, lawn = plan.field_color, plan.forest_color, plan.lawn_color
    out = {
        "terrain": _noisy("RB_Terrain", [(0.35, forest), (0.5, _scaled(forest, 1.3)), (0.58, field_c),
                                         (0.8, _scaled(field_c, 1.25))], 0.012, detail=6.0, bump=0.25,
                          roughness=0.95, haze_from_m=120.0),
        "lawn": vegetation.lawn_material("RB_Lawn", lawn, stripe_azimuth_deg=plan.road.azimuth_deg, dry=0.4),
        "asphalt": _road(plan),
        "deciduous": vegetation.leaf_material("RB_LeafCrown", vegetation.LEAF_GREENS, leaf_scale=5.0,
                                              shade_attribute="tree_shade"),
        "conifer": vegetation.leaf_material("RB_NeedleCrown", vegetation.NEEDLE_GREENS, leaf_scale=9.0,
                                            shade_attribute="tree_shade"),
        "bark": vegetation.bark_material("RB_Bark"),
        "window": facade.window_glass_material("RB_NeighbourGlass", seed=len(plan.buildings)),
        "trim": facade.trim_material("RB_NeighbourTrim", (0.8, 0.8, 0.78)),
        "door": facade.trim_material("RB_NeighbourDoor", (0.22, 0.08, 0.05), roughness=0.4),
        "gutter": facade.gutter_material("RB_NeighbourGutter"),
        "wood": mats.principled("RB_PoleWood", (0.16, 0.12, 0.08), roughness=0.9, specular=0.2),
    }
    for i, b in enumerate(plan.buildings):
        brick = b.wall_color[0] > 2 * b.wall_color[1]  # the red of the wall palette is brick; the rest is siding
        out[f"wall{i}"] = facade.weathered(f"RB_NeighbourWall{i:02d}", mats.brick if brick else mats.lap_siding,
                                           (b.wall_color,), seed=i * 7 + 3)  # splash dirt, streaks, a tint of its own
        out[f"roof{i}"] = _noisy(f"RB_NeighbourRoof{i:02d}", [(0.3, _scaled(b.roof_color, 0.75)),
                                                               (0.7, _scaled(b.roof_color, 1.25))], 6.0, bump=0.2,
                                 roughness=0.9)
    return out


def build_surroundings(scene, plan: SurroundingsPlan, rng: np.random.Generator | None = None) -> BuiltSurroundings:
    """Populate `scene` with the surroundings of `plan` (the plan fixes every shape; nothing is drawn here)."""
    col = scene.collection
    built = BuiltSurroundings(plan)
    materials = _materials(plan)
    for part in surroundings_parts(plan):
        attrs = {"tree_shade": part.face_shade} if part.face_shade is not None else None
        obj = mesh_object(part.name, part.vertices, part.triangles, col, materials=[materials[part.material]],
                          face_attributes=attrs, smooth=part.kind in ("crown", "terrain"))
        built.objects.append(part.name)
        if part.kind == "crown":  # measured as built; the render shows leaf cards inside (`bl.vegetation`)
            built.objects += vegetation.dress_surroundings_crowns(col, obj, part.vertices, part.triangles,
                                                                  part.face_shade, part.material,
                                                                  materials[part.material])
    return built
